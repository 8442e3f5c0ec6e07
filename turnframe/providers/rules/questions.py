"""Questions: hypothetical, about the case (one of the workflow's questions), recall, knowledge.

- "what would happen if I closed it?" is hypothetical: a question act, never an action.
- "is the warranty still valid?" names a workflow question when every content word of one of
  its phrases (its name or an alias) is in the clause; the most specific phrase wins.
- "do you remember the plumber we talked about?" is a recall (``classify_question`` says so).
- Everything else — "Tell me about warranties", "What is a callout fee?" — is a knowledge
  question with no workflow question named: the grounding stage answers it from the reviewed
  corpora (it classifies the evidence text with the same intent rules).
"""

from __future__ import annotations

import re

import attrs

from turnframe.corpora import IntentTag, classify_question
from turnframe.providers.rules.shapes import ICASE
from turnframe.providers.rules.vocabulary import Vocabulary, tokens

QUESTION_OPENING = re.compile(
    r"(?:what|what['\u2019]?s|whats|when|where|which|who|whom|whose|why|how|is|are|was|were"
    r"|am|do(?!\s+(?:it|that|this|the\s+same|so)\b)|does|did|can|could|will"
    r"|would(?!\s+(?:like|love)\b)|should|shall|may|might|must|has"
    r"|have|had"
    r"|isn['\u2019]?t|aren['\u2019]?t|tell\s+me|let\s+me\s+know|describe|explain|define"
    r"|(?:give|show)\s+me\s+an?\s+(?:example|instance)|example\s+of|remember|recall"
    r"|i\s+(?:(?:just|only|really|also)\s+)?(?:want(?:ed)?|would\s+like|'d\s+like|need)\s+to\s+know"
    r"|(?:i(?:['\u2019]d|\s+would)|would)\s+(?:(?:just|only|really|also)\s+)?like\s+to\s+know"
    r"|i['\u2019]?(?:m|\s+am|\s+was)\s+(?:just\s+)?(?:wondering|curious)|i\s+wonder|wondering"
    r"|(?:(?:kindly|please)\s+)?(?:advise|confirm|indicate|specify|check)(?:\s+(?:me|us))?"
    r"(?:\s+(?:of|on))?"
    r"(?=\s+(?:the|what|how|when|whether|if|which|who|where)\b))(?!\w)",
    ICASE,
)
#: How a request works in general (how long it takes, how soon, what happens after):
#: knowledge, never one record's figure.
_HOW_IT_WORKS = re.compile(
    r"(?:how\s+(?:long|soon|quickly|fast|many\s+(?:days|weeks|hours|business\s+days))"
    r"|what\s+happens\s+(?:when|after|once|next)|when\s+will\s+(?:i|we)\s+(?:get|receive|see)"
    r"|how\s+(?:do|does)\s+(?:\w+\s+){1,4}work)"
    r"(?!\w)",
    ICASE,
)
#: "can I get X without Y?", "is it possible to X if Y?": whether something may be done under a
#: condition, asked by the one who would do it: a question about the rules, not a request.
_MAY_I_IF = re.compile(
    r"(?:(?:can|could|may|do|would|will|should)\s+(?:i|we|one|customers?|people)(?:\s+still)?"
    r"|is\s+it\s+(?:still\s+)?possible\s+to|am\s+i\s+(?:still\s+)?(?:able|allowed|entitled)\s+to)"
    r"\s+(?!(?:ask|know|check|see|find\s+out|learn)\b)"  # "may I ask …": a question's frame
    r".*?(?<!\w)(?:without|even\s+if|if|in\s+case|unless|with\s+no)(?!\w)",
    ICASE,
)
#: Past forms people write for the irregular ones a workflow's phrases use.
_IRREGULAR = {"payed": "paid", "buyed": "bought", "sended": "sent", "spended": "spent"}
HYPOTHETICAL = re.compile(
    r"(?:what\s+(?:would|will|could|might)\s+happen\s+if|what\s+happens\s+if|what\s+if"
    r"|suppose|supposing|hypothetically|imagine|would\s+.+\s+if|if\s+(?:i|we)\s+.+\s+what)"
    r"(?!\w)",
    ICASE,
)
_DEFINITE = re.compile(
    r"(?:what\s+(?:is|are|was|were)|what['\u2019]?s|whats)\s+(?:the|my|our|its|this|their)\s", ICASE
)


@attrs.frozen(kw_only=True)
class QuestionReading:
    question: str | None = None
    hypothetical: bool = False
    recall: str | None = None  # the recall's description
    about_case: bool = False  # a workflow question or a hypothetical: it needs a target


def looks_like_question(body: str, asked: bool) -> bool:
    return asked or QUESTION_OPENING.match(body) is not None


def asks_whether_allowed(body: str) -> bool:
    """ "can I get X without Y?": a question about the rules, never the request X."""
    return _MAY_I_IF.match(body) is not None


#: How people ask where a record stands without the word: "where are we with 1002?", "any news
#: on it?", "is it sorted yet?", "has it been dealt with?".
_WHERE_IT_STANDS = re.compile(
    r"(?<!\w)(?:where\s+are\s+(?:we|things|you)\s+(?:with|on|at)|what['\u2019]?s\s+happening"
    r"|what\s+is\s+happening|what['\u2019]?s\s+going\s+on|any\s+(?:news|updates?|progress|word)"
    r"|(?:what['\u2019]?s|what\s+is)\s+the\s+(?:latest|news|progress|situation|state)"
    r"|how['\u2019]?s\s+(?:it|that|this|\S+)\s+(?:going|coming\s+along|looking)"
    r"|how\s+(?:is|are)\s+(?:\S+\s+){1,3}?(?:going|coming\s+along|looking)"
    r"|(?:is|are|was|has|have)\s+(?:\S+\s+){1,4}?(?:(?:all|been|got|gotten|now|yet)\s+)*"
    r"(?:sorted|sorted\s+out|dealt\s+with|handled|processed|taken\s+care\s+of|done|finished"
    r"|settled|resolved|through|gone\s+through|complete|completed|ready)"
    r"|did\s+(?:\S+\s+){1,4}?(?:go|get|come)\s+through)(?!\w)",
    ICASE,
)
#: "how much was order 1001 again?", "what did it cost?": what a record cost.
_WHAT_IT_COST = re.compile(
    r"(?<!\w)(?:how\s+much\s+(?:was|is|were|are)\s+(?!\w+ed\b|there\b|left\b|still\b)"
    r"|how\s+much\s+did\s+(?:\S+\s+){1,4}?(?:cost|come\s+to)"
    r"|what\s+(?:did|does)\s+(?:\S+\s+){1,4}?cost"
    r"|(?:what['\u2019]?s|what\s+(?:is|was|were))\s+the\s+(?:total|damage|price|bill|amount))",
    ICASE,
)


#: Leaving and coming back said with a particle: "set off", "head out", "heading home".
_SETTING_OFF = re.compile(
    r"(?<!\w)(?:head|heading|set|setting|go|going|start|starting|fly|flying|take|taking)"
    r"\s+(?:off|out|away)(?!\w)",
    ICASE,
)
_COMING_HOME = re.compile(
    r"(?<!\w)(?:head|heading|go|going|get|getting|fly|flying|come|coming"
    r"|be|back)\s+(?:home|back)(?!\w)",
    ICASE,
)


def _base_forms(word: str) -> set[str]:
    """ "flying" → "fly", "leaving" → "leave", "getting" → "get": a verb's plain forms."""
    if len(word) <= 5 or not word.endswith("ing"):
        return set()
    stem = word[:-3]
    forms = {stem, stem + "e"}
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
        forms.add(stem[:-1])  # "getting" → "get"
    return forms


def _said(body: str) -> frozenset[str]:
    """The content words of a question, with the plain words its idioms stand for."""
    said = {_IRREGULAR.get(w, w) for w in tokens(body)}
    said |= {f for w in list(said) for f in _base_forms(w)}
    if _WHERE_IT_STANDS.search(body):
        said |= tokens("status")
    if _WHAT_IT_COST.search(body):
        said |= tokens("cost")
    if "home" in said:
        said |= tokens("back")  # "when do we get home?": the way back
    if _SETTING_OFF.search(body) and not _COMING_HOME.search(body):
        said |= tokens("leave")  # "when do we set off?"
    if _COMING_HOME.search(body):
        said |= tokens("come back")  # "when are we heading home?"
    return frozenset(said)


def workflow_question(body: str, vocab: Vocabulary) -> str | None:
    said = _said(body)
    for name, needed in vocab.questions:
        if needed <= said:
            return name
    return None


def read_question(body: str, vocab: Vocabulary) -> QuestionReading:
    if HYPOTHETICAL.match(body):
        return QuestionReading(hypothetical=True, about_case=True)
    if _HOW_IT_WORKS.match(body) or asks_whether_allowed(body):
        return QuestionReading()  # how it works, what the rules allow: knowledge
    classified = classify_question(body)
    if classified.intent is IntentTag.RECALL:
        return QuestionReading(recall=classified.subject or body)
    knowledge = classified.intent in (IntentTag.NARRATIVE, IntentTag.EXAMPLE) or (
        classified.intent is IntentTag.DEFINITION and not _DEFINITE.match(body)
    )
    if not knowledge:
        name = workflow_question(body, vocab)
        if name is not None:
            return QuestionReading(question=name, about_case=True)
    return QuestionReading()
