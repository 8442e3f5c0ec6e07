"""Intent rules: which kind of knowledge question a text asks, and about what.

Rules are ordered, case-insensitive and anchored at the start of the text; the first match wins.
NARRATIVE comes before DEFINITION so "what do you know about X" is a narrative, not a definition;
likewise "what is an example of X" is an EXAMPLE because that more specific rule sits before
"what is".
VERIFICATION (a yes/no question opened by an auxiliary) refuses "do you remember …" so that
falls through to RECALL. Text no rule matches is ``other``.

The subject is the rest of the text, normalised: case-folded, whitespace collapsed, trailing
punctuation and leading articles removed; after "why", a leading auxiliary too ("why does light
reveal truth" → "light reveal truth"). Clause subjects (CAUSE, VERIFICATION) are resolved to a
lexicon entry later, by the longest known leading words.
"""

from __future__ import annotations

import enum
import re

import attrs


class IntentTag(enum.Enum):
    NARRATIVE = "narrative"
    DEFINITION = "definition"
    EXAMPLE = "example"
    CAUSE = "cause"
    VERIFICATION = "verification"
    RECALL = "recall"
    OTHER = "other"


#: Intents whose subject is a clause ("light reveal truth"), resolved by its leading words.
CLAUSE_INTENTS = frozenset({IntentTag.CAUSE, IntentTag.VERIFICATION})

_AUXILIARIES = (
    "is|are|was|were|am|do|does|did|can|could|will|would|should|shall|may|might|must|has|have|had"
)
_ARTICLES = re.compile(r"^(?:(?:a|an|the)\s+)+", re.IGNORECASE)
_LEADING_AUXILIARY = re.compile(rf"^(?:{_AUXILIARIES})\s+", re.IGNORECASE)
_QUOTES = "\"'\u201c\u201d\u2018\u2019"
_TRAILING = re.compile(rf"[\s?.!,;:{_QUOTES}]+$")
_LEADING = re.compile(rf"^[\s{_QUOTES}]+")


@attrs.frozen(kw_only=True)
class IntentRule:
    intent: IntentTag
    pattern: re.Pattern[str]

    @classmethod
    def of(cls, intent: IntentTag, pattern: str) -> IntentRule:
        return cls(intent=intent, pattern=re.compile(pattern, re.IGNORECASE))


@attrs.frozen(kw_only=True)
class ClassifiedQuestion:
    intent: IntentTag
    subject: str


#: The rules in the order they are tried.
INTENT_RULES: tuple[IntentRule, ...] = (
    IntentRule.of(IntentTag.NARRATIVE, r"tell\s+me\s+about\b"),
    IntentRule.of(IntentTag.NARRATIVE, r"describe\b"),
    IntentRule.of(IntentTag.NARRATIVE, r"what\s+(?:can|do)\s+you\s+(?:say|know)\s+about\b"),
    IntentRule.of(
        IntentTag.EXAMPLE, r"what\s+(?:is|are)\s+(?:an?\s+|some\s+)?(?:examples?|instances?)\s+of\b"
    ),
    IntentRule.of(IntentTag.DEFINITION, r"what\s+(?:is|are)\b"),
    IntentRule.of(IntentTag.DEFINITION, r"define\b"),
    IntentRule.of(IntentTag.DEFINITION, r"explain\b"),
    IntentRule.of(
        IntentTag.EXAMPLE, r"(?:give|show)\s+(?:me\s+)?an?\s+(?:example|instance)\s+of\b"
    ),
    IntentRule.of(IntentTag.EXAMPLE, r"example\s+of\b"),
    IntentRule.of(IntentTag.CAUSE, r"why\b"),
    IntentRule.of(
        IntentTag.VERIFICATION,
        r"(?!(?:do|did|can|could|would|will)\s+you\s+(?:still\s+)?(?:remember|recall)\b)"
        rf"(?:{_AUXILIARIES})\b",
    ),
    IntentRule.of(
        IntentTag.RECALL,
        r"(?:(?:do|did|can|could|would|will)\s+you\s+)?(?:still\s+)?(?:remember|recall)\b",
    ),
)


def classify_question(
    text: str, rules: tuple[IntentRule, ...] = INTENT_RULES
) -> ClassifiedQuestion:
    """The first rule matching the start of ``text`` gives the intent; the rest is the subject."""
    stripped = _LEADING.sub("", text)
    for rule in rules:
        match = rule.pattern.match(stripped)
        if match is not None:
            rest = stripped[match.end() :]
            return ClassifiedQuestion(
                intent=rule.intent,
                subject=normalise_subject(rest, after_why=rule.intent is IntentTag.CAUSE),
            )
    return ClassifiedQuestion(intent=IntentTag.OTHER, subject="")


def normalise_subject(text: str, *, after_why: bool = False) -> str:
    """Case-fold, collapse whitespace, drop trailing punctuation and leading articles."""
    subject = " ".join(_TRAILING.sub("", _LEADING.sub("", text)).casefold().split())
    if after_why:
        subject = _LEADING_AUXILIARY.sub("", subject)
    return _ARTICLES.sub("", subject)
