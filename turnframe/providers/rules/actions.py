"""Reading a clause as an action: set a field, run an operation, or start a case.

Field phrasings (F is one of the workflow's field phrases, V the value as the user said it)::

    change|set|update|move|… the F (of X) to|as|: V     "change the due date to Friday"
    add|write|put a F: V  /  add a F saying V            "add a note: call before noon"
    the F is|should be|: V                                "the title is Spring cleaning"
    the F to V                                            "… and the note to urgent"

An operation is one of its phrases (name or alias) at the start of the clause; the rest gives
its arguments. When both read, the longer opening wins ("add a note: …" is the field even when
an operation's phrase is "add", "add an item: …" the operation).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import attrs

from turnframe.plan import LabelTarget, Target
from turnframe.policy import needs_confirmation
from turnframe.providers.rules.args import read_arguments
from turnframe.providers.rules.shapes import (
    DETERMINER,
    ICASE,
    TRAILING_FILLER,
    TRAILING_POLITENESS,
    TRIM,
)
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import GAP, Vocabulary, phrase_key
from turnframe.references import AliasMatch
from turnframe.workflow import ParseContext

Span = tuple[int, int]

_POSSESSOR = r"(?:(?:[\w-]+\s+){0,2}[\w-]+(?:'s|\u2019s)\s+)?"
_OWNER = (
    r"(?:\s+(?:of|for|on|in)\s+(?:the\s+|my\s+|our\s+)?[\w#°'\u2019.-]+"
    r"(?:\s+[\w#°'\u2019-]+){0,3})?"
)
_SET = (
    r"(?:change|set|update|modify|move|put|switch|make|correct|fix|push|postpone|reschedule"
    r"|bring\s+forward)"
)
_FIELD_FORMS = (
    rf"{_SET}\s+(?:{DETERMINER}|an?\s+)?{_POSSESSOR}(?:(?:N)\s+)?(?P<f>F){_OWNER}"
    # "change the email from a@old.pt to a@new.pt": the old value said before the new one
    r"(?:\s+from\s+(?:(?!\s(?:to|as)\s).){1,60}?(?=\s+(?:to|as)\s))?"
    r"(?:\s+(?:down|up|back))?(?:\s+(?:to|as|into|until|till)\s+|\s*[:=]\s*|\s+-\s+"
    r"|\s+(?=in\s+(?:\d+|an?|[a-z]+)\s+(?:days?|weeks?|months?)(?!\w)))",
    # "set limit 2500 €", "change limit 3000": an amount alone right after the field
    rf"{_SET}\s+(?:{DETERMINER})?(?P<f>F)"
    r"\s+(?=[€$£]?\s?\d[\d.,]*(?:\s?(?:k|€|eur|euros?))?\s*[.!]?\s*$)",
    r"(?:add(?:ing)?|writ(?:e|ing)|put(?:ting)?|set(?:ting)?|leav(?:e|ing)|includ(?:e|ing)|attach(?:ing)?|enter(?:ing)?"
    r"|log(?:ging)?|record(?:ing)?|mak(?:e|ing)|jot(?:ting)?(?:\s+down)?|drop(?:ping)?"
    r"|(?:i|we)(?:\s+would|'d|\u2019d)\s+(?:like|love)"
    r"|(?:i|we)\s+(?:want|need)|what\s+(?:i|we)\s+(?:do\s+|really\s+)?(?:need|want)\s+is)\s+"
    r"(?:(?:this|it|that)\s+(?:in|on|into|to|as)\s+)?(?:(?:a|an|the|this|one|another)\s+)?"
    r"(?P<f>F)(?:\s+(?:on|for|to|of|in)\s+[^:\"\u201c]{1,48}?)?"
    r"(?:\s*:\s*|\s+(?:saying|that\s+says|to\s+say|reading"
    r"|that(?=\s+(?:we|i|he|she|they|you|it|the|a|an|my|our|his|her|their|this)\s))"
    r"\s+|\s+-\s+"
    r"|(?<!from)(?<!\sto)(?<!\sas)\s+(?=[\"\u201c\u2018]|'(?=\w)))",
    rf"{DETERMINER}?{_POSSESSOR}(?P<f>F){_OWNER}"
    r"(?:\s+(?:is\s+now|is|are|(?:should|could|would|can)\s+(?:be|say|read)|will\s+be|becomes"
    r"|should\s+become|must\s+be"
    r"|(?:has\s+|have\s+)?changed\s+to"
    r"|reads|says|needs\s+to\s+be)\s+"
    r"|\s*(?:[:=]|->|=>|\u2192)\s*)",
    rf"{DETERMINER}?{_POSSESSOR}(?P<f>F){_OWNER}\s+(?:to|as)\s+",
    # "F [case] V" with a separator or a quoted value: "note 4711: "VIP"", "limit 1500", "and
    # a note: call back".
    rf"(?:{DETERMINER}|(?:and\s+|also\s+|plus\s+)?(?:an?|another)\s+)?"
    r"(?P<f>F)(?:\s+(?:of|for|on)?\s*[\w#-]+)?\s*(?:[:=]|->|=>|\u2192)\s*",
    # "[case] F is now V", the case named first by its number: "4711 email is now …".
    r"(?:(?:N)\s+)?#?\d{3,}(?:['\u2019]s)?\s+(?P<f>F)\s+(?:is\s+now|should\s+be|has\s+changed\s+to"
    r"|changed\s+to|must\s+be)\s+",
    # "[case] F: V", the case named first: "4711 note: call back", "Anna's limit: 1500".
    r"(?:(?:(?:N)\s+|[a-z]{2,5}\.?\s?(?=#))?#?\d{3,}|(?-i:[A-Z])[\w-]*)(?:['\u2019]s)?\s+(?P<f>F)"
    r"\s*(?:[:=]|->|=>|\u2192)\s*",
)
#: "put "customer angry" as the note on 1001": the value first, then the field.
_VALUE_FIRST = re.compile(
    r"(?:put|set|make|write|add|use)\s+"
    r"(?P<v>[\"\u201c][^\"\u201d]+[\"\u201d]|'[^']+'|\u2018[^\u2019]+\u2019)\s+(?:as|in|for|to)\s+"
    r"(?:(?:the|my|a|its)\s+)?(?P<f>F)\b.*",
    ICASE | re.DOTALL,
)
#: "wrong, it should be …": the old value disowned, then the new one.
_WRONG_THEN = re.compile(
    r"(?:(?:still|now|all)\s+)?(?:wrong|incorrect|outdated|out\s+of\s+date|old"
    r"|not\s+(?:right|correct|valid))[\s,;:.\u2013\u2014-]+(?:(?:and|but|so)\s+)?"
    r"(?:it|that|the\s+(?:new|right|correct)\s+[\w-]+)\s+(?:should|must|needs\s+to|has\s+to)"
    r"\s+(?:be|say|read)\s+(?=\S)",
    ICASE,
)
_QUOTES = {'"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019"}
#: Where a typed value may end before more words: "1,800 euros so we keep track".
_VALUE_STOP = re.compile(
    r",\s+(?=[a-z])|\s+(?:so|because|since|as|which|that|and|but|not)\s+", ICASE
)
_QUOTED = re.compile(
    r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019|(?<!\w)'(?=\w)[^']*(?<=\S)'(?!\w)"
)
#: "rename it to …" sets the workflow's field called "name" (or "title"), if it has one.
_RENAME = re.compile(
    r"(?:(?:rename|renaming|retitle|re-name)\s+(?:it|this|that|(?:the|this|that|my|our)\s+[\w-]+"
    r"|[\w-]+(?:'s)?|[\"'\u201c\u2018][^\"'\u201d\u2019]+[\"'\u201d\u2019])(?:\s+[\w-]+){0,3}?"
    r"(?:\s+from\s+[\"'\u201c\u2018][^\"'\u201d\u2019]+[\"'\u201d\u2019])?(?:\s+(?:to|as)\s+"
    r"|(?<!from)(?<!\sto)(?<!\sas)\s+(?=[\"\u201c\u2018]|'(?=\w)))"
    r"|(?:name|call)\s+(?:it|this|that|(?:the|this|that|my|our)\s+[\w-]+)"
    r"\s+(?:to\s+|as\s+)?(?=[\"'\u201c\u2018]))(?P<v>.+)",
    ICASE | re.DOTALL,
)
_START = re.compile(
    r"(?:start|open|create|begin)\s+(?:a\s+)?new\s+[\w-]+"
    r"(?:\s+(?:called|named|for|labelled|labeled)\s+(?P<label>.+))?",
    ICASE | re.DOTALL,
)
#: Verbs that, followed by a field's name, talk about that field even when an operation's
#: phrase is the same verb.
_FIELD_VERBS = frozenset({"add", "set", "change", "put", "write", "update", "include", "enter"})
_TRAILING_OWNER = r"\s+(?:for|on|of|in)\s+(?:the\s+)?$"
_LEAD_REACH = 48


@functools.cache
def _owner_lead(nouns: str) -> re.Pattern[str]:
    """Before a case's name: "on", "for my", "the", the record noun, "no.", "number", "#"."""
    return re.compile(
        r"(?:(?:on|for|of|in|to|from|with|about|regarding|re:?)\s+)?"
        r"(?:(?:the|my|our|this|that|your)\s+)?"
        rf"(?:(?:{nouns})s?\s+(?:(?:called|named)\s+)?|[a-z]{{2,5}}\.?\s?(?=#))?"
        r"(?:(?:no\.?|nr\.?|num\.?|number|id|ref\.?|reference|n°|nº)\s*:?\s*)?#?\s*$",
        ICASE,
    )


@functools.cache
def _owner_noun(nouns: str) -> re.Pattern[str]:
    """After a case's name: the noun it names (the record noun, "one")."""
    return re.compile(rf"\s+(?:{nouns}|one)s?(?!\w)", ICASE)


#: Words a request opens with, before the operation's phrase.
_REQUEST_LEAD = r"(?:(?:please|kindly|just|so|and|also|now|then|ok(?:ay)?|hi|hello)[\s,]+)*"
_REQUEST_FRAME = (
    r"(?:(?:(?:i|we)\s+)?(?:(?:only|just|really|also)\s+)?(?:(?:would|'d|\u2019d)\s+(?:like|love)"
    r"|wanted|want|need|wish|demand|expect|"
    r"ask\s+(?:for|you\s+to)|request|require)(?:\s+(?:to|you\s+to))?"
    r"|(?:can|could|may)\s+(?:i|we|you)(?:\s+(?:please|possibly|kindly|perhaps|just))*"
    r"(?:\s+(?:get|have|receive))?"
    r"|(?:is|would)\s+(?:it\s+)?(?:be\s+)?possible\s+to(?:\s+(?:get|have|make|do))?"
    r"|(?:please|kindly)\s+(?:have|get)\s+(?:it|this|that)"
    r"|(?:go\s+ahead\s+and|let'?s))"
)
_REQUEST_TAIL = r"[\s,]*(?:(?:a|an|the|my|our|me|us|full|partial|complete|some)\s+)*"
#: Words a request opens with, before the operation's phrase (possibly none).
_REQUEST = re.compile(f"{_REQUEST_LEAD}{_REQUEST_FRAME}?{_REQUEST_TAIL}", ICASE)
#: A request that is shaped like a question ("could I get a copy …?"): the frame is needed.
_ASKED_REQUEST = re.compile(f"{_REQUEST_LEAD}{_REQUEST_FRAME}{_REQUEST_TAIL}", ICASE)
#: A request shaped like a question, before a verb that sets a field ("may I add a note: …",
#: "could you please change the email to …").
_ASKED_FIELD_FRAME = re.compile(
    r"(?:(?:please|kindly|so|and|also|now|then|ok(?:ay)?|hi|hello)[\s,]+)*"
    r"(?:(?:can|could|may|would|will)\s+(?:i|we|you)|would\s+you\s+mind"
    r"|(?:is|would)\s+(?:it\s+)?(?:be\s+)?possible\s+(?:for\s+(?:you|me|us)\s+)?to)"
    r"(?:\s+(?:please|possibly|kindly|perhaps|just))*\s+(?=[a-z])",
    ICASE,
)
#: "… should be moved", "… needs to be redone": a passive before the operation's phrase.
_PASSIVE = re.compile(
    r"\s+(?:should|must|needs?\s+to|has\s+to|have\s+to|can|could|will|would|to)\s+be"
    r"(?:\s+\w+ly)?\s+$",
    ICASE,
)
#: Words standing as a heading before the operation's phrase ("X-100: repair …").
_HEADING_BEFORE = re.compile(r"[^\s,;:.!?][^,;:.!?]{0,30}?\s*(?::|->|=>|\u2192)\s*", ICASE)
_NEGATED = re.compile(r"(?<!\w)(?:not|no|never|don'?t|didn'?t|won'?t|without)(?!\w)", ICASE)
_WORDS = re.compile(r"[\w']+")


@attrs.frozen(kw_only=True)
class FieldReading:
    field: str
    value: str
    target: Target
    opening: int  # length of the words before the value: compared with an operation's phrase
    value_span: Span
    rest: Span | None = None  # words after a typed value that are not the value's


@attrs.frozen(kw_only=True)
class OperationReading:
    operation: str
    args: dict[str, str]
    numbers: tuple[str, ...]
    target: Target
    opening: int
    phrase_span: Span
    unread: tuple[Span, ...]
    unsure: bool = False  # the reading may have cut the object around a value


@attrs.frozen(kw_only=True)
class StartReading:
    label: str | None


@functools.cache
def field_forms(field_pattern: str, nouns: str = "case") -> tuple[re.Pattern[str], ...]:
    """The field phrasings above for one workflow's field phrases and record nouns ("set the
    case limit to …"), compiled once."""
    return tuple(
        re.compile(
            form.replace("(?P<f>F)", f"(?P<f>{field_pattern})").replace("(?:N)", f"(?:{nouns})")
            + r"(?P<v>.+)",
            ICASE | re.DOTALL,
        )
        for form in _FIELD_FORMS
    )


def clean_value(text: str, span: Span, aliases: Sequence[AliasMatch]) -> tuple[str, Span]:
    """The value's words (trailing politeness dropped), aliases replaced by canonical names."""
    start, end = span
    body = text[start:end]
    # After a colon the words are the value as written ("note: arrives Friday instead"); only
    # politeness at its end is dropped.
    after_colon = text[:start].rstrip().endswith(":")
    polite = (TRAILING_POLITENESS if after_colon else TRAILING_FILLER).search(body)
    if polite is not None:
        end = start + polite.start()
    while start < end and text[start] in TRIM:
        start += 1
    while end > start and text[end - 1] in TRIM:
        end -= 1
    out, at = [], start
    for alias in aliases:
        if start <= alias.start and alias.end <= end and alias.start >= at:
            out += [text[at : alias.start], alias.canonical]
            at = alias.end
    out.append(text[at:end])
    return "".join(out), (start, end)


@functools.cache
def _lone_quote(closing: str) -> re.Pattern[str]:
    return re.compile(rf"{closing}(?!\w)")


def _closing_quote(text: str, closing: str, start: int, end: int) -> int:
    """Where a quote opened before ``start`` closes; a single quote closes only where no
    letter follows it, so "it's" inside 'it's fine' does not end the value."""
    if closing not in "'\u2019":
        return text.find(closing, start, end)
    m = _lone_quote(closing).search(text, start, end)
    return -1 if m is None else m.start()


def _forms(vocab: Vocabulary) -> list[tuple[re.Pattern[str], str | None]]:
    """Each phrasing, with the field it always sets (None: the field is named in the clause)."""
    forms: list[tuple[re.Pattern[str], str | None]] = [
        (form, None) for form in field_forms(vocab.field_pattern, vocab.record_nouns)
    ]
    named = next((vocab.field_names[k] for k in ("name", "title") if k in vocab.field_names), None)
    if named is not None:
        forms.append((_RENAME, named))
    return forms


@functools.cache
def _value_first(field_pattern: str) -> re.Pattern[str]:
    return re.compile(_VALUE_FIRST.pattern.replace("(?P<f>F)", f"(?P<f>{field_pattern})"), ICASE)


@functools.cache
def _value_first_shaped(field_pattern: str) -> re.Pattern[str]:
    """ "put ana@x.pt as the contact email (for 1001)": one unquoted word first, then the
    field; read only when that field's validator takes the word and refuses plain words."""
    return re.compile(
        r"(?:put|set|make|use|add|save)\s+(?P<v>[^\s\"'\u201c\u2018]+)\s+(?:as|for|in)\s+"
        rf"(?:(?:the|my|a|its|our|his|her)\s+)?(?:new\s+)?(?P<f>{field_pattern})"
        r"(?:\s+(?:for|on|of|in)\s+[\w#.-]+(?:\s+[\w#.-]+)?)?[\s.!]*",
        ICASE,
    )


@functools.cache
def _field_then_shaped(field_pattern: str) -> re.Pattern[str]:
    """ "add my email, ana@x.pt, to order 1001": the field, one unquoted word, then the record
    after "to"; read only when that field's validator takes the word and refuses plain words
    (so "to" is where the value goes, never the start of the value)."""
    return re.compile(
        r"(?:put|set|add|save|attach|include)\s+(?:(?:the|my|a|our|his|her)\s+)?(?:new\s+)?"
        rf"(?P<f>{field_pattern})\s*[,:(]?\s*(?P<v>[^\s,\"'\u201c\u2018()]+)\s*[,)]?"
        r"\s+(?:to|on|for|in)\s+[\w#.-]+(?:\s+[\w#.-]+){0,3}[\s.!?]*",
        ICASE,
    )


@functools.cache
def _bare(field_pattern: str) -> re.Pattern[str]:
    return re.compile(
        rf"{DETERMINER}?(?P<f>{field_pattern})(?:\s+(?:of|for|on)\s+|\s+)"
        r"(?:(?P<o>#?\d{3,}|(?-i:[A-Z])[\w-]*)\s+)?(?P<v>\S.*)",
        ICASE | re.DOTALL,
    )


@functools.cache
def _set_bare(field_pattern: str) -> re.Pattern[str]:
    """ "set due date 13 march", "change email a@b.pt": a set verb, the field and its value
    with nothing between; read only when the value is typed or quoted (see below)."""
    return re.compile(
        rf"{_SET}\s+{DETERMINER}?(?P<f>{field_pattern})\s+(?!(?:to|as|on|for|of|in|at)\s)"
        r"(?P<v>\S.*)",
        ICASE | re.DOTALL,
    )


@functools.cache
def _bare_plain(field_pattern: str) -> re.Pattern[str]:
    """ "limit 1200 euros", "new email a@b.pt": the value right after the field, before any
    case is looked for."""
    return re.compile(
        rf"{DETERMINER}?(?:(?:new|updated|correct|right)\s+)?(?P<f>{field_pattern})\s+(?P<v>\S.*)",
        ICASE | re.DOTALL,
    )


#: What cannot open a field's value: a verb or a preposition ("note 1001 is wrong").
_NOT_A_VALUE_START = re.compile(
    r"(?:is|are|was|were|has|have|had|should|must|will|would|can|could|does|did|do|please"
    r"|to|on|for|of|in|at|with|and|but|or|not|no|if|when|what|why|how)(?!\w)",
    ICASE,
)


def _words_after_record(
    text: str, bare: re.Match[str], targets: Targets, vocab: Vocabulary, value: str
) -> bool:
    """ "note 1001 vip guest": a free-text field, then the record it is on, then plain words
    that name none of the workflow's fields or operations and that the field's validator
    takes: the words are the value."""
    if bare.re.groupindex.get("o") is None or bare.group("o") is None:
        return False
    field = vocab.workflow.field(vocab.field_named(bare.group("f")))
    if field is None or field.type is not str or not targets.mentions(*bare.span("o")):
        return False
    if _NOT_A_VALUE_START.match(value) or len(value.split()) > 8 or not value[0].isalnum():
        return False
    if field.validate is not None and field.validate(value) is not None:
        return False  # a field that refuses plain words (an address) takes only its own shape
    named = re.search(rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", value, ICASE)
    return named is None and vocab.operation_regex.search(value) is None


def typed_value_ok(vocab: Vocabulary, name: str, value: str, ctx: ParseContext | None) -> bool:
    """ "limit 1500", "email 4711 ana@example.com": a field and a value with no verb between
    are read only when the value is quoted, typed (a date, an amount) or accepted by a
    validator that refuses ordinary words, so plain words are never taken for a value."""
    if value[:1] in _QUOTES:
        return True
    field = vocab.workflow.field(name)
    if field is None or ctx is None:
        return False
    try:
        parsed = field.parse(value, ctx)
    except ValueError:
        return False
    if field.type is not str:
        return True
    if field.validate is None or field.validate(parsed) is not None:
        return False
    try:
        junk = field.parse("some words", ctx)
    except ValueError:
        return True
    return field.validate(junk) is not None


def _typed_prefix(vocab: Vocabulary, name: str, value: str, ctx: ParseContext | None) -> str | None:
    """The part of a value before a comma, when the whole is not a valid value of a typed or
    validated field and that part is."""
    if not _VALUE_STOP.search(value) or ctx is None or value[:1] in _QUOTES:
        return None
    field = vocab.workflow.field(name)
    if field is None or (field.type is str and field.validate is None):
        return None

    def valid(words: str) -> bool:
        try:
            parsed = field.parse(words, ctx)
        except ValueError:
            return False
        return field.validate is None or field.validate(parsed) is None

    head = _VALUE_STOP.split(value, maxsplit=1)[0].strip()
    return head if head and not valid(value) and valid(head) else None


def read_field(
    text: str,
    span: Span,
    vocab: Vocabulary,
    targets: Targets,
    aliases: Sequence[AliasMatch],
    ctx: ParseContext | None = None,
) -> FieldReading | None:
    start, end = span
    first = _value_first(vocab.field_pattern).fullmatch(text, start, end)
    if first is not None:
        value, value_span = clean_value(text, first.span("v"), aliases)
        return FieldReading(
            field=vocab.field_named(first.group("f")),
            value=value,
            target=targets.find(start, end, [value_span]),
            opening=end - start,
            value_span=value_span,
        )
    shaped = _value_first_shaped(vocab.field_pattern).fullmatch(
        text, start, end
    ) or _field_then_shaped(vocab.field_pattern).fullmatch(text, start, end)
    if shaped is not None:  # "put ana@x.pt as the contact email for 1001": a shaped value
        name = vocab.field_named(shaped.group("f"))
        value = shaped.group("v")
        if typed_value_ok(vocab, name, value, ctx) and not typed_value_ok(
            vocab, name, "some words", ctx
        ):
            return FieldReading(
                field=name,
                value=value,
                target=targets.find(start, end, [shaped.span("v")]),
                opening=end - start,
                value_span=shaped.span("v"),
            )
    for bare in (
        _set_bare(vocab.field_pattern).fullmatch(text, start, end),
        _bare_plain(vocab.field_pattern).fullmatch(text, start, end),
        _bare(vocab.field_pattern).fullmatch(text, start, end),
    ):
        if bare is None:
            continue
        name = vocab.field_named(bare.group("f"))
        value_end, rest = end, None
        closing = _QUOTES.get(text[bare.start("v")])
        if closing is not None:  # "note 'x' on the same order": the value ends at its quote
            close = _closing_quote(text, closing, bare.start("v") + 1, end)
            if close > bare.start("v") + 1:
                value_end = close + 1
                rest = (value_end, end) if text[value_end:end].strip() else None
        value, value_span = clean_value(text, (bare.start("v"), value_end), aliases)
        raw = text[bare.start("v") : value_end].strip()  # quotes and all: "note 1001 'called'"
        as_said = raw if raw[:1] in _QUOTES else value
        if value and (
            typed_value_ok(vocab, name, as_said, ctx)
            or _words_after_record(text, bare, targets, vocab, value)
        ):
            target = targets.find(start, end, [value_span])
            if rest is not None:
                tail = unnamed_owner(text, rest[0], rest[1], vocab)
                mentioned = bool(targets.mentions(rest[0], rest[1]))
                if tail is not None and tail[1] is not None and not mentioned:
                    target = tail[1]
                if mentioned or (tail is not None and not text[tail[0][1] : end].strip(TRIM)):
                    rest = None  # "… on the same order", "… on 1002": the record, explained
            return FieldReading(
                field=name,
                value=value,
                target=target,
                opening=bare.start("v") - start,
                value_span=value_span,
                rest=rest,
            )
    for form, fixed in _forms(vocab):
        m = form.fullmatch(text, start, end)
        if m is None:
            continue
        value_start, value_end = m.start("v"), end
        restated = _WRONG_THEN.match(text, value_start, end)
        if restated is not None:  # "the email is wrong, it should be …": the value said next
            value_start = restated.end()
        closing = _QUOTES.get(text[value_start]) if value_start < end else None
        if closing is not None:  # a quoted value ends at its closing quote
            close = _closing_quote(text, closing, value_start + 1, end)
            if close > value_start + 1:
                value_end = close + 1
        said = [] if closing is not None else targets.mentions(value_start, value_end)
        next_record = None
        for mention in said:  # "note on 4711: late, on 4712: no papers yet": two records
            lead = _NEXT_RECORD.search(text, value_start, mention.start)
            if lead is not None and re.match(r"\s*:", text[mention.end : value_end]):
                next_record = lead.start()
                break
        if next_record is not None and next_record > value_start:
            value_end = next_record
            said = [m for m in said if m.end <= value_end]
        if (
            said
            and not text[value_start : said[0].start].strip(TRIM)
            and (not text[said[-1].end : value_end].strip(TRIM))
        ):
            continue  # "set the email on order 1001": the record, and no value
        if said and said[-1].end == value_end:
            owner = re.search(_TRAILING_OWNER, text[value_start : said[-1].start], ICASE)
            if owner is not None:
                value_end = value_start + owner.start()
        value, value_span = clean_value(text, (value_start, value_end), aliases)
        if not value:
            continue
        cut = _typed_prefix(vocab, fixed or vocab.field_named(m.group("f")), value, ctx)
        rest = None
        after = (value_end, end) if closing is not None and value_end < end else None
        if after is not None and text[after[0] : after[1]].strip(TRIM + " .!?"):
            # "set the note to 'VIP' only if he has paid": words after the quoted value are
            # weighed, never dropped (a record named or a reason after it says nothing more)
            unnamed = unnamed_owner(text, after[0], after[1], vocab)
            named = targets.mentions(after[0], after[1]) or unnamed is not None
            if not (named and _RECORD_ONLY.fullmatch(text, *after)) and not _only_purpose(
                text, after, vocab
            ):
                rest = after
        if next_record is not None and next_record > value_start:
            rest = (next_record, end)  # the next record's own value, read as a follow-up
        if cut is not None:  # "the limit is 1000 euros, not whatever …": the value, then words
            rest = (value_span[0] + len(cut), value_span[1])
            value = cut
            value_span = (value_span[0], value_span[0] + len(cut))
            if _only_purpose(text, rest, vocab):
                rest = None  # "… so I actually get your replies": why, not what
        outside = [(value_span[0], end)] if value_end == end else [value_span]
        unnamed = unnamed_owner(text, start, value_start, vocab)
        target = targets.find(start, end, outside)
        if unnamed is not None and not targets.mentions(start, value_start):
            target = unnamed[1] or target
        return FieldReading(
            field=fixed or vocab.field_named(m.group("f")),
            value=value,
            target=target,
            opening=value_start - start,
            value_span=value_span,
            rest=rest,
        )
    return None


#: "can you put through a …", "could you process a …": a light verb and one new thing.
_ASKED_LIGHT = re.compile(
    rf"{_REQUEST_LEAD}(?:can|could|would|will)\s+you(?:\s+(?:please|possibly|kindly|just))*"
    r"\s+(?:put\s+through|process|issue|arrange|do|make)\s+an?\s+",
    ICASE,
)


def asked_request(text: str, start: int, end: int) -> bool:
    """ "can you put through a", "could I get my": the words before an operation's phrase in
    a clause shaped like a question are a request frame (it asks for the operation)."""
    return any(p.fullmatch(text, start, end) for p in (_ASKED_REQUEST, _ASKED_LIGHT))


def asked_field_request(text: str, start: int, end: int) -> int | None:
    """Where the verb starts after a question-shaped request frame ("may I add a note: …"),
    or ``None``: the rest is then read as a field change like any other."""
    m = _ASKED_FIELD_FRAME.match(text, start, end)
    return None if m is None else m.end()


#: A clause that says why ("so I get …", "because we moved", "so that she can …"), or that
#: only disowns another value ("…, not whatever you put in there").
_PURPOSE = re.compile(
    r"[\s,;-]*(?:(?:so(?:\s+that)?|because|since|as|cause|'cause)\s+"
    r"(?:i|we|you|he|she|they|it|my|our|his|her|their)\b|not\s+(?:whatever|what|the\s+old))",
    ICASE,
)


#: Words after a quoted value that only name the record: "on 1001", "for order 1002 please".
_RECORD_ONLY = re.compile(
    r"[\s,]*(?:(?:on|for|in|to|of)\s+)?(?:(?:the|my|our|this)\s+)?(?:[\w-]+\s+)?#?[\w-]+"
    r"(?:[\s,]+(?:please|pls|thanks|thank\s+you))*[\s.!?]*",
    ICASE,
)


def _only_purpose(text: str, span: Span, vocab: Vocabulary) -> bool:
    """The words after a typed value only say why it is wanted: a purpose or reason clause
    that names none of the workflow's operations or fields."""
    if _PURPOSE.match(text, *span) is None:
        return False
    words = text[span[0] : span[1]]
    named = re.search(rf"(?<!\w)(?:{vocab.field_pattern})(?!\w)", words, ICASE)
    return named is None and vocab.operation_regex.search(words) is None


def _owner_span(
    text: str, start: int, end: int, targets: Targets, vocab: Vocabulary | None = None
) -> Span | None:
    """The case named, with its preposition, the record noun and number sign before it and a
    trailing noun after it ("for Anna's case", "on ticket no. 4711", "#4711", "the Acme
    one")."""
    said = targets.mentions(start, end)
    if not said:
        return None
    first = said[0]
    nouns = vocab.record_nouns if vocab is not None else "case|record"
    window = text[max(start, first.start - _LEAD_REACH) : first.start]
    lead = _owner_lead(nouns).search(window)
    s = first.start - (len(window) - lead.start()) if lead is not None else first.start
    tail = re.match(r"\s+(?![\d€$£])[\w-]+\s*(?=$|[,;])", text[first.end : end])
    if tail is None:
        tail = _owner_noun(nouns).match(text, first.end, end)
        e = tail.end() if tail is not None else first.end
    else:
        e = first.end + tail.end()
    possessive = re.match(r"['\u2019]s(?!\w)", text[e:end])
    if possessive is not None:  # "the Acme case's due date": the owner's "'s"
        e += possessive.end()
    return max(s, start), e


def _phrase(
    text: str, start: int, end: int, vocab: Vocabulary, *, asked: bool
) -> re.Match[str] | None:
    """The operation's phrase: opening the clause, or after a request ("I want a repair",
    "could I get my money back", "please have it repaired"). Only an operation that always
    waits for a confirmation card may be found deeper in the clause ("… so I expect a full
    repair of the boiler"): its card shows the exact arguments before anything runs. In a
    clause shaped like a question (``asked``) only an explicit request frame counts."""
    quoted = [q.span() for q in _QUOTED.finditer(text, start, end)]
    if not asked:
        at_start = vocab.operation_regex.match(text, start, end)
        if at_start is not None and not _holds_quote(at_start, quoted):
            return at_start
    for m in vocab.operation_regex.finditer(text, start, end):
        if _holds_quote(m, quoted):
            continue  # words inside a quoted value are the value, never an operation
        before = text[start : m.start()]
        if asked:
            if _ASKED_REQUEST.fullmatch(before):
                return m
        elif _REQUEST.fullmatch(before) or (
            waits_for_card(vocab, vocab.operation_named(m.group(0))) and not _NEGATED.search(before)
        ):
            return m
    return None


def _holds_quote(m: re.Match[str], quoted: Sequence[Span]) -> bool:
    """The phrase starts inside a quoted value, or a quoted value stands inside the phrase
    ("put the note 'x' on …" is not "put … on"): quoted words are a value, never a phrase."""
    return any(s <= m.start() < e or (m.start() <= s and e <= m.end()) for s, e in quoted)


def waits_for_card(vocab: Vocabulary, name: str) -> bool:
    """Whether the workflow's operation ``name`` waits for a confirmation card."""
    op = vocab.operation(name)
    return needs_confirmation(op.policy, is_destructive=op.is_destructive)


def _phrase_words(text: str, m: re.Match[str], vocab: Vocabulary) -> list[Span]:
    """The spans of the phrase's own words (a gap phrase holds arguments in between)."""
    phrase = vocab.operation_phrases.get(m.lastgroup or "", "")
    if GAP not in phrase:
        return [m.span()]
    own = {w.casefold() for w in phrase.split() if w != GAP}
    words = _WORDS.finditer(text, m.start(), m.end())
    return [w.span() for w in words if w.group(0).casefold() in own]


@functools.cache
def _unnamed(nouns: str) -> re.Pattern[str]:
    return re.compile(
        # "my case in Berlin", "the booking in Porto": a record named by a place it is in.
        rf"(?:(?:to|for|on|of|in|from|with)\s+)?(?:(?:the|this|that|my|our|your)\s+)"
        rf"(?:{nouns})\s+(?:to|in|at|for)\s+(?P<place>(?-i:[A-Z])[\w-]+)(?!\w)"
        rf"|(?:(?:to|for|on|of|in|from|with)\s+)?(?:(?:the|this|that|my|our|your)\s+)"
        rf"(?:(?:same|whole|entire|very)\s+)?"
        rf"(?:(?P<name>[A-Z][\w-]*|\d{{3,}})\s+)?(?:{nouns})s?(?!\w)"
        rf"|(?:(?:to|for|on|of|in|from|with)\s+)?(?:(?:the|my|our)\s+)?(?:{nouns})\s*"
        rf"(?:no\.?|nr\.?|number|#)?\s*#?(?P<number>\d{{3,}})(?!\w)"
        rf"|(?:(?:to|for|on|of|in)\s+)?#(?P<hash>\d{{3,}})(?!\w)",
        ICASE,
    )


def unnamed_owner(
    text: str, start: int, end: int, vocab: Vocabulary
) -> tuple[Span, Target | None] | None:
    """A case the clause names that is not one the user may name: "to the Berlin case",
    "order 1003" (an unknown target: the reducer asks, never guesses), or the case itself
    ("to the case", "for this record": the current case). The span is kept out of arguments."""
    for m in _unnamed(vocab.record_nouns).finditer(text, start, end):
        said = m.group("name") or m.group("number") or m.group("hash") or m.group("place")
        if said is not None and said[0].isalpha() and said.casefold() in vocab.words:
            continue
        return m.span(), None if said is None else LabelTarget(label=said)
    return None


def read_operation(
    text: str,
    span: Span,
    vocab: Vocabulary,
    targets: Targets,
    *,
    ctx: ParseContext,
    aliases: Sequence[AliasMatch],
    asked: bool = False,
) -> OperationReading | None:
    start, end = span
    m = _phrase(text, start, end, vocab, asked=asked)
    if m is None:
        return None
    name = vocab.operation_named(m.group(0))
    owner = _owner_span(text, start, end, targets, vocab)
    named: Target | None = None
    if owner is None:
        unnamed = unnamed_owner(text, start, end, vocab)
        if unnamed is not None:
            owner, named = unnamed
    generic = phrase_key(m.group(0)) in _FIELD_VERBS
    skip = [*_phrase_words(text, m, vocab), *([owner] if owner else [])]
    own_words = _phrase_words(text, m, vocab)
    # A gap phrase ("file ... claim") holds its object in the gap: "file the roof claim".
    object_start = own_words[0][1] if len(own_words) > 1 else m.end()
    passive = _PASSIVE.search(text, start, m.start())
    heading = _HEADING_BEFORE.fullmatch(text, start, m.start())
    if passive is not None:  # "the blue box should be moved to …": the object came first
        skip.append(passive.span())
        object_start = start
    elif heading is not None and not targets.mentions(start, m.start()):
        object_start = start  # "X-100: repair by Friday": the heading names the object
    reading = read_arguments(
        vocab.operation(name),
        text,
        start,
        end,
        ctx=ctx,
        aliases=aliases,
        field_keys=frozenset(vocab.field_names) if generic else frozenset(),
        skip=skip,
        object_start=object_start,
    )
    if reading.names_field:
        return None  # "add a note" with no value: a field without its value, not an object
    if _names_other_argument(vocab, name, reading.args):
        return None  # "add a step to it": what another operation takes, never an object
    target = named or (targets.find(owner[0], owner[1]) if owner else targets.default())
    return OperationReading(
        operation=name,
        args=reading.args,
        numbers=reading.numbers,
        target=target,
        opening=m.end() - start,
        phrase_span=m.span(),
        unread=reading.unread,
        unsure=reading.split_object,
    )


_ARROW = re.compile(r"\s*(?:->|=>|\u2192)\s*")


def read_arrowed_operation(
    text: str,
    span: Span,
    vocab: Vocabulary,
    targets: Targets,
    *,
    ctx: ParseContext,
    aliases: Sequence[AliasMatch],
) -> OperationReading | None:
    """ "X -> 11 March": a verbless clause whose words before an arrow name what an
    operation's choice argument picks and whose words after it are its typed arguments
    (a date, an amount). Only an operation that waits for a confirmation card is read so
    (the card shows the exact arguments, and the reducer reads the choice from the case),
    and only when exactly one such operation takes the words after the arrow."""
    start, end = span
    arrow = _ARROW.search(text, start, end)
    head = text[start : arrow.start()].strip(TRIM) if arrow is not None else ""
    if arrow is None or not head or _ARROW.search(text, arrow.end(), end):
        return None
    found: list[OperationReading] = []
    for op in vocab.workflow.operations:
        choice = next((a for a in op.arguments if a.choices and a.required), None)
        if choice is None or not waits_for_card(vocab, op.name):
            continue
        reading = read_arguments(op, text, arrow.end(), end, ctx=ctx, aliases=aliases)
        typed = {n: v for n, v in reading.args.items() if n in reading.numbers}
        args = {**typed, choice.name: head}
        if not typed or any(a.required and a.name not in args for a in op.arguments):
            continue
        found.append(
            OperationReading(
                operation=op.name,
                args=args,
                numbers=tuple(n for n in reading.numbers if n in typed),
                target=targets.find(start, end),
                opening=arrow.end() - start,
                phrase_span=arrow.span(),
                unread=(),
                unsure=True,
            )
        )
    return found[0] if len(found) == 1 else None


def read_start(text: str, span: Span) -> StartReading | None:
    m = _START.fullmatch(text, span[0], span[1])
    if m is None:
        return None
    label = m.group("label")
    if label and re.search(r"[:;,]|\d", label):
        return None  # "a new one for X: item, 15 euros" is more than a name: not read
    return StartReading(label=label.strip(TRIM) if label else None)


#: ", on 1002" / ", and for #1002" before another record's colon: where its value starts.
_NEXT_RECORD = re.compile(
    r"[,;]\s*(?:and\s+)?(?:on|for|to)\s+(?:the\s+)?(?:[a-z]+\s+)?(?:no\.?\s*|#)?$", re.IGNORECASE
)
_HEAD_END = re.compile(r"\s+(?:to|for|on|in|at|from|with)\s.*$", re.IGNORECASE)


def _names_other_argument(vocab: Vocabulary, name: str, args: dict[str, str]) -> bool:
    """Whether the object's head word is what another operation of the workflow takes as an
    argument ("a step" to an operation that adds things, when another one moves steps): the
    request is for something the workflow does another way, or not at all."""
    op = vocab.workflow.operation(name)
    if op is None:
        return False
    own = {a.name for a in op.arguments}
    others = {
        a.name.replace("_", " ")
        for other in vocab.workflow.operations
        if other.name != name
        for a in other.arguments
        if a.name not in own
    }
    for a in op.arguments:
        value = args.get(a.name)
        if a.required and a.type is str and not a.choices and value:
            head = _HEAD_END.sub("", phrase_key(value)).split()
            if head and head[-1].rstrip("s") in others:
                return True
    return False
