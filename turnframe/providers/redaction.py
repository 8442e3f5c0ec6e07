"""Redaction: a provider's words are cleaned of secrets before they are stored, logged or raised.

A provider's error body is untrusted text: a gateway or a careless server may echo the API key it
was sent. Everything the provider layer keeps of a provider's words (an error's message, an
attempt's ``detail``) goes through :func:`redact` first, with the secrets configured in the
process (every provider's API key) and with patterns for anything shaped like a key:

- the configured secrets themselves, wherever they appear (8 characters or more: a shorter
  "secret" is no key, and redacting it would shred ordinary words);
- vendor-prefixed keys (``sk-…``, ``sk-ant-…``, ``sk-proj-…``, ``AKIA…``, ``ghp_…``, ``xoxb-…``,
  ``AIza…``);
- the token after ``Bearer``, a base64 credential after ``Basic``, and the value after
  ``api_key=``, ``x-api-key:``, ``token:``, ``secret=``, ``password=`` and the like;
- long high-entropy tokens: an unbroken run of 16+ letters and digits with at least 3.5 bits of
  entropy per character. Model names, UUIDs and paths (short words joined by ``-_./``) stay, and
  so do a provider's own call ids (``req_…``, ``msg_…``, ``chatcmpl-…``), which identify a
  call to the provider's support and are not secrets, and turnframe's own ids (``turn-…``,
  ``ses_…``, ``obx_…``), which name what an operator looks up.

A redacted span reads ``[redacted]``. Redaction is idempotent: redacting twice changes nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

import attrs

REDACTED = "[redacted]"

#: A configured secret shorter than this is not searched for (see the module docstring).
MIN_SECRET_LENGTH = 8

_VENDOR_KEY = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
)
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)(?!\[redacted\])[A-Za-z0-9._~+/\-]{6,}=*")
# "Basic" is also an English word: only a base64 credential after it is redacted.
_BASIC = re.compile(r"\b(Basic)(\s+)([A-Za-z0-9+/]{8,}={0,2})")
_NAMED_VALUE = re.compile(
    r"""(?ix)
    \b((?:x-)?api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd)
    (["']?\s*[:=]\s*["']?)
    (?!\[redacted\]|bearer\b|basic\b)
    ([^\s"',;}\]]{6,})
    """
)
_LONG_TOKEN = re.compile(r"[A-Za-z0-9_\-+/.]{24,}={0,2}")
_SEGMENTS = re.compile(r"[_\-./]")
#: Ids a provider puts in its answers and error bodies so a call can be traced: not secrets.
_PROVIDER_ID = re.compile(r"(?:req|msg|chatcmpl|toolu|call|resp|run|thread)[_\-]")
#: turnframe's own ids (``turnframe._ids.new_id``: a prefix and 32 hex digits): what an operator
#: looks a turn, session or effect up by, never a secret.
_OWN_ID = re.compile(
    r"(?:turn|ses|obx|evt|case|card|clm|submit|wrk)[_\-][0-9a-f]{32}(?![0-9A-Za-z])"
)
_ENTROPY_BITS_PER_CHAR = 3.5
#: A random key is one long run; model names, UUIDs and paths are short words joined by - _ . /
_MIN_KEY_RUN = 16


def entropy_bits_per_char(token: str) -> float:
    """Shannon entropy of ``token``'s characters (0 for the empty string)."""
    if not token:
        return 0.0
    counts = Counter(token)
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _looks_like_a_key(token: str) -> bool:
    if _PROVIDER_ID.match(token) or _OWN_ID.match(token):
        return False
    run = max(_SEGMENTS.split(token), key=len)
    return (
        len(run) >= _MIN_KEY_RUN
        and any(c.isalpha() for c in run)
        and any(c.isdigit() for c in run)
        and entropy_bits_per_char(run) >= _ENTROPY_BITS_PER_CHAR
    )


def _long_token(match: re.Match[str]) -> str:
    return REDACTED if _looks_like_a_key(match.group(0)) else match.group(0)


def _basic(match: re.Match[str]) -> str:
    credential = match.group(3)
    if len(credential) % 4:  # not base64: an ordinary word after "Basic"
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{REDACTED}"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with ``secrets`` and anything shaped like a key replaced by ``[redacted]``."""
    for secret in sorted(
        {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
    ):
        text = text.replace(secret, REDACTED)
    text = _VENDOR_KEY.sub(REDACTED, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _BASIC.sub(_basic, text)
    text = _NAMED_VALUE.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return _LONG_TOKEN.sub(_long_token, text)


def _frozen(values: Iterable[str]) -> frozenset[str]:
    return frozenset(values)


@attrs.frozen
class Redactor:
    """:func:`redact` with a fixed set of configured secrets (e.g. a chain's API keys)."""

    secrets: frozenset[str] = attrs.field(converter=_frozen, factory=frozenset)

    def __call__(self, text: str) -> str:
        return redact(text, self.secrets)

    def optional(self, text: str | None) -> str | None:
        return None if text is None else redact(text, self.secrets)
