"""Reduction cost per act at 1, 10, 100 and 1,000 acts: the reducer must stay linear.

Each plan repeats one realistic pattern of ten acts per case (four field changes, a correction,
a keep-unchanged, an operation, a question, a hypothetical question, chitchat) over as many
seeded cases as it needs; the 1-act plan is a single field change. Only ``reduce(plan,
context)`` is timed (target resolution is I/O and happens before). The baseline is the per-act
cost at 10 acts, measured in the same run; the figure is ``per_act_growth``, the per-act cost at
1,000 acts over that baseline (target: at most 2). Each size takes the best of several rounds,
alternating sizes so every size sees the same machine state.

    python benchmarks/reducer.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from turnframe.cli.progress import progress
from turnframe.plan import (
    Act,
    ChitchatAct,
    CorrectAct,
    Evidence,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    SetFieldAct,
    UserTurnPlan,
)
from turnframe.reduce import ReductionContext, reduce
from turnframe.testing import InMemoryCaseDirectory, build_context_now, make_turn, trip_case

SIZES = (1, 10, 100, 1000)
GROWTH_TARGET = 2.0
FIELDS = (
    ("destination", "Rome"),
    ("note", "aisle"),
    ("travel_date", "Friday"),
    ("passengers", "3"),
)


def _plan(n_acts: int) -> tuple[UserTurnPlan, str]:
    parts: list[str] = []
    acts: list[Act] = []

    def cite(words: str) -> tuple[Evidence, ...]:
        start = sum(len(p) for p in parts)
        parts.append(words + " ")
        return (Evidence(start=start, end=start + len(words), text=words),)

    while len(acts) < n_acts:
        case = len(acts) // 10
        target = LabelTarget(label=f"Traveller {case}")
        first = len(acts)
        pattern: list[Act] = [
            SetFieldAct(
                target=target, field=field, value=value, evidence=cite(f"{field} {value} {case}")
            )
            for field, value in FIELDS
        ]
        pattern += [
            CorrectAct(corrects=first, value="Lima", evidence=cite(f"no, Lima {case}")),
            KeepUnchangedAct(target=target, field="note", evidence=cite(f"keep the note {case}")),
            OperationAct(
                target=target, operation="tag", args={"tag": "vip"}, evidence=cite(f"tag {case}")
            ),
            QuestionAct(target=target, question="status", evidence=cite(f"status? {case}")),
            QuestionAct(
                target=target, hypothetical=True, evidence=cite(f"what if I withdrew {case}?")
            ),
            ChitchatAct(evidence=cite(f"thanks {case}")),
        ]
        acts.extend(pattern[: n_acts - len(acts)])
    return UserTurnPlan(acts=tuple(acts)), "".join(parts)


def _contexts() -> dict[int, tuple[UserTurnPlan, ReductionContext]]:
    directory = InMemoryCaseDirectory()
    for case in range(max(SIZES) // 10 + 1):
        directory.put(
            "acct-1", trip_case(f"case-{case:05d}", f"Traveller {case}", 1, destination="Paris")
        )
    out = {}
    for size in SIZES:
        plan, text = _plan(size)
        out[size] = (plan, build_context_now(plan, make_turn(text), directory))
    return out


def _per_act_seconds(plan: UserTurnPlan, context: ReductionContext, budget: float) -> float:
    """Best per-act time over repeated reductions within ``budget`` seconds."""
    best = float("inf")
    deadline = time.perf_counter() + budget
    while True:
        started = time.perf_counter()
        reduce(plan, context)
        best = min(best, time.perf_counter() - started)
        if time.perf_counter() >= deadline:
            return best / len(plan.acts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (about 5 s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args(argv)
    rounds, budget = (3, 0.4) if args.quick else (5, 1.5)
    contexts = _contexts()
    per_act = {size: float("inf") for size in SIZES}
    with progress("reducer", total=rounds * len(contexts)) as bar:
        for _ in range(rounds):
            for size, (plan, context) in contexts.items():
                per_act[size] = min(per_act[size], _per_act_seconds(plan, context, budget))
                bar.advance()
    growth = per_act[1000] / per_act[10]
    result = {
        "benchmark": "reducer",
        "baseline": "per-act reduction cost at 10 acts, same run",
        "per_act_us": {str(size): round(per_act[size] * 1e6, 2) for size in SIZES},
        "per_act_growth": round(growth, 3),
        "per_act_growth_100": round(per_act[100] / per_act[10], 3),
        "target_per_act_growth": GROWTH_TARGET,
        "meets_target": growth <= GROWTH_TARGET,
        "quick": args.quick,
    }
    if not args.json:
        for size in SIZES:
            ratio = per_act[size] / per_act[10]
            print(
                f"{size:>5} acts: {per_act[size] * 1e6:8.1f} us/act  ({ratio:.2f}x the 10-act cost)"
            )
        print(f"per-act growth 1000 vs 10: {growth:.2f} (target <= {GROWTH_TARGET})")
    else:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
