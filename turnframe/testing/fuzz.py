"""Mutated model answers: what an interpreter might hand back instead of a plan.

:func:`mutate` turns a well-formed plan (as JSON data) into a hostile answer, decided by a
seeded ``random.Random``: a field dropped or retyped, an unknown act kind, a huge or deeply
nested value, ``NaN``, a bad escape or a lone surrogate, a 1 MB string, a cut-off body, a
duplicated key, an enormous number, spans and links that point nowhere, thousands of acts,
atomic units that name the wrong acts, or no plan at all. Every one must end its turn as a
typed rejection (or, if it still happens to be a valid plan, as an ordinary turn): never a
crash, a hang, a partial execution or a stuck turn. ``benchmarks/fuzz_plans.py`` feeds them
through the runtime; the test suite runs a slice.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

Json = Any
Mutation = Callable[[Json, random.Random], str]

MEGABYTE = 1 << 20


def _dump(data: Json) -> str:
    return json.dumps(data, ensure_ascii=False)


def _slots(data: Json) -> list[tuple[Any, Any]]:
    """Every (container, key) pair in ``data``, depth first."""
    found: list[tuple[Any, Any]] = []
    pending = [data]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.append((node, key))
                pending.append(value)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                found.append((node, index))
                pending.append(value)
    return found


def _random_scalar(rng: random.Random) -> Json:
    return rng.choice(
        [None, True, False, 0, -1, 2**31, 3.5, -1e308, "", "x", "0", "null", [], {}, [[]], {"": 0}]
    )


def drop_field(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    slots = [(c, k) for c, k in _slots(data) if isinstance(c, dict)]
    if slots:
        container, key = rng.choice(slots)
        del container[key]
    return _dump(data)


def retype_field(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    slots = _slots(data)
    if slots:
        container, key = rng.choice(slots)
        container[key] = _random_scalar(rng)
    return _dump(data)


def unknown_kind(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    for act in data.get("acts", []):
        if rng.random() < 0.7:
            act["kind"] = rng.choice(["delete_everything", "SET_FIELD", "", "set field", 7, None])
    return _dump(data)


def huge_string(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    strings = [(c, k) for c, k in _slots(data) if isinstance(c[k], str)]
    if strings:
        container, key = rng.choice(strings)
        container[key] = rng.choice("aé€😀\\\"") * MEGABYTE
    return _dump(data)


def deep_value(plan: Json, rng: random.Random) -> str:
    depth = rng.choice([64, 900, 1_000, 5_000, 100_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return _splice(plan, rng, opener * depth + "0" + closer * depth)


def _splice(plan: Json, rng: random.Random, raw: str) -> str:
    """``plan`` with one value (at random) replaced by the raw JSON text ``raw`` (which the
    encoder could not write itself: too deep, or not JSON at all)."""
    data = copy.deepcopy(plan)
    slots = _slots(data)
    if not slots:
        return raw
    container, key = rng.choice(slots)
    container[key] = _SENTINEL
    return _dump(data).replace(json.dumps(_SENTINEL), raw, 1)


_SENTINEL = "\x00splice\x00"


def not_a_number(plan: Json, rng: random.Random) -> str:
    token = rng.choice(["NaN", "Infinity", "-Infinity", "nan", "1e999", "-0"])
    return _splice(plan, rng, token)


def bad_escape(plan: Json, rng: random.Random) -> str:
    text = _dump(plan)
    escape = rng.choice(["\\x41", "\\u12G4", "\\ud800", "\\udc00\\ud800", "\\", "\\uDFFF", "\\q"])
    strings = [i for i, ch in enumerate(text) if ch == '"']
    if len(strings) < 2:
        return text + escape
    at = rng.choice(strings[1::2])  # just before a closing quote
    return text[:at] + escape + text[at:]


def lone_surrogate(plan: Json, rng: random.Random) -> str:
    """A literal lone surrogate in the answer text (what surrogateescape makes of bad bytes)."""
    data = copy.deepcopy(plan)
    strings = [(c, k) for c, k in _slots(data) if isinstance(c[k], str)]
    if strings:
        container, key = rng.choice(strings)
        container[key] = container[key] + rng.choice(["\ud800", "\udcff", "\udfff"])
    return _dump(data)


def truncate(plan: Json, rng: random.Random) -> str:
    text = _dump(plan)
    return text[: rng.randrange(len(text))] if text else text


def duplicate_key(plan: Json, rng: random.Random) -> str:
    text = _dump(plan)
    if rng.random() < 0.5 and '"kind": ' in text:
        return text.replace('"kind": ', '"kind": "chitchat", "kind": ', 1)
    return text[:-1] + ', "acts": []}'



def huge_number(plan: Json, rng: random.Random) -> str:
    number = rng.choice(
        ["1" + "0" * 5_000, "1e400", "-" + "9" * 4_400, "1.0e-400", "18446744073709551617"]
    )
    return _splice(plan, rng, number)


def extra_field(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    targets = [data, *[a for a in data.get("acts", []) if isinstance(a, dict)]]
    rng.choice(targets)[rng.choice(["execute_now", "id", "__proto__", "kind2"])] = True
    return _dump(data)


def wrong_links(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    for container, key in _slots(data):
        if key in ("start", "end", "corrects", "cancels", "start_act") and rng.random() < 0.6:
            container[key] = rng.choice([-1, 0, 1, 10**9, -(10**9), 2**63])
    return _dump(data)


def many_acts(plan: Json, rng: random.Random) -> str:
    data = copy.deepcopy(plan)
    acts = data.get("acts") or [{"kind": "chitchat", "evidence": []}]
    count = rng.choice([100, 257, 2_000])
    data["acts"] = [copy.deepcopy(rng.choice(acts)) for _ in range(count)]
    return _dump(data)


def wrong_units(plan: Json, rng: random.Random) -> str:
    """Atomic units that join too few acts, name acts twice or out of range, or come by the
    thousand (a unit's ``acts`` too)."""
    data = copy.deepcopy(plan)
    count = len(data.get("acts") or [])
    data["units"] = rng.choice(
        [
            [{"acts": [0]}],
            [{"acts": [0, 0]}],
            [{"acts": [0, count + 5]}, {"acts": [-1, 1]}],
            [{"acts": [0, 1]}, {"acts": [1, 0]}],
            [{"acts": list(range(count))} for _ in range(rng.choice([2, 300, 5_000]))],
            [{"acts": [0, 1] * rng.choice([200, 10_000])}],
            [{"acts": "0,1"}],
            {"acts": [0, 1]},
        ]
    )
    return _dump(data)


def not_a_plan(plan: Json, rng: random.Random) -> str:
    return rng.choice(
        ["", " ", "null", "[]", "{}", '"acts"', "0", "true", "```json\n{}\n```", "{'acts': []}",
         '{"acts": {}}', '{"acts": null}', "I cannot help with that.", "\x00", "{" * 3]
    )  # fmt: skip


def unchanged(plan: Json, rng: random.Random) -> str:
    return _dump(plan)


#: Every mutation, by name (``unchanged`` keeps a share of answers valid, so they execute).
MUTATIONS: dict[str, Mutation] = {
    "drop_field": drop_field,
    "retype_field": retype_field,
    "unknown_kind": unknown_kind,
    "huge_string": huge_string,
    "deep_value": deep_value,
    "not_a_number": not_a_number,
    "bad_escape": bad_escape,
    "lone_surrogate": lone_surrogate,
    "truncate": truncate,
    "duplicate_key": duplicate_key,
    "huge_number": huge_number,
    "extra_field": extra_field,
    "wrong_links": wrong_links,
    "many_acts": many_acts,
    "wrong_units": wrong_units,
    "not_a_plan": not_a_plan,
    "unchanged": unchanged,
}
#: How often each is drawn: the expensive ones (1 MB strings, thousands of acts) rarely.
WEIGHTS: dict[str, int] = {name: 10 for name in MUTATIONS} | {"huge_string": 1, "many_acts": 1}


def mutate(plan: Json, rng: random.Random) -> tuple[str, str]:
    """A mutated answer for ``plan`` (JSON data): (the mutation's name, the answer text)."""
    names = list(MUTATIONS)
    name = rng.choices(names, weights=[WEIGHTS[n] for n in names])[0]
    return name, MUTATIONS[name](plan, rng)


__all__ = ["MEGABYTE", "MUTATIONS", "WEIGHTS", "Mutation", "mutate"]
