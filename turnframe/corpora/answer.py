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
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{attribute.name} must be a whole number, got {value!r}")
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, got {value}")


@attrs.frozen(kw_only=True)
class CompositionLimits:
    """The composers' settings; the defaults are the seed project's.

    - ``max_clauses``: clauses a narrative shows (4);
    - ``max_examples``: examples an example surface shows (3);
    - ``domains_subject_k``: semantic domains shown for the subject of a narrative or teaching
      surface (2);
    - ``domains_object_k``: domains shown for each object, and for the header of an example
      surface (1);
    - ``pack_domains``: domains a pack-grounded surface shows (3).

    A chain line may carry its own ``domains_subject_k`` / ``domains_object_k``; those win.
    """

    max_clauses: int = attrs.field(default=4, validator=_at_least_one)
    max_examples: int = attrs.field(default=3, validator=_at_least_one)
    domains_subject_k: int = attrs.field(default=2, validator=_at_least_one)
    domains_object_k: int = attrs.field(default=1, validator=_at_least_one)
    pack_domains: int = attrs.field(default=3, validator=_at_least_one)


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
