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

from turnframe.plan import LabelTarget, QuestionAct
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
