"""Politeness wrapped around a request: dropped, or said as the plain request it wraps.

- A letter's salutation ("Dear support team,") and a sentence that only announces the
  requests after it ("I just want to update my details:") are dropped.
- An apology or a courtesy that opens a sentence or a clause ("Sorry to be a pain, but …",
  "apologies for the late notice —", "I hope you're well,") is dropped: what follows is read.
- A wrapper around a request is said as the request: "Could I trouble you to add …", "I'd be
  grateful if you could add …", "would you mind adding …", "If you could add …, that would be
  great", "any chance you could add …" and "I was wondering whether you could add …" read as
  "could you add …", as do "I want that you add …" and "please to add …" (as people writing in
  a second language say it); "I was wondering whether it might be possible to …" and "is
  possible to …" as "would it be possible to …"; "reckon you could add …" as "could you add
  …"; "could you be a star and add …" as "could you add …"; "pop a note on it" as "add a
  note on it"; "kindly revert with the status …" as "tell me the status …". A question inside a
  wrapper stays a question; "pay me 30 euros" is "pay 30 euros".
- A softener that ends a request ("… at your earliest convenience", "… if possible", "…
  when you get a chance") is dropped: the request is asked all the same.
- A closing courtesy said as a sentence of its own ("No worries if not.", "Thank you for
  understanding.", "Much appreciated!") is dropped, unless it is plain chitchat already.

A wrapper is never part of a value: words inside quotes or after a value's colon are kept as
written. The words here are ordinary English, no workflow's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from turnframe.providers.rules.edits import Edit, inside
from turnframe.providers.rules.shapes import CHITCHAT, ICASE

#: Where a sentence or a clause opens: the start, a sentence end, a comma, a dash.
_OPENING = r"(?:^|(?<=[.!?\n;,\u2013\u2014])|(?<=\s-))\s*"
_TROUBLE = (
    r"(?:trouble|hassle|inconvenience|(?:late|short|last[\s-]minute)\s+notice|delay|bother"
    r"|confusion|mess|(?:long\s+)?(?:email|message)|(?:many\s+)?questions?)"
)
#: An apology or a courtesy before the request, with the comma or "but" after it.
_LEAD = re.compile(
    _OPENING + r"(?P<w>(?:(?:so|really|very|terribly)\s+)?sorry\s+(?:to\s+(?:be\s+(?:a|such\s+a)"
    r"\s+(?:pain|nuisance|bother)|bother(?:\s+you)?|trouble(?:\s+you)?|disturb(?:\s+you)?"
    r"|pester(?:\s+you)?|ask|chase(?:\s+(?:this|you))?)|for\s+(?:the|any|all\s+the|my)\s+"
    rf"(?:\w+\s+)?{_TROUBLE})(?:\s+again)?"
    rf"|(?:(?:my|many|sincere)\s+)?apologies(?:\s+for\s+(?:the|any|all\s+the|my)\s+(?:\w+\s+)?"
    rf"{_TROUBLE})?"
    r"|(?:i\s+)?hope\s+(?:you(?:['\u2019]re|\s+are)\s+(?:well|doing\s+well|keeping\s+well)"
    r"|this\s+(?:finds\s+you\s+well|is\s+ok(?:ay)?)|all\s+is\s+well)"
    r"|when(?:ever)?\s+you\s+(?:get|have|find)\s+a\s+(?:moment|minute|chance|second)"
    r"|(?:kindly\s+|please\s+)?do\s+the\s+needful|(?:i\s+|let\s+me\s+)?repeat|once\s+again"
    r"|i\s+know\s+(?:you(?:['\u2019]re|\s+are)\s+(?:busy|swamped)|it['\u2019]?s\s+(?:late"
    r"|short\s+notice)))"
    r"(?P<gap>\s*[,;:!.\u2013\u2014-]+\s*(?:but\s+|and\s+)?|\s+(?:but|and)\s+)(?=\S)",
    ICASE,
)
#: A letter's salutation: "Dear support team,", "To whom it may concern:".
_SALUTATION = re.compile(
    r"^\s*(?P<w>dear\s+[^\n,:;.!?]{1,40}?[,:!]?\s*\n|(?:dear\s+[^\n,:;.!?]{1,40}?"
    r"|to\s+whom\s+it\s+may\s+concern)\s*[,:!]\s*)(?=\S)",
    ICASE,
)
#: "Please to add …" (a request said with "to"): "please add …".
_PLEASE_TO = re.compile(_OPENING + r"(?P<w>please)\s+to\s+(?=[a-z])", ICASE)
#: "pop a note on it", "chuck on a kayak", "stick in a towel": British English for "add".
_POP = re.compile(
    r"(?<![\w'])(?P<w>(?:pop|chuck|stick|bung)(?:\s+(?:on|in))?)(?=\s+(?:a|an|the|some|\d+)\s)",
    ICASE,
)
#: "in the amount of EUR 22", "at a cost of 19.90", "priced at 12": said plainly, "at 22".
_PRICE_WORDS = re.compile(
    r"(?<!\w)(?P<w>(?:in|for)\s+(?:the|an?)\s+amount\s+of|amounting\s+to|at\s+a\s+(?:cost|price)"
    r"\s+of|costing|priced\s+at|that\s+costs?|which\s+costs?)(?=\s+(?:[\u20ac$\u00a3]|eur\b|\d))",
    ICASE,
)
#: Who an agent types a request for, in the third person: "customer on 1001 wants …".
_WHO = (
    r"(?:the\s+|our\s+|my\s+|this\s+)?(?:customer|cust|cx|client|guest|pax|passenger|traveller"
    r"|traveler|caller|user|member|visitor)s?"
)
#: Who wants it, and how: "I want", "she'd like", "the client needs" (group ``who``: a third
#: person, dropped; ``rec``: a record named with them, kept).
_WANTS = (
    rf"(?:(?P<who>{_WHO}|he|she|they)(?P<rec>\s+(?:on|for|of|from)\s+(?:order\s+|booking\s+"
    r"|case\s+|no\.?\s*)?#?\d{3,})?\s+|(?:i|we)(?:\s+|(?=['\u2019]d\s)))"
)
#: "I want the meeting moved to 20 March", "she'd like 2 towels added": the request with
#: its verb after the object, said plainly ("move the meeting to 20 March").
_WANT_DONE = re.compile(
    _OPENING + rf"{_WANTS}(?P<frame>(?:want|wants|would\s+like|['\u2019]d\s+like|need|needs)"
    r"(?:\s+to\s+have)?)\s+(?P<obj>(?:the|a|an|my|our|his|her|their|this|that|\d+|two|three"
    r"|four|five|some)\s+[^,.;:!?]{1,60}?)\s+(?P<done>[a-z]+(?:ed|et|ut))(?=\s|[,.!?]|$)",
    ICASE,
)
#: "she wants the meeting a day earlier": a wish for a thing moved by a span of days,
#: said as "move the meeting a day earlier".
_WANT_SHIFTED = re.compile(
    _OPENING + rf"{_WANTS}(?P<frame>want|wants|would\s+like|['\u2019]d\s+like|need|needs)\s+"
    r"(?P<obj>(?:the|my|our|his|her|their)\s+[^,.;:!?]{1,40}?)\s+(?:moved\s+|pushed\s+)?"
    r"(?:by\s+)?(?:a|an|one|two|three|four|five|\d+)\s+(?:day|week)s?\s+(?:earlier|later|sooner)"
    r"(?=\s|[,.!?]|$)",
    ICASE,
)
#: "customer on 1001 wants 20 back", "client asks to add …", "guest asks us to set …": an
#: agent's request for someone, said as the request (the record named with them kept).
_ON_BEHALF = re.compile(
    _OPENING + rf"{_WANTS}(?P<verb>wants|would\s+like|(?:is\s+)?asking\s+for|asks\s+for|asked\s+for"
    r"|needs|is\s+requesting|requests|requested|(?:asks|asked|is\s+asking|wants|would\s+like"
    r"|needs)(?:\s+(?:us|you))?\s+to)\s+(?=\S)",
    ICASE,
)
_PARTICIPLES = {"set": "set", "put": "put", "cut": "cut"}


def _wish_start(m: re.Match[str], text: str) -> int:
    """Where a wish's words to replace begin: its third person, else the "I" before its frame."""
    if m.group("who"):
        return m.start("who")
    start = m.start()
    while start < m.start("frame") and text[start].isspace():
        start += 1
    return start


def _say_wish(m: re.Match[str], text: str, verb: str, edits: list[Edit]) -> tuple[int, int]:
    """Edits that say a wish as its request ("she wants the X moved" → "move the X"), keeping a
    record named with the person; the span the wish covers."""
    start = _wish_start(m, text)
    if m.group("rec"):  # the record named with them stays: "on 1002 change the email …"
        edits.append(Edit(start=start, end=m.start("rec"), words=""))
        edits.append(Edit(start=m.start("frame"), end=m.end("frame"), words=verb))
    else:
        edits.append(Edit(start=start, end=m.end("frame"), words=verb))
    return start, m.end()


def _verb_of(participle: str, words: frozenset[str]) -> str | None:
    """ "moved" → "move", "added" → "add", "submitted" → "submit": a request word the reader
    knows, or ``None``."""
    done = participle.casefold()
    if done in _PARTICIPLES:
        return _PARTICIPLES[done]
    stem = done[:-2]
    candidates = (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else "")
    return next((c for c in candidates if c and c in words), None)


#: "calling on behalf of Ana Reis: …": the person the request is for, said as "for Ana Reis".
_BEHALF = re.compile(
    _OPENING + r"(?P<w>(?:(?:i['\u2019]?m|i\s+am|we['\u2019]?re|we\s+are)\s+)?(?:calling|writing"
    r"|messaging|contacting\s+you|reaching\s+out|here)\s+on\s+behalf\s+of)\s+(?=\S)",
    ICASE,
)
#: "oh sorry, she meant order 1001": the customer's correction of the record, relayed, is a
#: correction (only before a record's number: "she meant it as a joke" is no value).
_THEY_MEANT = re.compile(
    r"(?<![\w'])(?P<w>(?:she|he|they|the\s+(?:customer|client|guest|caller))\s+(?:meant|means))"
    r"(?=\s+(?:(?:order|booking|case|number|no\.?)\s*)?#?\d{3,}(?!\w))",
    ICASE,
)
#: "Kindly revert with the status …" (as English is written in India): "tell me the status …".
_REVERT = re.compile(
    _OPENING + r"(?:(?:kindly|please|pls)\s+)?(?P<w>revert(?:\s+back)?(?:\s+to\s+(?:me|us))?"
    r"\s+(?:with|on|about))\s+(?=\S)",
    ICASE,
)
#: A sentence that only announces the requests after it: "I just want to update my details:".
_ANNOUNCE = re.compile(
    _OPENING + r"(?P<w>(?:i|we)\s+(?:just\s+|also\s+)?(?:want(?:ed)?|would\s+like|['\u2019]d\s+like"
    r"|need)\s+to\s+(?:update|change|fix|correct|sort\s+out)\s+(?:my|our|a\s+few|some|the|two"
    r"|three|a\s+couple\s+of)\s+(?:details|info|information|things|bits|items)\s*[:\u2013\u2014-]"
    r"\s*)(?=\S)",
    ICASE,
)
#: A request to do a list, before the record the list is about: "Please do the following for
#: case 1001: …" says "For case 1001: …".
_DO_FOLLOWING = re.compile(
    _OPENING + r"(?P<w>(?:(?:please|kindly|pls)\s+)?(?:(?:could|can|would|will)\s+you\s+"
    r"(?:please\s+|kindly\s+)?)?(?:do|handle|action|make|process|sort(?:\s+out)?|take\s+care\s+of)"
    r"\s+(?:all\s+)?(?:the\s+following|these|the\s+below)(?:\s+(?:things|changes|updates|items"
    r"|requests|edits|points))?(?:\s+for\s+me)?\s+)(?=(?:for|on|with|regarding|about|in)\s+"
    r"[^:\n.!?]{1,60}:)",
    ICASE,
)
#: A count of requests announced before them: "two quick ones:", "a few things -".
_COUNTED_LEAD = re.compile(
    r"^\s*(?P<w>(?:(?:ok(?:ay)?|so|hi|hey|hello)[\s,!.]+)?(?:two|three|four|a\s+few|a\s+couple\s+of"
    r"|couple\s+of|2|3|4)\s+(?:quick\s+|small\s+|little\s+|more\s+)?(?:ones|things|points|requests"
    r"|updates|changes|items|bits)(?:\s+(?:please|for\s+you|today))?\s*[:\u2013\u2014-]\s*)(?=\S)",
    ICASE,
)
#: A word that only counts the requests: "Second, …", "Thirdly: …", "And finally, …".
_SEQUENCE = re.compile(
    _OPENING + r"(?P<w>(?:and\s+)?(?:second(?:ly)?|third(?:ly)?|fourth(?:ly)?|lastly|finally"
    r"|last\s+(?:one|thing|but\s+not\s+least))\s*[,:\u2013\u2014-]\s*)(?=\S)",
    ICASE,
)
#: Who a request is for, said between its verb and its object ("add for us 2 tickets", "pay
#: me 30 euros"), and "each one" after a price: the plain order is "add 2 tickets", "15 each".
_FOR_US = re.compile(
    r"(?<=[a-z])\s+(?P<w>(?:for\s+(?:us|me|them|him|her)|me|us)(?:\s+(?:both|all|two|2))?)"
    r"(?=\s+(?:\d|[\u20ac$\u00a3]|a\s|an\s"
    r"|one|two|three|four|five|six|some|the\s))",
    ICASE,
)
_EACH_ONE = re.compile(r"(?<!\w)each(?P<w>\s+one)(?!\w)(?!\s+(?:of|is|was|has|will)\b)", ICASE)
#: A request relayed in the writer's own message, quoted: 'My husband says: "put a note …"'.
_RELAYED = re.compile(
    _OPENING + r"(?P<w>(?:my|our)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:says|said|asks|asked|wants)"
    r"\s*[:,]?\s*(?P<q>[\"\u201c])(?=(?P<first>[a-z]+)))",
    ICASE,
)
_CLOSES = {'"': '"', "\u201c": "\u201d"}
#: A wrapper around a request, said as "could you" (group ``verb``: a gerund to say plainly).
_ASK = re.compile(
    _OPENING + r"(?P<w>(?:please\s+)?(?:"
    r"(?:could|can|may|might)\s+i\s+(?:trouble|bother|ask)\s+you\s+to"
    r"|would\s+you\s+be\s+(?:so\s+kind\s+as|kind\s+enough|able|willing)\s+to"
    r"|(?:i|we)(?:['\u2019]d|\s+would)\s+be\s+(?:(?:very|really|most|so|ever\s+so|extremely)\s+)?"
    r"(?:grateful|thankful|obliged)\s+if\s+you\s+(?:could|would|can)(?:\s+please)?"
    r"|(?:i|we)(?:['\u2019]d|\s+would)\s+(?:(?:really|greatly|much)\s+)?appreciate\s+it\s+if\s+you"
    r"\s+(?:could|would|can)(?:\s+please)?"
    r"|(?:i|we)\s+(?:was|were|am|are)\s+(?:just\s+)?wondering\s+(?:if|whether)\s+you"
    r"\s+(?:could|can|would|might)(?:\s+please)?"
    r"|(?:please\s+)?be\s+so\s+kind\s+(?:as\s+)?(?:to|and)"
    r"|(?:i|we)(?:['\u2019]d|\s+would)\s+like\s+to\s+ask\s+(?:you\s+)?to"
    r"|(?:can|could|would|will)\s+you\s+(?:please\s+)?help\s+(?:me|us)(?:\s+to)?"
    r"|(?:do\s+)?(?:you\s+)?(?:i\s+)?reckon\s+you\s+(?:could|can|would)(?:\s+please)?"
    r"|(?:could|can|would|will)\s+you\s+be\s+(?:an?\s+)?(?:(?:absolute|real|total)\s+)?"
    r"(?:star|dear|love|angel|gem|legend|darling|sweetheart|doll)\s+and"
    r"|if\s+you\s+(?:could|would)(?:\s+please)?"
    r"|it\s+would\s+be\s+(?:(?:really|so|very)\s+)?(?:great|lovely|wonderful|amazing|perfect"
    r"|fantastic|brilliant|helpful|nice)\s+if\s+you\s+(?:could|would|can)(?:\s+please)?"
    r"|(?:i|we)\s+(?:was|were|am|are)\s+hoping\s+(?:that\s+)?you\s+(?:could|can|would|might)"
    r"|(?:is\s+there\s+)?any\s+chance\s+(?:that\s+)?you\s+(?:could|can|would|might)"
    r"|would\s+it\s+be\s+too\s+much\s+(?:trouble\s+)?to\s+ask\s+(?:you\s+)?to"
    r"|(?:i|we)\s+(?:want|wish|would\s+like|['\u2019]d\s+like)\s+that\s+you(?:\s+please)?"
    r"|would\s+you\s+mind(?:\s+(?:terribly|awfully|very\s+much))?(?=\s+\w+ing\b)))\s+"
    r"(?P<verb>[a-z]+ing\b)?",
    ICASE,
)
#: "I was wondering whether it might be possible to …": said as "would it be possible to".
_POSSIBLE = re.compile(
    _OPENING + r"(?P<w>(?:(?:i|we)\s+(?:was|were|am|are)\s+(?:just\s+)?wondering\s+(?:if|whether)"
    r"\s+it\s+(?:(?:would|might|could)\s+be|is|was)|would\s+it\s+be|(?:it\s+)?is)"
    r"\s+(?:at\s+all\s+)?possible"
    r"(?:\s+for\s+(?:you|me|us))?\s+to)\s",
    ICASE,
)
#: A closing courtesy, as a sentence of its own.
_CLOSING = re.compile(
    r"(?:^|(?<=[.!?\n,]))\s*(?P<w>(?:(?:and|but|again|so)\s+)?(?:"
    r"with\s+(?:many\s+|great\s+)?thanks|(?:thanks|thank\s+you|thanking\s+you)"
    r"(?:\s+(?:ever\s+so\s+much|so\s+much|very\s+much|a\s+lot|again|kindly|heaps|loads"
    r"|a\s+bunch|a\s+million))?"
    r"(?:\s+(?:in\s+advance|for\s+(?:your|the|all\s+(?:your|the))\s+(?:kind\s+)?(?:help|understanding"
    r"|patience|time|assistance|support|trouble)|for\s+understanding|for\s+(?:looking\s+into"
    r"|sorting(?:\s+out)?|checking|handling)\s+(?:this|it|that)))?"
    r"|no\s+(?:worries|problem|stress|pressure|rush)(?:\s+(?:if\s+not|either\s+way|at\s+all"
    r"|if\s+(?:it['\u2019]?s|that['\u2019]?s|it\s+is)\s+not\s+possible|if\s+you\s+can['\u2019]?t))?"
    r"|(?:it['\u2019]?s\s+|that['\u2019]?s\s+)?(?:totally\s+|completely\s+)?(?:fine|ok(?:ay)?)"
    r"\s+if\s+not|(?:much|greatly|really|very\s+much)\s+appreciated|(?:much|most)\s+obliged"
    r"|(?:(?:i|we)(?:['\u2019]d|\s+would)?\s+)?(?:really\s+|greatly\s+|truly\s+)?appreciate"
    r"\s+(?:it|this|that|your\s+help)|(?:any|your)\s+help\s+(?:is|would\s+be)\s+(?:much\s+|greatly\s+"
    r"|very\s+much\s+|really\s+)?appreciated|i\s+hope\s+(?:that['\u2019]?s|this\s+is)\s+ok(?:ay)?"
    r"|(?:i['\u2019]?m\s+|we['\u2019]re\s+|i\s+am\s+|we\s+are\s+)?looking\s+forward\s+to"
    r"\s+(?:hearing\s+(?:from\s+you|back)|your\s+(?:reply|response|answer))(?:\s+soon)?"
    r"|(?:i\s+|we\s+)?hope\s+to\s+hear\s+(?:from\s+you|back)(?:\s+soon)?"
    r"|(?:please\s+)?let\s+(?:me|us)\s+know\s+if\s+(?:you\s+need\s+anything(?:\s+else|\s+more)?"
    r"|there\s+(?:is|are)\s+any\s+(?:problems?|issues?))"
    r"|you['\u2019]re\s+(?:a\s+star|the\s+best|a\s+lifesaver|amazing|great)"
    r"|(?:i\s+|we\s+)?hope\s+you\s+(?:had|have|are\s+having)\s+a\s+(?:nice|good|great|lovely)"
    r"\s+(?:day|weekend|week|evening|holiday|time)"
    r"|sorry\s+(?:again\s+)?for\s+(?:the|any|all\s+the)\s+(?:\w+\s+)?" + _TROUBLE + r"))"
    r"[\s.!),]*(?=$|(?<=[.!,])\s*\S|\n)",
    ICASE,
)


#: A softener at the end of a request: "… at your earliest convenience", "… if possible", "…
#: and do the needful".
_SOFTENER = re.compile(
    r"(?<=[\w'\"\u2019\u201d)])[\s,]+(?P<w>at\s+your\s+(?:earliest\s+)?convenience"
    r"|(?:and\s+)?(?:kindly\s+|please\s+)?do\s+the\s+needful"
    r"|when(?:ever)?\s+you\s+(?:get\s+a"
    r"\s+(?:chance|moment|minute)|have\s+(?:a\s+)?(?:moment|minute|second|sec|time)|can)"
    r"|if\s+(?:you\s+can|possible|at\s+all\s+possible|you\s+don['\u2019]?t\s+mind"
    r"|(?:that|it)['\u2019]?s\s+(?:ok(?:ay)?|alright|all\s+right|not\s+too\s+much\s+trouble))"
    r"|(?:that|it)\s+would\s+be\s+(?:(?:really|so|very)\s+)?(?:great|lovely|wonderful|amazing"
    r"|perfect|fantastic|brilliant|helpful|nice|much\s+appreciated))"
    r"(?=\s*(?:$|[.!?;\n]|,(?!\s*(?:otherwise|or\s+else|if\s+not|else)\b)))",
    ICASE,
)


#: The word after a wrapper (past a "please"): the request's own word.
#: Words after a wrapper that ask a question ("… if you could tell me whether …").
_ASKING_WORDS = frozenset({"tell", "let", "confirm", "advise", "check", "say"})
_NEXT_WORD = re.compile(r"(?:(?:please|kindly|just)\s+)?(?P<w>[a-z]+)", ICASE)


def _plain_verb(gerund: str, words: frozenset[str]) -> str | None:
    """ "changing" → "change", "adding" → "add", "setting" → "set": the request word the reader
    knows, or ``None``."""
    stem = gerund.casefold()[:-3]
    candidates = (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else "")
    return next((c for c in candidates if c and c in words), None)


#: Wordings said plainly (each pattern's group ``w`` becomes the words beside it).
_SAID_PLAINLY = (
    (_POP, "add"),
    (_BEHALF, "for"),
    (_THEY_MEANT, "I meant"),
    (_PRICE_WORDS, "at"),
    (_REVERT, "tell me"),
    (_POSSIBLE, "would it be possible to"),
)


def courtesy(text: str, kept: Sequence[tuple[int, int]], words: frozenset[str]) -> list[Edit]:
    """Edits that drop or plainly say the politeness of ``text`` (never inside ``kept``)."""
    edits: list[Edit] = []
    leads = (*_SALUTATION.finditer(text), *_LEAD.finditer(text), *_ANNOUNCE.finditer(text))
    counted = (*_COUNTED_LEAD.finditer(text), *_SEQUENCE.finditer(text))
    for m in (*leads, *_DO_FOLLOWING.finditer(text), *counted):
        if not inside(kept, m.start("w"), m.start("w") + 1):  # its own colon may end it
            edits.append(Edit(start=m.start("w"), end=m.end(), words=""))
    for m in (*_FOR_US.finditer(text), *_EACH_ONE.finditer(text)):
        start, end = m.span("w")
        before = re.search(r"([a-z]+)\s*$", text[max(0, m.start() - 20) : m.start() + 1], ICASE)
        if m.re is _FOR_US and (before is None or before.group(1).casefold() not in words):
            continue  # only after a request's own verb ("add for us …")
        if not inside(kept, start, end):
            if m.re is _FOR_US:
                end += 1  # the space after it goes too
            edits.append(Edit(start=start, end=end, words=""))
    for m in _RELAYED.finditer(text):
        close = text.find(_CLOSES[m.group("q")], m.end())
        known = m.group("first").casefold() in words
        if close < 0 or text[close + 1 :].strip(" .!\n") or not known:
            continue  # only a request the whole rest of the message is, that the reader knows
        edits.append(Edit(start=m.start("w"), end=m.end(), words=""))
        edits.append(Edit(start=close, end=close + 1, words=""))
    for m in _ASK.finditer(text):
        if inside(kept, m.start("w"), m.end()):
            continue
        said = "could you "
        if m.group("verb") is not None:
            verb = _plain_verb(m.group("verb"), words)
            if verb is None:
                continue  # a request word the reader would not know: left as it was
            said += verb
        else:
            after = _NEXT_WORD.match(text, m.end())
            asks = after is not None and after.group("w").casefold() in _ASKING_WORDS
            if after is None or (after.group("w").casefold() not in words and not asks):
                continue  # what follows is no request the reader knows: left as it was
        edits.append(Edit(start=m.start("w"), end=m.end(), words=said))
    for m in _PLEASE_TO.finditer(text):
        if not inside(kept, m.start("w"), m.end()):
            edits.append(Edit(start=m.start("w"), end=m.end(), words="please "))
    done_at: list[tuple[int, int]] = []
    for m in _WANT_DONE.finditer(text):
        verb = _verb_of(m.group("done"), words)
        if verb is None or inside(kept, m.start(), m.end()):
            continue
        done_at.append(_say_wish(m, text, verb, edits))
        edits.append(Edit(start=m.start("done") - 1, end=m.end("done"), words=""))
    for m in _WANT_SHIFTED.finditer(text):
        if "move" not in words or inside(kept, m.start(), m.end()):
            continue
        if any(s <= m.start("frame") < e for s, e in done_at):
            continue
        done_at.append(_say_wish(m, text, "move", edits))
    for m in _ON_BEHALF.finditer(text):
        if m.group("who") is None or inside(kept, m.start(), m.end()):
            continue
        if any(s <= m.start("who") < e for s, e in done_at):
            continue
        asks_to = m.group("verb").casefold().endswith("to")
        if m.group("rec"):
            edits.append(Edit(start=m.start("who"), end=m.start("rec"), words=""))
            edits.append(
                Edit(
                    start=m.start("verb"),
                    end=m.end("verb"),
                    words="please" if asks_to else "I want",
                )
            )
        else:
            edits.append(
                Edit(
                    start=m.start("who"), end=m.end("verb"), words="please" if asks_to else "I want"
                )
            )
    for pattern, plainly in _SAID_PLAINLY:
        for m in pattern.finditer(text):
            if not inside(kept, m.start("w"), m.end("w")):
                edits.append(Edit(start=m.start("w"), end=m.end("w"), words=plainly))
    for m in _SOFTENER.finditer(text):
        if not inside(kept, m.start(), m.end()):
            edits.append(Edit(start=m.start(), end=m.end(), words=""))
    for m in _CLOSING.finditer(text):
        start, end = m.span("w")
        after_comma = text[: m.start()].rstrip().endswith(",")
        if inside(kept, start, end) or (CHITCHAT.fullmatch(text, start, end) and not after_comma):
            continue  # thanks said as a sentence of its own stays chitchat
        if after_comma:  # "add a bike, thanks so much": the comma goes with the thanks
            start = len(text[: m.start()].rstrip()) - 1
        edits.append(Edit(start=start, end=m.end(), words=""))
    return edits
