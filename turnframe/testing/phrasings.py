"""Playing a phrasing corpus against a sample desk: did each conversation reach its effects?

A corpus line (``tests/phrasings/FORMAT.md``) is a short conversation in a new session, with the
events it must commit and what its last turn must show. :func:`play` runs the conversations
through a real :class:`~turnframe.runtime.Runtime` (one store, one account per line, so every
line starts from the seed data) and grades each one:

- **right**: the committed events are exactly the expected ones (a multiset; listed data keys
  must match) and the last turn shows what ``ends_with`` says;
- **wrong commit**: a committed event that no expected event accounts for. It must never happen.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe.errors import TurnframeError
from turnframe.plan import QuestionAct, UserTurnPlan
from turnframe.response import BlockKind, TurnResponse
from turnframe.results import NOTICE_NOT_UNDERSTOOD, ActStatus
from turnframe.runtime import Runtime
from turnframe.stores.protocol import Store

#: Every conversation of the corpus runs at this instant (a Wednesday), locale en.
CORPUS_CLOCK = datetime(2026, 1, 28, 9, 30, tzinfo=UTC)
ENDINGS = frozenset({"committed", "card", "clarification", "rejected", "answer", "nothing"})
_CLARIFYING = ("needs_clarification", "needs_argument", "ambiguous_target", "unknown_target")


class BadCorpusLine(TurnframeError):
    code = "turnframe.phrasings.bad_line"


@attrs.frozen(kw_only=True)
class Phrasing:
    """One corpus line."""

    id: str
    category: str
    turns: tuple[str, ...]
    expect: Mapping[str, Any]
    origin: str = ""


@attrs.frozen(kw_only=True)
class Graded:
    phrasing: Phrasing
    right: bool
    wrong_commits: tuple[dict[str, Any], ...]
    why: str = ""
    events: tuple[dict[str, Any], ...] = ()
    shown: str = ""


def load_corpus(path: Path) -> list[Phrasing]:
    """Every line of one corpus file; a malformed line is a typed error naming file and line."""
    out: list[Phrasing] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadCorpusLine(f"{path}: cannot read the corpus: {exc}", hint="fix the file") from None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            message = f"{where}: not JSON ({exc.msg})"
            raise BadCorpusLine(message, hint="one object per line") from None
        turns, expect = data.get("turns"), data.get("expect")
        if (
            not isinstance(data.get("id"), str)
            or not isinstance(turns, list)
            or not turns
            or not all(isinstance(t, str) for t in turns)
            or not isinstance(expect, dict)
            or expect.get("ends_with") not in ENDINGS
        ):
            raise BadCorpusLine(
                f"{where}: needs id, a list of turns and expect.ends_with in {sorted(ENDINGS)}",
                hint="see tests/phrasings/FORMAT.md",
            )
        out.append(
            Phrasing(
                id=data["id"],
                category=str(data.get("category", "")),
                turns=tuple(turns),
                expect=expect,
                origin=where,
            )
        )
    return out


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().rstrip(".!?").strip().casefold()
    return value


def _data_match(wanted: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
    return all(key in data and _norm(data[key]) == _norm(v) for key, v in wanted.items())


def match_events(
    expected: Sequence[Mapping[str, Any]], actual: Sequence[dict[str, Any]]
) -> tuple[list[Mapping[str, Any]], list[dict[str, Any]]]:
    """(expected events not committed, committed events not expected), matched greedily with
    the most specific expectation first."""
    free = list(actual)
    missing: list[Mapping[str, Any]] = []
    for want in sorted(expected, key=lambda e: -len(e.get("data", {}))):
        found = next(
            (
                got
                for got in free
                if got["case"] == want.get("case")
                and got["type"] == want.get("type")
                and _data_match(want.get("data", {}), got["data"])
            ),
            None,
        )
        if found is None:
            missing.append(want)
        else:
            free.remove(found)
    return missing, free


@attrs.frozen(kw_only=True)
class LastTurn:
    response: TurnResponse
    plan: UserTurnPlan | None


def _cards(response: TurnResponse, kind: str) -> list[dict[str, Any]]:
    return [
        b.data
        for b in response.blocks
        if b.kind is BlockKind.CARD and b.data.get("interaction_kind") == kind
    ]


def shows(last: LastTurn, expect: Mapping[str, Any], keys: Mapping[str, str]) -> tuple[bool, str]:
    """Whether the last turn shows what ``expect.ends_with`` says, and what it showed."""
    response = last.response
    statuses = Counter(r.status for r in response.results)
    confirm = _cards(response, "confirm_command")
    select = _cards(response, "select_target")
    argument = _cards(response, "provide_argument")
    clarifying = [
        b for b in response.blocks if b.kind is BlockKind.NOTICE and b.code.endswith(_CLARIFYING)
    ]
    answers = [b for b in response.blocks if b.kind is BlockKind.ANSWER]
    rejected = [r for r in response.results if r.status is ActStatus.REJECTED]
    shown = ", ".join(f"{b.kind.value}:{b.code.rsplit('.', 1)[-1]}" for b in response.blocks)
    names = expect.get("answers")
    if names and last.plan is not None:  # answers may accompany any ending
        asked = {a.question for a in last.plan.acts if isinstance(a, QuestionAct)}
        if not answers or not set(names) <= asked:
            return False, shown
    ending = expect["ends_with"]
    if ending == "committed":
        return bool(response.events), shown
    if ending == "card":
        want = expect.get("card", {})
        for card in confirm:
            for command in card.get("commands", []):
                if want.get("operation") not in (None, command.get("operation")):
                    continue
                case = want.get("case")
                if case is not None and keys.get(case) != command.get("case_id"):
                    continue
                if _data_match(want.get("arguments", {}), command.get("arguments", {})):
                    return True, shown
        return False, shown
    if ending == "clarification":
        want = expect.get("clarification", {})
        if response.events or confirm:
            return False, shown
        if "argument" in want:
            named = {c.get("argument") for c in argument} | {
                b.data.get("argument") for b in clarifying
            }
            return want["argument"] in named, shown
        if want.get("target"):
            return bool(select) or any(
                r.reason.endswith(("ambiguous_target", "unknown_target")) for r in response.results
            ), shown
        return bool(clarifying or select or argument), shown
    if ending == "rejected":
        code = expect.get("code")
        if response.events or confirm:
            return False, shown
        codes = {r.rejection.code for r in rejected if r.rejection is not None}
        if code is not None:
            return code in codes, shown
        # Without a code (an unsupported request), "not understood" says it cannot, too.
        unread = any(b.code == NOTICE_NOT_UNDERSTOOD for b in response.blocks)
        return bool(rejected) or unread, shown
    if ending == "answer":
        return bool(answers), shown
    # nothing: no commit, no card, no question back
    quiet = not (response.events or confirm or select or argument or clarifying)
    return quiet and statuses[ActStatus.AWAITING_CONFIRMATION] == 0, shown


async def _click(
    rt: Runtime, store: Store, session: Any, label: str, shown: dict[str, Any] | None = None
) -> TurnResponse | None:
    """Click ``label`` on the session's latest open card; with none open, on the last card the
    conversation showed (a click on a closed card: the desk must say nothing new happened)."""
    cards = await store.list_open_interactions(session.account_id, session_id=session.session_id)
    if cards:
        latest = max(cards, key=lambda c: c.created_at)
        interaction_id, payload = latest.interaction_id, latest.payload
    elif shown is not None:
        interaction_id, payload = shown["interaction_id"], shown
    else:
        return None
    options = payload.get("options", [])
    wanted = label.strip().casefold()
    option = next(
        (
            o
            for o in options
            if str(o.get("label") or o.get("option_id")).casefold() == wanted
            or str(o.get("option_id")).casefold() == wanted
            or (wanted == "cancel" and o.get("action") == "decline")
        ),
        None,
    )
    if option is None:
        return None
    return await rt.respond(
        session=session,
        interaction_id=interaction_id,
        option_id=str(option["option_id"]),
        expected_revision=int(payload.get("expected_revision") or 0),
        at=CORPUS_CLOCK,
    )


async def _events(store: Store, account: str, *, by_id: Mapping[str, str]) -> list[dict[str, Any]]:
    return [
        {"case": by_id.get(e.case_id, e.case_id), "type": e.type, "data": e.payload}
        for e in await store.list_events(account)
    ]


async def play_one(
    rt: Runtime, store: Store, phrasing: Phrasing, *, workflow: str, seed: Iterable[Any]
) -> Graded:
    """Run one conversation in a fresh account (seeded) and grade it."""
    account = f"phr-{phrasing.id}"
    keys: dict[str, str] = {}
    for case in seed:
        keys[case.key] = case.case_id(account)
        await store.create_case(account_id=account, case=case.new_case(account))
    by_id = {v: k for k, v in keys.items()}
    session = await rt.open_session(account_id=account, workflow=workflow)
    last: TurnResponse | None = None
    card: dict[str, Any] | None = None
    for said in phrasing.turns:
        if said.startswith("/click"):
            last = await _click(rt, store, session, said.removeprefix("/click"), card)
            if last is None:
                # No card to click: still a miss, and whatever was committed before is graded
                # (a routine change committed where a card was expected is a wrong commit).
                events = await _events(store, account, by_id={v: k for k, v in keys.items()})
                _, extra = match_events(phrasing.expect.get("events", []), events)
                return Graded(
                    phrasing=phrasing,
                    right=False,
                    wrong_commits=tuple(extra),
                    why="no card",
                    events=tuple(events),
                )
        else:
            last = await rt.handle_turn(rt.new_turn(session, said, at=CORPUS_CLOCK))
        card = next((b.data for b in reversed(last.blocks) if b.kind is BlockKind.CARD), card)
    assert last is not None
    events = await _events(store, account, by_id=by_id)
    record = await store.get_turn(account, last.turn_id)
    plan = None
    if record is not None and record.plan:
        plan = converter.structure(record.plan["plan"], UserTurnPlan)
    missing, extra = match_events(phrasing.expect.get("events", []), events)
    ok, shown = shows(LastTurn(response=last, plan=plan), phrasing.expect, keys)
    why = ""
    if missing:
        why = f"missing {missing}"
    elif extra:
        why = f"extra {extra}"
    elif not ok:
        why = f"last turn showed [{shown}], not {phrasing.expect['ends_with']}"
    return Graded(
        phrasing=phrasing,
        right=not missing and not extra and ok,
        wrong_commits=tuple(extra),
        why=why,
        events=tuple(events),
        shown=shown,
    )


@attrs.frozen(kw_only=True)
class Summary:
    total: int
    right: int
    wrong_commits: int
    by_category: Mapping[str, tuple[int, int]]  # category -> (right, total)

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "right": self.right,
            "right_share": round(self.share, 4),
            "wrong_commits": self.wrong_commits,
            "by_category": {
                c: {"right": r, "total": t, "right_share": round(r / t, 4)}
                for c, (r, t) in sorted(self.by_category.items())
            },
        }


def summarize(graded: Sequence[Graded]) -> Summary:
    categories: dict[str, list[int]] = {}
    for g in graded:
        slot = categories.setdefault(g.phrasing.category, [0, 0])
        slot[0] += int(g.right)
        slot[1] += 1
    return Summary(
        total=len(graded),
        right=sum(g.right for g in graded),
        wrong_commits=sum(len(g.wrong_commits) for g in graded),
        by_category={c: (r, t) for c, (r, t) in categories.items()},
    )


@contextlib.asynccontextmanager
async def desk_player(
    desk_name: str, *, pool_size: int = 2
) -> AsyncIterator[Callable[[Phrasing], Awaitable[Graded]]]:
    """A runtime on one sample desk, read by the offline rules interpreter, over a fresh
    in-memory store; yields ``play(phrasing)``, which plays one conversation on freshly seeded
    records (as the corpus files are played) and grades it."""
    from turnframe.corpora import default_registry
    from turnframe.examples import sample
    from turnframe.providers.rules import RulesProvider
    from turnframe.runtime import RuntimeSettings
    from turnframe.stores import SqliteStore

    desk = sample(desk_name)
    registry = default_registry()
    desk.register_corpus(registry)
    async with contextlib.AsyncExitStack() as stack:
        store = await stack.enter_async_context(SqliteStore.open(":memory:"))
        rt = await stack.enter_async_context(
            Runtime(
                workflows=[desk.workflow],
                store=store,
                provider=RulesProvider(workflows=[desk.workflow]),
                corpora=registry,
                settings=RuntimeSettings(pool_size=pool_size, ask_timeout=30.0),
            )
        )

        async def play(phrasing: Phrasing) -> Graded:
            return await play_one(rt, store, phrasing, workflow=desk.name, seed=desk.seed())

        yield play


async def play_turns(
    desk_name: str, turns: Sequence[str], expect: Mapping[str, Any] | None = None
) -> Graded:
    """One conversation of ``turns`` on a fresh seeded sample desk, graded against ``expect``
    (default: nothing happens; a test may look at the grade's events and shown blocks only)."""
    line = Phrasing(
        id="t", category="test", turns=tuple(turns), expect=expect or {"ends_with": "nothing"}
    )
    async with desk_player(desk_name, pool_size=1) as play:
        return await play(line)


__all__ = [
    "CORPUS_CLOCK",
    "BadCorpusLine",
    "Graded",
    "Phrasing",
    "Summary",
    "desk_player",
    "load_corpus",
    "match_events",
    "play_one",
    "play_turns",
    "shows",
    "summarize",
]
