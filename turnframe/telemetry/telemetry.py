"""``Telemetry``: what a Runtime reports through OpenTelemetry, and the switch for it.

Only the OpenTelemetry *API* is used (extra ``otel``); the application installs and configures
the SDK (exporters, sampling). Without the API installed, or with ``enabled=False``, every hook
is a no-op. Spans and metrics go to the global providers unless others are given (tests pass
the SDK's in-memory ones).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import anyio

from turnframe.messages import UserTurn
from turnframe.response import TurnResponse
from turnframe.stores.errors import StoreError
from turnframe.stores.protocol import Store
from turnframe.telemetry import hooks

if TYPE_CHECKING:
    from turnframe.telemetry.otel import Instruments, TurnTrace

logger = logging.getLogger("turnframe.telemetry")


class TurnObservation:
    """The handle a runtime holds while a turn runs: ``finish`` or ``fail`` it once."""

    def __init__(self, trace: TurnTrace | None) -> None:
        self._trace = trace

    def finish(self, response: TurnResponse) -> None:
        if self._trace is not None:
            self._trace.finish(response)

    def fail(self, error: BaseException) -> None:
        if self._trace is not None:
            self._trace.fail(error)


_UNOBSERVED = TurnObservation(None)
_NOT_TRACED = contextlib.nullcontext(_UNOBSERVED)


class Telemetry:
    def __init__(
        self,
        *,
        enabled: bool | None = None,
        tracer_provider: Any = None,
        meter_provider: Any = None,
        record_user_text: bool = False,
        outbox_interval: float | None = 15.0,
    ) -> None:
        """``enabled``: None turns telemetry on when the OpenTelemetry API is installed.
        ``record_user_text`` adds the user's text to turn spans (off: it may be personal data).
        ``outbox_interval``: seconds between samples of the outbox backlog (None: never)."""
        available = importlib.util.find_spec("opentelemetry") is not None
        self.enabled = available if enabled is None else enabled and available
        self.record_user_text = record_user_text
        self.outbox_interval = outbox_interval
        self._instruments: Instruments | None = None
        if self.enabled:
            from turnframe.telemetry.otel import Instruments

            self._instruments = Instruments(tracer_provider, meter_provider)

    @classmethod
    def disabled(cls) -> Telemetry:
        return cls(enabled=False)

    def turn(self, turn: UserTurn) -> contextlib.AbstractContextManager[TurnObservation]:
        """Trace ``turn`` while the block runs; the block calls ``finish`` or ``fail``."""
        if self._instruments is None or not self._instruments.recording():
            return _NOT_TRACED  # nothing installed would record it: the API is a no-op
        return self._traced(turn, self._instruments)

    @contextlib.contextmanager
    def _traced(self, turn: UserTurn, instruments: Instruments) -> Iterator[TurnObservation]:
        from turnframe.telemetry.otel import TurnTrace

        trace = TurnTrace(instruments, turn, record_text=self.record_user_text)
        if not hooks.register(turn.turn_id, trace):  # handled twice at once: traced once
            yield _UNOBSERVED
            return
        try:
            yield TurnObservation(trace)
        finally:
            hooks.unregister(turn.turn_id, trace)

    async def sample_outbox(self, store: Store) -> dict[str, int]:
        """Count the unsettled outbox rows by status and record them (the backlog gauge)."""
        if self._instruments is None:
            return {}
        from turnframe.telemetry.otel import BACKLOG

        counts = {
            status.value: len(await store.list_outbox(None, status=status)) for status in BACKLOG
        }
        for status, count in counts.items():
            self._instruments.backlog.set(count, {"turnframe.outbox.status": status})
        return counts

    async def run_outbox_sampler(self, store: Store) -> None:
        """Sample the backlog every ``outbox_interval`` seconds until cancelled."""
        if self._instruments is None or self.outbox_interval is None:
            return
        while True:
            try:
                await self.sample_outbox(store)
            except StoreError as error:
                logger.warning("sampling the outbox backlog failed: %s", error)
            await anyio.sleep(self.outbox_interval)


__all__ = ["Telemetry", "TurnObservation"]
