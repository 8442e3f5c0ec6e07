"""A stored card's options as a client names them, and which option a client's text names.

A card block shows each option's ``label`` (the option id when it has none); clients (``chat``'s
``/click LABEL``, the HTTP API's ``{"click": LABEL}``) name an option by that label, exactly,
else ignoring case, else by its option id. Only ids ever reach the runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from turnframe.stores.records import Json


@attrs.frozen(kw_only=True)
class CardOption:
    option_id: str
    label: str
    action: str


def options_of(payload: Json) -> list[CardOption]:
    """The options of a stored card payload, with the labels its card block shows."""
    options = payload.get("options", []) if isinstance(payload, dict) else []
    found: list[CardOption] = []
    for option in options:
        option_id = str(option.get("option_id"))
        label = option.get("label")
        found.append(
            CardOption(
                option_id=option_id,
                label=str(label) if label is not None else option_id,
                action=str(option.get("action", "")),
            )
        )
    return found


def match_option(options: Sequence[CardOption], text: str) -> tuple[CardOption, ...]:
    """The options ``text`` names under the first rule that names any: the label exactly, the
    label ignoring case, the option id. Empty: none does; more than one: ambiguous."""
    rules: tuple[Callable[[CardOption], bool], ...] = (
        lambda o: o.label == text,
        lambda o: o.label.casefold() == text.casefold(),
        lambda o: o.option_id == text,
    )
    for named in rules:
        found = tuple(o for o in options if named(o))
        if found:
            return found
    return ()


__all__ = ["CardOption", "match_option", "options_of"]
