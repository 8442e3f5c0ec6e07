"""Shares of a workflow's proposal said in words: "half", "the whole thing", "the full amount",
"1/2", "50%".

An argument the workflow can propose (``Argument.propose``, e.g. what is left to refund) may be
given as a share of that proposal; the reducer computes the value and a card shows it as
proposed. Read both for a new request and for an amendment of an open card ("make it the full
amount instead").
"""

from __future__ import annotations

_SHARES = {
    "half": 0.5,
    "a third": 1 / 3,
    "a quarter": 0.25,
    "whole": 1.0,
    "full": 1.0,
    "entire": 1.0,
    "everything": 1.0,
    "all of it": 1.0,
    "in full": 1.0,
    "1/2": 0.5,
    "1/3": 1 / 3,
    "1/4": 0.25,
    "50%": 0.5,
    "50 %": 0.5,
    "100%": 1.0,
    "100 %": 1.0,
}


def share_of(text: str) -> float | None:
    """The share of a proposal the words ask for ("half", "the whole thing"), if any."""
    words = " ".join(text.casefold().split()).removeprefix("the ")
    for key, share in _SHARES.items():
        if words == key or words.startswith(key + " "):
            return share
    return None
