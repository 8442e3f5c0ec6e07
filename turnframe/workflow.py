"""What an adopter declares: a workflow's case state, fields, operations, questions, projection.

Everything here is pure. Handlers, parsers, validators, ``apply`` and questions take values and
return values; the runtime owns storage, revisions and effects. A small example::

    @attrs.frozen(kw_only=True)
    class Ticket:
        title: str = ""
        status: str = "open"

    def close(state: Ticket, args: Mapping[str, Any]) -> list[DomainEvent] | Rejection:
        if state.status == "closed":
            return Rejection(code="ticket.already_closed", message="The ticket is closed.")
        return [DomainEvent(name="closed", data={})]

    def apply(state: Ticket, event: DomainEvent) -> Ticket:
        return attrs.evolve(state, status="closed") if event.name == "closed" else state

    tickets = Workflow(
        name="ticket",
        state_type=Ticket,
        initial_state=Ticket,
        fields=(Field(name="title", type=str, parse=lambda text, ctx: text.strip(),
                      policy=CommandPolicy.routine()),),
        operations=(Operation(name="close", handler=close, is_submission=True,
                              policy=CommandPolicy.routine()),),
        apply=apply,
        questions=(Question(name="status", answer=lambda s: s.status),),
        project=lambda s: {"title": s.title, "status": s.status},
    )

``set_field`` is not an operation an adopter writes: it runs as the built-in command
``set_field`` producing a ``field_set`` event (after the field's validator), so every mutation
takes one path through the gate. ``start_case`` likewise produces ``case_started``. Every
committed batch of events bumps the case revision by one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

import attrs

from turnframe._converter import converter
from turnframe.errors import ConfigError, TurnframeError
from turnframe.messages import UserTurn
from turnframe.policy import AtomicityScope, CommandPolicy
from turnframe.references.slots import ReferenceSlot, check_slots
from turnframe.results import Rejection

S = TypeVar("S")
T = TypeVar("T")

SET_FIELD_COMMAND = "set_field"
START_CASE_COMMAND = "start_case"
FIELD_SET_EVENT = "field_set"
CASE_STARTED_EVENT = "case_started"
BUILTIN_COMMANDS = frozenset({SET_FIELD_COMMAND, START_CASE_COMMAND})


@attrs.frozen(kw_only=True)
class ParseContext:
    """What a parser may know besides the text: the turn's instant and locale, and (when the
    reducer parses a command's arguments) the state of the case it runs on, so a parser can
    resolve a name of something inside the case ("TP1350" is the return leg)."""

    now: datetime
    locale: str
    state: Any = None

    @classmethod
    def of(cls, turn: UserTurn, state: Any = None) -> ParseContext:
        return cls(now=turn.clock, locale=turn.locale, state=state)


@attrs.frozen(kw_only=True)
class DomainEvent:
    """A committed fact about a case; ``data`` is plain JSON."""

    name: str
    data: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ExternalEffect:
    """What an ``external_saga`` operation asks the outbox to send, after its commit."""

    channel: str
    payload: dict[str, Any]


@attrs.frozen(kw_only=True)
class Field(Generic[T]):
    """A field of the case state that a user may set by name.

    ``parse`` turns the user's words into a value (raise ``ValueError`` with a short message
    when it cannot); ``validate`` refuses a parsed value with a :class:`Rejection`.
    """

    name: str
    type: Any
    parse: Callable[[str, ParseContext], T]
    validate: Callable[[T], Rejection | None] | None = None
    policy: CommandPolicy = attrs.field(factory=CommandPolicy.conservative)
    aliases: tuple[str, ...] = ()
    #: How a value reads on a confirmation card ("120.00 EUR"); default: as written in JSON.
    show: Callable[[T], str] | None = None


@attrs.frozen(kw_only=True)
class Argument:
    """An operation's argument. ``parse`` reads the user's words (``ValueError`` when it
    cannot); ``show`` words a value for a card ("120.00 EUR"); ``choices`` lists the finite
    values it may take (a clarification offers them as options); ``propose(state)`` is the
    workflow's default proposal when the user gave none (e.g. what is left to refund): the
    command then always waits for a card that shows the proposed value."""

    name: str
    type: Any
    parse: Callable[[str, ParseContext], Any]
    required: bool = True
    show: Callable[[Any], str] | None = None
    choices: tuple[str, ...] = ()
    propose: Callable[[Any], Any] | None = None
    #: Where a move relative to the current value ("a day later") counts from; ``None`` when
    #: the argument takes only values said outright.
    current: CurrentValue | None = None


@attrs.frozen(kw_only=True)
class CurrentValue:
    """The state field holding an argument's current value, for each value of the ``by``
    argument: a date argument of ``rebook(leg, date)`` moved "a day later" counts from the
    date of the leg named (``by="leg"``, ``fields={"outbound": "travel_date", ...}``). The
    reducer resolves the move from the case state when it runs, so the card shows the date.
    ``shift(text)`` reads a move ("two days earlier") as what to add to the current value, or
    ``None`` when the words are not a move (they are then parsed as a value)."""

    by: str
    fields: Mapping[str, str]
    shift: Callable[[str], Any]


@attrs.frozen(kw_only=True)
class Condition(Generic[S]):
    """A yes/no fact about a case that a conditional act depends on ("the discount is still
    valid"), decided from the case state at reduction time and the turn's clock."""

    name: str
    holds: Callable[[S, ParseContext], bool]
    aliases: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class Operation(Generic[S]):
    """A workflow command. ``handler(state, args)`` returns events or a :class:`Rejection`.

    ``aliases`` are phrasings a rule-based interpreter may match. ``scope`` decides batching;
    ``explicit_group`` needs ``group``; ``external_saga`` needs ``effect``.
    """

    name: str
    handler: Callable[[S, Mapping[str, Any]], Sequence[DomainEvent] | Rejection]
    arguments: tuple[Argument, ...] = ()
    policy: CommandPolicy = attrs.field(factory=CommandPolicy.conservative)
    is_submission: bool = False
    is_destructive: bool = False
    scope: AtomicityScope = AtomicityScope.PER_CASE
    group: str | None = None
    aliases: tuple[str, ...] = ()
    effect: Callable[[S, Mapping[str, Any]], ExternalEffect] | None = None


@attrs.frozen(kw_only=True)
class Question(Generic[S]):
    """A read-only question answered from case state alone."""

    name: str
    answer: Callable[[S], Any]
    aliases: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class ActOnCase:
    """One act of the turn, still to be decided, on a case of this workflow."""

    act_index: int
    act: Any  # turnframe.plan.Act (kept loose here: plan imports nothing from workflow)
    case: CaseSnapshot | None  # None for a case the turn itself starts


@attrs.frozen(kw_only=True)
class HoldBack:
    """A refinement's decision: this act does not run in this turn.

    ``clarify`` True gives ``needs_clarification``, else ``rejected``; ``reason`` is the
    workflow's own stable code and message. A refinement can only hold acts back, never let
    one through: the reducer's default rules are refined, never bypassed.
    """

    act_index: int
    reason: Rejection
    clarify: bool = False


#: How a committed event of this workflow reads in a receipt (``None``: the generic wording).
EventDescriber = Callable[["DomainEvent"], str | None]

#: Registers a workflow's reviewed corpora on a registry (a ``turnframe.corpora.CorpusRegistry``).
CorpusRegistrar = Callable[[Any], object]

#: A workflow's own same-turn rule: sees the undecided acts on its cases, holds some back.
Refinement = Callable[[Sequence[ActOnCase]], Sequence[HoldBack]]


class WorkflowDeclarationError(ConfigError):
    code = "turnframe.workflow.invalid"


class UnknownCommand(TurnframeError):
    code = "turnframe.workflow.unknown_command"


@attrs.frozen(kw_only=True, eq=False)
class Workflow(Generic[S]):
    """A declared workflow. ``project`` is everything the model and the narrator may see."""

    name: str
    state_type: type[S]
    initial_state: Callable[[], S]
    fields: tuple[Field[Any], ...]
    apply: Callable[[S, DomainEvent], S]
    project: Callable[[S], Mapping[str, Any]]
    operations: tuple[Operation[S], ...] = ()
    questions: tuple[Question[S], ...] = ()
    start_policy: CommandPolicy = attrs.field(factory=CommandPolicy.conservative)
    #: Named reference material the interpreter may be given (never evidence); see
    #: docs/references.md. ``glossary_slots`` name the slots whose text maps aliases.
    reference_slots: tuple[ReferenceSlot, ...] = ()
    glossary_slots: tuple[str, ...] = ()
    #: What one case is called in replies ("Trip", "Order"); default: the workflow's name.
    case_noun: str | None = None
    #: Other words users call one case by ("booking", "reservation"): "the Acme booking".
    nouns: tuple[str, ...] = ()
    #: How its committed events read in receipts (e.g. money in cents as euros); receipts are
    #: still made only from committed events.
    describe_event: EventDescriber | None = None
    #: Its own reviewed corpora (what its knowledge questions are answered from): each
    #: registrar registers a pack and a teaching corpus on the runtime's registry.
    corpora: tuple[CorpusRegistrar, ...] = ()
    #: Same-turn rules of this workflow, applied after the default precedence rules; each can
    #: only hold acts back (see :class:`HoldBack`).
    refinements: tuple[Refinement, ...] = ()
    #: Attributes of the state that identify a record besides its label (an order number, a
    #: customer's name, a hotel): users may name a case by them, and cards show them.
    identifying: tuple[str, ...] = ()
    #: Facts a conditional act may depend on ("if the discount is still valid, …").
    conditions: tuple[Condition[S], ...] = ()
    #: Words users say for this workflow's operations and fields besides their names and
    #: aliases, by name: ``{"refund": ("money back", "reimburse")}``. Inflections ("refunded",
    #: "refunding") are derived; declare only other words.
    synonyms: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    _fields_by_name: dict[str, Field[Any]] = attrs.field(init=False)
    _operations_by_name: dict[str, Operation[S]] = attrs.field(init=False)
    _questions_by_name: dict[str, Question[S]] = attrs.field(init=False)
    _conditions_by_name: dict[str, Condition[S]] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        _check_declaration(self)
        object.__setattr__(self, "_fields_by_name", {f.name: f for f in self.fields})
        object.__setattr__(self, "_operations_by_name", {o.name: o for o in self.operations})
        object.__setattr__(self, "_questions_by_name", {q.name: q for q in self.questions})
        object.__setattr__(self, "_conditions_by_name", {c.name: c for c in self.conditions})

    def field(self, name: str) -> Field[Any] | None:
        return self._fields_by_name.get(name)

    def operation(self, name: str) -> Operation[S] | None:
        return self._operations_by_name.get(name)

    def question(self, name: str) -> Question[S] | None:
        return self._questions_by_name.get(name)

    def condition(self, name: str) -> Condition[S] | None:
        return self._conditions_by_name.get(name)

    def identifying_values(self, label: str | None, state: Any) -> tuple[str, ...]:
        """What identifies a case besides its label ("Ana Reis", "Hotel Almirante, 1 night"):
        the declared identifying attributes, without those the label already holds."""
        said = (label or "").casefold()
        values = (getattr(state, name, None) for name in self.identifying)
        return tuple(
            str(v) for v in values if v not in (None, "") and str(v).casefold() not in said
        )


@attrs.frozen(kw_only=True, eq=False)
class CaseSnapshot:
    """A case as the reducer sees it: pure data, read before reduction."""

    case_id: str
    workflow: str
    label: str | None
    revision: int
    state: Any
    noun: str | None = None  # the workflow's case_noun, for wording


def _check_declaration(w: Workflow[Any]) -> None:
    def fail(message: str) -> None:
        raise WorkflowDeclarationError(
            f"workflow {w.name!r}: {message}", hint="fix the workflow's declaration"
        )

    if not attrs.has(w.state_type):
        fail("state_type must be an attrs class")
    attributes = {a.name for a in attrs.fields(w.state_type)}
    for kind, names in (
        ("field", [f.name for f in w.fields]),
        ("operation", [o.name for o in w.operations]),
        ("question", [q.name for q in w.questions]),
    ):
        if len(set(names)) != len(names):
            fail(f"two {kind}s share a name in {names}")
    for f in w.fields:
        if f.name not in attributes:
            fail(f"field {f.name!r} is not an attribute of {w.state_type.__name__}")
    for name in w.identifying:
        if name not in attributes:
            fail(f"identifying {name!r} is not an attribute of {w.state_type.__name__}")
    if len({c.name for c in w.conditions}) != len(w.conditions):
        fail("two conditions share a name")
    named = {f.name for f in w.fields} | {o.name for o in w.operations}
    for name in w.synonyms:
        if name not in named:
            fail(f"synonyms name {name!r}, which is neither a field nor an operation")
    for op in w.operations:
        if op.name in BUILTIN_COMMANDS:
            fail(f"operation {op.name!r} uses a built-in command name")
        if (op.scope is AtomicityScope.EXPLICIT_GROUP) != (op.group is not None):
            fail(f"operation {op.name!r}: name a group exactly when scope is explicit_group")
        if (op.scope is AtomicityScope.EXTERNAL_SAGA) != (op.effect is not None):
            fail(f"operation {op.name!r}: declare an effect exactly when scope is external_saga")
        arg_names = [a.name for a in op.arguments]
        if len(set(arg_names)) != len(arg_names):
            fail(f"operation {op.name!r}: two arguments share a name")
        for a in op.arguments:
            if a.current is None:
                continue
            by = next((b for b in op.arguments if b.name == a.current.by), None)
            if by is None or by is a:
                fail(f"operation {op.name!r}: {a.name!r} counts from an unknown argument")
            elif not set(a.current.fields.values()) <= attributes:
                fail(f"operation {op.name!r}: {a.name!r} counts from a field not in the state")
    check_slots(w.name, w.reference_slots)
    declared = {slot.name for slot in w.reference_slots}
    for name in w.glossary_slots:
        if name not in declared:
            fail(f"glossary slot {name!r} is not a declared reference slot")


def value_to_json(field: Field[Any], value: Any) -> Any:
    """A parsed field value as plain JSON (how it travels in a command's args)."""
    return converter.unstructure(value, unstructure_as=field.type)


def run_command(
    workflow: Workflow[S], state: S, name: str, args: Mapping[str, Any]
) -> tuple[DomainEvent, ...] | Rejection:
    """Run one command on ``state``: the events it produces, or the workflow's rejection.

    The reducer runs it to validate a batch before execution; the gate runs it again at commit.
    """
    if name == SET_FIELD_COMMAND:
        field = workflow.field(args["field"])
        if field is None:
            raise UnknownCommand(f"workflow {workflow.name!r} has no field {args['field']!r}")
        value = converter.structure(args["value"], field.type)
        rejection = field.validate(value) if field.validate is not None else None
        if rejection is not None:
            return rejection
        data = {"field": field.name, "value": args["value"]}
        return (DomainEvent(name=FIELD_SET_EVENT, data=data),)
    if name == START_CASE_COMMAND:
        data = {"workflow": workflow.name, "label": args.get("label")}
        return (DomainEvent(name=CASE_STARTED_EVENT, data=data),)
    op = _operation(workflow, name)
    outcome = op.handler(state, typed_arguments(op, args))
    return outcome if isinstance(outcome, Rejection) else tuple(outcome)


def apply_event(workflow: Workflow[S], state: S, event: DomainEvent) -> S:
    """Fold one event into the state: built-in events here, the workflow's own by ``apply``."""
    if event.name == FIELD_SET_EVENT:
        field = workflow.field(event.data["field"])
        if field is None:
            raise UnknownCommand(f"workflow {workflow.name!r} has no field {event.data['field']!r}")
        value = converter.structure(event.data["value"], field.type)
        return attrs.evolve(state, **{field.name: value})  # type: ignore[misc]
    if event.name == CASE_STARTED_EVENT:
        return state
    return workflow.apply(state, event)


def apply_events(workflow: Workflow[S], state: S, events: Sequence[DomainEvent]) -> S:
    for event in events:
        state = apply_event(workflow, state, event)
    return state


def external_effect(
    workflow: Workflow[S], state_after: S, name: str, args: Mapping[str, Any]
) -> ExternalEffect | None:
    """The outbox message of an ``external_saga`` command, from the state after its events."""
    if name in BUILTIN_COMMANDS:
        return None
    op = _operation(workflow, name)
    if op.effect is None:
        return None
    return op.effect(state_after, typed_arguments(op, args))


def typed_arguments(op: Operation[Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """A command's JSON args structured into the operation's declared argument types."""
    present = (a for a in op.arguments if a.name in args)
    return {a.name: converter.structure(args[a.name], a.type) for a in present}


def _operation(workflow: Workflow[S], name: str) -> Operation[S]:
    op = workflow.operation(name)
    if op is None:
        raise UnknownCommand(f"workflow {workflow.name!r} has no operation {name!r}")
    return op
