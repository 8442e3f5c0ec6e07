"""One session's conversation as the command line drives it: say a line, click a card option.

Each finished turn comes back with its audit view, loaded from the store's records (the same
view ``turnframe replay`` prints), so what the CLI shows is what was recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from turnframe.cli.errors import NoOpenCard, UnknownOptionLabel
from turnframe.pipeline.cards import CardOption, match_option, options_of
from turnframe.pipeline.replay_view import ReplayView, load_replay_view
from turnframe.pipeline.turn_view import TurnView
from turnframe.response import TurnResponse
from turnframe.runtime import Runtime
from turnframe.stores.records import InteractionRecord, SessionRecord


@attrs.frozen(kw_only=True)
class TurnOutcome:
    said: str  # what the user typed ("/click confirm" for a click)
    response: TurnResponse
    view: ReplayView | None


def card_options(card: InteractionRecord) -> list[CardOption]:
    """A card's options with the labels its card block shows (the option id when unlabelled)."""
    return options_of(card.payload)


def pick_option(options: Sequence[CardOption], text: str) -> CardOption:
    """The option labelled ``text`` (exactly, else ignoring case), else the option with that
    id; a typed error naming the labels otherwise."""
    found = match_option(options, text)
    if len(found) == 1:
        return found[0]
    if found:
        ids = ", ".join(o.option_id for o in found)
        raise UnknownOptionLabel(
            f"several options of the open card are labelled {text!r} (option ids: {ids})",
            hint="click by option id instead: /click OPTION_ID",
        )
    labels = ", ".join(o.label for o in options) or "none"
    raise UnknownOptionLabel(
        f"the open card has no option labelled {text!r}; its options: {labels}",
        hint="write /click with one of those labels",
    )


class Conversation:
    def __init__(self, runtime: Runtime, session: SessionRecord) -> None:
        self.runtime = runtime
        self.session = session

    async def say(self, text: str) -> TurnOutcome:
        # Recorded on arrival: a chat interrupted mid-turn finishes it on its next start.
        turn = self.runtime.new_turn(self.session, text)
        response = await self.runtime.handle_turn(turn, record_first=True)
        return await self._outcome(text, response)

    async def open_card(self) -> InteractionRecord:
        """The session's most recent open card."""
        cards = await self.runtime.store.list_open_interactions(
            self.session.account_id, session_id=self.session.session_id
        )
        if not cards:
            raise NoOpenCard(
                "there is no open card in this session to click",
                hint="/click answers a card the assistant showed; send a message instead",
            )
        return max(cards, key=lambda c: c.created_at)

    async def click(self, label: str) -> TurnOutcome:
        card = await self.open_card()
        option = pick_option(card_options(card), label)
        expected = card.payload.get("expected_revision") if isinstance(card.payload, dict) else 0
        response = await self.runtime.respond(
            session=self.session,
            interaction_id=card.interaction_id,
            option_id=option.option_id,
            expected_revision=int(expected or 0),
            record_first=True,
        )
        return await self._outcome(f"/click {label}", response)

    async def _outcome(self, said: str, response: TurnResponse) -> TurnOutcome:
        view = await load_replay_view(
            self.runtime.store, account_id=self.session.account_id, turn_id=response.turn_id
        )
        return TurnOutcome(said=said, response=response, view=view)


def turn_json(response: TurnResponse) -> dict[str, Any]:
    """The documented per-turn JSON of ``turnframe chat --json`` (docs/cli.md): the shared
    :class:`~turnframe.pipeline.turn_view.TurnView` form, which the HTTP API returns too (recall
    blocks with their contract fields, docs/recall.md)."""
    return TurnView.of(response).to_json()


__all__ = ["CardOption", "Conversation", "TurnOutcome", "card_options", "pick_option", "turn_json"]
