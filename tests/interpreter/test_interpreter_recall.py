"""The rules interpreter reads vague recall in the usual phrasings, and reads a waiting recall's
answer (recognition, correction, letting go) from the next turn; anything else is read as usual.
"""

from __future__ import annotations

import json

import pytest

from turnframe.examples import sample
from turnframe.messages import UserTurn
from turnframe.plan import RecallAct, RecallDisposition, UserTurnPlan, parse_plan
from turnframe.providers.rules import RulesProvider
from turnframe.testing import TURN_CLOCK

DESK = sample("travel-desk").workflow
PROVIDER = RulesProvider(workflows=[DESK])


def read(text: str, pending: str | None = None) -> UserTurnPlan:
    turn = UserTurn(session_id="s", account_id="a", turn_id="t", text=text, clock=TURN_CLOCK)
    raw = PROVIDER.interpret(turn, DESK, case_labels=["Lisbon"], recall_pending=pending)
    return parse_plan(raw, turn)


def recalls(plan: UserTurnPlan) -> list[RecallAct]:
    return [a for a in plan.acts if isinstance(a, RecallAct)]


@pytest.mark.parametrize(
    "said",
    [
        "what was that thing we settled about the hotel pool last week?",
        "What was that thing about the pool again?",
        "do you remember the plumber we talked about?",
        "Do you still remember what we said about the ferry?",
        "the one we talked about last week",
        "what did we say about ticket 4471?",
        "remind me what we decided about the lounge pass",
        "didn't we talk about a night bus once?",
        "what was the name of the cafe Ines liked?",
        "remind me how the whole thread about ticket 4471 went",
        "what was the name we came up with for the shuttle plan?",
        "so, what was that restaurant you recommended?",
    ],
)
def test_a_vague_recall_in_the_users_words_is_a_recall_act(said: str) -> None:
    plan = read(said)
    [act] = plan.acts
    assert isinstance(act, RecallAct) and act.disposition is None
    assert said.rstrip("?").endswith(act.evidence[0].text.rstrip("?"))  # fillers stay out


def test_a_recall_and_a_change_in_one_message_are_both_read() -> None:
    plan = read("Change the travel date to Friday. Also, what did we decide about the lounge pass?")
    assert [a.kind for a in plan.acts] == ["set_field", "recall"]


def test_recollect_with_text_recalls_that_text() -> None:
    [act] = read("/recollect the ferry to Sintra").acts
    assert isinstance(act, RecallAct) and act.description == "the ferry to Sintra"


def test_recollect_alone_leaves_the_cue_to_the_previous_message() -> None:
    [act] = read("/recollect").acts
    assert isinstance(act, RecallAct) and act.description == ""


@pytest.mark.parametrize(
    "said",
    ["yes, that one", "Yes that's it, thanks!", "yep", "that's the one", "exactly"],
)
def test_recognition_after_a_presentation_is_an_identified_recall(said: str) -> None:
    [act] = recalls(read(said, "presented"))
    assert act.disposition is RecallDisposition.IDENTIFIED


def test_yes_without_a_waiting_recall_is_not_an_identification() -> None:
    assert recalls(read("yes, that one")) == []


@pytest.mark.parametrize("said", ["thanks!", "ok", "great, thanks"])
def test_politeness_after_a_presentation_never_identifies(said: str) -> None:
    read_as = [a.disposition for a in recalls(read(said, "presented"))]
    assert RecallDisposition.IDENTIFIED not in read_as


@pytest.mark.parametrize(
    ("said", "cue"),
    [
        ("not that one", ""),
        ("no, the one about the lounge pass", "the one about the lounge pass"),
        ("Nope - it was the one with Ines", "it was the one with Ines"),
        ("the one about the ferry, I think", "the one about the ferry, I think"),
        ("what about the one from December?", "what about the one from December?"),
    ],
)
def test_a_correction_after_a_presentation_carries_the_new_cue(said: str, cue: str) -> None:
    [act] = recalls(read(said, "presented"))
    assert act.disposition is RecallDisposition.CORRECTED
    assert act.description == cue.strip(" ?,.")


def test_an_answer_to_the_open_question_is_a_correction_in_the_users_own_words() -> None:
    said = "it was about the pool at the hotel, with Anna"
    [act] = read(said, "asked").acts
    assert isinstance(act, RecallAct) and act.disposition is RecallDisposition.CORRECTED
    assert act.description == said


@pytest.mark.parametrize("said", ["never mind", "forget it", "doesn't matter, skip it"])
def test_letting_it_go_withdraws_the_recall(said: str) -> None:
    [act] = recalls(read(said, "presented"))
    assert act.disposition is RecallDisposition.WITHDRAWN


@pytest.mark.parametrize(
    ("said", "disposition"),
    [
        ("yes, search everything", RecallDisposition.IDENTIFIED),
        ("go ahead", RecallDisposition.IDENTIFIED),
        ("no", RecallDisposition.WITHDRAWN),
        ("no, it was about a ferry", RecallDisposition.CORRECTED),
    ],
)
def test_the_expansion_question_is_answered_in_words_too(
    said: str, disposition: RecallDisposition
) -> None:
    [act] = recalls(read(said, "expansion"))
    assert act.disposition is disposition


@pytest.mark.parametrize("pending", ["presented", "asked", "expansion"])
def test_an_unrelated_request_while_a_recall_waits_is_read_as_usual(pending: str) -> None:
    plan = read("Set the note to window seat", pending)
    assert [a.kind for a in plan.acts] == ["set_field"]
    question = read("Is the discount still valid?", pending)
    assert [a.kind for a in question.acts] == ["question"]


def test_recognition_followed_by_a_request_is_both() -> None:
    plan = read("yes, that one. Now set the note to lounge pass", "presented")
    assert [a.kind for a in plan.acts] == ["recall", "set_field"]
    assert isinstance(plan.acts[0], RecallAct)
    assert plan.acts[0].disposition is RecallDisposition.IDENTIFIED


def test_the_provider_reads_the_waiting_recall_from_the_request_payload() -> None:
    import anyio

    from turnframe.actors.interpreter import PLAN_SCHEMA
    from turnframe.providers.base import ProviderRequest, Purpose

    payload = {
        "text": "not that one",
        "clock": TURN_CLOCK.isoformat(),
        "workflow": DESK.name,
        "recall_pending": "presented",
    }
    request = ProviderRequest.from_text(
        purpose=Purpose.INTERPRET,
        turn_id="t",
        correlation_id="t",
        system="",
        user=json.dumps(payload),
        answer_schema=PLAN_SCHEMA,
        template_hash="",
    )
    answer = anyio.run(PROVIDER.complete, request)
    [act] = json.loads(answer.text)["acts"]
    assert act["kind"] == "recall" and act["disposition"] == "corrected"
