"""One question about several records is asked about each: "the status of 4711 and 4712?"
answers both, never only the first record named; "status of 4711 please", a question said
without a verb or a question mark, is asked all the same.

After the turn is read, a question whose own words name two records or more is asked once per
record, in the order they are named. The added questions go at the end of the plan, so every
act's index (which links refer to) stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from turnframe.plan import LabelTarget, OperationAct, QuestionAct, SetFieldAct
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.completions import only_records
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary, tokens

Mentions = Callable[[int, int], list[str]]


def each_record_asked(plan: PlanBuilder, mentions: Mentions) -> None:
    """Ask every question that names several records once per record (in ``plan``)."""
    for index, act in enumerate(list(plan.acts)):
        if not isinstance(act, QuestionAct) or act.question is None or not act.evidence:
            continue
        span = act.evidence[0]
        labels = list(dict.fromkeys(mentions(span.start, span.end)))
        if len(labels) < 2:
            continue
        plan.acts[index] = attrs.evolve(act, target=LabelTarget(label=labels[0]))
        for label in labels[1:]:
            plan.add(attrs.evolve(act, target=LabelTarget(label=label)), Note())


def _every(nouns: str) -> re.Pattern[str]:
    """ "on both", "both orders", "all my orders", "each of the records": every record."""
    owned = r"(?:\s+(?:of\s+)?(?:my|our|the|your|those|these))?"
    return re.compile(
        r"(?<!\w)(?:(?:on|for|to|in)\s+(?P<both>both)(?!\s+of\s+(?:us|you|them)|\s+(?:\w+\s+)?and)"
        rf"(?:{owned}\s+(?:{nouns})s?)?|(?P<both2>both){owned}\s+(?:{nouns})s?"
        rf"|(?:all|each|every){owned}\s+(?:{nouns})s?)(?!\w)",
        ICASE,
    )


def each_record_changed(plan: PlanBuilder, labels: tuple[str, ...], nouns: str) -> None:
    """ "set the note to 'x' on both orders", "… for all my records": a change that names no
    record but all of them (both: when there are exactly two) is made on each, in the order
    the records are listed. Only a change left without a record gets there."""
    distinct = list(dict.fromkeys(lb for lb in labels if lb.strip()))
    if len(distinct) < 2:
        return
    every = _every(nouns)
    for index, act in enumerate(list(plan.acts)):
        if not isinstance(act, SetFieldAct | OperationAct) or not act.evidence:
            continue
        if act.target != LabelTarget(label=""):
            continue
        said = " ".join(ev.text for ev in act.evidence).casefold()
        values = [act.value] if isinstance(act, SetFieldAct) else list(act.args.values())
        for value in values:  # "set the note to 'both orders checked'": words of the value
            said = said.replace(value.casefold(), " " * len(value))
        m = every.search(said)
        if m is None or ((m.group("both") or m.group("both2")) and len(distinct) != 2):
            continue
        plan.acts[index] = attrs.evolve(act, target=LabelTarget(label=distinct[0]))
        for label in distinct[1:]:
            plan.add(attrs.evolve(act, target=LabelTarget(label=label)), plan.notes[index])


_BARE = re.compile(
    r"(?:the\s+)?(?P<words>[a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:of|for|on)\s+(?P<rest>\S.*)", ICASE
)


def bare_question(text: str, start: int, end: int, vocab: Vocabulary, targets: Targets) -> bool:
    """Whether ``text[start:end]`` asks a workflow question without a verb or a question mark:
    "status of 4711 and 4712", "the balance for 4711": only the question's own words, then
    records named (never a statement with other words in it)."""
    m = _BARE.fullmatch(text, start, end)
    if m is None:
        return False
    words = frozenset(tokens(m.group("words")))
    if not any(needed == words for _, needed in vocab.questions):
        return False
    at = m.start("rest")
    said = targets.mentions(at, end)
    return bool(said) and only_records(text, at, end, said, vocab.record_nouns)
