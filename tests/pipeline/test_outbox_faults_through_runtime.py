"""The outbox fault points through the Runtime: the turn is delivered once and the external
effect reaches the receiver once (by its idempotency key), whatever crashes around dispatch."""

from __future__ import annotations

from datetime import timedelta

import anyio
import anyio.lowlevel
import pytest
from pipeline_kit import ACCOUNT, operation, running, say, scripted

from turnframe.lifecycle import TurnPhase
from turnframe.stores import SqliteStore
from turnframe.stores.records import OutboxStatus
from turnframe.testing.faults import FaultPlan, FaultPoint, FaultyStore
from turnframe.testing.pipeline import seed_store
from turnframe.testing.senders import RecordingSender

pytestmark = pytest.mark.anyio

BOOK = "Book Carla's trip"


async def _until(condition: object) -> None:
    with anyio.fail_after(10):
        while not condition():  # type: ignore[operator]
            await anyio.lowlevel.checkpoint()


@pytest.mark.parametrize(
    "point", [FaultPoint.BEFORE_OUTBOX_DISPATCH, FaultPoint.AFTER_OUTBOX_DISPATCH]
)
async def test_a_crash_around_dispatch_delivers_the_turn_once_and_the_effect_once(
    point: FaultPoint,
) -> None:
    sender = RecordingSender()
    provider = scripted([operation(BOOK, "Carla", "book", BOOK)])
    async with SqliteStore.open(":memory:") as inner:
        await seed_store(inner)
        store = FaultyStore(inner, FaultPlan.crash(point))
        options = {"poll_interval": 3600.0}
        async with running(
            provider, store=store, senders={"booking": sender}, outbox_options=options
        ) as (rt, _):
            response = await say(rt, BOOK)
            assert response.phase is TurnPhase.DELIVERED
            await _until(lambda: store.hit_count(point) >= 1)
            dispatcher = rt.dispatcher
            assert dispatcher is not None
            # The lease of the crashed pass expires; the reaper returns the row, and the next
            # pass sends it again with the same idempotency key.
            later = rt.clock.now() + timedelta(hours=1)
            await dispatcher.reap(now=later)
            await dispatcher.dispatch_once()
            [row] = await inner.list_outbox(ACCOUNT)
            assert row.status is OutboxStatus.COMPLETED
        assert len(set(sender.keys_sent)) == 1
        assert sender.applied_keys == [row.idempotency_key]  # the receiver applied it once
        events = [e.type for e in await inner.list_events(ACCOUNT)]
        assert events == ["booking_requested"]
