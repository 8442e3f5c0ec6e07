"""The pure lifecycle rules every store shares."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.lifecycle import JournalStatus
from turnframe.stores.transitions import journal_may_move

statuses = st.sampled_from(list(JournalStatus))


@settings(max_examples=60, deadline=None)
@given(st.lists(statuses, min_size=1, max_size=12))
def test_a_journal_status_never_returns_to_where_it_was(path: list[JournalStatus]) -> None:
    walk = [JournalStatus.PENDING]
    for status in path:
        if journal_may_move(walk[-1], status):
            walk.append(status)
    assert len(walk) == len(set(walk))


@settings(max_examples=30, deadline=None)
@given(statuses)
def test_a_settled_journal_entry_moves_nowhere(status: JournalStatus) -> None:
    for settled in (JournalStatus.COMMITTED, JournalStatus.FAILED):
        assert not journal_may_move(settled, status)


def test_an_unknown_outcome_is_reconciled_never_rerun() -> None:
    assert journal_may_move(JournalStatus.OUTCOME_UNKNOWN, JournalStatus.COMMITTED)
    assert not journal_may_move(JournalStatus.OUTCOME_UNKNOWN, JournalStatus.EXECUTING)
    assert not journal_may_move(JournalStatus.OUTCOME_UNKNOWN, JournalStatus.PENDING)
