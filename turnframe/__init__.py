"""turnframe: models propose meaning, a pure reducer decides effects, committed events decide
claims, supervised actors keep it running.

The handful of names an adopter needs; everything else lives in its own module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from turnframe.messages import InteractionResponse, UserTurn
from turnframe.plan import PlanRejected, UserTurnPlan, parse_plan
from turnframe.policy import AtomicityScope, CommandPolicy
from turnframe.reduce import ReductionContext, reduce
from turnframe.response import Block, BlockKind, TurnResponse
from turnframe.results import ReductionPlan, Rejection
from turnframe.workflow import Argument, DomainEvent, Field, Operation, Question, Workflow

if TYPE_CHECKING:
    from turnframe.actors.session import InvalidTurn, TurnIncomplete
    from turnframe.runtime import Runtime, RuntimeSettings, UnknownSession, UnknownWorkflow
    from turnframe.runtime.leasing import SessionLeasedElsewhere
    from turnframe.stores import SqliteStore, Store

__version__ = "0.1.0"

# The runtime and the stores do I/O; they load on first use, so importing a pure module
# (``turnframe.reduce``) never pulls in anyio or aiosqlite.
_LAZY = {
    "Runtime": "turnframe.runtime",
    "RuntimeSettings": "turnframe.runtime",
    "SqliteStore": "turnframe.stores",
    "Store": "turnframe.stores",
    "SessionLeasedElsewhere": "turnframe.runtime.leasing",
    "TurnIncomplete": "turnframe.actors.session",
    "InvalidTurn": "turnframe.actors.session",
    "UnknownSession": "turnframe.runtime",
    "UnknownWorkflow": "turnframe.runtime",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'turnframe' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Argument",
    "AtomicityScope",
    "Block",
    "BlockKind",
    "CommandPolicy",
    "DomainEvent",
    "Field",
    "InteractionResponse",
    "InvalidTurn",
    "Operation",
    "PlanRejected",
    "Question",
    "ReductionContext",
    "ReductionPlan",
    "Rejection",
    "Runtime",
    "RuntimeSettings",
    "SessionLeasedElsewhere",
    "SqliteStore",
    "Store",
    "TurnIncomplete",
    "TurnResponse",
    "UnknownSession",
    "UnknownWorkflow",
    "UserTurn",
    "UserTurnPlan",
    "Workflow",
    "__version__",
    "parse_plan",
    "reduce",
]
