"""Requests said without their verb: a value with a verdict, and agreement.

"50 euros would be fair", "I'd be happy with 30 back", "the 20th would be great", "900 would be
a good limit": the user names a value and says it would do, but no operation or change. Read
as a reply to the previous turn's change, it completes that change (the reader decides); with
nothing before it, the change it implies waits for a card that shows it exactly (the card is
the question; nothing runs without a click):

- a field the words name ("… a good limit") with that value;
- otherwise the one operation argument (or typed field) the value parses as; several
  candidates, or none, and nothing is read.

"that works for me", "go ahead", "can we do that" after an operation that waits for a card
agree with it: the reader shows its card again (a click confirms; words never do).
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from turnframe.providers.rules.shapes import ICASE, TRIM
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.workflow import ParseContext

Span = tuple[int, int]

_LEAD = (
    r"(?:(?:honestly|frankly|personally|well|so|ok(?:ay)?|hmm+|i\s+think|i\s+guess|i\s+feel"
    r"(?:\s+like)?|i\s+believe|to\s+be\s+honest|tbh|imo|in\s+my\s+opinion)[\s,]+)*"
)
_GOOD = (
    r"(?:fair|fine|great|good|ok(?:ay)?|perfect|enough|acceptable|reasonable|better|ideal|best"
    r"|nice|lovely|brilliant|right|about\s+right|more\s+than\s+fair|doable|workable"
    r"|(?:a|the)\s+(?:fair|good|reasonable|better|right|great|nice)(?:\s+[\w-]+){0,2})"
)
_FOR_ME = r"(?:\s+(?:for|to|with|by)\s+(?:me|us))?(?:\s+i\s+think)?"
#: The shapes of a value with a verdict; group ``v`` is the value's words.
_IMPLIED = tuple(
    re.compile(_LEAD + shape, ICASE)
    for shape in (
        rf"(?P<v>.+?)\s+(?:would|will|should|could|might|'d|\u2019d)\s+(?:(?:really|surely|probably"
        rf"|definitely)\s+)?(?:be|seem|sound)\s+{_GOOD}{_FOR_ME}",
        rf"(?P<v>.+?)\s+(?:would|will|should|could|might)\s+(?:do|work|suit\s+(?:me|us)){_FOR_ME}",
        rf"(?P<v>.+?)\s+(?:works|suits\s+(?:me|us)|is\s+{_GOOD}|sounds\s+{_GOOD}|seems\s+{_GOOD})"
        rf"{_FOR_ME}",
        r"i(?:['\u2019]d|\s+would|['\u2019]ll|\s+will|['\u2019]m|\s+am)\s+(?:be\s+)?(?:really\s+|quite\s+)?"
        r"(?:happy|ok(?:ay)?|fine|satisfied|content|glad|good)\s+(?:with|to\s+(?:get|take|accept"
        r"|receive|have))\s+(?P<v>.+)",
        r"i(?:['\u2019]d|\s+would|['\u2019]ll|\s+will|\s+can|\s+could)\s+(?:settle\s+for|accept"
        r"|take|go\s+(?:for|with)|live\s+with|be\s+ok(?:ay)?\s+with)\s+(?P<v>.+)",
        r"(?:can|could|shall)\s+we\s+(?:do|say|go\s+with|settle\s+(?:on|for)|agree\s+on)\s+(?P<v>.+)",
    )
)
#: Words around the value that say nothing more: "back", "in total", "please".
_AROUND = re.compile(
    r"(?:\s+(?:back|in\s+total|total|please|then|instead|max|maximum|at\s+least|at\s+most"
    r"|as\s+(?:compensation|a\s+(?:goodwill\s+)?gesture(?:\s+of\s+goodwill)?|goodwill)))+$",
    ICASE,
)
#: Agreement with what was proposed: "that works for me", "go ahead", "can we do that".
AGREED = re.compile(
    r"(?:(?:yes|yeah|yep|sure|ok(?:ay)?|alright|right|fine|great|perfect)[\s,!.]+)*"
    r"(?:(?:that|this|it)(?:['\u2019]s|\s+is|\s+would\s+be|['\u2019]d\s+be)\s+(?:fine|ok(?:ay)?"
    r"|good|great|perfect|fair|acceptable)(?:\s+(?:with|for|by)\s+(?:me|us))?"
    r"|(?:that|this|it)\s+(?:works|suits\s+(?:me|us))(?:\s+(?:for|with)\s+(?:me|us))?"
    r"|works\s+for\s+(?:me|us)|fine\s+by\s+(?:me|us)|(?:please\s+)?go\s+ahead(?:\s+with\s+(?:it|that))?"
    r"|(?:please\s+)?(?:do|proceed\s+with)\s+(?:it|that)|please\s+do|please\s+proceed|proceed"
    r"|let['\u2019]?s\s+(?:do|go\s+with)\s+(?:it|that)|(?:can|could)\s+(?:we|you)\s+(?:do|go"
    r"\s+ahead\s+with)\s+(?:it|that)|deal|agreed|i\s+agree|i\s+accept(?:\s+(?:it|that))?"
    r"|i['\u2019]?m\s+(?:happy|ok(?:ay)?|fine)\s+with\s+(?:it|that)|i(?:['\u2019]d|\s+would)\s+be"
    r"\s+happy\s+with\s+(?:it|that)|sounds\s+(?:good|fair|great|fine)(?:\s+to\s+me)?)"
    r"(?:[\s,!.]+(?:please|thanks|thank\s+you|then))*[\s,!.?]*",
    ICASE,
)


@attrs.frozen(kw_only=True)
class Implied:
    """A value said with a verdict: ``value_span`` is where its words stand."""

    value: str
    value_span: Span


def implied_value(
    text: str, s: int, e: int, outside: list[Span], nouns: str
) -> Implied | None:
    """The value of "V would be fair", "I'd be happy with V back", "can we do V": its words
    without what stands around them; ``outside`` are spans (a record's name) that are not
    part of it, with the record nouns (``nouns``) said before them."""
    for shape in _IMPLIED:
        m = shape.fullmatch(text, s, e)
        if m is None:
            continue
        v_start, v_end = m.span("v")
        for o_start, _ in outside:  # "… for order 1001", ", order 1001": not the value
            if v_start < o_start < v_end:
                v_end = o_start
        said = text[v_start:v_end]
        said = re.sub(
            rf"[\s,]+(?:(?:for|on|of|in|to|with)\s+)?(?:(?:the|my|our)\s+)?(?:(?:{nouns})s?"
            r"(?:\s+(?:no\.?|number))?)?\s*#?\s*$",
            "",
            said,
            flags=ICASE,
        ) if v_end < m.end("v") else said
        said = _AROUND.sub("", said).strip(TRIM)
        if not said or len(said.split()) > 6:
            return None
        start = text.find(said, v_start)
        return Implied(value=said, value_span=(start, start + len(said)))
    return None


def field_named(words: str, vocab: Vocabulary) -> str | None:
    """The one field the verdict's words name ("… a good limit"), if one is."""
    named = re.finditer(rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", words, ICASE)
    found = {vocab.field_named(m.group(0)) for m in named}
    return found.pop() if len(found) == 1 else None


def field_value(value: str, vocab: Vocabulary) -> tuple[str, str] | None:
    """ "a limit of 1500", "the note 'VIP'": a field named with its value inside the words
    taken for the value: (field, value)."""
    m = re.fullmatch(
        rf"(?:(?:a|an|the|my|our)\s+)?(?:new\s+)?(?P<f>{vocab.field_pattern})\s+"
        r"(?:of|at|around|to|=|:)?\s*(?P<v>\S.*)",
        value,
        ICASE,
    )
    return None if m is None else (vocab.field_named(m.group("f")), m.group("v"))


def _owner(nouns: str) -> str:
    """What may stand before a record's name: "for", "on the", the record noun, "no.", "#"."""
    return (
        r"(?:(?:for|on|of|re|regarding|about)\s+)?(?:(?:the|my|our)\s+)?"
        rf"(?:(?:{nouns})s?\s+)?(?:(?:no\.?|nr\.?|number)\s*)?#?"
    )


def without_record(text: str, span: Span, mentions: list[Span], nouns: str) -> Span:
    """``span`` without a record named at its start ("for 1002, …") or at its end ("…, order
    1001"): the words of the implied request are what is left."""
    s, e = span
    if not mentions:
        return span
    first, last = mentions[0], mentions[-1]
    if first[1] < e and re.fullmatch(rf"{_owner(nouns)}\s*", text[s : first[0]], ICASE):
        s = first[1]
        while s < e and text[s] in TRIM:
            s += 1
        return s, e
    if not text[last[1] : e].strip(TRIM):
        lead = re.search(rf"[\s,;:\u2013\u2014-]*{_owner(nouns)}$", text[s : last[0]], ICASE)
        e = s + (lead.start() if lead is not None else last[0] - s)
    return s, e


def candidates(value: str, vocab: Vocabulary, ctx: ParseContext) -> list[tuple[str, str | None]]:
    """Where a typed value could go: ``(operation, argument)`` for each operation argument
    that parses it and ``(field, None)`` for each typed field; free text takes anything, so
    it is never a candidate."""
    out: list[tuple[str, str | None]] = []
    for op in vocab.workflow.operations:
        for argument in op.arguments:
            if argument.type is str and not argument.choices:
                continue
            if _parses(argument.parse, value, ctx):
                out.append((op.name, argument.name))
    for field in vocab.workflow.fields:
        if field.type is not str and _parses(field.parse, value, ctx):
            out.append((field.name, None))
    return out


def _parses(parse: Any, value: str, ctx: ParseContext) -> bool:
    try:
        parse(value, ctx)
    except (ValueError, TypeError):
        return False
    return True
