"""What a user sends: one turn of text, optionally with a structured interaction response."""

from __future__ import annotations

from datetime import datetime

import attrs


def _tz_aware(_: object, attribute: attrs.Attribute[datetime], value: datetime) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{attribute.name} must be timezone-aware, got {value!r}")


@attrs.frozen(kw_only=True)
class InteractionResponse:
    """A click on a card: ids only.

    A client names the interaction and the option it chose, and the case revision it saw. It
    cannot say what an option means; the server looks that up in the stored interaction.
    """

    interaction_id: str
    option_id: str
    expected_revision: int


@attrs.frozen(kw_only=True)
class UserTurn:
    """One user turn as received.

    ``clock`` is the instant the turn was received (timezone-aware). Relative dates ("Friday",
    "tomorrow") are computed from it, never from the wall clock, so a replay parses the same way.
    """

    session_id: str
    account_id: str
    turn_id: str
    text: str
    clock: datetime = attrs.field(validator=_tz_aware)
    locale: str = "en"
    interaction_response: InteractionResponse | None = None
