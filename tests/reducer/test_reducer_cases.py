"""Per-case reduction: look-ups, validation, no-ops, policy and batching."""

from __future__ import annotations

from reducer_kit import BOB, CARLA, Turn, commands, statuses

from turnframe.plan import ConstraintKind, LabelTarget
from turnframe.policy import AtomicityScope
from turnframe.results import (
    ACT_AWAITING_CONFIRMATION,
    ACT_DUPLICATE,
    ACT_INVALID_VALUE,
    ACT_MISSING_ARGUMENT,
    ACT_NO_EFFECT,
    ACT_REJECTED_BY_WORKFLOW,
    ACT_REJECTED_WITH_BATCH,
    ACT_UNKNOWN_ARGUMENT,
    ACT_UNKNOWN_FIELD,
    ACT_UNKNOWN_OPERATION,
    ACT_VALUE_UNCHANGED,
    ActStatus,
    InteractionKind,
    OptionAction,
)
from turnframe.testing import ACCOUNT, seeded_directory, trip_case


def test_setting_the_current_value_is_no_change() -> None:
    t = Turn("Bob goes to Paris.")
    t.set(BOB, "destination", "Paris", "Bob goes to Paris")
    reduction = t.reduce()
    assert statuses(reduction) == [(ActStatus.NO_CHANGE, ACT_VALUE_UNCHANGED)]
    assert reduction.batches == ()


def test_a_value_the_field_parser_cannot_read_is_rejected_with_its_message() -> None:
    t = Turn("Bob flies on Blursday.")
    t.set(BOB, "travel_date", "Blursday", "Bob flies on Blursday")
    result = t.reduce().results[0]
    assert (result.status, result.reason) == (ActStatus.REJECTED, ACT_INVALID_VALUE)
    assert result.detail is not None and "Blursday" in result.detail


def test_a_value_the_field_validator_refuses_is_rejected_with_the_workflows_reason() -> None:
    t = Turn("Bob travels with 12 people.")
    t.set(BOB, "passengers", "12", "Bob travels with 12 people")
    result = t.reduce().results[0]
    assert result.reason == ACT_REJECTED_BY_WORKFLOW
    assert result.rejection is not None and result.rejection.code == "trip.passengers_range"


def test_a_refused_field_takes_its_whole_per_case_batch_with_it() -> None:
    t = Turn("Bob goes to Rome with 12 people.")
    t.set(BOB, "destination", "Rome", "Bob goes to Rome")
    t.set(BOB, "passengers", "12", "with 12 people")
    reduction = t.reduce()
    assert [(r.status, r.reason) for r in reduction.results] == [
        (ActStatus.REJECTED, ACT_REJECTED_WITH_BATCH),
        (ActStatus.REJECTED, ACT_REJECTED_BY_WORKFLOW),
    ]
    assert reduction.results[0].decided_by is not None
    assert reduction.results[0].decided_by.index == 1
    assert reduction.batches == ()


def test_a_per_command_operation_fails_alone() -> None:
    t = Turn("Tag Bob's trip vip and tag it urgent.")
    t.op(BOB, "tag", "Tag Bob's trip vip", tag="vip")
    t.op(BOB, "tag", "tag it urgent", tag="urgent")
    reduction = t.reduce()
    assert [b.scope for b in reduction.batches] == [AtomicityScope.PER_COMMAND] * 2
    assert [b.expected_revision for b in reduction.batches] == [2, 3]


def test_the_same_operation_with_the_same_arguments_twice_is_one_command() -> None:
    t = Turn("Tag Bob's trip vip twice: vip.")
    t.op(BOB, "tag", "Tag Bob's trip vip", tag="vip")
    t.op(BOB, "tag", "vip.", tag="vip ")
    reduction = t.reduce()
    assert statuses(reduction)[1] == (ActStatus.NO_CHANGE, ACT_DUPLICATE)
    assert len(reduction.batches) == 1


def test_a_submission_sees_the_fields_set_before_it_in_the_same_batch() -> None:
    t = Turn("Set Bob's note to aisle please and submit it.")
    t.set(BOB, "note", "aisle please", "Set Bob's note to aisle please")
    t.op(BOB, "submit", "submit it")
    reduction = t.reduce()
    (batch,) = reduction.batches
    assert [c.name for c in batch.commands] == ["set_field", "submit"]


def test_an_unknown_field_operation_or_argument_is_rejected() -> None:
    t = Turn("Set Bob's colour to red, paint it, tag it loudly, tag it.")
    t.set(BOB, "colour", "red", "Set Bob's colour to red")
    t.op(BOB, "paint", "paint it")
    t.op(BOB, "tag", "tag it loudly", tag="x", volume="loud")
    t.op(BOB, "tag", "tag it.")
    assert [r.reason for r in t.reduce().results] == [
        ACT_UNKNOWN_FIELD,
        ACT_UNKNOWN_OPERATION,
        ACT_UNKNOWN_ARGUMENT,
        ACT_MISSING_ARGUMENT,
    ]


def test_a_destructive_operation_awaits_confirmation_with_a_card_naming_its_commands() -> None:
    t = Turn("Withdraw Bob's trip.")
    t.op(BOB, "withdraw", "Withdraw Bob's trip")
    reduction = t.reduce()
    result = reduction.results[0]
    assert (result.status, result.reason) == (
        ActStatus.AWAITING_CONFIRMATION,
        ACT_AWAITING_CONFIRMATION,
    )
    assert reduction.batches == ()
    (card,) = reduction.interactions
    assert card.kind is InteractionKind.CONFIRM_COMMAND
    assert card.authorized_command_ids == result.command_ids
    assert card.expected_revision == 2 and card.case_id == "case-bob"
    assert [o.action for o in card.options] == [OptionAction.CONFIRM, OptionAction.DECLINE]
    assert reduction.awaiting_batches == card.awaiting_batches


def test_commands_awaiting_confirmation_expect_the_revision_after_the_ready_batch() -> None:
    t = Turn("Set Bob's note to bye and withdraw the trip.")
    t.set(BOB, "note", "bye", "Set Bob's note to bye")
    t.op(BOB, "withdraw", "withdraw the trip")
    reduction = t.reduce()
    assert [b.expected_revision for b in reduction.batches] == [2]
    assert reduction.interactions[0].expected_revision == 3


def test_an_external_saga_operation_commits_alone() -> None:
    t = Turn("Book Carla's trip and tag it paid.")
    t.op(CARLA, "book", "Book Carla's trip")
    t.op(CARLA, "tag", "tag it paid", tag="paid")
    reduction = t.reduce()
    assert [(b.scope, len(b.commands)) for b in reduction.batches] == [
        (AtomicityScope.EXTERNAL_SAGA, 1),
        (AtomicityScope.PER_COMMAND, 1),
    ]


def test_a_constrained_turn_still_batches_what_it_allows() -> None:
    t = Turn("Set Bob's note to x and tag it. Don't submit.")
    t.set(BOB, "note", "x", "Set Bob's note to x")
    t.op(BOB, "tag", "tag it", tag="t")
    t.forbid(ConstraintKind.NO_SUBMISSIONS, "Don't submit")
    assert len(commands(t.reduce())) == 2


def test_a_handler_without_events_reports_no_effect() -> None:
    directory = seeded_directory()
    directory.put(ACCOUNT, trip_case("case-tagged", "Tess", 4, tags=("vip",)))
    t = Turn("Tag Tess's trip vip.")
    t.op(LabelTarget(label="Tess"), "tag", "Tag Tess's trip vip", tag="vip")
    reduction = t.reduce(directory=directory)
    assert statuses(reduction) == [(ActStatus.NO_CHANGE, ACT_NO_EFFECT)]
    assert reduction.batches == ()
