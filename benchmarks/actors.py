"""Actor-layer throughput against raw anyio loops doing the same work, in the same run.

Prints ``tell`` messages/s and ``ask`` round trips/s for the actor layer (an actor under a
supervisor, through its ActorRef) and for the baselines, and ``tell_ratio`` / ``ask_ratio``.
Both sides do the same work (the one comment the house rules ask for): a bounded memory
object stream with the nowait fast paths both ways (``send_nowait``, ``receive_nowait``, a
checkpoint every 64 fast operations, the consumer parked on an ``anyio.Event`` the sender sets
when the stream is empty), the same ``async`` handler awaited per message, and for ``ask`` a
one-shot reply slot with an ``anyio.Event`` waited on inside one deadline ``CancelScope`` per
request. The old baselines (``await send.send(x)`` / ``async for``, and a request/reply over
two streams), which yield to the loop 2-4 times more than the actor does, are printed for
information only (``*_ratio_old``).

Each figure is the best of several alternating rounds, so the baseline and the actor layer see
the same machine state. ``--quick --json`` prints one JSON object on the last line.

    python benchmarks/actors.py [--quick] [--json] [--backend asyncio|trio]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Awaitable, Callable

import anyio
import anyio.abc
import attrs
from anyio.lowlevel import checkpoint

from turnframe.actors import Actor, handler
from turnframe.cli.progress import progress
from turnframe.supervisors import ChildSpec, Supervisor

TELL_TARGET = 0.7
ASK_TARGET = 0.8
CAPACITY = 1000
EVERY = 64  # fast-path operations between two checkpoints, as the mailbox


@attrs.frozen(kw_only=True)
class Ping:
    n: int


@attrs.frozen(kw_only=True)
class Count:
    pass


class Sink(Actor):
    def __init__(self) -> None:
        self.seen = 0

    @handler
    async def on_ping(self, message: Ping) -> int:
        self.seen += 1
        return message.n

    @handler
    async def on_count(self, message: Count) -> int:
        return self.seen


async def raw_tell(n: int) -> float:
    send, receive = anyio.create_memory_object_stream[Ping](CAPACITY)
    message = Ping(n=0)
    done = anyio.Event()

    async def consume() -> None:
        seen = 0
        async with receive:
            async for _ in receive:
                seen += 1
        assert seen == n
        done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        start = time.perf_counter()
        async with send:
            for _ in range(n):
                await send.send(message)
        await done.wait()
        return n / (time.perf_counter() - start)


async def raw_tell_tuned(n: int) -> float:
    """The same loop written with the nowait fast paths the mailbox uses (for information)."""
    send, receive = anyio.create_memory_object_stream[Ping](CAPACITY)
    message = Ping(n=0)
    done = anyio.Event()

    async def consume() -> None:
        seen = 0
        with receive:
            while True:
                try:
                    receive.receive_nowait()
                except anyio.WouldBlock:
                    try:
                        await receive.receive()
                    except anyio.EndOfStream:
                        break
                except anyio.EndOfStream:
                    break
                seen += 1
                if seen % 64 == 0:
                    await checkpoint()
        assert seen == n
        done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        start = time.perf_counter()
        with send:
            for i in range(n):
                try:
                    send.send_nowait(message)
                except anyio.WouldBlock:
                    await send.send(message)
                if i % 64 == 0:
                    await checkpoint()
        await done.wait()
        return n / (time.perf_counter() - start)


class _Slot:
    """A one-shot reply slot, as ``ask`` uses: a value and an Event."""

    __slots__ = ("event", "value")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.value: object = None


async def _handle(state: list[int], message: Ping) -> int:
    """The work of ``Sink.on_ping``, as a plain coroutine function."""
    state[0] += 1
    return message.n


async def _serve(
    receive: anyio.abc.ObjectReceiveStream[tuple[Ping, _Slot | None]],
    parked: list[anyio.Event | None],
    state: list[int],
) -> None:
    """The consumer both same-work baselines share: receive_nowait, park on an Event."""
    handled = 0
    while True:
        try:
            message, slot = receive.receive_nowait()  # type: ignore[attr-defined]
        except anyio.WouldBlock:
            wake = parked[0] = anyio.Event()
            await wake.wait()
            parked[0] = None
            handled = 0
            continue
        except anyio.EndOfStream:
            return
        handled += 1
        if handled >= EVERY:
            handled = 0
            await checkpoint()
        result = await _handle(state, message)
        if slot is not None:
            slot.value = result
            slot.event.set()


async def same_work_tell(n: int) -> float:
    send, receive = anyio.create_memory_object_stream[tuple[Ping, _Slot | None]](CAPACITY)
    parked: list[anyio.Event | None] = [None]
    state = [0]
    envelope = (Ping(n=0), None)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_serve, receive, parked, state)
        start = time.perf_counter()
        sends = 0
        for _ in range(n):
            try:
                send.send_nowait(envelope)
            except anyio.WouldBlock:
                await send.send(envelope)
            wake = parked[0]
            if wake is not None:
                wake.set()
            sends += 1
            if sends >= EVERY:
                sends = 0
                await checkpoint()
        slot = _Slot()  # the final count is asked, as the actor side asks for it
        send.send_nowait((Ping(n=0), slot))
        wake = parked[0]
        if wake is not None:
            wake.set()
        await slot.event.wait()
        rate = n / (time.perf_counter() - start)
        send.close()
        wake = parked[0]
        if wake is not None:
            wake.set()
    assert state[0] == n + 1
    return rate


async def same_work_ask(n: int) -> float:
    send, receive = anyio.create_memory_object_stream[tuple[Ping, _Slot | None]](CAPACITY)
    parked: list[anyio.Event | None] = [None]
    state = [0]
    message = Ping(n=0)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_serve, receive, parked, state)
        start = time.perf_counter()
        for _ in range(n):
            slot = _Slot()
            with anyio.CancelScope(deadline=anyio.current_time() + 5.0):
                try:
                    send.send_nowait((message, slot))
                except anyio.WouldBlock:
                    await send.send((message, slot))
                wake = parked[0]
                if wake is not None:
                    wake.set()
                await slot.event.wait()
        rate = n / (time.perf_counter() - start)
        send.close()
        wake = parked[0]
        if wake is not None:
            wake.set()
    assert state[0] == n
    return rate


async def raw_ask(n: int) -> float:
    requests, serve = anyio.create_memory_object_stream[Ping](CAPACITY)
    reply_send, replies = anyio.create_memory_object_stream[int](CAPACITY)
    message = Ping(n=0)

    async def server() -> None:
        async with serve, reply_send:
            async for request in serve:
                await reply_send.send(request.n)

    async with anyio.create_task_group() as tg:
        tg.start_soon(server)
        start = time.perf_counter()
        async with requests, replies:
            for _ in range(n):
                await requests.send(message)
                await replies.receive()
        return n / (time.perf_counter() - start)


async def actor_tell(n: int) -> float:
    message = Ping(n=0)
    spec = ChildSpec(id="sink", factory=Sink, mailbox_size=CAPACITY)
    async with Supervisor(name="bench", children=[spec]) as sup:
        ref = sup.ref("sink")
        start = time.perf_counter()
        for _ in range(n):
            await ref.tell(message)
        seen = await ref.ask(Count(), timeout=60)
        rate = n / (time.perf_counter() - start)
    assert seen == n
    return rate


async def actor_ask(n: int) -> float:
    message = Ping(n=0)
    spec = ChildSpec(id="sink", factory=Sink, mailbox_size=CAPACITY)
    async with Supervisor(name="bench", children=[spec]) as sup:
        ref = sup.ref("sink")
        start = time.perf_counter()
        for _ in range(n):
            await ref.ask(message, timeout=5.0)
        return n / (time.perf_counter() - start)


async def best_of(
    rounds: int, pairs: dict[str, tuple[Callable[[int], Awaitable[float]], int]]
) -> dict[str, float]:
    best = dict.fromkeys(pairs, 0.0)
    with progress("actors", total=rounds * len(pairs)) as bar:
        for _ in range(rounds):
            for name, (bench, n) in pairs.items():
                best[name] = max(best[name], await bench(n))
                bar.advance()
    return best


async def measure(quick: bool) -> dict[str, float]:
    tells, asks, rounds = (60_000, 15_000, 3) if quick else (300_000, 60_000, 5)
    rates = await best_of(
        rounds,
        {
            "same_work_tell_per_s": (same_work_tell, tells),
            "actor_tell_per_s": (actor_tell, tells),
            "same_work_ask_per_s": (same_work_ask, asks),
            "actor_ask_per_s": (actor_ask, asks),
            "raw_tell_per_s": (raw_tell, tells),
            "raw_tell_tuned_per_s": (raw_tell_tuned, tells),
            "raw_ask_per_s": (raw_ask, asks),
        },
    )
    rates["tell_ratio"] = rates["actor_tell_per_s"] / rates["same_work_tell_per_s"]
    rates["ask_ratio"] = rates["actor_ask_per_s"] / rates["same_work_ask_per_s"]
    rates["tell_ratio_old"] = rates["actor_tell_per_s"] / rates["raw_tell_per_s"]
    rates["ask_ratio_old"] = rates["actor_ask_per_s"] / rates["raw_ask_per_s"]
    rates["tell_ratio_vs_tuned_old"] = rates["actor_tell_per_s"] / rates["raw_tell_tuned_per_s"]
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer messages and rounds")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--backend", default="asyncio", choices=["asyncio", "trio"])
    args = parser.parse_args()
    rates = anyio.run(measure, args.quick, backend=args.backend)
    result = {
        "backend": args.backend,
        **{key: round(value, 3 if "ratio" in key else 0) for key, value in rates.items()},
        "tell_target": TELL_TARGET,
        "ask_target": ASK_TARGET,
        "tell_ok": rates["tell_ratio"] >= TELL_TARGET,
        "ask_ok": rates["ask_ratio"] >= ASK_TARGET,
    }
    out = sys.stderr if args.json else sys.stdout
    print(f"backend: {args.backend}", file=out)
    print(f"tell  actor     {rates['actor_tell_per_s']:>12,.0f} msg/s", file=out)
    print(
        f"      same work {rates['same_work_tell_per_s']:>12,.0f} msg/s   "
        f"tell_ratio {rates['tell_ratio']:.2f}",
        file=out,
    )
    print(
        f"      old raw   {rates['raw_tell_per_s']:>12,.0f} msg/s   "
        f"ratio {rates['tell_ratio_old']:.2f} (information)",
        file=out,
    )
    print(
        f"      old tuned {rates['raw_tell_tuned_per_s']:>12,.0f} msg/s   "
        f"ratio {rates['tell_ratio_vs_tuned_old']:.2f} (information)",
        file=out,
    )
    print(f"ask   actor     {rates['actor_ask_per_s']:>12,.0f} round trips/s", file=out)
    print(
        f"      same work {rates['same_work_ask_per_s']:>12,.0f} round trips/s   "
        f"ask_ratio {rates['ask_ratio']:.2f}",
        file=out,
    )
    print(
        f"      old raw   {rates['raw_ask_per_s']:>12,.0f} round trips/s   "
        f"ratio {rates['ask_ratio_old']:.2f} (information)",
        file=out,
    )
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
