"""Per case: look-ups, parsing, conflicts, no-op detection, simulation, batches, confirmation.

The acts still undecided after precedence and target resolution are grouped by case. Each case
is then reduced on its own: field and operation look-ups; values parsed with the turn's clock;
two unlinked values for one field asked about, never guessed between; the commands simulated on
the snapshot state in batch order (a no-op is ``no_change``, a workflow refusal is ``rejected``
and takes its whole atomic batch with it); batches numbered with consecutive expected revisions;
commands that need confirmation batched after the ready ones behind one confirm-command card.
"""

from __future__ import annotations

import typing
from collections.abc import Hashable, Mapping
from datetime import date, datetime
from typing import Any

import attrs

from turnframe._converter import converter, unstructure
from turnframe._hashing import canonical_json
from turnframe._identity import (
    batch_id,
    command_content,
    command_id,
    content_digest,
    idempotency_key,
    interaction_id,
)
from turnframe.plan import OperationAct, SetFieldAct, StartCaseAct
from turnframe.policy import AtomicityScope, CommandPolicy, needs_confirmation
from turnframe.reading.ordinals import past_day_alone
from turnframe.reduce.asking import ask_for_argument, ask_for_value
from turnframe.reduce.conditions import conditions_hold
from turnframe.reduce.shares import share_of
from turnframe.reduce.targets import effective_act
from turnframe.reduce.work import ACTION_KINDS, EXACT, NEW, Cursor, Work
from turnframe.results import (
    ACT_AWAITING_CONFIRMATION,
    ACT_CASE_NOT_STARTED,
    ACT_CONFLICTING_VALUES,
    ACT_DUPLICATE,
    ACT_INVALID_VALUE,
    ACT_MISSING_ARGUMENT,
    ACT_NO_EFFECT,
    ACT_READY,
    ACT_REJECTED_BY_WORKFLOW,
    ACT_REJECTED_WITH_BATCH,
    ACT_REJECTED_WITH_UNIT,
    ACT_UNKNOWN_ARGUMENT,
    ACT_UNKNOWN_FIELD,
    ACT_UNKNOWN_OPERATION,
    ACT_UNKNOWN_WORKFLOW,
    ACT_UNREADABLE_ARGUMENT,
    ACT_VALUE_UNCHANGED,
    ActStatus,
    CardCommand,
    CommandBatch,
    InteractionKind,
    InteractionOption,
    InteractionToCreate,
    OptionAction,
    PlannedCommand,
    Rejection,
)
from turnframe.workflow import (
    SET_FIELD_COMMAND,
    START_CASE_COMMAND,
    Argument,
    Operation,
    ParseContext,
    Workflow,
    apply_events,
    run_command,
    value_to_json,
)

_ATOMIC = frozenset({AtomicityScope.PER_CASE, AtomicityScope.EXPLICIT_GROUP})


@attrs.define
class Candidate:
    """An act that became a command, before it is simulated and batched."""

    pos: int
    name: str
    args: dict[str, Any]
    policy: CommandPolicy
    scope: AtomicityScope = AtomicityScope.PER_CASE
    group: str | None = None
    is_submission: bool = False
    is_destructive: bool = False
    field: str | None = None
    value: Any = None
    proposed: tuple[str, ...] = ()  # arguments the workflow proposed: a card must show them
    unit: int | None = None  # the plan's atomic unit the act belongs to, if any
    unsure: bool = False  # the interpreter asked for a card: it was unsure of its reading

    @property
    def confirm(self) -> bool:
        if self.proposed or self.unsure:
            return True
        return needs_confirmation(self.policy, is_destructive=self.is_destructive)


def reduce_cases(work: Work) -> None:
    """Reduce each case in turn order. A corrected act keeps the place of the act it corrects,
    so where the correction stands in the turn never changes the batches."""
    by_case: dict[str, list[int]] = {}
    first: dict[str, int] = {}
    for entry in work.entries:
        place = entry.place
        if entry.kind not in ACTION_KINDS or not work.undecided(entry.pos) or place is None:
            continue
        if place.outcome in (EXACT, NEW) and place.case_id is not None:
            by_case.setdefault(place.case_id, []).append(entry.pos)
            first[place.case_id] = min(first.get(place.case_id, entry.root), entry.root)
    for case_id in sorted(by_case, key=first.__getitem__):
        positions = sorted(by_case[case_id], key=lambda p: work.entries[p].root)
        _reduce_case(work, case_id, positions)


def _reduce_case(work: Work, case_id: str, positions: list[int]) -> None:
    place = work.entries[positions[0]].place
    assert place is not None
    start = place.start_pos if place.outcome == NEW else None
    if start is not None and not work.undecided(start):
        _reject_all(work, positions, ACT_CASE_NOT_STARTED, start)
        return
    workflow = work.workflow_of(place)
    if workflow is None:
        if start is not None:
            work.decide(start, ActStatus.REJECTED, ACT_UNKNOWN_WORKFLOW, start)
        rest = [p for p in positions if work.undecided(p)]
        reason = ACT_UNKNOWN_WORKFLOW if start is None else ACT_CASE_NOT_STARTED
        _reject_all(work, rest, reason, start)
        return
    cursor = _cursor(work, case_id, workflow)
    positions = [p for p in positions if conditions_hold(work, workflow, p, cursor.state)]
    candidates = _candidates(work, workflow, positions, case_id, cursor.state)
    candidates.sort(key=lambda c: (c.name != START_CASE_COMMAND, work.entries[c.pos].root))
    # Nothing runs on a new case before the case exists: if starting it waits, everything waits.
    head = candidates[0] if candidates else None
    wait_all = head is not None and head.name == START_CASE_COMMAND and head.confirm
    waiting_units = {c.unit for c in candidates if c.confirm and c.unit is not None}
    waits = [wait_all or c.confirm or c.unit in waiting_units for c in candidates]
    ready = [c for c, w in zip(candidates, waits, strict=True) if not w]
    waiting = [c for c, w in zip(candidates, waits, strict=True) if w]
    for batch, batch_positions in _simulate(work, case_id, cursor, ready, start):
        for command, pos in zip(batch.commands, batch_positions, strict=True):
            work.decide(
                pos, ActStatus.READY_TO_EXECUTE, ACT_READY, pos, command_ids=(command.command_id,)
            )
        work.batches.append(batch)
    if waiting:
        shadow = Cursor(workflow=cursor.workflow, state=cursor.state, revision=cursor.revision)
        simulated = _simulate(work, case_id, shadow, waiting, start)
        proposed = {c.pos: c.proposed for c in waiting}
        _await_confirmation(work, case_id, simulated, workflow, proposed)


def _cursor(work: Work, case_id: str, workflow: Workflow[Any]) -> Cursor:
    cursor = work.cursors.get(case_id)
    if cursor is None:
        snapshot = work.ctx.cases.get(case_id)
        if snapshot is None:
            cursor = Cursor(workflow=workflow, state=workflow.initial_state(), revision=0)
        else:
            cursor = Cursor(workflow=workflow, state=snapshot.state, revision=snapshot.revision)
        work.cursors[case_id] = cursor
    return cursor


def _reject_all(work: Work, positions: list[int], reason: str, by: int | None) -> None:
    for pos in positions:
        work.decide(pos, ActStatus.REJECTED, reason, pos if by is None else by)


def _candidates(
    work: Work, workflow: Workflow[Any], positions: list[int], case_id: str, state: Any
) -> list[Candidate]:
    ctx = ParseContext.of(work.ctx.turn, state)
    out: list[Candidate] = []
    values: dict[str, list[tuple[int, Any, Hashable, str | None]]] = {}
    seen_ops: dict[tuple[str, bytes], int] = {}
    for pos in positions:
        act = work.entries[pos].act
        if isinstance(act, StartCaseAct):
            out.append(
                Candidate(
                    pos=pos,
                    name=START_CASE_COMMAND,
                    args={"label": act.label},
                    policy=workflow.start_policy,
                )
            )
        elif isinstance(act, OperationAct):
            op = workflow.operation(act.operation)
            if op is None:
                work.decide(pos, ActStatus.REJECTED, ACT_UNKNOWN_OPERATION, pos)
                continue
            candidate = _operation_candidate(work, pos, op, act.args, ctx, case_id, state)
            if candidate is None:
                continue
            candidate.unsure = candidate.unsure or act.confirm
            key = (op.name, canonical_json(candidate.args))
            # "add breakfast twice": a repeat is its own command, never a restatement.
            if key in seen_ops and act.repeats is None:
                work.decide(pos, ActStatus.NO_CHANGE, ACT_DUPLICATE, seen_ops[key])
                continue
            seen_ops[key] = pos
            out.append(candidate)
        else:
            name = work.field_of(pos)
            assert name is not None
            if workflow.field(name) is None:
                work.decide(pos, ActStatus.REJECTED, ACT_UNKNOWN_FIELD, pos)
                continue
            values.setdefault(name, []).append(_parsed(work, workflow, name, pos, ctx))
    for name, items in values.items():
        out.extend(_field_candidates(work, workflow, name, items))
    for c in out:
        c.unit = work.units.get(c.pos, work.units.get(work.entries[c.pos].root))
    return out


def _parsed(
    work: Work, workflow: Workflow[Any], name: str, pos: int, ctx: ParseContext
) -> tuple[int, Any, Hashable, str | None]:
    """(position, value, comparable form, parse error) for one value of a field."""
    field = workflow.field(name)
    assert field is not None
    text = work.value_of(pos)
    try:
        value = field.parse(text, ctx)
        comparable = canonical_json(value_to_json(field, value))
    except ValueError as exc:  # unreadable, or a value JSON cannot hold exactly (RFC 8785)
        return pos, None, ("unparsed", text.strip().casefold()), str(exc) or "not understood"
    return pos, value, comparable, None


def _field_candidates(
    work: Work,
    workflow: Workflow[Any],
    name: str,
    items: list[tuple[int, Any, Hashable, str | None]],
) -> list[Candidate]:
    first = items[0][0]
    if len({comparable for _, _, comparable, _ in items}) > 1:
        for pos, _, _, _ in items:
            other = first if pos != first else items[1][0]
            work.decide(pos, ActStatus.NEEDS_CLARIFICATION, ACT_CONFLICTING_VALUES, other)
        return []
    for pos, _, _, _ in items[1:]:
        work.decide(pos, ActStatus.NO_CHANGE, ACT_DUPLICATE, first)
    pos, value, _, error = items[0]
    field = workflow.field(name)
    assert field is not None
    said = work.value_of(pos)
    # "change the note": the value is asked for; so is the month of "the 15th" gone by
    month = _month_unsaid(field.type, said, work.ctx.turn.clock)
    if not said.strip() or month:
        detail = f"missing value: {name}" if not month else f"month not said: {name} {said!r}"
        asked = effective_act(work, pos)
        case_id = work.case_of(pos)
        if isinstance(asked, SetFieldAct) and case_id is not None:
            # On a card, so the next turn's words complete this change.
            ask_for_value(
                work, pos, case_id=case_id, act=asked, reason=ACT_MISSING_ARGUMENT, detail=detail
            )
        else:
            work.decide(
                pos, ActStatus.NEEDS_CLARIFICATION, ACT_MISSING_ARGUMENT, pos, detail=detail
            )
        return []
    if error is not None:
        work.decide(pos, ActStatus.REJECTED, ACT_INVALID_VALUE, pos, detail=error)
        return []
    args = {"field": name, "value": value_to_json(field, value)}
    root = work.root_act(pos)
    return [
        Candidate(
            pos=pos,
            name=SET_FIELD_COMMAND,
            args=args,
            policy=field.policy,
            field=name,
            value=value,
            # The interpreter was unsure of its reading: a card shows the value first.
            unsure=isinstance(root, SetFieldAct) and root.confirm,
        )
    ]


def _operation_candidate(
    work: Work,
    pos: int,
    op: Operation[Any],
    texts: dict[str, str],
    ctx: ParseContext,
    case_id: str,
    state: Any,
) -> Candidate | None:
    """The act as a command; an argument missing (and not proposed by the workflow) or not
    readable is asked for instead (a clarification), never guessed."""
    declared = {a.name: a for a in op.arguments}
    unknown = sorted(set(texts) - set(declared))
    if unknown:
        detail = f"unknown argument(s): {', '.join(unknown)}"
        work.decide(pos, ActStatus.REJECTED, ACT_UNKNOWN_ARGUMENT, pos, detail=detail)
        return None
    texts, renamed = _named_by_another(op, texts, ctx)
    args: dict[str, Any] = {}
    proposed: list[str] = []
    # An argument counted from a current value ("a day later") comes after the one that
    # names which value (the leg), so that one is parsed first.
    for name in sorted(texts, key=lambda n: (declared[n].current is not None, n)):
        argument = declared[name]
        share = share_of(texts[name]) if argument.propose is not None else None
        if share is not None:  # "half", "the whole thing": that share of the proposal
            value = argument.propose(state) * share if argument.propose is not None else None
            value = int(value) if isinstance(value, int | float) else value
            args[name] = converter.unstructure(value, unstructure_as=argument.type)
            proposed.append(name)
            continue
        try:
            value = _moved(argument, texts[name], args, declared, state)
            if value is None:
                _month_said(argument.type, texts[name], ctx)
                value = argument.parse(texts[name], ctx)
            args[name] = converter.unstructure(value, unstructure_as=argument.type)
            canonical_json(args[name])  # it becomes part of the command's identity
        except ValueError as exc:  # unreadable, or a value JSON cannot hold exactly (RFC 8785)
            detail = f"argument {name!r}: {exc}"
            ask_for_argument(
                work,
                pos,
                case_id=case_id,
                op=op,
                argument=name,
                reason=ACT_UNREADABLE_ARGUMENT,
                detail=detail,
            )
            return None
    for argument in op.arguments:
        if not argument.required or argument.name in texts:
            continue
        if argument.propose is not None:
            value = argument.propose(state)
            args[argument.name] = converter.unstructure(value, unstructure_as=argument.type)
            proposed.append(argument.name)
            continue
        ask_for_argument(
            work,
            pos,
            case_id=case_id,
            op=op,
            argument=argument.name,
            reason=ACT_MISSING_ARGUMENT,
            detail=f"missing argument: {argument.name}",
        )
        return None
    return Candidate(
        proposed=tuple(proposed),
        unsure=renamed,
        pos=pos,
        name=op.name,
        args=args,
        policy=op.policy,
        scope=op.scope,
        group=op.group,
        is_submission=op.is_submission,
        is_destructive=op.is_destructive,
    )


def _simulate(
    work: Work, case_id: str, cursor: Cursor, candidates: list[Candidate], start: int | None
) -> list[tuple[CommandBatch, list[int]]]:
    """Run the candidates batch by batch on the cursor; return the batches that would commit,
    each with the positions of the acts behind its commands."""
    out: list[tuple[CommandBatch, list[int]]] = []
    groups = _group(candidates)
    for n, group in enumerate(groups):
        state, kept, failed = cursor.state, list[Candidate](), None
        for c in group:
            if c.field is not None and c.value == getattr(state, c.field):
                work.decide(c.pos, ActStatus.NO_CHANGE, ACT_VALUE_UNCHANGED, c.pos)
                continue
            outcome = run_command(cursor.workflow, state, c.name, c.args)
            if isinstance(outcome, Rejection):
                failed = (c, outcome)
                break
            if not outcome:
                work.decide(c.pos, ActStatus.NO_CHANGE, ACT_NO_EFFECT, c.pos)
                continue
            state = apply_events(cursor.workflow, state, outcome)
            kept.append(c)
        if failed is not None:
            _fail(work, group, *failed)
            if any(c.name == START_CASE_COMMAND for c in group):
                rest = [c.pos for g in groups[n + 1 :] for c in g]
                _reject_all(work, rest, ACT_CASE_NOT_STARTED, start)
                break
            continue
        if kept:
            out.append((_batch(work, case_id, cursor, group[0], kept), [c.pos for c in kept]))
            cursor.state, cursor.revision = state, cursor.revision + 1
    return out


def _group(candidates: list[Candidate]) -> list[list[Candidate]]:
    groups: dict[tuple[str, Any], list[Candidate]] = {}
    for c in candidates:
        key: tuple[str, Any]
        if c.unit is not None:  # a unit's commands on one case share one batch (ADR-016)
            key = ("unit", c.unit)
        elif c.scope is AtomicityScope.PER_CASE:
            key = ("case", None)
        elif c.scope is AtomicityScope.EXPLICIT_GROUP:
            key = ("group", c.group)
        else:
            key = ("single", c.pos)
        groups.setdefault(key, []).append(c)
    return list(groups.values())


def _fail(work: Work, group: list[Candidate], failing: Candidate, rejection: Rejection) -> None:
    work.decide(
        failing.pos, ActStatus.REJECTED, ACT_REJECTED_BY_WORKFLOW, failing.pos, rejection=rejection
    )
    if failing.unit is not None:
        reason = ACT_REJECTED_WITH_UNIT
    elif failing.scope in _ATOMIC:
        reason = ACT_REJECTED_WITH_BATCH
    else:
        return
    for c in group:
        if work.undecided(c.pos):
            work.decide(c.pos, ActStatus.REJECTED, reason, failing.pos)


def _batch(
    work: Work, case_id: str, cursor: Cursor, head: Candidate, kept: list[Candidate]
) -> CommandBatch:
    commands = tuple(_command(work, case_id, cursor, c) for c in kept)
    return CommandBatch(
        batch_id=batch_id([c.command_id for c in commands]),
        case_id=case_id,
        workflow=cursor.workflow.name,
        scope=head.scope if head.unit is None else AtomicityScope.EXPLICIT_GROUP,
        group=head.group if head.unit is None else f"unit-{head.unit}",
        expected_revision=cursor.revision,
        creates_case=kept[0].name == START_CASE_COMMAND,
        commands=commands,
    )


def _command(work: Work, case_id: str, cursor: Cursor, c: Candidate) -> PlannedCommand:
    origin = work.entries[work.entries[c.pos].root].ref
    content = command_content(
        workflow=cursor.workflow.name,
        case_id=case_id,
        expected_revision=cursor.revision,
        name=c.name,
        args=c.args,
    )
    key = idempotency_key(
        account_id=work.account_id,
        turn_id=work.turn_id,
        origin=unstructure(origin),
        content=content,
    )
    return PlannedCommand(
        command_id=command_id(key),
        idempotency_key=key,
        content_digest=content_digest(content),
        case_id=case_id,
        workflow=cursor.workflow.name,
        expected_revision=cursor.revision,
        name=c.name,
        args=c.args,
        origin=origin,
        policy=c.policy,
        scope=c.scope,
        is_submission=c.is_submission,
        is_destructive=c.is_destructive,
        needs_confirmation=c.confirm,
    )


def _await_confirmation(
    work: Work,
    case_id: str,
    simulated: list[tuple[CommandBatch, list[int]]],
    workflow: Workflow[Any],
    proposed: dict[int, tuple[str, ...]],
) -> None:
    if not simulated:
        return
    batches = [batch for batch, _ in simulated]
    positions = [pos for _, batch_positions in simulated for pos in batch_positions]
    ids = [c.command_id for b in batches for c in b.commands]
    snapshot = work.ctx.cases.get(case_id)
    label = snapshot.label if snapshot is not None else None
    state = snapshot.state if snapshot is not None else None
    record = (label or "", workflow.identifying_values(label, state))
    shown = tuple(
        card_command(workflow, command, record, proposed.get(pos, ()))
        for command, pos in zip([c for b in batches for c in b.commands], positions, strict=True)
    )
    card = InteractionToCreate(
        interaction_id=interaction_id(
            account_id=work.account_id,
            turn_id=work.turn_id,
            kind=InteractionKind.CONFIRM_COMMAND.value,
            subject={"case_id": case_id, "commands": ids},
        ),
        kind=InteractionKind.CONFIRM_COMMAND,
        turn_id=work.turn_id,
        acts=tuple(work.entries[pos].ref for pos in positions),
        options=(
            InteractionOption(option_id="confirm", action=OptionAction.CONFIRM),
            InteractionOption(option_id="decline", action=OptionAction.DECLINE),
        ),
        case_id=case_id,
        expected_revision=batches[0].expected_revision,
        awaiting_batches=tuple(batches),
        commands=shown,
        # What the user asked for, so a later "make it 30 instead" can amend it.
        pending_acts=tuple(effective_act(work, pos) for pos in positions),
    )
    work.interactions.append(card)
    commands = [c for b in batches for c in b.commands]
    for command, pos in zip(commands, positions, strict=True):
        work.decide(
            pos,
            ActStatus.AWAITING_CONFIRMATION,
            ACT_AWAITING_CONFIRMATION,
            pos,
            command_ids=(command.command_id,),
            interaction_id=card.interaction_id,
        )


def card_command(
    workflow: Workflow[Any],
    command: PlannedCommand,
    record: tuple[str, tuple[str, ...]],
    proposed: tuple[str, ...],
) -> CardCommand:
    """A command as its card shows it: every argument as it will be executed, worded by the
    workflow (money with its currency, dates, quantities) and the record's name."""
    shown: dict[str, str] = {}
    if command.name == SET_FIELD_COMMAND:
        field = workflow.field(command.args["field"])
        value = command.args["value"]
        show = field.show if field is not None else None
        typed = converter.structure(value, field.type) if field is not None else value
        shown[command.args["field"]] = show(typed) if show and typed is not None else _plain(value)
    elif command.name == START_CASE_COMMAND:
        shown["label"] = _plain(command.args.get("label"))
    else:
        op = workflow.operation(command.name)
        declared = {a.name: a for a in op.arguments} if op is not None else {}
        for name, value in command.args.items():
            argument = declared.get(name)
            if argument is not None and argument.show is not None and value is not None:
                shown[name] = argument.show(converter.structure(value, argument.type))
            else:
                shown[name] = _plain(value)
    return CardCommand(
        command_id=command.command_id,
        case_id=command.case_id,
        record=record[0],
        identifying=record[1],
        operation=command.name,
        arguments=dict(command.args),
        shown=shown,
        proposed=proposed,
    )


def _plain(value: Any) -> str:
    """A value without the workflow's own wording: text in quotes, the rest as JSON."""
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return f"\u201c{value}\u201d"
    return canonical_json(value).decode("utf-8")


def _named_by_another(
    op: Operation[Any], texts: dict[str, str], ctx: ParseContext
) -> tuple[dict[str, str], bool]:
    """A required argument of a finite set not said, whose own parser reads (against the case
    state) the words given to an optional one as one of its choices: the words name it ("move
    item X-100 to …": the item's code names the part it is in). They go to the required
    argument, the optional one is left unsaid, and a card shows the reading (``True``);
    otherwise ``texts`` as they are."""
    out = dict(texts)
    renamed = False
    for missing in op.arguments:
        if not missing.required or missing.propose is not None or missing.name in out:
            continue
        if not missing.choices:
            continue  # free words parse as anything: only a choice is named so
        for other in op.arguments:
            if other.required or other.name not in out:
                continue
            try:
                if missing.parse(out[other.name], ctx) not in missing.choices:
                    continue
            except (ValueError, TypeError):
                continue
            out[missing.name] = out.pop(other.name)
            renamed = True
            break
    return out, renamed


def _month_unsaid(kind: Any, text: str, now: datetime) -> bool:
    """Whether a date is said as a day of the month alone that has already passed this month
    ("the 15th" on the 28th): it names no month, so the user is asked which one."""
    return (kind is date or date in typing.get_args(kind)) and past_day_alone(text, now)


def _month_said(kind: Any, text: str, ctx: ParseContext) -> None:
    """``ValueError`` (the argument is asked for) when :func:`_month_unsaid`."""
    if _month_unsaid(kind, text, ctx.now):
        raise ValueError(f"{text.strip()!r}: which month? That day of this month has passed")


def _moved(
    argument: Argument,
    text: str,
    args: Mapping[str, Any],
    declared: Mapping[str, Argument],
    state: Any,
) -> Any:
    """A relative move of ``argument`` ("a day later") resolved from the case state: the
    current value the workflow declares for the choice already read ("return" -> the return
    date), moved; ``None`` when ``text`` is no relative move. A move whose starting value is
    unknown raises ``ValueError``, so the user is asked for the value itself."""
    shift = argument.current.shift(text) if argument.current is not None else None
    if shift is None or argument.current is None:
        return None
    by = declared[argument.current.by]
    if by.name not in args:
        raise ValueError(f"{text.strip()!r} counts from the {by.name}, which is not known")
    chosen = converter.structure(args[by.name], by.type)
    field = argument.current.fields.get(chosen)
    current = getattr(state, field, None) if field is not None else None
    if current is None:
        raise ValueError(f"{text.strip()!r}: no current {argument.name} to count from")
    return current + shift
