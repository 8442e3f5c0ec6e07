"""What becomes of a turn that cannot be finished: a final phase with a typed reason (DESIGN §2,
"No poison"). Pure: the session actor does the I/O.

The session drives a turn as a phase machine and tries a failed step again from the phase the
store holds. When the same failure keeps coming, this module decides what follows:

- :func:`failure_signature` says what "the same way" means: the phase the turn stood in and
  the error's stable code (or its type, for an untyped error);
- :func:`is_transient` separates failures that say nothing about the turn (the store or an
  actor was unavailable, or timed out) from failures the turn itself provokes. A transient
  failure leaves the turn to recovery, counted durably (``Store.note_turn_failure``) so that
  recovery parks it after a budget instead of trying forever; any other failure that repeats
  parks the turn at once;
- :func:`parked_record` and :func:`fallback_blocks` are what a parked turn leaves: a replay
  record naming the reason, and a reply built without the narrator (which may be what failed)
  that still gives every act a visible result.

A parked turn that committed nothing ends ``failed``; one whose commit bundle is durable ends
``delivered`` with that fallback reply: a committed effect is never denied.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from turnframe._hashing import digest
from turnframe._strict import storable, storable_text
from turnframe.actors.errors import ActorCrashed, ActorStopped, AskTimeout
from turnframe.errors import TurnframeError
from turnframe.lifecycle import TurnPhase
from turnframe.narration import codes
from turnframe.providers.redaction import redact
from turnframe.response import Block, BlockKind
from turnframe.stores.errors import StoreClosed, StoreTimeout
from turnframe.supervisors.errors import SupervisorNotRunning

#: The reason code of a parked turn (its cause's own code is recorded beside it).
TURN_PARKED = "turnframe.turn.parked"
#: ``meta["failure"]`` of a parked turn's stored reply, and ``outcome`` of its replay record.
PARKED_FAILED = "turn_failed"
PARKED_REPLY = "reply_failed"

_TRANSIENT = (
    StoreTimeout,
    StoreClosed,
    AskTimeout,
    ActorStopped,
    SupervisorNotRunning,
    TimeoutError,
    ConnectionError,
)


def root_cause(error: BaseException) -> BaseException:
    """The error a stage actor crashed with, else ``error`` itself."""
    while isinstance(error, ActorCrashed) and error.cause is not None:
        error = error.cause
    return error


def error_code(error: BaseException) -> str:
    """A typed error's stable code, else the exception's type (``builtins.KeyError``)."""
    cause = root_cause(error)
    if isinstance(cause, TurnframeError):
        return cause.code
    kind = type(cause)
    return f"{kind.__module__}.{kind.__qualname__}"


def failure_signature(phase: TurnPhase, error: BaseException) -> str:
    return f"{phase.value}:{error_code(error)}"


def is_transient(error: BaseException) -> bool:
    """True when the failure says nothing about the turn: something it needed was unavailable
    (a store timeout, a stopped actor, an ask without an answer in time)."""
    if isinstance(error, _TRANSIENT):
        return True
    return isinstance(error, ActorCrashed) and isinstance(root_cause(error), _TRANSIENT)


@attrs.define
class FailureStreak:
    """Failures of one handling of a turn: how many in a row had the same signature, and how
    many there were in all (each bounded, so a handling always ends)."""

    signature: str | None = None
    in_a_row: int = 0
    total: int = 0

    def add(self, signature: str) -> None:
        self.in_a_row = self.in_a_row + 1 if signature == self.signature else 1
        self.signature = signature
        self.total += 1

    def allows(self, limit: int) -> bool:
        """Whether another try is due: fewer than ``limit`` of the same failure in a row, and
        fewer than ``2 * limit`` failures in all."""
        return self.in_a_row < limit and self.total < 2 * limit


def cause_json(error: BaseException) -> dict[str, str]:
    """The typed reason as recorded: code and a message that can always be stored, redacted
    (a failure may quote a provider's words, which may echo a key)."""
    cause = root_cause(error)
    message = cause.message if isinstance(cause, TurnframeError) else str(cause)
    return {"code": error_code(error), "message": redact(storable_text(message))[:500]}


def parked_record(
    *,
    turn_id: str,
    session_id: str,
    workflow: str,
    phase: TurnPhase,
    committed: bool,
    error: BaseException,
    attempts: int,
) -> dict[str, Any]:
    """The replay record (or reply meta) of a parked turn: why, where, after how many tries."""
    record = {
        "turn_id": turn_id,
        "session_id": session_id,
        "workflow": workflow,
        "outcome": PARKED_REPLY if committed else PARKED_FAILED,
        "reason": TURN_PARKED,
        "stopped_in": phase.value,
        "error": cause_json(error),
        "attempts": attempts,
    }
    parked: dict[str, Any] = storable(record)
    return parked


def act_refs(reduction: Any) -> tuple[tuple[int, ...], list[dict[str, Any]]]:
    """The acts a stored reduction (raw JSON) has results for, read defensively: the indices
    of its own acts, and the click's decided acts as ``pending_acts`` entries."""
    indices: list[int] = []
    pending: list[dict[str, Any]] = []
    if not isinstance(reduction, dict):
        return (), []
    for result in _dicts(reduction.get("results")):
        if isinstance(result.get("act_index"), int):
            indices.append(result["act_index"])
    outcome = reduction.get("interaction_outcome")
    if isinstance(outcome, dict):
        for result in _dicts(outcome.get("results")):
            if isinstance(result.get("act_index"), int):
                pending.append(
                    {"index": result["act_index"], "interaction_id": outcome.get("interaction_id")}
                )
    return tuple(sorted(set(indices))), pending


def _dicts(value: Any) -> Iterable[dict[str, Any]]:
    return (v for v in value if isinstance(v, dict)) if isinstance(value, list) else ()


_FAILED_TEXT = (
    "Something went wrong while handling your message, so nothing was done. "
    "Please try again, or rephrase it."
)
_REPLY_TEXT = (
    "Your message was handled and what it changed is saved, but the reply could not be "
    "written. Ask again to see where things stand."
)


def fallback_blocks(
    *, account_id: str, turn_id: str, reduction: Any, committed: bool, error: BaseException
) -> tuple[Block, ...]:
    """One notice that gives every act of the turn a visible result, without the narrator."""
    indices, pending = act_refs(reduction)
    code = codes.NOTICE_REPLY_UNAVAILABLE if committed else codes.NOTICE_TURN_FAILED
    data: dict[str, Any] = {
        "failure": PARKED_REPLY if committed else PARKED_FAILED,
        "reason": TURN_PARKED,
        "error_code": error_code(error),
    }
    if pending:
        data["pending_acts"] = pending
    identity = {"account": account_id, "turn": turn_id, "code": code}
    block = Block(
        block_id="blk_" + digest("response.block.parked", identity)[:32],
        kind=BlockKind.NOTICE,
        code=code,
        text=_REPLY_TEXT if committed else _FAILED_TEXT,
        acts=indices,
        data=data,
    )
    return (block,)


__all__ = [
    "PARKED_FAILED",
    "PARKED_REPLY",
    "TURN_PARKED",
    "FailureStreak",
    "act_refs",
    "cause_json",
    "error_code",
    "failure_signature",
    "fallback_blocks",
    "is_transient",
    "parked_record",
    "root_cause",
]
