"""Child specs and policies refuse values that cannot work, with the field named."""

from __future__ import annotations

import pytest

from turnframe.actors import Actor
from turnframe.supervisors import (
    Backoff,
    ChildSpec,
    DuplicateChild,
    Restart,
    RestartIntensity,
    Supervisor,
)


def test_a_child_spec_refuses_a_mailbox_without_room() -> None:
    with pytest.raises(ValueError, match="mailbox_size"):
        ChildSpec(id="a", factory=Actor, mailbox_size=0)


def test_a_child_spec_refuses_a_negative_shutdown_deadline() -> None:
    with pytest.raises(ValueError, match="shutdown"):
        ChildSpec(id="a", factory=Actor, shutdown=-1.0)


def test_restart_intensity_needs_a_positive_window() -> None:
    with pytest.raises(ValueError, match="within_seconds"):
        RestartIntensity(max_restarts=1, within_seconds=0)


def test_backoff_never_shrinks_between_restarts() -> None:
    with pytest.raises(ValueError, match="factor"):
        Backoff(factor=0.5)


def test_restart_types_say_when_a_child_comes_back() -> None:
    assert [r.restarts_after(crashed=True) for r in Restart] == [True, True, False]
    assert [r.restarts_after(crashed=False) for r in Restart] == [True, False, False]


def test_two_children_with_one_id_are_refused() -> None:
    with pytest.raises(DuplicateChild):
        Supervisor(
            name="root",
            children=[ChildSpec(id="a", factory=Actor), ChildSpec(id="a", factory=Actor)],
        )
