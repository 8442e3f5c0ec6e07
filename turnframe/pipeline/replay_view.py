"""The audit view of one turn, built from the store's records alone (no model, no workflow).

It answers "why did this turn do or not do X": the plan the interpreter proposed (acts with their
evidence), each act's result with the reason code and the act that decided it, the commands
with their journal outcomes, the provider attempts, the committed events, the prompt template
hash, the reference provenance and the response blocks::

    view = await load_replay_view(store, account_id="acct-1", turn_id="turn-…")
    view.to_json()              # plain JSON (what ``turnframe replay --json`` prints)

:func:`build_replay_view` is the pure part: records in, view out. It reads the replay record
when there is one and falls back to the turn record's plan and reduction (a turn still in
flight, or one that failed before a replay record was written); ``source`` says which.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from turnframe._converter import unstructure
from turnframe.providers.redaction import redact
from turnframe.recall.words import content_words
from turnframe.stores.protocol import Store
from turnframe.stores.records import EventRecord, JournalRecord, Json, TurnRecord


@attrs.frozen(kw_only=True)
class ActView:
    """One act of the plan and its one result."""

    index: int
    kind: str
    summary: str  # "set travel_date to “Friday”": what the act proposed, in fixed words
    evidence: tuple[str, ...]  # the user's own words the act cites
    result: str | None  # the ActStatus, None when the turn was never reduced
    reason: str | None  # the stable reason code
    decided_by: int | None  # the act whose presence decided the result
    decided_by_interaction: str | None  # set when a card's pending act decided it
    case_id: str | None = None
    command_ids: tuple[str, ...] = ()
    rejection: Json = None
    detail: str | None = None


@attrs.frozen(kw_only=True)
class CommandView:
    """A command of the turn (or authorized by its click) and its journal row."""

    command_id: str | None
    idempotency_key: str
    name: str | None
    args: Json
    case_id: str | None
    batch_id: str | None
    origin_act: int | None
    origin_interaction: str | None
    expected_revision: int | None
    planned_in: str | None  # the turn whose plan made it (a click runs an earlier turn's)
    journal_status: str | None  # what the journal holds now (None: no journal row)
    journal_outcome: Json  # the outcome the journal holds now (a later click may have set it)
    outcome: Json  # the outcome this turn recorded (None: it executed nothing, e.g. it waited)


@attrs.frozen(kw_only=True)
class EventView:
    seq: int
    type: str
    case_id: str
    revision: int
    data: Json
    command_id: str | None


@attrs.frozen(kw_only=True)
class BlockView:
    block_id: str | None
    kind: str
    code: str
    text: str
    acts: tuple[int, ...]


@attrs.frozen(kw_only=True)
class ReplayView:
    account_id: str
    turn_id: str
    session_id: str
    workflow: str | None
    phase: str
    text: str
    clock: str | None
    click: Json  # the structured interaction response the turn carried, if any
    source: str  # "replay_record", "turn_record" (no replay record yet) or "none"
    failure: Json  # what a failed interpretation left on record, else None
    plan: Json  # the plan as the strict parser accepted it (acts, not_understood)
    plan_hash: str | None
    provider: str | None
    provider_attempts: tuple[Json, ...]
    template_hash: str | None
    references: Json
    acts: tuple[ActView, ...]
    not_understood: tuple[str, ...]
    interaction_outcome: Json
    notices: tuple[Json, ...]
    commands: tuple[CommandView, ...]
    events: tuple[EventView, ...]
    blocks: tuple[BlockView, ...]

    def act(self, index: int) -> ActView | None:
        return next((a for a in self.acts if a.index == index), None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = unstructure(self)
        return data


async def load_replay_view(store: Store, *, account_id: str, turn_id: str) -> ReplayView | None:
    """The view of ``turn_id`` from ``store`` (``None`` when this account has no such turn)."""
    turn = await store.get_turn(account_id, turn_id)
    if turn is None:
        return None
    replay = await store.get_replay_record(account_id, turn_id)
    journal = list(await store.list_journal(account_id, turn_id))
    known = {j.idempotency_key for j in journal}
    for key in _replay_keys(replay):  # commands a click authorized were journaled earlier
        if key not in known:
            entry = await store.get_journal_entry(account_id, key)
            if entry is not None:
                journal.append(entry)
                known.add(key)
    events = await store.list_events(account_id, turn_id=turn_id)
    assistant = await store.get_assistant_turn(account_id, turn_id)
    return build_replay_view(
        turn=turn,
        replay=replay,
        journal=journal,
        events=events,
        blocks=None if assistant is None else assistant.blocks,
        meta=None if assistant is None else assistant.meta,
    )


def _failure(record: Mapping[str, Any]) -> dict[str, Any]:
    """The outcome and typed error, a rejected plan's problems and raw answer, and for a
    parked turn the reason, where it stopped and after how many attempts."""
    failure = {k: record.get(k) for k in ("outcome", "error", "problems", "raw")}
    failure.update({k: record[k] for k in ("reason", "stopped_in", "attempts") if k in record})
    failure["error"] = _redacted(failure["error"], "message")
    return failure


def build_replay_view(
    *,
    turn: TurnRecord,
    replay: Json,
    journal: Sequence[JournalRecord],
    events: Sequence[EventRecord],
    blocks: Json,
    meta: Json = None,
) -> ReplayView:
    """The view from the records alone (pure: the same records give the same view)."""
    payload = _mapping(turn.payload)
    record = _mapping(replay)
    stored_plan = _mapping(turn.plan)
    if replay is not None:
        # The replay record names the plan by hash; the plan and the reduction themselves are
        # the turn's write-once payloads (older records carried copies).
        source = "replay_record"
        plan = _mapping(record.get("plan") or stored_plan.get("plan"))
        interpretation = _mapping(record.get("interpretation"))
        reduction = _mapping(record.get("reduction") or turn.reduction)
    elif turn.plan is not None or turn.reduction is not None:
        source = "turn_record"
        plan = _mapping(stored_plan.get("plan"))
        interpretation = {k: v for k, v in stored_plan.items() if k != "plan"}
        reduction = _mapping(turn.reduction)
    else:
        source, plan, interpretation, reduction = "none", {}, {}, {}
    failure = None
    parked = _mapping(meta).get("parked")
    if record.get("outcome") is not None:  # a failed interpretation, or a parked turn
        failure = _failure(record)
    elif isinstance(parked, dict):  # it committed, and its reply was parked
        failure = _failure(parked)
    attempts = interpretation.get("provider_attempts", record.get("provider_attempts"))
    return ReplayView(
        account_id=turn.account_id,
        turn_id=turn.turn_id,
        session_id=turn.session_id,
        workflow=_str_or_none(record.get("workflow")),
        phase=str(turn.phase.value),
        text=str(payload.get("text", "")),
        clock=_str_or_none(payload.get("clock")),
        click=payload.get("interaction_response"),
        source=source,
        failure=failure,
        plan=plan or None,
        plan_hash=_str_or_none(record.get("plan_hash", reduction.get("plan_hash"))),
        provider=_str_or_none(interpretation.get("provider")),
        provider_attempts=tuple(_redacted(a, "detail") for a in _list(attempts)),
        template_hash=_str_or_none(interpretation.get("template_hash")),
        references=interpretation.get("references"),
        acts=_acts(plan, reduction),
        not_understood=tuple(_evidence_texts(plan.get("not_understood"))),
        interaction_outcome=reduction.get("interaction_outcome"),
        notices=tuple(_list(reduction.get("notices"))),
        commands=_commands(reduction, record, journal),
        events=tuple(_event(e) for e in events),
        blocks=tuple(_block(b) for b in _list(blocks)),
    )


# -- acts ---------------------------------------------------------------------------------------


def describe_act(act: Mapping[str, Any]) -> str:
    """What an act proposed, in fixed words from its fields (never generated)."""
    kind = act.get("kind")
    if kind == "set_field":
        return f"set {act.get('field')} to {_quote(act.get('value'))}"
    if kind == "operation":
        args = _mapping(act.get("args"))
        listed = ", ".join(f"{k}={_quote(v)}" for k, v in args.items())
        return f"{act.get('operation')}({listed})"
    if kind == "keep_unchanged":
        return f"keep {act.get('field')} unchanged"
    if kind == "correct":
        return f"correct act {act.get('corrects')} to {_quote(act.get('value'))}"
    if kind == "cancel":
        return f"cancel act {act.get('cancels')}"
    if kind == "constraint":
        what = act.get("operation") or act.get("forbids")
        return f"forbid {what}"
    if kind == "question":
        evidence = _evidence_texts(act.get("evidence"))
        asked = act.get("question") or (_quote(evidence[0]) if evidence else "a question")
        return ("hypothetical " if act.get("hypothetical") else "") + f"ask {asked}"
    if kind == "recall":
        described = act.get("description")
        said = described if isinstance(described, str) else ""
        if not content_words(said.removeprefix("/recollect")):
            return "recall (no cue of its own)"  # "/recollect" alone, "recall “”"
        return f"recall {_quote(said)}"
    if kind == "start_case":
        label = act.get("label")
        return f"start a {act.get('workflow')}" + ("" if label is None else f" {_quote(label)}")
    if kind == "chitchat":
        return "chitchat"
    if kind == "unnamed_change":
        about = act.get("about")
        what = "the pending request" if act.get("pending") else "a change"
        return f"ask what to change ({what}" + ("" if about is None else f", {about}") + ")"
    return str(kind)


def _acts(plan: Mapping[str, Any], reduction: Mapping[str, Any]) -> tuple[ActView, ...]:
    results = {
        r.get("act_index"): r for r in _list(reduction.get("results")) if isinstance(r, Mapping)
    }
    views: list[ActView] = []
    for index, raw in enumerate(_list(plan.get("acts"))):
        act = _mapping(raw)
        result = _mapping(results.get(index))
        decided = _mapping(result.get("decided_by"))
        views.append(
            ActView(
                index=index,
                kind=str(act.get("kind", "")),
                summary=describe_act(act),
                evidence=tuple(_evidence_texts(act.get("evidence"))),
                result=_str_or_none(result.get("status")),
                reason=_str_or_none(result.get("reason")),
                decided_by=decided.get("index") if decided else None,
                decided_by_interaction=_str_or_none(decided.get("interaction_id")),
                case_id=_str_or_none(result.get("case_id")),
                command_ids=tuple(str(c) for c in _list(result.get("command_ids"))),
                rejection=result.get("rejection"),
                detail=_str_or_none(result.get("detail")),
            )
        )
    return tuple(views)


# -- commands -----------------------------------------------------------------------------------


def _replay_keys(replay: Json) -> list[str]:
    rows = _list(_mapping(replay).get("commands"))
    return [str(r["idempotency_key"]) for r in rows if isinstance(r, Mapping)]


def _commands(
    reduction: Mapping[str, Any], record: Mapping[str, Any], journal: Sequence[JournalRecord]
) -> tuple[CommandView, ...]:
    planned: dict[str, tuple[str | None, Mapping[str, Any]]] = {}
    batches = list(_list(reduction.get("batches")))
    for card in _list(reduction.get("interactions")):
        batches.extend(_list(_mapping(card).get("awaiting_batches")))
    for batch in batches:
        for command in _list(_mapping(batch).get("commands")):
            command = _mapping(command)
            key = command.get("idempotency_key")
            if isinstance(key, str):
                planned[key] = (_str_or_none(_mapping(batch).get("batch_id")), command)
    recorded = {
        str(r["idempotency_key"]): r
        for r in _list(record.get("commands"))
        if isinstance(r, Mapping) and "idempotency_key" in r
    }
    rows = {j.idempotency_key: j for j in journal}
    keys = list(dict.fromkeys([*planned, *recorded, *rows]))
    return tuple(_command(key, planned.get(key), recorded.get(key), rows.get(key)) for key in keys)


def _command(
    key: str,
    planned: tuple[str | None, Mapping[str, Any]] | None,
    recorded: Mapping[str, Any] | None,
    row: JournalRecord | None,
) -> CommandView:
    batch_id, command = planned if planned is not None else (None, {})
    if not command and row is not None:
        entry = _mapping(row.payload)
        command = _mapping(entry.get("command"))
        batch_id = _str_or_none(entry.get("batch_id"))
    origin = _mapping(command.get("origin"))
    outcome = None if recorded is None else recorded.get("outcome")
    return CommandView(
        command_id=_str_or_none(command.get("command_id", row.command_id if row else None)),
        idempotency_key=key,
        name=_str_or_none(command.get("name")),
        args=command.get("args"),
        case_id=_str_or_none(command.get("case_id", row.case_id if row else None)),
        batch_id=batch_id,
        origin_act=origin.get("index") if origin else None,
        origin_interaction=_str_or_none(origin.get("interaction_id")),
        expected_revision=command.get("expected_revision"),
        planned_in=None if row is None else row.turn_id,
        journal_status=None if row is None else str(row.status.value),
        journal_outcome=None if row is None else row.outcome,
        outcome=outcome,
    )


# -- events and blocks --------------------------------------------------------------------------


def _event(event: EventRecord) -> EventView:
    return EventView(
        seq=event.seq,
        type=event.type,
        case_id=event.case_id,
        revision=event.revision,
        data=event.payload,
        command_id=event.command_id,
    )


def _block(raw: Json) -> BlockView:
    block = _mapping(raw)
    return BlockView(
        block_id=_str_or_none(block.get("block_id")),
        kind=str(block.get("kind", "")),
        code=str(block.get("code", "")),
        text=str(block.get("text", "")),
        acts=tuple(int(i) for i in _list(block.get("acts"))),
    )


# -- JSON helpers: records are plain JSON and older records may lack a key ----------------------


def _mapping(value: Json) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _redacted(value: Any, key: str) -> Any:
    """``value`` with its ``key`` text redacted: records stored before provider words were
    redacted on the way in are shown without anything shaped like a key."""
    if isinstance(value, Mapping) and isinstance(value.get(key), str):
        return {**value, key: redact(value[key])}
    return value


def _list(value: Json) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _str_or_none(value: Json) -> str | None:
    return None if value is None else str(value)


def _evidence_texts(value: Json) -> list[str]:
    return [str(_mapping(e).get("text", "")) for e in _list(value)]


def _quote(value: Json) -> str:
    return f"\u201c{value}\u201d"


__all__ = [
    "ActView",
    "BlockView",
    "CommandView",
    "EventView",
    "ReplayView",
    "build_replay_view",
    "describe_act",
    "load_replay_view",
]
