"""Fuzzing as a benchmark: mutated model answers through the real runtime; none may hurt it.

Every answer is one user turn of the test workflow, answered by a provider that hands back a
mutation of the turn's well-formed plan (``turnframe.testing.fuzz``: dropped and retyped
fields, unknown kinds, huge and deep values, NaN, bad escapes and lone surrogates, 1 MB strings,
bodies cut off, thousands of acts, no plan at all; a share stays valid and executes). Sessions
of separate accounts run concurrently, and a healthy session keeps talking throughout with
well-formed answers. Answers go in chunks, each on a fresh in-memory store and runtime (a 1 MB
answer is kept in its turn's replay record, so one store would only grow).

Counted, and all must be 0: crashes (an exception a caller got that is not a typed error, or
a stage actor that failed on a message), partial executions (a failed turn that left a journal
entry, an event, a card or an outbox row), hangs (a turn without an answer within 30 s), stuck
turns (a turn not final afterwards, even after ``recover()``), and the healthy session's turns
that did not deliver. Also printed: answers/s through the runtime and, as a ratio, against a
baseline measured in the same run that parses the same answers with ``parse_plan`` alone, with
no runtime (so the ratio is what the whole durable turn costs on top of reading the answer).

    python benchmarks/fuzz_plans.py [--quick] [--json] [--answers N] [--seed S]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
from collections import Counter
from typing import Any

import anyio
import anyio.lowlevel

from turnframe._converter import converter
from turnframe.errors import TurnframeError
from turnframe.lifecycle import TurnPhase
from turnframe.plan import (
    Act,
    ActCondition,
    AtomicUnit,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    PlanRejected,
    QuestionAct,
    SetFieldAct,
    UserTurnPlan,
    parse_plan,
)
from turnframe.providers.base import ProviderAnswer, ProviderRequest, Purpose
from turnframe.runtime import Runtime, RuntimeSettings
from turnframe.stores import SqliteStore
from turnframe.stores.inputs import NewCase
from turnframe.stores.protocol import Store
from turnframe.supervisors import EventKind, SupervisionEvent
from turnframe.testing import (
    ACCOUNT,
    TRIP_WORKFLOW,
    TURN_CLOCK,
    make_turn,
    plan_json,
    seeded_directory,
    span,
)
from turnframe.testing.fuzz import mutate

HANG_SECONDS = 30.0
SESSIONS = 16
HEALTHY_EVERY = 25


def _base_turns() -> list[tuple[str, UserTurnPlan]]:
    """Turns of the test workflow with the plans a good interpreter gives for them (one of them
    with an atomic unit, a condition and an operation to confirm, so those fields are mutated
    too)."""
    bob = LabelTarget(label="Bob")
    note = "Set Bob's note to aisle"
    both = "Passengers for Bob: 3, and what is his status?"
    kept = "Set Bob's note to window, no, leave the note as it is"
    withdraw = "Withdraw Bob's trip"
    unit = "If the trip is ready, set Bob's note to aisle and withdraw his trip, both or neither"
    return [
        (
            note,
            _plan(SetFieldAct(target=bob, field="note", value="aisle", evidence=span(note, note))),
        ),
        (
            both,
            _plan(
                SetFieldAct(
                    target=bob, field="passengers", value="3", evidence=span(both, "Passengers")
                ),
                QuestionAct(question="status", target=bob, evidence=span(both, "his status?")),
            ),
        ),
        (
            kept,
            _plan(
                SetFieldAct(target=bob, field="note", value="window", evidence=span(kept, "note")),
                KeepUnchangedAct(target=bob, field="note", evidence=span(kept, "leave the note")),
            ),
        ),
        (
            withdraw,
            _plan(
                OperationAct(target=bob, operation="withdraw", evidence=span(withdraw, withdraw))
            ),
        ),
        (
            unit,
            UserTurnPlan(
                acts=(
                    SetFieldAct(
                        target=bob,
                        field="note",
                        value="aisle",
                        evidence=span(unit, "set Bob's note to aisle"),
                        condition=ActCondition(name="ready"),
                    ),
                    OperationAct(
                        target=bob,
                        operation="withdraw",
                        evidence=span(unit, "withdraw his trip"),
                        confirm=True,
                    ),
                ),
                units=(AtomicUnit(acts=(0, 1)),),
            ),
        ),
    ]


def _plan(*acts: Act) -> UserTurnPlan:
    return UserTurnPlan(acts=acts)


BASE = _base_turns()
PLANS = [json.loads(plan_json(plan)) for _, plan in BASE]


def answer_for(index: int, seed: int) -> tuple[int, str, str]:
    """Answer ``index`` of the run: (its base turn, the mutation, the answer text)."""
    rng = random.Random(seed * 1_000_003 + index)
    base = rng.randrange(len(BASE))
    name, text = mutate(PLANS[base], rng)
    return base, name, text


class FuzzProvider:
    """Answers each turn with the answer registered for its id (well-formed for the others)."""

    name = "fuzz"
    context_budget_tokens = 1 << 30  # a 1 MB answer's turn is not refused for its size

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        if request.purpose is not Purpose.INTERPRET:
            raise AssertionError(f"unexpected {request.purpose.value} request")
        await anyio.lowlevel.checkpoint()
        # The same answer again in the repair round (a model repeating its mistake); the
        # player forgets it once the turn is handled.
        text = self.answers.get(request.turn_id)
        return ProviderAnswer(text=text if text is not None else plan_json(BASE[0][1]))


class Tally:
    def __init__(self) -> None:
        self.crashes = 0
        self.hangs = 0
        self.partial = 0
        self.stuck = 0
        self.healthy = 0
        self.healthy_failed = 0
        self.answers = 0
        self.phases: Counter[str] = Counter()
        self.mutations: Counter[str] = Counter()
        self.crash_samples: list[str] = []

    def crashed(self, what: str) -> None:
        self.crashes += 1
        if len(self.crash_samples) < 5:
            self.crash_samples.append(what)


async def _seed(store: Store, account: str) -> None:
    for case_id, (owner, snapshot) in seeded_directory().cases.items():
        if owner != ACCOUNT:
            continue
        state = converter.unstructure(snapshot.state, unstructure_as=TRIP_WORKFLOW.state_type)
        await store.create_case(
            account_id=account,
            case=NewCase(
                case_id=case_id,
                workflow=snapshot.workflow,
                label=snapshot.label or case_id,
                state=state,
                revision=snapshot.revision,
            ),
        )


async def fuzz_chunk(start: int, count: int, seed: int, tally: Tally) -> float:
    """``count`` answers from ``start`` through a fresh runtime; returns the seconds they took."""
    answers = [answer_for(i, seed) for i in range(start, start + count)]

    def on_event(event: SupervisionEvent) -> None:
        if event.kind in (EventKind.CRASHED, EventKind.ESCALATED, EventKind.GAVE_UP):
            tally.crashed(f"{event.kind.value} {event.child}: {event.error!r}"[:300])

    provider = FuzzProvider()
    failed: dict[str, list[str]] = {}
    async with SqliteStore.open(":memory:", driver="inline") as store:
        accounts = [f"fuzz-{s}" for s in range(SESSIONS)] + ["healthy"]
        for account in accounts:
            await _seed(store, account)
        settings = RuntimeSettings(pool_size=2, ask_timeout=HANG_SECONDS, session_idle_seconds=None)
        async with Runtime(
            workflows=[TRIP_WORKFLOW],
            store=store,
            provider=provider,
            settings=settings,
            on_supervision_event=on_event,
        ) as rt:
            done = anyio.Event()
            tick = [anyio.Event()]

            async def play(account: str, mine: list[tuple[int, str, str]]) -> None:
                session = await rt.open_session(account_id=account)
                for base, name, text in mine:
                    turn = rt.new_turn(session, BASE[base][0], at=TURN_CLOCK)
                    provider.answers[turn.turn_id] = text
                    tally.mutations[name] += 1
                    phase = await _handle(rt, turn, tally)
                    provider.answers.pop(turn.turn_id, None)
                    if phase is TurnPhase.FAILED:
                        failed.setdefault(account, []).append(turn.turn_id)
                    if tally.answers % HEALTHY_EVERY == 0:
                        tick[0].set()

            async def healthy() -> None:
                # One well-formed turn for every HEALTHY_EVERY fuzzed ones, all along.
                session = await rt.open_session(account_id="healthy")
                while not done.is_set():
                    turn = rt.new_turn(session, BASE[0][0], at=TURN_CLOCK)
                    provider.answers[turn.turn_id] = plan_json(BASE[0][1])
                    tally.healthy += 1
                    if await _handle(rt, turn, tally, count=False) is not TurnPhase.DELIVERED:
                        tally.healthy_failed += 1
                    provider.answers.pop(turn.turn_id, None)
                    await tick[0].wait()
                    tick[0] = anyio.Event()

            started = time.perf_counter()
            async with anyio.create_task_group() as tg:
                tg.start_soon(healthy)
                async with anyio.create_task_group() as fuzzers:
                    for s in range(SESSIONS):
                        fuzzers.start_soon(play, accounts[s], answers[s::SESSIONS])
                done.set()
                tick[0].set()
            elapsed = time.perf_counter() - started
            await rt.recover()
        tally.stuck += len(await store.list_unfinished_turns(account_id=None))
        for account, turn_ids in failed.items():
            tally.partial += await _partial(store, account, set(turn_ids))
    return elapsed


async def _handle(rt: Runtime, turn: Any, tally: Tally, *, count: bool = True) -> TurnPhase | None:
    try:
        with anyio.fail_after(HANG_SECONDS):
            response = await rt.handle_turn(turn)
    except TimeoutError:
        tally.hangs += 1
        return None
    except TurnframeError as error:  # typed: a stuck one shows in the unfinished turns
        if count:
            tally.phases[error.code] += 1
        return None
    except Exception as error:
        tally.crashed(f"{type(error).__name__}: {error}"[:300])
        return None
    if count:
        tally.answers += 1
        tally.phases[response.phase.value] += 1
    return response.phase


async def _partial(store: Store, account: str, failed: set[str]) -> int:
    """Failed turns that left anything behind: a journal entry, an event, a card, an effect."""
    touched = {e.turn_id for e in await store.list_events(account)}
    touched |= {c.turn_id for c in await store.list_open_interactions(account)}
    touched |= {o.turn_id for o in await store.list_outbox(account)}
    for turn_id in failed - touched:
        if await store.list_journal(account, turn_id):
            touched.add(turn_id)
    return len(failed & touched)


def baseline_rate(total: int, seed: int, chunk: int) -> float:
    """Answers/s of parse_plan alone on the same answers (generation not timed)."""
    spent = 0.0
    turns = [make_turn(text) for text, _ in BASE]
    for start in range(0, total, chunk):
        answers = [answer_for(i, seed) for i in range(start, min(total, start + chunk))]
        began = time.perf_counter()
        for base, _, text in answers:
            with contextlib.suppress(PlanRejected):
                parse_plan(text, turns[base])
        spent += time.perf_counter() - began
    return total / spent


async def main(args: argparse.Namespace) -> dict[str, Any]:
    total = args.answers or (5_000 if args.quick else 100_000)
    chunk = 2_000
    tally = Tally()
    spent = 0.0
    for start in range(0, total, chunk):
        spent += await fuzz_chunk(start, min(chunk, total - start), args.seed, tally)
        if not args.json:
            print(f"  {min(total, start + chunk):>7} answers …", file=sys.stderr)
    rate = tally.answers / spent
    # The ratio's baseline: parse_plan alone on the very same answers, in this run (no runtime).
    baseline = baseline_rate(total, args.seed, chunk)
    return {
        "answers": total,
        "crashes": tally.crashes,
        "partial_executions": tally.partial,
        "hangs": tally.hangs,
        "stuck_turns": tally.stuck,
        "healthy_turns": tally.healthy,
        "healthy_turns_not_delivered": tally.healthy_failed,
        "answers_per_s": round(rate, 1),
        "baseline_parse_answers_per_s": round(baseline, 1),
        "ratio_vs_parse_only": round(rate / baseline, 4),
        "outcomes": dict(tally.phases),
        "mutations": dict(tally.mutations),
        "crash_samples": tally.crash_samples,
    }


def cli() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 answers instead of 100,000")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--answers", type=int, default=None, help="how many answers")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import logging

    logging.getLogger("turnframe").addHandler(logging.NullHandler())  # failures are the point
    logging.getLogger("turnframe").propagate = False
    result = anyio.run(main, args)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>30}: {value}")
    bad = ("crashes", "partial_executions", "hangs", "stuck_turns", "healthy_turns_not_delivered")
    return 1 if any(result[k] for k in bad) else 0


if __name__ == "__main__":
    sys.exit(cli())
