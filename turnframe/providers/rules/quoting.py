"""Forwarded and quoted mail inside a message: someone else's words, never the sender's request.

People paste what another person wrote and then say what they want done about it::

    -------- Forwarded message --------     a forwarded block: its header line,
    From: Pedro                             its header lines ("From:", "Date:", "Subject:" …)
    the shop rents bikes for 25 a day       and its body,
    --------                                up to a closing line of dashes (else to the end)
    Pedro's right. Add 3 days of bikes …    the sender's own words: the request

    On Tue, 27 Jan 2026, Ana wrote:         an attribution line and the lines quoted with ">"
    > please pay back the 120 euros
    Did this one go through already?        the sender's own question

    Ana wrote: "please pay back 20 euros"   an inline quotation after "wrote:"

Only the sender's words are read for requests. The quoted words are read as a story: they
may give context the sender's request refers to (a carded request left without its amount takes
the one amount the story names, ``refer``), but no act is ever taken from them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import attrs

from turnframe.plan import OperationAct
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.shapes import ICASE, TRIM
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.workflow import Argument, ParseContext

if TYPE_CHECKING:
    from turnframe.providers.rules.split import Clause

Span = tuple[int, int]

#: The line that opens a forwarded or original message.
_OPENER = re.compile(
    r"[ \t>]*(?:[-=_*]{2,}[ \t]*)?(?:begin\s+forwarded\s+message|forwarded\s+message"
    r"|original\s+message|forwarded\s+mail|fwd?\s*message"
    r"|(?:fwd?|forwarded|forwarding)(?:\s+(?:message|mail|e-?mail|text|note))?\s+from\s+[^\n:]{1,40})"
    r"[ \t]*:?[ \t]*(?:[-=_*]{2,})?[ \t]*",
    ICASE,
)
#: A header line of a mail: "From: Pedro", "Sent: Monday", "Subject: Re: order 1001".
_HEADER = re.compile(
    r"[ \t]*(?:from|sent|date|to|cc|bcc|subject|reply-to)[ \t]*:[^\n]*", ICASE
)
_FROM = re.compile(r"[ \t]*from[ \t]*:[^\n]*", ICASE)
#: A line that only closes a block: dashes, underscores or equal signs.
_CLOSER = re.compile(
    r"[ \t]*(?:-{2,}|_{2,}|={2,}|\*{3,})[ \t]*"
    r"(?:end\s+of\s+(?:forwarded\s+)?message[ \t]*(?:-{2,})?[ \t]*)?",
    ICASE,
)
#: A line quoted with ">" (an email reply's quotation).
_QUOTED_LINE = re.compile(r"[ \t]*>[^\n]*")
#: "On Tue, 27 Jan 2026 at 10:02, Ana Reis <ana@example.com> wrote:", "Pedro wrote:".
_WROTE = re.compile(
    r"(?P<who>[^\n]{0,160}?)(?<!\w)(?:wrote|writes)[ \t]*:[ \t]*", ICASE
)
#: The quotation marks that may open an inline quotation after "wrote:".
_PAIRS = {'"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019", "\u00ab": "\u00bb"}
#: Who may be said to have written: a name, a pronoun, someone's role (not "I", "you").
_WRITER = re.compile(
    r"(?:(?:on|am|le)\b[^\n]*|[^\n]*?(?:\b(?:he|she|they|(?-i:[A-Z])[\w'\u2019.-]*)"
    r"|(?:my|our|the|his|her|their)\s+[\w'\u2019-]+|<[^>\n]*>|\)))[ \t,]*",
    ICASE,
)


def line_spans(text: str) -> list[Span]:
    """Where each line of ``text`` starts and ends (line breaks excluded)."""
    out: list[Span] = []
    at = 0
    for m in re.finditer(r"\n", text):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, len(text)))
    return out


def _is(pattern: re.Pattern[str], text: str, span: Span) -> bool:
    return pattern.fullmatch(text, *span) is not None


def _blank(text: str, span: Span) -> bool:
    return not text[span[0] : span[1]].strip()


@functools.lru_cache(maxsize=64)
def quoted_parts(text: str) -> tuple[Span, ...]:
    """Where someone else's words stand in ``text`` (see the module docstring), in order (the
    splitter's signature and the reader ask for the same text: read once)."""
    if "\n" not in text and "wrote" not in text.casefold() and ">" not in text:
        return ()
    lines = line_spans(text)
    parts: list[Span] = []
    index = 0
    while index < len(lines):
        span = lines[index]
        block = _forwarded(text, lines, index)
        if block is not None:
            parts.append((span[0], lines[block][1]))
            index = block + 1
            continue
        quoted = _quoted_lines(text, lines, index)
        if quoted is not None:
            parts.append((lines[quoted[0]][0], lines[quoted[1]][1]))
            index = quoted[1] + 1
            continue
        inline = _inline(text, lines, index)
        if inline is not None:
            parts.append(inline[0])
            index = inline[1] + 1
            continue
        index += 1
    return tuple(p for p in parts if p[0] < p[1])


def _forwarded(text: str, lines: list[Span], index: int) -> int | None:
    """The last line of a forwarded block opening at line ``index``, or None."""
    span = lines[index]
    opened = _is(_OPENER, text, span) and re.search(r"\w", text[span[0] : span[1]]) is not None
    if not opened:
        # Header lines alone ("From: Pedro" then "Sent: …", or then a closing line).
        if not _is(_FROM, text, span):
            return None
        nxt = index + 1
        headed = nxt < len(lines) and _is(_HEADER, text, lines[nxt])
        closed = any(_is(_CLOSER, text, s) for s in lines[index + 1 :])
        if not (headed or closed):
            return None
    last = len(lines) - 1
    body = index + 1
    while body <= last and (_is(_HEADER, text, lines[body]) or _blank(text, lines[body])):
        body += 1
    if body <= last and _is(_QUOTED_LINE, text, lines[body]):
        quoted = _quoted_lines(text, lines, body)  # "Forwarded from Pedro:\n> …": the "> " lines
        if quoted is not None:
            return quoted[1]
    for at in range(index + 1, len(lines)):
        if _is(_CLOSER, text, lines[at]) and not _blank(text, lines[at]):
            if at == index + 1 and opened:
                continue  # "-----" under the opener: its underline, the block goes on
            return at
    end = _before_reply(text, lines, index, last)
    if not opened and end == last:
        return None  # "From: Ana\nSubject: …" then the request: the writer's own mail header
    return end


#: Words of a paragraph that answers the message above it: "he's right", "as below", "this".
_REFERS_BACK = re.compile(
    r"(?<!\w)(?:above|below|this|that|these|those|he|she|they|his|her|their|him|them"
    r"|he['\u2019]s|she['\u2019]s|they['\u2019]re|fyi|see)(?!\w)",
    ICASE,
)


def _before_reply(text: str, lines: list[Span], index: int, last: int) -> int:
    """A block with no closing line runs to the end, unless its last paragraph (after a blank
    line, past the header lines and a first paragraph of body) answers it: that paragraph is the
    sender's ("… 25 a day.\n\nHe's right, add 3 days of it")."""
    body = index + 1
    while body <= last and (_is(_HEADER, text, lines[body]) or _blank(text, lines[body])):
        body += 1
    from turnframe.providers.rules.frame import closing  # frame reads this module

    end = last
    blank = None
    for at in range(last, body, -1):
        if not _blank(text, lines[at]):
            continue
        first = next((i for i in range(at + 1, end + 1) if not _blank(text, lines[i])), None)
        if first is not None and closing(text, *lines[first]) and blank is None:
            end = at  # "Thanks,\nAna" after the block: a sign-off; the paragraph before it
            continue
        blank = at
        break
    if blank is None:
        return last
    reply = text[lines[blank][1] : lines[end][1]]
    head = text[lines[index][0] : lines[body - 1][1] + 1]
    said = re.search(r"(?<=from:)[ \t]*(?P<who>[^\n<]+)", head, ICASE)
    names = [n for n in said.group("who").split() if len(n) > 2] if said is not None else []
    named = any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", reply, ICASE) for n in names)
    if named or _REFERS_BACK.search(reply) is not None:
        return blank
    return last


def _quoted_lines(text: str, lines: list[Span], index: int) -> tuple[int, int] | None:
    """The first and last line of a ">" quotation (with its attribution line before it)."""
    first = index
    span = lines[index]
    if not _is(_QUOTED_LINE, text, span):
        wrote = _WROTE.fullmatch(text, *span)
        nxt = index + 1
        if wrote is None or nxt >= len(lines) or not _is(_QUOTED_LINE, text, lines[nxt]):
            return None
        index = nxt
    last = index
    at = index
    while at < len(lines) and (_is(_QUOTED_LINE, text, lines[at]) or _blank(text, lines[at])):
        if not _blank(text, lines[at]):
            last = at
        at += 1
    return first, last


def _inline(text: str, lines: list[Span], index: int) -> tuple[Span, int] | None:
    """An inline quotation after "X wrote:", with the index of the line it ends on."""
    span = lines[index]
    for m in _WROTE.finditer(text, *span):
        if not _WRITER.fullmatch(text, m.start("who"), m.end("who")):
            continue
        if re.search(r"(?<!\w)(?:i|you|we)\s*$", m.group("who"), ICASE):
            continue  # "as I wrote:", "you said:": the conversation itself, not a quotation
        at = m.end()
        if at < span[1] and text[at] in _PAIRS:
            close = text.find(_PAIRS[text[at]], at + 1)
            if close < 0:
                return None
            last = next(i for i, s in enumerate(lines) if s[0] <= close <= s[1])
            return (m.start(), close + 1), last
        if at < span[1]:
            return (m.start(), span[1]), index  # the rest of the line is the quotation
        # "Ana wrote:" ending its line: the paragraph after it is the quotation.
        last = index
        for nxt in range(index + 1, len(lines)):
            if _blank(text, lines[nxt]):
                break
            last = nxt
        if last == index:
            return None
        return (m.start(), lines[last][1]), last
    return None


def inside_quoted(parts: Iterable[Span], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies wholly inside one quoted part."""
    return any(s <= start and end <= e for s, e in parts)


def senders_clauses(
    clauses: Iterable[Clause], text: str, plan: PlanBuilder
) -> Iterator[Clause]:
    """The clauses the sender wrote; a clause inside a forwarded or quoted part is left unread
    (a story the sender's request may refer to, never a request of its own). A clause that
    goes on past the end of a quotation ('Ana wrote: "…" - can you check?') is read from there."""
    parts = quoted_parts(text)
    for clause in clauses:
        start = clause.start
        for s, e in parts:
            if s < clause.end and start < e:
                plan.not_understood(max(start, s), min(clause.end, e))
                start = e
        while start < clause.end and text[start] in TRIM:
            start += 1
        if start >= clause.end:
            continue
        yield clause if start == clause.start else attrs.evolve(clause, start=start, lead=start)


#: "add that", "the same", "at that price": words that only point back at something said.
_POINTS_BACK = re.compile(
    r"(?:that|it|this|those|these|them|one|the\s+same|that\s+one|the\s+one)", ICASE
)
_AT_THAT_PRICE = re.compile(
    r"\s+(?:at|for)\s+(?:that|this|the\s+same|their|his|her)\s+(?:price|rate|cost|amount)$", ICASE
)


def referred_values(plan: PlanBuilder, text: str, vocab: Vocabulary, ctx: ParseContext) -> None:
    """ "[forwarded: the walking tour is 20 a person] Please add that for 2 people": a request
    of the sender's that points back ("that", "at that price") at the one thing, with its
    one price, the quoted words name, takes them; it then waits for a card that shows them
    (values from someone else's words are never run unseen)."""
    parts = quoted_parts(text)
    if not parts:
        return
    named = [m for s, e in parts for m in _PRICED.finditer(text, s, e)]
    if len(named) != 1:
        return
    found = named[0]
    for index, act in enumerate(plan.acts):
        if not isinstance(act, OperationAct) or inside_quoted(parts, *_span(act)):
            continue
        declared = vocab.workflow.operation(act.operation)
        if declared is None:
            continue
        thing = next(
            (a for a in declared.arguments if a.required and a.type is str and not a.choices), None
        )
        if thing is None:
            continue
        args = dict(act.args)
        said = args.get(thing.name, "")
        priced = _AT_THAT_PRICE.search(said)
        if priced is not None:
            said = said[: priced.start()]
        if said and _POINTS_BACK.fullmatch(said.strip()) is None:
            if priced is None:
                continue
            args[thing.name] = said  # "the walking tour at that price": the thing is said
        else:
            args[thing.name] = found.group("item")
        money = found.group("money")
        places = [
            a.name
            for a in declared.arguments
            if a.type is not str and a.name not in args and _parses(a, money, ctx)
        ]
        if len(places) == 1:
            args[places[0]] = money
        evidence = (*act.evidence, *plan.evidence(found.span()))
        plan.acts[index] = attrs.evolve(act, args=args, evidence=evidence, confirm=True)


#: "the walking tour is 20 euros per person", "a boat ride costs 35": a thing and its price.
_PRICED = re.compile(
    r"(?<!\w)(?:the|a|an|their|his|her|our|my)\s+(?P<item>[a-z][\w'\u2019-]*(?:\s+[a-z][\w'\u2019-]*){0,3}?)"
    r"\s+(?:is|are|was|were|costs?|comes?\s+to|goes\s+for|sells\s+for)\s+(?:(?:only|just|about"
    r"|around|roughly)\s+)?(?P<money>(?:[€$£]\s?)?\d+(?:[.,]\d{1,2})?(?:\s?(?:euros?|eur|€|dollars?"
    r"|pounds?))?)(?!\w)",
    ICASE,
)


def _span(act: OperationAct) -> Span:
    return min(ev.start for ev in act.evidence), max(ev.end for ev in act.evidence)


def _parses(argument: Argument, value: str, ctx: ParseContext) -> bool:
    try:
        argument.parse(value, ctx)
    except (ValueError, TypeError):
        return False
    return True


__all__ = ["inside_quoted", "quoted_parts", "referred_values", "senders_clauses"]
