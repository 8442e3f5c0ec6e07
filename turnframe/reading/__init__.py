"""Reading what people type, domain-free: numbers written as words, amounts of money, dates.

The rule-based interpreter uses these to see where a value stands in a message; a workflow's
parsers use them to read the value (the sample desks do). Every reader is deterministic: dates
are computed from the turn's clock, never the wall clock.

Libraries: ``text2num`` turns number words into numbers ("twenty-five" → 25), ``dateparser``
reads written calendar dates ("20/03/2026", "14 March 2026") with the turn's clock as its
relative base, ``rapidfuzz`` measures bounded edit distance for typo tolerance.
"""

from __future__ import annotations

from turnframe.reading.money import MoneyError, read_amount
from turnframe.reading.numbers import NUMBER_WORDS, number_in_words, with_digits

__all__ = ["NUMBER_WORDS", "MoneyError", "number_in_words", "read_amount", "with_digits"]
