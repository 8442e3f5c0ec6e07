"""The entropy track: identifiers in one canonical form, whatever surface the user wrote.

A structured identifier is the strongest cue there is: "PR 309", "PR-309", "PR#309",
"pull request #309", "pull-request 309", "issue 309", "ticket 309" and "#309" all name the
numbered reference ``#309`` (the canonical form is the dedup key: one identifier, however it
was written). Every literal carries the
namespace of the extractor that read it; the namespace decides which claim kind the literal can
anchor (:data:`CLAIM_KIND`): an order number never anchors a ticket recall, even when the digits
agree, because their canonical forms (``order:309`` and ``#309``) differ by construction.

Namespaces: ``url``, ``file_path``, ``github_issue``, ``github_pr``, ``ticket`` (all three
canonical ``#N``), ``order`` (``order:N``), ``case`` (``case:N``), ``commit`` (``sha:`` and the
first seven hex digits, so a short and a long sha agree) and ``session`` (a turnframe session id).
"""

from __future__ import annotations

import re

import attrs

_I = re.IGNORECASE

#: Which claim kind each namespace can authorize.
CLAIM_KIND: dict[str, str] = {
    "github_issue": "numbered_reference",
    "github_pr": "numbered_reference",
    "ticket": "numbered_reference",
    "order": "order",
    "case": "case",
    "commit": "commit",
    "url": "url",
    "file_path": "file_path",
    "session": "session",
}


@attrs.frozen(kw_only=True)
class Found:
    """One identifier in a text: its canonical literal, namespace and where it stood."""

    literal: str
    namespace: str
    start: int
    end: int


_URL = re.compile(r"\bhttps?://[^\s<>\"'`]+", _I)
_NUMBERED = re.compile(
    r"(?<![\w#])(?:(?P<pr>pull[\s-]*request|pr)|(?P<issue>issue|bug)|(?P<ticket>ticket))"
    r"(?:\s+(?:no\.?|number|num\.?))?\s*[#-]?\s*(?P<n>\d{1,9})\b",
    _I,
)
_HASH = re.compile(r"(?<![\w&#/])#(?P<n>\d{1,9})\b")
_ORDER = re.compile(r"\border(?:\s+(?:no\.?|number|num\.?))?\s*#?\s*(?P<n>\d{2,12})\b", _I)
_CASE = re.compile(r"\bcase(?:\s+(?:no\.?|number|num\.?))?\s*#?\s*(?P<n>\d{1,12})\b", _I)
_SESSION = re.compile(r"\bses_[0-9a-f]{6,64}\b", _I)
_COMMIT = re.compile(r"(?<![\w/.#-])(?:commit\s+)?(?P<sha>[0-9a-f]{7,40})(?![\w/.-])", _I)
_PATH = re.compile(
    r"(?<![\w/:.@-])(?P<path>(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*\w"
    r"|[\w-]+\.(?:py|md|txt|json|ya?ml|toml|csv|ini|cfg|sql|js|ts|tsx|jsx|html|css|rs|go|java"
    r"|rb|sh|pdf|docx?|xlsx?|png|jpe?g|log|lock))(?![\w/])",
    _I,
)
_TRAILING = ".,;:!?)]}'\""


def _canonical_url(url: str) -> str:
    url = url.rstrip(_TRAILING)
    url = url.split("#", 1)[0]
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    path = path.rstrip("/")
    return f"{scheme.lower()}://{host.lower()}" + (f"/{path}" if slash and path else "")


def _canonical_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def find_identifiers(text: str) -> list[Found]:
    """Every identifier in ``text``, in order of position; an overlapping later read loses."""
    found: list[Found] = []
    taken: list[tuple[int, int]] = []

    def take(literal: str, namespace: str, start: int, end: int) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        found.append(Found(literal=literal, namespace=namespace, start=start, end=end))

    for m in _URL.finditer(text):
        url = m.group(0).rstrip(_TRAILING)
        take(_canonical_url(url), "url", m.start(), m.start() + len(url))
    for m in _SESSION.finditer(text):
        take(m.group(0).lower(), "session", m.start(), m.end())
    for m in _NUMBERED.finditer(text):
        namespace = (
            "github_pr" if m.group("pr") else "ticket" if m.group("ticket") else "github_issue"
        )
        take(f"#{int(m.group('n'))}", namespace, m.start(), m.end())
    for m in _ORDER.finditer(text):
        take(f"order:{int(m.group('n'))}", "order", m.start(), m.end())
    for m in _CASE.finditer(text):
        take(f"case:{int(m.group('n'))}", "case", m.start(), m.end())
    for m in _HASH.finditer(text):  # a bare "#N" after the named kinds: "order #309" is an order
        take(f"#{int(m.group('n'))}", "github_issue", m.start(), m.end())
    for m in _COMMIT.finditer(text):
        sha = m.group("sha")
        if re.search(r"\d", sha) and re.search(r"[a-f]", sha, _I):
            take(f"sha:{sha[:7].lower()}", "commit", m.start(), m.end())
    for m in _PATH.finditer(text):
        path = m.group("path")
        if "://" not in path and not path.replace(".", "").replace("/", "").isdigit():
            take(_canonical_path(path), "file_path", m.start(), m.end())
    found.sort(key=lambda f: f.start)
    return found


def canonical(text: str) -> list[str]:
    """The canonical literals of ``text``'s identifiers, each once, in order."""
    return list(dict.fromkeys(f.literal for f in find_identifiers(text)))


def claim_kind(namespace: str) -> str | None:
    return CLAIM_KIND.get(namespace)


def authorizes(namespace: str, cue_namespace: str) -> bool:
    """Whether a literal read by ``namespace`` may anchor a cue read by ``cue_namespace``."""
    kind = claim_kind(namespace)
    return kind is not None and kind == claim_kind(cue_namespace)


__all__ = ["CLAIM_KIND", "Found", "authorizes", "canonical", "claim_kind", "find_identifiers"]
