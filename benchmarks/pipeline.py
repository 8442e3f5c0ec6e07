"""Whole turns through the real pipeline against the minimal durable work of a turn, in one run.

Both sides, per turn (the one comment the house rules ask for): read the session's case; record
the user's turn durably; then commit one event, the case's new revision and the turn's new
phase together. The baseline does exactly that and nothing more, with raw aiosqlite (one thread
hop and one COMMIT per transaction, three hops per turn, WAL and ``synchronous=NORMAL`` like the
store) or, with ``--store postgresql://…``, raw asyncpg (a pool as large as the store's, a read
and two transactions per turn); for information, on SQLite, the same three transactions run on
the event loop's thread with no hop (``baseline_no_hop_*``), as the store runs its short ones
since ADR 0026. The framework side is the real thing: a
:class:`~turnframe.runtime.Runtime` over ``TRIP_WORKFLOW`` and a fresh store, with a tiny
in-process provider (:class:`BenchProvider`) that answers every interpretation request at once
with a plan setting the ``note`` field of the session's own case. Every session is one account
with one case, so turns never contend for a case; sessions run concurrently, each one turn at a
time; latency is ``Runtime.handle_turn`` from the call to the response.

Prints, at 1 and 64 sessions, turns/s of both sides and ``throughput_ratio_1``,
``throughput_ratio_64``, ``p50_ms_64``, ``p99_ms_64``; from a counting pass,
``write_tx_per_turn`` (store write calls: each is one transaction), ``reads_per_turn`` and, on
SQLite, ``hops_per_turn`` (trips to the connection's thread: a read, or a group of write
transactions sharing one COMMIT) and ``loop_side_per_turn`` (transactions run on the loop's
thread); on PostgreSQL ``round_trips_per_turn`` and ``baseline_round_trips_per_turn``
(statements sent to the server per turn, BEGIN and COMMIT included); on SQLite
``loop_first_gain_*``: the pipeline against itself with every transaction
on the connection's thread (``driver="aiosqlite"``, per round in ``paired_loop_first_gains_*``);
on SQLite at 64 sessions the loop's commit groups (``loop_group_sizes_64``,
``loop_group_mean_64``) and ``loop_group_gain_64``: the default against the same pipeline with
a commit per transaction on the loop too (``group_commit_size=1``; per round in
``paired_loop_group_gains_64``); the group-commit batch sizes seen at 64 sessions, and
``group_commit_gain_64``: on that
all-thread driver, where group commit applies, against a commit per transaction
(``group_commit_size=1``) at 64 sessions (best against best; per round in
``paired_group_commit_gains_64``; and ``group_commit_cpu_gain_64``, CPU per turn with a commit
each over CPU per turn with group commit, the steadier figure). Each
figure is the best of alternating rounds (baseline, then pipeline): on shared cores the speed
drifts by up to 2x. Targets (issue #17): >= 0.5 at 64 sessions and >= 0.3 at 1 on SQLite,
>= 0.6 at 64 on PostgreSQL. ``--quick --json`` prints one JSON object as the last line.

    python benchmarks/pipeline.py [--quick] [--json] [--turns N] [--rounds R] [--store DSN]
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import re
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiosqlite
import anyio

from turnframe._converter import converter
from turnframe.cli.progress import progress
from turnframe.lifecycle import TurnPhase
from turnframe.plan import LabelTarget, SetFieldAct
from turnframe.providers.base import ProviderAnswer, ProviderRequest, Purpose
from turnframe.runtime import Runtime
from turnframe.stores import SqliteStore
from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.inputs import NewCase
from turnframe.stores.protocol import Store
from turnframe.stores.records import SessionRecord
from turnframe.testing import TRIP, TRIP_WORKFLOW, TURN_CLOCK, TripRequest, span
from turnframe.testing.pipeline import plan_answer

LEVELS = (1, 64)
TARGETS = {"sqlite": {1: 0.3, 64: 0.5}, "postgresql": {64: 0.6}}
TurnFn = Callable[[int, int], Awaitable[None]]

_TEXT = re.compile(r"^Set (?P<label>.+)'s note to (?P<value>.+)$")


def turn_text(label: str, n: int) -> str:
    """The user's text for turn ``n`` of a session: a new value each time, so it commits."""
    return f"Set {label}'s note to seat {n}"


class BenchProvider:
    """An interpreter that answers at once: set the named case's ``note`` to the said value.

    It reads the turn's text back from the interpretation request (the interpreter sends it as
    JSON), so it needs no script and serves any number of turns and sessions.
    """

    name = "bench"
    context_budget_tokens = 8192

    def __init__(self) -> None:
        self.requests = 0

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        return self.answer_now(request)

    def answer_now(self, request: ProviderRequest) -> ProviderAnswer:
        """It computes its answer and sends nothing (``AnswersAtOnce``): the chain calls it in
        the turn's task, as it calls the rules interpreter."""
        if request.purpose is not Purpose.INTERPRET:
            raise AssertionError(f"unexpected {request.purpose.value} request")
        self.requests += 1
        text = json.loads(request.messages[-1].content)["text"]
        match = _TEXT.match(text)
        if match is None:
            raise AssertionError(f"not a benchmark turn: {text!r}")
        value = match["value"]
        act = SetFieldAct(
            target=LabelTarget(label=match["label"]),
            field="note",
            value=value,
            evidence=span(text, f"note to {value}"),
        )
        return ProviderAnswer(text=plan_answer([act]), model="bench")


class CountingStore(DelegatingStore):
    """Counts every store call by method name (each call is one SQLite transaction)."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.calls: Counter[str] = Counter()


def _counting(name: str) -> Callable[..., Awaitable[Any]]:
    async def method(self: CountingStore, *args: Any, **kwargs: Any) -> Any:
        self.calls[name] += 1
        return await getattr(self.inner, name)(*args, **kwargs)

    method.__name__ = name
    return method


for _name in [n for n in vars(DelegatingStore) if not n.startswith("_") and n != "inner"]:
    setattr(CountingStore, _name, _counting(_name))


def is_read(method: str) -> bool:
    return method.startswith(("get_", "list_"))


def _ms(latencies: list[float], q: float) -> float:
    ordered = sorted(latencies)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Run = tuple[float, list[float], float]  # turns/s, latencies (s), CPU ms per turn (all threads)


async def _run_sessions(sessions: int, turns: int, turn: TurnFn) -> Run:
    """Run ``turns`` turns split over ``sessions`` concurrent sessions, each one at a time."""
    per_session = max(1, turns // sessions)
    latencies: list[float] = []
    gc.collect()  # the previous run's garbage is not this run's cost

    async def session(s: int) -> None:
        for n in range(per_session):
            started = time.perf_counter()
            await turn(s, n)
            latencies.append(time.perf_counter() - started)

    started, cpu = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as tg:
        for s in range(sessions):
            tg.start_soon(session, s)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    done = per_session * sessions
    return done / elapsed, latencies, 1000 * cpu / done


# -- where each side keeps its data ----------------------------------------------------------


class Target:
    """A fresh SQLite file in a temp dir, or a fresh schema on the PostgreSQL server."""

    def __init__(self, tmp: Path, dsn: str | None) -> None:
        self.tmp = tmp
        self.dsn = dsn
        self.kind = "postgresql" if dsn else "sqlite"

    @asynccontextmanager
    async def store(self, **options: Any) -> AsyncIterator[Store]:
        if self.dsn is None:
            path = self.tmp / f"framework-{uuid.uuid4().hex}.db"
            try:
                async with SqliteStore.open(path, **options) as store:
                    yield store
            finally:
                _discard(path)
            return
        from turnframe.stores.postgres import PostgresStore

        schema = f"bench_{uuid.uuid4().hex[:12]}"
        try:
            async with PostgresStore.open(self.dsn, schema=schema) as pg:
                yield pg
        finally:
            await self._drop(schema)

    async def _drop(self, schema: str) -> None:
        import asyncpg

        assert self.dsn is not None
        conn = await asyncpg.connect(self.dsn)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        finally:
            await conn.close()


def _discard(path: Path) -> None:
    """Remove a finished run's database, so old files do not weigh on the next run."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


# -- the framework ---------------------------------------------------------------------------


async def bench_framework(
    target: Target,
    sessions: int,
    turns: int,
    *,
    counting: bool = False,
    store_options: dict[str, Any] | None = None,
) -> tuple[float, list[float], Counter[str], dict[str, Any]]:
    """Turns/s and latencies through the Runtime; with ``counting``, the store calls made by
    the timed turns; and the SQLite store's traffic (hops, commit group sizes) in them."""
    state = converter.unstructure(TripRequest(destination="Lisbon"), unstructure_as=TripRequest)
    async with target.store(**(store_options or {})) as real:
        store: Store = CountingStore(real) if counting else real
        provider = BenchProvider()
        async with Runtime(workflows=[TRIP_WORKFLOW], store=store, provider=provider) as rt:
            opened: list[tuple[SessionRecord, str]] = []
            for s in range(sessions):
                account, label = f"bench-{s}", f"Trip {s}"
                await store.create_case(
                    account_id=account,
                    case=NewCase(workflow=TRIP, label=label, state=state, revision=1),
                )
                opened.append((await rt.open_session(account_id=account), label))

            async def turn(s: int, n: int) -> None:
                session, label = opened[s]
                response = await rt.handle_turn(
                    rt.new_turn(session, turn_text(label, n), at=TURN_CLOCK)
                )
                if response.phase is not TurnPhase.DELIVERED or not response.events:
                    raise AssertionError(f"turn {n} of session {s} did not commit: {response}")

            # One untimed turn per session starts its SessionActor (a cold start is not a turn).
            async with anyio.create_task_group() as tg:
                for s in range(sessions):
                    tg.start_soon(turn, s, 10**6)
            if isinstance(store, CountingStore):
                store.calls.clear()
            before = _traffic(real)
            rate, latencies, cpu = await _run_sessions(sessions, turns, turn)
            after = _traffic(real)
            calls = store.calls.copy() if isinstance(store, CountingStore) else Counter()
    traffic = {
        "cpu_ms_per_turn": cpu,
        "reads": after["reads"] - before["reads"],
        "here": after["here"] - before["here"],
        "group_sizes": _grown(before["group_sizes"], after["group_sizes"]),
        "loop_group_sizes": _grown(before["loop_group_sizes"], after["loop_group_sizes"]),
    }
    return rate, latencies, calls, traffic


def _grown(before: dict[int, int], after: dict[int, int]) -> dict[int, int]:
    return {k: n - before.get(k, 0) for k, n in after.items() if n - before.get(k, 0)}


#: The driver that keeps every transaction on the connection's thread (the default before
#: ADR 0026 on asyncio; "thread" is the same on any backend).
THREAD_DRIVER = "aiosqlite"


def _loop_first_known() -> bool:
    """Whether this store runs short transactions on the loop's thread (older code: no)."""
    from turnframe.stores.sqlite import driver

    return hasattr(driver, "LoopFirstDriver")


def _loop_groups_known() -> bool:
    """Whether short writes on the loop share commits (older code: no)."""
    from turnframe.stores.sqlite import group

    return hasattr(group, "LONELY_GROUPS")


def _commit_each_known() -> bool:
    """Whether this store has group commit settings (older code: none)."""
    return "group_commit_size" in inspect.signature(SqliteStore.open).parameters


def _traffic(store: Store) -> dict[str, Any]:
    if isinstance(store, SqliteStore) and hasattr(store, "traffic"):  # (older code: none)
        seen = store.traffic()
        return {
            "reads": seen.reads,
            "group_sizes": dict(seen.group_sizes),
            "loop_group_sizes": dict(getattr(seen, "loop_group_sizes", {})),
            "here": getattr(seen, "reads_here", 0) + getattr(seen, "commits_here", 0),
        }
    return {"reads": 0, "group_sizes": {}, "loop_group_sizes": {}, "here": 0}


# -- the baselines: the minimal durable turn -------------------------------------------------

_SQLITE_SCHEMA = [
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "CREATE TABLE turns (id TEXT PRIMARY KEY, session TEXT, phase TEXT, body TEXT)",
    "CREATE TABLE cases (id TEXT PRIMARY KEY, state TEXT, revision INTEGER)",
    "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, case_id TEXT, turn TEXT,"
    " payload TEXT)",
]


def _turn_values(s: int, n: int) -> tuple[str, str, str, str]:
    turn, case = f"t{s}-{n}", f"c{s}"
    body = json.dumps({"text": turn_text(f"Trip {s}", n), "session": f"s{s}"})
    change = json.dumps({"field": "note", "value": f"seat {n}"})
    return turn, case, body, change


async def bench_raw_sqlite(path: Path, sessions: int, turns: int, *, on_loop: bool = False) -> Run:
    """The minimal durable turn on raw aiosqlite, one hop per transaction; ``on_loop``: the same
    transactions run on the event loop's thread with no hop, as the store's short transactions
    do since ADR 0026 (for information: the issue's baseline is the one with hops)."""
    async with aiosqlite.connect(path, isolation_level=None, check_same_thread=False) as db:
        for statement in _SQLITE_SCHEMA:
            await db.execute(statement)
        for s in range(sessions):
            await db.execute("INSERT INTO cases VALUES (?, '{}', 1)", (f"c{s}",))
        raw: Any = db  # aiosqlite's one-callable hop (``_execute``), as the store's driver uses

        def thread_hop(body: Callable[[Any], object]) -> Awaitable[Any]:
            return raw._execute(lambda: body(raw._conn))  # type: ignore[no-any-return]

        async def no_hop(body: Callable[[Any], object]) -> Any:
            return body(raw._conn)

        hop = no_hop if on_loop else thread_hop

        def record(t: str, s: int, body: str) -> Callable[[Any], None]:
            def tx(c: Any) -> None:
                c.execute("BEGIN IMMEDIATE")
                c.execute("INSERT INTO turns VALUES (?, ?, 'received', ?)", (t, f"s{s}", body))
                c.execute("COMMIT")

            return tx

        def commit(t: str, case: str, change: str, revision: int) -> Callable[[Any], None]:
            def tx(c: Any) -> None:
                c.execute("BEGIN IMMEDIATE")
                c.execute(
                    "INSERT INTO events (case_id, turn, payload) VALUES (?, ?, ?)",
                    (case, t, change),
                )
                c.execute(
                    "UPDATE cases SET state = ?, revision = revision + 1"
                    " WHERE id = ? AND revision = ?",
                    (change, case, revision),
                )
                c.execute("UPDATE turns SET phase = 'committed' WHERE id = ?", (t,))
                c.execute("COMMIT")

            return tx

        async def turn(s: int, n: int) -> None:
            t, case, body, change = _turn_values(s, n)
            row = await hop(
                lambda c: c.execute(
                    "SELECT state, revision FROM cases WHERE id = ?", (case,)
                ).fetchone()
            )
            await hop(record(t, s, body))
            await hop(commit(t, case, change, row[1]))

        return await _run_sessions(sessions, turns, turn)


async def bench_raw_postgres(dsn: str, sessions: int, turns: int) -> Run:
    import asyncpg

    async def keep_session(conn: Any) -> None:  # as the store: no reset query per release
        pass

    schema = f"bench_raw_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(f"CREATE SCHEMA {schema}")
        pool = await asyncpg.create_pool(
            dsn,
            min_size=1,
            max_size=10,
            reset=keep_session,
            server_settings={"search_path": schema},
        )
        try:
            async with pool.acquire() as c:
                await c.execute(
                    "CREATE TABLE turns (id TEXT PRIMARY KEY, session TEXT, phase TEXT,"
                    " body JSONB);"
                    "CREATE TABLE cases (id TEXT PRIMARY KEY, state JSONB, revision INTEGER);"
                    "CREATE TABLE events (seq BIGSERIAL PRIMARY KEY, case_id TEXT, turn TEXT,"
                    " payload JSONB)"
                )
                await c.executemany(
                    "INSERT INTO cases VALUES ($1, '{}', 1)", [(f"c{s}",) for s in range(sessions)]
                )

            async def turn(s: int, n: int) -> None:
                t, case, body, change = _turn_values(s, n)
                row = await pool.fetchrow("SELECT state, revision FROM cases WHERE id = $1", case)
                async with pool.acquire() as c, c.transaction():
                    await c.execute(
                        "INSERT INTO turns VALUES ($1, $2, 'received', $3)", t, f"s{s}", body
                    )
                async with pool.acquire() as c, c.transaction():
                    await c.execute(
                        "INSERT INTO events (case_id, turn, payload) VALUES ($1, $2, $3)",
                        case,
                        t,
                        change,
                    )
                    await c.execute(
                        "UPDATE cases SET state = $1, revision = revision + 1"
                        " WHERE id = $2 AND revision = $3",
                        change,
                        case,
                        row[1],
                    )
                    await c.execute("UPDATE turns SET phase = 'committed' WHERE id = $1", t)

            return await _run_sessions(sessions, turns, turn)
        finally:
            await pool.close()
    finally:
        await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await admin.close()


async def bench_baseline(
    target: Target, sessions: int, turns: int, *, on_loop: bool = False
) -> Run:
    if target.dsn is not None:
        return await bench_raw_postgres(target.dsn, sessions, turns)
    path = target.tmp / f"baseline-{uuid.uuid4().hex}.db"
    try:
        return await bench_raw_sqlite(path, sessions, turns, on_loop=on_loop)
    finally:
        _discard(path)


# -- the run ---------------------------------------------------------------------------------


@contextmanager
def round_trips() -> Iterator[list[str]]:
    """The statements asyncpg sends while inside (each one round trip to the server, BEGIN and
    COMMIT included), by their first word."""
    import asyncpg

    sent: list[str] = []
    connection = asyncpg.connection.Connection
    originals = {n: getattr(connection, n) for n in ("execute", "fetch", "fetchrow", "fetchval")}

    def counted(method: Any) -> Any:
        async def send(conn: Any, query: str, *args: Any, **kwargs: Any) -> Any:
            sent.append(query.split(None, 1)[0].upper())
            return await method(conn, query, *args, **kwargs)

        return send

    for name, method in originals.items():
        setattr(connection, name, counted(method))
    try:
        yield sent
    finally:
        for name, method in originals.items():
            setattr(connection, name, method)


async def calibrate(target: Target) -> dict[str, Any]:
    """Store calls and thread hops per pipeline turn (on PostgreSQL, round trips per turn of
    both sides), from a counting pass."""
    turns = 8
    trips: dict[str, float] = {}
    if target.dsn is not None:
        # Each side runs twice, with `turns` and with twice as many: the difference is what
        # `turns` more turns sent (opening the store, sessions and cases cancels out).
        dsn, sent = target.dsn, [0, 0, 0, 0]
        for i, n in enumerate((turns, 2 * turns)):
            with round_trips() as framework:
                _, _, calls, traffic = await bench_framework(target, 2, n, counting=True)
            with round_trips() as baseline:
                await bench_raw_postgres(dsn, 2, n)
            sent[i], sent[2 + i] = len(framework), len(baseline)
        trips["round_trips_per_turn"] = (sent[1] - sent[0]) / turns
        trips["baseline_round_trips_per_turn"] = (sent[3] - sent[2]) / turns
        turns *= 2  # the counts below are of the second pass
    else:
        _, _, calls, traffic = await bench_framework(target, 2, turns, counting=True)
    writes = sum(c for name, c in calls.items() if not is_read(name))
    reads = sum(c for name, c in calls.items() if is_read(name))
    if writes % turns or reads % turns:
        raise AssertionError(f"turns made uneven store calls: {dict(calls)}")
    commits = sum(traffic["group_sizes"].values())
    return {
        "write_tx_per_turn": writes // turns,
        "reads_per_turn": reads // turns,
        "hops_per_turn": (traffic["reads"] + commits) / turns if target.dsn is None else None,
        # transactions run on the event loop's own thread, with no hop (ADR 0026)
        "loop_side_per_turn": traffic["here"] / turns if target.dsn is None else None,
        "store_calls_per_turn": {name: n / turns for name, n in sorted(calls.items())},
        **trips,
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    turns = args.turns or (640 if args.quick else 1920)
    rounds = args.rounds or (3 if args.quick else 5)
    # --quick must finish within 60 s on a busy machine: a round after the first is skipped
    # when it could leave too little time for one round of every level still to come.
    deadline = started + (40.0 if args.quick else float("inf"))
    report: dict[str, Any] = {"turns": turns, "rounds": rounds}
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        progress("pipeline", total=1 + len(LEVELS) * rounds) as bar,
    ):
        target = Target(Path(tmp_name), args.store)
        report["store"] = target.kind
        counted = await calibrate(target)
        report.update(counted)
        bar.advance()
        if not args.json:
            calls = ", ".join(f"{k} {v:g}" for k, v in counted["store_calls_per_turn"].items())
            print(
                f"per turn: {counted['write_tx_per_turn']} write transactions, "
                f"{counted['reads_per_turn']} reads, {counted['hops_per_turn']} thread hops "
                f"({calls})"
            )
            if "round_trips_per_turn" in counted:
                print(
                    f"round trips per turn: {counted['round_trips_per_turn']:g} "
                    f"(baseline {counted['baseline_round_trips_per_turn']:g})"
                )
        for i, sessions in enumerate(LEVELS):
            best_framework: tuple[float, list[float], dict[str, Any]] | None = None
            best_baseline: Run | None = None
            best_single = 0.0  # SQLite at 64 sessions: the pipeline with a commit per write
            best_grouped = 0.0  # ... and with group commit, on the same (thread) driver
            best_thread = 0.0  # SQLite: every transaction on the connection's thread
            best_loop_baseline = 0.0  # SQLite: the raw minimal turn with no hop (information)
            paired_loop_gains: list[float] = []  # the default against that, per round
            best_loop_each = 0.0  # SQLite at 64: the loop's short writes a commit each
            paired_loop_group_gains: list[float] = []  # the default against that, per round
            group_traffic: dict[str, Any] | None = None
            single_cpu: list[float] = []  # ... its CPU ms per turn, one per round
            group_cpu: list[float] = []  # the pipeline's, in the same rounds
            paired_gains: list[float] = []  # group commit against a commit each, per round
            round_time = 0.0
            paired: list[float] = []
            for r in range(rounds):
                levels_left = len(LEVELS) - i - 1
                if r and time.perf_counter() + round_time * (1 + levels_left) > deadline:
                    bar.advance(rounds - r)  # rounds skipped to keep --quick quick
                    break
                round_started = time.perf_counter()
                b = await bench_baseline(target, sessions, turns)
                if best_baseline is None or b[0] > best_baseline[0]:
                    best_baseline = b
                if target.dsn is None:
                    loop_b = await bench_baseline(target, sessions, turns, on_loop=True)
                    best_loop_baseline = max(best_loop_baseline, loop_b[0])
                rate, lat, _, traffic = await bench_framework(target, sessions, turns)
                if best_framework is None or rate > best_framework[0]:
                    best_framework = (rate, lat, traffic)
                paired.append(round(rate / b[0], 3))
                if target.dsn is None and _loop_first_known():
                    # The same pipeline with every transaction on the connection's thread
                    # (group commit as before ADR 0026): what the loop's own turn gains.
                    on_thread, _, _, thread_traffic = await bench_framework(
                        target, sessions, turns, store_options={"driver": THREAD_DRIVER}
                    )
                    best_thread = max(best_thread, on_thread)
                    paired_loop_gains.append(round(rate / on_thread, 3))
                if target.dsn is None and sessions == LEVELS[-1] and _loop_groups_known():
                    # The same pipeline with loop groups off (a commit per transaction on the
                    # loop too): what short writes sharing a COMMIT on the loop gain.
                    each, _, _, _ = await bench_framework(
                        target, sessions, turns, store_options={"group_commit_size": 1}
                    )
                    best_loop_each = max(best_loop_each, each)
                    paired_loop_group_gains.append(round(rate / each, 3))
                if target.dsn is None and sessions == LEVELS[-1] and _commit_each_known():
                    # Group commit where it applies (bodies queued for the thread): on the
                    # thread driver, against a commit per transaction on it.
                    thread = {"driver": THREAD_DRIVER} if _loop_first_known() else {}
                    grouped, grouped_traffic = (
                        (on_thread, thread_traffic) if thread else (rate, traffic)
                    )
                    single, _, _, single_traffic = await bench_framework(
                        target, sessions, turns, store_options={"group_commit_size": 1, **thread}
                    )
                    best_single = max(best_single, single)
                    best_grouped = max(best_grouped, grouped)
                    paired_gains.append(round(grouped / single, 3))
                    single_cpu.append(single_traffic["cpu_ms_per_turn"])
                    group_cpu.append(grouped_traffic["cpu_ms_per_turn"])
                    group_traffic = grouped_traffic
                round_time = max(round_time, time.perf_counter() - round_started)
                bar.advance()
            assert best_framework is not None and best_baseline is not None
            (rate, lat, traffic), (base, base_lat, base_cpu) = best_framework, best_baseline
            ratio = rate / base
            report[f"turns_per_s_{sessions}"] = round(rate, 1)
            report[f"p50_ms_{sessions}"] = round(_ms(lat, 0.5), 3)
            report[f"p99_ms_{sessions}"] = round(_ms(lat, 0.99), 3)
            report[f"baseline_turns_per_s_{sessions}"] = round(base, 1)
            report[f"baseline_p50_ms_{sessions}"] = round(_ms(base_lat, 0.5), 3)
            report[f"baseline_p99_ms_{sessions}"] = round(_ms(base_lat, 0.99), 3)
            report[f"throughput_ratio_{sessions}"] = round(ratio, 3)
            report[f"paired_ratios_{sessions}"] = paired
            if best_loop_baseline:
                # For information: the same minimal turn with its transactions on the loop's
                # thread (no hop), as the store runs its short ones since ADR 0026.
                report[f"baseline_no_hop_turns_per_s_{sessions}"] = round(best_loop_baseline, 1)
                report[f"ratio_to_no_hop_baseline_{sessions}"] = round(rate / best_loop_baseline, 3)
            # CPU time per turn (every thread of the process) drifts less with the machine's
            # load than turns/s do: it says how much work a turn is, not how fast it went.
            report[f"cpu_ms_per_turn_{sessions}"] = round(traffic["cpu_ms_per_turn"], 3)
            report[f"baseline_cpu_ms_per_turn_{sessions}"] = round(base_cpu, 3)
            if best_thread:
                report[f"thread_driver_turns_per_s_{sessions}"] = round(best_thread, 1)
                report[f"loop_first_gain_{sessions}"] = round(rate / best_thread, 3)
                report[f"paired_loop_first_gains_{sessions}"] = paired_loop_gains
            if best_single:
                report[f"commit_each_turns_per_s_{sessions}"] = round(best_single, 1)
                report[f"group_commit_gain_{sessions}"] = round(best_grouped / best_single, 3)
                # Turns/s drift with the machine's load from one run to the next, so the gain
                # is also given per round (each pair ran back to back) and as the CPU time a
                # turn costs with a commit each over the CPU time it costs with group commit
                # (best of the rounds on each side), which drifts far less.
                report[f"paired_group_commit_gains_{sessions}"] = paired_gains
                report[f"group_commit_cpu_gain_{sessions}"] = round(
                    min(single_cpu) / min(group_cpu), 3
                )
            loop_sizes = {int(k): v for k, v in traffic["loop_group_sizes"].items()}
            if loop_sizes and sessions == LEVELS[-1]:
                report[f"loop_group_mean_{sessions}"] = round(
                    sum(k * v for k, v in loop_sizes.items()) / sum(loop_sizes.values()), 2
                )
                report[f"loop_group_sizes_{sessions}"] = dict(sorted(loop_sizes.items()))
            if best_loop_each:
                report[f"loop_commit_each_turns_per_s_{sessions}"] = round(best_loop_each, 1)
                report[f"loop_group_gain_{sessions}"] = round(rate / best_loop_each, 3)
                report[f"paired_loop_group_gains_{sessions}"] = paired_loop_group_gains
            # the commit groups where group commit applies (the thread driver, when measured)
            counted_groups = group_traffic if group_traffic is not None else traffic
            sizes = {int(k): v for k, v in counted_groups["group_sizes"].items()}
            if sizes:
                commits = sum(sizes.values())
                report[f"group_commit_mean_{sessions}"] = round(
                    sum(k * v for k, v in sizes.items()) / commits, 2
                )
                report[f"group_commit_sizes_{sessions}"] = dict(sorted(sizes.items()))
            if not args.json:
                groups = (
                    f"  commit groups mean {report[f'group_commit_mean_{sessions}']}"
                    if sizes
                    else ""
                )
                if best_thread:
                    groups += (
                        f"  all on the thread {best_thread:.1f} turns/s (loop-first gain "
                        f"{rate / best_thread:.2f}x, per round "
                        f"{', '.join(f'{g:.2f}' for g in paired_loop_gains)})"
                    )
                if best_single:
                    groups += (
                        f"; on the thread {best_single:.1f} turns/s with a commit each"
                        f" (group commit gain {best_grouped / best_single:.2f}x, per round "
                        f"{', '.join(f'{g:.2f}' for g in paired_gains)}; CPU per turn "
                        f"{report[f'group_commit_cpu_gain_{sessions}']:.2f}x)"
                    )
                print(
                    f"sessions={sessions:>3}  pipeline {rate:7.1f} turns/s  "
                    f"p50 {_ms(lat, 0.5):7.2f} ms  p99 {_ms(lat, 0.99):7.2f} ms  | "
                    f"raw {target.kind} {base:7.1f} turns/s  p50 {_ms(base_lat, 0.5):6.2f} ms  "
                    f"p99 {_ms(base_lat, 0.99):6.2f} ms  | ratio {ratio:5.3f}x"
                    f"  (pairs {', '.join(f'{p:.2f}' for p in paired)}){groups}"
                    f"  | CPU per turn {traffic['cpu_ms_per_turn']:.2f} ms"
                    f" (raw {base_cpu:.2f} ms)",
                    flush=True,
                )
    targets = TARGETS[target.kind]
    report["targets"] = {f"throughput_ratio_{k}": v for k, v in targets.items()}
    report["meets_targets"] = all(report[f"throughput_ratio_{k}"] >= v for k, v in targets.items())
    report["p99_under_4x_p50_64"] = report["p99_ms_64"] < 4 * report["p50_ms_64"]
    report["seconds"] = round(time.perf_counter() - started, 1)
    if not args.json:
        verdict = "meets" if report["meets_targets"] else "is BELOW"
        print(
            f"throughput_ratio_1 {report['throughput_ratio_1']:.3f}x, throughput_ratio_64 "
            f"{report['throughput_ratio_64']:.3f}x {verdict} the targets {targets}; "
            f"p99/p50 at 64: {report['p99_ms_64'] / report['p50_ms_64']:.2f} "
            f"({report['seconds']:.0f} s)"
        )
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns and rounds (< 60 s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument("--turns", type=int, default=0, help="turns per level and round")
    parser.add_argument("--rounds", type=int, default=0, help="alternating rounds per level")
    parser.add_argument(
        "--store",
        default=None,
        metavar="DSN",
        help="postgresql://… : measure PostgresStore against raw asyncpg instead of SQLite",
    )
    arguments = parser.parse_args()
    result = anyio.run(main, arguments)
    if arguments.json:
        print(json.dumps(result))
