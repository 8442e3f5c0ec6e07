"""Reading confidence: a change commits only when the words that produced it are accounted for.

The interpreter reads a clause into an act by finding the workflow's words in it: an operation
or field phrase (with its declared synonyms and inflections), a record reference, argument
values, a correction marker, politeness. This module looks at what that reading did *not*
explain, and at free-text values that may have swallowed more than a value, and holds back
every change it cannot vouch for. Nothing here names a domain: the words that matter come from
the workflow's vocabulary and from ordinary English (negation, correction, anaphora).

What an unsure change becomes (ADR 0019):

- a value the unexplained words may correct or contradict ("pay twenty — scratch that,
  thirty", "at 40 euros, no sorry 45" when the correction was not read) is not guessed: a typed
  argument becomes unreadable, so the reducer asks for it (``needs_argument``); a field change
  is taken back and the words are reported as not understood;
- any other doubt (a negation, a second request, a pronoun, a free-text value that holds a
  number, a verb or a list) makes the change wait for a confirmation card that shows its exact
  arguments: the user sees what would run before anything does.

Unexplained words that cannot change the meaning (a reason, a story, thanks) hold nothing back.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from datetime import date
from typing import ClassVar

import attrs

from turnframe.plan import (
    CancelAct,
    CorrectAct,
    Evidence,
    OperationAct,
    QuestionAct,
    SetFieldAct,
)
from turnframe.providers.rules.builder import PlanBuilder
from turnframe.providers.rules.shapes import DATE, ICASE, MARKER_AT, MONEY, SHIFT
from turnframe.providers.rules.split import sentences
from turnframe.providers.rules.vague import (
    estimate_words,
    partial_words,
    placeholder_in,
    vague_date_words,
    vague_value,
    vague_words,
)
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.reading.numbers import NUMBER_WORDS, with_digits
from turnframe.workflow import ParseContext

Span = tuple[int, int]

#: A share of what a value could be: "half", "the rest", "all of it" stand for a value.
_PORTION = re.compile(
    r"(?<!\w)(?:half|halves|quarter|third|full|whole|entire|rest|remaining|remainder|all"
    r"|double|twice|triple|percent|per\s*cent|part|portion|less|more)(?!\w)|%",
    ICASE,
)
#: Where the sentence holding unexplained words opens: a correction marker after it amends.
_SENTENCE_OPEN = re.compile(r"[;.!?\n()]")
#: How far back a marker in front of unexplained words is looked for.
_MARKER_REACH = 40
#: Words that turn a request around.
_NEGATION = re.compile(
    r"(?<!\w)(?:not|no|never|nothing|none|without|instead|unless|except|cannot|can'?t"
    r"|\w+n['\u2019]t|dont|wont|cant)(?!\w)",
    ICASE,
)
#: Words that take back or replace what came before, wherever they stand.
_CORRECTING = re.compile(
    r"(?<!\w)(?:actually|scratch|scrap|oops|i\s+mean[t]?|rather|wait|correction|sorry"
    r"|second\s+thoughts?|make\s+(?:it|that)|change\s+(?:it|that)|was\s+right|typo"
    r"|my\s+(?:bad|mistake))(?!\w)",
    ICASE,
)
#: A value that could be an argument: a number (digits or words, never a lone "one"), an
#: amount, a currency.
_VALUE = re.compile(
    rf"\d|[€$£]|(?<!\w)(?:(?!one\b){NUMBER_WORDS.pattern}|euros?|eur|dollars?|pounds?|cents?"
    r"|grand|million|billion|a\s+half\s+k)(?!\w)",
    ICASE,
)
#: Words that say the negation is about the request: "don't do it", "not that one".
_ABOUT_THE_REQUEST = re.compile(
    r"(?<!\w)(?:do|it|that|this|them|those|anything|any|change|touch|yet|now|today)(?!\w)",
    ICASE,
)
#: Politeness that holds a negation or an apology without meaning one.
_POLITE = re.compile(
    r"(?<!\w)(?:if\s+it'?s\s+not\s+too\s+much\s+(?:trouble|bother|to\s+ask)"
    r"|sorry\s+to\s+(?:bother|trouble|ask|disturb)(?:\s+you)?(?:\s+again)?|no\s+(?:problem|worries|rush|hurry)"
    r"|(?:i\s+)?(?:don'?t|do\s+not)\s+mind|not\s+urgent|when(?:ever)?\s+you\s+(?:get\s+a\s+chance"
    r"|can|have\s+(?:a\s+)?(?:moment|minute|time))|if\s+(?:you\s+can|possible|at\s+all\s+possible))(?!\w)",
    ICASE,
)
#: What is left of a reference to a record once its name is taken out.
_RECORD_REF = re.compile(
    r"(?<!\w)(?:\d{3,}|#|n[°º]|no\.?|nr\.?|number|for|on|of|in|to|about|regarding|the|my|our"
    r"|this|that|id|ref|reference|ref\.|code|nr)(?!\w)",
    ICASE,
)
#: Words that take the certainty out of a request: it waits for a card.
_HEDGE = re.compile(
    r"(?<!\w)(?:not\s+sure|unsure|maybe|perhaps|probably|i\s+guess|(?:i\s+)?don'?t\s+know"
    r"|no\s+idea|or\s+(?:maybe|perhaps|so)|either|roughly|approximately|something\s+like|ish"
    r"|(?:around|about)(?=\s+(?:[€$£]\s?)?\d))(?!\w)",
    ICASE,
)
#: Words that change what a value next to them means: the value is asked for again.
_QUALIFIER = re.compile(
    r"(?<!\w)(?:except|minus|plus|less|more|other\s+than|apart\s+from|besides|without"
    r"|on\s+top|in\s+total|total|additional|double|twice)(?!\w)",
    ICASE,
)
#: Words that make a request depend on something the reading did not take as a condition.
_UNREAD_CONDITION = re.compile(
    r"(?<!\w)(?:if|unless|until|provided|as\s+soon\s+as|only\s+(?:if|after|when|once|once)"
    r"|(?:after|when|once|before)\s+(?:he|she|they|i|we|you|it|the\s+\w+)\s+\w+)(?!\w)",
    ICASE,
)
_ONE_MORE = re.compile(r"(?<!\w)(?:one|another|the\s+same)\s+(?:for|with|to|on)(?!\w)", ICASE)
#: A value that is only a verdict on the field ("the note is wrong"): not a new value.
_VERDICT_ONLY = re.compile(
    r"(?:(?:still|all|completely|totally|just|so|very|really|not)\s+)*(?:wrong|incorrect"
    r"|outdated|old|missing|empty|blank|fine|ok|okay|correct|right|good|bad|broken|weird"
    r"|strange|off|out\s+of\s+date|a\s+mess|messed\s+up)[.!]*",
    ICASE,
)
#: At most this many words around a value: the words are the value ("€", "40 euros", "70").
_BARE_VALUE_WORDS = 3
#: Words that refer back or point elsewhere: a free-text value holding one is not just a name.
_ANAPHOR = re.compile(
    r"(?<!\w)(?:it|its|them|those|these|this|that|they|one|ones|more|same|he|she|him|her"
    r"|herself|himself|themselves|myself|us|me|you|pays?|paid|paying|is|are|was|were|be|again"
    r"|will|would|should|can|could|please|also|too|then|and|or|but|if|when|until|so)(?!\w)",
    ICASE,
)
#: Punctuation inside a free-text value that says more than one thing was said.
_SEPARATOR = re.compile(
    r"[,;:?!+&/\n()\u2014\u2013]|\s-\s|(?<!\w)x\s?\d|\d\s?x(?!\w)"
    r"|[\"\u201d\u2019'](?=\s)"  # a quote closing inside the value: more words follow it
)
#: After a comma in a text, what starts another request rather than more of the text: a
#: joining word ("…, and on 1002 …"), a record's number, or a count of something.
_ANOTHER_AFTER_COMMA = re.compile(
    r"^,\s*(?:and|but|also|plus|then|or|as\s+well)(?!\w)|(?<![\w.])#?\d{3,}(?![\w.])"
    r"|(?<![\w.:])\d+\s+(?!(?:am|pm|h|hrs?|hours?|minutes?|mins?|days?|weeks?|o['\u2019]clock"
    r"|people|persons?|adults?|kids|children|guests?)\b)[a-z]",  # "…, 2 towels": an object
    ICASE,
)
#: ... in a text (a note), where a comma belongs to the text itself.
_SENTENCE_SEPARATOR = re.compile(
    r"[;:?!+&/\n()\u2014\u2013]|\s-\s|(?<!\w)x\s?\d|\d\s?x(?!\w)|[\"\u201d\u2019'](?=\s)"
)
#: A free-text value that opens by counting itself ("second pass", "another bag",
#: "additional seat"): a count or an ordinal was read as part of the name.
_COUNTED = re.compile(
    r"(?:(?:a|an|the|one)\s+)?(?:second|third|fourth|fifth|another|additional|further"
    r"|more|other|next|2nd|3rd|4th|5th)(?!\w)",
    ICASE,
)
_QUOTED = re.compile(r"[\"\u201c\u2018'][^\"\u201d\u2019']+[\"\u201d\u2019']")
_FOR_SOMEONE = re.compile(
    r"(?<!\w)(?:for|by|with)\s+(?:(?-i:[A-Z])\w*|(?:everyone|everybody|all|each|both|the\s+group"
    r"|the\s+kids|the\s+children|the\s+family|(?:my|our|his|her|their)\s+\w+)(?!\w))",
    ICASE,
)
#: Words for what something costs, inside the name of a thing: "pass in the amount" took the
#: start of its price for part of its name.
_PRICE_NOUN = re.compile(r"(?<!\w)(?:amount|price|cost|costs|sum|total)(?!\w)", ICASE)
#: Longer than this, an unquoted free-text value is more likely a sentence than a name.
_MAX_FREE_WORDS = 5
_DAY_ALONE = re.compile(r"(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)", ICASE)


#: "I've asked you three times": how often something was said, not a value.
_REPEATS = re.compile(
    rf"(?<!\w)(?P<said>asked|told|said|wrote|written|called|emailed|mailed|tried|requested"
    rf"|explained|mentioned|repeated)(?P<between>(?:\s+(?:you|u|it|this|that|already|now))*)\s+"
    rf"(?:\d+|{NUMBER_WORDS.pattern})\s+times(?!\w)",
    ICASE,
)


@attrs.frozen
class Doubt:
    """Why a change is held back: ``kind`` is ``value`` (its value may be wrong: ask) or
    ``card`` (show it before it runs); ``words`` are the words that raised the doubt."""

    kind: str
    words: str


def unexplained_doubt(words: str, vocab: Vocabulary) -> Doubt | None:
    """What words the reading left unexplained could change: a correction or a second value
    (the change's value is in doubt), a negation or a request word (the change is)."""
    correcting = MARKER_AT.match(words) or _CORRECTING.search(words)
    if vague_words(words) is not None or vague_value(words):  # "a fair amount", "something"
        return Doubt("value", words)
    amended = correcting or _HEDGE.search(words)  # "actually only half", "maybe just half"
    value = _VALUE.search(_REPEATS.sub(" ", words)) or (amended and _PORTION.search(words))
    if _HEDGE.search(words):  # "or maybe 1600": the value is in doubt; "not sure": the change
        return Doubt("value" if value else "hedge", words)
    named = vocab.operation_regex.search(words) or re.search(
        rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", words, ICASE
    )
    if value and (correcting or len(words.split()) <= _BARE_VALUE_WORDS):
        return Doubt("value", words)
    if correcting or value or named:
        return Doubt("card", words)
    about = _ABOUT_THE_REQUEST.search(words) or _QUALIFIER.search(words)
    if _NEGATION.search(words) and about:
        return Doubt("card", words)
    if _UNREAD_CONDITION.search(words):  # "but only after he confirms": a condition not read
        return Doubt("card", words)
    if _ONE_MORE.search(words):  # "and one for Pedro": a second object the reading missed
        return Doubt("card", words)
    return None


def free_text_doubt(value: str, vocab: Vocabulary, *, sentence: bool = False) -> str | None:
    """Why a free-text value (an item, a note) may hold more than the value: the words that
    make it doubtful, or None. A value the user quoted is taken as written. A ``sentence``
    value (a field's text, such as a note) may hold numbers, pronouns and any length."""
    stripped = value.strip()
    if _QUOTED.fullmatch(stripped):
        return None
    for pattern in (
        _NEGATION,
        _CORRECTING,
        _SENTENCE_SEPARATOR if sentence else _SEPARATOR,
        MARKER_AT,
    ):
        m = pattern.search(stripped)
        if m is not None:
            return m.group(0)
    if sentence and "," in stripped:
        # "arriving late, super tired": a comma inside a text is the text's own, unless what
        # follows it names one of the workflow's requests or fields (a second request).
        after = stripped[stripped.index(",") :]
        m = (
            vocab.operation_regex.search(after)
            or re.search(rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", after, ICASE)
            or _ANOTHER_AFTER_COMMA.search(after)
        )
        if m is not None:
            return m.group(0)
    if not sentence:
        counted = _COUNTED.match(stripped)
        if counted is not None:  # "second pass": how many, said inside what
            return counted.group(0)
        placeholder = placeholder_in(stripped)
        if placeholder is not None:  # "a tour for someone": who or what is not said
            return placeholder
        for_someone = _FOR_SOMEONE.search(stripped)
        if for_someone is not None:  # "city card for Ana": who it is for is not what it is
            return for_someone.group(0)
        for pattern in (_VALUE, _ANAPHOR, _HEDGE, _PRICE_NOUN):
            m = pattern.search(stripped)
            if m is not None:
                return m.group(0)
    m = vocab.operation_regex.search(stripped) or re.search(
        rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", stripped, ICASE
    )
    if m is not None and not sentence:
        return m.group(0)
    if not sentence and len(stripped.split()) > _MAX_FREE_WORDS:
        return stripped
    return None


def vague_date(value: str, today: date | None = None) -> bool:
    """ "next week", "the weekend", "sometime in March": a span, not a day; and a day alone
    ("the 20th") that this month has already passed: which month is meant is not said. A
    move by a said number of days ("two days later") is exact, not vague."""
    if SHIFT.fullmatch(value.strip()) is not None:
        return False
    if vague_date_words(value) is not None:
        return True
    day = _DAY_ALONE.fullmatch(value.strip())
    return today is not None and day is not None and int(day.group("d")) < today.day


def _vague_date_field(act: SetFieldAct, vocab: Vocabulary) -> bool:
    """A date field set to a span or an estimate ("early April", "around the 10th", "next
    week"), or another typed field set to an estimate ("around 2k", "2000-ish"): the value
    is asked for, never picked and never refused."""
    field = vocab.workflow.field(act.field)
    if field is None or field.type is str or not act.value.strip():
        return False
    if "date" in str(field.type):  # a day alone this month has passed is left to a card
        exact = SHIFT.fullmatch(act.value.strip()) is not None
        return not exact and vague_date_words(act.value) is not None
    return estimate_words(act.value) is not None


_NUMERAL = re.compile(r"\d")


def _foreign_amount(act: SetFieldAct, vocab: Vocabulary, ctx: ParseContext | None) -> bool:
    """A field's value said as an amount of money its parser refuses ("£900" for a field in
    euros), or a number its parser refuses for a field that holds no date ("2-3k", "max 2k",
    "2k or 3k"): another currency, a range or a bound is asked about, never converted and
    never refused outright."""
    field = vocab.workflow.field(act.field)
    if field is None or ctx is None or field.type is str:
        return False
    said = act.value.strip().rstrip(".!?")
    if MONEY.fullmatch(said) is None and ("date" in str(field.type) or not _NUMERAL.search(said)):
        return False
    try:
        field.parse(act.value, ctx)
    except ValueError:
        return True
    return False


def vet(
    plan: PlanBuilder,
    vocab: Vocabulary,
    *,
    mentions: Callable[[int, int], set[str]] = lambda s, e: set(),
    today: date | None = None,
    ctx: ParseContext | None = None,
) -> None:
    """Hold back every change of ``plan`` the reading cannot vouch for (see the module).
    ``mentions`` names the cases a span of the text mentions: unexplained words about another
    case, with no correction in them, are another request, not a doubt about this one.

    Linear in the turn: each act and each unexplained span is looked at once, and a span is
    weighed against at most a few changes next to it in its sentence."""
    text = plan.text
    cancelled = plan.cancelled()
    for index, act in enumerate(list(plan.acts)):
        if index in cancelled or isinstance(act, CancelAct):
            continue
        if isinstance(act, OperationAct) and (nothing := _asks_nothing(act, vocab)):
            span = (nothing.start, nothing.end)
            plan.add(CancelAct(cancels=index, evidence=plan.evidence(span)))
            cancelled.add(index)  # "scratch that, pay back nothing": asked not to happen
            continue
        if isinstance(act, OperationAct):
            placeless = _vague_args_asked(act, vocab)
            if placeless is not None:  # "add some stuff", "pay a fair amount": ask, never guess
                plan.acts[index] = act = placeless
            dated = _vague_date_asked(act, vocab, today)
            if dated is not None:  # "move the visit sometime next month": ask the date
                plan.acts[index] = act = attrs.evolve(act, args=dated, confirm=True)
        if isinstance(act, SetFieldAct) and _foreign_amount(act, vocab, ctx):
            plan.acts[index] = attrs.evolve(act, value="")  # "£900" for euros: asked for
            continue
        if isinstance(act, SetFieldAct) and _vague_date_field(act, vocab):
            plan.acts[index] = attrs.evolve(act, value="")  # "sometime in March": asked for
            continue
        vague = isinstance(act, SetFieldAct) and vague_value(act.value)
        if isinstance(act, SetFieldAct) and vague and not _quoted_in(text, act.value, act.evidence):
            plan.acts[index] = attrs.evolve(act, value="")  # an empty value is asked for
            continue
        if isinstance(act, OperationAct) and not act.confirm:
            earlier = next(
                (
                    a
                    for a in reversed(plan.acts[:index])
                    if isinstance(a, OperationAct) and a.operation == act.operation
                ),
                None,
            )
            unsure = _operation_doubt(act, vocab, today) or _name_for_what(act, vocab, earlier)
            if unsure:
                plan.acts[index] = attrs.evolve(act, confirm=True)
        elif isinstance(act, SetFieldAct) and not act.confirm:
            quoted = _quoted_in(text, act.value, act.evidence)
            if not quoted and _field_doubt(act.field, act.value, vocab, today):
                plan.acts[index] = attrs.evolve(act, confirm=True)
        elif isinstance(act, CorrectAct):
            root = plan.acts[plan.root(index)]
            unsure = (
                isinstance(root, SetFieldAct)
                and not root.confirm
                and not _quoted_in(text, act.value, act.evidence)
                and _field_doubt(root.field, act.value, vocab, today)
            )
            if unsure and isinstance(root, SetFieldAct):
                plan.acts[plan.root(index)] = attrs.evolve(root, confirm=True)
    near = _Neighbourhood.of(plan, sentences(text))
    # A question about nothing the workflow answers ("… 20 euros... hmm, 22?") is weighed
    # like words nothing read: a value in it may be the change's.
    spans = [(ev, False) for ev in plan.unread] + [
        (ev, True)
        for act in plan.acts
        if isinstance(act, QuestionAct) and act.question is None
        for ev in act.evidence
    ]
    for unread, asked in spans:
        words = _said(text, unread.start, unread.end, mentions, vocab.record_nouns)
        # "…, actually only half": the marker the reading took off still amends.
        marked = _marker_before(plan, unread.start) if words else ""
        words = marked + words
        if words and _RETRACTION.fullmatch(words):
            _take_back_before(plan, unread, cancelled)  # "…, well not really"
            continue
        doubt = unexplained_doubt(words, vocab) if words else None
        if words and _NEGATES_NEXT.search(words) and _starts_a_value(plan, unread.end):
            doubt = Doubt("value", words)  # "pay 1001 back, but not the full amount": ask
        if doubt is None:
            continue
        # "submit it? not sure", "20 euros… hmm, 22?", "… full amount. Actually only part":
        # the sentence before counts too.
        reach_back = doubt.kind == "hedge" or asked or bool(marked)
        changes = [i for i in near.changes(unread.start, reach_back) if i not in cancelled]
        corrects = bool(_CORRECTING.search(words) or MARKER_AT.match(words) or _HEDGE.search(words))
        if corrects and not _VALUE.search(words) and near.corrected(unread.start, reach_back):
            continue  # "scrap that", "wait": the marker of a correction the reading made
        elsewhere = mentions(unread.start, unread.end)
        if elsewhere and not corrects:
            changes = [i for i in changes if _label_of(plan, i) in elsewhere]
        if not corrects:
            # a condition said inside a change's own words holds it ("… 'VIP' unless …")
            inside = _CONDITION_OPENS.match(words) is not None
            changes = [
                i
                for i in changes
                if _named_here(plan.acts[i], words, vocab)
                or (inside and _within(plan.acts[i], unread))
            ]
        if not corrects and _only_values_or_requests(words):
            # "raise the price to 20 euros and set the note to 'x'": a value quoted is
            # taken as written; other words' numbers or requests never change it
            changes = [i for i in changes if not _quoted_change(plan, i)]
        if not changes:
            continue
        if not corrects and _count_restated(plan, changes, words):
            continue  # "We are 2 persons, please add for us 2 museum tickets": the same 2
        if not corrects and _dated_context(plan, changes, words, unread, vocab):
            continue  # "we land on the 12th and … so can you add a tour": when, not what
        numbered = any(plan.notes[i].numbers for i in changes)
        narrowed = _QUALIFIER.search(words) or (_NEGATION.search(words) and _PORTION.search(words))
        if doubt.kind == "card" and narrowed and (numbered or _lacks_typed(plan, changes, vocab)):
            doubt = Doubt("value", words)  # "pay everything except 20 euros", "not all": ask
        if doubt.kind == "value":
            if not _could_be_value_of(plan, changes, words, vocab):
                for i in changes:  # a date nothing takes: not a value to ask, but a card
                    _hold(plan, i)
                continue
            before = [i for i in changes if _start(plan, i) < unread.start]
            chosen = before[-1] if before else changes[0]
            if _doubt_value(plan, chosen, words, vocab, corrected=chosen in near.corrected_roots):
                cancelled.add(chosen)
        for i in changes:
            _hold(plan, i)


def _marker_before(plan: PlanBuilder, start: int) -> str:
    """A correction marker shortly before ``start`` in its sentence that no act read (with
    the words after it), or nothing: words after "actually only", "hmm sorry," amend."""
    lo = max(0, start - _MARKER_REACH)
    lead = plan.text[lo:start]
    opens = list(_SENTENCE_OPEN.finditer(lead))
    if opens:
        lo += opens[-1].end()
        lead = plan.text[lo:start]
    lead = _POLITE.sub(lambda m: " " * len(m.group(0)), lead)
    m = _CORRECTING.search(lead) or MARKER_AT.search(lead)
    if m is None:
        return ""
    at = lo + m.start()
    read = any(ev.start <= at < ev.end for act in plan.acts for ev in getattr(act, "evidence", ()))
    amends = any(  # a marker amends a change said before it, never one after it
        act.evidence and act.evidence[0].start < at
        for act in plan.acts
        if isinstance(act, OperationAct | SetFieldAct | CorrectAct)
    )
    return f"{lead[m.start() :].strip()} " if amends and not read else ""


@attrs.define
class _Neighbourhood:
    """Where the turn's changes stand, so unexplained words find the few next to them."""

    sentence_starts: list[int]
    change_starts: list[int]  # first evidence start of each change root, in text order
    change_roots: list[int]
    change_sentences: list[int]
    corrected_sentences: set[int]
    corrected_roots: set[int]

    #: How many changes on each side of unexplained words they may be about.
    REACH: ClassVar[int] = 3

    @classmethod
    def of(cls, plan: PlanBuilder, bounds: list[tuple[int, int, bool]]) -> _Neighbourhood:
        starts = [b[0] for b in bounds]

        def sentence(at: int) -> int:
            return max(bisect.bisect_right(starts, at) - 1, 0)

        first: dict[int, int] = {}
        corrected_sentences: set[int] = set()
        corrected_roots: set[int] = set()
        for index, act in enumerate(plan.acts):
            if isinstance(act, CancelAct | CorrectAct):
                corrected_sentences.update(sentence(ev.start) for ev in act.evidence)
            if isinstance(act, CorrectAct):
                corrected_roots.add(plan.root(index))
            if isinstance(act, SetFieldAct | OperationAct | CorrectAct) and act.evidence:
                root = plan.root(index)
                at = min(ev.start for ev in act.evidence)
                first[root] = min(first.get(root, at), at)
        ordered = sorted(first.items(), key=lambda item: (item[1], item[0]))
        return cls(
            sentence_starts=starts,
            change_starts=[at for _, at in ordered],
            change_roots=[root for root, _ in ordered],
            change_sentences=[sentence(at) for _, at in ordered],
            corrected_sentences=corrected_sentences,
            corrected_roots=corrected_roots,
        )

    def _sentence(self, at: int) -> int:
        return max(bisect.bisect_right(self.sentence_starts, at) - 1, 0)

    def changes(self, at: int, reach_back: bool) -> list[int]:
        """The changes next to position ``at`` in its sentence (and the one before)."""
        here = self._sentence(at)
        lowest = here - 1 if reach_back else here
        middle = bisect.bisect_right(self.change_starts, at)
        window = range(
            max(0, middle - self.REACH), min(len(self.change_starts), middle + self.REACH)
        )
        sentences_of = self.change_sentences
        return [self.change_roots[k] for k in window if lowest <= sentences_of[k] <= here]

    def corrected(self, at: int, reach_back: bool) -> bool:
        here = self._sentence(at)
        return here in self.corrected_sentences or (
            reach_back and here - 1 in self.corrected_sentences
        )


def _said(
    text: str,
    start: int,
    end: int,
    mentions: Callable[[int, int], set[str]],
    nouns: str,
) -> str:
    """The unexplained words without politeness, and nothing if they only name a record
    ("order 1001", "for order N° 1001"): a record named is explained."""
    words = _POLITE.sub(" ", text[start:end])
    if mentions(start, end):
        bare = _RECORD_REF.sub(" ", words)
        bare = re.sub(rf"(?<!\w)(?:{nouns})s?(?!\w)", " ", bare, flags=ICASE)
        if not bare.strip(" \t\n,.;:!?()-\u2013\u2014"):
            return ""
    return words.strip()


def _named_here(act: object, words: str, vocab: Vocabulary) -> bool:
    """Whether unexplained words that name an operation or a field could be about ``act``:
    words naming another operation or field are another request ("and no X today"), left
    not understood without doubting this change."""
    named_ops = {vocab.operation_named(m.group(0)) for m in vocab.operation_regex.finditer(words)}
    named_fields = {
        vocab.field_named(m.group(0))
        for m in re.finditer(rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", words, ICASE)
    }
    if not named_ops and not named_fields:
        return True
    if isinstance(act, OperationAct):
        return act.operation in named_ops
    if isinstance(act, SetFieldAct):
        return act.field in named_fields
    return True


#: Words that take back what was just asked, on their own: "not really", "just kidding".
_RETRACTION = re.compile(
    r"(?:(?:well|hmm+|uh|oh|ok(?:ay)?|actually|no)[\s,.]+)*(?:not\s+really|(?:just\s+)?kidding"
    r"|only\s+joking|j/?k|i\s+was\s+joking|no\s+no|actually\s+no|on\s+second\s+thoughts?\s+no"
    r"|(?:i\s+)?changed\s+my\s+mind)[\s,.!]*"
    r"(?:(?:i\s+was\s+|i'?m\s+|i\s+am\s+)?(?:just|only)\s+(?:asking|checking|curious|wondering))?"
    r"[\s,.!]*",
    ICASE,
)
#: An operation asked to do nothing: "pay back nothing", "add none".
_NOTHING = re.compile(r"\s+(?:me\s+|us\s+)?(?P<none>nothing|none|zero|not\s+anything)(?!\w)", ICASE)


def _take_back_before(plan: PlanBuilder, words: Evidence, cancelled: set[int]) -> None:
    """Cancel the latest change said before ``words`` (which take it back)."""
    for index in range(len(plan.acts) - 1, -1, -1):
        act = plan.acts[index]
        root = plan.root(index)
        if root in cancelled or not isinstance(act, OperationAct | SetFieldAct | CorrectAct):
            continue
        if act.evidence and act.evidence[0].start < words.start:
            plan.add(CancelAct(cancels=root, evidence=(words,)))
            cancelled.add(root)
            return


def _asks_nothing(act: OperationAct, vocab: Vocabulary) -> Evidence | None:
    """The words where the operation is asked to do nothing ("pay back nothing"), if any."""
    for ev in act.evidence:
        for m in vocab.operation_regex.finditer(ev.text):
            if vocab.operation_named(m.group(0)) != act.operation:
                continue
            nothing = _NOTHING.match(ev.text, m.end())
            if nothing is not None:
                start, end = ev.start + nothing.start("none"), ev.start + nothing.end()
                return Evidence(start=start, end=end, text=nothing.group("none"))
    return None


#: A negation at the end of unexplained words: it negates what follows them.
_NEGATES_NEXT = re.compile(r"(?<!\w)(?:not|never|anything\s+but|except)\s*$", ICASE)


def _starts_a_value(plan: PlanBuilder, at: int) -> bool:
    """Whether an argument value of one of the plan's operations follows ``at`` closely."""
    after = plan.text[at : at + 40].lstrip(" ,")
    for act in plan.acts:
        if isinstance(act, OperationAct):
            for value in act.args.values():
                if value.strip() and after.casefold().startswith(value.strip().casefold()):
                    return True
    return False


def _lacks_typed(plan: PlanBuilder, changes: list[int], vocab: Vocabulary) -> bool:
    """Whether one of the operations lacks a typed argument (a proposal may stand in)."""
    for index in changes:
        act = plan.acts[index]
        if isinstance(act, OperationAct):
            op = vocab.workflow.operation(act.operation)
            if op is not None and any(
                (a.type is not str or a.choices) and a.name not in act.args for a in op.arguments
            ):
                return True
    return False


#: Words that open with a condition: "unless it was paid", "only if he agrees".
_CONDITION_OPENS = re.compile(
    r"\s*(?:but\s+)?(?:only\s+)?(?:if|unless|provided|as\s+long\s+as|in\s+case)(?!\w)", ICASE
)


def _within(act: object, unread: Evidence) -> bool:
    """Whether ``unread`` lies inside the words ``act`` cites."""
    evidence = getattr(act, "evidence", ())
    return any(ev.start <= unread.start and unread.end <= ev.end for ev in evidence)


def _only_values_or_requests(words: str) -> bool:
    """Words whose only doubt is a value or a request of their own: no negation, condition,
    hedge, vague amount or second object in them."""
    return not (
        _NEGATION.search(words)
        or _UNREAD_CONDITION.search(words)
        or _HEDGE.search(words)
        or _ONE_MORE.search(words)
        or vague_words(words) is not None
        or vague_value(words)
        or MARKER_AT.match(words)
    )


def _quoted_change(plan: PlanBuilder, index: int) -> bool:
    """Whether act ``index`` sets a field to a value the user quoted."""
    act = plan.acts[index]
    return isinstance(act, SetFieldAct) and _quoted_in(plan.text, act.value, act.evidence)


#: "we are 2 persons", "there will be three of us": how many people, said alone.
_WE_ARE = re.compile(
    rf"(?:we|there)\s+(?:are|will\s+be|'re)\s+(?P<n>\d+|{NUMBER_WORDS.pattern})"
    r"(?:\s+(?:people|persons|adults|guests|travell?ers|of\s+us))?[\s,.!]*",
    ICASE,
)


def _count_restated(plan: PlanBuilder, changes: list[int], words: str) -> bool:
    """Words that only say how many people there are, a number one of the changes already
    holds as a count: the same number said twice, not a second value."""
    m = _WE_ARE.fullmatch(words.strip())
    if m is None:
        return False
    said = with_digits(m.group("n").casefold())
    for i in changes:
        act = plan.acts[i]
        held = act.args.values() if isinstance(act, OperationAct) else ()
        if said in {with_digits(str(v).casefold()) for v in held}:
            return True
    return False


def _dated_context(
    plan: PlanBuilder, changes: list[int], words: str, unread: Evidence, vocab: Vocabulary
) -> bool:
    """Words before every change they could doubt, whose only value is a date none of those
    changes takes, with no negation and none of the workflow's words: they say when things
    happen around the request, not what it is."""
    if not DATE.search(words) or _could_be_value_of(plan, changes, words, vocab):
        return False
    if any(_start(plan, i) < unread.end for i in changes):
        return False
    rest = DATE.sub(" ", words)
    named = vocab.operation_regex.search(rest) or re.search(
        rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", rest, ICASE
    )
    return not (_VALUE.search(rest) or _NEGATION.search(rest) or _HEDGE.search(rest) or named)


def _could_be_value_of(
    plan: PlanBuilder, changes: list[int], words: str, vocab: Vocabulary
) -> bool:
    """A date among the words is a value only for a change that takes a date; other values
    (numbers, amounts) may be any typed argument's."""
    if not DATE.search(words) or MONEY.search(words):
        return True
    for index in changes:
        act = plan.acts[index]
        if isinstance(act, OperationAct):
            op = vocab.workflow.operation(act.operation)
            if op is not None and any("date" in str(a.type) for a in op.arguments):
                return True
        elif isinstance(act, SetFieldAct):
            field = vocab.workflow.field(act.field)
            if field is not None and "date" in str(field.type):
                return True
    return False


_VAGUE_PHRASE = re.compile(
    r"(?:\s+(?:to|for|on|in|at|by))?\s*(?:(?:some\s*time|sometime)\s+)?(?:(?:in|during)\s+)?"
    r"(?:(?:next|this)\s+(?:week|month|year)|(?:the\s+)?weekend|(?:some\s*time|sometime)"
    r"(?:\s+in\s+\w+)?|later|earlier|whenever(?:\s+\w+){0,2})\s*$",
    ICASE,
)


def _vague_date_asked(
    act: OperationAct, vocab: Vocabulary, today: date | None
) -> dict[str, str] | None:
    """An operation's date said as a span ("next month", "the weekend", "sometime in March"),
    in its own argument or left at the end of another: the date is asked for (its text is
    made unreadable), never picked."""
    op = vocab.workflow.operation(act.operation)
    if op is None:
        return None
    dated = next((a.name for a in op.arguments if "date" in str(a.type)), None)
    if dated is None:
        return None
    said = act.args.get(dated)
    if said is not None:
        return {**act.args, dated: f"\u2026 {said}"} if vague_date(said, today) else None
    for name, value in act.args.items():
        m = _VAGUE_PHRASE.search(value)
        if m is not None and m.start() > 0:  # "the second visit to the weekend"
            rest = value[: m.start()].strip()
            return {**act.args, name: rest, dated: f"\u2026 {m.group(0).strip()}"}
    return None


def _vague_args_asked(act: OperationAct, vocab: Vocabulary) -> OperationAct | None:
    """The act with every argument said as a placeholder ("some stuff", "a fair amount")
    asked for: a typed one is made unreadable, a required free-text one is left out (the
    reducer asks for both); an optional free-text one is left out and the act waits for a
    card. None when no argument is vague."""
    op = vocab.workflow.operation(act.operation)
    if op is None:
        return None
    args = dict(act.args)
    confirm = act.confirm
    for argument in op.arguments:
        value = args.get(argument.name)
        if value is None or not vague_value(value):
            continue
        if argument.type is not str or argument.choices:
            args[argument.name] = f"\u2026 {value}"
        else:
            del args[argument.name]
            confirm = confirm or not argument.required
    partial = partial_words(" ".join(ev.text for ev in act.evidence))
    if partial is not None:  # "pay it back partially": a proposal of the whole never stands
        for argument in op.arguments:
            if argument.propose is not None and argument.name not in args:
                args[argument.name] = f"\u2026 {partial}"
    if args == act.args:
        return None
    return attrs.evolve(act, args=args, confirm=True if confirm else act.confirm)


#: A value that is only a proper name: capitalized words.
_PROPER_NAME = re.compile(r"(?-i:[A-Z][\w'\u2019-]*)(?:\s+(?-i:[A-Z][\w'\u2019-]*)){0,3}")


_SAME_FOR = re.compile(r"(?<!\w)same\s+(?:again\s+)?(?:for|with|to)\s", ICASE)


def _name_for_what(act: OperationAct, vocab: Vocabulary, earlier: OperationAct | None) -> bool:
    """An act that inherits its operation (no word of it in its own words: "same for
    Joana") with a bare name where the act it follows held something else than a name, or
    with names in two free-text arguments: which argument the name replaces (who, or what)
    is not said. A card shows what would run."""
    op = vocab.workflow.operation(act.operation)
    if op is None or any(vocab.operation_regex.search(ev.text) for ev in act.evidence):
        return False
    free = [a.name for a in op.arguments if a.type is str and not a.choices]
    named = [n for n in free if _PROPER_NAME.fullmatch(act.args.get(n, "").strip())]
    if len(named) >= 2:
        return True
    before = {} if earlier is None else earlier.args
    if any(before.get(n) and not _PROPER_NAME.fullmatch(before[n].strip()) for n in named):
        return True
    said = " ".join(ev.text for ev in act.evidence)
    for_whom = _SAME_FOR.search(said)
    if for_whom is None or earlier is None:
        # With no earlier act in this turn, the follow-up continues the previous turn's act:
        # the reader puts a name only where that act held a name ("paid by Pedro" → "same for
        # Sofia"), so the name's place is known.
        return False
    # "the same for my brother": who it is for, put where what it is was
    after = said[for_whom.end() :].casefold()
    return any(
        act.args.get(n) and act.args[n] != before.get(n) and act.args[n].casefold() in after
        for n in free
    )


def _operation_doubt(act: OperationAct, vocab: Vocabulary, today: date | None) -> str | None:
    op = vocab.workflow.operation(act.operation)
    if op is None:
        return None
    for argument in op.arguments:
        value = act.args.get(argument.name)
        if value is None:
            continue
        if argument.type is str and not argument.choices:
            why = free_text_doubt(value, vocab)
            if why is not None:
                return why
        elif "date" in getattr(argument.type, "__name__", "") and vague_date(value, today):
            return value
    return None


def _field_doubt(name: str, value: str, vocab: Vocabulary, today: date | None) -> bool:
    field = vocab.workflow.field(name)
    if field is None:
        return False
    if field.type is str:
        if _VERDICT_ONLY.fullmatch(value.strip()):
            return True
        if re.search(
            rf"(?<!\w)(?:on|for|of|to)\s+(?:the\s+)?(?:(?:{vocab.record_nouns})\s+)?#?\d{{3,}}\s*$",
            value,
            ICASE,
        ):
            return True  # "urgent on 1003": a record named that is not one of the user's
        return free_text_doubt(value, vocab, sentence=True) is not None
    if _HEDGE.search(value) or re.search(r"(?<!\w)or(?!\w)", value, ICASE):
        return True  # "20 March or 21 March", "maybe 1500": not one value
    if re.search(r"(?<!\w)(?:per|each|apiece|for|a\s+head)(?!\w)", value, ICASE):
        return True  # "1500 per person": a value with a unit the field does not hold
    return vague_date(value, today) and "date" in str(field.type)


def _quoted_in(text: str, value: str, evidence: tuple[Evidence, ...]) -> bool:
    """Whether the user quoted the value (looked for around the act's own evidence): quoted
    words are taken as written."""
    said = value.strip()
    if not evidence:
        return False
    start = max(0, min(ev.start for ev in evidence) - 2)
    around = text[start : max(ev.end for ev in evidence) + 2]
    if re.search(rf":\s*{re.escape(said)}\s*(?:$|[.!\n])", around):
        return True  # "note: call before noon": a value after a colon is set off like a quote
    return any(f"{o}{said}{c}" in around for o, c in _QUOTE_PAIRS)


_QUOTE_PAIRS = (('"', '"'), ("\u201c", "\u201d"), ("'", "'"), ("\u2018", "\u2019"))


def _label_of(plan: PlanBuilder, index: int) -> str | None:
    target = getattr(plan.acts[index], "target", None)
    return getattr(target, "label", None)


def _start(plan: PlanBuilder, index: int) -> int:
    act = plan.acts[index]
    evidence = getattr(act, "evidence", ())
    return evidence[0].start if evidence else -1


def _hold(plan: PlanBuilder, index: int) -> None:
    act = plan.acts[index]
    if isinstance(act, OperationAct | SetFieldAct) and not act.confirm:
        plan.acts[index] = attrs.evolve(act, confirm=True)


def _doubt_value(
    plan: PlanBuilder, index: int, words: str, vocab: Vocabulary, *, corrected: bool
) -> bool:
    """The change's value may be what the unexplained words correct: a typed argument read
    from a number, an amount or a date becomes unreadable (the reducer asks for it); a field
    change's value is asked for too, or, once corrected in the turn, the change is taken back.
    True when the change was taken back."""
    act = plan.acts[index]
    if isinstance(act, OperationAct):
        note = plan.notes[index]
        op = vocab.workflow.operation(act.operation)
        if op is None:
            return False
        typed = [a.name for a in op.arguments if a.type is not str or a.choices]
        if note.numbers:
            name = note.numbers[-1]
        else:  # the words may hold a value the act lacks: its first typed argument left,
            # else the last one it holds ("full amount, actually only half")
            held = [n for n in typed if n in act.args]
            name = next((n for n in typed if n not in act.args), held[-1] if held else "")
        if not name:
            return False
        # Unreadable from its first character: no share word ("full amount") still reads.
        before = act.args.get(name, "")
        unreadable = f"\u2026 {before} \u2026 {words}" if before else f"\u2026 {words}"
        args = {**act.args, name: unreadable}
        plan.acts[index] = attrs.evolve(act, args=args, confirm=True)
    elif isinstance(act, SetFieldAct):
        if corrected:
            last = act.evidence[-1]
            plan.add(CancelAct(cancels=index, evidence=plan.evidence((last.start, last.end))))
            return True
        plan.acts[index] = attrs.evolve(act, value="")  # an empty value is a question
    return False
