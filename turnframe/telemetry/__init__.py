"""Traces and metrics of turns through the OpenTelemetry API (extra ``otel``); docs/service.md.

::

    Runtime(..., telemetry=Telemetry())                       # the global providers (default)
    Runtime(..., telemetry=Telemetry(tracer_provider=tp, meter_provider=mp))
    Runtime(..., telemetry=Telemetry.disabled())

The pipeline calls small hooks (:mod:`turnframe.telemetry.hooks`); the spans and instruments
themselves live in :mod:`turnframe.telemetry.otel`, imported only when telemetry is on.
"""

from __future__ import annotations

from turnframe.telemetry.telemetry import Telemetry, TurnObservation

__all__ = ["Telemetry", "TurnObservation"]
