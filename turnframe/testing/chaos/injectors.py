"""Where a chaos run's faults enter, and the witnesses that watch for violations as they happen.

- :class:`FaultyProvider` wraps the workflow's own provider at the provider interface and
  fails the requests its schedule names; it also asks the :class:`SealMonitor`, before every
  interpretation request, whether the turn is already sealed or finished.
- :class:`ChaosSender` is the outbox adapter and the remote receiver behind it (deduping by
  idempotency key, as receivers must); it dies after sending when told to, and flags any send of
  an effect whose outcome is recorded unknown and was not reconciled as "did not happen".
- :class:`Recorder` sits next to the real store: it counts, per command, the transactions
  that committed its events, and keeps the outbox keys whose outcome is recorded unknown.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

import anyio
import anyio.lowlevel
import attrs

from turnframe.outbox.effects import OutboundEffect
from turnframe.outbox.reconcile import Reconciliation
from turnframe.outbox.sender import SendResult
from turnframe.providers.base import (
    HoldsSecrets,
    Provider,
    ProviderAnswer,
    ProviderRequest,
    Purpose,
)
from turnframe.providers.errors import ProviderRefused, ProviderUnavailable, RateLimited
from turnframe.providers.redaction import redact
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.inputs import CommitBundle
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import BundleReceipt, Json, OutboxRecord, OutboxResult
from turnframe.testing.chaos.schedule import (
    ActorFault,
    ActorTarget,
    FaultKind,
    ProviderFault,
    SenderFault,
)
from turnframe.testing.scripted import ManualDeadline


@attrs.frozen(kw_only=True)
class Violation:
    """One broken invariant: its stable name and what was seen."""

    invariant: str
    detail: str


class Witness:
    """Violations seen during one run, and the faults that actually fired.

    A detail may quote an error, and an error a provider's words: each is redacted (the
    providers' secrets, anything shaped like a key) before it is kept, printed or reported."""

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.fired: Counter[str] = Counter()
        self.secrets: set[str] = set()

    def violated(self, invariant: str, detail: str) -> None:
        self.violations.append(Violation(invariant=invariant, detail=redact(detail, self.secrets)))


class InjectedActorCrash(RuntimeError):
    """An untyped error raised inside a stage actor's handler: a crash mid-message."""


class ProviderFaultBook:
    """The run's provider faults by (stage, request number), shared by every provider of both
    chains, and the stage-actor crashes (on interpret requests)."""

    def __init__(
        self, faults: Sequence[ProviderFault], crashes: Sequence[ActorFault], witness: Witness
    ) -> None:
        self._faults = {(f.purpose, f.request): f for f in faults}
        self._crashes = {c.occurrence for c in crashes if c.target is ActorTarget.STAGE}
        self._seen: Counter[Purpose] = Counter()
        self.witness = witness

    def take(self, purpose: Purpose) -> ProviderFault | FaultKind | None:
        self._seen[purpose] += 1
        number = self._seen[purpose]
        if purpose is Purpose.INTERPRET and number in self._crashes:
            self.witness.fired[FaultKind.ACTOR_CRASH.value] += 1
            return FaultKind.ACTOR_CRASH
        fault = self._faults.get((purpose, number))
        if fault is not None:
            self.witness.fired[fault.kind.value] += 1
        return fault


class SealMonitor:
    """Flags an interpretation request for a turn that is sealed (commands admitted) or already
    finished, read from the real store at the moment the request is made."""

    def __init__(self, store: Store, account_id: str, witness: Witness) -> None:
        self._store = store
        self._account = account_id
        self._witness = witness

    async def check(self, request: ProviderRequest) -> None:
        if request.purpose is not Purpose.INTERPRET:
            return
        turn = await self._store.get_turn(self._account, request.turn_id)
        if turn is None:
            return
        if turn.phase.is_sealed or turn.phase.is_terminal:
            self._witness.violated(
                "interpretation_after_seal",
                f"turn {request.turn_id} was interpreted again in phase {turn.phase.value}",
            )
        elif await self._store.list_journal(self._account, request.turn_id):
            self._witness.violated(
                "interpretation_after_seal",
                f"turn {request.turn_id} was interpreted again after its commands were admitted",
            )


class FaultyProvider:
    """The workflow's provider behind the schedule's provider faults (at the interface)."""

    def __init__(
        self,
        inner: Provider,
        *,
        name: str,
        book: ProviderFaultBook,
        monitor: SealMonitor,
        deadline: ManualDeadline,
    ) -> None:
        self.name = name
        self._inner = inner
        self._book = book
        self._monitor = monitor
        self._deadline = deadline

    @property
    def context_budget_tokens(self) -> int:
        return self._inner.context_budget_tokens

    @property
    def secrets(self) -> tuple[str, ...]:
        """The wrapped provider's secrets, so the chain still redacts them."""
        return tuple(self._inner.secrets) if isinstance(self._inner, HoldsSecrets) else ()

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        await self._monitor.check(request)
        fault = self._book.take(request.purpose)
        if fault is FaultKind.ACTOR_CRASH:
            raise InjectedActorCrash("injected crash in a stage actor, mid-message")
        assert fault is None or isinstance(fault, ProviderFault)
        return await self.deliver(request, fault)

    async def deliver(
        self, request: ProviderRequest, fault: ProviderFault | None
    ) -> ProviderAnswer:
        """The answer to ``request``, or ``fault`` instead: raised here, at the interface (a
        subclass may bring it over real HTTP instead, see :mod:`.over_http`)."""
        if fault is None:
            return await self._inner.complete(request)
        kind = fault.kind
        if kind is FaultKind.PROVIDER_TIMEOUT:
            self._deadline.expire()  # the attempt's deadline passes; this one never answers
            await anyio.sleep_forever()
        if kind is FaultKind.PROVIDER_LATE_ANSWER:
            self._deadline.expire()
            await anyio.lowlevel.checkpoint()
            return await self._inner.complete(request)  # after the deadline: recorded, unused
        if kind is FaultKind.PROVIDER_RATE_LIMITED:
            raise RateLimited("HTTP 429 Too Many Requests", retry_after=fault.retry_after)
        if kind is FaultKind.PROVIDER_SERVER_ERROR:
            raise ProviderUnavailable(f"HTTP {fault.status} from the provider")
        if kind is FaultKind.PROVIDER_CONNECTION_DROPPED:
            raise ProviderUnavailable("the connection dropped in the middle of the body")
        if kind is FaultKind.PROVIDER_REFUSAL:
            raise ProviderRefused("the model declined to answer")
        answer = await self._inner.complete(request)  # malformed: the body cut in half
        return ProviderAnswer(text=answer.text[: len(answer.text) // 2], model=answer.model)


class LeadWriter:
    """A narration provider for chaos runs: one plain lead sentence, so the narrate stage
    sends requests (and gets faults) like a model narrator would."""

    name = "lead-writer"
    context_budget_tokens = 8192

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        await anyio.lowlevel.checkpoint()
        return ProviderAnswer(text=json.dumps({"lead": "Here is where your request stands."}))


class ChaosSender:
    """The outbox adapter (every channel) and the receiver behind it.

    The receiver performs each idempotency key once. A scheduled death performs the effect and
    then raises, so the dispatcher records an unknown outcome; the :class:`Recorder` below the
    store says which keys are unknown, and a send of one of them is a violation.
    """

    idempotency_keys = True  # the receiver performs each key once

    def __init__(self, faults: Sequence[SenderFault], recorder: Recorder, witness: Witness):
        self._deaths = {f.send for f in faults}
        self._recorder = recorder
        self._witness = witness
        self.sends = 0
        self.performed: dict[str, str | None] = {}  # key -> command id

    async def send(self, effect: OutboundEffect) -> SendResult:
        self.sends += 1
        key = effect.idempotency_key
        if key in self._recorder.unknown:
            self._witness.violated(
                "unknown_outcome_resent",
                f"effect {effect.effect_id} was sent again although its outcome is recorded "
                "unknown and was never reconciled as not happened",
            )
        await anyio.lowlevel.checkpoint()
        if key not in self.performed:
            self.performed[key] = effect.command_id
        if self.sends in self._deaths:
            self._witness.fired[FaultKind.SENDER_DIES_AFTER_SENDING.value] += 1
            raise RuntimeError("the outbox adapter died after sending")
        return SendResult.completed({"receipt": key[:12]})

    async def check(self, effect: OutboundEffect) -> Reconciliation:
        """The reconciler: the receiver knows what it performed."""
        await anyio.lowlevel.checkpoint()
        if effect.idempotency_key in self.performed:
            return Reconciliation.completed({"receipt": effect.idempotency_key[:12]})
        return Reconciliation.not_happened()

    def duplicated_commands(self) -> list[str]:
        """Commands whose effect the receiver performed under more than one key."""
        per_command = Counter(c for c in self.performed.values() if c is not None)
        return sorted(c for c, n in per_command.items() if n > 1)


class Recorder(DelegatingStore):
    """Next to the real store: counts, per command, the transactions that committed its events
    (exactly one each), and keeps the outbox keys whose outcome is recorded unknown (until a
    reconciliation says the effect did not happen)."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.commits: Counter[str] = Counter()
        self.unknown: set[str] = set()

    async def commit_bundle(
        self, bundle: CommitBundle, *, inside_transaction: InsideTransactionHook | None = None
    ) -> BundleReceipt:
        receipt = await self.inner.commit_bundle(bundle, inside_transaction=inside_transaction)
        for command in {e.command_id for e in bundle.events if e.command_id is not None}:
            self.commits[command] += 1
        return receipt

    async def settle_outbox(
        self,
        account_id: str,
        effect_id: str,
        *,
        claim_token: str,
        result: OutboxResult,
        outcome: Json | None = None,
        retry_at: datetime | None = None,
    ) -> OutboxRecord:
        record = await self.inner.settle_outbox(
            account_id,
            effect_id,
            claim_token=claim_token,
            result=result,
            outcome=outcome,
            retry_at=retry_at,
        )
        if result is OutboxResult.OUTCOME_UNKNOWN:
            self.unknown.add(record.idempotency_key)
        return record

    async def reconcile_outbox(
        self, account_id: str, effect_id: str, *, result: OutboxResult, outcome: Json | None = None
    ) -> OutboxRecord:
        record = await self.inner.reconcile_outbox(
            account_id, effect_id, result=result, outcome=outcome
        )
        if result is OutboxResult.RETRYABLE:  # it certainly did not happen: may go again
            self.unknown.discard(record.idempotency_key)
        return record


__all__ = [
    "ChaosSender",
    "FaultyProvider",
    "InjectedActorCrash",
    "LeadWriter",
    "ProviderFaultBook",
    "Recorder",
    "SealMonitor",
    "Violation",
    "Witness",
]
