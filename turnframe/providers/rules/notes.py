"""A free-text value announced with a colon, written the way an email writes it.

    Kindly add the following note to case 1002: Customer called late. The parcel was
    not there.
    Thanks,
    Maria

The value is everything after the colon up to where the writer stops dictating it: a sign-off
("Thanks, Maria", "Best regards,"), a signature, a new paragraph, or a sentence that asks for
something else ("Also pay 10 back", "Could you …?", a sentence the reader took as a request
of its own, the writer speaking for themselves: "I'll get back to you"). A value that spans
several sentences stays whole; the sign-off is never part of it. "the following <field>", "the
<field> below" and "this <field>" announce it; with a record named before the colon ("to case
1002") the value goes on that record.

Only a text field that takes plain words (a note, a remark; never an address) is read this way,
and only over words the reader left unread: a value never swallows a request.
"""

from __future__ import annotations

import functools
import re

import attrs

from turnframe.plan import (
    Act,
    CancelAct,
    ChitchatAct,
    CorrectAct,
    OperationAct,
    SetFieldAct,
    UnnamedChangeAct,
)
from turnframe.providers.rules.actions import typed_value_ok
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.frame import closing, signature
from turnframe.providers.rules.shapes import DATE, ICASE, MONEY, TRAILING_FILLER, TRIM
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.workflow import ParseContext

Span = tuple[int, int]

#: The verbs that put a value in a field.
_VERBS = r"add|put|set|write|include|enter|attach|leave|place|record|log|append|update|make"
#: A sentence that asks for something else, or turns to another subject.
_NEW_REQUEST = re.compile(
    r"[\s\W]*(?:also|and|plus|then|oh|btw|ps|p\.s\.|please|pls|kindly|could|can|would|will"
    r"|may|should|shall|do|does|did|is|are|was|were|what|when|where|why|how|which|who"
    r"|i\s+(?:also\s+)?(?:want|need|would|'d)|we\s+(?:also\s+)?(?:want|need|would|'d)"
    r"|no\s+wait|actually|sorry|wait|thanks|thank|cheers|regards|best|kind|many|one\s+more"
    r"|another|finally|lastly|last\s+thing|separately|oh\s+and|otherwise|else|same|ditto"
    r"|likewise"
    r"|i|i['\u2019](?:ll|m|ve|d)|we['\u2019](?:ll|ve|d)|you|your|let|hope|if|let['\u2019]s|just"
    r"|that['\u2019]s\s+(?:all|it)|see|talk|speak)(?!\w)",
    ICASE,
)
#: A sentence in the writer's own voice.
_FIRST_PERSON = re.compile(
    r"[\s\W]*(?:i|me|my|mine|we|us|our|ours)(?:['\u2019](?:m|ve|ll|d|re))?(?!\w)", ICASE
)
_PAIRS = {'"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019"}
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+(?=\s|$))?")
#: The marker that opens a list's item on a new line: "3.", "b)", "-", "*", "•".
_LIST_MARK = re.compile(r"[ \t]*(?:\d{1,2}[.)]|[a-z][.)]|[-*\u2022])(?=\s|$)")


@functools.cache
def _announced(field_pattern: str) -> re.Pattern[str]:
    """ "add the following note to order 1002:", "put this note below on it:", "add a note:"."""
    return re.compile(
        rf"(?<!\w)(?P<verb>{_VERBS})(?:\s+(?:in|on))?\s+"
        r"(?:(?P<a>the\s+following)\s+)?(?:(?:this|the|a|an|my|our|one|new|short|quick|small)\s+)*"
        rf"(?P<f>{field_pattern})(?:\s+(?P<b>below|as\s+follows)|\s+here)?"
        r"(?P<owner>\s+(?:to|on|for|in|onto|into)\s+[^\n:.!?\"\u2013\u2014]{1,60}?)?"
        r"(?:\s+(?P<c>below|as\s+follows)|\s+(?:here|please))?"
        r"(?:\s+(?:to|as|to\s+say|saying|that\s+says))?"
        # After "the following" or "below" the value may follow a full stop, a line break or a
        # dash instead of a colon ("add the note below to case 1002.\n<value>").
        r"(?:\s*:|(?(a)(?:[ \t]*(?:[.]|--|[\u2013\u2014]|(?=\r?\n)))|(?(b)(?:[ \t]*(?:[.]|--|"
        r"[\u2013\u2014]|(?=\r?\n)))|(?(c)(?:[ \t]*(?:[.]|--|[\u2013\u2014]|(?=\r?\n)))|(?!x)x))))"
        r"[ \t]*(?:\r?\n[ \t]*)?",
        ICASE,
    )


def _plain_text_fields(vocab: Vocabulary) -> frozenset[str]:
    return frozenset(
        f.name
        for f in vocab.workflow.fields
        if f.type is str and (f.validate is None or f.validate("some words") is None)
    )


def _points_at_record(text: str, owner: Span, vocab: Vocabulary) -> bool:
    """ "to the case", "on it", "for this order": the record the turn is about, unnamed."""
    nouns = re.compile(rf"(?:{vocab.record_nouns})s?", ICASE)
    words = re.findall(r"[\w'\u2019]+", text[owner[0] : owner[1]].casefold())
    return all(w in _POINTING or nouns.fullmatch(w) for w in words)


_POINTING_SAID = "to on for in onto into the my our this that it its his her their your same one"
_POINTING = frozenset(_POINTING_SAID.split())


def _drop_acts_within(plan: PlanBuilder, span: Span, but: int | None) -> None:
    """Take out the acts (other than ``but``, and never one before it) whose words all lie in
    ``span``; what they read is part of a value."""
    for index in range(len(plan.acts) - 1, -1, -1):
        act = plan.acts[index]
        if index == but or (but is not None and index < but) or isinstance(act, ChitchatAct):
            continue
        if act.evidence and all(span[0] <= ev.start and ev.end <= span[1] for ev in act.evidence):
            del plan.acts[index]
            del plan.notes[index]


def _unsure(plan: PlanBuilder, index: int | None, name: str, head: Span, start: int) -> None:
    """The reader's change of the announced value waits for a card that shows it."""
    if index is None:
        return
    act = plan.acts[index]
    if isinstance(act, SetFieldAct) and act.field == name:
        plan.acts[index] = attrs.evolve(act, confirm=True)


def _left_unread(plan: PlanBuilder, text: str, value: str, start: int, end: int) -> bool:
    """Whether the words of ``text[start:end]`` after ``value`` are ones the reader left unread
    ("add this note: we come with two children aged 3 and 5 …" cut at "and")."""
    at = text.casefold().find(value.casefold(), start, end)
    if at < 0 or not value:
        return False
    rest = at + len(value)
    words = [m.span() for m in re.finditer(r"\w+", text[rest:end])]
    if not words:
        return False
    return all(
        any(ev.start <= rest + s and rest + e <= ev.end for ev in plan.unread) for s, e in words
    )


def _covered(plan: PlanBuilder, span: Span, but: int | None = None) -> bool:
    """Whether an act other than ``but`` (and other than small talk) cites words in ``span``."""
    return any(
        i != but
        and not isinstance(act, ChitchatAct)
        and any(ev.start < span[1] and span[0] < ev.end for ev in act.evidence)
        for i, act in enumerate(plan.acts)
    )


def _trim(text: str, s: int, e: int) -> Span:
    while s < e and text[s] in TRIM:
        s += 1
    while e > s and text[e - 1] in " \t\r\n,;:":
        e -= 1
    while e > s and text[e - 1] in ".!" and (e - 1 == s or text[e - 2] not in ".!"):
        e -= 1  # one final full stop is punctuation, not the value
        break
    return s, e


#: After a request's opening word, words that make it a noun of the value ("Payment to be
#: discussed", "Payment pending"), not a request.
_NOUN_AFTER = re.compile(
    r"\s*(?:to\s+be|is|was|will|has|had|pending|requested|needed|required|approved|denied|due"
    r"|agreed|promised|expected|possible|not)(?!\w)",
    ICASE,
)


def _complete_request(
    plan: PlanBuilder, text: str, span: Span, vocab: Vocabulary, but: int | None
) -> bool:
    """Whether ``text[span]`` holds a request of its own: an act the reader read there with
    every argument it needs, or one that opens the sentence with its verb ("Pay back the rest
    on 1001"). "Wants a payment for the charge", "Payment to be discussed": no argument, no verb
    first: they may be the value's own words."""
    s, e = _trim(text, *span)
    acts = [
        act
        for index, act in enumerate(plan.acts)
        if index != but
        and not isinstance(act, ChitchatAct)
        and any(ev.start < e and s < ev.end for ev in act.evidence)
    ]
    for act in acts:
        if isinstance(act, SetFieldAct):
            if act.value.strip():
                return True
        elif isinstance(act, OperationAct):
            declared = vocab.workflow.operation(act.operation)
            needed = [] if declared is None else [a.name for a in declared.arguments if a.required]
            if declared is None or all(n in act.args for n in needed):
                return True
        else:
            return True
    opens = vocab.starters.match(text, s, e)
    return opens is not None and _NOUN_AFTER.match(text, opens.end(), e) is None


def _body(
    text: str, start: int, stop: int, plan: PlanBuilder, act: int | None, vocab: Vocabulary
) -> tuple[Span, int, bool]:
    """The value's span from ``start`` (see the module docstring), how many sentences it
    holds, and whether a sentence after it that the reader took as a request may be the
    value's own words (then a card shows the value). A value in quotes ends where its quote
    closes."""
    at = start
    while at < stop and text[at] in " \t\r\n":
        at += 1
    if at < stop and text[at] in _PAIRS:
        close = text.find(_PAIRS[text[at]], at + 1, stop)
        if close < 0:
            return (start, start), 0, False
        return (at + 1, close), 1, False
    end = start
    count = 0
    unsure = False
    first_person = _FIRST_PERSON.match(text, at, stop) is not None
    for m in _SENTENCE.finditer(text, start, stop):
        s, e = m.span()
        if count > 0:
            if re.search(r"\n[ \t\r]*\n", text[end:s]):
                break  # a new paragraph
            if "\n" in text[end : s + 1] and _LIST_MARK.match(text, s):
                break  # "…: client is vegan\n3. do not submit": the next item of a list
            said = _trim(text, s, e)
            if closing(text, *said) or _NEW_REQUEST.match(text, s, e):
                break  # a sign-off, a request or a question of its own, the writer's words
            if "?" in text[s:e]:
                break
            if _FIRST_PERSON.match(text, s, e) and not first_person:
                break  # "late arrival. My train is at 23:00": the writer, not the value
            if _covered(plan, (s, e), act):
                if _complete_request(plan, text, (s, e), vocab, act):
                    break
                if any(isinstance(a, CancelAct | CorrectAct) for a in plan.acts):
                    unsure = True
                    break
                # "…: Customer called twice. Wants it paid back." read as a request with nothing
                # it needs: the words are the value's own; the value waits for a card.
                _drop_acts_within(plan, (s, e), act)
                unsure = True
        elif act is None and _covered(plan, (s, e)):
            return (start, start), 0, False
        end = e
        count += 1
    said = _trim(text, start, end)
    polite = TRAILING_FILLER.search(text, *said)
    if polite is not None and polite.start() > said[0]:
        said = _trim(text, said[0], polite.start())
    return said, count, unsure


def whole_values(
    plan: PlanBuilder,
    text: str,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
) -> None:
    """Read, in place, each value announced with a colon whole (see the module docstring)."""
    fields = _plain_text_fields(vocab)
    if not fields:
        return
    stop, _ = signature(text, vocab.words)
    for m in _announced(vocab.field_pattern).finditer(text, 0, stop):
        name = vocab.field_names.get(" ".join(m.group("f").casefold().split()))
        if name is None:
            try:
                name = vocab.field_named(m.group("f"))
            except KeyError:
                continue
        if name not in fields:
            continue
        _read_one(plan, text, vocab, targets, ctx, m, name, stop)


def _existing(plan: PlanBuilder, name: str, head: Span, start: int) -> int | None:
    """The act the reader made of this announced value, if any: that field's change, or an
    operation read from the same words ("add the following note: …" taken for an object to
    add, a word of the value taken for an operation's)."""
    gone = plan.cancelled()
    linked = {a.cancels for a in plan.acts if isinstance(a, CancelAct)}
    linked |= {a.corrects for a in plan.acts if isinstance(a, CorrectAct)}
    for index, act in enumerate(plan.acts):
        if index in gone:
            continue
        here = any(head[0] <= ev.start <= start and ev.end > start for ev in act.evidence)
        if isinstance(act, SetFieldAct) and act.field == name and here:
            return index
        if isinstance(act, OperationAct) and here and index not in linked:
            return index
    return None


def _read_one(
    plan: PlanBuilder,
    text: str,
    vocab: Vocabulary,
    targets: Targets,
    ctx: ParseContext,
    m: re.Match[str],
    name: str,
    stop: int,
) -> None:
    head = (m.start(), m.end())
    index = _existing(plan, name, head, m.end())
    if index is None and _covered(plan, head):
        return  # the words before the colon are another act's
    (v_start, v_end), sentences, unsure = _body(text, m.end(), stop, plan, index, vocab)
    if v_end <= v_start:
        return
    if unsure:
        _unsure(plan, index, name, head, m.end())
    value = text[v_start:v_end]
    declared = vocab.workflow.field(name)
    if declared is None:
        return
    try:
        declared.parse(value, ctx)
    except ValueError:
        return
    span = (m.start(), v_end)
    act: Act | None = None if index is None else plan.acts[index]
    if isinstance(act, OperationAct) and index is not None:
        owner = m.span("owner") if m.group("owner") else None
        said = targets.mentions(*owner) if owner is not None else []
        target = targets.find(*owner) if said and owner is not None else act.target
        new = SetFieldAct(
            target=target, field=name, value=value, evidence=plan.evidence(span), confirm=unsure
        )
        plan.acts[index] = new
        plan.notes[index] = Note(field=name, span=span)
    elif isinstance(act, SetFieldAct) and index is not None:
        if act.value == value:
            return
        if sentences < 2 and not _left_unread(plan, text, act.value, m.end(), v_end):
            return  # one sentence: the reader's own value stands
        said_end = max(ev.end for ev in act.evidence)
        if said_end < v_end and _covered(plan, (said_end, v_end), index):
            return  # words after what was read are another act's: the value stays as read
        if not value.casefold().startswith(act.value.casefold()[: max(1, len(act.value) // 2)]):
            return  # the reader took another value than the one after the colon
        start = min(ev.start for ev in act.evidence)
        new = attrs.evolve(act, value=value, evidence=plan.evidence((start, v_end)))
        plan.acts[index] = new
        plan.notes[index] = attrs.evolve(plan.notes[index], span=(start, v_end))
    else:
        owner = m.span("owner") if m.group("owner") else None
        said = targets.mentions(*owner) if owner is not None else []
        if owner is not None and not said and not _points_at_record(text, owner, vocab):
            return  # "add a note to the file: …": an owner the reading cannot place
        target = targets.find(*owner) if said and owner is not None else targets.default()
        new = SetFieldAct(
            target=target, field=name, value=value, evidence=plan.evidence(span), confirm=unsure
        )
        plan.add(new, Note(field=name, span=span))
        targets.remember(target)
    kept = []
    for ev in plan.unread:
        if ev.end <= span[0] or ev.start >= span[1]:
            kept.append(ev)
        elif ev.start < span[0] and text[ev.start : span[0]].strip(TRIM):
            kept.append(attrs.evolve(ev, end=span[0], text=text[ev.start : span[0]]))
    plan.unread[:] = kept


#: Words that only describe a shaped value before it: "her new address, V", "my new one: V".
_DESCRIBED_SAID = """her his their my our your the a new updated current correct proper right
    latest address one is which i.e. ie namely that it's its this"""
_DESCRIBED = frozenset(_DESCRIBED_SAID.split())


def described_values(plan: PlanBuilder, vocab: Vocabulary, ctx: ParseContext) -> None:
    """ "set the email to her new address, V": a value of a field that takes only one shape,
    said with words that only describe it: the value is the one word of that shape. The
    field's own words count as description too ("to her new email V")."""
    for index, act in enumerate(plan.acts):
        if not isinstance(act, SetFieldAct):
            continue
        declared = vocab.workflow.field(act.field)
        if declared is None or declared.type is not str or declared.validate is None:
            continue
        if typed_value_ok(vocab, act.field, "some words", ctx):
            continue  # the field takes plain words: nothing to pick out
        if typed_value_ok(vocab, act.field, act.value, ctx):
            continue
        tokens = act.value.split()
        shaped = [
            t.strip("\"'()<>[],.;:!?")
            for t in tokens
            if typed_value_ok(vocab, act.field, t.strip("\"'()<>[],.;:!?"), ctx)
        ]
        if len(shaped) != 1:
            continue
        own = {w for p, n in vocab.field_names.items() if n == act.field for w in p.split()}
        rest = [
            w
            for t in tokens
            if t.strip("\"'()<>[],.;:!?") != shaped[0]
            for w in re.findall(r"[\w.'\u2019]+", t.casefold())
        ]
        if not rest or not all(w in _DESCRIBED or w in own for w in rest):
            continue
        plan.acts[index] = attrs.evolve(act, value=shaped[0])


#: A verdict on a field's value, said where a value could stand: "the name is silly now".
_JUDGED = re.compile(
    r"(?:(?:so|really|very|a\s+bit|kind\s+of|kinda|just|totally|completely|quite|pretty|too)\s+)*"
    r"(?:silly|wrong|weird|odd|strange|outdated|out\s+of\s+date|old|bad|ugly|boring|incorrect"
    r"|off|confusing|misleading|embarrassing|awful|terrible|stupid|not\s+right|not\s+correct"
    r"|inaccurate|funny|lame|cringe|cringey|ridiculous|obsolete|stale|too\s+long|too\s+short"
    r"|no\s+good|not\s+good|rubbish|meaningless|misspelled|misspelt|broken|a\s+mess|messed\s+up)"
    r"(?:\s+(?:now|anyway|though|honestly|tbh|lol|haha|already))*",
    ICASE,
)
_SAID_IS = re.compile(r"(?:\s+(?:is|was|looks|seems|sounds|feels)|['\u2019]s)\s+", ICASE)


def judged_values(plan: PlanBuilder) -> None:
    """ "the name is silly now, can you rename it to 'V'?": a verdict on a field's value is
    never its new value. With another change of that field in the turn, the verdict is only
    what led to it (its words are that change's evidence); alone, the reducer asks what the
    value should be."""
    linked = any(isinstance(a, CancelAct | CorrectAct) for a in plan.acts)
    for index in range(len(plan.acts) - 1, -1, -1):
        act = plan.acts[index]
        if not isinstance(act, SetFieldAct) or _JUDGED.fullmatch(act.value.strip()) is None:
            continue
        said = " ".join(ev.text for ev in act.evidence)
        if _SAID_IS.search(said) is None:
            continue  # "set the note to wrong": said as the value, it is the value
        other = next(
            (
                i
                for i, a in enumerate(plan.acts)
                if i != index
                and isinstance(a, SetFieldAct)
                and a.field == act.field
                and a.target == act.target
            ),
            None,
        )
        if other is not None and not linked:
            # The verdict is why the other change is asked: its words are that change's.
            changed = plan.acts[other]
            evidence = tuple(sorted((*act.evidence, *changed.evidence), key=lambda ev: ev.start))
            plan.acts[other] = attrs.evolve(changed, evidence=evidence)
            del plan.acts[index]
            del plan.notes[index]
            continue
        plan.acts[index] = UnnamedChangeAct(
            target=act.target, about=act.field, evidence=act.evidence
        )


#: A value that only points at one said elsewhere: "set the date to that", or none at all.
_POINTER = re.compile(
    r"|(?:to\s+)?(?:that|it|this|then|the\s+same|that\s+(?:date|day|one|amount)|this\s+(?:date|day))",
    ICASE,
)
#: A wish with its value: "we want to leave in two weeks", "I'd like to go on 3 May".
_WISH = re.compile(
    r"(?<!\w)(?:i|we)(?:['\u2019]d)?\s+(?:(?:really|would|also|now|just)\s+)*(?:want|like|need|wish"
    r"|plan|hope|prefer)(?:ed)?\s+to\s+(?:[a-z]+\s+){1,3}$",
    ICASE,
)


def wished_values(plan: PlanBuilder, text: str, vocab: Vocabulary, ctx: ParseContext) -> None:
    """ "We want to leave in two weeks, please set the start date to that": a typed field's
    change said without its value (or with only "that"), and the one value of its type the
    message says as a wish ("I want to … <value>"), elsewhere than in another act's words: that
    value. A story's value ("it was on 12 March") is never taken: only a wish says the new one."""
    for index, act in enumerate(plan.acts):
        if not isinstance(act, SetFieldAct) or _POINTER.fullmatch(act.value.strip()) is None:
            continue
        declared = vocab.workflow.field(act.field)
        if declared is None or declared.type is str:
            continue
        found: dict[str, tuple[str, Span]] = {}
        for m in (*DATE.finditer(text), *MONEY.finditer(text)):
            span = m.span()
            if _covered(plan, span) or _WISH.search(text, max(0, span[0] - 60), span[0]) is None:
                continue
            said = text[span[0] : span[1]]
            try:
                value = declared.parse(said, ctx)
            except ValueError:
                continue
            found.setdefault(repr(value), (said, span))
        if len(found) != 1:
            continue
        said, span = next(iter(found.values()))
        plan.acts[index] = attrs.evolve(
            act, value=said, evidence=(*plan.evidence(span), *act.evidence)
        )
        plan.unread[:] = [ev for ev in plan.unread if not (ev.start < span[1] and span[0] < ev.end)]


__all__ = ["described_values", "judged_values", "whole_values", "wished_values"]
