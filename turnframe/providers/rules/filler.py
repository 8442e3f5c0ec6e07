"""Emphasis that is not part of what is asked: "add the damn parking permit" adds the parking
permit. Swear words and intensifiers before a word are dropped; a disparaging adjective
("stupid", "silly") only right after a determiner ("the stupid form"), where it describes
nothing. Words inside quotes or after a value's colon are kept as written, and an exclamation
on its own ("damn it", "bloody hell") is left to be read as it is. Words of saying before a
value's colon ("a note saying: …") are dropped too: the colon says it. So are an outburst
said as a sentence of its own ("Are you kidding me?", "This is a joke.", "What the hell,") or
ending a clause ("…, for crying out loud", "… I guess"), insistence after an
amount ("not a cent less"), a word between "could you" and the verb ("could you at least add"),
"go ahead and", and "just" or "please" between a request's word and its object ("add just the
…"), so they never edge a value. Ordinary English only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from turnframe.providers.rules.edits import Edit, inside
from turnframe.providers.rules.shapes import ICASE

_SWEAR = (
    r"damn(?:ed)?|goddamn(?:ed)?|bloody|bleeding|freaking|frigging|friggin|fricking|frickin"
    r"|flipping|flippin|effing|fucking|fuckin|f\*+(?:ing|in)|sodding|blasted|darn(?:ed)?|dang"
)
_DETERMINER = r"the|this|that|these|those|your|my|our|his|her|their|a|an"
_DISPARAGING = r"stupid|silly|useless|ridiculous|wretched|pathetic|idiotic|dumb|annoying"
#: Words after which a swear word is an exclamation, not emphasis of what follows.
_EXCLAIMED = r"it|you|hell|right|well|sure|this|that|all|me|them|him|her"
EMPHASIS = re.compile(
    rf"(?<![\w'*-])(?:(?P<swear>{_SWEAR})|(?:{_DETERMINER})\s+(?P<scorn>{_DISPARAGING}))"
    rf"\s+(?!(?:{_EXCLAIMED}|marys?)\b)(?=[a-z])",
    ICASE,
)


#: Words of saying before a value's colon ("a note saying: …"): the colon says it already.
_SAYING = re.compile(
    r"(?<=\w)\s+(?:saying|that\s+says|which\s+says|reading|that\s+reads|as\s+follows"
    r"|like\s+this|with\s+the\s+text)\s*(?=:)",
    ICASE,
)


_SAKE = (
    r"for\s+(?:god|heaven|pete|christ|goodness|fuck)['\u2019]?s?\s+sake|for\s+crying\s+out\s+loud"
)
#: An outburst said as a sentence of its own: "Are you kidding me?", "This is a joke.",
#: "Unbelievable!", "Worst service ever." It asks nothing and changes nothing.
_OUTBURST = re.compile(
    r"(?:^|(?<=[.!?\n]))\s*(?P<w>(?:are\s+you\s+(?:kidding|joking|serious|for\s+real)(?:\s+me)?"
    r"|you(?:['\u2019]ve|\s+have)?\s+(?:got|gotta)\s+(?:to\s+)?be\s+(?:kidding|joking)(?:\s+me)?"
    r"|(?:this|that|it)(?:\s+is|['\u2019]s)\s+(?:(?:just|simply|absolutely|frankly)\s+)?"
    r"(?:a\s+joke|ridiculous|unacceptable|absurd|insane|outrageous|a\s+disgrace|a\s+nightmare"
    r"|a\s+farce|a\s+mess|unbelievable)"
    r"|(?:what|such)\s+a\s+(?:joke|mess|disgrace|nightmare|farce|shambles)"
    r"|(?:seriously|unbelievable|ridiculous|useless|pathetic|unacceptable|incredible|ugh+|argh+"
    r"|wtf|omg|jeez|come\s+on|honestly|(?:i\s+)?mean\s+it|ffs|oh\s+my\s+god"
    r"|what\s+the\s+(?:hell|heck|fuck)|" + _SAKE + ")"
    r"|worst\s+(?:[a-z]+\s+){0,2}ever"
    r"|(?:i['\u2019]?m|i\s+am)\s+(?:so\s+|really\s+|very\s+|absolutely\s+)?(?:fed\s+up|furious"
    r"|livid|angry|annoyed|frustrated|disappointed|sick\s+of\s+this)"
    r"(?:\s+with\s+(?:this|you|your\s+[a-z]+))?)"
    r"[\s.!?,]*)(?=$|(?<=[.!?,])\s*\S|\n)",
    ICASE,
)
#: An exclamation that ends a clause: "…, for crying out loud", "… ffs", "… I guess"; and
#: "like last time" ("another 20 like last time"): "another" or "again" says it.
_TRAILING_OUTBURST = re.compile(
    r"[\s,]+(?:" + _SAKE + r"|ffs|smh|lol|lmao|rofl|i\s+guess|i\s+suppose|or\s+whatever"
    r"|(?:just\s+)?(?:like|as)\s+(?:last\s+time|before))"
    r"(?=\s*(?:$|[.!?;\n]))",
    ICASE,
)
#: "twenty-five euros even", "40 € flat": a word after an amount that only says it is exact.
_EXACTLY = re.compile(
    r"(?:(?<=euros)|(?<=euro)|(?<=eur)|(?<=\u20ac)|(?<=dollars)|(?<=pounds))"
    r"\s+(?:even|flat|exactly)(?!\w)",
    ICASE,
)
#: Insistence after an amount ("80 euros back, not a cent less"): the amount says it.
_INSISTING = re.compile(
    r"[\s,;\u2013\u2014-]+(?:and\s+)?not\s+a\s+(?:cent|penny|euro|dollar|pound|minute|day)"
    r"\s+(?:less|more|later|earlier)(?=\s*(?:$|[.!?,;\n]))",
    ICASE,
)
#: A word between "could you" and the request's verb: "could you at least add …".
_BETWEEN = re.compile(
    r"(?<![\w])(?:could|can|would|will)\s+you\s+(?P<w>(?:at\s+least|just|maybe|perhaps"
    r"|quickly|kindly|possibly|now)\s+)(?=[a-z])",
    ICASE,
)
#: "go ahead and submit it", "feel free to add it": the verb after them is the request.
_GO_AHEAD = re.compile(r"(?<![\w])(?:go\s+ahead\s+and|feel\s+free\s+to)\s+(?=[a-z])", ICASE)


#: A filler between a request's word and its object: "add just the …", "add please a …".
_BEFORE_OBJECT = re.compile(
    r"(?<![\w'-])(?P<verb>[a-z]+)\s+(?P<w>(?:just|please|pls|plz|kindly|simply)\s+)"
    r"(?=(?:the|a|an|my|our|some|this|that|these|those|\d)(?![\w-]))",
    ICASE,
)


def emphasis(
    text: str, kept: Sequence[tuple[int, int]], words: frozenset[str] = frozenset()
) -> list[Edit]:
    """Edits that drop the emphasis of ``text`` (never inside ``kept``); ``words`` are the
    request words a filler may follow before an object."""
    edits = [Edit(start=m.start(), end=m.end(), words="") for m in _SAYING.finditer(text)]
    for m in _BEFORE_OBJECT.finditer(text):
        if m.group("verb").casefold() in words and not inside(kept, m.start("w"), m.end("w")):
            edits.append(Edit(start=m.start("w"), end=m.end("w"), words=""))
    for pattern in (_OUTBURST, _BETWEEN):
        for m in pattern.finditer(text):
            if not inside(kept, m.start("w"), m.end("w")):
                edits.append(Edit(start=m.start("w"), end=m.end("w"), words=""))
    for pattern in (_INSISTING, _EXACTLY, _GO_AHEAD, _TRAILING_OUTBURST):
        for m in pattern.finditer(text):
            if not inside(kept, m.start(), m.end()):
                edits.append(Edit(start=m.start(), end=m.end(), words=""))
    for m in EMPHASIS.finditer(text):
        start = m.start("swear") if m.group("swear") is not None else m.start("scorn")
        if not inside(kept, start, m.end()):
            edits.append(Edit(start=start, end=m.end(), words=""))
    return edits


#: What may end an object's words without being part of it: "add the insurance already".
_OBJECT_TAIL = re.compile(
    r"(?:[\s,]+(?:already|then|anyway|again|pls|plz|please|asap|now|right\s+now|immediately"
    r"|at\s+once|thanks?|thank\s+you|just))+$",
    ICASE,
)


def object_words(words: str) -> str:
    """An operation's object without the filler that may end it ("insurance already" is the
    insurance), never emptied."""
    trimmed = _OBJECT_TAIL.sub("", words)
    return trimmed if trimmed.strip() else words
