"""Vague values: words that stand where a value should be without saying one.

"add some stuff for the kids", "pay back a fair amount", "set the note to something", "change
the limit to a reasonable amount": the words hold the place of a value and name none. They are
never a value: a typed argument or field is asked for, a free-text argument the act needs is
asked for, and a free-text value that is only a placeholder is never set. The words come from
ordinary English, never from a workflow.
"""

from __future__ import annotations

import re

from turnframe.providers.rules.shapes import ICASE

_LEAD = (
    r"(?:(?:me|us|him|her|them|a|an|the|some|any|few|couple|little|bit|lot|lots|of|more|other"
    r"|kind|sort|type)\s+)*"
)
#: Words that only hold a value's place.
_PLACEHOLDER = (
    r"(?:stuff|things?|something|somethin|anything|whatever|whatsoever|sth|smth"
    r"|bits(?:\s+and\s+(?:bobs|pieces))?|odds\s+and\s+ends|items?|whatnot|someone|somebody"
    r"|anyone|anybody|whoever|whomever|whichever|one\s+of\s+(?:us|them)|usual|same"
    r"|same\s+as\s+(?:usual|before|last\s+time)|like\s+(?:before|last\s+time))"
)
#: Words after a placeholder that keep it one: "stuff for the kids", "something nice".
_TRAILING = (
    r"(?:for|to|of|about|like|nice|else|new|more|small|reasonable|fair|good|decent|better"
    r"|nicer|different|shorter|longer|similar|catchier|cool|fun|special|suitable)"
)
#: Amounts said by a judgement instead of a number: "a fair amount", "a reasonable sum".
_JUDGED_AMOUNT = (
    r"(?:a|an|some|the)?\s*(?:fair|reasonable|decent|good|proper|appropriate|certain|small"
    r"|big|large|nice|sensible|right|fitting|partial|some)\s+(?:amount|sum|share|portion|part"
    r"|bit|number|figure|price|value)(?:\s+of\s+(?:money|it|cash))?"
)
_BY_JUDGEMENT = (
    r"(?:what(?:ever)?\s+(?:you|is|seems|feels)\s+\w+(?:\s+\w+)?"
    r"|as\s+much\s+as\s+(?:possible|you\s+can)|some\s+money)"
)
#: A whole value that says none ("some stuff for the kids", "a fair amount", "something").
_VAGUE_VALUE = re.compile(
    rf"\s*(?:{_LEAD}{_PLACEHOLDER}(?:\s+{_TRAILING}\b.*)?"
    rf"|{_JUDGED_AMOUNT}|{_BY_JUDGEMENT})\s*[.!?]*\s*",
    ICASE,
)
#: A value judged instead of said: "something reasonable", "whatever is fair".
_JUDGED_THING = (
    r"(?:something|anything|whatever|somewhere)\s+(?:fair|reasonable|decent|sensible"
    r"|appropriate|similar|around\s+there|like\s+that)"
)
#: The same words anywhere in unexplained words ("pay it, a fair amount I think").
_VAGUE_INSIDE = re.compile(
    rf"(?<!\w)(?:{_JUDGED_AMOUNT}|{_BY_JUDGEMENT}|{_JUDGED_THING})(?!\w)", ICASE
)
#: A placeholder inside a longer free-text value: "a tour for someone", "whatever they have".
_PLACEHOLDER_INSIDE = re.compile(
    r"(?<!\w)(?:something|anything|whatever|stuff|someone|somebody|anyone|anybody|whoever"
    r"|whichever|sth|smth)(?!\w)",
    ICASE,
)


def vague_value(value: str) -> bool:
    """Whether ``value`` only holds a value's place ("some stuff", "a fair amount")."""
    return bool(value.strip()) and _VAGUE_VALUE.fullmatch(value) is not None


#: A value said to be a part without saying which: "partially", "part of it", "some of it";
#: or an amount pointed at that was never said here: "the difference", "the amount we agreed
#: on the phone", "what you promised".
_PARTIAL = re.compile(
    r"(?<!\w)(?:partial(?:ly)?|partly|in\s+part|(?:a\s+)?part\s+of|some\s+of|a\s+portion"
    r"|a\s+bit\s+of|a\s+little|the\s+difference"
    r"|(?:the\s+)?(?:amount|sum|price|figure)\s+(?:that\s+)?(?:we|you|they|he|she|i|your\s+\w+)"
    r"\s+(?:had\s+|have\s+)?(?:agreed|discussed|mentioned|promised|offered|quoted|said|settled)"
    r"|(?:the\s+)?(?:agreed|promised|discussed|quoted|offered)\s+(?:amount|sum|price|figure)"
    r"|what\s+(?:we|you|they|he|she)\s+(?:had\s+|have\s+)?(?:agreed|promised|offered|quoted))(?!\w)",
    ICASE,
)


def partial_words(words: str) -> str | None:
    """Words that say a value is a part of something, or one agreed elsewhere, without saying
    how much: the workflow's proposal (the whole) never stands for it."""
    m = _PARTIAL.search(words)
    return None if m is None else m.group(0)


def placeholder_in(value: str) -> str | None:
    """A placeholder word inside a longer free-text value, or None."""
    m = _PLACEHOLDER_INSIDE.search(value)
    return None if m is None else m.group(0)


def vague_words(words: str) -> str | None:
    """The words among ``words`` that stand for an amount without one, or None."""
    m = _VAGUE_INSIDE.search(words)
    return None if m is None else m.group(0)


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
#: Words that make a date a span or an estimate, not a day: "sometime in March", "early
#: April", "around the 10th", "next week", "later in spring", "12 March or so".
_VAGUE_DATE = re.compile(
    r"(?<!\w)(?:(?<!of\s)(?:next|this)\s+(?:week|month|year)|(?:the\s+)?weekend"
    r"|sometime|some\s+time|some\s+day|someday|one\s+day|later|earlier|soon|whenever|asap"
    r"|cheapest|early|late|mid|middle|beginning|start|end(?=\s+of\s+(?!(?:the|this|next)\s+month))"
    r"|around|about|approx(?:imately|\.)?|roughly|circa|ca\.|ish|or\s+so|give\s+or\s+take"
    r"|more\s+or\s+less|or|(?:first|second|third|fourth|last)\s+(?:week|half|days?)"
    r"|spring|summer|autumn|fall|winter|easter|christmas|xmas|new\s+year|holidays?)(?!\w)",
    re.IGNORECASE,
)
#: A month alone ("in March", "March 2026"): which day is not said.
_MONTH_ALONE = re.compile(
    rf"\s*(?:(?:in|during|for|to|on)\s+)?(?:(?:the\s+)?month\s+of\s+)?{_MONTH}\.?(?:\s+\d{{4}})?"
    r"\s*[.!?]*\s*",
    re.IGNORECASE,
)


def vague_date_words(value: str) -> str | None:
    """The words that make ``value`` a span or an estimate instead of one day ("sometime",
    "early", "around", "or so", a month alone), or None. A date said so is asked for, never
    picked and never refused."""
    if _MONTH_ALONE.fullmatch(value) is not None:
        return value.strip()
    m = _VAGUE_DATE.search(value)
    return None if m is None else m.group(0)


#: An estimate said around a date: "around March 20", "about the 10th", "12 March or so".
DATE_HEDGE_BEFORE = re.compile(
    r"(?<!\w)(?:around|about|approx(?:imately|\.)?|roughly|circa|ca\.|sometime\s+around"
    r"|somewhere\s+around)\s+$",
    re.IGNORECASE,
)
DATE_HEDGE_AFTER = re.compile(
    r"\s*(?:,\s*)?(?:or\s+so|-?ish|give\s+or\s+take(?:\s+a\s+(?:day|week|few\s+days))?"
    r"|more\s+or\s+less|(?:or\s+)?(?:thereabouts|roughly|approximately))(?!\w)",
    re.IGNORECASE,
)


#: Words that make a value an estimate: "around 2k", "2000-ish", "40 or so", "~30".
_ESTIMATE = re.compile(
    r"(?<!\w)(?:around|about|approx(?:imately|\.)?|roughly|circa|ca\.|ish|or\s+so"
    r"|give\s+or\s+take|more\s+or\s+less|(?:or\s+)?thereabouts|something\s+like)(?!\w)"
    r"|~\s*(?=\d)",
    re.IGNORECASE,
)


def estimate_words(value: str) -> str | None:
    """The words that make ``value`` an estimate ("around", "-ish", "or so", "~"), or None."""
    m = _ESTIMATE.search(value)
    return None if m is None else m.group(0)
