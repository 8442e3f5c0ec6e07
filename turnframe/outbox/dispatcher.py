"""``OutboxDispatcher``: claims committed outbox rows, sends each with its idempotency key,
settles the result, releases expired claims and reconciles unknown outcomes.

The rules it keeps:

- A row is sent only while claimed under this pass's lease token, always with the row's own
  idempotency key, so every re-send of a row is the same request to the remote side.
- A send that times out, raises, or is cancelled in flight is ``outcome_unknown``: the dispatcher
  never sends it again on its own; only reconciliation (``not_happened``) returns it for sending.
- The only other way a row is sent twice is a dispatcher that dies (or cannot reach the store)
  holding a lease, and only for a sender that declares ``idempotency_keys = True`` (its
  receiver dedupes on the key): the reaper returns the row to pending and it is sent again with
  the same key. For any other sender the reaper makes the row ``outcome_unknown``: reconciled,
  never re-sent blind.
- No hidden tasks: :meth:`run` is a loop the runtime starts in its own task group; it wakes on
  :meth:`notify` (called after each commit) or every ``poll_interval``, and stops on
  cancellation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

import anyio
from anyio.abc import TaskStatus

from turnframe._ids import new_id
from turnframe._retry import retrying
from turnframe.clock import Clock
from turnframe.errors import ConfigError
from turnframe.outbox.backoff import RetryPolicy
from turnframe.outbox.deadline import Sleep, answer_within
from turnframe.outbox.effects import OutboundEffect
from turnframe.outbox.errors import (
    CANCELLED_IN_FLIGHT,
    MALFORMED_EFFECT,
    NO_SENDER,
    RETRIES_EXHAUSTED,
    DispatcherAlreadyRunning,
    MalformedEffect,
)
from turnframe.outbox.reconcile import (
    RESULT_FOR_VERDICT,
    ReconciledEffect,
    Reconciler,
    ReconcileReport,
    ReconcileVerdict,
    check_within,
)
from turnframe.outbox.report import (
    SETTLEMENT_FOR_RESULT,
    DispatchedEffect,
    DispatchReport,
    Settlement,
)
from turnframe.outbox.sender import (
    EffectSender,
    SendResult,
    declares_idempotency_keys,
    send_within,
)
from turnframe.stores.errors import LeaseLost, StatusConflict, StoreError, StoreTimeout
from turnframe.stores.protocol import Store
from turnframe.stores.records import OutboxRecord, OutboxResult, OutboxStatus

logger = logging.getLogger("turnframe.outbox")

#: A settle that timed out wrote nothing (StoreTimeout): it is tried this many times in all.
_SETTLE_TRIES = 3


class OutboxDispatcher:
    """Sends committed external effects through the sender registered for each channel.

    ``lease`` is how long a claim is held (on ``clock``); it must exceed ``send_timeout`` plus
    ``store_timeout`` (the bound on each store call) so a live dispatcher records its result
    before the reaper frees the row.
    ``deadline`` and ``sleep`` bound the send/reconcile waits and the poll interval; they are
    ``anyio.sleep`` unless a test injects virtual ones. ``on_report`` (metrics, tests) sees every
    report of a pass that claimed something, synchronously; it must not block.
    """

    def __init__(
        self,
        store: Store,
        senders_by_channel: Mapping[str, EffectSender],
        clock: Clock,
        *,
        lease: timedelta = timedelta(seconds=60),
        send_timeout: float = 15.0,
        store_timeout: float = 10.0,
        reconcile_timeout: float = 15.0,
        batch_size: int = 16,
        retry: RetryPolicy | None = None,
        no_sender_delay: timedelta = timedelta(minutes=1),
        poll_interval: float = 1.0,
        reconcile_interval: timedelta = timedelta(minutes=1),
        deadline: Sleep = anyio.sleep,
        sleep: Sleep = anyio.sleep,
        on_report: Callable[[DispatchReport], None] | None = None,
    ) -> None:
        if min(send_timeout, store_timeout, reconcile_timeout, poll_interval) <= 0:
            raise ConfigError(
                "OutboxDispatcher: send_timeout, store_timeout, reconcile_timeout and "
                "poll_interval must be positive"
            )
        if lease.total_seconds() <= send_timeout + store_timeout:
            raise ConfigError(
                f"OutboxDispatcher: lease ({lease}) must exceed send_timeout + store_timeout "
                f"({send_timeout + store_timeout} s), or live sends get reaped and sent twice"
            )
        if no_sender_delay <= timedelta(0):
            raise ConfigError("OutboxDispatcher: no_sender_delay must be positive")
        if batch_size < 1:
            raise ConfigError(f"OutboxDispatcher: batch_size must be >= 1, got {batch_size}")
        self._store = store
        self._senders = dict(senders_by_channel)
        self._clock = clock
        self._lease = lease
        self._send_timeout = send_timeout
        self._store_timeout = store_timeout
        self._reconcile_timeout = reconcile_timeout
        self._batch_size = batch_size
        self._retry = retry or RetryPolicy.conservative()
        self._no_sender_delay = no_sender_delay
        self._poll_interval = poll_interval
        self._reconcile_interval = reconcile_interval
        self._deadline = deadline
        self._sleep = sleep
        self._on_report = on_report
        self._wake: anyio.Event | None = None

    # -- one pass -----------------------------------------------------------------------------
    async def dispatch_once(self, *, account_id: str | None = None) -> DispatchReport:
        """Claim up to ``batch_size`` available rows (all accounts unless ``account_id``), send
        them concurrently, settle each, and report. A store failure while claiming propagates
        (nothing was sent); one while settling leaves that row claimed for the reaper."""
        now = self._clock.now()
        token = new_id("clm_")
        with anyio.fail_after(self._store_timeout):
            claimed = await self._store.claim_outbox(
                account_id=account_id,
                claim_token=token,
                now=now,
                lease_expires_at=now + self._lease,
                limit=self._batch_size,
            )
        slots: list[DispatchedEffect | None] = [None] * len(claimed)
        async with anyio.create_task_group() as tg:
            for index, record in enumerate(claimed):
                tg.start_soon(self._dispatch_into, slots, index, record, token)
        report = DispatchReport(claim_token=token, effects=tuple(s for s in slots if s is not None))
        if self._on_report is not None and report.claimed:
            self._on_report(report)
        return report

    async def reap(self, now: datetime | None = None) -> int:
        """Release claims whose lease expired at ``now`` (default: the clock's now). A row of a
        channel whose sender declares idempotency keys is sent again, with the same key, by the
        next pass; any other becomes ``outcome_unknown`` (it may have been sent) and waits for
        reconciliation. Returns how many."""
        at = self._clock.now() if now is None else now
        resend = frozenset(c for c, s in self._senders.items() if declares_idempotency_keys(s))
        with anyio.fail_after(self._store_timeout):
            released = await self._store.release_expired_claims(now=at, resend_channels=resend)
        if released:
            logger.warning("outbox: released %d expired claim(s)", released)
        return released

    async def reconcile(
        self, reconciler: Reconciler, *, account_id: str | None = None
    ) -> ReconcileReport:
        """Ask ``reconciler`` about every ``outcome_unknown`` row (oldest first) and settle the
        conclusive answers through ``store.reconcile_outbox``."""
        with anyio.fail_after(self._store_timeout):
            rows = await self._store.list_outbox(account_id, status=OutboxStatus.OUTCOME_UNKNOWN)
        answered: list[ReconciledEffect] = []
        skipped: list[str] = []
        for record in rows:
            verdict = await self._reconcile_one(reconciler, record)
            if verdict is None:
                skipped.append(record.effect_id)
                continue
            answered.append(
                ReconciledEffect(
                    account_id=record.account_id,
                    effect_id=record.effect_id,
                    idempotency_key=record.idempotency_key,
                    verdict=verdict,
                )
            )
        return ReconcileReport(effects=tuple(answered), skipped=tuple(skipped))

    async def _reconcile_one(
        self, reconciler: Reconciler, record: OutboxRecord
    ) -> ReconcileVerdict | None:
        try:
            effect = OutboundEffect.from_record(record)
        except MalformedEffect:
            return None
        answer = await check_within(
            reconciler, effect, seconds=self._reconcile_timeout, deadline=self._deadline
        )
        if answer.verdict is ReconcileVerdict.STILL_UNKNOWN:
            return answer.verdict
        try:
            with anyio.fail_after(self._store_timeout):
                await self._store.reconcile_outbox(
                    record.account_id,
                    record.effect_id,
                    result=RESULT_FOR_VERDICT[answer.verdict],
                    outcome=answer.outcome_json(),
                )
        except StatusConflict:  # another dispatcher reconciled it meanwhile
            return None
        if answer.verdict is ReconcileVerdict.NOT_HAPPENED:
            logger.info("outbox: %s did not happen; it is sent again", record.effect_id)
        return answer.verdict

    # -- the loop the runtime drives ----------------------------------------------------------
    def notify(self) -> None:
        """Wake the running loop (call after each commit that wrote outbox rows). Safe to call
        when the loop is not running: its next pass picks the rows up anyway."""
        if self._wake is not None:
            self._wake.set()

    async def run(
        self,
        *,
        reconciler: Reconciler | None = None,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Reap, dispatch until nothing is left, reconcile (every ``reconcile_interval`` when a
        reconciler is given), then wait for :meth:`notify` or ``poll_interval``; forever.

        Start it with ``await task_group.start(dispatcher.run)``: it reports started after its
        first pass. A store timeout skips to the next pass (expired claims are reaped there);
        other errors propagate (to the supervisor). Cancellation stops it; a send in flight is
        recorded ``outcome_unknown``."""
        if self._wake is not None:
            raise DispatcherAlreadyRunning()
        self._wake = anyio.Event()
        next_reconcile = self._clock.now()
        started = False
        try:
            while True:
                if reconciler is not None and self._clock.now() >= next_reconcile:
                    next_reconcile = self._clock.now() + self._reconcile_interval
                    await self._pass(reconciler)
                else:
                    await self._pass(None)
                if not started:
                    task_status.started()
                    started = True
                await self._wait_for_work(self._wake)
                self._wake = anyio.Event()
        finally:
            self._wake = None

    async def _pass(self, reconciler: Reconciler | None) -> None:
        try:
            await self.reap()
            while (await self.dispatch_once()).claimed == self._batch_size:
                pass  # a full batch: more rows may be waiting
            if reconciler is not None:
                await self.reconcile(reconciler)
        except (StoreTimeout, TimeoutError) as error:  # the next pass tries again
            logger.warning("outbox: pass skipped: %s", error)

    async def _wait_for_work(self, wake: anyio.Event) -> None:
        await answer_within(wake.wait, seconds=self._poll_interval, deadline=self._sleep)

    # -- one row ------------------------------------------------------------------------------
    async def _dispatch_into(
        self, slots: list[DispatchedEffect | None], index: int, record: OutboxRecord, token: str
    ) -> None:
        slots[index] = await self._dispatch(record, token)

    async def _dispatch(self, record: OutboxRecord, token: str) -> DispatchedEffect:
        try:
            effect = OutboundEffect.from_record(record)
        except MalformedEffect as error:
            detail = {"error": error.message}
            result = SendResult.permanent(reason=MALFORMED_EFFECT, outcome=detail)
            return await self._settle(record, token, result)
        sender = self._senders.get(effect.channel)
        if sender is None:  # nothing was sent: try later, and never give up on it for this
            result = SendResult.retryable(reason=NO_SENDER, retry_after=self._no_sender_delay)
            return await self._settle(record, token, result, may_give_up=False)
        try:
            result = await send_within(
                sender, effect, seconds=self._send_timeout, deadline=self._deadline
            )
        except anyio.get_cancelled_exc_class():
            with anyio.move_on_after(self._store_timeout, shield=True):
                await self._settle(record, token, SendResult.unknown(reason=CANCELLED_IN_FLIGHT))
            raise
        return await self._settle(record, token, result)

    async def _settle(
        self, record: OutboxRecord, token: str, result: SendResult, *, may_give_up: bool = True
    ) -> DispatchedEffect:
        retry_at = None
        if result.result is OutboxResult.RETRYABLE:
            if may_give_up and self._retry.exhausted(record.attempts):
                last = result.outcome_json()
                result = SendResult.permanent(reason=RETRIES_EXHAUSTED, outcome={"last": last})
            else:
                delay = self._retry.delay(record.attempts, retry_after=result.retry_after)
                retry_at = self._clock.now() + delay
        settlement = await self._record(record, token, result, retry_at)
        if settlement is Settlement.OUTCOME_UNKNOWN:
            logger.warning(
                "outbox: %s has an unknown outcome (%s); it waits for reconciliation",
                record.effect_id,
                result.reason,
            )
        return DispatchedEffect(
            account_id=record.account_id,
            effect_id=record.effect_id,
            idempotency_key=record.idempotency_key,
            attempt=record.attempts,
            settlement=settlement,
            reason=result.reason,
            retry_at=retry_at if settlement is Settlement.RETRY_SCHEDULED else None,
        )

    async def _record(
        self, record: OutboxRecord, token: str, result: SendResult, retry_at: datetime | None
    ) -> Settlement:
        # A store timeout wrote nothing, so recording again is safe.
        tries = retrying(retry_on=lambda e: isinstance(e, StoreTimeout), attempts=_SETTLE_TRIES)
        try:
            async for attempt in tries:
                with attempt, anyio.fail_after(self._store_timeout):
                    await self._store.settle_outbox(
                        record.account_id,
                        record.effect_id,
                        claim_token=token,
                        result=result.result,
                        outcome=result.outcome_json(),
                        retry_at=retry_at,
                    )
        except LeaseLost:
            logger.warning("outbox: lease on %s lost before settling", record.effect_id)
            return Settlement.LEASE_LOST
        except StoreTimeout:
            logger.warning("outbox: could not settle %s: the store timed out", record.effect_id)
            return Settlement.UNSETTLED
        except (StoreError, TimeoutError) as error:
            logger.warning("outbox: could not settle %s: %s", record.effect_id, error)
            return Settlement.UNSETTLED
        return SETTLEMENT_FOR_RESULT[result.result]


__all__ = ["OutboxDispatcher"]
