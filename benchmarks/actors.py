"""Actor-layer throughput against raw anyio loops measured in the same run.

Prints ``tell`` messages/s and ``ask`` round trips/s for the actor layer (an actor under a
supervisor, through its ActorRef) and for the baselines, and the ratios:

- tell baseline: a raw memory-object-stream loop (``await send.send(x)`` / ``async for``);
- ask baseline: a raw request/reply loop over two memory object streams;
- for information, a hand-tuned raw stream loop using the same nowait fast paths.

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
import attrs
from anyio.lowlevel import checkpoint

from turnframe.actors import Actor, handler
from turnframe.cli.progress import progress
from turnframe.supervisors import ChildSpec, Supervisor

TELL_TARGET = 0.8
ASK_TARGET = 0.7
CAPACITY = 1000


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
            "raw_tell_per_s": (raw_tell, tells),
            "actor_tell_per_s": (actor_tell, tells),
            "raw_tell_tuned_per_s": (raw_tell_tuned, tells),
            "raw_ask_per_s": (raw_ask, asks),
            "actor_ask_per_s": (actor_ask, asks),
        },
    )
    rates["tell_ratio"] = rates["actor_tell_per_s"] / rates["raw_tell_per_s"]
    rates["ask_ratio"] = rates["actor_ask_per_s"] / rates["raw_ask_per_s"]
    rates["tell_ratio_vs_tuned"] = rates["actor_tell_per_s"] / rates["raw_tell_tuned_per_s"]
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
    print(f"tell  actor {rates['actor_tell_per_s']:>12,.0f} msg/s", file=out)
    print(
        f"      raw   {rates['raw_tell_per_s']:>12,.0f} msg/s   ratio {rates['tell_ratio']:.2f}",
        file=out,
    )
    print(
        f"      tuned {rates['raw_tell_tuned_per_s']:>12,.0f} msg/s   "
        f"ratio {rates['tell_ratio_vs_tuned']:.2f} (information)",
        file=out,
    )
    print(f"ask   actor {rates['actor_ask_per_s']:>12,.0f} round trips/s", file=out)
    print(
        f"      raw   {rates['raw_ask_per_s']:>12,.0f} round trips/s   "
        f"ratio {rates['ask_ratio']:.2f}",
        file=out,
    )
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
