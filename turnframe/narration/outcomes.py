"""Blocks from what execution did, one batch at a time.

Receipts come only from a ``committed`` batch's events: one receipt per batch that committed
events, listing what changed (a replayed outcome renders the same receipt). A failed batch gets
a ``command_failed`` notice, never a receipt; a committed external effect a
``verification_in_progress`` notice; a committed act whose command produced no event a
``no_change`` notice.
"""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.execution import (
    BATCH_KEY_REUSED,
    BATCH_REVISION_CONFLICT,
    BATCH_STORE_FAILURE,
    BatchOutcome,
    BatchStatus,
    CommittedEvent,
    ExecutionReport,
)
from turnframe.grounding.wording import format_value, name_label, quote
from turnframe.narration.codes import (
    NOTICE_COMMAND_FAILED,
    NOTICE_DECLINED,
    NOTICE_NO_CHANGE,
    NOTICE_VERIFICATION_IN_PROGRESS,
    RECEIPT_COMMITTED,
)
from turnframe.narration.draft import Draft, sentence
from turnframe.narration.facts import Facts, Unit
from turnframe.response import BlockKind
from turnframe.results import ActRef, InteractionOutcomeStatus, ReductionPlan
from turnframe.workflow import CASE_STARTED_EVENT, FIELD_SET_EVENT, DomainEvent, EventDescriber

_FAILED_BECAUSE = {
    BATCH_REVISION_CONFLICT: "the case changed in the meantime, so nothing was changed",
    BATCH_STORE_FAILURE: "it could not be saved, so nothing was changed",
    BATCH_KEY_REUSED: "it was refused as a repeated request with different content",
}


def render_outcomes(
    facts: Facts, reduction: ReductionPlan, execution: ExecutionReport | None
) -> tuple[list[Draft], set[ActRef]]:
    """The drafts for every batch outcome, and the acts they render."""
    drafts: list[Draft] = []
    covered: set[ActRef] = set()
    if execution is None:
        return drafts, covered
    owners = {cid: unit for unit in facts.units for cid in unit.result.command_ids}
    decided = reduction.interaction_outcome
    declined = decided is not None and decided.status is InteractionOutcomeStatus.DECLINED
    for outcome in execution.outcomes:
        units = _owners_of(outcome, owners)
        data = _batch_data(outcome, reduction)
        if outcome.status is BatchStatus.COMMITTED:
            drafts.extend(_committed(facts, outcome, units, data))
        elif outcome.status is BatchStatus.FAILED:
            drafts.append(_failed(facts, outcome, units, data))
        elif outcome.status is BatchStatus.DECLINED and not declined:
            text = f"Declined: {_what(facts, outcome, units)}; nothing was done."
            drafts.append(_notice(NOTICE_DECLINED, text, units, data))
        elif outcome.status is not BatchStatus.DECLINED:
            continue  # awaiting confirmation: its acts are rendered by their results
        covered.update(u.ref for u in units)
    return drafts, covered


def _owners_of(outcome: BatchOutcome, owners: dict[str, Unit]) -> list[Unit]:
    """The acts whose commands the batch ran, once each, in command order."""
    found: dict[ActRef, Unit] = {}
    for command_id in outcome.command_ids:
        unit = owners.get(command_id)
        if unit is not None:
            found.setdefault(unit.ref, unit)
    return list(found.values())


def _committed(
    facts: Facts, outcome: BatchOutcome, units: Sequence[Unit], data: dict[str, object]
) -> list[Draft]:
    drafts: list[Draft] = []
    claimed = _units_with_events(outcome, units)
    if outcome.events:
        describe = facts.describer(outcome.case_id)
        changes = "; ".join(change_text(e, describe) for e in outcome.events)
        receipt_data = {**data, "events": [e.seq for e in outcome.events]}
        if outcome.new_revision is not None:
            receipt_data["revision"] = outcome.new_revision
        drafts.append(
            Draft(
                kind=BlockKind.RECEIPT,
                code=RECEIPT_COMMITTED,
                text=f"{facts.case_ref(outcome.case_id)}: {changes}.",
                refs=tuple(u.ref for u in claimed),
                data=receipt_data,
            )
        )
    idle = [u for u in units if u not in claimed]
    if idle:
        text = f"Nothing changed: {facts.describe_all(idle)} (it had no effect)."
        drafts.append(_notice(NOTICE_NO_CHANGE, text, idle, data))
    for note in outcome.effects:
        text = (
            f"In progress: {facts.case_ref(outcome.case_id)} was sent to {quote(note.channel)}, "
            "which has not confirmed it yet."
        )
        effect_data = {**data, "effect_id": note.effect_id, "channel": note.channel}
        drafts.append(_notice(NOTICE_VERIFICATION_IN_PROGRESS, text, claimed, effect_data))
    return drafts


def _units_with_events(outcome: BatchOutcome, units: Sequence[Unit]) -> list[Unit]:
    """The acts whose commands committed an event (all of them if events name no command)."""
    if not outcome.events:
        return []
    sources = {e.command_id for e in outcome.events}
    if sources == {None}:
        return list(units)
    return [u for u in units if sources.intersection(u.result.command_ids)]


def _failed(
    facts: Facts, outcome: BatchOutcome, units: Sequence[Unit], data: dict[str, object]
) -> Draft:
    subject = _what(facts, outcome, units)
    if outcome.rejection is not None:
        text = f"Not done: {subject}. {sentence(outcome.rejection.message)}"
        data = {**data, "rejection": outcome.rejection.code}
    else:
        why = _FAILED_BECAUSE.get(outcome.reason, f"it failed: {outcome.reason}")
        text = f"Not done: {subject} ({why})."
    return _notice(NOTICE_COMMAND_FAILED, text, units, data)


def _what(facts: Facts, outcome: BatchOutcome, units: Sequence[Unit]) -> str:
    if units:
        return facts.describe_all(units)
    return f"the confirmed change on {facts.case_ref(outcome.case_id)}"


def change_text(event: CommittedEvent, describe: EventDescriber | None = None) -> str:
    """One committed event as a change: ``note set to “window seat”`` (or the workflow's own
    wording of it, when it has one)."""
    if describe is not None:
        own = describe(DomainEvent(name=event.name, data=event.data))
        if own:
            return own
    if event.name == FIELD_SET_EVENT:
        field = name_label(str(event.data.get("field", "")))
        value = event.data.get("value")
        if value is None:
            return f"{field} cleared"
        return f"{field} set to {_shown(value)}"
    if event.name == CASE_STARTED_EVENT:
        return "started"
    shown = [
        f"{name_label(str(k))} {_shown(v)}"
        for k, v in sorted(event.data.items())
        if v is not None and v != ""
    ]
    details = f" ({', '.join(shown)})" if shown else ""
    return name_label(event.name) + details


def _shown(value: object) -> str:
    """A committed JSON value: text quoted, numbers and lists as they are."""
    return quote(value) if isinstance(value, str) else format_value(value)


def _batch_data(outcome: BatchOutcome, reduction: ReductionPlan) -> dict[str, object]:
    """Block data for a batch; never whether it was replayed (a replay renders the same block)."""
    data: dict[str, object] = {"batch_id": outcome.batch_id, "case_id": outcome.case_id}
    decided = reduction.interaction_outcome
    if decided is not None and set(outcome.command_ids) & set(decided.authorized_command_ids):
        data["interaction_id"] = decided.interaction_id
    return data


def _notice(code: str, text: str, units: Sequence[Unit], data: dict[str, object]) -> Draft:
    return Draft(
        kind=BlockKind.NOTICE, code=code, text=text, refs=tuple(u.ref for u in units), data=data
    )
