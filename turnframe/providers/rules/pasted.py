"""Pasted records: a booking confirmation, an itinerary or an invoice pasted into the message.

    Itinerary:
    - 12 March: fly out TP1351
    - 16 March: fly back TP1350
    Limit: 1500

    please add a note: we need a cot

Three or more lines in a row shaped "Key: value" (a list marker allowed), at least one of
whose keys names nothing a request is made of (a field, a record's noun, an operation or one
of its arguments), are data the writer pasted: context, like a
forwarded message. A field change read from a line of such a block ("Limit: 1500") is not a
request and is dropped (its words stay unread); what the writer asks around the block is read
as usual. A block whose every key is request vocabulary ("order: 4711 / note: x / limit:
1800") is a list of changes and stays one.
"""

from __future__ import annotations

import re

import attrs

from turnframe.plan import SetFieldAct, UserTurnPlan
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary

Span = tuple[int, int]

_KEYED = re.compile(r"[ \t]*(?:[-*\u2022][ \t]*)?(?P<key>[^:\n]{1,30}?)[ \t]*:[ \t]*\S[^\n]*")
_MIN_LINES = 3


def pasted_blocks(text: str, vocab: Vocabulary) -> list[Span]:
    """The spans of the pasted "Key: value" blocks of ``text`` (see the module)."""
    names = {a.name for op in vocab.workflow.operations for a in op.arguments}
    arguments = "|".join(re.escape(name.replace("_", " ")) for name in sorted(names))
    request = re.compile(
        rf"(?:the\s+)?(?:{vocab.field_pattern}|{vocab.record_nouns}|{arguments})"
        r"(?:\s+(?:no\.?|number|#))?",
        ICASE,
    )
    blocks: list[Span] = []
    run: list[tuple[Span, bool]] = []  # (line span, whether its key is request vocabulary)
    at = 0
    for line in [*text.split("\n"), None]:
        m = None if line is None else _KEYED.fullmatch(line)
        if m is not None and line is not None:
            key = m.group("key").strip()
            said = request.fullmatch(key) or vocab.operation_regex.fullmatch(key)
            run.append(((at, at + len(line)), said is not None))
        else:
            if len(run) >= _MIN_LINES and not all(is_field for _, is_field in run):
                blocks.append((run[0][0][0], run[-1][0][1]))
            run = []
        if line is not None:
            at += len(line) + 1
    return blocks


def without_pasted_changes(plan: UserTurnPlan, text: str, vocab: Vocabulary) -> UserTurnPlan:
    """``plan`` without the field changes read from inside a pasted block."""
    blocks = pasted_blocks(text, vocab)
    if not blocks:
        return plan

    def inside(act: object) -> bool:
        evidence = getattr(act, "evidence", ())
        return isinstance(act, SetFieldAct) and all(
            any(s <= ev.start and ev.end <= e for s, e in blocks) for ev in evidence
        )

    dropped = [a for a in plan.acts if inside(a)]
    if not dropped or plan.units or any(_refers(a) for a in plan.acts):
        return plan  # acts that point at others by position keep every position
    kept = tuple(a for a in plan.acts if not inside(a))
    unread = sorted(
        (*plan.not_understood, *(ev for a in dropped for ev in a.evidence)), key=lambda e: e.start
    )
    return attrs.evolve(plan, acts=kept, not_understood=tuple(unread))


def _refers(act: object) -> bool:
    """Whether the act names another act by its position (a correction, a cancellation, a
    repeat): removing an act before it would move what it points at."""
    return any(getattr(act, name, None) is not None for name in ("corrects", "cancels", "repeats"))
