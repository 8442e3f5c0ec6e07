"""Reversed requests: a word that turns an operation around never runs the operation.

"unsubmit the form", "un-submit it", "undo the payment", "take back the submission": the
workflow's operation word is there, but the request is its opposite, which the workflow does not
declare. A reading that found the operation's word inside a longer word ("desubmit",
"remove" holding "move") or right after a word that reverses it ("undo", "reverse", "revert",
"roll back", "take back", "retract", "cancel") is not that operation: the act is replaced by an
operation named as the user said it, which no workflow declares, so the reducer rejects it
(``turnframe.act.unknown_operation``) and nothing runs and no card shows it.

The check runs on the plan after typo correction was mapped back, so it sees the user's own
words: a typo fixed into the operation's word ("unsubmit" is one edit pair from "submit") is
caught too. The words that reverse come from ordinary English; the operation words come from
the workflow. A reversing word that is itself one of the workflow's operation phrases (a workflow
whose closing is said "cancel") does not count, so the workflow's own vocabulary wins.
"""

from __future__ import annotations

import functools
import re

import attrs

from turnframe.plan import Act, OperationAct, UserTurnPlan
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary, phrase_key

#: Words in front of an operation's word that ask for its opposite, or for something else
#: in its place ("a voucher instead of a payment").
_REVERSING = (
    "undo",
    "un-do",
    "reverse",
    "revert",
    "roll back",
    "rollback",
    "take back",
    "retract",
    "rescind",
    "annul",
    "cancel",
    "call off",
    "back out of",
    "get out of",
    "unwind",
    "forget",
    "forget about",
    "never mind",
    "nevermind",
    "skip",
    "drop",
    "scrap",
    "no need for",
    "no need to",
    "no more",
    "changed my mind about",
    "change of mind about",
    "changed our minds about",
    "instead of",
    "rather than",
    "in place of",
    "other than",
)
#: Determiners and small words allowed between the reversing word and the operation's word.
_BETWEEN = r"(?:\s+(?:the|my|our|this|that|a|an|its|his|her|their|last|recent|previous|whole))*\s+"
#: How far back a hyphen-joined prefix may stand ("un-", "de-", "re-").
_PREFIX_REACH = 12


def reverse_checked(plan: UserTurnPlan, text: str, vocab: Vocabulary) -> UserTurnPlan:
    """``plan`` with every operation whose request is reversed (see the module) replaced by
    an operation named as the user said it, which the reducer rejects as unknown."""
    acts: list[Act] = list(plan.acts)
    changed = False
    for index, act in enumerate(acts):
        if not isinstance(act, OperationAct) or not act.evidence:
            continue
        said = reversed_word(text, act, vocab)
        if said is None:
            said = other_form(text, act)
        if said is not None:
            acts[index] = attrs.evolve(act, operation=said, args={}, confirm=False)
            changed = True
    return attrs.evolve(plan, acts=tuple(acts)) if changed else plan


#: "… in loyalty points instead of money", "… as store credit rather than cash": the request is
#: for the operation in a form put in place of the ordinary one (money, cash, a payment), which
#: no workflow declares. A value said after "instead of" ("20 instead of 30") is a correction.
_OTHER_FORM = re.compile(
    r"(?<!\w)(?:instead\s+of|rather\s+than|in\s+place\s+of|and\s+not)\s+(?:(?:the|a|an|my|real)\s+)?"
    r"(?:money|cash|a\s+payment|payment|bank\s+transfer|transfer|card)(?!\w)",
    ICASE,
)


def other_form(text: str, act: OperationAct) -> str | None:
    """The words asking for ``act`` in another form than the ordinary one, or None."""
    for ev in act.evidence:
        m = _OTHER_FORM.search(text, ev.start, ev.end)
        if m is not None:
            return m.group(0)
    return None


def reversed_word(text: str, act: OperationAct, vocab: Vocabulary) -> str | None:
    """The words that reverse ``act`` ("unsubmit", "undo the payment"), or None when the
    operation's word stands on its own, as itself, somewhere in the act's evidence."""
    start = max(0, min(ev.start for ev in act.evidence) - _PREFIX_REACH)
    end = max(ev.end for ev in act.evidence)
    reversing = _reversing_pattern(vocab)
    found: str | None = None
    for m in vocab.operation_regex.finditer(text, start, end):
        if not m.group(0).strip() or vocab.operation_named(m.group(0)) != act.operation:
            continue
        word = _word_around(text, m.start(), m.end())
        if word is not None:
            found = found or word  # "desubmit", "un-submit", "remove" around "move"
            continue
        before = reversing.search(text, max(0, m.start() - 40), m.start())
        if before is not None:
            found = found or f"{before.group('verb')} {m.group(0)}".strip()
            continue
        if _inside_evidence(act, m.start(), m.end()):
            return None  # the operation said as itself: the reading stands
    return found


def _word_around(text: str, start: int, end: int) -> str | None:
    """The whole word the operation's word sits in, when it is a longer word: letters (or a
    hyphen-joined prefix) right before it."""
    s = start
    while s > 0 and (text[s - 1].isalpha() or _joined_by_hyphen(text, s - 1)):
        s -= 1
    if s == start:
        return None
    e = end
    while e < len(text) and text[e].isalpha():
        e += 1
    return text[s:e]


def _joined_by_hyphen(text: str, at: int) -> bool:
    return text[at] == "-" and at > 0 and text[at - 1].isalpha()


def _inside_evidence(act: OperationAct, start: int, end: int) -> bool:
    return any(ev.start <= start and end <= ev.end for ev in act.evidence)


def _reversing_pattern(vocab: Vocabulary) -> re.Pattern[str]:
    return _reversing_for(frozenset(vocab.operation_names))


@functools.cache
def _reversing_for(own: frozenset[str]) -> re.Pattern[str]:
    """The reversing words a workflow does not use as an operation's own phrase (``own``),
    right before the operation's word (a few small words may stand between)."""
    words = [w for w in _REVERSING if phrase_key(w) not in own]
    alternatives = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
    return re.compile(rf"(?<!\w)(?P<verb>{alternatives}){_BETWEEN}$", ICASE)
