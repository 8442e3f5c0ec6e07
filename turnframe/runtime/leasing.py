"""Session leases: with many workers on one database, each live session is served by one.

A runtime started with ``RuntimeSettings(session_lease_seconds=...)`` takes a session's lease
before its session actor serves a turn and renews it once half of it has run out. Another
worker's live lease refuses the turn with :class:`SessionLeasedElsewhere` (route the session to
that worker, or retry after the lease runs out). A lease that expires (its worker died) is
taken over, and the session's unfinished turns are recovered from their phase markers.

Leases use the wall clock (workers on several machines share no other); a lost lease never
risks a double effect, because admission, phases and events move only by compare-and-swap and
idempotency key: the lease keeps two workers from *serving* a session at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from turnframe.clock import Clock
from turnframe.errors import TurnframeError
from turnframe.stores.protocol import Store
from turnframe.stores.records import SessionLease, SessionRecord


class SessionLeasedElsewhere(TurnframeError):
    """Another worker holds this session's lease; this worker must not serve it now."""

    code = "turnframe.runtime.session_leased_elsewhere"


class SessionLeases:
    def __init__(self, store: Store, clock: Clock, *, worker_id: str, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError(f"a session lease must last a positive time, got {seconds}")
        self._store = store
        self._clock = clock
        self.worker_id = worker_id
        self._length = timedelta(seconds=seconds)
        self._held: dict[tuple[str, str], datetime] = {}
        self._epochs: dict[tuple[str, str], int] = {}

    def holder(self, account_id: str, session_id: str) -> tuple[str, int] | None:
        """``(worker_id, epoch)`` while this worker holds the session's lease, else None: what
        the store's lease fence compares with the session row (ADR 0018)."""
        epoch = self._epochs.get((account_id, session_id))
        return None if epoch is None else (self.worker_id, epoch)

    def holds(self, account_id: str, session_id: str) -> bool:
        return (account_id, session_id) in self._held

    def adopt(self, lease: SessionLease) -> None:
        """Hold a lease granted by a claim (``Store.claim_sessions``)."""
        key = (lease.account_id, lease.session_id)
        self._held[key] = lease.expires_at
        self._epochs[key] = lease.epoch

    def forget(self, account_id: str, session_id: str) -> None:
        """Stop holding a lease this worker lost (another worker took it over)."""
        self._held.pop((account_id, session_id), None)
        self._epochs.pop((account_id, session_id), None)

    async def ensure(self, account_id: str, session_id: str) -> SessionLease | None:
        """Hold the session's lease (taking or renewing it as needed); the new lease when one
        was taken or renewed now, None when the one held is still fresh."""
        key = (account_id, session_id)
        now = self._clock.now()
        expires = self._held.get(key)
        if expires is not None and expires - now > self._length / 2:
            return None
        lease = await self._store.acquire_session_lease(
            account_id, session_id, worker_id=self.worker_id, now=now, expires_at=now + self._length
        )
        if lease is None:
            self.forget(account_id, session_id)
            raise SessionLeasedElsewhere(
                f"session {session_id!r} is served by another worker",
                hint="route its turns to the worker holding the lease, or retry when it expires",
            )
        self._held[key] = lease.expires_at
        self._epochs[key] = lease.epoch
        return lease

    async def release(self, account_id: str, session_id: str) -> None:
        self._epochs.pop((account_id, session_id), None)  # nothing more is written for it
        if self._held.pop((account_id, session_id), None) is not None:
            await self._store.release_session_lease(
                account_id, session_id, worker_id=self.worker_id
            )

    async def release_all(self) -> None:
        for account_id, session_id in list(self._held):
            await self.release(account_id, session_id)

    async def claim_orphans(self, limit: int = 100) -> list[SessionRecord]:
        """Sessions with unfinished turns and no live lease, now leased to this worker."""
        claimed = []
        for session in await self._store.list_claimable_sessions(
            now=self._clock.now(), limit=limit
        ):
            try:
                await self.ensure(session.account_id, session.session_id)
            except SessionLeasedElsewhere:
                continue  # another worker claimed it first
            claimed.append(session)
        return claimed
