"""OTP-style supervisors: strategies, restart types, restart intensity, dynamic children."""

from turnframe.supervisors.dynamic import DynamicSupervisor
from turnframe.supervisors.errors import (
    ChildStartFailed,
    DuplicateChild,
    RestartIntensityExceeded,
    SupervisorError,
    SupervisorNotRunning,
    TooManyChildren,
    UnknownChild,
)
from turnframe.supervisors.events import EventKind, SupervisionEvent
from turnframe.supervisors.spec import Backoff, ChildSpec, Restart, RestartIntensity, Strategy
from turnframe.supervisors.supervisor import Supervisor

__all__ = [
    "Backoff",
    "ChildSpec",
    "ChildStartFailed",
    "DuplicateChild",
    "DynamicSupervisor",
    "EventKind",
    "Restart",
    "RestartIntensity",
    "RestartIntensityExceeded",
    "Strategy",
    "SupervisionEvent",
    "Supervisor",
    "SupervisorError",
    "SupervisorNotRunning",
    "TooManyChildren",
    "UnknownChild",
]
