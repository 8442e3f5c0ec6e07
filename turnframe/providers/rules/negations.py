"""Negative clauses: keep a field unchanged, forbid a class of acts, take back an earlier act.

=========================================  ==================================================
"leave the date as it is", "keep the note"  ``keep_unchanged`` on that field
"don't touch the address"                   ``keep_unchanged`` (the address is a field)
"don't submit", "do not send anything yet"  ``constraint``: no submissions (an operation
                                            marked ``is_submission``), wherever it stands
"don't close it"                            ``constraint``: no_operation close
"don't change anything"                     ``constraint``: no_changes
"never mind", "scratch that", "don't"       ``cancel`` the latest change of the turn
"actually don't add the note"               ``cancel`` the latest act on that field
"don't change anything else"                nothing: what the turn does not ask for stays
=========================================  ==================================================
"""

from __future__ import annotations

import functools
import re

import attrs

from turnframe.plan import ConstraintKind
from turnframe.providers.rules.shapes import DETERMINER, DONT, ICASE
from turnframe.providers.rules.vocabulary import Vocabulary

_POSSESSOR = r"(?:[\w-]+(?:'s|\u2019s)\s+)?"
_OWNER = r"(?:\s+(?:of|for|on|in)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?"
_AS_IT_IS = (
    r"(?:\s+(?:as\s+it\s+is|as\s+is|alone|unchanged|the\s+same|as\s+it\s+was|untouched"
    r"|where\s+it\s+is|for\s+now|be))*"
)
_TOUCH = r"(?:change|touch|modify|update|alter|edit|move|add|set|write)"
_KEEP_FORMS = (
    rf"(?:leave|keep)\s+{DETERMINER}?{_POSSESSOR}(?P<f>F){_OWNER}{_AS_IT_IS}",
    rf"(?:please\s+)?(?:{DONT}|never)\s+{_TOUCH}\s+(?:(?:a|an)\s+)?{DETERMINER}?{_POSSESSOR}"
    rf"(?P<f>F){_OWNER}(?:\s+(?:yet|for\s+now|at\s+all))?",
    rf"{DETERMINER}?(?P<f>F)\s+(?:stays|remains|should\s+stay|can\s+stay|is\s+fine){_AS_IT_IS}",
)
KEEP_IT = re.compile(
    r"(?:leave|keep)\s+(?:it|that|everything)\s+(?:as\s+it\s+is|as\s+is|alone|unchanged"
    r"|the\s+same|as\s+it\s+was)",
    ICASE,
)
CANCEL = re.compile(
    r"(?:no\s+)?(?:scratch|scrap|forget|ignore|drop|cancel|skip)\s+(?:that|it|this|the\s+last\s+one"
    r"|about\s+it|that\s+one)|never\s*mind(?:\s+that)?|not\s+that(?:\s+one)?|leave\s+it"
    rf"|(?:{DONT})(?:\s+do\s+(?:it|that)|\s+bother)?",
    ICASE,
)
NEGATION = re.compile(rf"(?:please\s+)?(?:{DONT}|never|no\s+need\s+to)\s+(?P<rest>.+)", ICASE)
_NO_CHANGES = re.compile(
    r"(?:change|touch|modify|update|alter|edit|do)\s+(?:anything|a\s+thing|it|them)"
    r"(?:\s+else)?(?:\s+(?:yet|for\s+now|at\s+all))?|make\s+any\s+changes(?:\s+yet)?",
    ICASE,
)
#: "don't change anything else", "leave everything else as it is": whatever the turn does
#: not ask for stays as it is, which is what every turn does anyway: no act.
NOTHING_ELSE = re.compile(
    rf"(?:(?:but|and|please)\s+)*(?:(?:{DONT}|never)\s+(?:change|touch|modify|update|alter"
    r"|edit)\s+(?:anything|a\s+thing)|(?:leave|keep)\s+(?:everything|all|the\s+rest)"
    r")\s+else(?:\s+(?:as\s+it\s+is|as\s+is|alone|unchanged|the\s+same|please))?"
    r"|(?:leave|keep)\s+the\s+rest(?:\s+(?:as\s+it\s+is|as\s+is|alone|unchanged|the\s+same))?",
    ICASE,
)
_NO_DESTRUCTIVE = re.compile(
    r"(?:do|delete|remove|destroy|cancel)\s+anything\s+(?:destructive|irreversible|permanent)",
    ICASE,
)


_MAX_TAIL = 4
_UNTIL_I_CONFIRM = re.compile(
    r"\buntil\s+(?:i|we)\s+(?:confirm|approve|say\s+so|click|check|agree)", ICASE
)


@functools.cache
def keep_forms(field_pattern: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(form.replace("(?P<f>F)", f"(?P<f>{field_pattern})"), ICASE)
        for form in _KEEP_FORMS
    )


def kept_field(text: str, start: int, end: int, vocab: Vocabulary) -> str | None:
    """The field a keep-unchanged clause names, if the clause is one."""
    for form in keep_forms(vocab.field_pattern):
        m = form.fullmatch(text, start, end)
        if m is not None:
            return vocab.field_named(m.group("f"))
    return None


@attrs.frozen(kw_only=True)
class Forbidden:
    forbids: ConstraintKind
    operation: str | None = None


def negated_operations(rest: str, vocab: Vocabulary) -> tuple[str, ...]:
    """The operations a negated verb phrase names: the whole phrase, else its first word.

    What follows the verb must be short and plain ("it", "anything yet", "the request"): a
    longer tail is something else the rules do not read, so nothing is forbidden on a guess.
    """
    whole = re.match(rf"(?:{vocab.operation_pattern})(?!\w)", rest, ICASE)
    if whole is not None:
        names: tuple[str, ...] = (vocab.operation_named(whole.group(0)),)
        tail = rest[whole.end() :]
    else:
        first, _, tail = rest.partition(" ")
        names = vocab.operation_verbs.get(first.casefold(), ())
    if len(tail.split()) > _MAX_TAIL or re.search(r"[,:;]", tail):
        return ()
    return names


def forbidden(text: str, start: int, end: int, vocab: Vocabulary) -> tuple[Forbidden, ...]:
    """What a negative clause forbids for the turn ("don't submit"), or nothing."""
    m = NEGATION.fullmatch(text, start, end)
    if m is None:
        return ()
    rest = m.group("rest")
    if _UNTIL_I_CONFIRM.search(rest):
        return ()  # "don't send it until I confirm": that is what a confirmation card is for
    if _NO_DESTRUCTIVE.fullmatch(rest):
        return (Forbidden(forbids=ConstraintKind.NO_DESTRUCTIVE),)
    if _NO_CHANGES.fullmatch(rest):
        return (Forbidden(forbids=ConstraintKind.NO_CHANGES),)
    out: list[Forbidden] = []
    for name in negated_operations(rest, vocab):
        if vocab.operation(name).is_submission:
            rule = Forbidden(forbids=ConstraintKind.NO_SUBMISSIONS)
        else:
            rule = Forbidden(forbids=ConstraintKind.NO_OPERATION, operation=name)
        if rule not in out:
            out.append(rule)
    return tuple(out)
