"""What a composer returns: a grounded answer with its surface and its provenance."""

from __future__ import annotations

import enum

import attrs

from turnframe.corpora.intents import IntentTag


class GroundingSource(enum.Enum):
    """Where an answer's content comes from. ``pack`` and ``teaching`` are the strong tiers."""

    PACK = "pack"
    TEACHING = "teaching"
    OOV = "oov"
    CASE = "case"
    NONE = "none"


STRONG_SOURCES = frozenset({GroundingSource.PACK, GroundingSource.TEACHING})


def _at_least_one(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, got {value}")


@attrs.frozen(kw_only=True)
class CompositionLimits:
    """Bounds on every surface: clauses per narrative, examples, domains shown per entry."""

    max_clauses: int = attrs.field(default=4, validator=_at_least_one)
    max_examples: int = attrs.field(default=3, validator=_at_least_one)
    max_domains: int = attrs.field(default=3, validator=_at_least_one)


DEFAULT_LIMITS = CompositionLimits()


@attrs.frozen(kw_only=True)
class GroundedAnswer:
    """A surface (one line, or ``None`` when there is nothing to say) and where it came from.

    ``subject`` is the resolved lemma when the subject is known, else the normalised phrase.
    ``pack_id`` is the pack the subject's entry came from; ``corpus_ids`` and ``chain_ids`` the
    corpora and chains the surface shows, in order. ``recalled_turn`` is set when an anaphora
    prefix was added, naming the turn it recalls.
    """

    intent: IntentTag
    subject: str
    grounding_source: GroundingSource
    surface: str | None
    pack_id: str | None = None
    corpus_ids: tuple[str, ...] = ()
    chain_ids: tuple[str, ...] = ()
    recalled_turn: int | None = None
