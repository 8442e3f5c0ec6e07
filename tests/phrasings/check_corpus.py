# ruff: noqa: E501, SIM102
"""Checks the phrasing corpus against tests/phrasings/FORMAT.md (shape, vocabulary, seed data).

Usage: python tests/phrasings/check_corpus.py [DIR]   (DIR holds *-desk.jsonl and holdout/*-desk.jsonl)
Exits 1 and prints FILE:LINE: problem for every defect; prints the counts otherwise.
"""

import collections
import datetime
import json
import sys
from pathlib import Path

CATEGORIES = [
    "plain",
    "short",
    "long",
    "polite",
    "angry",
    "typo",
    "multi",
    "correction",
    "number_words",
    "names",
    "id_forms",
    "currency",
    "dates",
    "question",
    "mixed",
    "constraint",
    "follow_up",
    "clarify",
    "card",
    "unsupported",
    "chitchat",
]
ENDS = {"committed", "card", "clarification", "rejected", "answer", "nothing"}
ANSWERS = {
    "refundable",
    "amount_paid",
    "status",
    "receipt",
    "discount_valid",
    "extras_total",
    "travel_date",
    "return_date",
}
DESKS = {
    "refund-desk": {
        "prefix": "refund-",
        "cases": {"order-1001": 12000, "order-1002": 1500},
        "events": {"refund_requested": {"amount", "reason"}, "field_set": {"field", "value"}},
        "fields": {"note", "contact_email"},
        "operations": {"refund": {"amount", "reason"}},
        "arguments": {"amount", "reason"},
        "answers": {"refundable", "amount_paid", "status", "receipt"},
        "codes": {
            "refund.exceeds_paid",
            "refund.no_receipt",
            "refund.bad_email",
            "refund.not_positive",
        },
    },
    "travel-desk": {
        "prefix": "travel-",
        "cases": {"lisbon": None},
        "events": {
            "field_set": {"field", "value"},
            "extra_added": {"item", "quantity", "unit_price", "paid_by"},
            "rebooked": {"leg", "date", "flight"},
            "submitted": set(),
            "withdrawn": {"reason"},
        },
        "fields": {"name", "travel_date", "return_date", "note", "budget"},
        "operations": {
            "rebook": {"leg", "date", "flight"},
            "withdraw": {"reason"},
            "add_extra": {"item", "quantity", "unit_price", "paid_by"},
            "submit": set(),
        },
        "arguments": {
            "leg",
            "date",
            "flight",
            "item",
            "quantity",
            "unit_price",
            "paid_by",
            "reason",
        },
        "answers": {"discount_valid", "status", "extras_total", "travel_date", "return_date"},
        "codes": {
            "travel.not_draft",
            "travel.extra_quantity",
            "travel.already_withdrawn",
            "travel.incomplete",
            "travel.no_such_leg",
            "travel.note_too_long",
            "travel.name_empty",
        },
    },
}


def iso(value):
    try:
        datetime.date.fromisoformat(value)
        return True
    except (TypeError, ValueError):
        return False


def check_item(item, desk, problems):
    spec = DESKS[desk]
    say = problems.append
    if set(item) - {"id", "category", "turns", "expect", "note"}:
        say(f"unknown keys {set(item) - {'id', 'category', 'turns', 'expect', 'note'}}")
    if not str(item.get("id", "")).startswith(spec["prefix"]):
        say(f"id {item.get('id')!r} does not start with {spec['prefix']}")
    if item.get("category") not in CATEGORIES:
        say(f"unknown category {item.get('category')!r}")
    turns = item.get("turns")
    if (
        not isinstance(turns, list)
        or not turns
        or not all(isinstance(t, str) and t.strip() for t in turns)
    ):
        say("turns must be a non-empty list of non-empty strings")
        return
    if turns[0].startswith("/click"):
        say("the first turn cannot click: no card was shown yet")
    expect = item.get("expect")
    if not isinstance(expect, dict):
        say("expect missing")
        return
    if set(expect) - {"events", "ends_with", "card", "clarification", "code", "answers"}:
        say(f"unknown expect keys {set(expect)}")
    ends = expect.get("ends_with")
    if ends not in ENDS:
        say(f"ends_with {ends!r} not allowed")
    if (ends == "card") != ("card" in expect):
        say("card present iff ends_with is card")
    if (ends == "clarification") != ("clarification" in expect):
        say("clarification present iff ends_with is clarification")
    if "code" in expect and (ends != "rejected" or expect["code"] not in spec["codes"]):
        say(f"code {expect['code']!r} needs ends_with rejected and a known code")
    for name in expect.get("answers", ()):
        if name not in spec["answers"]:
            say(f"answer {name!r} is not a question of {desk}")
    if ends == "committed" and not expect.get("events"):
        say("committed but no events")
    if ends == "card" and turns[-1].startswith("/click"):
        say("ends on a card but the last turn is a click")
    card = expect.get("card")
    if card is not None:
        if set(card) != {"case", "operation", "arguments"} or card["case"] not in spec["cases"]:
            say(f"bad card {card}")
        elif (
            card["operation"] not in spec["operations"]
            or set(card["arguments"]) - spec["operations"][card["operation"]]
        ):
            say(f"bad card operation/arguments {card}")
    clar = expect.get("clarification")
    if clar is not None:
        if clar not in ({}, {"target": True}) and not (
            set(clar) == {"argument"} and clar["argument"] in spec["arguments"]
        ):
            say(f"bad clarification {clar}")
    events = expect.get("events")
    if not isinstance(events, list):
        say("events must be a list")
        return
    refunded = collections.Counter()
    confirms = sum(1 for t in turns if t.strip() == "/click confirm")
    carded = 0
    for event in events:
        if set(event) != {"case", "type", "data"} or event["case"] not in spec["cases"]:
            say(f"bad event {event}")
            continue
        kind, data = event["type"], event["data"]
        if kind not in spec["events"] or set(data) - spec["events"][kind]:
            say(f"bad event type/data {event}")
            continue
        if kind == "field_set":
            if data.get("field") not in spec["fields"] or "value" not in data:
                say(f"bad field_set {data}")
            elif data["field"] in ("travel_date", "return_date") and not iso(data["value"]):
                say(f"date not ISO {data}")
            elif data["field"] == "budget" and not isinstance(data["value"], int):
                say(f"budget not int cents {data}")
        if kind == "refund_requested":
            carded += 1
            if not isinstance(data.get("amount"), int) or data["amount"] <= 0:
                say(f"refund amount must be positive int cents {data}")
            else:
                refunded[event["case"]] += data["amount"]
        if kind in ("rebooked", "withdrawn"):
            carded += 1
        if kind == "rebooked" and (
            data.get("leg") not in ("outbound", "return") or not iso(data.get("date"))
        ):
            say(f"bad rebooked {data}")
        if kind == "extra_added":
            q = data.get("quantity", 1)
            if not isinstance(q, int) or not 1 <= q <= 30:
                say(f"bad quantity {data}")
            if "unit_price" in data and not isinstance(data["unit_price"], int):
                say(f"unit_price not int cents {data}")
    if carded > confirms:
        say(f"{carded} card-confirmed events but only {confirms} confirm clicks")
    for case, amount in refunded.items():
        if spec["cases"][case] is not None and (
            case == "order-1002" or amount > spec["cases"][case]
        ):
            say(f"refunds on {case} total {amount}: over what was paid or without receipt")
    if card and card["operation"] == "refund":
        amount = card["arguments"].get("amount")
        left = spec["cases"][card["case"]] - refunded[card["case"]]
        if card["case"] == "order-1002" or not isinstance(amount, int) or not 0 < amount <= left:
            say(f"refund card {card} cannot be shown (left {left})")


#: Later corpora checked too: (development folder, held-out folder, least lines in each).
LATER_CORPORA = {
    "second": ("second", "holdout/second", 200, 60),
    "third": ("third", "holdout/third", 110, 45),
    "fourth": ("fourth", "holdout/fourth", 140, 45),
    "fifth": ("fifth", "holdout/fifth", 140, 45),
    "sixth": ("sixth", "holdout/sixth", 110, 35),
    "seventh": ("seventh", "holdout/seventh", 110, 35),
    "eighth": ("eighth", "holdout/eighth", 110, 35),
}


def check_file(path, desk, ids):
    """(problems, category counts) of one corpus file; ``ids`` maps every id seen to its line."""
    problems, counts = 0, collections.Counter()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            print(f"{where}: not JSON ({error})")
            problems += 1
            continue
        found = []
        check_item(item, desk, found)
        if item.get("id") in ids:
            found.append(f"duplicate id (also {ids[item['id']]})")
        ids[item.get("id")] = where
        for problem in found:
            print(f"{where}: {item.get('id')}: {problem}")
        problems += len(found)
        counts[item.get("category")] += 1
    return problems, counts


def check_later(root, name, ids):
    """A later corpus (its ids unique with the others'): shape, data, and every category in it."""
    dev_folder, hold_folder, least_dev, least_hold = LATER_CORPORA[name]
    problems = 0
    for desk in DESKS:
        dev_path, hold_path = (
            root / dev_folder / f"{desk}.jsonl",
            root / hold_folder / f"{desk}.jsonl",
        )
        if not dev_path.exists() and not hold_path.exists():
            continue
        found_dev, dev = check_file(dev_path, desk, ids)
        found_hold, hold = check_file(hold_path, desk, ids)
        problems += found_dev + found_hold
        print(f"\n{desk} ({name}): development {sum(dev.values())}, held out {sum(hold.values())}")
        for cat in CATEGORIES:
            print(f"  {cat:14} {dev[cat]:5} {hold[cat]:7}")
            if dev[cat] < 1 or hold[cat] < 1:
                print(f"  ! {cat} is missing from {name}")
                problems += 1
        if sum(dev.values()) < least_dev or sum(hold.values()) < least_hold:
            print(f"  ! too few items in {name}")
            problems += 1
    return problems


def main(root):
    root = Path(root)
    problems, ids = 0, {}
    table = {}
    for desk in DESKS:
        for part, path in (
            ("tuned", root / f"{desk}.jsonl"),
            ("holdout", root / "holdout" / f"{desk}.jsonl"),
        ):
            found, counts = check_file(path, desk, ids)
            problems += found
            table[(desk, part)] = counts
    for desk in DESKS:
        tuned, hold = table[(desk, "tuned")], table[(desk, "holdout")]
        total = sum(tuned.values()) + sum(hold.values())
        print(f"\n{desk}: tuned {sum(tuned.values())}, holdout {sum(hold.values())}, total {total}")
        print(f"  {'category':14} tuned holdout total")
        for cat in CATEGORIES:
            print(f"  {cat:14} {tuned[cat]:5} {hold[cat]:7} {tuned[cat] + hold[cat]:5}")
            if tuned[cat] + hold[cat] < 8 or hold[cat] < 1:
                print(f"  ! {cat} is under-represented")
                problems += 1
        if sum(tuned.values()) < 225 or sum(hold.values()) < 75:
            print("  ! too few items")
            problems += 1
    for name in LATER_CORPORA:
        problems += check_later(root, name, ids)
    print(f"\n{problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent))
