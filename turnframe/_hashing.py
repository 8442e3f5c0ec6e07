"""The one hashing helper: canonical JSON and domain-separated SHA-256 digests.

Identities (idempotency keys, command ids, plan hashes, template and reference digests) are
derived here and nowhere else, so the same input always gives the same bytes and the same hash.
No clocks, no randomness.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Bumped when the canonical form changes; part of every domain string.
CANONICAL_VERSION = "v1"


def canonical_json(value: Any) -> bytes:
    """Serialise plain data (dict/list/str/int/float/bool/None) to canonical JSON bytes.

    Keys sorted, no insignificant whitespace, UTF-8, NaN and infinities refused.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def digest(domain: str, value: Any) -> str:
    """SHA-256 hex digest of ``value``'s canonical JSON under a versioned ``domain`` string.

    The domain keeps digests of different kinds of things apart even when their content matches.
    """
    h = hashlib.sha256()
    h.update(f"turnframe/{CANONICAL_VERSION}/{domain}".encode())
    h.update(b"\x00")
    h.update(canonical_json(value))
    return h.hexdigest()


def digest_bytes(data: bytes) -> str:
    """Plain SHA-256 hex digest of raw bytes (file contents, reference material)."""
    return hashlib.sha256(data).hexdigest()
