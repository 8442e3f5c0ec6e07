"""Cue: what the user gave, at the whole they mean (Phase 0 of the protocol).

A :class:`VagueRecall` carries the :class:`RecallTrace` read from the user's words (keywords, a
time phrase, associations such as people named or quoted terms, canonical identifiers), the
:class:`Unit` the recall names (one session, or the line, topic or concept above it) and every
cue the user has added since (the answer to the open question, each correction). ``recue``
folds a new cue in; a cue naming a different whole re-reads the unit.

Find dispatches on the input type: identifiers alone are a structured identifier (the entropy
track), words alone a natural recall (the salience track), both together mixed (hybrid).
"""

from __future__ import annotations

import enum
import re

import attrs

from turnframe.recall.identifiers import find_identifiers
from turnframe.recall.salience import named_coinages
from turnframe.recall.temporal import TEMPORAL, temporal_phrase
from turnframe.recall.words import content_words, words

_I = re.IGNORECASE


class Unit(enum.StrEnum):
    SESSION = "session"
    LINE = "line"
    TOPIC = "topic"
    CONCEPT = "concept"


class InputType(enum.StrEnum):
    STRUCTURED_IDENTIFIER = "structured_identifier"
    NATURAL_RECALL = "natural_recall"
    MIXED = "mixed"


class Track(enum.StrEnum):
    ENTROPY = "entropy"
    SALIENCE = "salience"
    HYBRID = "hybrid"


@attrs.frozen(kw_only=True)
class CueIdentifier:
    literal: str
    namespace: str
    surface: tuple[str, ...]  # the words it was written with that name it ("4471", "309")


@attrs.frozen(kw_only=True)
class RecallTrace:
    keywords: tuple[str, ...] = ()
    temporal: str | None = None
    associations: tuple[str, ...] = ()
    identifiers: tuple[CueIdentifier, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.keywords or self.associations or self.identifiers)


@attrs.frozen(kw_only=True)
class VagueRecall:
    trace: RecallTrace
    unit: Unit = Unit.SESSION
    cues: tuple[str, ...] = ()  # what the user said, first the recall itself, then each cue


_UNITS: tuple[tuple[Unit, re.Pattern[str]], ...] = (
    (
        Unit.CONCEPT,
        re.compile(
            r"\b(?:the\s+(?:term|name|word|idea|concept|phrase|label|nickname)\s+"
            r"(?:we|i|you)\s+(?:came\s+up\s+with|coined|invented|made\s+up|settled\s+on|used)"
            r"|what\s+(?:we|i|you)\s+(?:called|named|dubbed)"
            r"|where\s+(?:that|the)\s+(?:name|term|idea)\s+came\s+from)\b",
            _I,
        ),
    ),
    (
        Unit.LINE,
        re.compile(
            r"\b(?:the\s+whole\s+(?:line|thread|series|saga|story|back[-\s]and[-\s]forth)"
            r"|all\s+(?:the\s+)?(?:conversations|sessions|chats)\s+(?:about|on|with)"
            r"|from\s+(?:start|the\s+beginning)\s+to\s+(?:finish|end)"
            r"|how\s+(?:it|that|the\s+\w+)\s+(?:went|evolved|developed|played\s+out)"
            r"|over\s+the\s+(?:weeks|months|days))\b",
            _I,
        ),
    ),
    (
        Unit.TOPIC,
        re.compile(
            r"\b(?:everything|all|whatever)\s+(?:that\s+)?(?:we|i|you)(?:'ve|\s+have)?\s+"
            r"(?:ever\s+)?(?:said|discussed|talked\s+about|covered|decided)\s+(?:about|on|regarding)"
            r"|every\s+time\s+(?:we|i)\s+(?:talked|spoke|asked)\s+about\b",
            _I,
        ),
    ),
)
#: How a recall is framed: it says *that* something is being recalled, not *what* ("what did we
#: decide", "we talked about", "what did we land on"). Its verbs are never cue words.
_FRAMING = re.compile(
    r"\b(?:what|wat|which|who|where|when|how)\s+(?:did|do|have|had|were|was)\s+(?:we|i|you|u)"
    r"\s+(?:ever\s+)?(?:say|said|decide|decided|deciding|agree|agreed|settle|settled|conclude"
    r"|concluded|land(?:ed)?(?:\s+on)?|end(?:ed)?\s+up(?:\s+with)?|pick|picked|choose|chose"
    r"|figure[d]?\s+out|discuss|discussed|talk(?:ed)?(?:\s+about)?|go\s+with|went\s+with)\b"
    r"|\b(?:we|i|you|u)\s+(?:(?:have|had|all|both|once|already)\s+)?(?:talked|spoke|chatted"
    r"|discussed|said|settled|agreed|decided|landed\s+on|came\s+up\s+with|mentioned|went\s+over"
    r"|figured\s+out|sorted\s+out|ended\s+up\s+with|worked\s+out|was\s+deciding"
    r"|were\s+deciding|decide)\b",
    _I,
)
_QUOTED = re.compile(r"[\"\u201c\u2018](?P<q>[^\"\u201d\u2019\n]{2,60})[\"\u201d\u2019]")
_NAME = re.compile(r"(?<=[a-z,;:]\s)(?P<w>[A-Z][a-z]{2,})\b")


def read_unit(text: str, current: Unit = Unit.SESSION) -> Unit:
    """The whole ``text`` names, else ``current`` (a cue that names none keeps the unit)."""
    for unit, pattern in _UNITS:
        if pattern.search(text):
            return unit
    return current


def extract_trace(text: str) -> RecallTrace:
    """The trace of one utterance: what it says to look for."""
    found = find_identifiers(text)
    identifiers: dict[str, CueIdentifier] = {}
    masked = list(text)
    for f in found:
        named = words(text[f.start : f.end])
        surface = tuple(w for w in named if any(ch.isdigit() for ch in w)) or tuple(named)
        identifiers.setdefault(
            f.literal, CueIdentifier(literal=f.literal, namespace=f.namespace, surface=surface)
        )
        masked[f.start : f.end] = " " * (f.end - f.start)
    rest = "".join(masked)
    rest = TEMPORAL.sub(" ", rest)
    rest = _FRAMING.sub(" ", rest)
    for _, pattern in _UNITS:
        rest = pattern.sub(" ", rest)
    associations = [m.group("w").lower() for m in _NAME.finditer(rest)]
    associations += [q.lower() for m in _QUOTED.finditer(text) for q in [m.group("q")]]
    associations += named_coinages(text)
    return RecallTrace(
        keywords=tuple(dict.fromkeys(content_words(rest))),
        temporal=temporal_phrase(text),
        associations=tuple(dict.fromkeys(associations)),
        identifiers=tuple(identifiers.values()),
    )


def cue(text: str) -> VagueRecall:
    """Phase 0: the vague recall ``text`` as a cue, at the whole it names."""
    return VagueRecall(trace=extract_trace(text), unit=read_unit(text), cues=(text,))


def has_cue(text: str) -> bool:
    """Whether ``text`` gives anything to look for: a word that is not the recall's framing, a
    name, an identifier, or at least a time ("what did we decide", "“”" give nothing)."""
    trace = extract_trace(text)
    return not trace.empty or trace.temporal is not None


def recue(recall: VagueRecall, said: str) -> VagueRecall:
    """Fold the user's new cue into ``recall``: its words join the trace, a time phrase
    replaces the old one, and a cue that names a different whole re-reads the unit."""
    new = extract_trace(said)
    old = recall.trace
    trace = RecallTrace(
        keywords=tuple(dict.fromkeys([*new.keywords, *old.keywords])),
        temporal=new.temporal or old.temporal,
        associations=tuple(dict.fromkeys([*new.associations, *old.associations])),
        identifiers=tuple(
            {i.literal: i for i in [*old.identifiers, *new.identifiers]}.values()
        ),
    )
    return VagueRecall(trace=trace, unit=read_unit(said, recall.unit), cues=(*recall.cues, said))


def input_type(trace: RecallTrace) -> InputType:
    if trace.identifiers and not (trace.keywords or trace.associations):
        return InputType.STRUCTURED_IDENTIFIER
    if trace.identifiers:
        return InputType.MIXED
    return InputType.NATURAL_RECALL


def track_of(kind: InputType) -> Track:
    return {
        InputType.STRUCTURED_IDENTIFIER: Track.ENTROPY,
        InputType.NATURAL_RECALL: Track.SALIENCE,
        InputType.MIXED: Track.HYBRID,
    }[kind]


def named_sessions(trace: RecallTrace) -> tuple[str, ...]:
    """Session ids the user named outright (an intention that is not empty)."""
    return tuple(i.literal for i in trace.identifiers if i.namespace == "session")


__all__ = [
    "CueIdentifier",
    "InputType",
    "RecallTrace",
    "Track",
    "Unit",
    "VagueRecall",
    "cue",
    "extract_trace",
    "has_cue",
    "input_type",
    "named_sessions",
    "read_unit",
    "recue",
    "track_of",
]
