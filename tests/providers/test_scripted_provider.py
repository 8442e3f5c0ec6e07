"""The scripted provider, gate and virtual time are test doubles others rely on: pin them down."""

from __future__ import annotations

import anyio
import pytest
from chain_support import PLAN, make_request

from turnframe.providers import (
    Classification,
    ContentFiltered,
    ProviderChain,
    ProviderError,
    Purpose,
    RetryPolicy,
)
from turnframe.testing.scripted import (
    Answer,
    Fail,
    Hang,
    ManualDeadline,
    RecordedSleep,
    ScriptedGate,
    ScriptedProvider,
    ScriptError,
    ScriptExhausted,
)

pytestmark = pytest.mark.anyio


async def test_the_scripted_provider_keeps_every_request_it_received() -> None:
    provider = ScriptedProvider(name="p", script=[Answer(PLAN)], narrate=[Answer("Done.")])

    await provider.complete(make_request(Purpose.INTERPRET))
    await provider.complete(make_request(Purpose.NARRATE))

    assert [r.purpose for r in provider.requests] == [Purpose.INTERPRET, Purpose.NARRATE]
    assert len(provider.requests_for(Purpose.NARRATE)) == 1


async def test_the_interpret_and_narrate_scripts_are_followed_separately() -> None:
    provider = ScriptedProvider(
        name="p", script=[Answer("i1"), Answer("i2")], narrate=[Answer("n1")]
    )

    narrated = await provider.complete(make_request(Purpose.NARRATE))
    interpreted = await provider.complete(make_request(Purpose.INTERPRET))

    assert (narrated.text, interpreted.text) == ("n1", "i1")
    assert provider.remaining(Purpose.INTERPRET) == 1


async def test_a_script_that_runs_out_says_which_provider_and_purpose() -> None:
    provider = ScriptedProvider(name="primary", script=[Answer(PLAN)])
    await provider.complete(make_request())

    with pytest.raises(ScriptExhausted, match=r"'primary' got interpret request #2"):
        await provider.complete(make_request())


@pytest.mark.parametrize(
    ("kind", "classification"),
    [
        ("retry", Classification.RETRY),
        ("timeout", Classification.RETRY),
        ("rate_limit", Classification.RETRY_AFTER),
        ("fallback", Classification.FALLBACK),
        ("model_not_found", Classification.FALLBACK),
        ("fatal", Classification.FATAL),
        ("content_filter", Classification.FATAL),
        ("context_overflow", Classification.FATAL),
    ],
)
async def test_each_failure_kind_raises_an_error_of_its_classification(
    kind: str, classification: Classification
) -> None:
    provider = ScriptedProvider(name="p", script=[Fail(kind=kind)])  # type: ignore[arg-type]

    with pytest.raises(ProviderError) as raised:
        await provider.complete(make_request())

    assert raised.value.classification is classification


async def test_a_rate_limit_without_a_delay_asks_for_one_second() -> None:
    provider = ScriptedProvider(name="p", script=[Fail(kind="rate_limit")])

    with pytest.raises(ProviderError) as raised:
        await provider.complete(make_request())

    assert raised.value.retry_after == 1.0


async def test_a_released_hang_delivers_its_late_failure() -> None:
    hang = Hang(fail=Fail(kind="content_filter"))
    provider = ScriptedProvider(name="p", script=[hang])
    failures: list[ProviderError] = []

    async def ask() -> None:
        try:
            await provider.complete(make_request())
        except ContentFiltered as error:
            failures.append(error)

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        await hang.reached()
        hang.release()

    assert [f.code for f in failures] == ["turnframe.provider.content_filtered"]


def test_a_hang_without_an_answer_cannot_be_released() -> None:
    with pytest.raises(ScriptError):
        Hang().release()


async def test_the_scripted_gate_seals_after_the_given_number_of_asks() -> None:
    gate = ScriptedGate(seal_after=1)

    answers = [await gate.may_retry("t", Purpose.INTERPRET) for _ in range(2)]
    narration = await gate.may_retry("t", Purpose.NARRATE)

    assert (answers, narration) == ([True, False], True)


async def test_an_expiry_before_any_deadline_is_kept_for_the_next_one() -> None:
    deadline = ManualDeadline()
    deadline.expire()

    await deadline(30.0)

    assert (deadline.requested, deadline.pending) == ([30.0], 0)


async def test_recorded_sleep_returns_at_once_and_keeps_the_delays() -> None:
    sleep = RecordedSleep()

    await sleep(2.0)
    await sleep(0.5)

    assert sleep.delays == [2.0, 0.5]


async def test_the_chain_runs_on_the_default_anyio_sleep_and_deadline() -> None:
    provider = ScriptedProvider(name="p", script=[Fail(kind="retry"), Answer(PLAN)])
    chain = ProviderChain([provider], policy=RetryPolicy(backoff_initial=0.0))

    answer = await chain.complete(make_request(), gate=ScriptedGate())

    assert answer.text == PLAN
