"""The workflow's free-text values (a note, an item's name): what the user wrote there is kept
as written. The reading may correct a typo or drop quotation marks to understand the request;
the value committed is the user's own words, without the quotation marks around them."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import attrs

from turnframe.plan import Act, Evidence, OperationAct, SetFieldAct, UserTurnPlan
from turnframe.workflow import Workflow

FreeText = tuple[frozenset[str], dict[str, frozenset[str]]]


@functools.cache
def free_text(workflow: Workflow[object]) -> FreeText:
    """The workflow's text fields, and per operation its text arguments without choices."""
    fields = frozenset(f.name for f in workflow.fields if f.type is str)
    args = {
        op.name: frozenset(a.name for a in op.arguments if a.type is str and not a.choices)
        for op in workflow.operations
    }
    return fields, args


def map_free_text(
    plan: UserTurnPlan, free: FreeText, change: Callable[[str, tuple[Evidence, ...]], str]
) -> UserTurnPlan:
    """The plan with ``change(value, evidence)`` applied to every free-text value."""
    fields, args = free
    acts: list[Act] = []
    for act in plan.acts:
        if isinstance(act, SetFieldAct) and act.field in fields:
            act = attrs.evolve(act, value=change(act.value, act.evidence))
        elif isinstance(act, OperationAct) and args.get(act.operation):
            names = args[act.operation]
            changed = {
                k: change(v, act.evidence) if k in names else v for k, v in act.args.items()
            }
            act = attrs.evolve(act, args=changed)
        acts.append(act)
    return attrs.evolve(plan, acts=tuple(acts))


#: Quotation marks of every style that may wrap a value: straight, curly, guillemets, low-9.
_WRAPPED = re.compile(
    r"\s*(?:\"(?P<a>.+)\"|'(?P<b>.+)'|\u201c(?P<c>.+)\u201d|\u2018(?P<d>.+)\u2019"
    r"|\u00ab(?P<e>.+)\u00bb|\u00bb(?P<f>.+)\u00ab|\u201e(?P<g>.+)[\u201c\u201d]"
    r"|\u201a(?P<h>.+)[\u2018\u2019])\s*",
    re.DOTALL,
)


def unwrapped(value: str, evidence: tuple[Evidence, ...] = ()) -> str:
    """The value without the quotation marks around it ('« late check-out »')."""
    m = _WRAPPED.fullmatch(value)
    if m is not None:
        inner = next(g for g in m.groups() if g is not None).strip()
        return inner or value
    # An opening mark whose closing one the reading already trimmed off ("„late check-out").
    words = value.strip()
    if len(words) > 1 and words[0] in _OPENING and not any(c in _MARKS for c in words[1:]):
        return words[1:].strip()
    return value


_OPENING = "\"\u201c\u2018\u00ab\u00bb\u201e\u201a"
_MARKS = _OPENING + "\u201d\u2019"
