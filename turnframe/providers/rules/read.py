"""Reading a whole turn: clause by clause, in the user's order, into one plan.

Each clause is tried, in order, as: chitchat; a cancellation; keep-unchanged; a constraint; an
action (field, operation, new case) unless it opens like a question; a question; a correction
of the previous change ("no wait, 135", "make it Saturday"). A clause nothing reads is put in
the plan's ``not_understood``, never guessed at. A correction marker in front of an action on
something the turn already changed makes it a correction: a ``correct`` act linked to the field
change, or, for an operation (which cannot be corrected in place), a ``cancel`` of the earlier
operation followed by the operation with the corrected arguments.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from typing import Any

import attrs

from turnframe.plan import (
    Act,
    ActCondition,
    CancelAct,
    ChitchatAct,
    ConstraintAct,
    ConstraintKind,
    CorrectAct,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    RecallAct,
    SetFieldAct,
    StartCaseAct,
    target_of,
)
from turnframe.policy import needs_confirmation
from turnframe.providers.rules.actions import (
    FieldReading,
    OperationReading,
    StartReading,
    asked_field_request,
    asked_request,
    clean_value,
    read_arrowed_operation,
    read_field,
    read_operation,
    read_start,
    typed_value_ok,
    unnamed_owner,
    waits_for_card,
)
from turnframe.providers.rules.args import read_arguments
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.conditions import (
    OTHERWISE,
    condition_named,
    does_nothing,
    read_condition,
)
from turnframe.providers.rules.follow import follow_up, inside_address
from turnframe.providers.rules.frame import (
    ANNOUNCES,
    FRAME_WORDS,
    LIST_AHEAD,
    LIST_OBJECT,
    USE_WORDS,
)
from turnframe.providers.rules.implied import AGREED, implied_value, without_record
from turnframe.providers.rules.implied import candidates as implied_places
from turnframe.providers.rules.implied import field_named as implied_field
from turnframe.providers.rules.implied import field_value as implied_field_value
from turnframe.providers.rules.negations import (
    CANCEL,
    KEEP_IT,
    NEGATION,
    NOTHING_ELSE,
    forbidden,
    kept_field,
    negated_operations,
)
from turnframe.providers.rules.questions import (
    QUESTION_OPENING,
    QuestionReading,
    asks_whether_allowed,
    looks_like_question,
    read_question,
)
from turnframe.providers.rules.recall import recall_description
from turnframe.providers.rules.refer import amount_pointed_at
from turnframe.providers.rules.several import bare_question
from turnframe.providers.rules.shapes import (
    CHITCHAT,
    FOLLOW_UP,
    ICASE,
    LEADING_FILLER,
    TRAILING_FILLER,
    TRAILING_POLITENESS,
    TRIM,
)
from turnframe.providers.rules.split import Clause, marker_at, story
from turnframe.providers.rules.takebacks import left_as_is, only_restated, taken_back
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.reading.months import with_month
from turnframe.reading.numbers import NUMBER_WORDS
from turnframe.references import AliasMatch
from turnframe.workflow import ParseContext

Span = tuple[int, int]
_NO = re.compile(r"no|nope|not\s+that|no\s+thanks", ICASE)
#: A value at the start of a correction: a number, an amount, a count or a date.
_LEADING_VALUE = re.compile(
    rf"(?:[€$£]\s?)?(?:\d+(?:[.,]\d+)?|{NUMBER_WORDS.pattern})"
    r"(?:\s?(?:[€$£]|euros?|eur)(?!\w))?(?=\s*(?:[-,;]|$|\s))",
    ICASE,
)
#: "… and a museum pass", "…, and 2 city cards": a second object of the same operation.
_SECOND_OBJECT = re.compile(
    r"(?:,?\s+(?P<and>and)\s+(?:also\s+)?|(?<!\d),\s*|,\s+)"  # "12,50 each" is one amount
    r"(?=(?P<the>the\s+)?(?(the)|(?:a|an|another|one|two|three|four|five|six|seven|eight|nine"
    r"|ten|\d+)\s+)[a-z])",
    ICASE,
)
#: A count before the object's words ("3 maps", "two guides"), not an amount ("35 euros").
#: A number with a unit or a price word after it ("3 hours", "90 euros", "2 each"): a detail of
#: the object before it, never another object.
_MEASURE = re.compile(
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+(?:[.,]\d+)?)\s+"
    r"(?:more\s+)?(?:hours?|days?|weeks?|minutes?|months?|euros?|eur|usd|dollars?"
    r"|pounds?|cents?|each|per|people|persons?|adults?|kids?|children)\b",
    ICASE,
)
_LISTED_LEAD = re.compile(r"(?:and\s+)?(?:also\s+)?(?:(?:a|an|the|my|our)\s+)?", ICASE)
_COUNTED = re.compile(
    r"(?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+(?!(?:of|euros?|eur|usd|dollars?"
    r"|pounds?|days?|hours?|weeks?|people|persons?|adults?|kids?|children)\b)[a-z]",
    ICASE,
)
_SHORT_FOLLOW_UP = re.compile(
    r"(?:(?:and|also|plus)\s+(?:for\s+|on\s+)?|what\s+about\s+|how\s+about\s+|same\s+for\s+)"
    r"[^,;.?!]{1,40}",
    ICASE,
)
_ONLY_CASE = re.compile(
    r"(?:(?:wrong\s+(?:order|one|case|booking)|i\s+meant?|it'?s|it\s+is|on|for|the|order|no\.?"
    r"|number|#|sorry|,)\s*)*",
    ICASE,
)
_HEADING = re.compile(
    r"(?:[^:;,.>\u2192]|(?<=nr|no)\.){1,40}?\s*(?::|\s-|\s*->|\s*\u2192)\s+(?=\w)", ICASE
)
_NUMBERED = r"(?:no\.?\s*|#)?"
#: "for #1002 add …", "on order 1001 set …": a case named first after a preposition.
_LED_BY_CASE = (
    *(
        re.compile(rf"(?:for|on|regarding|re:?)\s+(?:(?:the|my|our)\s+)?{noun}{_NUMBERED}", ICASE)
        for noun in ("", r"[a-z]+\s+")  # the case said at once, or after its record noun
    ),
    re.compile(r"#?"),  # "#1002 how much …": the case alone, then a question
)
#: What follows such a case before the request: nothing but spaces (a verb comes next).
_VERB_NEXT = re.compile(r"(?:'s|\u2019s)?\s+(?=[a-z]{2,}\s)", ICASE)
_IF_SO = re.compile(
    r"(?:and\s+)?if\s+(?:so|yes|it\s+is|there\s+is|(?P<neg>not|no|it\s+isn'?t|there\s+isn'?t))"
    r"[\s,]+(?:then\s+)?",
    ICASE,
)
_IF_CLAUSE = re.compile(r"(?<!\w)(?:if|provided|as\s+long\s+as|otherwise|unless)(?!\w)", ICASE)
_OTHERWISE_INSIDE = re.compile(r"[\s,;]+(?P<tail>(?:otherwise|else|or\s+else)\b.*)", ICASE)
#: "tell me if …", "let me know whether …", "I'd appreciate it if you could tell me …": the
#: "if" asks a question; it sets no condition.
_ASKS_WHETHER = re.compile(
    r"(?:(?:please|kindly|and|also|can\s+you|could\s+you)\s+)*(?:tell\s+me|let\s+me\s+know|check"
    r"|(?:may|can|could)\s+i\s+ask|i\s+(?:(?:just|only)\s+)?(?:want(?:ed)?|would\s+like|'d\s+like)\s+to\s+know"
    r"|i(?:'m|\s+am|\s+was)?\s+wonder(?:ing|ed)?"
    r"|i(?:'d|\s+would)\s+(?:really\s+)?appreciate\s+it\s+if\s+you\s+could\s+(?:tell\s+me|let\s+me\s+know|check))"
    r"\s+(?:if|whether|when|how)\b",
    ICASE,
)
_QUOTE_PAIRS = {'"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019"}
#: "can you …", "could you please …" right before a clause: a request said as a question.
_ASKED_TO_DO = re.compile(
    r"(?<!\w)(?:can|could|would|will)\s+(?:you|u)"
    r"(?:\s+(?:please|pls|kindly|maybe|possibly|also|just))*[\s,]*$",
    ICASE,
)
#: "can you …", "would you …" anywhere before a value: the question mark is the request's.
_ASKING = re.compile(r"(?<!\w)(?:can|could|would|will|may)\s+(?:you|u|i|we)(?!\w)", ICASE)
#: "the way back can stay as it is", "everything else remains the same": what is not changed.
_STAYS = re.compile(
    r"(?:[\w'\u2019-]+\s+){1,4}(?:can|should|will|may|is\s+to|must)\s+(?:just\s+)?"
    r"(?:stay|remain|be\s+left)\s+(?:as\s+it\s+is|as\s+is|the\s+same|unchanged|where\s+it\s+is"
    r"|untouched|alone|as\s+it\s+was)",
    ICASE,
)
#: "I've told you five times", "I said already that": a complaint before what was said.
_TOLD_YOU = re.compile(
    r"(?:i(?:['\u2019]ve|\s+have)?\s+)(?:(?:told|said\s+to|written\s+to|asked)\s+you"
    r"|said|wrote|written|explained|mentioned)"
    r"(?:\s+(?:already|before|again\s+and\s+again|again|(?:\d+|[a-z]+)\s+times"
    r"|so\s+many\s+times|twice|thrice|(?:this|it)\s+(?:already|before)))*"
    r"(?:\s+that)?[\s,:]+(?=(?:my|our|the)\s)",
    ICASE,
)
#: "put it on order 1001 already": the change just said, on the case it names.
_PUT_IT_ON = re.compile(
    r"(?:(?:please\s+)?(?:put|add|set|save|apply|update)|i(?:['\u2019]d|\s+would)\s+like|i\s+want)"
    r"\s+(?:it|that|this)\s+(?P<on>(?:on|to|in|into|for)\s+.{1,40}?)"
    r"(?:\s+(?:already|now|please|asap|today))*",
    ICASE,
)
#: The value a shaped value replaces, said after it: "… instead of W", "… (not W)".
_REPLACED = re.compile(
    r"[\s,(]+(?:instead\s+of|rather\s+than|in\s+place\s+of|and\s+not|not)\s+"
    r"(?:(?:the|my|our)\s+)?(?:old\s+(?:one\s+)?)?\S+@\S+[\s).]*"
    r"(?:(?:on|for)\s+.{1,40})?$",
    ICASE,
)
#: "the second visit must be on 20 March": a thing, then the value it must have.
_MUST_BE = re.compile(
    r"(?:the|my|our|his|her|their)\s+(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+"
    r"(?:must|should|needs?\s+to|has\s+to|have\s+to)\s+be\s+(?:on\s+|at\s+)?(?P<v>\S.{0,40})",
    ICASE,
)


#: "we want to take …", "I'd like to have …": a wish whose verb names no operation.
_WANT_TO = re.compile(
    r"(?:(?:we|i)\s+(?:(?:really|would|just|also|now)\s+|['\u2019]d\s+)*(?:want|need|like|wish)"
    r"\s+to\s+)?(?:take|have|get|catch|make|put)\s+",
    ICASE,
)


#: "… gives him the Wednesday off, so we want to take …": the wish after its reason.
_SO_WE_WANT_TO = re.compile(
    r"(?<=,\s)(?:so|and|therefore)\s+(?:we|i)\s+(?:(?:really|would|just|also|now)\s+"
    r"|['\u2019]d\s+)*(?:want|need|like|wish)\s+to\s+(?:take|have|get|catch|make|put)\s+",
    ICASE,
)


def _parses(argument: Any, words: str, ctx: ParseContext) -> bool:
    try:
        argument.parse(words, ctx)
    except (ValueError, TypeError):
        return False
    return True


#: "…, 13 March after all": the value goes back to one said before.
_AFTER_ALL = re.compile(r"\s+after\s+all[\s.!]*$", ICASE)
#: "keep 12 March", "keep it at 80": a value to keep (then a correction to it).
_KEEP_VALUE = re.compile(r"keep(?:\s+it)?(?:\s+(?:at|on|as))?\s+", ICASE)
#: A request that calls what it acts on "it": "move it to 14 March instead".
_CALLED_IT = re.compile(r"(?<!\w)(?:it|that\s+one|this\s+one)(?!\w)", ICASE)
#: An object said as a pronoun only: "add one", "add it".
_ONE_OF_THEM = re.compile(r"(?:one|it|one\s+of\s+(?:those|these|them))", ICASE)
#: "what's a city card", "what is an e-bike exactly": a question about what a thing is.
_WHAT_IS_A = re.compile(
    r"(?:(?:and|so|but|ok(?:ay)?)\s+)?what(?:['\u2019]s|\s+is)\s+(?:an?\s+)"
    r"(?P<x>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)(?:\s+exactly)?[\s?]*",
    ICASE,
)
#: A heading's opening word: "Re orders 1001 and 1002:", "Regarding …".
_RE_HEADING = re.compile(r"\s*(?:re|regarding|about|concerning|subject)\b[\s:.]*", ICASE)
#: "the following", "these" in a frame before a colon: the requests come after it.
_POINTS_AHEAD = re.compile(
    r"(?<!\w)(?:the\s+following|as\s+follows|below|these(?:\s+things)?)(?!\w)", ICASE
)
#: "I want to know …", "I'd also like to know …": a question's frame.
_WANT_TO_KNOW = re.compile(
    r"i(?:['\u2019]d|\s+would|\s+just|\s+only|\s+also|\s+really)*\s+(?:want|like|need)\s+to"
    r"\s+know\s+(?:how|what|when|where|which|who|why|if|whether)\b",
    ICASE,
)
#: Before a record named at the start of an item: "and for", "on".
_ITEM_OWNER = re.compile(
    r"(?:and\s+|also\s+|then\s+)*(?:for|on)\s+(?:(?:the|my|our)\s+)?(?:[a-z]+\s+)?(?:no\.?\s*|#)?",
    ICASE,
)
#: A clause joined to the one before: "and …", "also …", "plus …", "& …".
_LEANS_BACK = re.compile(r"(?:(?<!\w)(?:and|also|plus)|&|,)\s*$", ICASE)
#: A verb that makes a clause a request of its own ("and set …", "and change …").
_A_VERB = re.compile(
    r"(?<!\w)(?:set|change|update|modify|make|put|add|write|rename|move|switch|correct|fix"
    r"|please|can|could|would|will|is|are|should)(?!\w)",
    ICASE,
)


@functools.cache
def _colon_field(field_pattern: str) -> re.Pattern[str]:
    """ "note:", "note on 1001:", "the note for order 1001:": a field, its record, a colon."""
    return re.compile(
        rf"(?<!\w)(?P<f>{field_pattern})(?:\s+(?:on|for|to|of)\s+[^:\n]{{1,30}}?)?\s*:(?=\s*\S)",
        ICASE,
    )


#: "the first number was right", "go back to the original amount": the value said first.
_FIRST_WAS_RIGHT = re.compile(
    r"(?:(?:no|nope|actually|wait|hmm+|sorry|oh|ugh|ok(?:ay)?)[\s,.!]+)*"
    r"(?:(?:(?:the|my)\s+)?(?:first|original|earlier|previous|initial)"
    r"(?:\s+(?:one|number|amount|value|figure|date|address|email|price))?"
    r"\s+(?:was|is)\s+(?:right|correct|fine|ok(?:ay)?|good)(?:\s+after\s+all)?"
    r"|(?:let['\u2019]?s\s+)?go\s+back\s+to\s+the\s+(?:first|original)"
    r"(?:\s+(?:one|number|amount|value|figure|date))?|(?:keep|use)\s+the\s+(?:first|original)"
    r"(?:\s+(?:one|number|amount|value|figure|date))?(?:\s+after\s+all)?)",
    ICASE,
)
#: A question that asks for a reason.
_WHY = re.compile(r"\s*(?:but\s+|and\s+|so\s+)?why\b", ICASE)
#: "do repairs come with a warranty?", "are cancellations free?": a question whose subject is a
#: request in general (its word in the plural); group ``w`` is that word.
_IN_GENERAL = re.compile(
    r"\s*(?:(?:but|and|so)\s+)?(?:do|are|will|can|could|would|should|must|how\s+do)\s+"
    r"(?P<w>[a-z]+s)\s+(?!(?:on|for|of)\s)",
    ICASE,
)
#: A value said, then asked to be checked: "…, is that right?", "… correct?", "right?".
_CHECKING = re.compile(
    r"(?:(?:is|was)\s+(?:that|this|it)\s+(?:right|correct|ok|okay|still\s+(?:right|correct|valid))"
    r"|(?:that'?s|this\s+is)\s+(?:right|correct)(?:\s*,?\s*(?:isn'?t\s+it|yes|no|right))?"
    r"|right|correct|yes|no|isn'?t\s+it|am\s+i\s+right|can\s+you\s+(?:check|confirm)(?:\s+that)?"
    r"|(?:could|can)\s+you\s+double[-\s]?check(?:\s+that)?)\s*\?*",
    ICASE,
)
#: Words that send one thing somewhere, and words that make a value the one used from now on.
_SEND_WORDS = frozenset({"send", "sending", "write", "writing", "reach", "get", "touch"})
_FROM_NOW = frozenset(
    {
        "now",
        "forward",
        "forwards",
        "future",
        "onwards",
        "instead",
        "new",
        "changed",
        "moved",
        "updated",
        "latest",
        "current",
        "use",
        "using",
        "everything",
        "all",
    }
)
#: A share of what the workflow proposes, said alone: "the full amount", "half", "all of it".
_WHOLE_SHARE = re.compile(
    r"(?:the\s+)?(?:half|a\s+third|a\s+quarter|(?:the\s+)?(?:whole|full|entire)(?:\s+(?:thing|amount"
    r"|sum|price|lot))?|everything|all\s+of\s+it|in\s+full)",
    ICASE,
)
#: "What I (really) need is …": a request said as a cleft, not a question.
_WHAT_I_NEED = re.compile(
    r"what\s+(?:i|we)\s+(?:(?:do|really|actually|would|'d)\s+)?(?:need|want|like|ask)"
    r"(?:\s+from\s+you)?\s+is\b",
    ICASE,
)
#: What joins a clause to the request before it: "and …", "… too", "same for …".
_JOINED = re.compile(
    r"^\s*(?:and|also|plus|then|same|what\s+about|how\s+about)\b|\b(?:too|as\s+well|also)\W*$",
    ICASE,
)
#: Where a clause turns to what the speaker wants: "…, but I think …", "… so …".
_TURNS_TO = re.compile(r"[\s,;]+(?:but|and|so|though|although|however|yet)[\s,]+", ICASE)
#: A question that is only a pronoun: "is it?", "does it still?", "is that so?".
_BARE_ASK = re.compile(
    r"(?:is|was|are|does|did|has|will|would|can)\s+(?:it|that|this|they|she|he)"
    r"(?:\s+(?:still|now|really|too|yet|though|even|so|at\s+least|or\s+not))*\s*\??",
    ICASE,
)
#: Words that point back to something said before: "that payment", "do the same".
_FRAME_WORD = re.compile(r"^(?:to|into|as)\s+(?=\S)", ICASE)
_FRAME_AT = re.compile(_FRAME_WORD.pattern.removeprefix("^"), ICASE)
_WRONG_ONE = re.compile(
    r"(?:the\s+)?wrong(?:\s+\w+)?|(?:that|this|it)(?:['\u2019]s|\s+(?:was|is))\s+(?:the\s+|an?\s+)?"
    r"(?:old|wrong|previous|outdated)(?:\s+(?:one|[\w-]+))?",
    ICASE,
)
#: "ok then …", "then …": what is said next is offered instead of what came before.
_THEN_LEAD = re.compile(r"(?:(?:ok(?:ay)?|right|fine|alright|well)[\s,]+)?then[\s,:]*", ICASE)
#: "the new one is …", "the right one is …": a correction even without a marker before it.
_NEW_ONE = re.compile(
    r"(?:the\s+)?(?:new|right|correct|real|actual)\s+(?:one|[\w-]+)\s+(?:is|should\s+be|=|:)\s*\S",
    ICASE,
)
_ARROW_AT = re.compile(r"->|=>|\u2192")
_JOINED_BEFORE = re.compile(r"(?<!\w)(?:and|also|plus)\s+$", ICASE)
_IF_FIRST_WORD = re.compile(r"(?:only\s+)?if\s", ICASE)
HYPOTHETICAL_IF = re.compile(
    r"(?:what|how|would|could|will|can)\b.*\bif\b|suppose|imagine|hypothetically", ICASE
)
_IF = re.compile(r"(?:if|suppose|supposing|imagine|what\s+if)\b", ICASE)
#: "75 is fair", "13 was right": a corrected value with the speaker's verdict on it.
_VERDICT = re.compile(
    r"\s+(?:is|was|would\s+be|sounds|seems|is\s+what\s+i\s+meant)\s+"
    r"(?:fair|right|correct|better|fine|ok(?:ay)?|good|it)(?:\s+after\s+all)?$",
    ICASE,
)
#: "30 not 20", "25 instead of 20": the new value, then the one it replaces.
_NOT_THAT = re.compile(
    r"[\s,]+(?:not|instead\s+of|rather\s+than)\s+(?:the\s+)?(?:\w+\s+)?[#\w€$£.,]+[\s.!]*$", ICASE
)
#: "not 30, 35", "not 30 but 35": the denied value, then the one meant.
_NOT_X_BUT = re.compile(
    r"(?:no[\s,]+)?not\s+(?P<old>[^\s,;]+(?:\s+[^\s,;]+)?)(?:\s*[,;:\u2013\u2014-]\s*|\s+but\s+)(?=\S)",
    ICASE,
)
#: Between two cases of a list: "4711 and 4712", "4711, 4712 & 4713".
_CASE_LIST_GAP = re.compile(
    r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*|plus\s+|as\s+well\s+as\s+)\s*", ICASE
)
#: What people say around a corrected value ("that's the old one, the new one is …", "wrong
#: one, set it to …"): taken off so the value is what is left.
_RESTATED = (
    re.compile(
        r"(?:(?:that'?s|that\s+is|it'?s|this\s+is)\s+(?:the\s+|an?\s+)?(?:old|wrong|previous"
        r"|outdated)(?:\s+[\w-]+)?[\s,;.:\u2013\u2014-]+)?(?:the\s+)?(?:new|right|correct|real"
        r"|actual|current)\s+(?:one|[\w-]+)\s+(?:is|should\s+be|=|:)\s*(?P<v>\S.*)",
        ICASE,
    ),
    re.compile(
        r"(?:the\s+)?wrong(?:\s+[\w-]+)?\s*[,;:\u2013\u2014-][\s,;:\u2013\u2014-]*(?:(?:set|change|make|update|put)"
        r"\s+(?:it|that)\s+(?:to|as)\s+|(?:it'?s|it\s+is|it\s+should\s+be)\s+)?(?P<v>\S.*)",
        ICASE,
    ),
    re.compile(
        r"(?:set|change|make|update|put)\s+(?:it|that)\s+(?:to|as)(?:\s*:\s*|\s+)(?P<v>\S.*)", ICASE
    ),
    # "30 was wrong, 3", "the date was a typo - it's the 14th": the old value, then the new.
    re.compile(
        r"\S.*?\s+(?:was|is)\s+(?:wrong|incorrect|a\s+typo|a\s+mistake)\s*[,;:.\u2013\u2014-]"
        r"[\s,;:.\u2013\u2014-]*(?:(?:it'?s|it\s+is|it\s+should\s+be|make\s+it|i\s+meant)\s+)?"
        r"(?P<v>\S.*)",
        ICASE,
    ),
    # "typo, it's ana@x.pt": what it is, said after owning up to the slip.
    re.compile(r"(?:it'?s|it\s+is|it\s+should\s+be)\s+(?P<v>\S.*)", ICASE),
)
#: A reason said after a corrected value ("35 to be safe"): not part of the value.
_HEDGE = re.compile(
    r"[\s,]+(?:(?:just\s+)?to\s+be\s+(?:safe|sure)|just\s+in\s+case)[\s.!]*$", ICASE
)


@functools.cache
def _none(field_pattern: str) -> re.Pattern[str]:
    """ "no note", "none", "nothing at all": a correction that takes the change back."""
    return re.compile(
        rf"(?:no|none|nothing)(?:\s+(?:the\s+)?(?P<f>{field_pattern}))?(?:\s+at\s+all)?"
        r"(?:\s+(?:after\s+all|then|please))?",
        ICASE,
    )


@functools.cache
def _field_says(field_pattern: str) -> re.Pattern[str]:
    """ "the note should say: call back tuesday": the field named, then its new value."""
    return re.compile(
        rf"(?:the\s+|my\s+|our\s+)?(?P<f>{field_pattern})\s+(?:should|must|needs\s+to|has\s+to)"
        r"\s+(?:say|read|be)\s*:?\s*(?P<v>\S.*)",
        ICASE,
    )


def _not_that(value: str) -> str:
    """ "30 not 20", "Joana not Marta": the value without the one it replaces. Words after
    "not" that look like no value ("taxi not booked yet") are the value's own words."""
    m = _NOT_THAT.search(value)
    if m is None:
        return value
    denied = re.sub(
        r"^[\s,]*(?:not|instead\s+of|rather\s+than)\s+(?:the\s+)?", "", m.group(0), flags=ICASE
    ).strip(" .!")
    words = denied.split()
    valued = any(c.isdigit() or c in "#€$£" for c in denied)
    if len(words) > 1 and not valued and not all(w[:1].isupper() for w in words):
        return value
    return value[: m.start()]


def _restated(value: str) -> str:
    for pattern in _RESTATED:
        m = pattern.fullmatch(value)
        if m is not None:
            return m.group("v")
    return value


#: "…, and for 4712 …" after a value: where a follow-up clause starts.
_JOINED_TAIL = re.compile(r"[\s,;'\"\u201d\u2019]*(?:and|also|plus)\s+(?=\S)", ICASE)
_MAKE_IT = re.compile(
    r"(?:make\s+(?:it|that)|i\s+mean|rather|(?:change|set|update|put)\s+(?:it|that)\s+to)"
    r"(?:\s*:\s*|\s+)",
    ICASE,
)


@functools.cache
def _owner_before_verb(nouns: str) -> re.Pattern[str]:
    """ "for order 1002 set …", "on #1001, add …": a case, then the verb of a change."""
    return re.compile(
        rf"(?:for|on|in)\s+(?:the\s+|my\s+|our\s+)?(?:(?:{nouns})s?\s+)?"
        r"(?:(?:no\.?|nr\.?|number)\s*)?(?P<id>#?[\w-]+)[\s,:]+"
        r"(?=(?:please\s+)?(?:set|change|update|add|put|write|make|correct|fix)\s)",
        ICASE,
    )


@functools.cache
def _item_field(field_pattern: str) -> re.Pattern[str]:
    """A list item naming a field and its value: "a note saying 'x'", "the email changed to
    V", "new limit: 900"."""
    return re.compile(
        r"(?:(?:a|an|the|my|our)\s+)?(?:new\s+|updated\s+)?"
        rf"(?P<f>{field_pattern})\s*(?::|=|saying|that\s+says|reading|to\s+say"
        r"|(?:changed|updated|set)\s+to|to\s+be)\s*(?P<v>\S.*)",
        ICASE | re.DOTALL,
    )


@functools.cache
def _record_word(nouns: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{nouns}|no\.?|nr\.?|number|#)", ICASE)


@functools.cache
def _no_value(field_pattern: str) -> re.Pattern[str]:
    return re.compile(
        r"(?:(?:change|set|update|edit|fix|modify|correct)\s+(?:the\s+|my\s+|our\s+|its\s+)?"
        r"|(?:add|write|leave|put)\s+(?:a\s+|an\s+|another\s+|the\s+)?)"
        rf"(?P<f>{field_pattern})(?:\s+(?:on|of|for|in)\s+(?:the\s+|my\s+|our\s+)?[\w#'\u2019.-]+"
        r"(?:\s+[\w#-]+)?)?",
        ICASE,
    )


@functools.cache
def _wrong_value(field_pattern: str) -> re.Pattern[str]:
    """ "the email on order 1001 is wrong": a field said to need a new value, not given yet."""
    return re.compile(
        r"(?:(?:the|my|our|its)\s+)?"
        rf"(?P<f>{field_pattern})(?:\s+(?:on|of|for|in)\s+(?:the\s+|my\s+|our\s+)?[\w#'\u2019.-]+"
        r"(?:\s+[\w#-]+)?)?\s+(?:is|are|was)\s+(?:(?:still|now|all)\s+)?"
        r"(?:wrong|incorrect|outdated|out\s+of\s+date|old|not\s+(?:right|correct|valid))",
        ICASE,
    )


#: After a field named without its value: ", it should be V", ", the new one is V".
_VALUE_FOLLOWS = re.compile(
    r"[\s,;:.\u2013\u2014-]*(?:(?:please|thanks|thank\s+you)[\s,;:.!\u2013\u2014-]*)?"
    r"(?:(?:and|but|so)\s+)?(?:it|that|this|(?:the\s+)?new\s+one"
    r"|(?P<new>the\s+(?:new|right|correct)\s+[\w-]+))\s+(?:(?P<should>should\s+(?:be|say|read)"
    r"|must\s+(?:be|say)|needs\s+to\s+(?:be|say)|has\s+to\s+be)|is\s+now|will\s+be|is)\s+(?=\S)",
    ICASE,
)
#: After a field named without its value, the next sentence spelling it out: "…? Put
#: exactly: V", ". Write this: V", ". It should say: V".
_VALUE_SPELLED = re.compile(
    r"(?:\s+[^.?!:\n\"\u201c]{1,80})?[.?!]+\s+(?:please\s+)?"
    r"(?:put|write|type|make\s+it|it\s+should\s+(?:say|read)|say)"
    r"(?:\s+(?:exactly|literally|this|the\s+following|word\s+for\s+word))?\s*:\s*(?=\S)",
    ICASE,
)
#: Where such a value ends: a sentence end, or a comma before a new thought.
_FOLLOWED_VALUE_END = re.compile(
    r"[.!?;](?=\s|$)|\n|,\s+(?=(?:and|but|so|i|we|please|also|thanks|thank)\b)", ICASE
)

_RENAME_ALONE = re.compile(
    r"(?:rename|retitle)\s+(?:it|this|that|(?:the|this|that|my|our)\s+[\w-]+)", ICASE
)


@attrs.define
class Reader:
    text: str
    vocab: Vocabulary
    targets: Targets
    aliases: tuple[AliasMatch, ...]
    ctx: ParseContext
    plan: PlanBuilder
    previous: tuple[Act, ...] = ()  # the previous turn's acts (context, never evidence)
    _last_condition: ActCondition | None = None
    #: Text an act already read past its own clause (a value said in the next clause).
    _read_up_to: int = 0
    _clause_end: int = 0  # where the clause being read ends
    #: An operation announced before a list ("please add the following:"): its items are
    #: its objects.
    _listed: OperationReading | None = None

    def read(self, clause: Clause) -> None:
        s, e = max(clause.start, self._read_up_to), clause.end
        if s >= e:
            return
        self._clause_end = e
        if clause.greeting:
            self.targets.addressed.append((s, e))
        if clause.small_talk or CHITCHAT.fullmatch(self.text, s, e):
            self._emit(ChitchatAct(evidence=self.plan.evidence((s, e))))
            return
        if clause.marker is None and _WANT_TO_KNOW.match(self.text, s, e):
            self._question(clause, s, e)  # "I want to know how much …" (no filler to take off)
            return
        s, e = self._without_fillers(s, e)
        if s >= e:
            return
        if clause.question and self._checking(s, e):
            return
        if self._back_to_first(s, e):
            return
        back = clause.marker is None and _AFTER_ALL.search(self.text, s, clause.end)
        if back and _LEADING_VALUE.match(self.text, s, e):  # "13 March after all": corrects
            clause = attrs.evolve(clause, marker="after all")
        told = _TOLD_YOU.match(self.text, s, e)
        if clause.marker is None and told is not None and told.end() < e:
            # "I've told you five times my email is V": the complaint, then the statement
            self.read(attrs.evolve(clause, start=told.end(), lead=told.end()))
            return
        if self._put_it_on(s, e):
            return
        if clause.marker is None and self._record_answered(s, e):
            return  # "pay 20" → which one? → "order 1001": the change on that record
        if clause.marker is None and self._framed_before_colon(clause, s, e):
            return  # "Please do the following for order 1001: set the note to …"
        listed = self._listed_item(clause, s, e) or self._announced(clause, s, e)
        if clause.marker is None and listed:
            return  # "please add the following:" and its items
        if clause.marker is None and self._frame(clause, s, e):
            return  # "Re: order 1002", "Could you:" before a list: the record, then the items
        if clause.marker is None and story(self.text, s, e):
            colon = self.text.find(":", s, e)
            if colon > s and story(self.text, s, colon) and self.text[colon + 1 : e].strip():
                # "I've asked three times: set the limit to 900": the story, then the request
                self.plan.not_understood(s, colon)
                self.read(attrs.evolve(clause, start=colon + 1, lead=colon + 1))
                return
            if _ASKS_WHETHER.match(self.text, s, e):
                self._question(clause, s, e)  # "I was wondering if the order was sent"
            else:
                self.plan.not_understood(s, e)  # "I booked it in May": a story, never an act
            return
        headed = self._case_heading(s, e)
        if headed is None:
            headed = self._owner_first(s, e)
        if headed is not None:
            s, e = self._without_fillers(headed, e)  # "Order 1002: please add …"
            if s >= e:
                return
        body = self.text[s:e]
        if self._recall(s, e) or self._conditional(clause, s, e):
            return
        if _ASKS_WHETHER.match(self.text, s, e):
            self._question(clause, s, e)  # "let me know whether the warranty is still valid"
            return
        readers = (self._cancel, self._keep, self._take_back, self._constraint)
        if any(reader(clause, s, e) for reader in readers):
            return
        if self._arrowed_before_a_field(clause, s, e):
            return
        if clause.marker is None and self._verbless_after_operation(clause, s, e):
            return
        asked = QUESTION_OPENING.match(body) is not None or _IF.match(body) is not None
        asked = asked and _WHAT_I_NEED.match(body) is None  # "what I need is a note: …"
        if self._action(clause, s, e, asked=asked, question_mark=clause.question):
            return
        if clause.marker is None and self._wanted_choice(s, e):
            return  # "the second visit must be on 20 March": that visit moved, on a card
        if clause.marker is None and (self._agreed(s, e) or self._implied(clause, s, e)):
            return  # "that works for me", "50 euros would be fair": a request without its verb
        if _STAYS.fullmatch(body):
            self.plan.not_understood(s, e)  # "the rest can stay as it is": nothing to change
            return
        arrowed = read_arrowed_operation(
            self.text, (s, e), self.vocab, self.targets, ctx=self.ctx, aliases=self.aliases
        )
        if arrowed is not None:  # "X -> 11 March": the one carded operation it can mean
            self._operation(clause, arrowed, (s, e))
            return
        short = _SHORT_FOLLOW_UP.fullmatch(body) or _SHORT_FOLLOW_UP.fullmatch(
            self.text, clause.start, e
        )  # "and 1002?": the "and" a filler trim took off still marks a follow-up
        if short and self._follow_up(s, e):
            return  # "and 1002?", "what about Rui?": the previous act on another case
        if self._it_is_the_field_asked(clause, s, e):
            return
        verb = asked_field_request(self.text, s, e) if asked else s
        if (asked or clause.question) and verb is not None and self._field_without_value(verb, e):
            return  # "could you put a note on it? Write: …", "could you change the email?"
        if self._shaped_value(s, e):
            return  # "please use ana@new.pt from now on": the one field that takes its shape
        bare = bare_question(self.text, s, e, self.vocab, self.targets)  # "status of 4711"
        if looks_like_question(body, clause.question) or bare:
            self._question(clause, s, e)
        elif self._field_without_value(s, e):
            return  # "change the note": which value is asked, nothing is guessed
        elif not (
            self._correction(clause, s, e)
            or (clause.marker is None and self._follow_up(s, e))
            or self._then_instead(clause, s, e)
        ):
            self.plan.not_understood(s, e)
            if clause.marker is not None:
                self._doubt_last_change()
            elif short or FOLLOW_UP.fullmatch(self.text, clause.start, clause.end):
                self._hold_last_change()  # "… and the garage too": what else is meant?

    def _announced(self, clause: Clause, s: int, e: int) -> bool:
        """ "please add the following:", "could you add:" before a list: an operation whose
        object is the list after it. Nothing is done here; each item is read as its object.
        With no list after it, the object is asked for ("add the following" alone)."""
        if clause.intro:
            self._listed = None  # a new list: the items of the one before are over
        op = read_operation(
            self.text, (s, e), self.vocab, self.targets, ctx=self.ctx, aliases=self.aliases
        )
        if op is None:
            return False
        declared = self.vocab.operation(op.operation)
        object_arg = next((a for a in declared.arguments if a.required and a.type is str), None)
        if object_arg is None:
            return False
        said = op.args.get(object_arg.name, "")
        forward = bool(said) and LIST_AHEAD.fullmatch(said) is not None
        listed = clause.intro and (not said or LIST_OBJECT.fullmatch(said) is not None)
        if not (forward or listed):
            return False
        args = {k: v for k, v in op.args.items() if k != object_arg.name}
        if listed or self.text[clause.end :].strip(TRIM):
            self._listed = attrs.evolve(op, args=args)
            return True
        act = OperationAct(
            target=op.target,
            operation=op.operation,
            args=args,
            evidence=self.plan.evidence((s, e)),
            confirm=True,
        )
        self._emit(act, Note(operation=op.operation, args=args))  # its object is asked for
        return True

    def _listed_item(self, clause: Clause, s: int, e: int) -> bool:
        """An item of a list an operation announced ("- a guide", "2) two city maps"): the
        operation with that item as its object. An item that opens with a verb of its own
        is read as a request of its own."""
        listed = self._listed
        if not clause.item:
            return self._field_item(s, e, same_field=True)
        if listed is None:
            return self._field_item(s, e)
        if self.vocab.starters.match(self.text, s, e):
            self._listed = None  # a request of its own: the list of objects is over
            return False
        declared = self.vocab.operation(listed.operation)
        reading = read_arguments(
            declared, self.text, s, e, ctx=self.ctx, aliases=self.aliases, object_start=s
        )
        if reading.unread or not reading.args:
            return False
        args = {**listed.args, **reading.args}
        act = OperationAct(
            target=listed.target,
            operation=listed.operation,
            args=args,
            evidence=self.plan.evidence((s, e)),
        )
        self._emit(act, Note(operation=listed.operation, args=args))
        return True

    def _field_item(self, s: int, e: int, *, same_field: bool = False) -> bool:
        """ "• a note saying 'VIP guest'", "- the email changed to V": a list item that names
        a field with its value, the verb left to the intro ("I need:"): that field's change.
        With ``same_field``, the clause follows a change of that field in the same turn ("add
        a note saying 'x' on 1001 and for 1002 a note saying 'y'"), on the record it names."""
        target: Any = None
        said = self._named_cases(s, e)
        if said and _ITEM_OWNER.fullmatch(self.text, s, said[0].start):
            target = LabelTarget(label=said[0].label)
            s = said[0].end
            while s < e and self.text[s] in TRIM:
                s += 1
        m = _item_field(self.vocab.field_pattern).fullmatch(self.text, s, e)
        if m is None:
            return False
        value, span = clean_value(self.text, m.span("v"), self.aliases)
        name = self.vocab.field_named(m.group("f"))
        declared = self.vocab.workflow.field(name)
        if not value or declared is None:
            return False
        if same_field:
            index = self.plan.last_change()
            before = None if index is None else self.plan.acts[self.plan.root(index)]
            if not isinstance(before, SetFieldAct) or before.field != name or target is None:
                return False
        try:
            declared.parse(value, self.ctx)
        except ValueError:
            return False
        act = SetFieldAct(
            target=target or self.targets.find(s, e, [span]),
            field=name,
            value=value,
            evidence=self.plan.evidence((s, e)),
        )
        self._emit(act, Note(field=name, span=(s, e)))
        return True

    def _frame_words(self, s: int, e: int) -> list[Any] | None:
        """The records a clause names when its other words only frame them ("Re: order
        1002", "this is about my order 1001", "for 1001"); None when it says more."""
        said = self._named_cases(s, e)
        if len({m.label for m in said}) > 1:
            return None
        rest, at = [], s
        for m in said:
            rest.append(self.text[at : m.start])
            at = m.end
        rest.append(self.text[at:e])
        words = re.findall(r"[\w'\u2019]+", " ".join(rest).casefold())
        nouns = _record_word(self.vocab.record_nouns)
        if not all(w in FRAME_WORDS or nouns.fullmatch(w) for w in words):
            return None
        return said

    def _unknown_heading(self, s: int, e: int) -> bool:
        """ "Re: the Porto case - …": a heading that names a record that is none of the
        user's. The requests after it are about that record: the reducer asks which one is
        meant, never puts them on another."""
        owner = unnamed_owner(self.text, s, e, self.vocab)
        if owner is None or owner[1] is None or not self.text[e:].strip(TRIM):
            return False
        rest = self.text[s : owner[0][0]] + " " + self.text[owner[0][1] : e]
        words = re.findall(r"[\w'\u2019]+", rest.casefold())
        if not all(w in FRAME_WORDS for w in words):
            return False
        self.targets.remember(owner[1])
        return True

    def _record_answered(self, s: int, e: int) -> bool:
        """ "order 1001" alone, after a change the previous turn could not place on a record
        (the reducer asked which): that change, on the record now named."""
        if any(not isinstance(a, ChitchatAct) for a in self.plan.acts):
            return False
        said = self._frame_words(s, e)
        earlier = [a for a in self.previous if isinstance(a, SetFieldAct | OperationAct)]
        if not said or not earlier or self.text[e:].strip(TRIM):
            return False
        last = earlier[-1]
        if last.target != LabelTarget(label=""):
            return False
        target = LabelTarget(label=said[0].label)
        act = attrs.evolve(last, target=target, evidence=self.plan.evidence((s, e)))
        if isinstance(act, OperationAct):
            self._emit(act, Note(operation=act.operation, args=act.args))
        else:
            self._emit(act, Note(field=act.field, span=(s, e)))
        return True

    def _framed_before_colon(self, clause: Clause, s: int, e: int) -> bool:
        """ "Please do the following for order 1001: set the note to …": a frame that
        announces the requests and names their record, then the first request in the same
        clause. The frame is read as one, the words after the colon as the next clause."""
        colon = self.text.find(":", s, e)
        if colon <= s or not self.text[colon + 1 : e].strip(TRIM):
            return False
        if self._several_headed(s, colon):
            # "Re orders 1001 and 1002: pay 10 euros on 1001 only": the heading names
            # records; the request after it names its own
            self.read(attrs.evolve(clause, start=colon + 1, lead=colon + 1, question=False))
            return True
        if _POINTS_AHEAD.search(self.text, s, colon) is None or not self._frame_words(s, colon):
            return False
        if not self._frame(attrs.evolve(clause, end=colon, intro=True), s, colon):
            return False
        self.read(attrs.evolve(clause, start=colon + 1, lead=colon + 1, question=False))
        return True

    def _several_headed(self, s: int, e: int) -> bool:
        """ "Re orders 1001 and 1002": a heading ("re", "regarding", "about") that names more
        than one record and nothing else."""
        if _RE_HEADING.match(self.text, s, e) is None:
            return False
        said = self._named_cases(s, e)
        if len({m.label for m in said}) < 2:
            return False
        rest, at = [], s
        for m in said:
            rest.append(self.text[at : m.start])
            at = m.end
        rest.append(self.text[at:e])
        words = re.findall(r"[\w'\u2019]+", " ".join(rest).casefold())
        nouns = _record_word(self.vocab.record_nouns)
        return all(
            w in FRAME_WORDS or w == "and" or nouns.fullmatch(w) or nouns.fullmatch(w.rstrip("s"))
            for w in words
        )

    def _frame(self, clause: Clause, s: int, e: int) -> bool:
        """A clause that only frames the requests around it: it names their record ("Re:
        order 1002", "I'm <name>", "this is about my order 1001") before any change is read,
        or announces a list ("Could you:", "please do the following for 1001"). The record
        becomes the current one; nothing else is done and nothing is left unread."""
        if not self._named_cases(s, e) and self._unknown_heading(s, e):
            return True
        said = self._frame_words(s, e)
        if said is None:
            return False
        announces = clause.intro or ANNOUNCES.search(self.text, s, e) is not None
        # A record alone is a heading only before the requests it heads: said alone, it
        # answers the question before it or follows up the previous turn ("and 1002?").
        requests_follow = bool(self.text[clause.end :].strip(TRIM))
        heading = bool(said) and requests_follow and self.plan.last_change() is None
        if not (announces or heading):
            return False
        if said:
            self.targets.remember(LabelTarget(label=said[0].label))
        return True

    def _shaped_value(self, s: int, e: int) -> bool:
        """ "please use ana@new.pt from now on", "you can reach me at V going forward": one
        value whose shape only one field takes (a text field whose validator refuses plain
        words), said with words that only ask to use it from now on: that field's change.
        Any other word (a negation, another value, an object) and nothing is read."""
        shaped = [
            f.name
            for f in self.vocab.workflow.fields
            if f.type is str
            and typed_value_ok(self.vocab, f.name, "some words", self.ctx) is False
            and f.validate is not None
        ]
        if not shaped:
            return False
        found: list[tuple[str, Span]] = []
        words: list[str] = []
        named = self._named_cases(s, e)
        replaced = _REPLACED.search(self.text, s, e)  # "use V instead of the old one W"
        if replaced is not None:
            e = replaced.start()
        for m in re.finditer(r"\S+", self.text[s:e]):
            token = m.group(0).strip("\"'()<>[],.;:!?\u201c\u201d\u2018\u2019")
            fields = [f for f in shaped if token and typed_value_ok(self.vocab, f, token, self.ctx)]
            if fields:
                at = s + m.start() + m.group(0).find(token)
                found.extend((f, (at, at + len(token))) for f in fields)
            elif not any(n.start <= s + m.start() < n.end for n in named):
                words.extend(re.findall(r"[\w'\u2019]+", m.group(0).casefold()))
        if len(found) != 1 or len({n.label for n in named}) > 1:
            return False
        if QUESTION_OPENING.match(self.text, s, e):
            return False  # "is V the email on file?": a question about the value
        field, span = found[0]
        own = {w for p, n in self.vocab.field_names.items() if n == field for w in p.split()}
        nouns = _record_word(self.vocab.record_nouns)
        said = [w for w in words if not nouns.fullmatch(w)]
        if not said or not all(w in USE_WORDS or w in own for w in said):
            return False
        if any(w in _SEND_WORDS for w in said) and not any(w in _FROM_NOW for w in said):
            return False  # "send it to V": where one thing goes, not the record's new value
        value = self.text[span[0] : span[1]]
        target = self.targets.find(s, e, [span])
        evidence = self.plan.evidence((s, e))
        act = SetFieldAct(target=target, field=field, value=value, evidence=evidence)
        self._emit(act, Note(field=field, span=(s, e)))
        return True

    def _agreed(self, s: int, e: int) -> bool:
        """ "that works for me", "go ahead", "can we do that": agreement with what was
        proposed. After a change read in this turn it asks for that change (nothing more);
        after an operation of the previous turn that waits for a card, its card is shown
        again (only a click confirms it); with neither, the one operation the one amount said
        in the message implies waits for a card ("he mentioned 30 euros. can we do that")."""
        if not AGREED.fullmatch(self.text, s, e):
            return False
        if self.plan.last_change() is not None:
            return True
        if any(not isinstance(a, ChitchatAct) for a in self.plan.acts):
            return False
        earlier = [a for a in self.previous if isinstance(a, SetFieldAct | OperationAct)]
        if not earlier:
            return self._implied_by_amount(s, e)
        last = earlier[-1]
        declared = None
        if isinstance(last, OperationAct):
            declared = self.vocab.workflow.operation(last.operation)
        if declared is None or not isinstance(last, OperationAct):
            return False
        carded = needs_confirmation(declared.policy, is_destructive=declared.is_destructive)
        if not (last.confirm or carded):
            return False
        act = attrs.evolve(last, evidence=self.plan.evidence((s, e)), confirm=True)
        self._emit(act, Note(operation=last.operation, args=last.args))
        return True

    def _implied_by_amount(self, s: int, e: int) -> bool:
        """ "… he mentioned 30 euros. can we do that": the one amount said elsewhere in the
        message, and the one operation argument it fits, on a card."""
        said = amount_pointed_at(self.text, s, e)
        if said is None:
            return False
        value = said.group("money")
        options = [o for o in implied_places(value, self.vocab, self.ctx) if o[1] is not None]
        if len(options) != 1:
            return False
        name, argument = options[0]
        assert argument is not None
        args = {argument: value}
        evidence = (*self.plan.evidence(said.span("money")), *self.plan.evidence((s, e)))
        act = OperationAct(
            target=self.targets.default(),
            operation=name,
            args=args,
            evidence=evidence,
            confirm=True,
        )
        self._emit(act, Note(operation=name, args=args, numbers=(argument,)))
        return True

    def _implied(self, clause: Clause, s: int, e: int) -> bool:
        """ "50 euros would be fair", "I'd be happy with 30 back on 1001": a value with a
        verdict and no verb (``implied``). In reply to the previous turn's change it completes
        that change; otherwise the one change it implies waits for a card that shows it (the
        card asks; a record not named is asked for), never runs unseen. Words before a turn
        ("I'm not asking for everything back but I think 50 would be fair") are weighed as
        unread, never taken as the value."""
        said = self._named_cases(s, e)
        if len({m.label for m in said}) > 1:
            return False
        spans = [(m.start, m.end) for m in said]
        inner = without_record(self.text, (s, e), spans, self.vocab.record_nouns)
        turns = [t.end() for t in _TURNS_TO.finditer(self.text, *inner)]
        for start in (inner[0], *turns):
            found = implied_value(self.text, start, inner[1], spans, self.vocab.record_nouns)
            if found is None or any(
                a < found.value_span[1] and found.value_span[0] < b for a, b in spans
            ):
                continue
            target = LabelTarget(label=said[0].label) if said else None
            if self._implied_change(clause, found, target, (start, inner[1]), (s, e)):
                if start > inner[0]:
                    self.plan.not_understood(*self._without_fillers(inner[0], start))
                return True
        return False

    def _implied_change(
        self, clause: Clause, found: Any, target: Any, inner: Span, span: Span
    ) -> bool:
        earlier = [a for a in self.previous if isinstance(a, SetFieldAct | OperationAct)]
        replies = bool(earlier) and target in (None, earlier[-1].target)
        if replies and self._corrected_earlier(clause, found.value, found.value_span):
            return True  # "move it back" … "the 20th of March would be great"
        where = target if target is not None else self.targets.default()
        evidence = self.plan.evidence(span)
        v_start, v_end = found.value_span
        words = self.text[inner[0] : v_start] + " " + self.text[v_end : inner[1]]
        field = implied_field(words, self.vocab)
        named = implied_field_value(found.value, self.vocab)
        if field is None and named is not None:  # "I'd be happy with a limit of 1500"
            field, value = named
            found = attrs.evolve(found, value=value)
        if field is None:
            options = implied_places(found.value, self.vocab, self.ctx)
            if len(options) != 1:
                return False
            name, argument = options[0]
            if argument is not None:  # the one operation it implies, on a card
                args = {argument: found.value}
                act: Any = OperationAct(
                    target=where, operation=name, args=args, evidence=evidence, confirm=True
                )
                self._emit(act, Note(operation=name, args=args, numbers=(argument,)))
                return True
            field = name
        act = SetFieldAct(
            target=where, field=field, value=found.value, evidence=evidence, confirm=True
        )
        self._emit(act, Note(field=field, span=span))  # a card shows the change it implies
        return True

    def _conditional(self, clause: Clause, s: int, e: int) -> bool:
        """ "If C, A" / "A if C" / "otherwise A": A's acts carry the condition (or, after
        "otherwise", its negation). An "if" clause whose condition the workflow does not
        declare is left unread rather than run unconditionally."""
        if asks_whether_allowed(self.text[s:e]):  # "can I get X without Y?": a question
            self._question(clause, s, e)
            return True
        otherwise = OTHERWISE.fullmatch(self.text, s, e)
        if otherwise is not None and self._last_condition is not None:
            flipped = attrs.evolve(self._last_condition, holds=not self._last_condition.holds)
            a_start, a_end = otherwise.span("act")
            if not does_nothing(self.text, a_start, a_end):  # "otherwise leave it": no act
                self._conditioned(clause, (a_start, a_end), flipped)
            return True
        so = _IF_SO.match(self.text, s, e)
        asked = None if so is None else self._asked_condition()
        if so is not None and asked is not None:
            holds = so.group("neg") is None
            flipped = asked if holds else attrs.evolve(asked, holds=not asked.holds)
            self._last_condition = flipped
            self._conditioned(clause, (so.end(), e), flipped)
            return True
        if _IF_CLAUSE.search(self.text, s, e) is None:
            return False
        if _ASKS_WHETHER.match(self.text, s, e):
            return False  # "tell me if the warranty is still valid": a question, not a condition
        if HYPOTHETICAL_IF.match(self.text, s, e):
            return False  # "what would happen if …": a question
        reading = read_condition(self.text, s, e, self.vocab)
        if reading is None:
            if _IF_FIRST_WORD.match(self.text, s, e) and not clause.question:
                self.plan.not_understood(s, e)
                return True
            return False
        self._last_condition = reading.condition
        a_start, a_end = reading.act_span
        rest = _OTHERWISE_INSIDE.search(self.text, a_start, a_end)
        before = len(self.plan.acts)
        self._conditioned(clause, (a_start, rest.start() if rest else a_end), reading.condition)
        # "only pay 1001 if the invoice is in — 40 euros": the value after the dash is
        # the conditioned request's
        if reading.unread is not None and not self._more_args(before, reading.unread):
            self.plan.not_understood(*reading.unread)
        if rest is not None:
            self._conditional(clause, rest.start("tail"), a_end)
        elif reading.otherwise is not None:
            tail = _OTHERWISE_INSIDE.match(self.text, *reading.otherwise)
            if tail is not None:
                self._conditional(clause, tail.start("tail"), reading.otherwise[1])
        return True

    def _case_heading(self, s: int, e: int) -> int | None:
        """ "Ticket 4711: close", "Anna - note: VIP": a case named first, then what to
        do with it; the case becomes the current one and the rest is read."""
        for lead in _LED_BY_CASE:
            led = lead.match(self.text, s, e)
            said = self.targets.mentions(led.end(), e) if led is not None else []
            if led is not None and said and said[0].start == led.end():
                after = _VERB_NEXT.match(self.text, said[0].end, e)
                bare = led.end() - s <= 1  # "#1002 how much …": only a question may follow
                if bare and after is not None:
                    asks = QUESTION_OPENING.match(self.text, after.end(), e)
                    after = after if asks is not None else None
                if after is not None:  # "for #1002 add note: …": the case, then the request
                    self.targets.remember(LabelTarget(label=said[0].label))
                    return after.end()
        m = _HEADING.match(self.text, s, e)
        if m is None:
            return None
        said = self.targets.mentions(s, m.end())
        if len({x.label for x in said}) != 1:
            return None  # "About Anna's boiler in Casa Verde: …": one record, however named
        rest, at = [], s
        for x in said:
            rest.append(self.text[at : x.start])
            at = x.end
        rest = " ".join([*rest, self.text[at : m.end()]]).split()
        words = [w.strip(":-").casefold() for w in rest if w.strip(":-")]
        words = [w for w in words if not _record_word(self.vocab.record_nouns).fullmatch(w)]
        if len(words) > 1 or any(w in self.vocab.field_names for w in words):
            return None  # "note 1002: …" is a field with its case, not a heading
        self.targets.remember(LabelTarget(label=said[0].label))
        return m.end()

    def _owner_first(self, s: int, e: int) -> int | None:
        """ "For order 1002 set the email to …", "on 1001, add a note: …": the one case
        named before the verb of a change; the case becomes the current one and the rest is
        read."""
        m = _owner_before_verb(self.vocab.record_nouns).match(self.text, s, e)
        if m is None:
            return None
        said = self.targets.mentions(s, m.end())
        if len(said) != 1 or said[0].end != m.end("id"):
            return None
        self.targets.remember(LabelTarget(label=said[0].label))
        return m.end()

    def _put_it_on(self, s: int, e: int) -> bool:
        """ "my email is V, put it on order 1001 already": the change just read, put on the
        one case it is already on: nothing more to do."""
        m = _PUT_IT_ON.fullmatch(self.text, s, e)
        index = self.plan.last_change()
        if m is None or index is None:
            return False
        said = self.targets.mentions(m.start("on"), e)
        act = self.plan.acts[self.plan.root(index)]
        if not isinstance(act, SetFieldAct):
            return False
        if not said:  # "I'd like it on the booking as well": the record it is already on
            nouns = self.vocab.record_nouns
            on = rf"(?:on|to|in|into|for)\s+(?:the|my|our|this)\s+(?:{nouns})"
            return re.fullmatch(on, m.group("on"), ICASE) is not None
        return len(said) == 1 and act.target == LabelTarget(label=said[0].label)

    def _asked_condition(self) -> ActCondition | None:
        """The condition the turn's latest question asks about ("Is there a warranty? If so …")."""
        for act in reversed(self.plan.acts):
            if isinstance(act, QuestionAct):
                words = " ".join(ev.text for ev in act.evidence)
                return condition_named(words, self.vocab)
        return None

    def _wanted_choice(self, s: int, e: int) -> bool:
        """ "the second visit must be on 20 March": the subject is a choice of exactly one
        operation's argument (the workflow's parser reads it) and the value one of its typed
        arguments: that operation, on a card that shows both; anything else reads nothing."""
        m = _MUST_BE.fullmatch(self.text, s, e)
        if m is None:
            return self._wanted_by_args(s, e)
        subject, value = m.group("subj"), m.group("v").strip(TRIM)
        found: list[tuple[str, dict[str, str]]] = []
        for op in self.vocab.workflow.operations:
            chosen = next(
                (a for a in op.arguments if a.choices and _parses(a, subject, self.ctx)), None
            )
            typed = next(
                (
                    a
                    for a in op.arguments
                    if a is not chosen and a.type is not str and _parses(a, value, self.ctx)
                ),
                None,
            )
            if chosen is not None and typed is not None:
                found.append((op.name, {chosen.name: subject, typed.name: value}))
        if len(found) != 1:
            return False
        name, args = found[0]
        act = OperationAct(
            target=self.targets.find(s, e, [m.span("v")]),
            operation=name,
            args=args,
            evidence=self.plan.evidence((s, e)),
            confirm=True,
        )
        self._emit(act, Note(operation=name, args=args))
        return True

    def _wanted_by_args(self, s: int, e: int) -> bool:
        """ "we want to have the second visit a day earlier": after "we want to <verb>",
        words that exactly one operation reads whole as one of its choices and a typed value
        (or a move of one): that operation, on a card."""
        m = _WANT_TO.match(self.text, s, e) or _SO_WE_WANT_TO.search(self.text, s, e)
        if m is None:
            return False
        found: list[tuple[str, dict[str, str]]] = []
        for op in self.vocab.workflow.operations:
            choice = next((a for a in op.arguments if a.required and a.choices), None)
            if choice is None:
                continue
            reading = read_arguments(op, self.text, m.end(), e, ctx=self.ctx, aliases=self.aliases)
            types = {a.name: a.type for a in op.arguments}
            typed = [n for n in reading.args if n != choice.name and types.get(n) is not str]
            said = reading.args.get(choice.name)
            if reading.unread or not typed or said is None or not _parses(choice, said, self.ctx):
                continue
            found.append((op.name, reading.args))
        if len(found) != 1:
            return False
        name, args = found[0]
        act = OperationAct(
            target=self.targets.default(),
            operation=name,
            args=args,
            evidence=self.plan.evidence((s, e)),
            confirm=True,
        )
        self._emit(act, Note(operation=name, args=args))
        return True

    def _more_args(self, since: int, span: Span) -> bool:
        """Words that only give the one operation read since act ``since`` arguments it has
        not got yet: they are added to it (and to its evidence). ``False`` otherwise."""
        acts = [i for i in range(since, len(self.plan.acts))]
        if len(acts) != 1 or not isinstance(self.plan.acts[acts[0]], OperationAct):
            return False
        act = self.plan.acts[acts[0]]
        assert isinstance(act, OperationAct)
        op = self.vocab.operation(act.operation)
        more = read_arguments(
            op, self.text, *span, ctx=self.ctx, aliases=self.aliases, object_start=span[1]
        )
        if more.unread or not more.args or set(more.args) & set(act.args):
            return False
        evidence = (*act.evidence, *self.plan.evidence(span))
        self.plan.acts[acts[0]] = attrs.evolve(
            act, args={**act.args, **more.args}, evidence=evidence
        )
        return True

    def _conditioned(self, clause: Clause, span: Span, condition: ActCondition) -> None:
        before = len(self.plan.acts)
        s, e = self._without_fillers(*span)
        if s >= e or not self._action(clause, s, e):
            self.plan.not_understood(*span)
            return
        for index in range(before, len(self.plan.acts)):
            act = self.plan.acts[index]
            if isinstance(act, OperationAct | SetFieldAct):
                self.plan.acts[index] = attrs.evolve(act, condition=condition)

    def _follow_up(self, s: int, e: int, accept: Callable[[Act], bool] | None = None) -> bool:
        lead = _JOINED_BEFORE.search(self.text, max(0, s - 8), s)
        if lead is not None:  # "and a kayak tour at 35": the "and" a filler trim took off
            s = lead.start()
        found = follow_up(
            self.text,
            (s, e),
            plan=self.plan,
            vocab=self.vocab,
            targets=self.targets,
            ctx=self.ctx,
            context=self.previous,
        )
        if found is None or (accept is not None and not accept(found.act)):
            return False
        if found.continues is None and self._unjoined_object(found.act, s, e):
            return False
        if found.continues is not None:
            self._add_cancel(found.continues, (s, e))
        self._emit(found.act, found.note)
        return True

    def _unjoined_object(self, act: Act, s: int, e: int) -> bool:
        """ "add a guide. love your service", "… P.S. great job": words that open a sentence
        of their own, with nothing that joins them to the request before ("and", "too",
        "same for"), are never another object of that request's operation."""
        index = self.plan.last_change()
        if index is None or not isinstance(act, OperationAct):
            return False
        before = self.plan.acts[index]
        if not isinstance(before, OperationAct) or act.target != before.target:
            return False
        said_before = max(ev.end for ev in before.evidence)
        if not re.search(r"[.!?;\n]", self.text[said_before:s]):
            return False  # the same sentence: "add a guide, a city card"
        return _JOINED.search(self.text[s : max(e, self._clause_end)]) is None

    def _names_same_case(self, span: Span, target: Any) -> bool:
        """ "… on 1001" after a corrected value, when the act is already on that case."""
        said = self.targets.mentions(*span)
        if len(said) != 1 or target != LabelTarget(label=said[0].label):
            return False
        rest = self.text[span[0] : said[0].start] + self.text[said[0].end : span[1]]
        return len(rest.split()) <= 2

    def _hold_last_change(self) -> None:
        """A follow-up the rules could not read: the change before it waits for a card."""
        index = self.plan.last_change()
        if index is None:
            return
        root = self.plan.root(index)
        act = self.plan.acts[root]
        if isinstance(act, OperationAct | SetFieldAct):
            self.plan.acts[root] = attrs.evolve(act, confirm=True)

    def _back_to_first(self, s: int, e: int) -> bool:
        """ "pay 50. actually 60. no wait, the first number was right": back to the value
        said first for the request corrected since. The latest reading is taken back and the
        first one said again (for a field, a correction to its first value)."""
        if _FIRST_WAS_RIGHT.fullmatch(self.text, s, e) is None:
            return False
        index = self.plan.last_change()
        if index is None:
            return False
        root = self.plan.root(index)
        latest, first = self.plan.acts[index], self.plan.acts[root]
        evidence = self.plan.evidence((s, e))
        if isinstance(first, SetFieldAct) and root != index:
            self._emit(CorrectAct(corrects=root, value=first.value, evidence=evidence))
            return True
        if not isinstance(latest, OperationAct):
            return True  # no correction was read since: the value said first stands
        earlier = [
            i
            for i, a in enumerate(self.plan.acts[:index])
            if isinstance(a, OperationAct)
            and a.operation == latest.operation
            and a.target == latest.target
            and a.args != latest.args
        ]
        if not earlier:
            return True  # the request was never read with another value: it stands
        said_first = self.plan.acts[earlier[0]]
        assert isinstance(said_first, OperationAct)
        again = attrs.evolve(said_first, evidence=evidence, confirm=True)
        self._add_cancel(index, (s, e))
        self._emit(again, Note(operation=again.operation, args=dict(again.args)))
        return True

    def _doubt_last_change(self) -> None:
        """A correction the rules could not read: the change it corrects must not run as
        read. An operation waits for a card that shows it; a field change is taken back."""
        index = self.plan.last_change()
        if index is None:
            return
        act = self.plan.acts[index]
        if isinstance(act, OperationAct):
            self.plan.acts[index] = attrs.evolve(act, confirm=True)
        else:
            span = (act.evidence[-1].start, act.evidence[-1].end)
            self._add_cancel(index, span)

    def _emit(self, act: Act, note: Note | None = None) -> int:
        """Add the act to the plan; a case it names is what "it" means from now on."""
        index = self.plan.add(act, note)
        self.targets.remember(target_of(act))
        return index

    def _without_fillers(self, s: int, e: int) -> Span:
        lead = LEADING_FILLER.match(self.text[s:e])
        if lead is not None:
            s += lead.end()
        # "Note on 1001: guest arrives Friday instead": after a text field's colon the words
        # are the value as written; only politeness at its end is not part of it.
        trailing = TRAILING_POLITENESS if self._text_after_colon(s, e) else TRAILING_FILLER
        tail = trailing.search(self.text[s:e])
        if tail is not None:
            e = s + tail.start()
        while s < e and self.text[s] in TRIM:
            s += 1
        while e > s and self.text[e - 1] in TRIM:
            e -= 1
        return s, e

    def _text_after_colon(self, s: int, e: int) -> bool:
        """Whether the clause names a plain-text field, then a colon, then its value."""
        m = _colon_field(self.vocab.field_pattern).search(self.text, s, e)
        if m is None:
            return False
        field = self.vocab.workflow.field(self.vocab.field_named(m.group("f")))
        return field is not None and field.type is str and field.validate is None

    def _field_without_value(self, s: int, e: int) -> bool:
        """ "set the limit", "change the email on 1001", "rename it": a field named for a
        change with no value; the reducer asks for the value (an empty value is never set)."""
        m = _no_value(self.vocab.field_pattern).fullmatch(self.text, s, e)
        m = m or _wrong_value(self.vocab.field_pattern).fullmatch(self.text, s, e)
        if m is None:  # "fix the note, it should say 'x'": the value follows in the clause
            for form in (_no_value, _wrong_value):
                head = form(self.vocab.field_pattern).match(self.text, s, e)
                if head is None:
                    continue
                named_field = self.vocab.field_named(head.group("f"))
                if self._value_following(named_field, head.end())[1] is not None:
                    m, e = head, head.end()
                    break
        named = self.vocab.field_names.get("name") or self.vocab.field_names.get("title")
        if m is not None:
            field = self.vocab.field_named(m.group("f"))
        elif named is not None and _RENAME_ALONE.fullmatch(self.text, s, e):
            field = named
        else:
            return False
        target = self.targets.find(s, e)
        value, value_span = self._value_following(field, e)
        if value_span is not None:
            self._read_up_to = value_span[1]
            s_e = (s, value_span[1])
            rest = self._without_fillers(value_span[1], self._clause_end)
            if rest[0] < rest[1]:
                self.plan.not_understood(*rest)  # words after the value are weighed, not lost
            act = SetFieldAct(
                target=target, field=field, value=value, evidence=self.plan.evidence(s_e)
            )
            self._emit(act, Note(field=field, span=s_e))
            return True
        act = SetFieldAct(target=target, field=field, value="", evidence=self.plan.evidence((s, e)))
        self._emit(act, Note(field=field, span=(s, e)))
        return True

    def _value_following(self, field: str, at: int) -> tuple[str, Span | None]:
        """The value said just after a field named without one ("fix the note, it should say
        'no nuts'", "change the email, the new one is …"), when the field's parser and
        validator accept it; ``("", None)`` otherwise."""
        m = _VALUE_FOLLOWS.match(self.text, at)
        spelled = None if m is not None else _VALUE_SPELLED.match(self.text, at)
        declared = self.vocab.workflow.field(field)
        if spelled is not None:  # "… a note on the order? Put exactly: V": the value, told
            m = spelled
        if m is None or declared is None:
            return "", None
        start, end = m.end(), len(self.text)
        closing = _QUOTE_PAIRS.get(self.text[start])
        if closing is not None:
            close = self.text.find(closing, start + 1)
            end = close + 1 if close > start else end
        else:
            stop = _FOLLOWED_VALUE_END.search(self.text, start)
            end = stop.start() if stop is not None else end
        value, span = clean_value(self.text, (start, end), self.aliases)
        if not value:
            return "", None
        plain = spelled is None and m.group("new") is None and m.group("should") is None
        if plain and not typed_value_ok(self.vocab, field, self.text[start:end].strip(), self.ctx):
            return "", None  # "the note, it is too long": a remark; only a typed value is meant
        try:
            parsed = declared.parse(value, self.ctx)
        except ValueError:
            return "", None
        if declared.validate is not None and declared.validate(parsed) is not None:
            return "", None
        return value, (at, max(span[1], end))

    # -- negative clauses -------------------------------------------------------------------
    def _cancel(self, clause: Clause, s: int, e: int) -> bool:
        refused = clause.marker is not None and _NO.fullmatch(self.text, s, e) is not None
        if refused or CANCEL.fullmatch(self.text, s, e):
            index = self.plan.last_cancellable()
            if index is None:
                self.plan.not_understood(s, e)
            else:
                self._add_cancel(index, (clause.lead, e))
            return True
        negation = NEGATION.fullmatch(self.text, s, e)
        if negation is None or clause.marker is None:
            return False
        index = self._earlier_act_named(negation.group("rest"))
        if index is None:
            return False
        self._add_cancel(index, (clause.lead, e))
        return True

    def _earlier_act_named(self, words: str) -> int | None:
        field = re.search(rf"(?<!\w)(?:{self.vocab.field_pattern})(?!\w)", words, ICASE)
        if field is not None:
            name = self.vocab.field_named(field.group(0))
            index = self.plan.latest(
                lambda _, act, note: (
                    isinstance(act, SetFieldAct | CorrectAct) and note.field == name
                )
            )
            return None if index is None else self.plan.root(index)
        names = negated_operations(words, self.vocab)
        return self.plan.latest(
            lambda _, act, __: isinstance(act, OperationAct) and act.operation in names
        )

    def _take_back(self, clause: Clause, s: int, e: int) -> bool:
        """ "leave the X as it is", "forget the X part", "just the A": earlier acts of the
        turn that the clause names (or, for "just", does not name) are taken back."""
        roots = taken_back(self.text, s, e, self.plan, self.vocab)
        for root in roots:
            self._add_cancel(root, (clause.lead, e))
        if roots or left_as_is(self.text, s, e):
            return True  # "… but keep the other one as it is": nothing more to do
        # "just the A" when A is already all that is left: said, nothing more to do
        return only_restated(self.text, s, e, self.plan, self.vocab)

    def _add_cancel(self, index: int, span: Span) -> None:
        self._emit(CancelAct(cancels=self.plan.root(index), evidence=self.plan.evidence(span)))

    def _verbless_after_operation(self, clause: Clause, s: int, e: int) -> bool:
        """ "move the first one to 3 March and the second to 9 March": a clause joined by "and"
        with no verb of its own, right after an operation, is that operation again with its
        own arguments (the issue's follow-up rule), never a field change the words could also
        spell (a field named like one of the operation's choices)."""
        index = self.plan.last_change()
        if index is None or not isinstance(self.plan.acts[index], OperationAct):
            return False
        joined = _JOINED.match(self.text[clause.start : e]) or _LEANS_BACK.search(
            self.text, max(0, clause.start - 12), clause.start
        )
        if joined is None:
            return False
        if self.vocab.operation_regex.search(self.text, s, e) or _A_VERB.search(self.text, s, e):
            return False
        return self._follow_up(s, e, accept=self._same_object)

    def _same_object(self, act: Act) -> bool:
        """Whether ``act`` names no new free-text object ("and the limit to 500" is no new
        object called "limit"): its arguments are choices, values and the object said before."""
        index = self.plan.last_change()
        if not isinstance(act, OperationAct) or index is None:
            return False
        before = self.plan.acts[index]
        op = self.vocab.workflow.operation(act.operation)
        if op is None or not isinstance(before, OperationAct):
            return False
        free = [a.name for a in op.arguments if a.type is str and not a.choices]
        return all(act.args.get(n) == before.args.get(n) for n in free)

    def _checking(self, s: int, e: int) -> bool:
        """ "the email on 1001 is V, is that right?": a value stated, then asked to be checked.
        The user may be asking what is on file, not changing it: the change waits for a card
        that shows it (confirming it is their answer), never commits on the statement alone."""
        if _CHECKING.fullmatch(self.text, s, e) is None:
            return False
        index = self.plan.last_change()
        if index is None:
            return False
        act = self.plan.acts[index]
        if not isinstance(act, SetFieldAct | OperationAct):
            return False
        self.plan.acts[index] = attrs.evolve(act, confirm=True)
        return True

    def _keep(self, clause: Clause, s: int, e: int) -> bool:
        kept = _KEEP_VALUE.match(self.text, s, e)
        if kept is not None and _LEADING_VALUE.match(self.text, kept.end(), e):
            # "no, keep 12 March": keep that value, a correction to it
            marker = clause.marker or "keep"
            corrected = attrs.evolve(clause, start=kept.end(), marker=marker)
            if self._correction(corrected, kept.end(), e):
                return True
        if NOTHING_ELSE.fullmatch(self.text, s, e) and self.plan.last_change() is not None:
            return True  # "pay 20 but don't change anything else": nothing more to do
        field = kept_field(self.text, s, e, self.vocab)
        if field is not None:
            target = self.targets.find(s, e)
            act = KeepUnchangedAct(target=target, field=field, evidence=self.plan.evidence((s, e)))
            self._emit(act, Note(field=field))
            return True
        if not KEEP_IT.fullmatch(self.text, s, e):
            return False
        index = self.plan.last_change()
        if index is None:
            evidence = self.plan.evidence((s, e))
            self._emit(ConstraintAct(forbids=ConstraintKind.NO_CHANGES, evidence=evidence))
        elif isinstance(self.plan.acts[index], OperationAct):
            self._add_cancel(index, (clause.lead, e))
        else:
            root = self.plan.root(index)
            root_act = self.plan.acts[root]
            assert isinstance(root_act, SetFieldAct)
            act = KeepUnchangedAct(
                target=root_act.target, field=root_act.field, evidence=self.plan.evidence((s, e))
            )
            self._emit(act, Note(field=root_act.field))
        return True

    def _constraint(self, clause: Clause, s: int, e: int) -> bool:
        rules = forbidden(self.text, s, e, self.vocab)
        asked: Span | None = None
        pause = re.search(r"[,;:\u2014\u2013]|\s-\s", self.text[s:e])
        if not rules and pause is not None:
            # "don't submit it, the boss wants to see it first": the constraint is read, the
            # words after the pause are not understood rather than guessed at.
            head = self._without_fillers(s, s + pause.start())
            rules = forbidden(self.text, *head, self.vocab)
            if rules:
                rest = self._without_fillers(head[1], e)
                if looks_like_question(self.text[rest[0] : rest[1]], clause.question):
                    asked = rest  # "don't X, I just want to know how much …": a question
                else:
                    self.plan.not_understood(*rest)
                e = head[1]
        said = self.targets.mentions(s, e)
        target = LabelTarget(label=said[0].label) if said else None
        for rule in rules:
            act = ConstraintAct(
                forbids=rule.forbids,
                operation=rule.operation,
                target=target,
                evidence=self.plan.evidence((s, e)),
            )
            self._emit(act)
        if asked is not None:
            self._question(clause, *asked)
        return bool(rules)

    # -- actions ----------------------------------------------------------------------------
    def _it_is_the_field_asked(self, clause: Clause, s: int, e: int) -> bool:
        """ "What's the due date? Change it to March 13.": "it" is the field the previous
        question asked about, when a question and a field share a name; or the one field
        the words nothing read before it name ("NO, NOT A LIMIT OF 500. set it to 5000")."""
        m = _MAKE_IT.match(self.text, s, e)
        if m is None or self.plan.last_change() is not None:
            return False
        asked = next((a for a in reversed(self.plan.acts) if isinstance(a, QuestionAct)), None)
        field = None if asked is None or asked.question is None else asked.question
        target = None if asked is None else asked.target
        if field is None or self.vocab.workflow.field(field) is None:
            field = self._field_said_unread(s)
            target = None
            if field is None:
                return False
        value, _ = clean_value(self.text, (m.end(), e), self.aliases)
        if not value:
            return False
        target = target if target is not None else self.targets.default()
        act = SetFieldAct(
            target=target, field=field, value=value, evidence=self.plan.evidence((s, e))
        )
        self._emit(act, Note(field=field, span=(s, e)))
        return True

    def _field_said_unread(self, before: int) -> str | None:
        """ "NO I DID NOT ASK FOR A LIMIT OF 500. set it to 5000 euros": the one field named
        in the words nothing read before ``before`` (what "it" stands for), or ``None``."""
        named: set[str] = set()
        pattern = re.compile(rf"(?<!\w)(?:{self.vocab.field_pattern})(?!\w)", ICASE)
        for unread in self.plan.unread:
            if unread.end > before:
                continue
            named |= {self.vocab.field_named(m.group(0)) for m in pattern.finditer(unread.text)}
        return named.pop() if len(named) == 1 else None

    def _action(
        self, clause: Clause, s: int, e: int, *, asked: bool = False, question_mark: bool = False
    ) -> bool:
        """An action read from the clause; a question-shaped clause is one only when it asks
        for an operation with a request ("could I get a copy …?")."""
        field = None
        verb = asked_field_request(self.text, s, e) if asked else s
        if verb is not None:
            field = read_field(
                self.text, (verb, e), self.vocab, self.targets, self.aliases, self.ctx
            )
            if field is not None and verb > s:
                # "may I add a note: …?": the frame's words stand before the field's opening.
                field = attrs.evolve(field, opening=field.opening + verb - s)
        op = read_operation(
            self.text,
            (s, e),
            self.vocab,
            self.targets,
            ctx=self.ctx,
            aliases=self.aliases,
            asked=asked,
        )
        if (
            op is not None
            and question_mark
            and not asked
            and op.phrase_span[0] > s
            and not asked_request(self.text, clause.start, op.phrase_span[0])
        ):
            op = None  # "left to … on 1001?": a question naming an operation, not a request
        if asked and op is None and field is None:
            return False
        deep = op is not None and op.phrase_span[0] > s
        if field is not None and op is not None and not deep and self._carded_whole(op):
            # "move the return to 20 March": a field change and an operation that waits for a
            # card both read the clause whole; the card shows what would run, so it wins.
            field = None
        if field is not None and (op is None or deep or field.opening >= op.opening):
            if question_mark and not asked:
                field = self._asked_value(clause, field)
            self._set_field(clause, field, (s, e))
        elif op is not None:
            if self._on_several_cases(clause, s, e):
                return True  # "close 4711 and 4712": the same operation on each case named
            objects = self._more_objects(op, s, e)
            if objects:
                # "add a city pass, 2 maps and a museum ticket": one operation per object.
                first = read_operation(
                    self.text,
                    (s, objects[0][0]),
                    self.vocab,
                    self.targets,
                    ctx=self.ctx,
                    aliases=self.aliases,
                )
                if first is not None:
                    self._operation(clause, first, (s, objects[0][0]))
                    ends = [o[0] for o in objects[1:]] + [e]
                    for (_, item), item_end in zip(objects, ends, strict=True):
                        self._next_object(clause, item, item_end)
                    return True
            self._operation(clause, op, (s, e))
        else:
            start = read_start(self.text, (s, e))
            if start is None:
                return False
            self._start_case(start, (s, e))
        return True

    def _asked_value(self, clause: Clause, field: FieldReading) -> FieldReading:
        """ "for 1002 add note: duplicate booking?": a free-text value said after a colon in a
        clause that is not asked as a question keeps its question mark."""
        end = field.value_span[1]
        declared = self.vocab.workflow.field(field.field)
        before = self.text[max(0, field.value_span[0] - 3) : field.value_span[0]]
        if (
            self.text[end : end + 1] != "?"
            or ":" not in before
            or declared is None
            or declared.type is not str
            or field.rest is not None
            or _ASKING.search(self.text, clause.start, field.value_span[0]) is not None
        ):
            return field
        return attrs.evolve(
            field, value=field.value + "?", value_span=(field.value_span[0], end + 1)
        )

    def _carded_whole(self, op: OperationReading) -> bool:
        """The operation waits for a card, and its reading left nothing unread and said every
        required argument in words its parsers read."""
        declared = self.vocab.operation(op.operation)
        if op.unread or not needs_confirmation(
            declared.policy, is_destructive=declared.is_destructive
        ):
            return False
        if not all(a.name in op.args for a in declared.arguments if a.required):
            return False
        for argument in declared.arguments:
            if argument.name in op.args:
                try:
                    argument.parse(op.args[argument.name], self.ctx)
                except (ValueError, TypeError):
                    return False
        return True

    def _next_object(self, clause: Clause, s: int, e: int) -> None:
        """One more item of a list after an operation: "…, and a note 'x'" names a field of
        its own (a change of that field); anything else is another object of the operation."""
        words = self._without_fillers(s, e)
        if words[0] < words[1]:
            field = read_field(self.text, words, self.vocab, self.targets, self.aliases, self.ctx)
            if field is not None:
                self._set_field(clause, field, words)
                return
            if self._listed_field_without_value(*words):
                return
        if not self._follow_up(s, e):
            self.plan.not_understood(s, e)

    def _arrowed_before_a_field(self, clause: Clause, s: int, e: int) -> bool:
        """ "<F> <more words> -> value": words before an arrow that say more than a field's
        name (a field named by one word, and a choice of a carded operation named by that word
        and another) name what the operation picks; read as that operation (it waits for a
        card), never as the field the first word names. The field's name alone stays the
        field, unless it is also, word for word, a choice that operation picks ("return ->
        17/03": that choice, changed on a card, never the field committed at once)."""
        arrow = _ARROW_AT.search(self.text, s, e)
        if arrow is None:
            return False
        head = self.text[s : arrow.start()].strip(" ,;:")
        named = re.fullmatch(rf"(?:(?:the|my|our)\s+)?(?:{self.vocab.field_pattern})", head, ICASE)
        if named is not None and not self._a_carded_choice(head):
            return False
        if self.vocab.operation_regex.search(head):
            return False
        arrowed = read_arrowed_operation(
            self.text, (s, e), self.vocab, self.targets, ctx=self.ctx, aliases=self.aliases
        )
        if arrowed is None:
            return False
        self._operation(clause, arrowed, (s, e))
        return True

    def _in_general(self, s: int, e: int) -> bool:
        """Whether the question at ``s`` asks about one of the workflow's requests in general
        ("do repairs come with a warranty?"), its word in the plural as the subject."""
        m = _IN_GENERAL.match(self.text, s, e)
        if m is None:
            return False
        word = m.group("w")
        return any(
            self.vocab.operation_regex.fullmatch(w) is not None for w in (word, word[:-1])
        )

    def _a_carded_choice(self, head: str) -> bool:
        """Whether ``head`` (without its determiner) is one of the choices of an operation
        argument, on an operation that waits for a confirmation card."""
        said = re.sub(r"^(?:the|my|our)\s+", "", head.strip(), flags=ICASE).casefold()
        return any(
            said in (c.casefold() for c in a.choices)
            for op in self.vocab.workflow.operations
            if waits_for_card(self.vocab, op.name)
            for a in op.arguments
        )

    def _listed_field_without_value(self, s: int, e: int) -> bool:
        """ "…, and a note": a field named in a list of objects with nothing after it is that
        field's change waiting for its value (asked), never another object of the operation."""
        lead = _LISTED_LEAD.match(self.text, s, e)
        start = lead.end() if lead is not None else s
        named = re.match(rf"(?:{self.vocab.field_pattern})(?!\w)", self.text[start:e], ICASE)
        if named is None:
            return False
        rest = self._without_fillers(start + named.end(), e)
        if rest[0] < rest[1]:
            return False  # words after the field: a follow-up reads them as its value
        name = self.vocab.field_named(named.group(0))
        evidence = self.plan.evidence((start, e))
        act = SetFieldAct(target=self.targets.find(s, e), field=name, value="", evidence=evidence)
        self._emit(act, Note(field=name, span=(start, e)))
        return True

    def _on_several_cases(self, clause: Clause, s: int, e: int) -> bool:
        """ "close 4711 and 4712 today": a list of cases right after the operation's words is
        the same operation on each; words after the list are read as its arguments, whole."""
        said = self._named_cases(s, e)
        if len(said) < 2 or len({m.label for m in said}) != len(said):
            return False
        for before, after in itertools.pairwise(said):
            if not _CASE_LIST_GAP.fullmatch(self.text, before.end, after.start):
                return False
        head = read_operation(
            self.text,
            (s, said[0].end),
            self.vocab,
            self.targets,
            ctx=self.ctx,
            aliases=self.aliases,
        )
        if head is None or head.unread or head.target != LabelTarget(label=said[0].label):
            return False
        args = dict(head.args)
        unread: tuple[Span, ...] = ()
        tail = self._without_fillers(said[-1].end, e)
        if tail[0] < tail[1]:
            op = self.vocab.operation(head.operation)
            more = read_arguments(
                op, self.text, *tail, ctx=self.ctx, aliases=self.aliases, object_start=tail[1]
            )
            if more.unread or not more.args or set(more.args) & set(args):
                unread = (tail,)  # weighed as unread words; each act waits for a card
            else:
                args.update(more.args)
        for index, mention in enumerate(said):
            reading = attrs.evolve(
                head,
                target=LabelTarget(label=mention.label),
                args=args,
                unread=unread if index == len(said) - 1 else (),
                unsure=bool(unread),
            )
            self._operation(clause, reading, (s, e))
        return True

    def _more_objects(self, op: OperationReading, s: int, e: int) -> list[Span]:
        """(separator start, item start) of each further object of an operation that takes
        one: "…, 3 maps and a museum ticket", "… and also a guide". The item keeps its "and"
        (a follow-up reads it). A comma alone separates objects only before a count."""
        declared = self.vocab.operation(op.operation).arguments
        if not any(a.required and a.type is str and a.name in op.args for a in declared):
            return []
        out: list[Span] = []
        for m in _SECOND_OBJECT.finditer(self.text, op.phrase_span[1], e):
            joined = m.group("and")
            if m.group("the") is not None and (joined is None or not out):
                continue  # "… and the X" is a further object only in a list already going
            if joined is not None:
                if not _MEASURE.match(self.text, m.end(), e):
                    out.append((m.start(), m.start("and")))
            elif _COUNTED.match(self.text, m.end(), e):
                out.append((m.start(), m.end()))
        return out

    def _set_field(self, clause: Clause, reading: FieldReading, span: Span) -> None:
        earlier = None
        if clause.marker is not None:
            earlier = self.plan.latest(
                lambda i, act, note: (
                    isinstance(act, SetFieldAct | CorrectAct)
                    and note.field == reading.field
                    and self._target_of(i) == reading.target
                )
            )
        note = Note(field=reading.field, span=span)
        if earlier is not None:
            act: Any = CorrectAct(
                corrects=earlier, value=reading.value, evidence=self.plan.evidence(span)
            )
        else:
            act = SetFieldAct(
                target=reading.target,
                field=reading.field,
                value=reading.value,
                evidence=self.plan.evidence(span),
            )
        self._emit(act, note)
        tail = _JOINED_TAIL.match(self.text, reading.value_span[1], span[1])
        if reading.rest is None and tail is not None and self._follow_up(tail.end(), span[1]):
            return  # "email for 4711 is a@b.pt, and for 4712 c@d.pt": the same on another case
        if reading.rest is not None:  # words after the value are weighed, never dropped
            rest = self._without_fillers(*reading.rest)
            if not (rest[0] < rest[1] and self._follow_up(*rest)):  # "… and 1002's to 'x'"
                self.plan.not_understood(*rest)

    def _target_of(self, index: int) -> Any:
        return getattr(self.plan.acts[self.plan.root(index)], "target", None)

    def _object_asked_about(self, reading: OperationReading) -> OperationReading:
        """ "what's a city card and can you add one?": an object said only as "one" (or
        "it") is the thing the question just before asked about."""
        declared = self.vocab.operation(reading.operation)
        name = next(
            (a.name for a in declared.arguments if a.required and a.type is str and not a.choices),
            None,
        )
        if name is None or _ONE_OF_THEM.fullmatch(reading.args.get(name, "")) is None:
            return reading
        asked = [a for a in self.plan.acts if isinstance(a, QuestionAct)]
        if not asked or asked[-1] is not self.plan.acts[-1]:
            return reading
        m = _WHAT_IS_A.fullmatch(" ".join(ev.text for ev in asked[-1].evidence))
        if m is None:
            return reading
        return attrs.evolve(reading, args={**reading.args, name: m.group("x")})

    def _choice_said_before(self, reading: OperationReading, span: Span) -> OperationReading:
        """ "move the outbound to 13 March" then "move it to 14 March instead": "it" is what
        the previous turn's same operation named; a choice argument it left out is that one's
        (only for an operation that waits for a card: the card shows it)."""
        if _CALLED_IT.search(self.text, *span) is None or not self.previous:
            return reading
        op = self.vocab.operation(reading.operation)
        if not needs_confirmation(op.policy, is_destructive=op.is_destructive):
            return reading
        earlier = [
            a
            for a in self.previous
            if isinstance(a, OperationAct) and a.operation == reading.operation
        ]
        if len(earlier) != 1:
            return reading
        filled = {
            a.name: earlier[0].args[a.name]
            for a in op.arguments
            if a.required and a.choices and a.name not in reading.args and a.name in earlier[0].args
        }
        if not filled:
            return reading
        return attrs.evolve(reading, args={**reading.args, **filled}, unsure=True)

    def _operation(self, clause: Clause, reading: OperationReading, span: Span) -> None:
        reading = self._object_asked_about(reading)
        reading = self._choice_said_before(reading, span)
        if clause.marker is not None:
            earlier = self.plan.latest(
                lambda _, act, __: (
                    isinstance(act, OperationAct)
                    and act.operation == reading.operation
                    and act.target == reading.target
                )
            )
            if earlier is not None:
                self._add_cancel(earlier, (clause.lead, span[1]))
        act = OperationAct(
            target=reading.target,
            operation=reading.operation,
            args=reading.args,
            evidence=self.plan.evidence(span),
            # Words of the operation's own clause left unread may be an object or an argument
            # it does not take ("send me the boarding passes"): a card shows what would run.
            confirm=bool(reading.unread) or reading.unsure,
        )
        note = Note(operation=reading.operation, args=reading.args, numbers=reading.numbers)
        self._emit(act, note)
        for unread in reading.unread:
            if not self._inner_correction(*unread):
                self.plan.not_understood(*unread)

    def _inner_correction(self, s: int, e: int) -> bool:
        """ "pay 45 euros on 1001 I mean 54": a correction marker inside a clause, with
        no comma before it, corrects the act just read, as it would after a comma."""
        m = marker_at(self.text, s, e)
        if m is None or m.end >= e:
            return self._not_that_but(s, e)
        clause = Clause(start=m.end, end=e, lead=s, marker=m.words)
        return self._correction(clause, m.end, e)

    def _not_that_but(self, s: int, e: int) -> bool:
        """ "pay 30 on 4711 - not 30, 35": the value just said is named and denied, then the
        one meant follows. Only when the denied words are a value of the act just read."""
        m = _NOT_X_BUT.match(self.text, s, e)
        index = self.plan.last_change()
        if m is None or index is None:
            return False
        act = self.plan.acts[index]
        said = {str(v).casefold() for v in getattr(act, "args", {}).values()}
        said.add(str(getattr(act, "value", "")).casefold())
        if m.group("old").strip(TRIM).casefold() not in said:
            return False
        clause = Clause(start=m.end(), end=e, lead=s, marker="not")
        return self._correction(clause, m.end(), e)

    def _start_case(self, reading: StartReading, span: Span) -> None:
        act = StartCaseAct(
            workflow=self.vocab.workflow.name,
            label=reading.label,
            evidence=self.plan.evidence(span),
        )
        self.targets.started(self._emit(act))

    # -- questions and corrections ----------------------------------------------------------
    def _recall(self, s: int, e: int) -> bool:
        """A vague reference to an earlier conversation (providers/rules/recall.py)."""
        description = recall_description(self.text, s, e)
        if description is None:
            return False
        if e < len(self.text) and self.text[e] == "?":
            e += 1
        self._emit(RecallAct(description=description, evidence=self.plan.evidence((s, e))))
        return True

    def _question(self, clause: Clause, s: int, e: int) -> None:
        reading = read_question(self.text[s:e], self.vocab)
        asked_back = self._asked_back(reading, s, e)
        if asked_back is not None:  # "The X better still be valid. Is it?": the sentence's X
            reading, (s, e) = asked_back
        asked_to_do = _ASKED_TO_DO.search(self.text, max(clause.start, s - 40), s)
        plain = reading.question is None and reading.recall is None and not reading.hypothetical
        if asked_to_do is not None and plain and QUESTION_OPENING.match(self.text, s, e) is None:
            # "can you text him …?", "could you upgrade …?": a request, said as a question,
            # that nothing of the workflow reads: it cannot be done, and it answers nothing.
            self.plan.not_understood(s, e)
            return
        if e < len(self.text) and self.text[e] == "?":
            e += 1
        evidence = self.plan.evidence((s, e))
        if reading.recall is not None:
            self._emit(RecallAct(description=reading.recall, evidence=evidence))
            return
        named = self.targets.mentions(s, e)
        unknown = None if named else unnamed_owner(self.text, s, e, self.vocab)
        if not named and unknown is None and (
            reading.hypothetical or _WHY.match(self.text, s, e) or self._in_general(s, e)
        ):
            # "what happens if I ask for more than was paid?", "why do you need a signature?":
            # how things work, asked of no record: answered from knowledge, never "which one?"
            act = QuestionAct(
                question=None, target=None, hypothetical=reading.hypothetical, evidence=evidence
            )
            self._emit(act)
            return
        if reading.about_case and unknown is not None and unknown[1] is not None:
            # "the status of the Berlin case": a record that is none of the user's is asked
            # about (the reducer asks which), never answered about another record.
            target: Any = unknown[1]
        elif reading.about_case:
            target = self.targets.find(s, e)
        else:
            said = self.targets.mentions(s, e)
            target = LabelTarget(label=said[0].label) if said else None
        act = QuestionAct(
            question=reading.question,
            target=target,
            hypothetical=reading.hypothetical,
            evidence=evidence,
        )
        self._emit(act)

    def _asked_back(
        self, reading: QuestionReading, s: int, e: int
    ) -> tuple[QuestionReading, Span] | None:
        """ "The X had better still be valid or I'm leaving. Is it?": a question that is only
        a pronoun asks about what the sentence right before it says, when that sentence reads
        as one of the workflow's questions; None otherwise."""
        if reading.question is not None or reading.recall is not None or reading.hypothetical:
            return None
        if not _BARE_ASK.fullmatch(self.text, s, e):
            return None
        head = self.text[:s].rstrip(" \t\n.!?")
        begin = max(head.rfind(c) for c in ".!?\n") + 1
        said = head[begin:].strip()
        if not said:
            return None
        before = read_question(said, self.vocab)
        if before.question is None or before.hypothetical:
            return None
        start = begin + (len(head[begin:]) - len(head[begin:].lstrip()))
        return before, (start, e)

    def _correction(self, clause: Clause, s: int, e: int) -> bool:
        if self._back_to_first(*self._without_fillers(s, e)):
            return True  # "…, actually the first one was right": no value of its own
        make_it = _MAKE_IT.match(self.text, s, e)
        if make_it is None and clause.marker is None and not _NEW_ONE.match(self.text, s, e):
            return False
        value, _ = clean_value(self.text, (make_it.end() if make_it else s, e), self.aliases)
        value = _HEDGE.sub("", value)
        value = _not_that(_VERDICT.sub("", value))
        value = _FRAME_WORD.sub("", _restated(value))  # "no, to email her": not its "to"
        says = _field_says(self.vocab.field_pattern).fullmatch(value)
        if says is not None:
            named = self.vocab.field_named(says.group("f"))
            if named != self._corrected_field():
                return False  # another field named: no correction of the one just changed
            value = says.group("v")
        if _WRONG_ONE.fullmatch(value):
            return True  # "sorry, wrong order": the record is corrected next ("I meant 1001")
        index = self.plan.last_change()
        if index is not None and self._none_after_all(value, index, (clause.lead, e)):
            return True
        if index is None and value:
            return self._corrected_earlier(clause, value, (s, e))
        if index is None or not value:
            return False
        said = self._named_cases(s, e)
        if len(said) > 1 and _NOT_THAT.fullmatch(self.text, said[0].end, e):
            said = said[:1]  # "1002 not 1001": the first case named is the one meant
        after = self.text[said[-1].end : e] if said else ""
        after = "" if _NOT_THAT.fullmatch(after) else after
        only_case = bool(said) and _ONLY_CASE.fullmatch(self.text[s : said[-1].start]) is not None
        quoted = bool(said) and self.text[max(0, said[-1].start - 1)] in "\"'\u201c\u2018"
        nothing_after = re.fullmatch(
            rf"[\s,.!]*(?:(?:{self.vocab.record_nouns}|one|instead|please|then|again|anyway)s?"
            r"\b[\s,.!]*)*",
            after,
            ICASE,
        )
        if only_case and not quoted and nothing_after and len(value.split()) <= 5:
            # "sorry, wrong order, I meant 1001": the same change on another case
            root = self.plan.root(index)
            act = self.plan.acts[index]
            root_act = self.plan.acts[root]
            target = LabelTarget(label=said[-1].label)
            self._add_cancel(root, (clause.lead, e))
            evidence = self.plan.evidence((clause.lead, e))
            if not isinstance(root_act, SetFieldAct | OperationAct):
                return False
            moved: Any = attrs.evolve(root_act, target=target, evidence=evidence)
            if isinstance(act, CorrectAct) and isinstance(moved, SetFieldAct):
                moved = attrs.evolve(moved, value=act.value)
            self._emit(moved, self.plan.notes[root])
            return True
        act = self.plan.acts[index]
        if isinstance(act, OperationAct):
            if self._corrected_operation(index, act, value, clause, (s, e)):
                return True
            if self._corrected_arguments(index, act, clause, (make_it.end() if make_it else s, e)):
                return True
            # "no, 4 - at 12 euros each": the value first, then the rest of the operation.
            head = _LEADING_VALUE.match(self.text, make_it.end() if make_it else s, e)
            if head is None or head.end() >= e:
                return False
            value = head.group(0).strip(TRIM)
            if not self._corrected_operation(index, act, value, clause, (s, head.end())):
                return False
            rest = self._without_fillers(head.end(), e)
            unread = rest[0] < rest[1] and not self._names_same_case(rest, act.target)
            if unread and self._inner_correction(*rest):
                return True  # "no 50 no sorry 45": corrections in a row, the last one wins
            if unread and not self._follow_up(*rest):
                self.plan.not_understood(*rest)
            return True
        note = self.plan.notes[self.plan.root(index)]
        evidence = self.plan.evidence((clause.lead, e))
        value = with_month(value, getattr(act, "value", None))
        self._emit(CorrectAct(corrects=index, value=value, evidence=evidence), note)
        return True

    def _then_instead(self, clause: Clause, s: int, e: int) -> bool:
        """ "ok then the 19th" in the turn after an operation (its card turned down, say):
        the operation again with that value, on a new card; never run unseen."""
        if self.plan.acts or not _THEN_LEAD.fullmatch(self.text, clause.lead, s):
            return False
        earlier = [a for a in self.previous if isinstance(a, SetFieldAct | OperationAct)]
        if not earlier or not isinstance(earlier[-1], OperationAct):
            return False
        value, _ = clean_value(self.text, (s, e), self.aliases)
        return bool(value) and self._carded_again(earlier[-1], value, self.plan.evidence((s, e)))

    def _corrected_field(self) -> str | None:
        """The field of the change a correction would correct, in this turn or the last."""
        index = self.plan.last_change()
        if index is not None:
            return self.plan.notes[self.plan.root(index)].field
        earlier = [a for a in self.previous if isinstance(a, SetFieldAct | OperationAct)]
        return earlier[-1].field if earlier and isinstance(earlier[-1], SetFieldAct) else None

    def _named_cases(self, s: int, e: int) -> list[Any]:
        """The cases named in ``text[s:e]``, leaving out names inside an address."""
        said = self.targets.mentions(s, e)
        return [m for m in said if not inside_address(self.text, m.start, m.end)]

    def _none_after_all(self, value: str, index: int, span: Span) -> bool:
        """ "note 'x', on second thought, no note": the correction takes the change back."""
        m = _none(self.vocab.field_pattern).fullmatch(value.strip(TRIM))
        if m is None:
            return False
        root = self.plan.root(index)
        if m.group("f") is not None:
            field = self.vocab.field_named(m.group("f"))
            named = self.plan.latest(
                lambda _, act, note: (
                    isinstance(act, SetFieldAct | CorrectAct) and note.field == field
                )
            )
            if named is None:
                return False
            root = self.plan.root(named)
        self._add_cancel(root, span)
        return True

    def _corrected_earlier(self, clause: Clause, value: str, span: Span) -> bool:
        """ "sorry, 1500" in the turn after "set the limit to 1400": the previous turn's
        last change again, with the new value (a field) or on the named case."""
        earlier = [a for a in self.previous if isinstance(a, SetFieldAct | OperationAct)]
        if not earlier:
            return False
        last = earlier[-1]
        evidence = self.plan.evidence((clause.lead, span[1]))
        said = self._named_cases(*span)
        ends = (
            bool(said) and re.fullmatch(r"[\s,.!?]*", self.text[said[-1].end : span[1]]) is not None
        )
        if ends:  # only the case said, with words that point at it: "I meant 1001"
            named = self.text[said[-1].start : said[-1].end].casefold()
            head = value[: max(0, value.casefold().rfind(named))]
            ends = (
                re.fullmatch(
                    rf"(?:{_ONLY_CASE.pattern}|(?:{self.vocab.record_nouns})s?\b\s*)*", head, ICASE
                )
                is not None
            )
        if ends and len(value.split()) <= 3:  # "sorry, wrong order, I meant 1001"
            target = LabelTarget(label=said[-1].label)
            self._emit(attrs.evolve(last, target=target, evidence=evidence))
            return True
        if isinstance(last, SetFieldAct):
            field = self.vocab.workflow.field(last.field)
            try:
                parsed = None if field is None else field.parse(value, self.ctx)
            except ValueError:
                return False
            if field is not None and field.validate is not None and field.validate(parsed):
                return False  # a value the field refuses is no correction of it
            act = SetFieldAct(target=last.target, field=last.field, value=value, evidence=evidence)
            self._emit(act, Note(field=last.field))
            return True
        return self._carded_again(last, value, evidence)

    def _carded_again(self, last: OperationAct, value: str, evidence: Any) -> bool:
        """ "change it to 15 May" in the turn after an operation that waits for a card: the
        operation again with the one typed argument the value parses as. Only an operation
        that always shows a card: the user sees what would run (an earlier one may have run)."""
        declared = self.vocab.operation(last.operation)
        if not needs_confirmation(declared.policy, is_destructive=declared.is_destructive):
            return False
        fits = []
        for argument in declared.arguments:
            if argument.type is str and not argument.choices:
                continue  # free text is never a corrected value
            said = with_month(value, last.args.get(argument.name))
            if argument.propose is not None and _WHOLE_SHARE.fullmatch(said.strip(TRIM)):
                fits.append((argument.name, said))  # "make it the full amount": its proposal
                continue
            try:
                argument.parse(said, self.ctx)
            except (ValueError, TypeError):
                continue
            fits.append((argument.name, said))
        if len(fits) != 1:
            return False  # no argument, or several, could take it: nothing is guessed
        name, said = fits[0]
        args = {**last.args, name: said}
        act = OperationAct(
            target=last.target,
            operation=last.operation,
            args=args,
            evidence=evidence,
            confirm=True,
        )
        self._emit(act, Note(operation=last.operation, args=args, numbers=(name,)))
        return True

    def _corrected_arguments(
        self, index: int, act: OperationAct, clause: Clause, span: Span
    ) -> bool:
        """ "book a guide paid by Marta, I mean paid by Joana", "…, actually only half":
        the correction's words, read whole by the operation's own parsers, replace the
        arguments they name; the others stay. Any word left unread and nothing is replaced."""
        s, e = self._without_fillers(*span)
        frame = _FRAME_AT.match(self.text, s, e)  # "wait, to Sunday the 22nd"
        if frame is not None:
            s = frame.end()
        if s >= e:
            return False
        op = self.vocab.operation(act.operation)
        reading = read_arguments(
            op, self.text, s, e, ctx=self.ctx, aliases=self.aliases, object_start=e
        )
        if reading.unread or not reading.args:
            return False
        self._add_cancel(index, (clause.lead, span[1]))
        args = {**act.args, **reading.args}
        corrected = OperationAct(
            target=act.target,
            operation=act.operation,
            args=args,
            evidence=(*act.evidence, *self.plan.evidence((s, e))),
        )
        note = self.plan.notes[index]
        self._emit(corrected, attrs.evolve(note, args=args))
        return True

    def _corrected_operation(
        self, index: int, act: OperationAct, value: str, clause: Clause, span: Span
    ) -> bool:
        note = self.plan.notes[index]
        op = self.vocab.operation(act.operation)
        order = [*reversed(note.numbers), *(a.name for a in op.arguments)]
        for name in order:
            argument = next(a for a in op.arguments if a.name == name)
            if argument.type is str and not argument.choices:
                continue  # free text is never a corrected value; a value of a finite set is
            said = with_month(value, act.args.get(name))
            try:
                argument.parse(said, self.ctx)
            except ValueError:
                continue
            self._add_cancel(index, (clause.lead, span[1]))
            args = {**act.args, name: said}
            corrected = OperationAct(
                target=act.target,
                operation=act.operation,
                args=args,
                evidence=(*act.evidence, *self.plan.evidence(span)),
            )
            self._emit(corrected, attrs.evolve(note, args=args))
            return True
        return False
