"""Whatever the text, the rules interpreter answers a plan the strict parser accepts, and the
same text always gives the same bytes; the reducer gives every act a result."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from interpreter_kit import PROVIDER, REFUND, TRAVEL, read

from turnframe.testing import make_turn

PROPERTY = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
WORDS = [
    "change",
    "the",
    "travel",
    "date",
    "to",
    "Friday",
    "and",
    "add",
    "a",
    "note",
    ":",
    "window",
    "seat",
    ",",
    "actually",
    "no wait",
    "don't",
    "submit",
    "it",
    "refund",
    "20",
    "euros",
    "on",
    "order",
    "1001",
    "?",
    ".",
    "leave",
    "as",
    "is",
    "what",
    "if",
    "I",
    "withdrew",
    "3",
    "nights",
    "at",
    "hotel",
    "each",
    "thanks",
    "tell",
    "me",
    "about",
    "…",
    "never mind",
    "make",
    "Lisbon",
    "'s",
    "because",
    "paid by",
    "€",
    "12.50",
    "\n",
    "; ",
]
texts = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=25).map(" ".join),
    st.text(max_size=60),
)


@PROPERTY
@given(text=texts, desk=st.sampled_from([TRAVEL.name, REFUND.name]))
def test_any_text_reads_into_a_plan_the_strict_parser_accepts(text: str, desk: str) -> None:
    reading = read(text, desk, labels=("Lisbon", "Order 1001"))  # parses strictly, reduces
    assert len(reading.results) == len(reading.acts)
    again = PROVIDER.interpret(make_turn(text), desk, case_labels=["Lisbon", "Order 1001"])
    assert again == reading.raw
