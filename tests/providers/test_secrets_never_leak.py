"""A provider that echoes the API key back: the key reaches no database, log, replay or error.

The turn runs through a real Runtime on a SQLite file, with DEBUG logging on for every logger
(ours, the SDKs', their HTTP clients', the server's). The primary provider's 401 echoes its key
(it falls back); the fallback's content-filter error echoes its key (fatal, so its words are in
the failed turn's record). One key is shaped like a key, the other is an arbitrary configured
secret that only the configured-secret redaction can catch.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

import anyio
import pytest
from chain_support import make_request

from turnframe.cli import main
from turnframe.lifecycle import TurnPhase
from turnframe.providers import ChainError, ProviderChain, ProviderError, RetryPolicy
from turnframe.providers.anthropic import AnthropicProvider
from turnframe.providers.openai_compat import OpenAICompatProvider
from turnframe.providers.redaction import REDACTED
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.testing import TRIP_WORKFLOW
from turnframe.testing import fake_provider as fake
from turnframe.testing.pipeline import seed_store
from turnframe.testing.plans import TURN_CLOCK
from turnframe.testing.scripted import ScriptedGate

ACCOUNT = "acct-1"
CONFIGURED = "acme-gateway-credential-for-tests"  # no key shape: only its configuration hides it
SHAPED = "sk-ant-api03-Zq81kLp0Xm2Nv7Bc4Rt6Yw9Ue3Io5Pa"
KEYS = (CONFIGURED, SHAPED)
LOGGERS = ("", "turnframe", "openai", "anthropic", "httpx2", "httpcore2", "hypercorn")


def echo(kind: fake.ErrorKind) -> fake.ApiError:
    return fake.ApiError(kind=kind, echo_key=True)


async def run_turn(db: Path) -> tuple[str, TurnPhase, list[str]]:
    """One failing turn through the Runtime, then the same faults straight from the providers;
    returns the turn id, its phase and every error text seen (str, repr and traceback)."""
    seen: list[str] = []
    async with (
        fake.FakeProviderServer(echo(fake.ErrorKind.UNAUTHORIZED)) as first,
        fake.FakeProviderServer(echo(fake.ErrorKind.CONTENT_FILTERED)) as second,
        OpenAICompatProvider(
            name="primary", model="gpt-test", api_key=CONFIGURED, base_url=first.openai_base_url
        ) as primary,
        AnthropicProvider(
            name="fallback", model="claude-test", api_key=SHAPED, base_url=second.url
        ) as fallback,
    ):
        async with SqliteStore.open(str(db)) as store:
            await seed_store(store)
            settings = RuntimeSettings(pool_size=1, ask_timeout=10.0)
            async with Runtime(
                workflows=[TRIP_WORKFLOW],
                store=store,
                provider=[primary, fallback],
                retry_policy=RetryPolicy.no_retries(),
                settings=settings,
            ) as rt:
                session = await rt.open_session(account_id=ACCOUNT, session_id="sess-1")
                turn = rt.new_turn(session, "Set Bob's note to aisle", at=TURN_CLOCK)
                response = await rt.handle_turn(turn)
            seen.append(repr(response))

        first.script(echo(fake.ErrorKind.UNAUTHORIZED), echo(fake.ErrorKind.UNAUTHORIZED))
        second.script(echo(fake.ErrorKind.CONTENT_FILTERED))
        for provider in (primary, fallback):
            try:
                await provider.complete(make_request())
            except ProviderError as error:
                seen += [str(error), repr(error), "".join(traceback.format_exception(error))]
        try:
            await ProviderChain([primary, fallback]).complete(make_request(), gate=ScriptedGate())
        except ChainError as error:
            seen += [str(error), repr(error.attempts), "".join(traceback.format_exception(error))]
    return response.turn_id, response.phase, seen


def test_an_echoed_api_key_appears_in_no_record_log_replay_or_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name or None)
    db = tmp_path / "turns.db"

    turn_id, phase, errors = anyio.run(run_turn, db)

    assert phase is TurnPhase.FAILED
    assert errors and any(REDACTED in text for text in errors)
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    logs = "\n".join(formatter.format(record) for record in caplog.records)
    heard = {record.name.split(".")[0] for record in caplog.records}
    assert {"openai", "anthropic"} <= heard, heard  # the SDKs' DEBUG logs were on and heard
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.is_file())
    assert main(["replay", turn_id, "--store", str(db), "--account", ACCOUNT]) == 0
    assert main(["replay", turn_id, "--store", str(db), "--account", ACCOUNT, "--json"]) == 0
    replay = capsys.readouterr()
    assert REDACTED in replay.out  # the providers' words are shown, redacted
    for key in KEYS:
        assert key.encode() not in stored
        assert key not in logs
        assert key not in replay.out + replay.err
        assert not any(key in text for text in errors)
