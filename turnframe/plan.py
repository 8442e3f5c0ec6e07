"""The interpreter's proposal for a whole user turn: one strict plan of acts.

A plan is untrusted input. :func:`parse_plan` accepts it only if every act is well formed and
every piece of evidence is a span of the turn's own text; otherwise the whole plan is refused
with :class:`PlanRejected`, which lists every problem. Never a subset.

Wire shape (snake_case, tagged by ``kind`` for acts and ``by`` for targets)::

    {"acts": [
        {"kind": "set_field", "target": {"by": "label", "label": "Anna"},
         "field": "travel_date", "value": "Friday",
         "evidence": [{"start": 0, "end": 32, "text": "Change the travel date to Friday"}]},
        {"kind": "keep_unchanged", "target": {"by": "label", "label": "Anna"},
         "field": "travel_date", "evidence": [...]}],
     "not_understood": [{"start": 40, "end": 52, "text": "blorp the fnord"}]}

Links: ``correct.corrects`` and ``cancel.cancels`` name an *earlier* act of the same plan by its
index (a user corrects or withdraws what they already said). A correction names a ``set_field``
or an earlier ``correct``; a cancellation names a ``set_field``, ``operation`` or ``start_case``;
``operation.repeats`` names an earlier ``operation`` act this one is a separate, second instance of.
An ``unnamed_change`` act (a change with nothing named, or a disowned pending value) is the plan
asking: it never runs, and its ``about``, when given, is a non-empty name.
``NewCaseTarget.start_act`` names the ``start_case`` act whose new case the act addresses, at any
position. Evidence offsets are indices into ``UserTurn.text`` as a Python string (code points),
end exclusive.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from typing import Any, ClassVar

import attrs

from turnframe._converter import structure
from turnframe._strict import (
    Path,
    ShapeProblem,
    check_shape,
    is_unicode_text,
    non_text_paths,
    register_tagged_union,
    storable_text,
)
from turnframe.errors import TurnframeError
from turnframe.messages import UserTurn


@attrs.frozen(kw_only=True)
class Evidence:
    """A span of the user's own text: ``turn.text[start:end] == text``."""

    start: int
    end: int
    text: str


@attrs.frozen(kw_only=True)
class LabelTarget:
    """An existing case named the way the user named it ("Anna's trip")."""

    by: ClassVar[str] = "label"
    label: str


@attrs.frozen(kw_only=True)
class TokenTarget:
    """An existing case named by an opaque token bound for this turn (the model never sees ids)."""

    by: ClassVar[str] = "token"
    token: str


@attrs.frozen(kw_only=True)
class NewCaseTarget:
    """The case that the ``start_case`` act at index ``start_act`` creates in this turn."""

    by: ClassVar[str] = "new_case"
    start_act: int


Target = LabelTarget | TokenTarget | NewCaseTarget
register_tagged_union(Target, "by", lambda cls: cls.by)


class ConstraintKind(enum.StrEnum):
    NO_SUBMISSIONS = "no_submissions"
    NO_DESTRUCTIVE = "no_destructive"
    NO_OPERATION = "no_operation"  # names the operation in ``operation``
    NO_CHANGES = "no_changes"


@attrs.frozen(kw_only=True)
class ActCondition:
    """ "If the discount is still valid, …": the act runs only when the workflow's condition
    ``name`` is ``holds`` on its case at reduction time (``holds`` False: "otherwise …")."""

    name: str
    holds: bool = True


@attrs.frozen(kw_only=True)
class SetFieldAct:
    kind: ClassVar[str] = "set_field"
    target: Target
    field: str
    value: str  # as the user said it; the workflow's field parser turns it into a value
    evidence: tuple[Evidence, ...]
    condition: ActCondition | None = None
    #: The interpreter is unsure of its reading: a card shows the exact value first.
    confirm: bool = False


@attrs.frozen(kw_only=True)
class OperationAct:
    kind: ClassVar[str] = "operation"
    target: Target
    operation: str
    args: dict[str, str] = attrs.field(factory=dict)  # argument name -> text
    evidence: tuple[Evidence, ...]
    condition: ActCondition | None = None
    #: The interpreter is unsure of its reading: a card shows the exact arguments first.
    confirm: bool = False
    #: "add breakfast twice", "one for me and one for Pedro": this act is one more, separate
    #: instance of the earlier ``operation`` act at this index, never a restatement of it, so
    #: the two are two commands (each with its own idempotency key) even when equal.
    repeats: int | None = None


@attrs.frozen(kw_only=True)
class UnnamedChangeAct:
    """A change the user asks for without saying what to change, or to what: "I want to
    change something on my booking", "no wait, wrong amount". Nothing runs: the reducer asks.

    ``pending``: the words disown the request waiting on the session's open confirmation card
    ("hmm that's not right"); that card expires (a later click on it answers stale) and the
    reducer asks for the right value. ``about``: what the user said is wrong or to change,
    when they named it: an argument of that pending request ("wrong amount" -> ``amount``), or
    else one of the workflow's fields or operations ("fix the email" with no value)."""

    kind: ClassVar[str] = "unnamed_change"
    target: Target | None = None
    pending: bool = False
    about: str | None = None
    evidence: tuple[Evidence, ...]


@attrs.frozen(kw_only=True)
class KeepUnchangedAct:
    """ "Leave the date as it is": supersedes every change to that field in the turn."""

    kind: ClassVar[str] = "keep_unchanged"
    target: Target
    field: str
    evidence: tuple[Evidence, ...]


@attrs.frozen(kw_only=True)
class CorrectAct:
    """A new value for the field of the earlier act it names."""

    kind: ClassVar[str] = "correct"
    corrects: int
    value: str
    evidence: tuple[Evidence, ...]


@attrs.frozen(kw_only=True)
class CancelAct:
    """Withdraws the earlier act it names (and every correction of it)."""

    kind: ClassVar[str] = "cancel"
    cancels: int
    evidence: tuple[Evidence, ...]


@attrs.frozen(kw_only=True)
class ConstraintAct:
    """Forbids a class of acts wherever they stand in the turn; on one case if ``target``."""

    kind: ClassVar[str] = "constraint"
    forbids: ConstraintKind
    operation: str | None = None
    target: Target | None = None
    evidence: tuple[Evidence, ...]


@attrs.frozen(kw_only=True)
class QuestionAct:
    """A question to answer; ``question`` names one of the workflow's read-only questions."""

    kind: ClassVar[str] = "question"
    question: str | None = None
    target: Target | None = None
    hypothetical: bool = False
    evidence: tuple[Evidence, ...]


class RecallDisposition(enum.StrEnum):
    """How the user answers a recall that is waiting for them (the interpreter is told which
    is waiting): they recognise what was shown, they correct the cue (``description`` holds the
    new cue: an answer to the open question, "no, the one about the lounge pass"), or they drop
    it ("never mind")."""

    IDENTIFIED = "identified"
    CORRECTED = "corrected"
    WITHDRAWN = "withdrawn"


@attrs.frozen(kw_only=True)
class RecallAct:
    """A vague reference to an earlier conversation, resolved later by recognition; with a
    ``disposition``, the user's answer to the recall in progress (docs/recall.md)."""

    kind: ClassVar[str] = "recall"
    description: str
    evidence: tuple[Evidence, ...]
    disposition: RecallDisposition | None = None


@attrs.frozen(kw_only=True)
class StartCaseAct:
    kind: ClassVar[str] = "start_case"
    workflow: str
    label: str | None = None
    evidence: tuple[Evidence, ...]


@attrs.frozen(kw_only=True)
class ChitchatAct:
    kind: ClassVar[str] = "chitchat"
    evidence: tuple[Evidence, ...]


Act = (
    SetFieldAct
    | OperationAct
    | KeepUnchangedAct
    | CorrectAct
    | CancelAct
    | ConstraintAct
    | QuestionAct
    | RecallAct
    | StartCaseAct
    | ChitchatAct
    | UnnamedChangeAct
)
register_tagged_union(Act, "kind", lambda cls: cls.kind)


def target_of(act: Act) -> Target | None:
    """What the act names, if it names a case at all."""
    if isinstance(
        act,
        SetFieldAct
        | OperationAct
        | KeepUnchangedAct
        | ConstraintAct
        | QuestionAct
        | UnnamedChangeAct,
    ):
        return act.target
    return None


ACT_KINDS: frozenset[str] = frozenset(cls.kind for cls in Act.__args__)
CORRECTABLE_KINDS = frozenset({"set_field", "correct"})
CANCELLABLE_KINDS = frozenset({"set_field", "operation", "start_case"})
REPEATABLE_KINDS = frozenset({"operation"})


@attrs.frozen(kw_only=True)
class AtomicUnit:
    """Acts the user meant together (ADR-016): on each case they commit in one batch or not at
    all; if one of them is refused or must be asked about, none of them runs."""

    acts: tuple[int, ...]


@attrs.frozen(kw_only=True)
class UserTurnPlan:
    """Every act of the turn, in the user's order, and the parts the interpreter could not read.

    ``not_understood`` lets an interpreter say explicitly "this part of the text I could not
    read"; each such span gets a ``turnframe.notice.not_understood`` notice in the reduction.
    ``units`` groups acts that commit together or not at all (each act in at most one unit).
    """

    acts: tuple[Act, ...]
    not_understood: tuple[Evidence, ...] = ()
    units: tuple[AtomicUnit, ...] = ()


@attrs.frozen(kw_only=True)
class PlanProblem:
    """One reason a plan was refused: which act (``None`` for the plan itself), which field."""

    act_index: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = "plan" if self.act_index is None else f"act {self.act_index}"
        return f"{where}, {self.field or '(whole)'}: {self.message}"


class PlanRejected(TurnframeError):
    """The interpreter's plan is malformed; nothing from it is reduced or executed."""

    code = "turnframe.plan.rejected"

    def __init__(self, problems: Iterable[PlanProblem]) -> None:
        self.problems = tuple(problems)
        shown = "; ".join(str(p) for p in self.problems[:5])
        more = len(self.problems) - 5
        super().__init__(
            f"plan rejected with {len(self.problems)} problem(s): {shown}"
            + (f"; and {more} more" if more > 0 else ""),
            hint="the whole plan was refused; interpret the turn again or ask the user to rephrase",
        )


def parse_plan(raw_json: str | bytes, turn: UserTurn) -> UserTurnPlan:
    """Parse an interpreter's answer for ``turn`` strictly: the whole plan, or PlanRejected.

    Every way an answer can fail to be read (not JSON, nested too deep, not Unicode text, the
    wrong shape, a bug tripped by odd data) is a :class:`PlanRejected`, never another exception:
    a model's answer is untrusted input and must not crash the actor reading it."""
    try:
        return _parse_plan(raw_json, turn)
    except PlanRejected:
        raise
    except Exception as exc:  # a value this parser did not foresee: still a rejection
        message = f"the answer could not be read ({type(exc).__name__})"
        raise PlanRejected([PlanProblem(act_index=None, field="", message=message)]) from None


def _parse_plan(raw_json: str | bytes, turn: UserTurn) -> UserTurnPlan:
    try:
        data = _decode(raw_json)
    except ValueError as exc:
        raise PlanRejected([PlanProblem(act_index=None, field="", message=str(exc))]) from None
    oversized = _oversized(data)
    if oversized is not None:
        raise PlanRejected([oversized])
    not_text = [] if _certainly_text(raw_json) else non_text_paths(data)
    if not_text:
        # Checked before anything quotes the data: a lone surrogate cannot be stored or hashed.
        raise PlanRejected(
            _located(ShapeProblem(path=_printable(path), message=_NOT_TEXT)) for path in not_text
        )
    problems = [_located(p) for p in check_shape(data, UserTurnPlan)]
    if not problems:
        sound = _sound_plan(data, turn.text)
        if sound is not None:
            return sound
    if isinstance(data, dict) and isinstance(data.get("acts"), list):
        problems.extend(_semantic_problems(data["acts"], problems, turn.text))
    if (
        isinstance(data, dict)
        and isinstance(data.get("not_understood"), list)
        and not any(p.act_index is None and p.field.startswith("not_understood") for p in problems)
    ):
        for i, ev in enumerate(structure(data["not_understood"], tuple[Evidence, ...])):
            _check_span(ev, turn.text, None, f"not_understood[{i}]", problems)
    if not problems:
        _check_units(structure(data, UserTurnPlan), problems)
    if problems:
        problems.sort(key=lambda p: (-1 if p.act_index is None else p.act_index, p.field))
        raise PlanRejected(problems)
    plan: UserTurnPlan = structure(data, UserTurnPlan)
    return plan


def _sound_plan(data: dict[str, Any], text: str) -> UserTurnPlan | None:
    """A plan whose shape is sound, built once and checked as built: the same problems, in
    the same order, as the checks below find on the raw acts (each act, then the unread
    spans, then the units only when nothing else is wrong). None when building it raises:
    the checks below then meet the same error where they always did, act by act."""
    try:
        plan: UserTurnPlan = structure(data, UserTurnPlan)
    except Exception:
        return None
    kinds = [a.get("kind") for a in data.get("acts", ())]
    problems: list[PlanProblem] = []
    for index, act in enumerate(plan.acts):
        _act_problems(act, index, kinds, text, problems)
    for i, ev in enumerate(plan.not_understood):
        _check_span(ev, text, None, f"not_understood[{i}]", problems)
    if not problems:
        _check_units(plan, problems)
    if problems:
        problems.sort(key=lambda p: (-1 if p.act_index is None else p.act_index, p.field))
        raise PlanRejected(problems)
    return plan


def _check_units(plan: UserTurnPlan, out: list[PlanProblem]) -> None:
    seen: set[int] = set()
    for n, unit in enumerate(plan.units):
        where = f"units[{n}]"
        if len(set(unit.acts)) < 2:
            out.append(PlanProblem(act_index=None, field=where, message="a unit joins 2+ acts"))
        for index in unit.acts:
            if not 0 <= index < len(plan.acts):
                message = f"names act {index}, but the plan has {len(plan.acts)} acts"
                out.append(PlanProblem(act_index=None, field=where, message=message))
            elif index in seen:
                message = f"act {index} is in two units"
                out.append(PlanProblem(act_index=None, field=where, message=message))
            seen.add(index)


#: More acts (or unreadable spans, or units) than any one turn holds: refused before any
#: per-act check, so an answer cannot make reading it cost more than a turn is worth.
MAX_ACTS = 256


def _oversized(data: Any) -> PlanProblem | None:
    if not isinstance(data, dict):
        return None
    lists = [(field, data.get(field)) for field in ("acts", "not_understood", "units")]
    if isinstance(data.get("units"), list):  # a unit names acts: no more than a plan holds
        lists += [
            (f"units[{n}].acts", unit.get("acts"))
            for n, unit in enumerate(data["units"][: MAX_ACTS + 1])
            if isinstance(unit, dict)
        ]
    for field, items in lists:
        if isinstance(items, list) and len(items) > MAX_ACTS:
            message = f"{len(items)} items; a turn's plan holds at most {MAX_ACTS}"
            return PlanProblem(act_index=None, field=field, message=message)
    return None


_NOT_TEXT = "contains a lone surrogate (a \\uD800-\\uDFFF escape without its pair): not text"


def _printable(path: Path) -> Path:
    return tuple(p if isinstance(p, int) else storable_text(p) for p in path)


def _decode(raw_json: str | bytes) -> Any:
    if isinstance(raw_json, bytes):
        try:
            raw_json = raw_json.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"the answer is not UTF-8: {exc.reason}") from None
    try:
        return json.loads(raw_json, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_nan)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the answer is not JSON: {exc.msg} at position {exc.pos}") from None
    except RecursionError:
        raise ValueError("the answer nests arrays or objects too deeply to be a plan") from None


def _certainly_text(raw_json: str | bytes) -> bool:
    """Whether every string the answer decodes to is certainly Unicode text, read off the
    answer itself: it holds no lone surrogate and no ``\\u`` escape (only such an escape
    writes one into a decoded string; bytes decode as strict UTF-8, which holds none). False
    says nothing: the decoded data are then searched (:func:`non_text_paths`)."""
    if isinstance(raw_json, bytes):
        return b"\\u" not in raw_json
    return "\\u" not in raw_json and is_unicode_text(raw_json)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the answer repeats the key {key!r} in one object")
        out[key] = value
    return out


def _no_nan(name: str) -> Any:
    raise ValueError(f"the answer contains {name}, which is not JSON")


def _located(problem: ShapeProblem) -> PlanProblem:
    path = problem.path
    if len(path) >= 2 and path[0] == "acts" and isinstance(path[1], int):
        return PlanProblem(act_index=path[1], field=_render(path[2:]), message=problem.message)
    return PlanProblem(act_index=None, field=_render(path), message=problem.message)


def _render(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def check_plan(plan: UserTurnPlan, turn: UserTurn) -> None:
    """Check a plan built in code (not parsed) against the same link and evidence rules."""
    kinds = [act.kind for act in plan.acts]
    problems: list[PlanProblem] = []
    for index, act in enumerate(plan.acts):
        _act_problems(act, index, kinds, turn.text, problems)
    for i, ev in enumerate(plan.not_understood):
        _check_span(ev, turn.text, None, f"not_understood[{i}]", problems)
    _check_units(plan, problems)
    if problems:
        raise PlanRejected(problems)


def _semantic_problems(
    raw_acts: list[Any], shape_problems: list[PlanProblem], text: str
) -> list[PlanProblem]:
    """Links and evidence, checked on every act whose shape is sound."""
    unsound = {p.act_index for p in shape_problems}
    kinds = [a.get("kind") if isinstance(a, dict) else None for a in raw_acts]
    out: list[PlanProblem] = []
    for index, raw in enumerate(raw_acts):
        if index not in unsound:
            _act_problems(structure(raw, Act), index, kinds, text, out)  # type: ignore[arg-type]
    return out


def _act_problems(
    act: Act, index: int, kinds: list[Any], text: str, out: list[PlanProblem]
) -> None:
    if not act.evidence:
        out.append(PlanProblem(act_index=index, field="evidence", message="no evidence cited"))
    for i, ev in enumerate(act.evidence):
        _check_span(ev, text, index, f"evidence[{i}]", out)
    _check_links(act, index, kinds, out)
    _check_names(act, index, out)


def _check_span(
    ev: Evidence, text: str, act_index: int | None, field: str, out: list[PlanProblem]
) -> None:
    if not 0 <= ev.start < ev.end <= len(text):
        message = f"span [{ev.start}, {ev.end}) is not inside the turn's text of {len(text)} chars"
        out.append(PlanProblem(act_index=act_index, field=field, message=message))
    elif text[ev.start : ev.end] != ev.text:
        message = f"span [{ev.start}, {ev.end}) reads {text[ev.start : ev.end]!r}, not {ev.text!r}"
        out.append(PlanProblem(act_index=act_index, field=field, message=message))


def _check_links(act: Act, index: int, kinds: list[Any], out: list[PlanProblem]) -> None:
    if isinstance(act, CorrectAct):
        _check_link(index, act.corrects, "corrects", CORRECTABLE_KINDS, kinds, out)
    elif isinstance(act, OperationAct) and act.repeats is not None:
        _check_link(index, act.repeats, "repeats", REPEATABLE_KINDS, kinds, out)
    elif isinstance(act, CancelAct):
        _check_link(index, act.cancels, "cancels", CANCELLABLE_KINDS, kinds, out)
    target = target_of(act)
    if isinstance(target, NewCaseTarget):
        start = target.start_act
        if not 0 <= start < len(kinds):
            message = f"names act {start}, but the plan has {len(kinds)} acts"
            out.append(PlanProblem(act_index=index, field="target.start_act", message=message))
        elif kinds[start] != "start_case":
            message = f"names act {start}, a {kinds[start]!r} act, not a 'start_case' act"
            out.append(PlanProblem(act_index=index, field="target.start_act", message=message))


def _check_link(
    index: int,
    linked: int,
    field: str,
    allowed: frozenset[str],
    kinds: list[Any],
    out: list[PlanProblem],
) -> None:
    if not 0 <= linked < len(kinds):
        message = f"names act {linked}, but the plan has {len(kinds)} acts"
    elif linked >= index:
        message = f"names act {linked}; a {field} link must name an earlier act"
    elif kinds[linked] in ACT_KINDS and kinds[linked] not in allowed:
        message = f"names act {linked}, a {kinds[linked]!r} act; allowed: {sorted(allowed)}"
    else:
        return
    out.append(PlanProblem(act_index=index, field=field, message=message))


def _check_names(act: Act, index: int, out: list[PlanProblem]) -> None:
    names = {
        "field": getattr(act, "field", None),
        "operation": getattr(act, "operation", None),
        "workflow": getattr(act, "workflow", None),
        "about": getattr(act, "about", None),
    }
    for field, name in names.items():
        if name == "":
            out.append(PlanProblem(act_index=index, field=field, message="must not be empty"))
    if isinstance(act, ConstraintAct):
        if act.forbids is ConstraintKind.NO_OPERATION and not act.operation:
            message = "a no_operation constraint must name the operation"
            out.append(PlanProblem(act_index=index, field="operation", message=message))
        elif act.forbids is not ConstraintKind.NO_OPERATION and act.operation is not None:
            message = f"only a no_operation constraint names an operation, not {act.forbids}"
            out.append(PlanProblem(act_index=index, field="operation", message=message))
    if isinstance(act, OperationAct) and "" in act.args:
        out.append(PlanProblem(act_index=index, field="args", message="an empty argument name"))
