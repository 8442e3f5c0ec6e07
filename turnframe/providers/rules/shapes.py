"""Generic English shapes the rule-based interpreter recognises: no workflow vocabulary here.

Dates, amounts of money and counts are only *recognised* (to tell where a value starts and
ends); the workflow's own parsers read them, with the turn's clock. Phrasings — fillers,
markers, chitchat, negations — are patterns over ordinary English.
"""

from __future__ import annotations

import re

from turnframe.reading.money import CURRENCY_SYMBOLS, CURRENCY_WORDS
from turnframe.reading.numbers import NUMBER_WORDS

ICASE = re.IGNORECASE

WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
SMALL_NUMBER = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
#: An ordinal in words, "thirteenth", "twenty-first" (the workflow's date parser reads them).
ORDINAL_WORD = (
    r"(?:(?:twenty|thirty)[\s-]+)?(?:first|second|third|fourth|fifth|sixth"
    r"|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth"
    r"|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)"
)

#: A date phrase, optionally led by a preposition (group ``date`` is the phrase itself).
DATE = re.compile(
    r"(?<!\w)(?:(?:on|to|for|by|until|till|from)\s+)?(?:(?:the\s+)?day\s+(?=\d))?(?P<date>"
    r"(?:the\s+)?day\s+after\s+tomorrow|today|tonight|tomorrow"
    rf"|(?:(?:this|next|coming|the\s+coming)\s+)?{WEEKDAY}(?![\s,]+(?:the\s+)?(?:\d|{MONTH}\s+\d))"
    r"|(?:the\s+)?end\s+of\s+(?:the|this|next)\s+month|next\s+(?:week|month)"
    rf"|in\s+(?:\d+|a|an|{NUMBER_WORDS.pattern})\s+(?:days?|weeks?)"
    rf"|(?:\d+|a|an|{NUMBER_WORDS.pattern})\s+(?:days?|weeks?)\s+from\s+(?:now|today)"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}[.-]\d{1,2}[.-]\d{2,4}"
    rf"|(?:{WEEKDAY}\s+)?(?:the\s+)?{ORDINAL}\s+{MONTH}(?:,?\s+\d{{4}})?"
    r"|\d{1,2}(?:st|nd|rd|th)"
    rf"|(?:the\s+)?{ORDINAL_WORD}(?:\s+of\s+{MONTH}|(?!\s+\w))"
    rf"|(?:{WEEKDAY},?\s+)?{MONTH}\s+(?:the\s+)?{ORDINAL_WORD}(?:,?\s+\d{{4}})?"
    rf"|(?:{WEEKDAY},?\s+)?(?:the\s+)?{ORDINAL}(?:\s+of)?\s+{MONTH}(?:,?\s+\d{{4}})?"
    rf"|(?:{WEEKDAY},?\s+)?{MONTH}\s+(?:the\s+)?{ORDINAL}(?:,?\s+\d{{4}})?"
    rf"|the\s+{ORDINAL}(?!\w|\s+(?:of\s+(?:us|them|those|these)|people|persons|adults))"
    r")(?!\w)",
    ICASE,
)

_DIGITS = (
    r"\d+(?:[.,]\d{1,2})?(?:\s?k|\s+thousand)(?!\w)"
    r"|\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
)
_NUMBER = rf"(?:{_DIGITS}|{NUMBER_WORDS.pattern})"
_CURRENCY = "(?:" + "|".join(re.escape(w) for w in CURRENCY_WORDS) + ")"
_SYMBOL = "(?:" + "|".join(re.escape(w) for w in CURRENCY_SYMBOLS) + ")"
#: A currency written before the number: a symbol or a three-letter code ("€20", "EUR 20").
_CODE_FIRST = "(?:" + "|".join(w for w in CURRENCY_WORDS if len(w) in (2, 3)) + ")"
#: Words that say an amount is the total of several ("60 euros in total", "for both").
TOTAL = (
    r"(?:in\s+total|total|in\s+all|altogether|all\s+in|all\s+together"
    r"|for\s+(?:both|all)(?:\s+of\s+(?:us|them))?)(?!\w)"
)
_CURRENCY_FIRST = rf"(?:{_SYMBOL}|{_CODE_FIRST}(?!\w))"
#: A magnitude said loosely ("a grand", "a couple of grand", "half a k", "3m euros", "2
#: million"): money, but no exact amount, so a parser refuses it and the user is asked.
_LOOSE_MAGNITUDE = (
    rf"(?:(?:a|one|\d+|{NUMBER_WORDS.pattern})\s+|a\s+couple(?:\s+of)?\s+|a\s+few\s+"
    r"|several\s+|half\s+a\s+)grand(?!\w)|half\s+an?\s+k(?!\w)"
    rf"|{_CURRENCY_FIRST}\s?\d+(?:[.,]\d{{1,2}})?\s?(?:m|mn|bn)(?!\w)"
    rf"|\d+(?:[.,]\d{{1,2}})?\s?(?:m|mn|bn)\s?(?:[€$£¥₹]|{_CURRENCY}(?!\w))"
    rf"|(?:\d+(?:[.,]\d{{1,2}})?|{NUMBER_WORDS.pattern})\s+(?:million|billion)(?!\w)"
    rf"(?:\s+{_CURRENCY}(?!\w))?"
)
#: An amount of money (group ``money``), with its preposition and "each"/"per hour" around it:
#: the currency before or after the number, as a symbol, a code or a word.
MONEY = re.compile(
    r"(?<!\w)(?:(?:at|for|of|by)\s+)?"
    rf"(?P<money>{_LOOSE_MAGNITUDE}|\d{{1,2}}\s?(?:cents?|c)(?!\w)"
    rf"|(?:{NUMBER_WORDS.pattern})\s+cents?(?!\w)|{_CURRENCY_FIRST}\s?{_NUMBER}"
    rf"|{_NUMBER}\s?(?:[€$£¥₹]|{_CURRENCY}(?!\w))"
    rf"(?:\s+(?:and\s+)?(?:\d{{1,2}}|{NUMBER_WORDS.pattern})(?:\s+cents?)?(?![\w-]|[.,]\d))?)"
    rf"(?:\s+(?:each|apiece|pp(?!\w)|p\.p\.|{TOTAL}|(?:per|an?)\s+[a-z]+)|\s?/\s?[a-z]+(?!\w))?",
    ICASE,
)
#: Words a value may follow when it opens a request ("put 15 euros back", "just 20 back"):
#: after any other word ("your agent offered 25 euros back") the value tells a story.
_REQUEST_WORDS = r"put send get like need want please just only me us pay give"
_REQUEST_BEFORE_VALUE = "".join(rf"|(?<={w}\s)" for w in _REQUEST_WORDS.split(" "))
#: An amount or a number that opens a request, said before a workflow phrase that a value
#: leads ("20 back", "EUR 42.50 back", "forty euros back"): no groups, so it fits in any
#: pattern.
LEADING_VALUE = (
    rf"(?:(?<![a-z]\s)(?<![a-z]\s\s){_REQUEST_BEFORE_VALUE})"
    rf"(?<![\w.,])(?:{_CURRENCY_FIRST}\s?{_NUMBER}"
    rf"|{_NUMBER}(?:\s?(?:[€$£¥₹]|{_CURRENCY}(?!\w)))?)"
)
_PER_UNIT = (
    r"each|apiece|a\s+piece|pp|a\s+head|per\s+(?:person|head|unit|piece|item|ticket|day)"
)
#: A bare number said as a price ("at 30 each", "for 12 per day", "at 8/day"): group
#: ``number``. A number followed by other words ("for 3 days") is not a price.
PRICED = re.compile(
    # "…, 25 each", "30 apiece": with a word that makes it a price per unit, the number is a
    # price without "at" too (never an object called "each").
    rf"(?:(?<!\w)(?:at|for)\s+|(?<![\w.,])(?=\d+(?:[.,]\d{{1,2}})?\s+(?:{_PER_UNIT})(?!\w)))"
    rf"(?P<number>\d+(?:[.,]\d{{1,2}})?|{NUMBER_WORDS.pattern})"
    r"(?:\s+(?:each|apiece|a\s+piece|pp|(?:per|an?)\s+[a-z]+)(?!\w)|\s?/\s?[a-z]+(?!\w)"
    r"|(?![\w.,]|\s*[a-z]))",
    ICASE,
)
#: A count of people, the unit a per-person price counts ("for 2 people", "3 of them", "two
#: adults"): group ``count``; a multiplication sign after it belongs to it ("2 people x 35").
HEADCOUNT = re.compile(
    rf"(?<![\w.,])(?:for\s+)?(?:(?:the|all)\s+)?(?P<count>\d+|{NUMBER_WORDS.pattern})\s+"
    r"(?:people|persons|person|adults|guests|pax|travell?ers|passengers|participants"
    r"|of\s+(?:us|them|those|these))(?!\w)(?:\s*[x\u00d7*@](?=\s*\S))?",
    ICASE,
)
#: "for two", "for six" ending a clause, with nothing after the number: for how many people
#: as much as a price ("a dinner for six"); in digits ("for 15") it is a price: group ``count``.
FOR_COUNT = re.compile(
    rf"(?<!\w)for\s+(?P<count>{NUMBER_WORDS.pattern})(?![\w.,]|\s*[a-z0-9€$£])",
    ICASE,
)
#: How long something is wanted for ("for 3 days", "for two weeks"): group ``count``.
#: A move relative to a value's current one ("a day later", "two weeks earlier"): group
#: ``shift``, for an argument the workflow counts from a current value (``Argument.current``).
SHIFT = re.compile(
    rf"(?<!\w)(?P<shift>(?:\d+|an?|{NUMBER_WORDS.pattern})\s+(?:days?|weeks?)\s+"
    r"(?:later|earlier|sooner))(?!\w)",
    ICASE,
)
DURATION = re.compile(
    rf"(?<!\w)for\s+(?P<count>\d+|{NUMBER_WORDS.pattern})\s+"
    r"(?:days?|hours?|weeks?|months?)(?!\w)",
    ICASE,
)
#: A share of what the workflow would propose ("half", "the whole thing"), or a vague amount
#: ("some money", "part of it") that must be asked about: group ``share``.
SHARE = re.compile(
    r"(?<!\w)(?P<share>half|a\s+third|a\s+quarter|(?:the\s+)?(?:whole|full|entire)"
    r"(?:\s+(?:thing|amount|sum|price|lot))?|everything|all\s+of\s+it|in\s+full"
    r"|some\s+money|some|part(?:\s+of\s+it)?|a\s+bit|partially|a\s+partial\s+amount)(?!\w)",
    ICASE,
)
#: A share written as a fraction or a percentage ("1/2", "50%"): group ``share``.
FRACTION = re.compile(r"(?<![\w/.,])(?P<share>1/[234](?![\d/])|(?:50|100)\s?%)")
#: A number followed by a word ("3 boxes", "two tickets"): group ``count`` is the number.
COUNT = re.compile(
    rf"(?<![\w.,])(?P<count>\d+|{NUMBER_WORDS.pattern})(?=\s+[a-z])", ICASE
)
#: A count written as a multiplier: "x2", "2x" (or with a multiplication sign): ``count``.
TIMES = (
    re.compile(r"(?<![\w.,])[x\u00d7]\s?(?P<count>\d{1,3})(?![\w.,])", ICASE),
    re.compile(r"(?<![\w.,])(?P<count>\d{1,3})\s?[x\u00d7](?![\w.,])", ICASE),
)
#: A bare number ("135", "12.50", "twenty"; never a lone "one"): group ``number``.
NUMBER = re.compile(
    rf"(?<![\w.,])(?P<number>\d+(?:[.,]\d{{1,2}})?\s?k(?!\w)|\d+(?:[.,]\d+)?"
    rf"|(?!one\b){NUMBER_WORDS.pattern})(?![\w])",
    ICASE,
)

#: Words that lead a clause without meaning anything for the plan.
LEADING_FILLER = re.compile(
    r"^(?:(?:please|kindly|ok(?:ay)?|so|well|now|just|and|also|then|plus|oh|ugh|argh|hmm+|right"
    r"|alright|great|perfect|thanks|thank\s+you)(?:[\s,:]+|$)"
    r"|(?:dear|hi|hello|hey)\s+(?:support|team|there|all|folks)[\s,]+"
    r"|(?:good\s+(?:morning|afternoon|evening|day)|hello|hi|hey|morning)[\s,!]+|only\s+"
    r"|[:;]-?[()dp]+[\s,!]*|but[\s,]+"
    r"|(?:so\s+)?sorry\s+to\s+(?:bother|trouble|ask|disturb)(?:\s+you)?(?:\s+again)?(?:[\s,]+|$)"
    r"|(?:possibly|perhaps)\s+|for\s+now[\s,]+"
    r"|(?:either\s+way|in\s+any\s+case|regardless|whatever\s+the\s+answer)(?:[\s,:]+|$)"
    r"|(?:for\s+the\s+(?:last|\w+th|third|second)\s+time|once\s+again|one\s+more\s+time)[\s,:!.]+"
    r"|(?:\d+(?:st|nd|rd|th)|second|third|fourth|fifth)\s+time\s+(?:asking|i(?:'m|\s+am)\s+asking)"
    r"[\s,:!.]*"
    r"|(?:first(?:ly)?|in\s+the\s+meantime|meanwhile|also|secondly|finally)[\s,]+"
    r"|(?:i\s+have\s+|there\s+are\s+|i\s+need\s+|just\s+)?(?:two|three|2|3|a\s+couple\s+of"
    r"|a\s+few|some)\s+(?:small\s+|quick\s+)?things?(?:\s+to\s+(?:change|do|ask|fix))?"
    r"(?:\s+(?:please|today|for\s+you))?\s*(?:[:,-]\s*(?:1[.)]\s*)?|$)"
    r"|(?:do|handle|fix|change)\s+(?:two|three|four|\d)\s+things\s+(?=(?:for|on)\s)"
    r"|would\s+you\s+(?:please\s+)?(?:be\s+so\s+kind\s+as\s+to|mind)\s+"
    r"|(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:kindly\s+)?"
    r"|(?:could|can|may)\s+i\s+(?:please\s+)?ask\s+you\s+to\s+"
    r"|if\s+it'?s\s+not\s+too\s+much\s+(?:trouble|bother)[\s,]+|if\s+(?:at\s+all\s+)?possible[\s,]+"
    r"|when\s+you\s+get\s+a\s+chance[\s,]+|please\s+could\s+you\s+"
    r"|i(?:'d|\s+would)\s+like\s+(?:you\s+)?to\s+|i\s+(?:want|need)\s+(?:you\s+)?to\s+"
    r"|we\s+(?:want|need)\s+to\s+|let'?s\s+|go\s+ahead\s+and\s+)+",
    ICASE,
)
#: Politeness at the end of a clause ("…, please", "… thanks").
#: Politeness alone at the end of a text value written after "note:" (see read.py).
TRAILING_POLITENESS = re.compile(
    r"(?:[\s,]+(?:please|thanks|thank\s+you|right\s+away|asap))+$", ICASE
)
TRAILING_FILLER = re.compile(
    r"(?:[\s,]+(?:please|thanks|thank\s+you|right\s+now|(?<!from\s)(?<!from)\s*now|right\s+away|asap"
    r"|for\s+me|instead|too|as\s+well|immediately|at\s+once|straight\s+away|without\s+delay"
    r"|this\s+(?:instant|minute)|after\s+all))+$",
    ICASE,
)

#: Words that mark the rest of the clause as a same-breath correction of what came before.
MARKER = re.compile(
    r"^(?:no,?\s+wait|wait,?\s+no|(?:no|oh|hmm+),?\s+sorry|actually|sorry(?!\s+(?:to|for)\b)|i\s+mean|i\s+meant|or\s+rather|rather"
    r"|on\s+second\s+thoughts?|(?:hang|hold)\s+on(?=[\s,.!:-])|hmm+,?\s+actually|oops|correction|my\s+mistake|my\s+bad"
    r"|wait(?=[\s,:]+(?:make|i\s+mean|change|it\s+should|that\s+should|sorry|actually|,))"
    r"|sorry,?\s+i\s+mean(?:t)?|no,?(?=\s+make\s+(?:it|that))|hm+,?\s+no"
    rf"|(?:scrap|scratch|forget|cancel)\s+that(?=[\s,:-]+(?:\d|[€$£]|{NUMBER_WORDS.pattern}))"
    rf"|no(?=[\s,:-]+(?:\d|[€$£]|{NUMBER_WORDS.pattern}|(?:the|on|to)\s)))(?:[\s,:;.!-]+|$)",
    ICASE,
)
#: The same markers, matched at a position of the whole text (``MARKER_AT.match(text, pos)``).
MARKER_AT = re.compile(MARKER.pattern.removeprefix("^"), ICASE)
#: A verbless follow-up that inherits the previous clause's act: "(and) the return too",
#: "same for order 1002", "also for Rui Costa", "and 1002 as well".
FOLLOW_UP = re.compile(
    r"(?:(?:and|also|plus)\s+)?(?:(?:the\s+)?same\s+(?:for|on|with|goes\s+for)\s+(?P<x>[^,;]+?)"
    r"|(?:for\s+|on\s+)?(?P<y>[^,;]+?)\s+(?:too|as\s+well|also))",
    ICASE,
)
#: Where a follow-up clause opens inside a sentence ("…, and the return too").
FOLLOW_UP_AT = re.compile(
    r"(?:(?:the\s+)?same\s+(?:for|on|with|goes\s+for)\s"
    r"|(?:[\w#'\u2019.-]+\s+){1,4}(?:too|as\s+well)\s*(?:[.!?,;]|$))",
    ICASE,
)
#: Markers strong enough to cut a clause even without a comma ("150 euros no wait 135").
STRONG_MARKER = re.compile(
    r"(?:no,?\s+wait|or\s+rather|actually|on\s+second\s+thoughts?|i\s+meant"
    r"|wait,?\s+make\s+(?:it|that))\b",
    ICASE,
)

#: A clause that is only small talk.
CHITCHAT = re.compile(
    r"(?:(?:ok(?:ay)?|thanks?(?:\s+(?:a\s+lot|so\s+much|very\s+much|a\s+million|a\s+bunch"
    r"|loads|heaps|again))?|thank\s+you"
    r"(?:\s+(?:so|very)\s+much)?|cheers|great|perfect|cool|nice|good|awesome|wonderful"
    r"|excellent|fine|alright|all\s+right|got\s+it|sounds\s+good|hello|hi|hey|good\s+"
    r"(?:morning|afternoon|evening)|bye|goodbye|see\s+you(?:\s+(?:later|soon|tomorrow))?"
    r"|have\s+a\s+(?:nice|good|great)\s+(?:day|one|evening|weekend)|that'?s\s+all"
    r"|that\s+is\s+all|no\s+problem|sure|yes|yeah|yep|many\s+thanks(?:\s+in\s+advance)?"
    r"|thanks\s+in\s+advance|much\s+appreciated|(?:kind|best)\s+regards|cheers)"
    r"(?:[\s,.!]+|$))+",
    ICASE,
)

#: Generic verbs and openers that start a new clause after "and", a comma or a dash.
GENERIC_STARTERS = (
    r"change|set|update|modify|move|put|switch|make|add|remove|delete|clear|leave|keep"
    r"|don['\u2019]?t|dont|do\s+not|never|please|can\s+you|could\s+you|would\s+you|will\s+you|i\s+want"
    r"|i'?d\s+like|i\s+would\s+like|let'?s|is|are|was|were|does|did|do\s+you|what|what'?s"
    r"|when|where|which|who|how|why|tell\s+me|describe|explain|define|give\s+me|show\s+me"
    r"|forget|scratch|scrap|never\s*mind|cancel\s+that|start|open|create|rename|reschedule"
    r"|postpone|push|just|stop"
)

#: "don't", "dont", the same with a typographic apostrophe, "do not".
DONT = r"(?:don['\u2019]?t|do\s+not)"

ARTICLES = frozenset({"a", "an", "the"})
DETERMINER = r"(?:(?:the|my|our|its|their|this|that|his|her|your)\s+)"
PRONOUN = re.compile(r"^(?:it|this|that|this\s+one|that\s+one|them)$", ICASE)
#: What refers to the case itself after an operation without an object ("close this one").
DEICTIC = re.compile(
    r"^(?:it|this|that|this\s+one|that\s+one|them"
    r"|(?:the|this|that|my|our|your)\s+[a-z]+(?:\s+(?:one|case))?)$",
    ICASE,
)
LEADING_PREPOSITION = re.compile(r"^(?:(?:at|for|to|on|of|with|by|in|from|about)\s+)+", ICASE)
TRAILING_PREPOSITION = re.compile(r"(?:\s+(?:at|for|to|on|of|with|by|in|from|and))+$", ICASE)
LEADING_ARTICLE = re.compile(
    # "only the kayak tour", "just a towel": a focus word before the article is no part of it
    r"^(?:(?:only|just|simply|merely|one\s+more|a\s+second|an\s+additional|a|an|the|some"
    r"|another|more)\s+)+",
    ICASE,
)
#: An object that names nothing ("some stuff for the kids", "something nice"): asked about.
VAGUE_OBJECT = re.compile(
    r"(?:(?:some|a\s+few|few|more|other|various|a\s+couple\s+of|any)\s+)?"
    r"(?:stuff|things?|something|anything|bits|odds\s+and\s+ends)(?!\w)",
    ICASE,
)

#: Characters trimmed from both ends of a clause or value.
TRIM = " \t\r\n,.;:!?\u2026-\u2013\u2014\"'\u201c\u201d\u2018\u2019()"
