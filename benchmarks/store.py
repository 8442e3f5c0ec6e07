"""The SQLite store's durable turn against raw aiosqlite doing the same commits, in one run.

A turn here is the store's six phase-boundary transactions: record the user turn, save the plan,
save the reduction, admit one command (the seal), commit the bundle (journal outcome, case
update, event, replay record, phase), save the response. Sessions run concurrently, each one
turn at a time. The baseline issues the same six transactions with the same statements through
raw aiosqlite, one ``await`` per statement under a lock (without the lock, tasks sharing the
connection are not isolated), which is how a plain aiosqlite program is written.

Prints turns/s, p50/p99 turn latency and the store/baseline ratio at 1, 16 and 64 sessions;
each figure is the best of alternating rounds. ``--quick --json`` prints one JSON object.

    python benchmarks/store.py [--quick] [--json] [--backend asyncio|trio]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiosqlite
import anyio

from turnframe.cli.progress import progress
from turnframe.lifecycle import JournalStatus, TurnPhase
from turnframe.stores import (
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewCase,
    NewEvent,
    NewJournalEntry,
    PhaseMove,
    SqliteStore,
    Store,
)

P = TurnPhase
ACCOUNT = "bench"
TurnFn = Callable[[int, int], Awaitable[None]]


def _move(expected: TurnPhase, new: TurnPhase) -> PhaseMove:
    return PhaseMove(expected=expected, new=new)


async def _store_turn(store: Store, session_id: str, case_id: str, revision: int, n: int) -> None:
    turn = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session_id, payload={"text": f"turn {n}"}
    )
    tid = turn.turn_id
    await store.save_plan(ACCOUNT, tid, {"acts": [n]}, phase=_move(P.RECEIVED, P.INTERPRETED))
    await store.save_reduction(
        ACCOUNT, tid, {"results": [n]}, phase=_move(P.INTERPRETED, P.REDUCED)
    )
    key = f"{tid}-k"
    await store.admit(
        ACCOUNT,
        tid,
        [NewJournalEntry(idempotency_key=key, command_id=key, content_digest="d", payload={})],
        phase=_move(P.REDUCED, P.EXECUTING),
    )
    await store.commit_bundle(
        CommitBundle(
            account_id=ACCOUNT,
            turn_id=tid,
            journal_outcomes=[
                JournalOutcome(
                    idempotency_key=key,
                    expected=JournalStatus.PENDING,
                    status=JournalStatus.COMMITTED,
                    outcome={"ok": True},
                )
            ],
            case_updates=[
                CaseUpdate(
                    case_id=case_id,
                    expected_revision=revision,
                    new_revision=revision + 1,
                    state={"n": n},
                )
            ],
            events=[NewEvent(case_id=case_id, revision=revision + 1, type="set", payload={})],
            replay_record={"turn": n},
            phase=_move(P.EXECUTING, P.COMMITTED),
        )
    )
    await store.save_assistant_turn(
        ACCOUNT, tid, [{"type": "text", "text": "done"}], phase=_move(P.COMMITTED, P.DELIVERED)
    )


async def _run_sessions(sessions: int, turns: int, turn: TurnFn) -> tuple[float, list[float]]:
    per_session = max(1, turns // sessions)
    latencies: list[float] = []

    async def session(s: int) -> None:
        for n in range(per_session):
            started = time.perf_counter()
            await turn(s, n)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for s in range(sessions):
            tg.start_soon(session, s)
    elapsed = time.perf_counter() - started
    return per_session * sessions / elapsed, latencies


async def bench_store(path: Path, sessions: int, turns: int) -> tuple[float, list[float]]:
    async with SqliteStore.open(path) as store:
        ids = []
        for s in range(sessions):
            session = await store.create_session(account_id=ACCOUNT, workflow="bench")
            case = await store.create_case(
                account_id=ACCOUNT, case=NewCase(workflow="bench", label=f"c{s}", state={})
            )
            ids.append((session.session_id, case.case_id))

        async def turn(s: int, n: int) -> None:
            session_id, case_id = ids[s]
            await _store_turn(store, session_id, case_id, n + 1, n)

        return await _run_sessions(sessions, turns, turn)


_BASELINE_SCHEMA = [
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, last_turn TEXT)",
    "CREATE TABLE turns (id TEXT PRIMARY KEY, session TEXT, payload TEXT, phase TEXT, "
    "plan TEXT, reduction TEXT)",
    "CREATE TABLE journal (key TEXT PRIMARY KEY, turn TEXT, status TEXT, outcome TEXT)",
    "CREATE TABLE cases (id TEXT PRIMARY KEY, state TEXT, revision INTEGER)",
    "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, case_id TEXT, payload TEXT)",
    "CREATE TABLE replays (turn TEXT PRIMARY KEY, payload TEXT)",
    "CREATE TABLE responses (turn TEXT PRIMARY KEY, blocks TEXT)",
]


async def bench_baseline(path: Path, sessions: int, turns: int) -> tuple[float, list[float]]:
    async with aiosqlite.connect(path, isolation_level=None) as db:
        for statement in _BASELINE_SCHEMA:
            await db.execute(statement)
        for s in range(sessions):
            await db.execute("INSERT INTO sessions VALUES (?, NULL)", (f"s{s}",))
            await db.execute("INSERT INTO cases VALUES (?, '{}', 1)", (f"c{s}",))
        lock = anyio.Lock()

        async def tx(*statements: tuple[str, tuple[object, ...]]) -> None:
            async with lock:
                await db.execute("BEGIN IMMEDIATE")
                for sql, params in statements:
                    await db.execute(sql, params)
                await db.execute("COMMIT")

        async def turn(s: int, n: int) -> None:
            t, k = f"t{s}-{n}", f"t{s}-{n}-k"
            await tx(
                ("INSERT INTO turns VALUES (?, ?, '{}', 'received', NULL, NULL)", (t, f"s{s}")),
                ("UPDATE sessions SET last_turn = ? WHERE id = ?", (t, f"s{s}")),
            )
            await tx(("UPDATE turns SET plan = '{}', phase = 'interpreted' WHERE id = ?", (t,)))
            await tx(("UPDATE turns SET reduction = '{}', phase = 'reduced' WHERE id = ?", (t,)))
            await tx(
                ("INSERT INTO journal VALUES (?, ?, 'pending', NULL)", (k, t)),
                ("UPDATE turns SET phase = 'executing' WHERE id = ?", (t,)),
            )
            await tx(
                ("UPDATE journal SET status = 'committed', outcome = '{}' WHERE key = ?", (k,)),
                (
                    "UPDATE cases SET state = '{}', revision = revision + 1 WHERE id = ?",
                    (f"c{s}",),
                ),
                ("INSERT INTO events (case_id, payload) VALUES (?, '{}')", (f"c{s}",)),
                ("INSERT INTO replays VALUES (?, '{}')", (t,)),
                ("UPDATE turns SET phase = 'committed' WHERE id = ?", (t,)),
            )
            await tx(
                ("INSERT INTO responses VALUES (?, '[]')", (t,)),
                ("UPDATE turns SET phase = 'delivered' WHERE id = ?", (t,)),
            )

        return await _run_sessions(sessions, turns, turn)


def _ms(latencies: list[float], q: float) -> float:
    ordered = sorted(latencies)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(args: argparse.Namespace) -> dict[str, float]:
    turns = 600 if args.quick else 3000
    rounds = 2 if args.quick else 3
    report: dict[str, float] = {}
    levels = (1, 16, 64)
    with (
        tempfile.TemporaryDirectory() as tmp,
        progress("store", total=len(levels) * rounds) as bar,
    ):
        for sessions in levels:
            best: dict[str, tuple[float, list[float]]] = {}
            for r in range(rounds):
                for name, bench in (("baseline", bench_baseline), ("store", bench_store)):
                    if name == "baseline" and args.backend != "asyncio":
                        continue
                    path = Path(tmp) / f"{name}-{sessions}-{r}.db"
                    rate, lat = await bench(path, sessions, turns)
                    if name not in best or rate > best[name][0]:
                        best[name] = (rate, lat)
                bar.advance()
            rate, lat = best["store"]
            report[f"turns_per_s_{sessions}"] = round(rate, 1)
            report[f"p50_ms_{sessions}"] = round(_ms(lat, 0.5), 3)
            report[f"p99_ms_{sessions}"] = round(_ms(lat, 0.99), 3)
            line = (
                f"sessions={sessions:>3}  store {rate:8.1f} turns/s  "
                f"p50 {_ms(lat, 0.5):6.2f} ms  p99 {_ms(lat, 0.99):6.2f} ms"
            )
            if "baseline" in best:
                base = best["baseline"][0]
                report[f"baseline_turns_per_s_{sessions}"] = round(base, 1)
                report[f"throughput_ratio_{sessions}"] = round(rate / base, 3)
                line += f"  | raw aiosqlite {base:8.1f} turns/s  ratio {rate / base:5.2f}x"
            if not args.json:
                print(line, flush=True)
    report["transactions_per_turn"] = 6
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    arguments = parser.parse_args()
    result = anyio.run(main, arguments, backend=arguments.backend)
    if arguments.json:
        print(json.dumps(result))
