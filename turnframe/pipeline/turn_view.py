"""A turn as clients see it: the form ``turnframe chat --json`` prints and the HTTP API returns.

One attrs type, :class:`TurnView`, is the single definition of that form: the CLI and the HTTP
API serialise it with the one converter, and the HTTP API's OpenAPI schema is derived from the
same classes (``turnframe.http.schema``), so the documented shape cannot drift from the bytes::

    TurnView.of(response).to_json()       # a turn just handled
    await load_turn_view(store, account_id="acct-1", turn_id="turn-…")   # a stored turn

Both give the same JSON for the same turn: acts are the reduction's results (the turn's own
acts, then those its click decided), blocks are the stored response, events are the ones the
turn committed. A recall block (``turnframe.recall.*``) also carries its contract fields
(``candidates``, ``attempts_left``, ``session_id``…, docs/recall.md); other blocks are written
without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from turnframe._converter import converter, omit_defaults
from turnframe.execution import CommittedEvent
from turnframe.lifecycle import TurnPhase
from turnframe.recall.present import contract_fields
from turnframe.response import Block, BlockKind, TurnResponse
from turnframe.results import ActStatus, PlannedActResult, ReductionPlan
from turnframe.stores.protocol import Store
from turnframe.stores.records import EventRecord


@attrs.frozen(kw_only=True)
class TurnAct:
    """One act's result: what the reducer decided and the stable reason code why."""

    index: int
    kind: str
    result: ActStatus
    reason: str


@attrs.frozen(kw_only=True)
class TurnRecallCandidate:
    """An earlier session a recall block shows, best first: the record's own words (verbatim,
    trimmed with "…" only), where they are, and the command that resumes it."""

    session_id: str
    turn_id: str
    excerpt: str
    resume: str | None  # None: a fork whose parent session is gone
    locator: str
    started_at: str | None
    fork_of: str | None


@attrs.frozen(kw_only=True)
class TurnRecallSkip:
    """A link above session scope that resolved to no record (never an error)."""

    member: str
    anchor: str
    reason: str


#: An edge that joined two members above session scope: ``{"from": session id, "to": session
#: id, "rule", "shared": [anchors]}`` (a mapping: ``from`` cannot be an attribute name).
RecallEdge = dict[str, Any]


@attrs.frozen(kw_only=True)
class TurnBlock:
    """One response block, in order (``docs/responses.md`` lists every code).

    A recall block (``turnframe.recall.*``) also carries the fields of its code in recall's
    JSON contract (docs/recall.md); a field a block does not carry is left out of the JSON.
    """

    kind: BlockKind
    code: str
    text: str
    candidates: tuple[TurnRecallCandidate, ...] | None = None
    attempts_left: int | None = None
    session_id: str | None = None
    turn_id: str | None = None
    resume: str | None = None
    unit: str | None = None
    interaction_id: str | None = None
    options: tuple[str, ...] | None = None
    joined: tuple[RecallEdge, ...] | None = None
    skipped: tuple[TurnRecallSkip, ...] | None = None
    dropped: tuple[str, ...] | None = None


omit_defaults(TurnBlock)


@attrs.frozen(kw_only=True)
class TurnEvent:
    """An event this turn committed."""

    type: str
    case_id: str


@attrs.frozen(kw_only=True)
class TurnCardCommand:
    """One command a card's confirm option executes, exactly as it will run.

    ``arguments`` are the JSON arguments as executed; ``shown`` words each for the user
    ("120.00 EUR"); ``proposed`` names the ones the workflow proposed rather than the user said.
    """

    operation: str | None
    record: str | None
    identifying: tuple[str, ...]
    arguments: dict[str, Any]
    shown: dict[str, str]
    proposed: tuple[str, ...]


@attrs.frozen(kw_only=True)
class TurnCardOption:
    """An option of a card: ``/click LABEL`` in the CLI, ``{"click": LABEL}`` over HTTP."""

    option_id: str | None
    label: str | None
    action: str | None


@attrs.frozen(kw_only=True)
class TurnCard:
    """A card this turn shows: what clicking it executes, or which argument it asks for."""

    interaction_id: str | None
    kind: str | None
    case_id: str | None
    commands: tuple[TurnCardCommand, ...]
    argument: str | None
    options: tuple[TurnCardOption, ...]


@attrs.frozen(kw_only=True)
class TurnView:
    """A turn's outcome: its phase, one result per act, the reply blocks, the cards it shows
    (with every argument a click executes), the committed events."""

    session_id: str
    turn_id: str
    phase: TurnPhase
    acts: tuple[TurnAct, ...]
    blocks: tuple[TurnBlock, ...]
    cards: tuple[TurnCard, ...]
    events: tuple[TurnEvent, ...]

    @classmethod
    def of(cls, response: TurnResponse) -> TurnView:
        return cls(
            session_id=response.session_id,
            turn_id=response.turn_id,
            phase=response.phase,
            acts=_acts(response.results),
            blocks=_blocks(response.blocks),
            cards=_cards(response.blocks),
            events=tuple(TurnEvent(type=e.name, case_id=e.case_id) for e in response.events),
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = converter.unstructure(self)
        return data


async def load_turn_view(store: Store, *, account_id: str, turn_id: str) -> TurnView | None:
    """The stored turn in the same form (``None`` when this account has no such turn)."""
    record = await store.get_turn(account_id, turn_id)
    if record is None:
        return None
    results: tuple[PlannedActResult, ...] = ()
    if record.reduction:
        reduction = converter.structure(record.reduction, ReductionPlan)
        outcome = reduction.interaction_outcome
        results = tuple(reduction.results) + (outcome.results if outcome is not None else ())
    assistant = await store.get_assistant_turn(account_id, turn_id)
    stored = () if assistant is None else assistant.blocks
    blocks = tuple(converter.structure(b, Block) for b in stored)
    events = await store.list_events(account_id, turn_id=turn_id)
    return TurnView(
        session_id=record.session_id,
        turn_id=turn_id,
        phase=record.phase,
        acts=_acts(results),
        blocks=_blocks(blocks),
        cards=_cards(blocks),
        events=_events(events),
    )


def _acts(results: Sequence[PlannedActResult]) -> tuple[TurnAct, ...]:
    return tuple(
        TurnAct(index=r.act_index, kind=r.kind, result=r.status, reason=r.reason) for r in results
    )


def _blocks(blocks: Sequence[Block]) -> tuple[TurnBlock, ...]:
    return tuple(_block(b) for b in blocks)


def _block(block: Block) -> TurnBlock:
    fields = contract_fields(block.code, block.data)
    if not fields:
        return TurnBlock(kind=block.kind, code=block.code, text=block.text)
    data = {"kind": block.kind.value, "code": block.code, "text": block.text, **fields}
    view: TurnBlock = converter.structure(data, TurnBlock)
    return view


def _cards(blocks: Sequence[Block]) -> tuple[TurnCard, ...]:
    return tuple(_card(b.data) for b in blocks if b.kind is BlockKind.CARD)


def _card(data: dict[str, Any]) -> TurnCard:
    def text(value: Any) -> str | None:
        return None if value is None else str(value)

    return TurnCard(
        interaction_id=text(data.get("interaction_id")),
        kind=text(data.get("interaction_kind")),
        case_id=text(data.get("case_id")),
        commands=tuple(
            TurnCardCommand(
                operation=text(c.get("operation")),
                record=text(c.get("record")),
                identifying=tuple(str(i) for i in c.get("identifying", ())),
                arguments=dict(c.get("arguments", {})),
                shown={str(k): str(v) for k, v in c.get("shown", {}).items()},
                proposed=tuple(str(p) for p in c.get("proposed", ())),
            )
            for c in data.get("commands", ())
        ),
        argument=text(data.get("argument")),
        options=tuple(
            TurnCardOption(
                option_id=text(o.get("option_id")),
                label=text(o.get("label")),
                action=text(o.get("action")),
            )
            for o in data.get("options", ())
        ),
    )


def _events(events: Sequence[EventRecord | CommittedEvent]) -> tuple[TurnEvent, ...]:
    return tuple(
        TurnEvent(type=e.type if isinstance(e, EventRecord) else e.name, case_id=e.case_id)
        for e in events
    )


__all__ = [
    "TurnAct",
    "TurnBlock",
    "TurnCard",
    "TurnCardCommand",
    "TurnCardOption",
    "TurnEvent",
    "TurnRecallCandidate",
    "TurnRecallSkip",
    "TurnView",
    "load_turn_view",
]
