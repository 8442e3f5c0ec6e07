"""Words the interpreter could not read, said while a confirmation card waits.

"refund on the hotel booking" shows a card for the full amount; "just 45 of it" is not read.
If the card stayed live, a click on it would confirm the amount the user has just tried to
change. So when a turn's unread words hold a value (a number in digits or in words, an
amount's currency sign) and the turn neither clicked, answered nor amended a card, every open
confirmation card of the session is closed with it: a later click answers stale, and the user
asks again in words the desk can read. A turn whose unread words hold no value ("ok", "hmm,
let me think") leaves the cards as they are.
"""

from __future__ import annotations

import re

from turnframe.plan import UserTurnPlan
from turnframe.reading.numbers import NUMBER_WORDS
from turnframe.reduce.work import Work
from turnframe.results import InteractionKind

#: A value in unread words: digits, or a currency sign.
_VALUE = re.compile(r"\d|[$\u20ac\u00a3\u00a5]")


def holds_a_value(words: str) -> bool:
    """Whether unread ``words`` say a number or an amount."""
    return _VALUE.search(words) is not None or NUMBER_WORDS.search(words) is not None


def expire_cards_unread_words_may_change(work: Work, plan: UserTurnPlan) -> None:
    """Close the open confirmation cards when this turn's unread words hold a value."""
    if not any(holds_a_value(ev.text) for ev in plan.not_understood):
        return
    for card in work.ctx.open_interactions:
        if card.kind is InteractionKind.CONFIRM_COMMAND and card.interaction_id not in work.expired:
            work.expired.append(card.interaction_id)
