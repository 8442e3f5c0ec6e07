"""A turn's typed failure, as the narrator is told about it."""

from __future__ import annotations

import enum

import attrs

from turnframe.errors import TurnframeError


class TurnFailureKind(enum.StrEnum):
    #: No provider gave a plan (every attempt and fallback failed); nothing was reduced.
    INTERPRETATION_FAILED = "interpretation_failed"
    #: The plan was malformed and refused whole; nothing was reduced.
    PLAN_REJECTED = "plan_rejected"
    #: The turn's cards could not be persisted; no act waiting on a card may mention one.
    CARDS_NOT_PERSISTED = "cards_not_persisted"
    #: Execution stopped before some batches ran; those acts were not carried out.
    EXECUTION_FAILED = "execution_failed"
    #: The message is longer than the runtime reads (``RuntimeSettings.max_turn_chars``); it was
    #: not interpreted, so nothing was done.
    INPUT_TOO_LONG = "input_too_long"


@attrs.frozen(kw_only=True)
class TurnFailure:
    """What went wrong; ``error_code`` is the stable code of the typed error, if there was one."""

    kind: TurnFailureKind
    error_code: str | None = None

    @classmethod
    def of(cls, kind: TurnFailureKind, error: TurnframeError | None = None) -> TurnFailure:
        return cls(kind=kind, error_code=None if error is None else error.code)


class NarrationError(TurnframeError):
    """The narrator was given inputs that do not belong together (a wiring bug)."""

    code = "turnframe.narration.inconsistent_inputs"


def as_failure(failure: TurnFailure | TurnFailureKind | str | None) -> TurnFailure | None:
    """A failure given as a :class:`TurnFailure`, a kind, or the kind's value."""
    if failure is None or isinstance(failure, TurnFailure):
        return failure
    try:
        return TurnFailure(kind=TurnFailureKind(failure))
    except ValueError:
        known = ", ".join(k.value for k in TurnFailureKind)
        raise NarrationError(
            f"unknown turn failure {failure!r}", hint=f"name one of: {known}"
        ) from None
