"""ask and tell: replies, handler selection, typed errors, correlation ids."""

from __future__ import annotations

import logging

import anyio
import attrs
import pytest

from turnframe.actors import (
    Actor,
    ActorCrashed,
    ActorRef,
    AskTimeout,
    UnhandledMessage,
    current_correlation_id,
    handler,
    handles,
)
from turnframe.supervisors import ChildSpec, Supervisor


@attrs.frozen(kw_only=True)
class Add:
    n: int


@attrs.frozen(kw_only=True)
class Sub:
    n: int


@attrs.frozen(kw_only=True)
class Total:
    pass


@attrs.frozen(kw_only=True)
class Echo:
    text: str


@attrs.frozen(kw_only=True)
class LoudEcho(Echo):
    pass


@attrs.frozen(kw_only=True)
class Stall:
    release: anyio.Event


@attrs.frozen(kw_only=True)
class Fail:
    expected: bool


@attrs.frozen(kw_only=True)
class WhoAsks:
    pass


@attrs.frozen(kw_only=True)
class Forward:
    to: ActorRef


class NotEnough(Exception):
    pass


class Counter(Actor):
    expected_errors = (NotEnough,)

    def __init__(self) -> None:
        self.total = 0
        self.seen: list[int] = []

    @handler
    async def change(self, message: Add | Sub) -> int:
        step = message.n if isinstance(message, Add) else -message.n
        self.seen.append(step)
        self.total += step
        return self.total

    @handler
    def total_now(self, message: Total) -> int:
        return self.total

    @handles(Echo)
    def echo(self, message: Echo) -> str:
        return message.text

    @handler
    async def stall(self, message: Stall) -> None:
        await message.release.wait()

    @handler
    def fail(self, message: Fail) -> None:
        if message.expected:
            raise NotEnough("only 3 left")
        raise ValueError("bad state")

    @handler
    def who(self, message: WhoAsks) -> str | None:
        return current_correlation_id()

    @handler
    async def forward(self, message: Forward) -> str | None:
        reply: str | None = await message.to.ask(WhoAsks())
        return reply


def counter(child_id: str = "counter") -> ChildSpec:
    return ChildSpec(id=child_id, factory=Counter)


@pytest.mark.anyio
async def test_ask_returns_the_handlers_return_value() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        ref = sup.ref("counter")
        assert await ref.ask(Add(n=2)) == 2
        assert await ref.ask(Add(n=5)) == 7


@pytest.mark.anyio
async def test_told_messages_are_handled_one_at_a_time_in_order() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        ref = sup.ref("counter")
        for n in range(1, 201):
            await ref.tell(Add(n=n))
        assert await ref.ask(Total()) == sum(range(1, 201))
        # the last ask is queued behind every tell, so all were handled, in order
        assert await ref.ask(Sub(n=0)) == sum(range(1, 201))


@pytest.mark.anyio
async def test_a_union_annotation_registers_the_handler_for_each_member() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        ref = sup.ref("counter")
        await ref.ask(Add(n=10))
        assert await ref.ask(Sub(n=4)) == 6


@pytest.mark.anyio
async def test_a_subclass_message_is_handled_by_its_base_class_handler() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        assert await sup.ref("counter").ask(LoudEcho(text="hi")) == "hi"


@pytest.mark.anyio
async def test_a_message_without_a_handler_is_refused_and_the_actor_keeps_running() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        ref = sup.ref("counter")
        with pytest.raises(UnhandledMessage) as caught:
            await ref.ask("not a message")
        assert caught.value.code == "turnframe.actor.unhandled_message"
        assert await ref.ask(Add(n=1)) == 1


@pytest.mark.anyio
async def test_an_ask_without_a_reply_in_time_raises_ask_timeout() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        release = anyio.Event()
        with pytest.raises(AskTimeout) as caught:
            await sup.ref("counter").ask(Stall(release=release), timeout=0.01)
        assert caught.value.code == "turnframe.actor.ask_timeout"
        assert caught.value.message_type == "Stall"
        release.set()


@pytest.mark.anyio
@pytest.mark.parametrize("seconds", [0.0, -1.0, float("inf"), float("nan")])
async def test_an_ask_timeout_must_be_positive_and_finite(seconds: float) -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        with pytest.raises(ValueError, match="ask timeout"):
            await sup.ref("counter").ask(Total(), timeout=seconds)


@pytest.mark.anyio
async def test_an_expected_error_reaches_the_asker_as_is_without_a_restart() -> None:
    starts: list[int] = []

    class Tracked(Counter):
        async def on_start(self) -> None:
            starts.append(1)

    spec = ChildSpec(id="counter", factory=Tracked)
    async with Supervisor(name="root", children=[spec]) as sup:
        ref = sup.ref("counter")
        await ref.ask(Add(n=3))
        with pytest.raises(NotEnough, match="only 3 left"):
            await ref.ask(Fail(expected=True))
        assert await ref.ask(Total()) == 3
    assert starts == [1]


@pytest.mark.anyio
async def test_the_asker_of_the_crashing_message_gets_actor_crashed_with_the_exception() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        with pytest.raises(ActorCrashed) as caught:
            await sup.ref("counter").ask(Fail(expected=False))
    assert caught.value.code == "turnframe.actor.crashed"
    assert isinstance(caught.value.cause, ValueError)
    assert caught.value.__cause__ is caught.value.cause
    assert caught.value.message_type == "Fail"


@pytest.mark.anyio
async def test_a_stateless_actor_answers_a_failing_message_with_actor_crashed_and_serves_on() -> (
    None
):
    from turnframe.supervisors import EventKind, SupervisionEvent

    starts: list[int] = []
    seen: list[SupervisionEvent] = []

    class Pure(Counter):
        stateless = True

        async def on_start(self) -> None:
            starts.append(1)

    spec = ChildSpec(id="pure", factory=Pure)
    async with Supervisor(name="root", children=[spec], on_event=seen.append) as sup:
        ref = sup.ref("pure")
        await ref.ask(Add(n=3))
        for _ in range(20):  # far beyond any restart intensity: nothing restarts
            with pytest.raises(ActorCrashed) as caught:
                await ref.ask(Fail(expected=False))
            assert isinstance(caught.value.cause, ValueError)
        assert await ref.ask(Total()) == 3  # the same instance kept serving
    assert starts == [1]
    kinds = [e.kind for e in seen if e.child == "pure"]
    assert kinds.count(EventKind.CRASHED) == 20 and EventKind.RESTARTED not in kinds


@pytest.mark.anyio
async def test_the_correlation_id_of_a_message_is_readable_inside_its_handler() -> None:
    async with Supervisor(name="root", children=[counter()]) as sup:
        ref = sup.ref("counter")
        assert await ref.ask(WhoAsks(), correlation_id="turn-7") == "turn-7"
        assert await ref.ask(WhoAsks()) is None


@pytest.mark.anyio
async def test_a_message_sent_from_a_handler_inherits_the_correlation_id() -> None:
    async with Supervisor(name="root", children=[counter("a"), counter("b")]) as sup:
        reply = await sup.ref("a").ask(Forward(to=sup.ref("b")), correlation_id="turn-9")
        assert reply == "turn-9"


@pytest.mark.anyio
async def test_the_log_record_of_a_crash_carries_the_correlation_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="turnframe.actors")
    async with Supervisor(name="root", children=[counter()]) as sup:
        with pytest.raises(ActorCrashed):
            await sup.ref("counter").ask(Fail(expected=False), correlation_id="turn-3")
    crash_records = [r for r in caplog.records if r.name == "turnframe.actors"]
    assert [getattr(r, "correlation_id", None) for r in crash_records] == ["turn-3"]


@pytest.mark.anyio
async def test_refs_to_the_same_actor_are_equal_and_hashable() -> None:
    async with Supervisor(name="root", children=[counter("a"), counter("b")]) as sup:
        assert sup.ref("a") == sup.ref("a")
        assert sup.ref("a") != sup.ref("b")
        assert len({sup.ref("a"), sup.ref("a"), sup.ref("b")}) == 2
        assert sup.ref("a").name == "a"
