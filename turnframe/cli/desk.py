"""Opening a store and a runtime on one sample desk, for ``demo`` and ``chat``.

The runtime serves exactly the chosen desk: its workflow, the offline rule-based interpreter,
the shipped corpora (or those named by ``--pack`` / ``--chains`` / ``[corpora]``) plus the desk's
own policy corpus, and the reference bindings of
``turnframe.toml`` / ``--config`` and ``--reference``. A store gets the desk's seed cases for the
account the first time the account talks to that desk (``SampleWorkflow.seed_account``), their
dates counted from the clock in use.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime

import attrs

from turnframe.cli.errors import BadClock
from turnframe.cli.store_url import check_store_path, open_store, without_password
from turnframe.clock import Clock, ManualClock, SystemClock
from turnframe.config import TurnframeConfig
from turnframe.corpora import CorpusRegistry, default_registry
from turnframe.examples import SampleWorkflow
from turnframe.providers.rules import RulesProvider
from turnframe.references import ReferenceBinding
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import Store

DEFAULT_STORE = "turnframe.db"
STORE_ENV = "TURNFRAME_STORE"
DEFAULT_ACCOUNT = "demo"
MEMORY = ":memory:"


def default_store() -> str:
    """``$TURNFRAME_STORE``, else ``turnframe.db`` in the working directory."""
    return os.environ.get(STORE_ENV) or DEFAULT_STORE


def parse_clock(text: str | None) -> Clock:
    """A fixed clock at ``text`` (ISO date-time; no offset means UTC), else the real clock."""
    if text is None:
        return SystemClock()
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise BadClock(
            f"--clock {text!r} is not an ISO date-time",
            hint="write e.g. --clock 2026-01-28T09:30:00+00:00",
        ) from None
    return ManualClock(at=at if at.tzinfo is not None else at.replace(tzinfo=UTC))


def sample_runtime(
    store: Store,
    desks: Sequence[SampleWorkflow],
    *,
    clock: Clock,
    settings: RuntimeSettings | None = None,
    config: TurnframeConfig | None = None,
    cli_references: Sequence[ReferenceBinding] = (),
    corpora: CorpusRegistry | None = None,
    store_location: str | None = None,
) -> Runtime:
    """A runtime on the sample ``desks``, read by the offline rule-based interpreter.

    It answers from ``corpora`` (default: the shipped corpora) plus each desk's policy corpus;
    reference bindings resolve when it starts. Every command that serves a sample desk (chat,
    serve, worker, submit) builds its runtime here and differs only in ``settings``.
    ``store_location`` is the ``--store`` the command was given: recall's resume handles name
    it (without a URL's password), so a handle reopens the same store, SQLite or PostgreSQL.
    """
    settings = settings or RuntimeSettings()
    if store_location is not None and settings.recall.store_location is None:
        recall = attrs.evolve(settings.recall, store_location=without_password(store_location))
        settings = attrs.evolve(settings, recall=recall)
    registry = corpora if corpora is not None else default_registry(include_shipped=True)
    for desk in desks:
        desk.register_corpus(registry)
    workflows = [d.workflow for d in desks]
    return Runtime(
        workflows=workflows,
        store=store,
        provider=RulesProvider(workflows=workflows),
        corpora=registry,
        clock=clock,
        settings=settings,
        config=config,
        cli_references=tuple(cli_references),
    )


def build_runtime(
    store: Store,
    desk: SampleWorkflow,
    *,
    clock: Clock,
    anaphora: bool = False,
    config: TurnframeConfig | None = None,
    cli_references: Sequence[ReferenceBinding] = (),
    corpora: CorpusRegistry | None = None,
    store_location: str | None = None,
) -> Runtime:
    """A runtime on ``desk`` alone, with anaphora on or off (see :func:`sample_runtime`)."""
    return sample_runtime(
        store,
        [desk],
        clock=clock,
        settings=RuntimeSettings(anaphora=anaphora),
        config=config,
        cli_references=cli_references,
        corpora=corpora,
        store_location=store_location,
    )


__all__ = [
    "DEFAULT_ACCOUNT",
    "DEFAULT_STORE",
    "MEMORY",
    "STORE_ENV",
    "build_runtime",
    "check_store_path",
    "default_store",
    "open_store",
    "parse_clock",
    "sample_runtime",
]
