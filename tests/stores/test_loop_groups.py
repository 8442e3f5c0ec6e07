"""Short writes that arrive on the loop together share one COMMIT there (ADR 0029): one
``BEGIN IMMEDIATE``, a savepoint per transaction, one ``COMMIT``; no caller answered before it;
a transaction that fails is rolled back alone; a group that cannot run on the loop goes to the
connection's thread whole."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from test_loop_first import another_process_writing

from turnframe.stores import CaseUpdate, CommitBundle, NewCase, NotFound, SqliteStore
from turnframe.stores.sqlite import group as group_module

pytestmark = pytest.mark.anyio

ACCOUNT = "acct-groups"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore.open(tmp_path / "t.db", busy_timeout=5.0) as opened:
        yield opened


async def _together(store: SqliteStore, ids: list[str]) -> dict[str, Any]:
    """Create one session per id, all at once; each id's session or the error it got."""
    answers: dict[str, Any] = {}

    async def create(session_id: str) -> None:
        try:
            answers[session_id] = await store.create_session(
                account_id=ACCOUNT, workflow="w", session_id=session_id.split("#")[0]
            )
        except Exception as error:
            answers[session_id] = error

    async with anyio.create_task_group() as tg:
        for session_id in ids:
            tg.start_soon(create, session_id)
    return answers


async def test_short_writes_made_together_share_one_commit_on_the_loop(
    store: SqliteStore,
) -> None:
    answers = await _together(store, [f"s{n}" for n in range(6)])
    assert all(not isinstance(a, Exception) for a in answers.values())
    traffic = store.traffic()
    assert traffic.loop_group_sizes == {6: 1}
    assert traffic.group_sizes == {} and traffic.commits_here == 6  # no hop to the thread
    assert len(await store.list_sessions(ACCOUNT)) == 6


async def test_a_transaction_that_fails_in_a_loop_group_is_rolled_back_alone(
    store: SqliteStore,
) -> None:
    session = await store.create_session(account_id=ACCOUNT, workflow="w")
    turn = await store.record_user_turn(
        account_id=ACCOUNT, session_id=session.session_id, payload={"text": "hi"}
    )
    failing = CommitBundle(  # it creates a case, then meets a case that is not there
        account_id=ACCOUNT,
        turn_id=turn.turn_id,
        new_cases=[NewCase(workflow="w", label="New", state={}, case_id="made")],
        case_updates=[CaseUpdate(case_id="absent", expected_revision=1, new_revision=2, state={})],
    )
    errors: list[Exception] = []

    async def fail() -> None:
        try:
            await store.commit_bundle(failing)
        except NotFound as error:
            errors.append(error)

    async def create(session_id: str) -> None:
        await store.create_session(account_id=ACCOUNT, workflow="w", session_id=session_id)

    before = store.traffic().loop_group_sizes
    async with anyio.create_task_group() as tg:
        tg.start_soon(create, "a")
        tg.start_soon(fail)
        tg.start_soon(create, "b")
    assert len(errors) == 1
    assert store.traffic().loop_group_sizes[3] == before.get(3, 0) + 1
    assert await store.get_case(ACCOUNT, "made") is None  # rolled back to its savepoint
    ids = {s.session_id for s in await store.list_sessions(ACCOUNT)}
    assert {"a", "b"} <= ids


async def test_a_loop_group_that_meets_another_process_s_lock_commits_on_the_thread_after_it(
    store: SqliteStore, tmp_path: Path
) -> None:
    with another_process_writing(tmp_path / "t.db", for_seconds=0.3):
        answers = await _together(store, [f"s{n}" for n in range(5)])
    assert all(not isinstance(a, Exception) for a in answers.values())
    traffic = store.traffic()
    assert traffic.loop_group_sizes == {}  # nothing committed on the loop
    assert sum(size * n for size, n in traffic.group_sizes.items()) == 5
    assert len(await store.list_sessions(ACCOUNT)) == 5


async def test_a_leader_cancelled_while_its_group_forms_never_writes_and_the_others_commit(
    store: SqliteStore,
) -> None:
    scope = anyio.CancelScope()
    go = anyio.Event()
    answers: dict[str, Any] = {}

    async def lead() -> None:
        with scope:
            scope.cancel()  # delivered at the leader's one yield, once the others joined
            go.set()  # the others are ready to run when the leader yields
            answers["lead"] = await store.create_session(
                account_id=ACCOUNT, workflow="w", session_id="lead"
            )

    async def join(session_id: str) -> None:
        await go.wait()
        answers[session_id] = await store.create_session(
            account_id=ACCOUNT, workflow="w", session_id=session_id
        )

    async with anyio.create_task_group() as tg:
        tg.start_soon(join, "x")
        tg.start_soon(join, "y")
        await anyio.wait_all_tasks_blocked()
        tg.start_soon(lead)
    assert scope.cancelled_caught and "lead" not in answers
    assert sorted(answers) == ["x", "y"]
    assert store.traffic().loop_group_sizes == {2: 1}
    assert sorted(s.session_id for s in await store.list_sessions(ACCOUNT)) == ["x", "y"]


async def test_a_session_writing_alone_soon_stops_waiting_for_company(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    yields = 0
    checkpoint = anyio.lowlevel.checkpoint

    async def counted() -> None:
        nonlocal yields
        yields += 1
        await checkpoint()

    monkeypatch.setattr(group_module.anyio.lowlevel, "checkpoint", counted)
    writes = 4 * group_module.PROBE_EVERY
    for n in range(writes):
        await store.create_session(account_id=ACCOUNT, workflow="w", session_id=f"s{n}")
    # the first few groups, then one probe every PROBE_EVERY writes (and the loop-first
    # driver's own yield every 16 calls, which counts here too)
    assert yields <= group_module.LONELY_GROUPS + 4 + writes // 16 + 1
    assert sum(store.traffic().loop_group_sizes.values()) == writes  # still a commit each


async def test_with_a_commit_each_no_loop_group_forms(tmp_path: Path) -> None:
    async with SqliteStore.open(tmp_path / "t.db", group_commit_size=1) as store:
        answers = await _together(store, [f"s{n}" for n in range(4)])
        assert all(not isinstance(a, Exception) for a in answers.values())
        assert store.traffic().loop_group_sizes == {1: 4}


def _thread_busy_for(store: SqliteStore, seconds: float) -> Any:
    """A body that keeps the connection's thread busy (a long transaction, as it were)."""
    driver = store._driver

    async def busy() -> None:
        await driver.run(lambda conn: time.sleep(seconds))

    return busy


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_member_cancelled_by_asyncio_itself_leaves_its_group_and_later_writes_go_on(
    store: SqliteStore,
) -> None:
    """asyncio's own cancellation (``task.cancel()``, ``asyncio.wait_for``) passes an anyio
    shield: the member leaves the group it waits in, and its duty to send, if it had one."""
    go = asyncio.Event()
    scope = anyio.CancelScope()

    async def join() -> None:
        await go.wait()
        await store.create_session(account_id=ACCOUNT, workflow="w", session_id="j")

    async def lead() -> None:
        with scope:
            scope.cancel()  # the leader leaves; the group goes to the (busy) thread
            go.set()
            await store.create_session(account_id=ACCOUNT, workflow="w", session_id="l")

    busy = _thread_busy_for(store, 0.3)
    joiner = asyncio.ensure_future(join())
    thread = asyncio.ensure_future(_after(go, busy))
    await asyncio.sleep(0.01)
    leader = asyncio.ensure_future(lead())
    await asyncio.sleep(0.02)  # the leader waits for the busy thread's turn to end
    joiner.cancel()
    await asyncio.gather(leader, thread, return_exceptions=True)
    assert joiner.cancelled()
    with anyio.fail_after(5):
        await store.create_session(account_id=ACCOUNT, workflow="w", session_id="after")
    ids = {s.session_id for s in await store.list_sessions(ACCOUNT)}
    assert "after" in ids and "l" not in ids


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_leader_cancelled_by_asyncio_while_it_settles_leaves_the_others_to_commit(
    store: SqliteStore,
) -> None:
    go = asyncio.Event()
    answers: dict[str, Any] = {}

    async def join() -> None:
        await go.wait()
        answers["j"] = await store.create_session(account_id=ACCOUNT, workflow="w", session_id="j")

    async def lead() -> None:
        go.set()
        answers["l"] = await store.create_session(account_id=ACCOUNT, workflow="w", session_id="l")

    busy = _thread_busy_for(store, 0.3)
    joiner = asyncio.ensure_future(join())
    thread = asyncio.ensure_future(_after(go, busy))
    await asyncio.sleep(0.01)
    leader = asyncio.ensure_future(lead())
    await asyncio.sleep(0.02)
    leader.cancel()
    await asyncio.gather(leader, thread, joiner, return_exceptions=True)
    assert leader.cancelled() and not joiner.cancelled()
    assert "j" in answers and "l" not in answers  # the joiner's write was not dropped
    with anyio.fail_after(5):
        await store.create_session(account_id=ACCOUNT, workflow="w", session_id="after")
    ids = {s.session_id for s in await store.list_sessions(ACCOUNT)}
    assert {"j", "after"} <= ids and "l" not in ids


async def _after(event: asyncio.Event, work: Any) -> None:
    await event.wait()
    await work()
