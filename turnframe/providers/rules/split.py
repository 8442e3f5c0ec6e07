"""Cutting a turn into clauses, with exact offsets into the user's text.

1. Sentences end at ``. ! ? ; …`` and line breaks; a full stop only before a space or the end
   (so not inside "12.50" or "ana@example.com").
2. Inside a sentence, a clause starts where a comma, a dash or a connective ("and", "but",
   "then", "also") is followed by a clause opener: a correction marker ("actually", "no wait"),
   a generic verb or question word, or one of the workflow's operation phrases or
   "the <field> is/to". Strong markers ("no wait", "actually") cut even without a comma.
   A sentence that opens with "if" or "suppose" is one clause: its parts belong together.
3. A leading marker is taken off the clause and remembered: it makes the clause a correction
   or a cancellation of what came before. A clause that is only a marker hands it to the next
   clause of its sentence. A stammered marker ("no no, 10", "no, no, no - 12") is one marker,
   and so is an admitted slip ("sorry typo, 300", "typo: 300").
4. A clause that only announces a list ("two things:", "a few requests") carries no request
   and is dropped; the items after it are read as clauses of their own.
5. The frame around the requests (``frame``): a signature is left out, a greeting or a closing
   is small talk, a bullet is taken off its item, a clause before a list is marked as its intro
   and a politeness said as a condition ("if it's no trouble, …") is taken off its clause.
6. A clause that tells what happened ("I booked it in December", "she paid 120 at the counter")
   and asks for nothing is a story: :func:`story` says so, and the reader never takes an act
   or a value from it.
"""

from __future__ import annotations

import re

import attrs

from turnframe.providers.rules.frame import (
    bullet_end,
    closing,
    greeting,
    polite_condition,
    signature,
)
from turnframe.providers.rules.shapes import FOLLOW_UP_AT, MARKER_AT, STRONG_MARKER, TRIM
from turnframe.providers.rules.vocabulary import Vocabulary

_SENTENCE_END = frozenset(".!?;\n\u2026")
_CLOSERS = frozenset(".!?;\u2026\"')\u201d\u2019")
_WORD_START = re.compile(r"(?<![\w'])[\w€$£]")
_CONDITIONAL = re.compile(r"(?:if|suppose|supposing|imagine|hypothetically)\b", re.IGNORECASE)
_CONNECTIVE = re.compile(
    r"(?<!\w)(?:and|but|then|also|plus|first|so|anyway|anyhow)\s*$", re.IGNORECASE
)
_CONNECTIVE_REACH = 16  # "plus" and the spaces after it, with room to spare
_ABBREVIATION = re.compile(
    r"(?<![\w.])(?:no|nr|num|ref|approx|ca|e\.g|i\.e|st|mr|mrs|ms|dr)\.$", re.IGNORECASE
)
_WORD_CHAR = re.compile(r"\w")
#: A verb's helper right before "actually": the word is an adverb there.
_AUXILIARY = re.compile(r"(?<!\w)(?:was|were|been|did|does|do|has|have|had)\s+$", re.IGNORECASE)
_QUOTE_REACH = 200  # a quoted value is short; the look-back stays bounded
#: A single quote that opens a value ("note 'VIP'"), and one that closes it (not "it's").
_OPEN_SINGLE = re.compile(r"(?:^|(?<=[\s(:=]))['\u2018](?=\w)")
_CLOSE_SINGLE = re.compile(r"['\u2019](?!\w)")


#: Where a reason or a purpose starts after the request: a story, not the request.
_REASON = re.compile(
    r"(?<=\s)(?:because|cause|cuz|since(?=\s+(?:the|my|our|his|her|their|i|we|he|she|they|it)\b)"
    r"|so\s+that|as\s+(?=(?:i|we|he|she|they)\s))(?!\w)",
    re.IGNORECASE,
)
#: A request reported from someone else, up to where the request's own words start:
#: "he asked me to …", "my boss wants us to …", "I was told to …".
_REPORTED = re.compile(
    r"(?<!\w)(?:(?:he|she|they|(?:my|our|the)\s+[\w-]+)\s+(?:asked|told|wants?|needs?"
    r"|would\s+like)\s+(?:me|us)\s+to|(?:i|we)\s+(?:was|were|have\s+been|'ve\s+been)"
    r"\s+(?:asked|told)\s+to)\s+",
    re.IGNORECASE,
)
#: Where a question is framed inside a longer clause: "… I want to know how much …".
_WANTS_TO_KNOW = re.compile(
    r"(?<=\s)i(?:['\u2019]d|\s+would|\s+just|\s+only|\s+also|\s+really)*\s+(?:want|like|need)"
    r"\s+to\s+know\s+(?=(?:how|what|when|where|which|who|why|if|whether)\b)",
    re.IGNORECASE,
)
#: "no no, 10": the first "no"s of a stammered marker; the last one is the marker itself.
_REPEATED_NO = re.compile(r"(?:no[\s,!.\u2013\u2014-]+){1,4}(?=no\b)", re.IGNORECASE)
#: Ways of owning up to a slip that the shared markers do not list: a typo, "I should have
#: said", "let me correct that". Only before more words: the correction follows them.
_SLIP = re.compile(
    r"(?:(?:no|oh|oops|sorry)[\s,]+){0,3}(?:(?:that\s+was\s+|my\s+)?(?:a\s+)?typo"
    r"|i\s+(?:should\s+have\s+said|meant\s+to\s+(?:say|write|type))"
    r"|let\s+me\s+correct\s+(?:that|myself)|nope|make\s+that|hold\s+on|wait(?=\s*[,:\u2013\u2014-])"
    r"|let['\u2019]?s\s+say|(?:or\s+)?better(?=\s*:)"
    r"|(?:whatever|never\s*mind|forget\s+it|anyway)\s*[,:\u2013\u2014-]\s*"
    r"(?:do|go\s+with|let'?s\s+(?:do|go\s+with)|make\s+it)(?=\s+\S)"
    r"|no(?=\s*,\s*(?!(?:thanks|thank|problem|worries|need|rush|idea)\b)\w))"
    r"(?:[\s,:;.!\u2013\u2014-]+)(?=\S)",
    re.IGNORECASE,
)
#: A clause that only announces the items after it: "hey, 2 things", "I have two requests".
_LIST_HEADER = re.compile(
    r"(?:(?:hi|hey|hello|ok(?:ay)?|so|right)[\s,!]+){0,3}(?:i\s+have\s+|i'?ve\s+got\s+|there\s+are\s+)?"
    r"(?:\d|two|three|four|five|a\s+(?:few|couple(?:\s+of)?)|several|some)\s+"
    r"(?:more\s+|quick\s+|small\s+|little\s+)?(?:things|requests|changes|items|points|questions"
    r"|updates|edits|tasks|favou?rs)"
    r"(?:\s+(?:please|for\s+you|to\s+do))?",
    re.IGNORECASE,
)


#: A word of politeness or a heading that ends at a colon before the request.
_LEAD_COLON = re.compile(
    r"(?:please|pls|plz|ok(?:ay)?|so|also|and|todo|to\s+do|requests?|changes?)\s*:\s*(?=\S)",
    re.IGNORECASE,
)
#: "(please) go ahead", "just do it" before "and <request>": a lead, not a request.
_GO_AHEAD = re.compile(
    r"(?:(?:so|and|please|just|ok(?:ay)?)[\s,]+)*(?:go\s+ahead|proceed)[\s,]*", re.IGNORECASE
)
#: A clause that is only a pause before the speaker changes their mind.
_PAUSE = re.compile(r"(?:wait|hold\s+on|hang\s+on|hmm+|um+|uh+|err+)[\s.!]*", re.IGNORECASE)
#: "scratch that" said alone before the value restated: a marker of the clause after it.
_SCRATCH = re.compile(r"(?:scrap|scratch|forget|ignore)\s+that[\s,.!:;-]*", re.IGNORECASE)
_RESTATES = re.compile(
    r"(?:it|that|the\s+[\w-]+)\s+(?:should|must|needs\s+to)\s+(?:say|read|be)\b", re.IGNORECASE
)
_MARKER_RUN = 3  # markers said one after another ("no, sorry, typo"): a bounded run


#: A past event told by a person: "I booked …", "she's already paid …", "we were told …".
_TOLD = re.compile(
    r"(?:(?:so|and|but|then|well|yeah|also|honestly|basically)[\s,]+){0,4}"
    r"(?:i|we|he|she|they)(?:['\u2019](?:ve|d))?\s+(?:(?:have|has|had|just|already|also|even"
    r"|never|only|then|both|all|actually|originally|first)\s+){0,4}"
    r"(?:[a-z]+ed|paid|bought|booked|made|took|got|went|came|stayed|spent|read|heard|saw|told"
    r"|said|thought|knew|left|lost|found|gave|sent|had|was|were|been|did|tried|wrote|spoke"
    r"|met|ate|slept|flew|drove|rode|chose|forgot|understood|felt|ran|sat|began|brought)(?!\w)",
    re.IGNORECASE,
)
#: Words that make a clause a request whatever its tense.
_ASKS = re.compile(
    r"(?<!\w)(?:please|pls|plz|kindly|can\s+you|could\s+you|would\s+you|will\s+you"
    r"|i['\u2019]?d\s+like|i\s+would\s+like|we['\u2019]?d\s+like|would\s+(?:like|love)"
    r"|want|wants|need|needs|(?:only|just)\s+wanted\s+to"
    r"|should|must|have\s+to|has\s+to|let['\u2019]?s|let\s+me|asap|now|instead|make\s+it"
    r"|change\s+it|set\s+it|update\s+it)(?!\w)|\?",
    re.IGNORECASE,
)


#: What a person is doing now: "she's saving up for it", "we are travelling with a baby".
_DOING = re.compile(
    r"(?:(?:so|and|but|well|also|honestly)[\s,]+){0,2}(?:he|she|they|we)(?:['\u2019]s|['\u2019]re"
    r"|\s+is|\s+are)\s+(?:(?:still|already|also|just|really)\s+)?"
    r"(?!(?:requesting|asking|wondering|hoping|looking|trying|writing|contacting|calling|emailing"
    r"|reaching|waiting|going|planning|thinking)\b)[a-z]{2,}ing(?!\w)",
    re.IGNORECASE,
)


def story(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` tells a past event (or what someone is doing) and asks for
    nothing."""
    told = _TOLD.match(text, start, end) or _DOING.match(text, start, end)
    return told is not None and _ASKS.search(text, start, end) is None


@attrs.frozen(kw_only=True)
class Marker:
    """Where a correction marker ends and how it reads ("no wait", "typo")."""

    end: int
    words: str


def marker_at(text: str, pos: int, end: int) -> Marker | None:
    """The correction marker that opens ``text[pos:end]``, if one does: the shared markers,
    after any stammered "no"s, or an admitted slip."""
    at = pos
    for _ in range(_MARKER_RUN):  # "sorry, typo: 300", "no no, sorry, 45"
        stammer = _REPEATED_NO.match(text, at, end)
        found = MARKER_AT.match(text, stammer.end() if stammer else at, end) or _SLIP.match(
            text, stammer.end() if stammer else at, end
        )
        if found is None:
            break
        at = found.end()
    if at == pos:
        return None
    return Marker(end=at, words=" ".join(text[pos:at].strip(" ,:;.!-").casefold().split()))


def list_header(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` only announces a list ("two things", "a few requests")."""
    return _LIST_HEADER.fullmatch(text, start, end) is not None


@attrs.frozen(kw_only=True)
class Clause:
    """``text[start:end]`` is the clause without its marker; ``lead`` is where the marker began."""

    start: int
    end: int
    lead: int
    marker: str | None = None
    question: bool = False
    #: A greeting or a closing ("Hi team", "Yours sincerely"): small talk, nothing to do.
    small_talk: bool = False
    #: The clause before a list ("Could you:", "please do the following for 1001"): it may
    #: only announce the items (and name their record).
    intro: bool = False
    #: The first clause of a list's item (after its bullet or number).
    item: bool = False
    #: An opening greeting ("Dear Ana,"): a name in it addresses someone, names no record.
    greeting: bool = False

    def body(self, text: str) -> str:
        return text[self.start : self.end]


#: A smiley between words: ":)", ";-)", ":D" (never "note: Dinner").
_EMOTICON = re.compile(r"(?<!\S)[:;=]-?(?:\)+|\(+|D|P|p|3)(?=\s|$)")
_LIST_MARK = re.compile(
    r"(?:^|(?<=\s))(?:(?P<n>\d{1,2})[.)]|\((?P<p>\d{1,2})\))\s+(?=[^\W\d]|\d{1,3}\s+[^\W\d])"
)


def list_items(text: str) -> dict[int, int]:
    """Where each marker of a numbered list starts, with where its item's words start: only
    markers counting 1, 2, 3 … in order, so "pay 20. thanks" keeps its number."""
    found: dict[int, int] = {}
    expected = 1
    for m in _LIST_MARK.finditer(text):
        if int(m.group("n") or m.group("p")) == expected:
            found[m.start()] = m.end()
            expected += 1
    return found if len(found) >= 2 else {}


def sentences(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, ends with '?') for each sentence. A full stop after an abbreviation ("no.
    1001", "approx. 20") does not end one."""
    out: list[tuple[int, int, bool]] = []
    start = 0
    i = 0
    items = list_items(text)
    smiles = {m.start(): m.end() for m in _EMOTICON.finditer(text)}
    while i < len(text):
        if i in smiles:  # "add a guide :) cheers": a smiley ends what was said before it
            if text[start:i].strip():
                out.append((start, i, False))
            start = i = smiles[i]
            continue
        if i in items:  # "1. add … 2. add …": each numbered item is a sentence of its own
            if text[start:i].strip():
                out.append((start, i, "?" in text[start:i].rstrip()[-1:]))
            start = i = items[i]
            continue
        c = text[i]
        after = text[i + 1] if i + 1 < len(text) else " "
        inside_word = c == "." and (
            not (after.isspace() or after in _CLOSERS)
            or _ABBREVIATION.search(text, max(0, i - 8), i + 1) is not None
        )
        if c in _SENTENCE_END and not inside_word:
            j = i
            while j < len(text) and text[j] in _SENTENCE_END | {" ", "\t", "\r"}:
                j += 1
            out.append((start, i, "?" in text[i:j]))
            start = i = j
            continue
        i += 1
    if start < len(text):
        out.append((start, len(text), False))
    return out


def _gap_start(text: str, start: int, w: int) -> int:
    """Where the punctuation and connectives before the word at ``w`` begin.

    Each look-back reads a bounded window (a connective is one short word), so the walk over a
    sentence stays linear in its length."""
    j = w
    while True:
        while j > start and text[j - 1] in " \t,-+&\u2013\u2014":
            j -= 1
        word = _CONNECTIVE.search(text, max(start, j - _CONNECTIVE_REACH), j)
        if word is None or word.end() != j:
            return j
        j = word.start()


def _cuts(text: str, start: int, end: int, vocab: Vocabulary) -> list[tuple[int, int]]:
    """(gap start, next clause start) for every cut inside one sentence.

    Patterns are matched at positions of ``text`` itself (``pattern.match(text, w, end)``),
    never on a copied tail, so the cost is linear in the sentence, not quadratic."""
    out: list[tuple[int, int]] = []
    for word in _WORD_START.finditer(text, start, end):
        w = word.start()
        gap_start = _gap_start(text, start, w)
        if gap_start <= start:
            continue
        joined = any(c in ",-+&\u2013\u2014" for c in text[gap_start:w]) or bool(
            _WORD_CHAR.search(text, gap_start, w)
        )
        opens = (
            marker_at(text, w, end)
            or vocab.starters.match(text, w, end)
            or FOLLOW_UP_AT.match(text, w, end)
        )
        before = text[max(start, w - 3) : w].casefold()
        strong = STRONG_MARKER.match(text, w, end) and not before.endswith(("i ", "we "))
        if strong and _AUXILIARY.search(text, max(start, w - 8), w):
            strong = None  # "how much was actually paid": an adverb, not a correction
        # A quoted value is over at its closing quote: what follows a comma or "and" after
        # it is a clause of its own ("set the note to "x", and no changes to the date").
        closes = text[gap_start - 1] in "\"\u201d'\u2019"
        quoted = joined and closes and _open_quote(text, start, gap_start)
        if ((joined and opens) or strong or quoted) and not _inside_quote(text, start, w):
            out.append((gap_start, w))
    return _with_asides(text, start, end, out, vocab)


def _takes_reason(text: str, start: int, at: int, vocab: Vocabulary) -> bool:
    """Whether an operation named before ``at`` takes a reason ("close it because …")."""
    for m in vocab.operation_regex.finditer(text, start, at):
        name = vocab.operation_named(m.group(0))
        if any(a.name == "reason" for a in vocab.operation(name).arguments):
            return True
    return False


def _with_asides(
    text: str, start: int, end: int, cuts: list[tuple[int, int]], vocab: Vocabulary
) -> list[tuple[int, int]]:
    """The cuts, with those that set off a reason ("… because the old one bounced") and a
    reported request ("he asked me to …") added: a story around a request is a clause of its
    own, so the request reads alone and the story stays unread, never taken as a value. An
    operation that takes a reason keeps its "because …" as that argument."""
    added: list[tuple[int, int]] = []
    for m in _REASON.finditer(text, start, end):
        if m.start() > start and not _inside_quote(text, start, m.start()):
            if _takes_reason(text, max(start, m.start() - _QUOTE_REACH), m.start(), vocab):
                continue
            gap = m.start()
            while gap > start and text[gap - 1] in " \t,":
                gap -= 1
            added.append((gap, m.start()))
    for m in _REPORTED.finditer(text, start, end):
        if m.end() < end and not _inside_quote(text, start, m.start()):
            added.append((m.end(), m.end()))
    for m in _WANTS_TO_KNOW.finditer(text, start, end):  # "before I ask, I want to know …"
        if m.start() > start and not _inside_quote(text, start, m.start()):
            added.append((m.start(), m.start()))
    if not added:
        return cuts
    merged = sorted({*cuts, *added})
    out: list[tuple[int, int]] = []
    for cut in merged:  # cuts never overlap: a later one starts after the one before it
        if not out or cut[0] >= out[-1][1]:
            out.append(cut)
    return out


def _inside_quote(text: str, start: int, at: int) -> bool:
    """Whether ``at`` stands inside a quoted value ("note 'no answer, call on Monday'"): a
    quoted value is the user's words, never cut into clauses."""
    window = text[max(start, at - _QUOTE_REACH) : at]
    if window.count('"') % 2 == 1 or window.count("\u201c") > window.count("\u201d"):
        return True
    opened = list(_OPEN_SINGLE.finditer(window))
    return bool(opened) and not _CLOSE_SINGLE.search(window, opened[-1].end())


def _open_quote(text: str, start: int, at: int) -> bool:
    """Whether the quote just before ``at`` closes one opened inside the sentence."""
    window = text[max(start, at - _QUOTE_REACH) : at - 1]
    if text[at - 1] in "'\u2019":  # a single quote: the last one opened is still open
        opened = list(_OPEN_SINGLE.finditer(window))
        return bool(opened) and not _CLOSE_SINGLE.search(window, opened[-1].end())
    return window.count('"') % 2 == 1 or "\u201c" in window


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in TRIM:
        start += 1
    while end > start and text[end - 1] in TRIM:
        end -= 1
    return start, end


def split_clauses(text: str, vocab: Vocabulary) -> list[Clause]:
    clauses: list[Clause] = []
    ends, _ = signature(text, vocab.words)
    items = set(list_items(text).values())
    said = [(s, min(e, ends), q) for s, e, q in sentences(text) if s < ends]
    listed = [s in items or bullet_end(text, s, e) > s for s, e, _ in said]
    for index, (s_start, s_end, asked) in enumerate(said):
        s_start = bullet_end(text, s_start, s_end)
        s_start = polite_condition(text, s_start, s_end)[0]
        sentence = _sentence(text, s_start, s_end, vocab, first=not clauses)
        if not sentence:
            continue
        if asked:
            sentence[-1] = attrs.evolve(sentence[-1], question=True)
        if index + 1 < len(said) and listed[index + 1] and not listed[index]:
            sentence[-1] = attrs.evolve(sentence[-1], intro=True)  # "Could you:" before "- …"
        if listed[index]:
            sentence[0] = attrs.evolve(sentence[0], item=True)
        clauses.extend(sentence)
    return clauses


def _sentence(
    text: str, s_start: int, s_end: int, vocab: Vocabulary, *, first: bool
) -> list[Clause]:
    """The clauses of one sentence."""
    pieces: list[tuple[int, int]] = []
    at = s_start
    conditional = _CONDITIONAL.match(text[s_start:s_end].lstrip()) is not None
    cuts = [] if conditional else _cuts(text, s_start, s_end, vocab)
    for gap_start, next_start in cuts:
        pieces.append((at, gap_start))
        at = next_start
    pieces.append((at, s_end))
    pending: tuple[int, str] | None = None
    sentence: list[Clause] = []
    for n, (p_start, p_end) in enumerate(pieces):
        lead, end = _trimmed(text, p_start, p_end)
        if lead >= end:
            continue
        greets = first and n == 0 and greeting(text, lead, end)
        if greets or closing(text, lead, end):
            sentence.append(
                Clause(start=lead, end=end, lead=lead, small_talk=True, greeting=greets)
            )
            continue
        lead, end = _trimmed(text, *polite_condition(text, lead, end))
        if _SCRATCH.fullmatch(text, lead, end) and n + 1 < len(pieces):
            after = _trimmed(text, *pieces[n + 1])
            if _RESTATES.match(text, *after):  # "scratch that, the note should say: …"
                pending = (lead, " ".join(text[lead:end].casefold().split()))
                continue
        if _GO_AHEAD.fullmatch(text, lead, end) and n + 1 < len(pieces):
            continue  # "please go ahead and submit it": the request is what follows
        if _PAUSE.fullmatch(text, lead, end):
            pending = (lead, "wait")  # "wait, is it still valid? …": a correction may follow
            continue
        if list_header(text, lead, end):
            continue  # "2 things:": the items after it are the requests
        header = _LIST_HEADER.match(text, lead, end)
        if header is not None and text[header.end() : end].lstrip().startswith(":"):
            lead = _trimmed(text, text.index(":", header.end()) + 1, end)[0]  # "Two updates: …"
        opener = _LEAD_COLON.match(text, lead, end)
        if opener is not None:  # "Please: note = 'x'": what follows the colon is asked
            lead = opener.end()
        start, marker = lead, None
        found = marker_at(text, lead, end)
        if found is not None:
            marker = found.words
            start, end = _trimmed(text, found.end, end)
        if pending is not None:
            lead, marker = pending[0], marker or pending[1]
            pending = None
        if start >= end:
            pending = (lead, marker or "")
            continue
        sentence.append(Clause(start=start, end=end, lead=lead, marker=marker))
    return sentence
