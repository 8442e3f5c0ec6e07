"""Store records as the API shows them: sessions, cards with their options and arguments, and a
turn's act-by-act explanation (the verdicts ``turnframe demo`` prints, from the same code)."""

from __future__ import annotations

from turnframe._converter import converter
from turnframe.cli.explain import verdict
from turnframe.cli.render import click_line
from turnframe.http.wire import (
    ActLine,
    CardCommand,
    CardOptionView,
    CardView,
    SessionSummary,
    TurnActs,
)
from turnframe.pipeline.replay_view import ReplayView
from turnframe.results import InteractionToCreate
from turnframe.stores.records import InteractionRecord, SessionRecord


def session_summary(session: SessionRecord) -> SessionSummary:
    return SessionSummary(
        session_id=session.session_id,
        workflow=session.workflow,
        created_at=session.created_at,
        last_turn_id=session.last_turn_id,
    )


def card_view(record: InteractionRecord) -> CardView:
    """A stored card: its options (labelled as its card block shows them) and the commands it
    asks to confirm, with their arguments."""
    card = converter.structure(record.payload, InteractionToCreate)
    return CardView(
        interaction_id=card.interaction_id,
        kind=card.kind,
        turn_id=record.turn_id,
        case_id=card.case_id,
        expected_revision=card.expected_revision,
        target_label=card.target_label,
        options=tuple(
            CardOptionView(option_id=o.option_id, label=o.label or o.option_id, action=o.action)
            for o in card.options
        ),
        commands=tuple(
            CardCommand(name=c.name, args=c.args, case_id=c.case_id)
            for batch in card.awaiting_batches
            for c in batch.commands
        ),
    )


def turn_acts(view: ReplayView) -> TurnActs:
    lines = []
    for act in view.acts:
        judged = verdict(act, view)
        lines.append(
            ActLine(
                index=act.index,
                summary=act.summary,
                word=judged.word,
                why=judged.why,
                kind=act.kind,
                result=act.result,
                reason=act.reason,
                evidence=act.evidence,
            )
        )
    return TurnActs(turn_id=view.turn_id, acts=tuple(lines), click=click_line(view))


__all__ = ["card_view", "session_summary", "turn_acts"]
