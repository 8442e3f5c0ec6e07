"""Conditional clauses: "if the warranty is still valid, repair it; otherwise leave it".

The condition must name one of the workflow's declared conditions (every content word of its
name or of an alias is in the clause, the most specific wins); a negation in it ("is not",
"no longer", "isn't") asks for the condition not to hold. The action part is read like any
clause and each act it gives carries the condition; "otherwise …" right after carries its
negation. A condition the workflow does not declare is never dropped: the whole clause is left
not understood, so nothing runs unconditionally.
"""

from __future__ import annotations

import re

import attrs

from turnframe.plan import ActCondition
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary, tokens

IF_FIRST = re.compile(
    r"(?:only\s+)?(?:if|provided(?:\s+that)?|as\s+long\s+as|in\s+case|(?P<unless>unless))"
    r"\s+(?P<cond>[^,;]+?)"
    r"\s*(?:,\s*|\s+then\s+)(?:then\s+)?(?P<act>.+)",
    ICASE | re.DOTALL,
)
IF_AFTER = re.compile(
    r"(?P<act>.+?),?\s+(?:but\s+)?(?:only\s+)?"
    r"(?:if|provided(?:\s+that)?|as\s+long\s+as|(?P<unless>unless))"
    r"\s+(?P<cond>[^,;]+?)(?P<tail>[,;]?\s+(?:otherwise|else|or\s+else)\b.*)?",
    ICASE | re.DOTALL,
)
OTHERWISE = re.compile(r"(?:otherwise|else|if\s+not(?:\s+so)?|or\s+else)[\s,]+(?P<act>.+)", ICASE)
_NEGATED = re.compile(
    r"(?<!\w)(?:not|no\s+longer|isn['\u2019]?t|aren['\u2019]?t|wasn['\u2019]?t|doesn['\u2019]?t"
    r"|never)(?!\w)",
    ICASE,
)
_DASH = re.compile(r"\s+[-\u2013\u2014]+\s+|\s*[\u2013\u2014]\s*")
_NOTHING = re.compile(
    r"(?:leave\s+(?:it|that|everything)(?:\s+(?:as\s+it\s+is|alone|be))?|do\s+nothing"
    r"|don['\u2019]?t(?:\s+bother)?|nothing|skip\s+it|forget\s+it|keep\s+it\s+as\s+it\s+is)",
    ICASE,
)


@attrs.frozen(kw_only=True)
class ConditionReading:
    condition: ActCondition
    act_span: tuple[int, int]
    otherwise: tuple[int, int] | None = None  # "…, otherwise A" after "A if C"
    #: Words after a dash in the condition ("if it is signed — 40 euros"): not the
    #: condition's, left for the plan's ``not_understood`` (and the confidence check).
    unread: tuple[int, int] | None = None


def condition_named(words: str, vocab: Vocabulary) -> ActCondition | None:
    """The workflow's condition the words name, with the sense they give it."""
    said = tokens(words)
    for name, needed, phrase in vocab.conditions:
        if needed <= said:
            # "is no longer valid" names a phrase that is itself negative: no flip then.
            holds = (_NEGATED.search(words) is None) == (_NEGATED.search(phrase) is None)
            return ActCondition(name=name, holds=holds)
    return None


#: "if C A" with no comma: the request starts at the first verb after the condition.
_IF_BARE = re.compile(
    r"(?:only\s+)?(?:if|provided(?:\s+that)?|as\s+long\s+as|in\s+case|(?P<unless>unless))"
    r"\s+(?P<rest>\S.*)",
    ICASE | re.DOTALL,
)
_WORD = re.compile(r"(?<![\w'])\w")


def _without_comma(text: str, start: int, end: int, vocab: Vocabulary) -> ConditionReading | None:
    """ "if there is a permit on 4711 set the note to 'checked'": the first verb after which
    the words before it name a declared condition starts the request."""
    m = _IF_BARE.fullmatch(text, start, end)
    if m is None:
        return None
    cond_start = m.start("rest")
    stop = min((i for i in (text.find(",", cond_start, end), text.find(";", cond_start, end))
                if i >= 0), default=end)
    for word in _WORD.finditer(text, cond_start, stop):
        at = word.start()
        if at == cond_start or not vocab.starters.match(text, at, end):
            continue
        condition = condition_named(text[cond_start:at], vocab)
        if condition is not None:
            if m.group("unless"):
                condition = attrs.evolve(condition, holds=not condition.holds)
            return ConditionReading(condition=condition, act_span=(at, end))
    return None


def read_condition(text: str, start: int, end: int, vocab: Vocabulary) -> ConditionReading | None:
    """A clause "if C, A", "if C A" or "A if C": the condition, and where A stands."""
    bare = _without_comma(text, start, end, vocab)
    if bare is not None:
        return bare
    for pattern in (IF_FIRST, IF_AFTER):
        m = pattern.fullmatch(text, start, end)
        if m is None:
            continue
        cond_start, cond_end = m.span("cond")
        dash = _DASH.search(text, cond_start, cond_end)
        unread = None
        if dash is not None:
            unread, cond_end = (dash.end(), cond_end), dash.start()
        condition = condition_named(text[cond_start:cond_end], vocab)
        if condition is None:
            return None
        if m.group("unless"):  # "close it unless the warranty has expired": it must not hold
            condition = attrs.evolve(condition, holds=not condition.holds)
        tail = m.span("tail") if "tail" in m.groupdict() and m.group("tail") else None
        return ConditionReading(
            condition=condition, act_span=m.span("act"), otherwise=tail, unread=unread
        )
    return None


def does_nothing(text: str, start: int, end: int) -> bool:
    return _NOTHING.fullmatch(text, start, end) is not None
