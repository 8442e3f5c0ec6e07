"""A later clause of the same message takes back an earlier request by what it names, and a
request at the end of a story refers back to the one thing the story names. Played through the
real runtime with the rules interpreter; the phrasings are written for these tests."""

from __future__ import annotations

from typing import Any

import pytest

from turnframe.testing.phrasings import Graded, play_turns

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def _talk(desk_name: str, turns: tuple[str, ...], expect: dict[str, Any]) -> Graded:
    return await play_turns(desk_name, turns, expect)


def _field(case: str, field: str, value: Any) -> dict[str, Any]:
    return {"case": case, "type": "field_set", "data": {"field": field, "value": value}}


# --- taking back one request later in the same message ---------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Move the outbound flight to 14 March. Hmm, no, leave the outbound flight as it is.",
        "Please rebook my way back to 20 March. On second thought keep the way back unchanged.",
        "Rebook the return flight to 18 March... actually forget the return flight part.",
    ],
)
async def test_leaving_the_named_thing_as_it_is_withdraws_the_earlier_request(text: str) -> None:
    graded = await _talk("travel-desk", (text,), {"events": [], "ends_with": "nothing"})
    assert graded.right, graded.why
    assert not graded.wrong_commits


@pytest.mark.parametrize(
    "text",
    [
        "Put a note 'see you soon' and submit it. Actually don't submit, just the note.",
        "Write the note 'all good' and submit. Hmm, only the note please",
        "Set the note to 'packed' and submit the trip. Never mind the submit bit.",
    ],
)
async def test_just_the_named_change_keeps_it_and_drops_the_rest(text: str) -> None:
    note = text.split("'")[1]
    graded = await _talk(
        "travel-desk",
        (text,),
        {"events": [_field("lisbon", "note", note)], "ends_with": "committed"},
    )
    assert graded.right, graded.why
    assert not graded.wrong_commits


async def test_forgetting_one_part_keeps_the_other_request() -> None:
    graded = await _talk(
        "refund-desk",
        ("On 1001 set the note to 'called back' and refund 10 euros. Forget the refund part.",),
        {"events": [_field("order-1001", "note", "called back")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


async def test_a_withdrawal_naming_nothing_said_earlier_withdraws_nothing() -> None:
    graded = await _talk(
        "travel-desk",
        ("Set the note to 'umbrellas'. Leave the budget as it is.",),
        {"events": [_field("lisbon", "note", "umbrellas")], "ends_with": "committed"},
    )
    assert graded.right, graded.why
