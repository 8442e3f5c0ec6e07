"""What a user writes as a note or an item's name is committed as written: typo tolerance helps
read the request, never rewrites the words of the value, and quotation marks of any style
around a value are not part of it. Phrasings written for these tests."""

from __future__ import annotations

import pytest
from interpreter_kit import field_event, talk

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("desk", "said", "case", "value"),
    [
        ("refund-desk", "1002 -> note: cust called re receipt", "order-1002", "cust called re"),
        ("refund-desk", "note on 1001: guest wnats late chekout", "order-1001", "guest wnats"),
        ("travel-desk", "ad a note: chek the wifi pasword", "lisbon", "chek the"),
    ],
)
async def test_a_typo_inside_a_note_is_kept_as_typed(
    desk: str, said: str, case: str, value: str
) -> None:
    written = said.split(": ", 1)[1]
    assert written.startswith(value)
    graded = await talk(
        desk, (said,), {"events": [field_event(case, "note", written)], "ends_with": "committed"}
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    "said",
    [
        "Add « late check-out » at 20 €",
        "Add „late check-out“ at 20 €",
        "add \u201clate check-out\u201d at 20 €",
        "add 'late check-out' at 20 €",
    ],
)
async def test_quotation_marks_of_any_style_around_an_item_are_not_part_of_it(said: str) -> None:
    expected = {"case": "lisbon", "type": "extra_added", "data": {"item": "late check-out"}}
    graded = await talk("travel-desk", (said,), {"events": [expected], "ends_with": "committed"})
    assert graded.right, graded.why


async def test_quotation_marks_around_a_note_are_not_part_of_it() -> None:
    graded = await talk(
        "travel-desk",
        ("set the note to «quiet room»",),
        {"events": [field_event("lisbon", "note", "quiet room")], "ends_with": "committed"},
    )
    assert graded.right, graded.why


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("Note on 1001: guest arrives 03.02.2026 instead", "guest arrives 03.02.2026 instead"),
        ("note for 1002: customer will call back too", "customer will call back too"),
        ("note on 1001: late arrival please", "late arrival"),
    ],
)
async def test_a_note_written_after_a_colon_keeps_its_last_words_but_not_politeness(
    said: str, value: str
) -> None:
    case = "order-1002" if "1002" in said else "order-1001"
    graded = await talk(
        "refund-desk",
        (said,),
        {"events": [field_event(case, "note", value)], "ends_with": "committed"},
    )
    assert graded.right, graded.why
