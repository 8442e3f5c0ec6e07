"""Take-backs: a later clause of the same message takes back an earlier act by what it names.

=====================================================  ========================================
"X to Y. Actually, leave the X as it is."              the earlier act whose words name X is
                                                       taken back (``cancel``); the rest stays
"forget the X part", "skip the X bit", "never mind     the same
the X"
"don't do the X after all"                             the same
"A and B, actually don't B, just the A"                every other change of the turn is
                                                       taken back; A stays
=====================================================  ========================================

What the clause names (``X``) is matched against the earlier acts' own evidence (the words the
user said for them), or their field or operation: nothing is guessed from the clause alone. A
clause that names no earlier act is not a take-back (it is read as anything else would be).
"""

from __future__ import annotations

import re

from turnframe.plan import CorrectAct, OperationAct, SetFieldAct
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.shapes import DONT, ICASE
from turnframe.providers.rules.vocabulary import Vocabulary

_STAY = (
    r"(?:as\s+it\s+is|as\s+is|alone|unchanged|the\s+same|as\s+it\s+was|untouched"
    r"|where\s+it\s+is|how\s+it\s+is|like\s+it\s+is)"
)
_PART = r"(?:\s+(?:part|bit|thing|one|change|request))?"
_AFTER_ALL = r"(?:\s*,?\s*(?:after\s+all|then|for\s+now|please|thanks))*"
_TAKEN_BACK = (
    re.compile(rf"(?:leave|keep)\s+(?P<x>.+?)\s+{_STAY}{_AFTER_ALL}", ICASE),
    re.compile(
        rf"(?:forget|skip|drop|scrap|scratch|ignore|never\s*mind|no\s+need\s+for)"
        rf"(?:\s+about)?\s+(?P<x>.+?){_PART}{_AFTER_ALL}",
        ICASE,
    ),
    re.compile(rf"{DONT}\s+(?:do|bother\s+with)\s+(?P<x>.+?){_PART}\s+after\s+all", ICASE),
)
_ONLY = re.compile(rf"(?P<x>.+?){_AFTER_ALL}", ICASE)
_ONLY_BEFORE = re.compile(r"(?<!\w)(?:just|only)\s*$", ICASE)
#: The most words a take-back names its thing with ("the second one on the list").
_MAX_NAMED = 5
_SMALL = re.compile(r"^(?:the|my|our|this|that|its|their|your|a|an)\s+", ICASE)
_PRONOUN = frozenset({"it", "that", "this", "them", "everything", "all", "one", "that one"})


def taken_back(
    text: str, s: int, e: int, plan: PlanBuilder, vocab: Vocabulary
) -> tuple[int, ...]:
    """The roots of the earlier acts a take-back clause (see the module) takes back, or ()."""
    for form in _TAKEN_BACK:
        m = form.fullmatch(text, s, e)
        if m is None:
            continue
        index = _named(m.group("x"), plan, vocab)
        return () if index is None else (index,)
    m = _only(text, s, e)
    if m is None:
        return ()
    kept = _named(m.group("x"), plan, vocab)
    if kept is None:
        return ()
    gone = plan.cancelled()
    others = {
        plan.root(i)
        for i, act in enumerate(plan.acts)
        if isinstance(act, SetFieldAct | CorrectAct | OperationAct) and plan.root(i) != kept
    }
    return tuple(sorted(others - gone))


def _named(words: str, plan: PlanBuilder, vocab: Vocabulary) -> int | None:
    """The root of the latest change of the turn that ``words`` name, if any."""
    said = _SMALL.sub("", words.strip()).strip()
    if not said or said.casefold() in _PRONOUN or len(said.split()) > _MAX_NAMED:
        return None
    spaced = r"\s+".join(map(re.escape, said.split()))
    phrase = re.compile(rf"(?<!\w){spaced}(?!\w)", ICASE)
    field = re.fullmatch(vocab.field_pattern, said, ICASE)
    operation = re.fullmatch(vocab.operation_pattern, said, ICASE)
    field_name = vocab.field_named(field.group(0)) if field else None
    operation_name = vocab.operation_named(operation.group(0)) if operation else None

    def names(_: int, act: object, __: object) -> bool:
        if isinstance(act, SetFieldAct) and act.field == field_name:
            return True
        if isinstance(act, OperationAct) and act.operation == operation_name:
            return True
        if not isinstance(act, SetFieldAct | CorrectAct | OperationAct):
            return False
        return any(phrase.search(ev.text) for ev in act.evidence)

    index = plan.latest(names)
    return None if index is None else plan.root(index)


def only_restated(text: str, s: int, e: int, plan: PlanBuilder, vocab: Vocabulary) -> bool:
    """Whether the clause is "just the A" for a change of the turn that still stands."""
    m = _only(text, s, e)
    return m is not None and _named(m.group("x"), plan, vocab) is not None


def _only(text: str, s: int, e: int) -> re.Match[str] | None:
    """ "just the A", "only A": the A (a filler trim may have left "just" before ``s``)."""
    lead = re.match(r"(?:just|only)\s+", text[s:e], ICASE)
    if lead is not None:
        s += lead.end()
    elif _ONLY_BEFORE.search(text, max(0, s - 6), s) is None:
        return None
    return _ONLY.fullmatch(text, s, e)


def left_as_is(text: str, s: int, e: int) -> bool:
    """Whether the clause only says something stays as it is ("keep the other one as it is"):
    what a turn does not ask for stays anyway, so it asks for nothing."""
    m = _TAKEN_BACK[0].fullmatch(text, s, e)
    return m is not None and 0 < len(_SMALL.sub("", m.group("x").strip()).split()) <= _MAX_NAMED
