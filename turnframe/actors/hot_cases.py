"""Hot cases: many turns writing one case at once (ADR 0018, with the seal of ADR 0014).

A reduction decides commands against the case revision it read. When another turn commits to
that case first, those commands would fail at the commit with a revision conflict, although
nothing of this turn has executed yet. So the session seals *guarded*: the seal transaction
(``Store.seal_turn`` on the live path; the gate's admission for a resumed turn still
``reduced``) checks that each case of the ready batches is still at the expected revision and
that no other turn is writing it (a live claim, or admitted commands not yet settled);
otherwise nothing of the seal is written and the store raises :class:`CaseContended`.

- Either way the turn claims the case (``Store.claim_case``; while held, no other turn seals
  on it), waiting with a doubling pause while another turn holds or writes it.
- Once it holds the case, and the case moved, it re-reads the case and reduces the *same
  plan* again (never interprets again) and seals that. On the live path the refused seal wrote
  nothing, so the new reduction simply goes into the next seal; a resumed turn replaces its
  stored, unsealed reduction (``Store.renew_reduction``).

At most ``attempts`` re-reductions (tenacity); the last try seals unguarded, so a case that
still moves meanwhile gives that batch the revision-conflict result, which says truthfully that
nothing was changed. Claims are dropped once the seal is done (after it, the turn's admitted,
unsettled commands keep other turns' guarded seals off the case; a crash lets claims lapse).
A reduction that opens, answers or supersedes a card is never reduced again (cards are saved
with it and never rewritten): it seals unguarded, as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

import anyio

from turnframe._retry import exponential_wait, retrying
from turnframe.results import CommandBatch, ReductionPlan
from turnframe.stores.contention import CaseContended, CaseGuard
from turnframe.stores.protocol import Store

#: How long a turn holds a case it claimed (it renews while it waits).
CLAIM_SECONDS = 10.0

R = TypeVar("R")
#: Seal (and, for a resumed turn, run) a reduction; ``guarded``: refuse a contended case.
Execute = Callable[[ReductionPlan, bool], Awaitable[R]]


def may_reduce_again(reduction: ReductionPlan) -> bool:
    return bool(reduction.batches) and not (
        reduction.interactions
        or reduction.interaction_outcome is not None
        or reduction.superseded_interaction_ids
        or reduction.awaiting_batches
    )


def case_guard(account_id: str, turn_id: str, ready: Iterable[CommandBatch]) -> CaseGuard | None:
    """The guard of a seal admitting ``ready`` batches (None when there are none)."""
    expectations = tuple(dict.fromkeys((b.case_id, b.expected_revision) for b in ready))
    if not expectations:
        return None
    return CaseGuard(account_id=account_id, turn_id=turn_id, expectations=expectations)


class _Wait(Exception):
    """The case is not this turn's yet (another turn holds or writes it): wait, then try."""


async def seal_hot(
    store: Store,
    account_id: str,
    turn_id: str,
    reduction: ReductionPlan,
    *,
    execute: Execute[R],
    reduce_again: Callable[[], Awaitable[ReductionPlan]],
    attempts: int,
    wait_seconds: float,
) -> R:
    """Seal ``reduction`` (``execute(reduction, guarded)``), handling hot cases as the module
    says."""
    if attempts <= 0 or not may_reduce_again(reduction):
        return await execute(reduction, False)
    claimed = False

    async def when_free(current: ReductionPlan, guarded: bool) -> R:
        nonlocal claimed
        waits = retrying(
            retry_on=lambda error: isinstance(error, _Wait),
            wait=exponential_wait(initial=0.002, factor=2, maximum=0.1),
            within=wait_seconds,
        )
        try:
            async for wait in waits:
                with wait:
                    try:
                        return await execute(current, guarded)
                    except CaseContended as contended:
                        # Claim the case first (or renew the claim): re-reducing while another
                        # turn may still move it would only be refused again.
                        held = await store.claim_case(
                            account_id, contended.case_id, turn_id=turn_id, seconds=CLAIM_SECONDS
                        )
                        claimed |= held
                        if contended.busy or not held:
                            raise _Wait from contended
                        raise
        except _Wait as waited:  # still not this turn's after the wait: a contended try
            raise waited.__cause__ or waited from None
        raise AssertionError("tenacity either returns the report or re-raises the error")

    rounds = retrying(retry_on=lambda e: isinstance(e, CaseContended), attempts=attempts + 1)
    try:
        async for attempt in rounds:
            with attempt:
                guarded = attempt.retry_state.attempt_number <= attempts
                try:
                    return await when_free(reduction, guarded)
                except CaseContended:
                    reduction = await reduce_again()
                    raise
    finally:
        if claimed:
            with anyio.CancelScope(shield=True):
                await store.release_case_claims(account_id, turn_id)
    raise AssertionError("tenacity either returns the report or re-raises the error")


__all__ = ["CLAIM_SECONDS", "case_guard", "may_reduce_again", "seal_hot"]
