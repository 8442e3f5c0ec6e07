"""Present: what each step of the protocol says, in one shape at every scope.

Texts are built only from the members' excerpts (the record's own words, verbatim), their
locators and resume handles, and counts the protocol knows: never from an index entry's gist
or keywords. Each block carries a stable code (``turnframe.recall.*``) and, in ``data``, the
machine-readable part of the JSON contract (:func:`contract_fields`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnframe.grounding.wording import quote
from turnframe.recall import codes
from turnframe.recall.assemble import Edge, SkippedLink
from turnframe.recall.cue import Unit
from turnframe.recall.state import Presentation, Shown
from turnframe.response import BlockKind

EXPAND_OPTION = "expand"
STOP_OPTION = "stop"

_WHOLE = {
    Unit.SESSION: "the conversation",
    Unit.LINE: "the line of conversations",
    Unit.TOPIC: "the conversations on that topic",
    Unit.CONCEPT: "where that idea was forged and settled",
}


class Output:
    """One block the protocol says: kind, code, text and its data."""

    __slots__ = ("code", "data", "kind", "text")

    def __init__(self, kind: BlockKind, code: str, text: str, data: dict[str, Any]) -> None:
        self.kind, self.code, self.text, self.data = kind, code, text, data


def _when(shown: Shown) -> str:
    return f", {shown.started_at.date().isoformat()}" if shown.started_at is not None else ""


def _member_line(shown: Shown) -> str:
    where = f"session {shown.session_id}{_when(shown)}"
    if shown.fork_of is not None:
        where += f", forked from {shown.fork_of}"
    if shown.resume is None:
        handle = "it cannot be resumed (the session it was forked from is gone)"
    else:
        handle = f"resume: {shown.resume}"
    return f"{quote(shown.excerpt)} ({where}; {handle})"


def candidate_json(shown: Shown) -> dict[str, Any]:
    return {
        "session_id": shown.session_id,
        "turn_id": shown.turn_id,
        "excerpt": shown.excerpt,
        "resume": shown.resume,
        "locator": shown.locator,
        "started_at": shown.started_at.isoformat() if shown.started_at is not None else None,
        "fork_of": shown.fork_of,
    }


def _edges_json(joined: Sequence[Edge], skipped: Sequence[SkippedLink]) -> dict[str, Any]:
    return {
        "joined": [
            {"from": e.source, "to": e.target, "rule": e.rule, "shared": list(e.shared)}
            for e in joined
        ],
        "skipped": [
            {"member": s.member, "anchor": s.anchor, "reason": s.reason} for s in skipped
        ],
    }


def _dropped(dropped: Sequence[str]) -> str:
    if not dropped:
        return ""
    noun = "session" if len(dropped) == 1 else "sessions"
    return f" (I could not open the record of {noun} {', '.join(dropped)}.)"


def _tries(left: int) -> str:
    if left == 0:
        return "This is the last try."
    return f"{left} {'try' if left == 1 else 'tries'} left."


def _partial(members: Sequence[Shown]) -> str:
    if any(m.partial_source for m in members):
        return (
            " Its record was built from less than its whole source "
            "(some of it could not be read), so it may not show everything that was said."
        )
    return ""


def presented(p: Presentation, *, attempts_left: int, dropped: Sequence[str]) -> Output:
    lines = [f"Is this {_WHOLE[p.unit]} you mean?"]
    if len(p.members) == 1:
        lines.append(_member_line(p.head))
    else:
        lines += [f"{n}. {_member_line(m)}" for n, m in enumerate(p.members, start=1)]
    if p.adjacent:
        close = "; ".join(
            f"session {a.session_id}{_when(a)}: {quote(a.excerpt)}" for a in p.adjacent
        )
        lines.append(f"Also close: {close}.")
    lines.append(
        "Say \u201cyes, that one\u201d, or tell me what is different. " + _tries(attempts_left)
    )
    lines.append(codes.CURRENCY_CAVEAT + _partial(p.members) + _dropped(dropped))
    data: dict[str, Any] = {
        "candidates": [candidate_json(s) for s in (*p.members, *p.adjacent)],
        "attempts_left": attempts_left,
        "unit": p.unit.value,
        "members": len(p.members),
        "dropped": list(dropped),
        **_edges_json(p.joined, p.skipped),
    }
    return Output(BlockKind.ANSWER, codes.RECALL_PRESENTED, "\n".join(lines), data)


def identified(p: Presentation) -> Output:
    if len(p.members) == 1:
        body = f"Recalled: {_member_line(p.head)}."
    else:
        body = "Recalled:\n" + "\n".join(
            f"{n}. {_member_line(m)}" for n, m in enumerate(p.members, start=1)
        )
    text = f"{body}\n{codes.CURRENCY_CAVEAT}{_partial(p.members)}"
    data: dict[str, Any] = {
        "session_id": p.head.session_id,
        "turn_id": p.head.turn_id,
        "resume": p.head.resume,
        "unit": p.unit.value,
        "candidates": [candidate_json(m) for m in p.members],
        **_edges_json(p.joined, p.skipped),
    }
    return Output(BlockKind.ANSWER, codes.RECALL_IDENTIFIED, text, data)


def withdrawn(*, moved_on: bool) -> Output:
    if moved_on:
        text = "Leaving the earlier conversation aside: nothing was recalled."
    else:
        text = "All right, I'll stop looking: nothing was recalled."
    return Output(BlockKind.TEXT, codes.RECALL_WITHDRAWN, text, {})


def ask(described: str, *, attempts_left: int, dropped: Sequence[str]) -> Output:
    """The one open question. ``described`` is what was looked for; empty when the recall gave
    nothing to look for (then nothing was searched, and the question says so)."""
    if described:
        opening = f"I could not find an earlier conversation about {quote(described)} yet."
    else:
        opening = "I have nothing to look for yet."
    text = (
        f"{opening} What else do you remember about it: a name, a number, a place, "
        "roughly when?" + _dropped(dropped)
    )
    return Output(
        BlockKind.ANSWER,
        codes.RECALL_ASK,
        text,
        {"attempts_left": attempts_left, "dropped": list(dropped)},
    )


def _coverage(sessions: int, indexed: int, full_text: bool) -> str:
    searched = "every turn and reply" if full_text else "their summaries and opening messages"
    return f"{sessions} earlier {'session' if sessions == 1 else 'sessions'} ({searched})"


def expand(
    described: str,
    *,
    card_id: str,
    sessions: int,
    indexed: int,
    attempts_left: int,
    dropped: Sequence[str],
) -> Output:
    text = (
        f"Nothing in {_coverage(sessions, indexed, False)} matches {quote(described)}. "
        "Shall I search the full text of every earlier conversation? "
        f"Choose {EXPAND_OPTION} or {STOP_OPTION}." + _dropped(dropped)
    )
    options = [
        {"option_id": EXPAND_OPTION, "action": "confirm", "label": EXPAND_OPTION, "case_id": None},
        {"option_id": STOP_OPTION, "action": "decline", "label": STOP_OPTION, "case_id": None},
    ]
    data: dict[str, Any] = {
        "interaction_id": card_id,
        "interaction_kind": "recall_expansion",
        "case_id": None,
        "expected_revision": 0,
        "options": options,
        "attempts_left": attempts_left,
        "dropped": list(dropped),
    }
    return Output(BlockKind.CARD, codes.RECALL_EXPAND, text, data)


def null_match(
    described: str, *, sessions: int, indexed: int, full_text: bool, dropped: Sequence[str]
) -> Output:
    text = (
        f"I could not find an earlier conversation matching {quote(described)} "
        f"(searched {_coverage(sessions, indexed, full_text)}). Nothing was recalled."
        + _dropped(dropped)
    )
    return Output(
        BlockKind.ANSWER,
        codes.RECALL_NULL_MATCH,
        text,
        {"attempts_left": 0, "dropped": list(dropped), "full_text": full_text},
    )


def exhausted(p: Presentation, *, tries: int) -> Output:
    text = (
        f"I could not pin it down in {tries} tries. The closest I found was "
        f"{_member_line(p.head)}, but I am not claiming that is the one: nothing was recalled."
    )
    data: dict[str, Any] = {
        "candidates": [candidate_json(m) for m in p.members],
        "attempts_left": 0,
        "unit": p.unit.value,
    }
    return Output(BlockKind.ANSWER, codes.RECALL_EXHAUSTED, text, data)


def relayed(shown: Shown) -> Output:
    text = (
        f"That is session {shown.session_id}{_when(shown)}; it opened with "
        f"{quote(shown.excerpt)}. "
        + (
            f"Resume it with: {shown.resume}."
            if shown.resume is not None
            else "It cannot be resumed (the session it was forked from is gone)."
        )
        + f" {codes.CURRENCY_CAVEAT}"
    )
    data: dict[str, Any] = {
        "session_id": shown.session_id,
        "candidates": [candidate_json(shown)],
    }
    return Output(BlockKind.ANSWER, codes.RECALL_RELAYED, text, data)


def no_cue(
    *, waiting: str | None, presented: Presentation | None, attempts_left: int | None
) -> Output:
    """Nothing to look for: no recall starts (``waiting`` None), or the one in progress still
    waits for what it waited for (``asked``, ``expansion``, ``presented``), its tries unspent."""
    if waiting is None:
        text = (
            "There is nothing to look for yet: tell me something you remember about that "
            "conversation (a word, a name, a number, roughly when), for example "
            "\u201c/recollect the hotel pool\u201d. Nothing was recalled."
        )
        return Output(BlockKind.TEXT, codes.RECALL_NO_CUE, text, {})
    if waiting == "presented" and presented is not None:
        still = (
            f"Is it still this one: session {presented.head.session_id}{_when(presented.head)}? "
            "Say \u201cyes, that one\u201d, or tell me what is different."
        )
    elif waiting == "expansion":
        still = (
            "Shall I search the full text of every earlier conversation? "
            f"Choose {EXPAND_OPTION} or {STOP_OPTION}."
        )
    else:
        still = "What else do you remember about it: a name, a number, a place, roughly when?"
    left = "" if attempts_left is None else " " + _tries(attempts_left)
    text = f"That gives me nothing new to look for, so nothing changed. {still}{left}"
    data: dict[str, Any] = {"pending": waiting}
    if attempts_left is not None:
        data["attempts_left"] = attempts_left
    return Output(BlockKind.TEXT, codes.RECALL_NO_CUE, text, data)


#: The keys of a recall block's data that ``turnframe chat --json`` adds to the block.
CONTRACT_KEYS = (
    "candidates",
    "attempts_left",
    "session_id",
    "turn_id",
    "resume",
    "unit",
    "interaction_id",
    "options",
    "joined",
    "skipped",
    "dropped",
)


def contract_fields(code: str, data: dict[str, Any]) -> dict[str, Any]:
    """The JSON contract's extra fields of a recall block (nothing for any other block)."""
    if code not in codes.RECALL_CODES:
        return {}
    fields = {key: data[key] for key in CONTRACT_KEYS if key in data}
    if code == codes.RECALL_EXPAND:
        fields["options"] = [o["option_id"] for o in data.get("options", [])]
    return fields


__all__ = [
    "CONTRACT_KEYS",
    "EXPAND_OPTION",
    "STOP_OPTION",
    "Output",
    "ask",
    "candidate_json",
    "contract_fields",
    "exhausted",
    "expand",
    "identified",
    "no_cue",
    "null_match",
    "presented",
    "relayed",
    "withdrawn",
]
