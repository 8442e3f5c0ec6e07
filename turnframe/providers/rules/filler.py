"""Emphasis that is not part of what is asked: "add the damn parking permit" adds the parking
permit. Swear words and intensifiers before a word are dropped; a disparaging adjective
("stupid", "silly") only right after a determiner ("the stupid form"), where it describes
nothing. Words inside quotes or after a value's colon are kept as written, and an exclamation
on its own ("damn it", "bloody hell") is left to be read as it is. Words of saying before a
value's colon ("a note saying: …") are dropped too: the colon says it. Ordinary English only.
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
    rf"\s+(?!(?:{_EXCLAIMED})\b)(?=[a-z])",
    ICASE,
)


#: Words of saying before a value's colon ("a note saying: …"): the colon says it already.
_SAYING = re.compile(
    r"(?<=\w)\s+(?:saying|that\s+says|which\s+says|reading|that\s+reads|as\s+follows"
    r"|like\s+this|with\s+the\s+text)\s*(?=:)",
    ICASE,
)


def emphasis(text: str, kept: Sequence[tuple[int, int]]) -> list[Edit]:
    """Edits that drop the emphasis of ``text`` (never inside ``kept``)."""
    edits = [Edit(start=m.start(), end=m.end(), words="") for m in _SAYING.finditer(text)]
    for m in EMPHASIS.finditer(text):
        start = m.start("swear") if m.group("swear") is not None else m.start("scorn")
        if not inside(kept, start, m.end()):
            edits.append(Edit(start=start, end=m.end(), words=""))
    return edits
