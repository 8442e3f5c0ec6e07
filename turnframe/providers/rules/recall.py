"""Recall in the user's words: vague references to an earlier conversation, and the answers to
a recall in progress.

- A clause is a **recall** when it opens the way people reach for something they cannot name:
  "what was that thing we settled about…", "do you remember…", "the one we talked about last
  week", "what did we say about ticket 4471?", "remind me what we decided…". Its description is
  the clause itself (the recall stage reads the cue out of it). ``/recollect TEXT`` is a recall
  of TEXT; ``/recollect`` alone a recall whose cue is the previous user message (the stage binds
  it).
- While a recall waits for the user (the payload's ``recall_pending``), the turn's opening is
  read as their **disposition**: recognition ("yes, that one"), a correction ("not that one",
  "no, the one about the pool": the rest is the new cue) or letting it go ("never mind").
  Waiting on the open question, the answer is the user's own words; waiting on the
  store-expansion card, "yes, search everything" expands and "no" stops. A turn that reads as
  something else entirely (a change, a question about the case, thanks) is not about the
  recall: it is read as usual and the recall stage lets the recall go.
"""

from __future__ import annotations

import re

import attrs

from turnframe.plan import RecallAct, RecallDisposition
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.shapes import TRIM

_I = re.IGNORECASE
PENDING = ("asked", "expansion", "presented")
#: The three dispositions in their declared order (the interpreter speaks of them by role).
RECOGNISED, CORRECTED, LET_GO = tuple(RecallDisposition)

_WE = r"(?:we|i|you|u)"
_DID = (
    r"(?:talked|spoke|chatted|discussed|said|settled|agreed|decided|came\s+up\s+with|mentioned"
    r"|looked\s+at|went\s+over|figured\s+out|planned|booked|picked|chose|sorted\s+out"
    r"|landed\s+on|ended\s+up\s+with|worked\s+out|covered|had|recommended|suggested|found"
    r"|liked|used|tried|saw|visited|decide|discuss|talk)"
)
# The framing words as people type them in a hurry ("wat", "whats", "remeber", "abt").
_WHAT = r"(?:what|wat|wht)"
_WHATS = r"(?:what'?s|whats|wats)"
_REMEMBER = r"(?:remember|remeber|rember|remmeber|rememeber|remembr|recall)"
_ABOUT = r"(?:about|abt|abot|abut|bout)"
#: When it was: "from last week", "from yesterday", "from a few days ago".
_WHEN = (
    r"(?:last\s+\w+|yesterday|earlier|before|the\s+other\s+day|a\s+while\s+(?:ago|back)"
    r"|(?:a\s+few|a\s+couple\s+of|\d+|an?|one|two|three)\s+(?:days?|weeks?|months?)\s+ago)"
)
RECALL_OPENING = re.compile(
    rf"(?:(?:so|hey|um|uh|oh|and|also|wait),?\s+)*(?:"
    rf"(?:{_WHAT}|which|who|where)(?:'s|\s+(?:was|were|is|'s))\s+(?:that|the|those|this)\s+"
    rf"(?:[\w'-]+\s+){{0,4}}?{_WE}\s+(?:\w+\s+)?{_DID}"
    rf"|{_WHATS}\s+(?:that|the|those|this)\s+(?:[\w'-]+\s+){{0,4}}?{_WE}\s+(?:\w+\s+)?{_DID}"
    rf"|(?:{_WHAT}|which|who|where)\s+(?:was|were)\s+that\s+(?:[\w'-]+\s+){{0,3}}?"
    rf"(?:thing|one|again|called|{_ABOUT}|from|with)"
    rf"|(?:do|did|can|could|would)\s+{_WE}\s+(?:still\s+)?{_REMEMBER}"
    rf"|(?:the|that)\s+(?:one|thing|idea|plan|conversation|chat|discussion|bit)\s+{_WE}\s+"
    rf"(?:\w+\s+)?{_DID}"
    rf"|{_WHAT}\s+about\s+(?:the|that|those|our)\s+(?:[\w'-]+\s+){{0,4}}?{_WE}\s+"
    rf"(?:\w+\s+)?{_DID}"
    rf"|that\s+(?:[\w'-]+\s+){{1,3}}?from\s+{_WHEN}"
    rf"|the\s+(?:one|thing|conversation|chat)\s+from\s+{_WHEN}"
    rf"|{_WHAT}\s+did\s+{_WE}\s+(?:ever\s+)?(?:say|decide|agree|settle|conclude|figure\s+out"
    rf"|land\s+on|end\s+up\s+with|discuss|talk\s+{_ABOUT}|pick|choose|book)"
    rf"|{_WHAT}\s+{_WE}\s+(?:said|decided|agreed|settled|discussed|talked\s+{_ABOUT}|was\s+deciding"
    rf"|were\s+deciding)\s+{_ABOUT}"
    rf"|remind\s+me\s+(?:what|of|about|how|where|which|when|who)"
    rf"|(?:didn't|did\s+not|don't|do)\s+{_WE}\s+(?:talk|discuss|speak|chat|agree|decide)"
    rf"|(?:{_WE}\s+)?{_REMEMBER}\s+(?:when|the|that|how|what|our|those)"
    rf"|{_WE}\s+(?:talked|spoke|chatted)\s+about\s+.+\b(?:before|earlier|last|ago|the\s+other\s+day)"
    rf"|(?:where|when)\s+did\s+{_WE}\s+(?:talk|discuss|leave|land|get)"
    rf"|what\s+was\s+the\s+name\s+of\s+(?:the|that)"
    rf"|how\s+did\s+(?:the|that|our|all)\s+(?:[\w'-]+\s+){{0,6}}?(?:go|end|turn\s+out|work\s+out)"
    rf"|what\s+happened\s+(?:with|to)\s+(?:the|that|our)"
    rf"|(?:walk|take)\s+me\s+through\s+(?:the|that|what|how|everything|all)"
    rf"|(?:everything|all)\s+(?:that\s+)?{_WE}(?:'ve|\s+have)?\s+(?:ever\s+)?"
    rf"(?:said|discussed|talked\s+about|decided)"
    rf")\b",
    _I,
)
RECOLLECT = re.compile(r"\s*/recollect(?!\S)(?P<rest>.*)", _I | re.S)

_AFFIRM = (
    r"(?:yes|yeah|yep|yup|aye|right|correct|exactly|bingo|indeed|perfect|spot\s+on"
    r"|that'?s\s+(?:it|the\s+one|right|correct|exactly\s+it)|that\s+is\s+(?:it|the\s+one)"
    r"|that\s+one|this\s+one|the\s+first\s+one|found\s+it|you\s+got\s+it|that'?s\s+what\s+i\s+meant"
    r"|thanks?|thank\s+you|great|nice|cheers)"
)
_SEPARATOR = r"[\s,.;:!\u2014\u2013-]*"
IDENTIFIED = re.compile(rf"\s*{_AFFIRM}(?:{_SEPARATOR}{_AFFIRM})*{_SEPARATOR}", _I)
_EXPAND_YES = (
    r"(?:yes|yeah|yep|sure|ok(?:ay)?|please(?:\s+do)?|go\s+ahead|do\s+it|expand"
    r"|search\s+(?:everything|it\s+all|all(?:\s+of\s+it)?|the\s+full\s+text|every\w*))"
)
EXPAND_YES = re.compile(rf"\s*{_EXPAND_YES}(?:{_SEPARATOR}{_EXPAND_YES})*{_SEPARATOR}", _I)
LET_GO_WORDS = re.compile(
    r"\s*(?:never\s*mind|forget\s+(?:it|about\s+it)|(?:it\s+)?doesn'?t\s+matter|no\s+matter"
    r"|skip\s+it|leave\s+it|drop\s+it|stop\s+(?:looking|searching)|no\s+worries|not\s+important"
    r"|don'?t\s+bother|i'?ll\s+find\s+it\s+myself|i\s+don'?t\s+remember)\b"
    rf"{_SEPARATOR}",
    _I,
)
STOP = re.compile(r"\s*(?:no|nope|nah|stop|no\s+thanks|don'?t)\b[\s,.;:!]*$", _I)
NOT_THAT_ONE = re.compile(
    r"\s*(?:no|nope|nah|not\s+(?:that|this)(?:\s+one)?|not\s+quite|wrong\s+one"
    r"|that'?s\s+not\s+(?:it|the\s+one|right)|that\s+is\s+not\s+(?:it|the\s+one)"
    r"|neither(?:\s+of\s+(?:these|those|them))?|none\s+of\s+(?:these|those|them))\b"
    rf"{_SEPARATOR}(?P<rest>.*)",
    _I | re.S,
)
#: A correction in the user's words without a "no" in front: the utterance is the cue.
RECUE = re.compile(
    r"\s*(?:i\s+mean(?:t)?|what\s+about|how\s+about|the\s+one|it\s+was|it'?s\s+the\s+one"
    r"|(?:an?\s+)?(?:earlier|older|later|newer|other|previous)\s+one"
    r"|the\s+(?:earlier|older|other|later|previous|first|second|last)\s+(?:one|time|conversation))\b",
    _I,
)


@attrs.frozen(kw_only=True)
class Disposition:
    kind: RecallDisposition
    start: int
    end: int  # the disposition's span; what follows is read as usual
    cue: str = ""


def recall_description(text: str, start: int, end: int) -> str | None:
    """The clause ``text[start:end]`` as a recall's description, if it opens like one."""
    if RECALL_OPENING.match(text, start, end) is None:
        return None
    return text[start:end].strip(TRIM)


def read_recollect(text: str, plan: PlanBuilder) -> bool:
    """``/recollect TEXT`` (or alone): the whole turn is one recall. True when it was one."""
    m = RECOLLECT.fullmatch(text)
    if m is None:
        return False
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    description = m.group("rest").strip()
    plan.add(RecallAct(description=description, evidence=plan.evidence((start, end))))
    return True


def read_disposition(text: str, pending: str | None) -> Disposition | None:
    """The user's answer to the recall waiting on ``pending``, read from the turn's opening."""
    if pending not in PENDING:
        return None
    if (m := LET_GO_WORDS.match(text)) is not None:
        return _disposition(text, LET_GO, m.end())
    if pending == "expansion":
        if (m := STOP.match(text)) is not None:
            return _disposition(text, LET_GO, m.end())
        if (m := EXPAND_YES.match(text)) is not None and _ends_clause(text, m.end()):
            return _disposition(text, RECOGNISED, m.end())
    m = IDENTIFIED.match(text) if pending == "presented" else None
    if m is not None and _ends_clause(text, m.end()) and not _only_thanks(text[: m.end()]):
        return _disposition(text, RECOGNISED, m.end())
    if (m := NOT_THAT_ONE.match(text)) is not None:
        rest = m.group("rest")
        return _disposition(text, CORRECTED, len(text), cue=rest)
    if RECUE.match(text) is not None:
        return _disposition(text, CORRECTED, len(text), cue=text)
    return None


def answer_in_own_words(text: str, plan: PlanBuilder) -> None:
    """Waiting on the open question (or a presentation), a turn nothing else could read is the
    user's answer: a correction whose cue is the whole turn."""
    if plan.acts:
        return
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    if start >= end:
        return
    plan.unread.clear()
    plan.add(
        RecallAct(
            description=text.strip(),
            disposition=CORRECTED,
            evidence=plan.evidence((start, end)),
        )
    )


def emit(disposition: Disposition, text: str, plan: PlanBuilder) -> None:
    plan.add(
        RecallAct(
            description=disposition.cue.strip().strip(TRIM),
            disposition=disposition.kind,
            evidence=plan.evidence((disposition.start, disposition.end)),
        )
    )


def _disposition(text: str, kind: RecallDisposition, end: int, *, cue: str = "") -> Disposition:
    start = len(text) - len(text.lstrip())
    while end > start and text[end - 1] in TRIM:
        end -= 1
    return Disposition(kind=kind, start=start, end=max(end, start + 1), cue=cue)


def _ends_clause(text: str, at: int) -> bool:
    """Whether the affirmation stands alone: nothing follows, or a new sentence does."""
    rest = text[at:]
    return not rest.strip() or text[at - 1 : at].strip() in ("", ".", "!", ";", ",")


def _only_thanks(said: str) -> bool:
    """Thanks alone is politeness, not recognition: it never identifies."""
    return re.fullmatch(
        rf"\s*(?:(?:thanks?|thank\s+you|great|nice|cheers){_SEPARATOR})+", said, _I
    ) is not None


__all__ = [
    "PENDING",
    "RECALL_OPENING",
    "Disposition",
    "answer_in_own_words",
    "emit",
    "read_disposition",
    "read_recollect",
    "recall_description",
]
