"""What grounding returns for one question or recall: an :class:`Answer` with its provenance."""

from __future__ import annotations

import attrs

from turnframe.corpora import GroundingSource, IntentTag
from turnframe.errors import TurnframeError


@attrs.frozen(kw_only=True)
class Provenance:
    """Where an answer's content came from, enough for an auditor to check it without a model.

    From the case: ``case_id`` and ``case_revision`` (the state the answer read), ``workflow``
    and the workflow ``question``, or for a hypothetical the ``operation`` or ``field`` it
    explains. From reviewed corpora: ``pack_id``, ``corpus_ids`` and ``chain_ids`` in the order
    the surface shows them.
    """

    case_id: str | None = None
    case_revision: int | None = None
    workflow: str | None = None
    question: str | None = None
    operation: str | None = None
    field: str | None = None
    pack_id: str | None = None
    corpus_ids: tuple[str, ...] = ()
    chain_ids: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class Answer:
    """The answer to one act: a stable ``code`` and a one-line ``text`` from a fixed template.

    ``act_index`` and ``interaction_id`` name the act as the grounding request did (an act of
    this turn's plan when ``interaction_id`` is ``None``, else a pending act of that card).
    ``intent`` and ``subject`` are set for answers classified by the corpora intent rules;
    ``recalled_turn`` when the text carries an anaphora prefix recalling that turn.
    """

    act_index: int
    code: str
    text: str
    grounding_source: GroundingSource
    provenance: Provenance = attrs.field(factory=Provenance)
    interaction_id: str | None = None
    intent: IntentTag | None = None
    subject: str | None = None
    recalled_turn: int | None = None


class GroundingError(TurnframeError):
    """Grounding was called with inputs that do not belong together (a wiring bug)."""

    code = "turnframe.grounding.inconsistent_inputs"


class QuestionFailedError(TurnframeError):
    """A workflow's read-only question raised instead of returning a value."""

    code = "turnframe.grounding.question_failed"
