"""Plain English in place of wrapped English, before a turn is read.

Some words are only the way a message is said, not what it asks: politeness wrapped around a
request ("Sorry to be a pain, but could you …", "No worries if not."), emphasis ("the damn …"),
a dictation's spoken punctuation and spelled-out record numbers ("comma", "one zero zero
one"), and an agent's vowel-less shorthand ("rfnd"). :func:`prepared` rewrites them into the
plain words the reader already knows, and :func:`turnframe.providers.rules.spelling.remap` maps
every piece of evidence back to the words the user typed, so evidence still cites exactly what
was sent.

Each rewrite is an :class:`~turnframe.providers.rules.edits.Edit` of the user's text; a text
that would be left with nothing to read is not rewritten (a message of thanks stays chitchat).
"""

from __future__ import annotations

from turnframe.providers.rules.completions import same_for
from turnframe.providers.rules.dictation import dictated
from turnframe.providers.rules.edits import apply, as_written, quoted
from turnframe.providers.rules.filler import emphasis
from turnframe.providers.rules.politeness import courtesy
from turnframe.providers.rules.shorthand import spelled_out
from turnframe.providers.rules.spelling import Corrected


def prepared(
    text: str, words: frozenset[str], record_nouns: str, numbers: frozenset[str]
) -> Corrected | None:
    """``text`` in plain words (see the module docstring), or ``None`` when it is plain
    already. ``words`` are the words of requests the reader knows (to say "changing" as
    "change"), ``record_nouns`` what a record is called, ``numbers`` the records' numbers."""
    written = as_written(text)  # quoted, or after a value's colon
    edits = [
        *dictated(text, quoted(text), record_nouns, numbers),
        *emphasis(text, written, words),
        *courtesy(text, written, words),
        *same_for(text, written, words),
        *spelled_out(text, written, words),
    ]
    return apply(text, edits)
