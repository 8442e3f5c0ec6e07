"""Actor-layer throughput against raw anyio loops doing the same work, in the same run.

Prints ``tell`` messages/s and ``ask`` round trips/s for the actor layer (an actor under a
supervisor, through its ActorRef) and for the baselines, and ``tell_ratio`` / ``ask_ratio``.
Both sides do the same work (the one comment the house rules ask for): a bounded anyio memory
object stream with the nowait fast paths both ways (``send_nowait``, ``receive_nowait``, a
checkpoint every 64 fast operations, the consumer parked on an ``anyio.Event`` the sender sets
when the stream is empty), an envelope built per message (message and reply slot), the same
``async`` handler awaited per message inside a ``try`` that turns its error into the reply, and
for ``ask`` a one-shot reply slot (value, error, done flag and an ``anyio.Event``) waited on
inside one deadline ``CancelScope`` per request, after which the asker tells a timeout from an
answer and an error from a value. The actor side adds only what the actor layer is: the
``ActorRef`` call, the correlation id (read from its contextvar, carried in the envelope), the
handler looked up by message type, and supervision (a stop can be requested between two
messages). The old baselines (``await send.send(x)`` / ``async for``, and a request/reply over
two streams), which yield to the loop 2-4 times more than the actor does, are printed for
information only (``*_ratio_old``).

The machine is shared, so each figure is the median of several rounds; a round runs the
baseline and the actor layer back to back (in alternating order) and its ratio is taken within
the round, so both see the same machine state. The spread is the lowest and highest round.
``calls_per_*`` count Python and builtin calls per message under cProfile (a coroutine counts
once per resumption), and ``--instructions`` counts CPU instructions per message under
valgrind: the noise-free figures. ``--quick --json`` prints one JSON object on the last line.

    python benchmarks/actors.py [--quick] [--json] [--backend asyncio|trio] [--instructions]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

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


Rates = tuple[float, float]
"""Messages per second of wall time, and per second of this process's CPU time."""


def _start() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _rates(n: int, start: tuple[float, float]) -> Rates:
    wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
    return n / wall, n / max(cpu, 1e-9)


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


async def raw_tell(n: int) -> Rates:
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
        start = _start()
        async with send:
            for _ in range(n):
                await send.send(message)
        await done.wait()
        rates = _rates(n, start)

    return rates


async def raw_tell_tuned(n: int) -> Rates:
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
        start = _start()
        with send:
            for i in range(n):
                try:
                    send.send_nowait(message)
                except anyio.WouldBlock:
                    await send.send(message)
                if i % 64 == 0:
                    await checkpoint()
        await done.wait()
        rates = _rates(n, start)

    return rates


class _Slot:
    """A one-shot reply slot, as ``ask`` uses: a value or an error, a done flag and an Event."""

    __slots__ = ("done", "error", "event", "value")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.done = False
        self.value: object = None
        self.error: BaseException | None = None


async def _serve(
    receive: anyio.abc.ObjectReceiveStream[tuple[Ping, _Slot | None]],
    parked: list[anyio.Event | None],
    sink: Sink,
) -> None:
    """The consumer both same-work baselines share: receive_nowait, park on an Event, and
    the actor's own handler function called on a ``Sink`` (the handler work is the same)."""
    receive_nowait = receive.receive_nowait  # type: ignore[attr-defined]
    handle = Sink.on_ping
    handled = 0
    while True:
        try:
            message, slot = receive_nowait()
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
        try:
            result = await handle(sink, message)
        except Exception as err:
            if slot is not None:
                slot.done = True
                slot.error = err
                slot.event.set()
        else:
            if slot is not None:
                slot.done = True
                slot.value = result
                slot.event.set()


async def same_work_tell(n: int) -> Rates:
    send, receive = anyio.create_memory_object_stream[tuple[Ping, _Slot | None]](CAPACITY)
    send_nowait = send.send_nowait
    parked: list[anyio.Event | None] = [None]
    sink = Sink()
    message = Ping(n=0)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_serve, receive, parked, sink)
        start = _start()
        sends = 0
        for _ in range(n):
            try:
                send_nowait((message, None))  # an envelope per message, as a real sender
            except anyio.WouldBlock:
                await send.send((message, None))
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
        rate = _rates(n, start)
        send.close()
        wake = parked[0]
        if wake is not None:
            wake.set()
    assert sink.seen == n + 1
    return rate


async def same_work_ask(n: int) -> Rates:
    send, receive = anyio.create_memory_object_stream[tuple[Ping, _Slot | None]](CAPACITY)
    send_nowait = send.send_nowait
    parked: list[anyio.Event | None] = [None]
    sink = Sink()
    message = Ping(n=0)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_serve, receive, parked, sink)
        start = _start()
        sends = 0
        for _ in range(n):
            slot = _Slot()
            with anyio.CancelScope(deadline=anyio.current_time() + 5.0):
                try:
                    send_nowait((message, slot))
                except anyio.WouldBlock:
                    await send.send((message, slot))
                wake = parked[0]
                if wake is not None:
                    wake.set()
                sends += 1
                if sends >= EVERY:
                    sends = 0
                    await checkpoint()
                await slot.event.wait()
            if not slot.done:
                raise TimeoutError("no reply within the deadline")
            if slot.error is not None:
                raise slot.error
        rate = _rates(n, start)
        send.close()
        wake = parked[0]
        if wake is not None:
            wake.set()
    assert sink.seen == n
    return rate


async def raw_ask(n: int) -> Rates:
    requests, serve = anyio.create_memory_object_stream[Ping](CAPACITY)
    reply_send, replies = anyio.create_memory_object_stream[int](CAPACITY)
    message = Ping(n=0)

    async def server() -> None:
        async with serve, reply_send:
            async for request in serve:
                await reply_send.send(request.n)

    async with anyio.create_task_group() as tg:
        tg.start_soon(server)
        start = _start()
        async with requests, replies:
            for _ in range(n):
                await requests.send(message)
                await replies.receive()
        rates = _rates(n, start)

    return rates


async def actor_tell(n: int) -> Rates:
    message = Ping(n=0)
    spec = ChildSpec(id="sink", factory=Sink, mailbox_size=CAPACITY)
    async with Supervisor(name="bench", children=[spec]) as sup:
        ref = sup.ref("sink")
        start = _start()
        for _ in range(n):
            await ref.tell(message)
        seen = await ref.ask(Count(), timeout=60)
        rate = _rates(n, start)
    assert seen == n
    return rate


async def actor_ask(n: int) -> Rates:
    message = Ping(n=0)
    spec = ChildSpec(id="sink", factory=Sink, mailbox_size=CAPACITY)
    async with Supervisor(name="bench", children=[spec]) as sup:
        ref = sup.ref("sink")
        start = _start()
        for _ in range(n):
            await ref.ask(message, timeout=5.0)
        return _rates(n, start)


Bench = Callable[[int], Awaitable[Rates]]
OLD_EVERY = 3

#: name: (baseline, actor side, messages in a quick round, in a full round)
PAIRS: dict[str, tuple[Bench, Bench, int, int]] = {
    "tell": (same_work_tell, actor_tell, 50_000, 200_000),
    "ask": (same_work_ask, actor_ask, 5_000, 20_000),
}
#: the old baselines (information only, slow: run every OLD_EVERY rounds): name: (baseline,
#: the pair it is compared with)
OLD: dict[str, tuple[Bench, str]] = {
    "raw_tell": (raw_tell, "tell"),
    "raw_tell_tuned": (raw_tell_tuned, "tell"),
    "raw_ask": (raw_ask, "ask"),
}


async def rounds_of(rounds: int, quick: bool) -> dict[str, list[Rates]]:
    """Rates per round; the baseline and the actor side of a pair run back to back."""
    rates: dict[str, list[Rates]] = {}
    old_rounds = len(range(0, rounds, OLD_EVERY))
    with progress("actors", total=rounds * 2 * len(PAIRS) + old_rounds * len(OLD)) as bar:
        for round_number in range(rounds):
            for name, (baseline, actor, quick_n, full_n) in PAIRS.items():
                n = quick_n if quick else full_n
                order = [("same_work", baseline), ("actor", actor)]
                if round_number % 2:
                    order.reverse()
                for side, bench in order:
                    rates.setdefault(f"{side}_{name}", []).append(await bench(n))
                    bar.advance()
            if round_number % OLD_EVERY:
                continue
            for name, (bench, pair) in OLD.items():
                n = PAIRS[pair][2] if quick else PAIRS[pair][3]
                rates.setdefault(name, []).append(await bench(n))
                bar.advance()
    return rates


async def calls_per_message(bench: Bench, n: int) -> float:
    """Python and builtin calls per message under cProfile (after one warm-up run)."""
    await bench(min(n, 1_000))
    profile = cProfile.Profile()
    profile.enable()
    try:
        await bench(n)
    finally:
        profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return float(sum(entry[1] for entry in stats.values())) / n


def _ratios(actor: list[Rates], baseline: list[Rates], clock: int) -> list[float]:
    return [a[clock] / b[clock] for a, b in zip(actor, baseline, strict=True)]


async def measure(quick: bool) -> dict[str, float | list[float]]:
    rounds = 15 if quick else 25
    rates = await rounds_of(rounds, quick)
    result: dict[str, float | list[float]] = {"rounds": rounds}
    for name in PAIRS:
        actor, baseline = rates[f"actor_{name}"], rates[f"same_work_{name}"]
        ratios = _ratios(actor, baseline, 0)
        cpu_ratios = _ratios(actor, baseline, 1)
        result[f"actor_{name}_per_s"] = statistics.median(r[0] for r in actor)
        result[f"same_work_{name}_per_s"] = statistics.median(r[0] for r in baseline)
        result[f"{name}_ratio"] = statistics.median(ratios)
        result[f"{name}_ratio_spread"] = [min(ratios), max(ratios)]
        result[f"{name}_ratio_cpu"] = statistics.median(cpu_ratios)
        result[f"{name}_ratio_cpu_spread"] = [min(cpu_ratios), max(cpu_ratios)]
    for name, (_, pair) in OLD.items():
        ratios = _ratios(rates[f"actor_{pair}"][::OLD_EVERY], rates[name], 0)
        result[f"{name}_per_s"] = statistics.median(r[0] for r in rates[name])
        result[f"{pair}_ratio_vs_{name}_old"] = statistics.median(ratios)
    for name, (baseline_bench, actor_bench, _, _) in PAIRS.items():
        n = 20_000 if name == "tell" else 2_000
        result[f"calls_per_{name}"] = await calls_per_message(actor_bench, n)
        result[f"calls_per_{name}_same_work"] = await calls_per_message(baseline_bench, n)
    return result


def _rounded(value: float | list[float], key: str) -> float | list[float]:
    digits = 3 if "ratio" in key else 2 if "calls" in key else 0
    if isinstance(value, list):
        return [round(v, digits) for v in value]
    return round(value, digits)


def _instructions(bench: str, n: int, backend: str) -> int:
    """Instructions one run of ``bench`` over ``n`` messages executes (valgrind's count)."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--only",
        bench,
        "--messages",
        str(n),
        "--backend",
        backend,
    ]
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def instructions_per_message(backend: str) -> dict[str, float]:
    """CPU instructions per message, as the difference of a run of 2n and a run of n messages
    (start-up cancels out): noise-free, unlike times on a shared machine. Needs valgrind."""
    sizes = {"tell": 5_000, "ask": 1_000}
    benches = {
        name: {"actor": actor.__name__, "same_work": baseline.__name__}
        for name, (baseline, actor, _, _) in PAIRS.items()
    }
    jobs = [
        (name, side, bench, n)
        for name, sides in benches.items()
        for side, bench in sides.items()
        for n in (sizes[name], 2 * sizes[name])
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:
        counts = list(pool.map(lambda job: _instructions(job[2], job[3], backend), jobs))
    by_job = {
        (name, side, n): count for (name, side, _, n), count in zip(jobs, counts, strict=True)
    }
    result: dict[str, float] = {}
    for name, n in sizes.items():
        for side in ("actor", "same_work"):
            per = (by_job[(name, side, 2 * n)] - by_job[(name, side, n)]) / n
            result[f"instructions_per_{name}" + ("" if side == "actor" else "_same_work")] = per
        result[f"{name}_ratio_instructions"] = (
            result[f"instructions_per_{name}_same_work"] / result[f"instructions_per_{name}"]
        )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer messages and rounds")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--backend", default="asyncio", choices=["asyncio", "trio"])
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count CPU instructions per message under valgrind (noise-free, ~2 min)",
    )
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one bench, for --instructions
    parser.add_argument("--messages", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        anyio.run(globals()[args.only], args.messages, backend=args.backend)
        return 0
    measured = anyio.run(measure, args.quick, backend=args.backend)
    if args.instructions:
        measured.update(instructions_per_message(args.backend))
    tell_ratio, ask_ratio = measured["tell_ratio"], measured["ask_ratio"]
    assert isinstance(tell_ratio, float) and isinstance(ask_ratio, float)
    result = {
        "backend": args.backend,
        **{key: _rounded(value, key) for key, value in measured.items()},
        "tell_target": TELL_TARGET,
        "ask_target": ASK_TARGET,
        "tell_ok": tell_ratio >= TELL_TARGET,
        "ask_ok": ask_ratio >= ASK_TARGET,
    }
    out = sys.stderr if args.json else sys.stdout
    print(f"backend: {args.backend}, median of {measured['rounds']} rounds", file=out)
    for name, unit in (("tell", "msg/s"), ("ask", "round trips/s")):
        low, high = result[f"{name}_ratio_spread"]
        print(
            f"{name:<5} actor     {measured[f'actor_{name}_per_s']:>12,.0f} {unit}   "
            f"{measured[f'calls_per_{name}']:.2f} calls each",
            file=out,
        )
        print(
            f"      same work {measured[f'same_work_{name}_per_s']:>12,.0f} {unit}   "
            f"{measured[f'calls_per_{name}_same_work']:.2f} calls each   "
            f"{name}_ratio {result[f'{name}_ratio']:.2f} (rounds {low:.2f}-{high:.2f})",
            file=out,
        )
        low, high = result[f"{name}_ratio_cpu_spread"]
        print(
            f"{'':52}by CPU time {result[f'{name}_ratio_cpu']:.2f} (rounds {low:.2f}-{high:.2f})",
            file=out,
        )
        for old, (_, pair) in OLD.items():
            if pair == name:
                print(
                    f"      {old:<9} {measured[f'{old}_per_s']:>12,.0f} {unit}   "
                    f"ratio {measured[f'{pair}_ratio_vs_{old}_old']:.2f} (information, old)",
                    file=out,
                )
    if args.instructions:
        for name in PAIRS:
            print(
                f"{name:<5} instructions per message: actor "
                f"{measured[f'instructions_per_{name}']:,.0f}, same work "
                f"{measured[f'instructions_per_{name}_same_work']:,.0f}   "
                f"{name}_ratio_instructions {measured[f'{name}_ratio_instructions']:.2f}",
                file=out,
            )
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
