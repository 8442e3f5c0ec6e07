"""A request taken back in the next turn: "pay 20 on 4711" (a card waits), then "forget it",
"never mind", "actually don't", "cancel that", or "don't do the payment".

A turn that says nothing but that, after a turn with a request, is a constraint: "no changes"
(or "not that operation" when it names one the previous turn asked for). The reducer closes the
card that waits for the request it forbids (ADR 0024), so a later click on the old card answers
stale and what the user took back is never confirmed by it. Bare "no" is not read this way: it
may answer a question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from turnframe.plan import (
    Act,
    ConstraintAct,
    ConstraintKind,
    Evidence,
    OperationAct,
    SetFieldAct,
    UserTurnPlan,
)
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary

_LEAD = r"(?:(?:no|nope|oh|ok(?:ay)?|actually|wait|sorry|hmm+|on\s+second\s+thought|ugh)[\s,.!]+)*"
_TAIL = r"(?:[\s,]+(?:then|after\s+all|please|thanks|for\s+now|sorry))*[\s.!]*"
_ALL = re.compile(
    _LEAD
    + r"(?:forget\s+(?:it|that|about\s+(?:it|that))|never\s*mind(?:\s+(?:that|it))?"
    r"|cancel\s+(?:it|that|this)|scrap\s+(?:it|that)|scratch\s+that|drop\s+it|leave\s+it"
    r"|don['\u2019]?t(?:\s+(?:do\s+(?:it|that)|bother))?|do\s+not(?:\s+do\s+(?:it|that))?"
    r"|i\s+changed\s+my\s+mind|changed\s+my\s+mind|not\s+anymore|no\s+longer\s+needed)"
    + _TAIL,
    ICASE,
)
_NAMED = re.compile(
    _LEAD
    + r"(?:forget|cancel|scrap|drop|skip|never\s*mind|don['\u2019]?t\s+do|do\s+not\s+do"
    r"|no\s+need\s+for)\s+(?:about\s+)?(?:the|that|this|my)?\s*(?P<op>[\w\s-]{2,40}?)" + _TAIL,
    ICASE,
)


def taken_back(
    plan: UserTurnPlan, text: str, vocab: Vocabulary, previous: Sequence[Act]
) -> UserTurnPlan:
    """``plan``, or a constraint when the whole turn takes back the previous turn's request."""
    asked = [a for a in previous if isinstance(a, OperationAct | SetFieldAct)]
    if not asked or any(not _made_up(a, vocab) for a in plan.acts):
        return plan
    start = len(text) - len(text.lstrip())
    evidence = (Evidence(start=start, end=len(text.rstrip()), text=text.strip()),)
    if not evidence[0].text:
        return plan
    if _ALL.fullmatch(text.strip()):
        act = ConstraintAct(forbids=ConstraintKind.NO_CHANGES, evidence=evidence)
        return UserTurnPlan(acts=(act,), not_understood=())
    m = _NAMED.fullmatch(text.strip())
    if m is None:
        return plan
    said = m.group("op").strip()
    ops = {a.operation for a in asked if isinstance(a, OperationAct)}
    named = _operation_named(said, vocab)
    if named is None or named not in ops:
        return plan
    act = ConstraintAct(forbids=ConstraintKind.NO_OPERATION, operation=named, evidence=evidence)
    return UserTurnPlan(acts=(act,), not_understood=())


def _made_up(act: Act, vocab: Vocabulary) -> bool:
    """An act the reversal check made of the words ("cancel payment"): no workflow's own."""
    return isinstance(act, OperationAct) and vocab.workflow.operation(act.operation) is None


def _operation_named(said: str, vocab: Vocabulary) -> str | None:
    m = vocab.operation_regex.fullmatch(said)
    if m is None:
        return None
    try:
        return vocab.operation_named(m.group(0))
    except KeyError:
        return None
