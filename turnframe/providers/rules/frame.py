"""The frame around a message's requests: greetings, sign-offs, signatures and list markers.

People write a request the way they write a letter or a note::

    Hi team,                        a greeting: small talk
    Could you:                      an intro that announces the list after it
    - add a note 'late arrival'     each item after its bullet ("-", "*", "•", "a)", "(b)")
    - set the limit to 900
    Best regards,                   a closing: small talk
    Ana Reis                        a signature: names, contact lines, "Sent from my iPhone"
    Sent from my iPhone

None of the frame is a request or a value. The splitter leaves the signature out of the clauses
(the names in it still count as the writer naming themselves, see ``targets``), marks greetings
and closings as small talk, takes bullets off their items and marks a clause that announces a
list, so the reader never takes a closing for an object or a name for a follow-up. A polite
condition ("if it's no trouble", "if you don't mind") is politeness too, never a condition.
"""

from __future__ import annotations

import re

from turnframe.providers.rules.quoting import line_spans, quoted_parts
from turnframe.providers.rules.shapes import ICASE

Span = tuple[int, int]

#: A closing before the writer's name: "Best regards", "Yours sincerely", "thx".
_CLOSING = (
    r"(?:(?:with\s+)?(?:best|kind|kindest|warm|warmest|many|warm|friendly)\s+"
    r"(?:regards|wishes|thanks)|regards|best(?:\s+wishes)?|cheers|many\s+thanks"
    r"|thanks(?:\s+(?:a\s+lot|so\s+much|very\s+much|again|in\s+advance|a\s+million))?"
    r"|thank\s+you(?:\s+(?:so|very)\s+much)?(?:\s+in\s+advance)?|thx|ty|tia|ta"
    r"|yours(?:\s+(?:sincerely|truly|faithfully))?|(?:sincerely|faithfully)(?:\s+yours)?"
    r"|all\s+the\s+best|take\s+care|speak\s+soon|talk\s+soon|bye(?:\s+for\s+now)?|br|kr|rgds"
    r"|greetings|love|much\s+appreciated|that['\u2019]?s\s+(?:all|it)|that\s+is\s+all|have\s+a\s+(?:nice|good|great|lovely)\s+"
    r"(?:day|one|weekend|evening)|(?:thanks|thank\s+you)(?:\s+(?:so|very)\s+much)?\s+for\s+"
    r"(?:the|your|all\s+the|all\s+your)\s+(?:help|support|assistance|time|patience|work))"
)
_CLOSING_LINE = re.compile(
    rf"(?:(?:and|also|oh|again)[\s,]+)*{_CLOSING}(?:[\s,.!]+(?:and\s+)?{_CLOSING})*[\s,.!]*", ICASE
)
#: A closing with the name after it on the same line: "ty, Ana", "Cheers - Rui Costa".
_CLOSING_NAMED = re.compile(
    rf"{_CLOSING}[\s,.!\u2013\u2014-]+(?-i:[A-Z][\w'\u2019.-]*)(?:\s+(?-i:[A-Z][\w'\u2019.-]*)){{0,3}}"
    r"[\s.!]*",
    ICASE,
)
#: What a mail program adds: "Sent from my iPhone", "Get Outlook for Android".
_DEVICE = re.compile(
    r"(?:sent\s+(?:from|via|with|using)\s+\S.*|get\s+outlook\s+for\s+\S.*)", ICASE
)
#: The signature delimiter of plain-text mail, and lines of dashes or underscores.
_DELIMITER = re.compile(r"(?:--|\u2014|_{2,}|-{3,})\s*")
#: A contact line: a phone number, an address of mail alone, a web address, "name | title".
_CONTACT = re.compile(
    r"(?:(?:tel|phone|mobile|mob|cell|m|t)\s*[.:]?\s*)?\+?[\d\s()./-]{7,}"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)\S+"
    r"|[^\n|]{1,40}(?:\s*\|\s*[^\n|]{1,40})+",
    ICASE,
)
#: A name line: up to four capitalized words ("Ana Reis", "Customer Services", "Maria da
#: Silva"), a title ("Office manager"), or up to three words in lower case; a title or lower
#: case words never hold a word of a request ("please", "the", "my").
_NAME_LINE = re.compile(
    r"(?-i:[A-Z])[\w'\u2019.-]*(?:\s+(?:(?-i:[A-Z])[\w'\u2019.-]*|da|de|do|dos|das|van|von|der"
    r"|di|la|le|y)){0,3}[\s.]*"
    r"|(?P<title>(?-i:[A-Z])[\w'\u2019-]*(?:\s+[^\W\d_][\w'\u2019-]*){1,3})[\s.]*"
    r"|(?P<lower>[^\W\d_][\w'\u2019-]*(?:\s+[^\W\d_][\w'\u2019-]*){0,2})[\s.]*"
)
#: Words a lower-case line of a request is made of: such a line is never a name.
_NOT_NAMES_SAID = (
    "i me my you your we us our it its a an the to and or of for on in at is are was be do "
    "please pls thanks thank can could would will should want need like just also not no yes "
    "ok okay this that with"
)
_NOT_NAMES = frozenset(_NOT_NAMES_SAID.split())
#: An opening greeting: "Hi team", "Dear support", "Hello Sir or Madam", "Good morning all".
GREETING = re.compile(
    r"(?:(?:hi|hello|hey|hiya|dear|greetings|good\s+(?:morning|afternoon|evening|day)|morning"
    r"|afternoon|evening)(?:\s+(?:there|team|all|everyone|everybody|guys|folks|support"
    r"|sir(?:\s+or\s+madam)?|madam|colleagues|(?-i:[A-Z])[\w'\u2019-]*)){0,3}"
    r"|to\s+whom\s+it\s+may\s+concern)[\s,.!:;-]*",
    ICASE,
)
#: A bullet or an item label opening a line: "- ", "* ", "• ", "a) ", "(b) ", "iii) ".
BULLET = re.compile(
    r"p\.?\s?s\.?(?:\s*[:,.\u2013\u2014-])?\s+|(?:[*\u2022\u00b7\u25aa\u25ab\u25cf\u25e6\u2023\u2043\u25ba+]|[-\u2013\u2014](?!\d))\s*"
    r"|\(?(?:[a-h]|[ivx]{1,4}|\d{1,2})\)\s*|\(?[a-h]\.\s+",
    ICASE,
)
#: A politeness said as a condition: "if it's no trouble", "if you don't mind", "if possible"
#: (before a comma or at an end), or "if you could" before the request's verb.
_POLITE_IF = (
    r"if\s+(?:(?:(?:it|that)(?:['\u2019]s|\s+is|\s+isn['\u2019]t|\s+is\s+not|\s+wouldn['\u2019]t"
    r"\s+be|\s+would\s+not\s+be|\s+would\s+be)\s+(?:(?:no|not\s+(?:too\s+much\s+)?(?:of\s+)?a"
    r"|not\s+too\s+much(?:\s+of\s+a)?|too\s+much(?:\s+of\s+a)?)\s+)?"
    r"(?:trouble|bother|problem|hassle|inconvenience)"
    r"|(?:it|that)(?:['\u2019]s|\s+is|\s+would\s+be)\s+(?:ok(?:ay)?|alright|all\s+right|fine"
    r"|possible)(?:\s+(?:with|for)\s+you)?"
    r"|(?:it|that)(?:['\u2019]s|\s+is)\s+not\s+too\s+much\s+to\s+ask"
    r"|you\s+(?:don['\u2019]?t|do\s+not|wouldn['\u2019]?t|would\s+not)\s+mind"
    r"|you\s+(?:have|got)\s+(?:a\s+)?(?:moment|minute|second|chance|time)"
    r"|you\s+get\s+(?:a\s+)?(?:chance|moment|minute)|(?:at\s+all\s+)?possible"
    r"|you\s+(?:can|could|would|will)|you\s+please)(?=\s*(?:[,;.!\u2013\u2014-]|$))"
    r"|you\s+(?:could|can|would|will)(?:\s+(?:please|kindly|just|maybe))*(?=\s+[a-z]{2,})"
    r"(?!\s+(?:not|n['\u2019]t)\b))(?![\w'\u2019])[\s,]*"
)
POLITE_IF = re.compile(_POLITE_IF, ICASE)
#: A request wrapped in politeness before its verb: "I'd be very grateful if you could
#: possibly …", "I was wondering if you could …", "would you be able to …".
_POLITE_LEAD = re.compile(
    r"(?:i(?:['\u2019]d|\s+would)\s+(?:be\s+)?(?:(?:very|really|most|so|extremely|super|truly)\s+)?"
    r"(?:grateful|thankful|obliged|happy|glad|appreciative)\s+if\s+you\s+(?:could|would|can)"
    r"|i(?:['\u2019]d|\s+would)\s+(?:(?:really|greatly|very\s+much)\s+)?appreciate\s+(?:it\s+)?"
    r"if(?:\s+you\s+(?:could|would|can)|(?!\s+you\b))"
    r"|(?:i\s+was|i['\u2019]m|i\s+am)\s+wondering\s+if\s+you\s+(?:could|would|can)"
    r"|i\s+wonder\s+if\s+you\s+(?:could|would|can)|(?:is\s+there\s+)?any\s+chance\s+you\s+could"
    r"|is\s+there\s+any\s+way\s+you\s+could|do\s+you\s+think\s+you\s+could"
    r"|(?:would|could|will|can)\s+you\s+be\s+able\s+to"
    r"|would\s+it\s+be\s+possible\s+(?:for\s+you\s+)?to)"
    r"(?:\s+(?:possibly|please|kindly|just|also|maybe|perhaps))*\s+(?=[a-z]{2,})(?!(?:not|tell|let)\b)",
    ICASE,
)
#: Asking leave to speak: "Excuse me, …", "Sorry to bother you, …".
_EXCUSE = re.compile(
    r"(?:excuse\s+me|pardon(?:\s+me)?|(?:so\s+)?sorry\s+to\s+(?:bother|trouble|disturb)\s+you"
    r"(?:\s+again)?)[\s,!.:-]+",
    ICASE,
)
#: The same politeness at the end of a clause: "…, if you don't mind".
_POLITE_IF_AT_END = re.compile(rf"[\s,]+(?:{_POLITE_IF})$", ICASE)
#: A clause that points at a list coming after it: "the following", "these", "as follows".
ANNOUNCES = re.compile(
    r"(?<!\w)(?:the\s+following|as\s+follows|below|these(?:\s+(?:things|changes|for\s+me))?)"
    r"[\s:]*$",
    ICASE,
)
#: The words a clause that only frames the requests is made of (with the record's name and
#: nouns): "Re: order 1002", "I'm Ana Reis", "Could you do the following for me:".
_FRAME_SAID = (
    """re regarding about concerning subject ref reference query question enquiry inquiry
    this is it it's its i'm im i am my our the a an your for on of at with in to from here here's
    writing write name it's hi hello hey dear team there all please pls kindly can could would
    will you u do handle action the following following these as follows below things thing
    changes requests items points tasks updates edits few couple some two three four five
    several more quick small little need needs want like i'd we we'd me us just
    todo list update"""
)
FRAME_WORDS = frozenset(_FRAME_SAID.split())
#: The words that ask only to use a value from now on ("please use V from now on", "you can
#: reach me at V going forward"); a negation or an object is none of them.
_USE_SAID = (
    """use using please pls kindly could can would will you u from now on onwards going forward
    forwards instead my new address me at to send sending write writing reach reachable get in
    touch via with it everything all the details update updated switch change changed for
    future correspondence messages emails it's its mails communication communications
    notifications invoices and just is here this that latest correct right current one
    i i'm am i've have has been moved thanks thank so any anything else also
    customer client user owner person buyer member contact he she they his her their them of
    he's she's they've got a an as customer's client's user's owner's regarding concerning
    about re put set for"""
)
USE_WORDS = frozenset(_USE_SAID.split())
#: An object that can only point ahead: "the following", "the following items", "the things
#: below", "as follows".
_AHEAD = (
    r"(?:(?:the|all|of)\s+)*following(?:\s+[\w'\u2019-]+){0,3}"
    r"|(?:(?:the|all)\s+)?(?:[\w'\u2019-]+\s+){0,2}(?:below|as\s+follows)(?:\s+please)?"
)
LIST_AHEAD = re.compile(_AHEAD, ICASE)
#: An operation's object that points at the list after it: the above, or "these (things)".
LIST_OBJECT = re.compile(
    rf"{_AHEAD}|(?:all\s+)?(?:these|those|this|the\s+items?|the\s+things?)(?:\s+[\w'\u2019-]+){{0,2}}",
    ICASE,
)
_LOOK = 12  # a signature is a few short lines; the look-back from the end stays bounded


def _stripped(text: str, span: Span) -> Span:
    s, e = span
    while s < e and text[s] in " \t\r":
        s += 1
    while e > s and text[e - 1] in " \t\r":
        e -= 1
    return s, e


def _is(pattern: re.Pattern[str], text: str, span: Span) -> bool:
    return pattern.fullmatch(text, *span) is not None


def signature(text: str, vocabulary: frozenset[str]) -> tuple[int, Span | None]:
    """Where the signature block at the end of ``text`` starts (``len(text)`` when there is
    none), and the closing line before it, if any ("Best regards,").

    The block is made of the lines after a closing ("Kind regards,") that are names, contact
    lines or a mail program's line, or everything after a signature delimiter ("-- "); a mail
    program's lines at the very end are a signature on their own. Names alone, with no closing
    before them, are not: a name may be what the user answers."""
    lines = [_stripped(text, span) for span in line_spans(text)]
    end = len(text)
    last = len(lines)
    # A line of dashes that closes a forwarded or quoted block is no signature delimiter.
    quoted = quoted_parts(text)
    for index in range(max(1, len(lines) - _LOOK), len(lines)):
        span = lines[index]
        if any(s <= span[0] and span[1] <= e for s, e in quoted):
            continue
        if span[0] < span[1] and _is(_DELIMITER, text, span):
            end, last = span[0], index  # "-- ": everything after it is the signature
            break
    start = end
    device_only: int | None = None
    names = 0
    for index in range(last - 1, max(-1, last - 1 - _LOOK), -1):
        span = lines[index]
        if span[0] >= span[1]:
            continue  # a blank line
        if _is(_DEVICE, text, span):
            if names == 0:
                device_only = span[0]
            start = span[0]
            continue
        if _is(_CLOSING_LINE, text, span) or _is(_CLOSING_NAMED, text, span):
            if start == end:
                break  # a closing at the end is small talk; the splitter reads it as such
            return start, span
        if _is(_CONTACT, text, span) or _name_line(text, span, vocabulary):
            names += 1
            start = span[0]
            continue
        break
    return (device_only, None) if device_only is not None else (end, None)


def _name_line(text: str, span: Span, vocabulary: frozenset[str]) -> bool:
    m = _NAME_LINE.fullmatch(text, *span)
    if m is None:
        return False
    words = re.findall(r"[a-z]+", text[span[0] : span[1]].casefold())
    if any(w in vocabulary for w in words):
        return False
    plain = m.group("lower") is None and m.group("title") is None
    return plain or not any(w in _NOT_NAMES for w in words)


def closing(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is only a closing ("Yours sincerely", "ty, Ana")."""
    return _is(_CLOSING_LINE, text, (start, end)) or _is(_CLOSING_NAMED, text, (start, end))


def greeting(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is only a greeting ("Hi team", "Dear Sir or Madam")."""
    return _is(GREETING, text, (start, end))


def bullet_end(text: str, start: int, end: int) -> int:
    """Where an item's words start after the bullet or label that opens ``text[start:end]``
    (``start`` when none does)."""
    m = BULLET.match(text, start, end)
    if m is None or m.end() >= end:
        return start
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return start  # a mark inside a line ("… - add …") is punctuation, not a bullet
    return m.end()


def polite_condition(text: str, start: int, end: int) -> Span:
    """``(start, end)`` without a politeness said as a condition at either end ("if it's no
    trouble, please …", "…, if you don't mind") or wrapped around the request's verb ("I'd be
    grateful if you could …")."""
    for _ in range(3):  # "Excuse me, if you don't mind, could you …": a bounded run
        lead = (
            _EXCUSE.match(text, start, end)
            or POLITE_IF.match(text, start, end)
            or _POLITE_LEAD.match(text, start, end)
        )
        if lead is None or lead.end() >= end:
            break
        start = lead.end()
    tail = _POLITE_IF_AT_END.search(text, start, end)
    if tail is not None and tail.start() > start and not _quoted(text, start, tail.start()):
        end = tail.start()
    return start, end


def _quoted(text: str, start: int, pos: int) -> bool:
    """Whether ``pos`` lies inside a quotation opened after ``start``: words there are a value
    as written ('add the note "seats together if possible"'), never politeness."""
    before = text[start:pos]
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")
