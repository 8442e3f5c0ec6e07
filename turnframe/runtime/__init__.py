"""The Runtime: the whole pipeline behind one ``async with`` (see ``docs/runtime.md``)."""

from turnframe.runtime.runtime import Runtime
from turnframe.runtime.settings import (
    RecoveryReport,
    RuntimeSettings,
    UnknownSession,
    UnknownWorkflow,
)

__all__ = ["RecoveryReport", "Runtime", "RuntimeSettings", "UnknownSession", "UnknownWorkflow"]
