"""A plan that can ask: an argument the user did not give, or gave unreadably, is asked for.

The act waits (``needs_clarification``) on a provide-argument card that names the argument and
lists its values when the workflow declares them finite. The user answers in the next turn, by
clicking a value or by saying it; the answer completes the same act, which is then reduced like
any other (so a refund still waits for its confirmation card, now showing the amount).

A text answer is read only when the next turn asks for nothing else: its words (or the words
the interpreter could not place) must parse with the argument's own parser, else the card stays
open and nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from turnframe._identity import interaction_id
from turnframe.plan import (
    Act,
    Evidence,
    OperationAct,
    SetFieldAct,
    UnnamedChangeAct,
    UserTurnPlan,
)
from turnframe.reading.months import with_month
from turnframe.reduce.context import ReductionContext
from turnframe.reduce.shares import share_of
from turnframe.reduce.work import Work
from turnframe.results import (
    ActStatus,
    InteractionKind,
    InteractionOption,
    InteractionToCreate,
    OptionAction,
)
from turnframe.workflow import Field, Operation, ParseContext

#: Acts that ask for something themselves: a turn with any of them is not an answer.
_ASKING_KINDS = frozenset(
    {
        "set_field",
        "operation",
        "correct",
        "cancel",
        "keep_unchanged",
        "constraint",
        "start_case",
        "unnamed_change",
    }
)
#: Acts that show a turn is not a bare answer to the open question ("thanks" is no note).
_NOT_AN_ANSWER = _ASKING_KINDS | {"question", "chitchat", "recall", "unnamed_change"}
_TRIM = " \t\r\n.,;:!?\"'\u201c\u201d"
#: Words around a new value for a card's command: "make it 30 instead", "sorry, I meant 25".
_AMENDING = re.compile(
    r"(?<!\w)(?:make\s+(?:it|that)|change\s+(?:it|that)\s+to|it\s+should\s+be|no|sorry"
    r"|actually|instead|rather|i\s+mean[t]?|wait|please|oops|correction|not\s+\S+\s+but|hmm+"
    r"|just|only|of\s+(?:it|that|this)"
    r"|(?:is|was|would\s+be|sounds|seems)\s+(?:fair|right|correct|better|fine|good|ok(?:ay)?))"
    r"(?!\w)",
    re.IGNORECASE,
)


def ask_for_argument(
    work: Work,
    pos: int,
    *,
    case_id: str,
    op: Operation[object],
    argument: str,
    reason: str,
    detail: str,
    asked: OperationAct | None = None,
) -> None:
    """Hold the act at ``pos`` on a provide-argument card that asks for ``argument`` of its
    operation (or of ``asked``, the request the act at ``pos`` reopens)."""
    declared = next(a for a in op.arguments if a.name == argument)
    act = work.entries[pos].act if asked is None else asked
    assert isinstance(act, OperationAct)
    pending = attrs.evolve(act, args={k: v for k, v in act.args.items() if k != argument})
    _ask(work, pos, case_id, pending, argument, declared.choices, reason, detail)


def ask_for_value(
    work: Work, pos: int, *, case_id: str, act: SetFieldAct, reason: str, detail: str
) -> None:
    """Hold a field change without a value on a provide-argument card that asks for it; the
    next turn's words (parsed by the field's own parser) complete it."""
    pending = attrs.evolve(act, value="")
    _ask(work, pos, case_id, pending, act.field, (), reason, detail)


def _ask(
    work: Work,
    pos: int,
    case_id: str,
    pending: Act,
    argument: str,
    choices: Sequence[str],
    reason: str,
    detail: str,
) -> None:
    ref = work.entries[pos].ref
    card = InteractionToCreate(
        interaction_id=interaction_id(
            account_id=work.account_id,
            turn_id=work.turn_id,
            kind=InteractionKind.PROVIDE_ARGUMENT.value,
            subject={"case_id": case_id, "act": ref.index, "argument": argument},
        ),
        kind=InteractionKind.PROVIDE_ARGUMENT,
        turn_id=work.turn_id,
        acts=(ref,),
        options=tuple(
            InteractionOption(
                option_id=f"value-{n}",
                action=OptionAction.PROVIDE_VALUE,
                label=value,
                value=value,
                case_id=case_id,
            )
            for n, value in enumerate(choices, start=1)
        ),
        case_id=case_id,
        pending_acts=(pending,),
        argument=argument,
    )
    work.interactions.append(card)
    work.decide(
        pos,
        ActStatus.NEEDS_CLARIFICATION,
        reason,
        pos,
        interaction_id=card.interaction_id,
        detail=detail,
    )


def answered_act(card: InteractionToCreate, value: str) -> Act | None:
    """The card's pending act completed with ``value`` for the argument it asks for (or, for
    a field change asked about, the field's value)."""
    if card.argument is None or len(card.pending_acts) != 1:
        return None
    act = card.pending_acts[0]
    if isinstance(act, SetFieldAct) and act.field == card.argument:
        return attrs.evolve(act, value=value)
    if not isinstance(act, OperationAct):
        return None
    return attrs.evolve(act, args={**act.args, card.argument: value})


def completed_in_words(card: InteractionToCreate, said: str, ctx: ReductionContext) -> Act | None:
    """The card's act completed by words: a free-text value said in words (a field's, or an
    operation's free-text argument: "a snorkelling trip, 60 euros") still waits for a card that
    shows it (any words read as free text; the user confirms they meant it), unless the answer
    is a few plain words that can only be the value ("bike rental")."""
    act = answered_act(card, said)
    plain = _plain_answer(said, digits=isinstance(act, SetFieldAct))
    if plain and _RETHOUGHT.search(ctx.turn.text) is None:
        if isinstance(act, OperationAct) and card.argument in act.args:
            # "a kayak": the thing itself, as a request names it ("add a kayak")
            named = _ARTICLE.sub("", act.args[card.argument], count=1)
            act = attrs.evolve(act, args={**act.args, card.argument: named or said})
        return act
    snapshot = None if card.case_id is None else ctx.cases.get(card.case_id)
    workflow = None if snapshot is None else ctx.workflows.get(snapshot.workflow)
    if workflow is None:
        return act
    if isinstance(act, OperationAct):
        op = workflow.operation(act.operation)
        argument = (
            None if op is None else next((a for a in op.arguments if a.name == card.argument), None)
        )
        free = argument is not None and argument.type is str
        return attrs.evolve(act, confirm=True) if free else act
    if not isinstance(act, SetFieldAct):
        return act
    field = workflow.field(act.field)
    if field is None or field.type is not str or _checked_word(field, said, card, ctx):
        return act
    return attrs.evolve(act, confirm=True)


#: One word of the characters an address or a code is written with (no emoji, no list).
_ADDRESS_LIKE = re.compile(r"[\w.+@-]+")


def _checked_word(
    field: Field[Any], said: str, card: InteractionToCreate, ctx: ReductionContext
) -> bool:
    """Whether ``said`` is one word that the field's own check accepts ("ana@new.pt" for an
    address): the whole answer is the value, so it needs no card to show what was read."""
    word = said.strip().strip(_TRIM)
    if not _ADDRESS_LIKE.fullmatch(word) or field.validate is None:
        return False
    try:
        value = field.parse(word, ParseContext.of(ctx.turn, _state_of(card, ctx)))
    except ValueError:
        return False
    return field.validate(value) is None


_ARTICLE = re.compile(r"^\s*(?:a|an|the|some)\s+", re.IGNORECASE)
#: A few plain words: letters, spaces, hyphens and apostrophes, nothing else.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z' -]{0,39}")
#: ... and, for a field's value ("Acme 2026" for a name), digits after the first letter.
_PLAIN_DIGITS = re.compile(r"[A-Za-z][A-Za-z0-9' -]{0,59}")
#: Words that answer no question with a value: refusals, doubts and placeholders.
_NOT_A_VALUE = re.compile(
    r"(?:no|nope|nah|none|nothing|never\s*mind|cancel|stop|skip|forget\s+it|not\s+sure|idk"
    r"|dunno|whatever|anything|something|any|the\s+usual|same|same\s+as\s+before|yes|yeah|ok"
    r"|okay|sure|wait|hmm+|what|why|huh|maybe|later)",
    re.IGNORECASE,
)


#: At most this many plain words answer for an operation's object, and for a field's value
#: (more may hold a record, a scope or a second thought: "For the lounge pass", "Let me check
#: with Ana first").
_OBJECT_WORDS, _FIELD_WORDS = 4, 4


#: Words that turn the answer around ("actually …", "no wait, …"): what follows may be
#: another request, so the value waits for a card that shows it.
_RETHOUGHT = re.compile(
    r"(?<!\w)(?:actually|instead|rather|wait|scratch|no|sorry|never\s*mind|forget)(?!\w)",
    re.IGNORECASE,
)


def _plain_answer(said: str, *, digits: bool = False) -> bool:
    """Whether ``said`` can only be the value asked for: a few plain words (for a field's
    value, digits only in a value written as a name, every word capitalised: "Lisbon 2026")."""
    words = said.strip().rstrip(".!")
    if digits and any(c.isdigit() for c in words):
        named = all(w[0].isupper() or w[0].isdigit() for w in words.split())
        if not named:
            return False
    return (
        (_PLAIN_DIGITS if digits else _PLAIN).fullmatch(words) is not None
        and len(words.split()) <= (_FIELD_WORDS if digits else _OBJECT_WORDS)
        and _NOT_A_VALUE.fullmatch(words) is None
        and not _NOT_A_VALUE.match(words.split()[0] + " ")
    )


def text_answer(
    plan: UserTurnPlan, ctx: ReductionContext
) -> tuple[InteractionToCreate, str] | None:
    """The open provide-argument card this turn's text answers, with the value said, if the
    turn asks nothing else and its words parse as that argument."""
    if ctx.turn.interaction_response is not None:
        return None
    if any(act.kind in _NOT_AN_ANSWER for act in plan.acts):
        return None
    cards = [c for c in ctx.open_interactions if c.kind is InteractionKind.PROVIDE_ARGUMENT]
    if not cards:
        return None
    card = cards[-1]  # the latest question asked is the one a bare answer answers
    parser = _parser_of(card, ctx)
    if parser is None:
        return None
    proposes = _proposes(card, ctx)
    for words in _candidate_words(ctx.turn.text, plan.not_understood):
        if proposes and share_of(words) is not None:
            return card, words  # "half": that share of what the workflow proposes
        try:
            parser(words, ParseContext.of(ctx.turn, _state_of(card, ctx)))
        except ValueError:
            continue
        return card, words
    return None


def _proposes(card: InteractionToCreate, ctx: ReductionContext) -> bool:
    """Whether the operation argument the card asks for is one the workflow proposes."""
    act = card.pending_acts[0] if len(card.pending_acts) == 1 else None
    snapshot = None if card.case_id is None else ctx.cases.get(card.case_id)
    workflow = None if snapshot is None else ctx.workflows.get(snapshot.workflow)
    if not isinstance(act, OperationAct) or workflow is None:
        return False
    op = workflow.operation(act.operation)
    argument = (
        None if op is None else next((a for a in op.arguments if a.name == card.argument), None)
    )
    return argument is not None and argument.propose is not None


def text_amendment(
    plan: UserTurnPlan, ctx: ReductionContext
) -> tuple[InteractionToCreate, Act] | None:
    """ "make it 30 instead" after a confirmation card: the card's one pending operation with
    that argument changed, when the turn asks nothing else and the words parse as one of its
    (non-text) arguments. A new card then shows it; the old one is superseded."""
    if ctx.turn.interaction_response is not None:
        return None
    if any(
        (act.kind in _ASKING_KINDS and not _disowns_unnamed(act)) or act.kind == "question"
        for act in plan.acts
    ):
        return None
    cards = [
        c
        for c in ctx.open_interactions
        if c.kind is InteractionKind.CONFIRM_COMMAND and len(c.pending_acts) == 1
    ]
    if not cards:
        return None
    card = cards[-1]
    act = card.pending_acts[0]
    snapshot = None if card.case_id is None else ctx.cases.get(card.case_id)
    workflow = None if snapshot is None else ctx.workflows.get(snapshot.workflow)
    op = None
    if isinstance(act, OperationAct) and workflow is not None:
        op = workflow.operation(act.operation)
    if op is None or not isinstance(act, OperationAct):
        return None
    for words in _candidate_words(ctx.turn.text, plan.not_understood):
        said = _AMENDING.sub("", words).strip(_TRIM)
        for argument in op.arguments:
            if argument.type is str or not said:
                continue
            if argument.propose is not None and share_of(said) is not None:
                # "make it the full amount instead": a share of the workflow's proposal.
                return card, attrs.evolve(act, args={**act.args, argument.name: said})
            value = with_month(said, act.args.get(argument.name))
            try:
                argument.parse(value, ParseContext.of(ctx.turn, _state_of(card, ctx)))
            except ValueError:
                continue
            return card, attrs.evolve(act, args={**act.args, argument.name: value})
    return None


def _state_of(card: InteractionToCreate, ctx: ReductionContext) -> Any:
    snapshot = None if card.case_id is None else ctx.cases.get(card.case_id)
    return None if snapshot is None else snapshot.state


def _disowns_unnamed(act: Act) -> bool:
    """A pending ``unnamed_change`` that names nothing ("wait, make it …" with words the reading
    left unread): those words may still be the card's new value."""
    return isinstance(act, UnnamedChangeAct) and act.pending and act.about is None


def _candidate_words(text: str, unread: Sequence[Evidence]) -> list[str]:
    out = [text.strip(_TRIM)]
    out += [ev.text.strip(_TRIM) for ev in unread]
    return [w for w in dict.fromkeys(out) if w]


def _parser_of(
    card: InteractionToCreate, ctx: ReductionContext
) -> Callable[[str, ParseContext], Any] | None:
    act = card.pending_acts[0] if len(card.pending_acts) == 1 else None
    snapshot = None if card.case_id is None else ctx.cases.get(card.case_id)
    workflow = None if snapshot is None else ctx.workflows.get(snapshot.workflow)
    if isinstance(act, SetFieldAct) and workflow is not None:
        field = workflow.field(act.field)
        return None if field is None else field.parse
    if not isinstance(act, OperationAct) or snapshot is None:
        return None
    op = None if workflow is None else workflow.operation(act.operation)
    argument = (
        None if op is None else next((a for a in op.arguments if a.name == card.argument), None)
    )
    return None if argument is None else argument.parse
