"""``RulesProvider``: the deterministic, offline interpreter, behind the Provider protocol.

It answers an interpret request with plan JSON that goes through the same strict parser as a
model's answer. It reads the request's **last user message** as a JSON object (the
InterpreterActor's turn payload)::

    {"text": "Change the due date to Friday …",      required: the user's text
     "clock": "2026-01-07T09:30:00+00:00",          required: the turn's clock (ISO, with offset)
     "workflow": "repair",                           required: one of the provider's workflows
     "case_labels": ["Anna", "Bob"],                 the case labels the user may name
     "case_names": {"Ana Reis": ["Order 1001"]},     other names, with their cases' labels
     "previous_acts": [...],                         the previous turn's acts (plan JSON)
     "locale": "en",                                 optional, default "en"
     "focus_label": "Anna",                          optional: the case the session talks about
     "glossary": "the office = Rua Augusta 12",      optional: glossary text (references' format)
     "recall_pending": "presented"}                  optional: what a recall in progress waits
                                                     for (asked, expansion, presented)

Other keys are ignored. A payload it cannot read is a ``ProviderBadRequest`` (the chain falls
back); narration requests are refused the same way — this provider only interprets. The same
payload always gives the same bytes: :meth:`RulesProvider.interpret` is a pure function of the
turn's text and clock, the workflow, the labels and the glossary.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import attrs

from turnframe._converter import structure
from turnframe.messages import UserTurn
from turnframe.plan import Act, UserTurnPlan
from turnframe.providers.base import ProviderAnswer, ProviderRequest, Purpose
from turnframe.providers.errors import ProviderBadRequest
from turnframe.providers.rules import recall
from turnframe.providers.rules.asks import vague_ask
from turnframe.providers.rules.builder import PlanBuilder, plan_to_json
from turnframe.providers.rules.completions import complete_previous
from turnframe.providers.rules.confidence import vet
from turnframe.providers.rules.freetext import free_text, map_free_text, unwrapped
from turnframe.providers.rules.later_takebacks import taken_back
from turnframe.providers.rules.notes import (
    described_values,
    judged_values,
    whole_values,
    wished_values,
)
from turnframe.providers.rules.objects import foreign_objects
from turnframe.providers.rules.pasted import without_pasted_changes
from turnframe.providers.rules.quoting import referred_values, senders_clauses
from turnframe.providers.rules.read import Reader
from turnframe.providers.rules.records import unnamed_records
from turnframe.providers.rules.refer import fill_from_story
from turnframe.providers.rules.reversals import reverse_checked
from turnframe.providers.rules.rewrites import prepared
from turnframe.providers.rules.several import each_record_asked, each_record_changed
from turnframe.providers.rules.spelling import (
    COMMAND_WORDS,
    Corrected,
    correct,
    keep_typed_words,
    remap,
)
from turnframe.providers.rules.split import split_clauses
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.unnamed import read_repeats, read_unnamed
from turnframe.providers.rules.vocabulary import Vocabulary, vocabulary_of
from turnframe.references import Glossary, find_aliases, parse_glossary
from turnframe.workflow import ParseContext, Workflow

RULES_MODEL = "turnframe-rules-v1"


def read_turn(
    turn: UserTurn,
    workflow: Workflow[Any],
    *,
    case_labels: Sequence[str] = (),
    focus_label: str | None = None,
    glossary: Glossary | None = None,
    case_names: Mapping[str, Sequence[str]] | None = None,
    previous_acts: Sequence[Act] = (),
    recall_pending: str | None = None,
) -> UserTurnPlan:
    """The plan for ``turn`` (pure: the same inputs always give the same plan)."""
    vocab = _vocabulary(workflow)
    return _read(
        turn, vocab, case_labels, focus_label, glossary, case_names, previous_acts, recall_pending
    )


@functools.lru_cache(maxsize=64)
def _vocabulary(workflow: Workflow[Any]) -> Vocabulary:
    return vocabulary_of(workflow)


_INVERTED = re.compile("[\u00bf\u00a1]")
#: Pictographs (emoji), with their joiners, variation selectors and skin tones: they mark a
#: mood, never a value.
_PICTOGRAPHS = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u200d\ufe0e\ufe0f\u2640\u2642"
    "\U0001f3fb-\U0001f3ff]"
)
_EMPHATIC_DO = re.compile(r"(?<![\w'\u2019])do\s+", re.IGNORECASE)


#: "the amount? 40 euros", "date? 13 march": the question asked, said back before the answer.
_ECHOED = re.compile(r"\s*(?:the\s+)?[a-z]+(?:\s+[a-z]+)?\s*\?\s+(?=\S)", re.IGNORECASE)


def _question_echoed(text: str) -> str:
    """An answer that first says the question asked back (one or two words and a question
    mark): the echo is blanked out, same length, and the answer is read alone."""
    m = _ECHOED.match(text)
    if m is None or "?" in text[m.end() :]:
        return text
    return " " * m.end() + text[m.end() :]


def _marks_only(text: str, vocab: Vocabulary) -> str:
    """The text with what only marks a request blanked out, same length (evidence stays put):
    a Spanish opening "¿"/"¡", emoji, and an emphatic "do" before an operation's word in a message
    with no question mark ("no actually, do pay the invoice")."""
    out = _INVERTED.sub(" ", text)
    out = _PICTOGRAPHS.sub(lambda m: " " * len(m.group(0)), out)
    if "?" not in text:
        for m in _EMPHATIC_DO.finditer(out):
            if vocab.operation_regex.match(out, m.end()):
                out = out[: m.start()] + " " * (m.end() - m.start()) + out[m.end() :]
    return out


#: A chat correction: the right word or value after (or before) a star, alone in a turn.
_STARRED = re.compile(r"\s*(?:\*(?P<a>[^*\s][^*]*?)|(?P<b>[^*\s][^*]*?)\*)\s*")
#: What the star stands for.
_I_MEAN = "I mean "


def _starred(text: str) -> Corrected | None:
    """ "*18 march" (or "18 march*") after a request, the chat way of correcting the last
    thing said: read as "I mean 18 march" (evidence still cites what was typed). Only a value
    with a digit or an address: a starred word fixes one word of a text, not all of it."""
    m = _STARRED.fullmatch(text)
    if m is None:
        return None
    group = "a" if m.group("a") else "b"
    said, at = m.group(group), m.start(group)
    if len(said.split()) > 6 or not re.search(r"\d|@", said):
        return None  # "*break" fixes one word of a text, which is not said: never the value
    if group == "a":  # "*X": the star itself reads "I mean "
        fixed = text[: at - 1] + _I_MEAN + text[at:]
        return Corrected(
            text=fixed,
            original=text,
            swaps=((at - 1, at - 1 + len(_I_MEAN), at - 1, at),),
        )
    # "X*": "I mean " before the value, the star a space
    star = m.end("b")
    fixed = text[:at] + _I_MEAN + said + " " + text[star + 1 :]
    return Corrected(text=fixed, original=text, swaps=((at, at + len(_I_MEAN), at, at),))


def _read(
    turn: UserTurn,
    vocab: Vocabulary,
    case_labels: Sequence[str],
    focus_label: str | None,
    glossary: Glossary | None,
    case_names: Mapping[str, Sequence[str]] | None = None,
    previous_acts: Sequence[Act] = (),
    recall_pending: str | None = None,
) -> UserTurnPlan:
    text = turn.text
    plan = PlanBuilder(text=text)
    if not turn.locale.casefold().startswith("en"):
        start = len(text) - len(text.lstrip())
        plan.not_understood(start, len(text.rstrip()))
        return plan.plan()
    if recall.read_recollect(text, plan):  # a command: its cue is the words exactly as typed
        return plan.plan()
    marks = _marks_only(text, vocab)
    if previous_acts:
        marks = _question_echoed(marks)
    text_read = _starred(marks) if previous_acts else None
    if text_read is not None:
        turn = attrs.evolve(turn, text=text_read.text)
        text_read = attrs.evolve(text_read, original=text)
    elif marks != text:
        turn = attrs.evolve(turn, text=marks)
        text_read = Corrected(text=marks, original=text, swaps=())
    names = {*case_labels, *(case_names or {})}
    name_words = frozenset(w.casefold() for n in names for w in re.findall(r"[A-Za-z]+", n))
    # Politeness, emphasis and dictation said plainly first (evidence maps back to the text).
    numbers = frozenset(d for n in names for d in re.findall(r"\d{3,}", n))
    plain = prepared(text, vocab.words | COMMAND_WORDS, vocab.record_nouns, numbers)
    if plain is not None:
        turn = attrs.evolve(turn, text=plain.text)
    corrected = correct(turn.text, vocab.words, name_words, verbs=frozenset(vocab.operation_verbs))
    context = (case_labels, focus_label, glossary, case_names, tuple(previous_acts), recall_pending)
    if corrected is None:
        read = _read_english(turn, vocab, *context)
    else:
        fixed = attrs.evolve(turn, text=corrected.text)
        read = _read_english(fixed, vocab, *context)
        read = remap(keep_typed_words(read, corrected, free_text(vocab.workflow)), corrected)
    if plain is not None:
        read = remap(read, plain)
    if text_read is not None:
        read = remap(read, text_read)
    read = map_free_text(read, free_text(vocab.workflow), unwrapped)
    read = without_pasted_changes(read, text, vocab)
    # In the user's own words (a typo fixed into an operation's word included): a reversed
    # request ("unsubmit", "undo the payment") never runs as the operation it reverses.
    return taken_back(reverse_checked(read, text, vocab), text, vocab, previous_acts)


def _read_english(
    turn: UserTurn,
    vocab: Vocabulary,
    case_labels: Sequence[str],
    focus_label: str | None,
    glossary: Glossary | None,
    case_names: Mapping[str, Sequence[str]] | None,
    previous_acts: tuple[Act, ...],
    recall_pending: str | None,
) -> UserTurnPlan:
    text = turn.text
    plan = PlanBuilder(text=text)
    disposition = recall.read_disposition(text, recall_pending)
    if disposition is not None:
        recall.emit(disposition, text, plan)
    aliases = find_aliases(glossary, text) if glossary is not None else ()
    targets = Targets(
        text=text,
        labels=tuple(case_labels),
        focus=focus_label,
        aliases=aliases,
        names={k: tuple(v) for k, v in (case_names or {}).items()},
        ordinary=vocab.words,
    )
    reader = Reader(
        text=text,
        vocab=vocab,
        targets=targets,
        aliases=aliases,
        ctx=ParseContext.of(turn),
        plan=plan,
        previous=previous_acts,
    )
    # A turn that only names a record completes or repeats the previous turn's request.
    completed = disposition is None and complete_previous(
        text, plan=plan, vocab=vocab, targets=targets, ctx=reader.ctx, previous=previous_acts
    )
    clauses = () if completed else split_clauses(text, vocab)
    for clause in senders_clauses(clauses, text, plan):  # never a forwarded or quoted request
        if disposition is None or clause.start >= disposition.end:
            reader.read(clause)
    if recall_pending in ("asked", "presented"):
        recall.answer_in_own_words(text, plan)
    # "add the following note to order 1002: … Thanks, Maria": the value whole, no sign-off.
    whole_values(plan, text, vocab, targets, reader.ctx)
    described_values(plan, vocab, reader.ctx)  # "set the email to her new address, V"
    judged_values(plan)  # "the name is silly now": a verdict, never the new value
    wished_values(plan, text, vocab, reader.ctx)  # "we want to leave in 2 weeks, set the date"
    # "… charged us 25 for nothing. Can you fix that?": the one change the story implies, on a
    # card, else the reducer asks what should change.
    vague_ask(plan, text, vocab, targets, reader.ctx, previous_acts)
    # "[forwarded: the tour is 20 a person] please add that for 2 people": on a card.
    referred_values(plan, text, vocab, reader.ctx)
    # "… was charged 15 twice. Please undo it.": a carded request takes what the story named.
    fill_from_story(plan, text, vocab, reader.ctx, aliases)
    # "add a lamp twice", "… and one for Rui": two requests, read before they are vetted.
    read_repeats(plan)
    mentioned = lambda s, e: {m.label for m in targets.mentions(s, e)}  # noqa: E731
    each_record_asked(plan, lambda s, e: [m.label for m in targets.mentions(s, e)])
    each_record_changed(plan, targets.labels, vocab.record_nouns)  # "… on both orders"
    # An operation asked to act on something it does not take is not that operation.
    foreign_objects(plan, vocab, mentioned)
    # A change the reading cannot vouch for waits for a card or asks (ADR 0019).
    vet(
        plan,
        vocab,
        mentions=mentioned,
        today=reader.ctx.now.date(),
        ctx=reader.ctx,
    )
    # A record named only inside a value ("set the note to call Ana back") is not named.
    unnamed_records(plan, targets, focus_label)
    # "change something", "wrong date": the reducer asks (ADR 0024).
    read_unnamed(plan, vocab, targets, previous_acts)
    return plan.plan()


class RulesProvider:
    """An offline interpreter for the workflows it is built with (see the module docstring)."""

    def __init__(
        self,
        *,
        workflows: Iterable[Workflow[Any]],
        glossary: Glossary | None = None,
        name: str = "rules",
        context_budget_tokens: int = 1_000_000,
    ) -> None:
        self._workflows: Mapping[str, Workflow[Any]] = {w.name: w for w in workflows}
        self._vocabularies = {name: vocabulary_of(w) for name, w in self._workflows.items()}
        self._glossary = glossary
        self._name = name
        self._budget = context_budget_tokens

    @property
    def name(self) -> str:
        return self._name

    @property
    def context_budget_tokens(self) -> int:
        return self._budget

    def interpret(
        self,
        turn: UserTurn,
        workflow: str | Workflow[Any],
        *,
        case_labels: Sequence[str] = (),
        focus_label: str | None = None,
        glossary: Glossary | None = None,
        case_names: Mapping[str, Sequence[str]] | None = None,
        previous_acts: Sequence[Act] = (),
        recall_pending: str | None = None,
    ) -> str:
        """Plan JSON for ``turn`` (``glossary`` defaults to the provider's own)."""
        name = workflow if isinstance(workflow, str) else workflow.name
        vocab = self._vocabularies.get(name)
        if vocab is None:
            known = ", ".join(sorted(self._vocabularies)) or "none"
            raise ProviderBadRequest(
                f"rules provider {self._name!r} does not serve workflow {name!r} (serves {known})",
                hint="build RulesProvider(workflows=[...]) with every workflow it interprets",
            )
        chosen = glossary if glossary is not None else self._glossary
        plan = _read(
            turn, vocab, case_labels, focus_label, chosen, case_names, previous_acts, recall_pending
        )
        return plan_to_json(plan)

    async def complete(self, request: ProviderRequest) -> ProviderAnswer:
        return self.answer_now(request)

    def answer_now(self, request: ProviderRequest) -> ProviderAnswer:
        """The reading is computed here and sent nowhere (``AnswersAtOnce``): the chain calls
        it in the turn's own task, with no task, deadline scope or Event of its own."""
        if request.purpose is not Purpose.INTERPRET:
            raise ProviderBadRequest(
                f"rules provider {self._name!r} only interprets; it cannot {request.purpose}",
                hint="put a narrating provider (or none: the template narrator) for narration",
            )
        payload = _payload(request)
        turn = UserTurn(
            session_id="rules",
            account_id="rules",
            turn_id=request.turn_id,
            text=payload["text"],
            clock=payload["clock"],
            locale=payload["locale"],
        )
        glossary = None
        if payload["glossary"] is not None:
            glossary = parse_glossary(
                payload["glossary"],
                origin="<request glossary>",
                workflow=payload["workflow"],
                slot="glossary",
            )
        text = self.interpret(
            turn,
            payload["workflow"],
            case_labels=payload["case_labels"],
            focus_label=payload["focus_label"],
            glossary=glossary,
            case_names=payload["case_names"],
            previous_acts=payload["previous_acts"],
            recall_pending=payload["recall_pending"],
        )
        return ProviderAnswer(text=text, model=RULES_MODEL)


def _bad(message: str) -> ProviderBadRequest:
    return ProviderBadRequest(
        f"rules provider: {message}",
        hint="send the turn payload as JSON in the last user message (turnframe.providers.rules)",
    )


def _payload(request: ProviderRequest) -> dict[str, Any]:
    users = [m for m in request.messages if m.role == "user"]
    if not users:
        raise _bad("the request has no user message")
    try:
        data = json.loads(users[-1].content)
    except json.JSONDecodeError as exc:
        raise _bad(f"the user message is not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise _bad("the user message is not a JSON object")
    for key in ("text", "clock", "workflow"):
        if not isinstance(data.get(key), str):
            raise _bad(f"{key!r} must be a string")
    try:
        clock = datetime.fromisoformat(data["clock"])
    except ValueError:
        raise _bad(f"'clock' is not an ISO date-time: {data['clock']!r}") from None
    if clock.utcoffset() is None:
        raise _bad("'clock' needs a timezone offset")
    labels = data.get("case_labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise _bad("'case_labels' must be a list of strings")
    names = data.get("case_names", {})
    if not isinstance(names, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in names.values()
    ):
        raise _bad("'case_names' must map each name to a list of case labels")
    previous: tuple[Act, ...] = ()
    with contextlib.suppress(Exception):  # context only: an unreadable one is left out
        previous = structure(data.get("previous_acts", []), tuple[Act, ...])
    optional = {
        key: data.get(key) for key in ("locale", "focus_label", "glossary", "recall_pending")
    }
    for key, value in optional.items():
        if value is not None and not isinstance(value, str):
            raise _bad(f"{key!r} must be a string")
    return {
        "text": data["text"],
        "clock": clock,
        "workflow": data["workflow"],
        "case_labels": tuple(labels),
        "case_names": {str(k): tuple(v) for k, v in names.items()},
        "previous_acts": previous,
        "locale": optional["locale"] or "en",
        "focus_label": optional["focus_label"],
        "glossary": optional["glossary"],
        "recall_pending": optional["recall_pending"],
    }
