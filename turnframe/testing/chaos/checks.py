"""The invariants a chaos run checks once recovery has finished, from the store's records.

=============================  ==============================================================
invariant                      what must hold
=============================  ==============================================================
``runtime_stopped``            the runtime outlived every fault, and recovery started
``untyped_error``              a caller only ever got a response or a typed error
``duplicated_effect``          no command's events committed twice; no effect performed twice
``lost_turn``                  a turn a caller got an answer for is stored with that answer
``act_result_not_visible``     every act has exactly one result, and a block shows it; every
                               committed event is shown by a receipt of its turn
``receipt_without_event``      every receipt names events the store committed
``interpretation_after_seal``  no turn is interpreted again once sealed (or finished)
``unknown_outcome_resent``     an effect whose outcome is unknown is never sent again
``turn_not_final``             no turn is left in a non-final phase after recovery
``failed_but_committed``       a turn that says it failed committed nothing
``effect_not_settled``         after recovery every committed effect is settled
=============================  ==============================================================

The last two witness-time invariants (seal, unknown outcome) are flagged while the run happens
(:mod:`turnframe.testing.chaos.injectors`); the rest are read here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.narration.coverage import uncovered_acts
from turnframe.response import Block, BlockKind, TurnResponse
from turnframe.results import ReductionPlan
from turnframe.stores.protocol import Store
from turnframe.stores.records import OutboxStatus, TurnRecord
from turnframe.testing.chaos.injectors import ChaosSender, Recorder, Witness
from turnframe.testing.invariants import exactly_once_violations, receipt_violations

INVARIANTS = (
    "runtime_stopped",
    "untyped_error",
    "duplicated_effect",
    "lost_turn",
    "act_result_not_visible",
    "receipt_without_event",
    "interpretation_after_seal",
    "unknown_outcome_resent",
    "turn_not_final",
    "failed_but_committed",
    "effect_not_settled",
)


@attrs.frozen(kw_only=True)
class Played:
    """One line of the conversation as the caller saw it: a response, or a typed error."""

    line: str
    turn_id: str | None
    response: TurnResponse | None = None
    error: str | None = None


async def check_run(
    store: Store,
    account_id: str,
    *,
    played: Sequence[Played],
    recorder: Recorder,
    sender: ChaosSender,
    witness: Witness,
) -> None:
    """Read every invariant off ``store`` (the real one, after recovery) into ``witness``."""
    for turn in await store.list_unfinished_turns(account_id=account_id):
        witness.violated("turn_not_final", f"turn {turn.turn_id} is still {turn.phase.value}")
    sessions = await store.list_sessions(account_id)
    turns = [
        t for s in sessions for t in await store.list_session_turns(account_id, s.session_id)
    ]
    for turn in turns:
        await _check_turn(store, turn, witness)
    await _check_effects(store, account_id, recorder, sender, witness)
    await _check_answers(store, account_id, played, witness)


async def _check_turn(store: Store, turn: TurnRecord, witness: Witness) -> None:
    account, turn_id = turn.account_id, turn.turn_id
    for problem in await receipt_violations(store, account, turn_id):
        witness.violated("receipt_without_event", problem)
    if turn.phase is TurnPhase.FAILED:
        journal = await store.list_journal(account, turn_id)
        if any(j.status is JournalStatus.COMMITTED for j in journal) or await store.list_events(
            account, turn_id=turn_id
        ):
            witness.violated("failed_but_committed", f"turn {turn_id} failed but committed")
    if not turn.phase.is_terminal:
        return
    stored = await store.get_assistant_turn(account, turn_id)
    blocks = [] if stored is None else [converter.structure(b, Block) for b in stored.blocks]
    await _check_receipted(store, turn, blocks, stored.meta if stored else None, witness)
    if turn.reduction is None:
        return
    reduction = converter.structure(turn.reduction, ReductionPlan)
    acts = _act_count(turn)
    counts = Counter(r.act_index for r in reduction.results)
    one_each = set(counts) == set(range(acts or 0)) and all(n == 1 for n in counts.values())
    if acts is not None and not one_each:
        witness.violated(
            "act_result_not_visible",
            f"turn {turn_id}: {acts} act(s) but results for {sorted(counts.elements())}",
        )
    for ref in uncovered_acts(blocks, reduction):
        witness.violated(
            "act_result_not_visible", f"turn {turn_id}: act {ref.index} has no block showing it"
        )


async def _check_receipted(
    store: Store, turn: TurnRecord, blocks: Sequence[Block], meta: Any, witness: Witness
) -> None:
    """What a turn committed is shown: each of its events is in a receipt of its reply (unless
    the reply itself was parked, which says so instead of claiming anything)."""
    if isinstance(meta, dict) and meta.get("parked"):
        return
    shown = {seq for b in blocks if b.kind is BlockKind.RECEIPT for seq in b.data.get("events", ())}
    for event in await store.list_events(turn.account_id, turn_id=turn.turn_id):
        if event.seq not in shown:
            witness.violated(
                "act_result_not_visible",
                f"turn {turn.turn_id} committed event {event.seq} ({event.type}) but no receipt "
                "shows it",
            )


def _act_count(turn: TurnRecord) -> int | None:
    plan: Any = (turn.plan or {}).get("plan")
    acts = plan.get("acts") if isinstance(plan, dict) else None
    return len(acts) if isinstance(acts, list) else None


async def _check_effects(
    store: Store, account_id: str, recorder: Recorder, sender: ChaosSender, witness: Witness
) -> None:
    for problem in await exactly_once_violations(store, account_id):
        witness.violated("duplicated_effect", problem)
    for command, commits in sorted(recorder.commits.items()):
        if commits > 1:
            witness.violated(
                "duplicated_effect", f"command {command}'s events committed {commits} times"
            )
    rows = await store.list_outbox(account_id)
    per_command = Counter(r.command_id for r in rows if r.command_id is not None)
    for command, count in sorted(per_command.items()):
        if count > 1:
            witness.violated("duplicated_effect", f"command {command} has {count} outbox rows")
    for command in sender.duplicated_commands():
        witness.violated("duplicated_effect", f"command {command}'s effect was performed twice")
    settled = (OutboxStatus.COMPLETED, OutboxStatus.PERMANENT_FAILED)
    for row in rows:
        if row.status not in settled:
            witness.violated(
                "effect_not_settled", f"effect {row.effect_id} is {row.status.value} after recovery"
            )


async def _check_answers(
    store: Store, account_id: str, played: Sequence[Played], witness: Witness
) -> None:
    for step in played:
        response = step.response
        if response is None:
            continue
        turn = await store.get_turn(account_id, response.turn_id)
        if turn is None:
            witness.violated("lost_turn", f"turn {response.turn_id} was answered but not stored")
            continue
        if not response.phase.is_terminal or turn.phase is not response.phase:
            witness.violated(
                "lost_turn",
                f"turn {response.turn_id} was answered {response.phase.value} but is stored "
                f"{turn.phase.value}",
            )
        stored = await store.get_assistant_turn(account_id, response.turn_id)
        answered = [converter.unstructure(b) for b in response.blocks]
        if stored is None or stored.blocks != answered:
            witness.violated(
                "lost_turn", f"turn {response.turn_id}'s stored reply is not the one answered"
            )


__all__ = ["INVARIANTS", "Played", "check_run"]
