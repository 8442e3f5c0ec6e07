"""The one hashing helper: canonical JSON (RFC 8785) and domain-separated SHA-256 digests.

Identities (idempotency keys, command ids, plan hashes, template and reference digests) are
derived here and nowhere else, so the same input always gives the same bytes and the same hash.
No clocks, no randomness.

Canonical JSON is the JSON Canonicalization Scheme of RFC 8785, written by the ``rfc8785``
package: any other JCS implementation gives the same bytes, so a digest can be checked without
turnframe (``sha256(b"turnframe/v1/" + domain + b"\x00" + JCS(value))``).
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from typing import Any

import rfc8785

#: Part of every domain string; bumped when the canonical form changes. v1 has always sorted
#: keys, used no whitespace and written UTF-8; since the rfc8785 package writes it, it is JCS
#: exactly. The bytes differ from before only for floats written with an exponent or an
#: integral value (``1.0`` is now ``1``) and for keys outside the Basic Multilingual Plane (now
#: sorted by UTF-16 code units), neither of which the sample desks or the core ever hash, so
#: stored identities keep their meaning and v1 stays v1.
CANONICAL_VERSION = "v1"


class NotCanonicalJson(ValueError):
    """A value RFC 8785 cannot write: NaN or an infinity, an integer beyond +/-(2**53 - 1)
    (JSON numbers are IEEE doubles), a key that is not a string, or a type JSON lacks."""


#: The integers an IEEE double holds exactly: RFC 8785's number domain.
_SAFE_INTEGER = 2**53 - 1
#: For values :func:`_plainly_jcs` accepts, these bytes are RFC 8785's (tested against the
#: rfc8785 package with Hypothesis): keys sorted, no whitespace, UTF-8, the same escapes.
_PLAIN = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _plain_chunks() -> Any:
    """What ``_PLAIN.encode`` runs, built once instead of per call: the C encoder with the same
    settings. No circular check: it only ever writes values :func:`_plainly_jcs` walked whole
    (a cycle never ends that walk), so no marker is needed and none is shared between threads."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator: the encoder as it is
        return lambda value, _: [_PLAIN.encode(value)]
    string = json.encoder.encode_basestring  # what _PLAIN writes strings with
    return make(None, _PLAIN.default, string, None, ":", ",", True, False, True)


_CHUNKS = _plain_chunks()


def canonical_json(value: Any) -> bytes:
    """Serialise plain data (dict/list/tuple/str/int/float/bool/None) to RFC 8785 bytes.

    Keys sorted by UTF-16 code units, no insignificant whitespace, UTF-8, numbers as ECMAScript
    writes them. A value outside JSON's domain raises :class:`NotCanonicalJson`.
    """
    # The rfc8785 package is pure Python and about five times slower than the C JSON encoder,
    # and a turn hashes a dozen values. Values without floats, without integers beyond the
    # exact range and without keys beyond the Basic Multilingual Plane (where code-point order
    # and UTF-16 order part) have the same bytes from both, so they take the fast encoder.
    try:
        if _plainly_jcs(value):
            return "".join(_CHUNKS(value, 0)).encode("utf-8")
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, UnicodeEncodeError) as error:  # lone surrogates too
        raise NotCanonicalJson(f"cannot be recorded exactly as JSON (RFC 8785): {error}") from None


def _plainly_jcs(value: Any) -> bool:
    """Whether ``value`` holds only null, booleans, exact integers, strings, and lists, tuples
    and dicts of them whose keys are strings within the Basic Multilingual Plane."""
    # Scalars inside a container are judged where they are met (most values are strings);
    # only containers wait in ``pending``.
    pending = [value]
    pop, push = pending.pop, pending.append
    low, high = -_SAFE_INTEGER, _SAFE_INTEGER
    while pending:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key, inner in item.items():
                if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                    return False
                inner_kind = type(inner)
                if inner_kind is str or inner_kind is bool or inner is None:
                    continue
                if inner_kind is int:
                    if low <= inner <= high:
                        continue
                    return False
                if inner_kind is dict or inner_kind is list or inner_kind is tuple:
                    push(inner)
                    continue
                return False  # floats, subclasses, anything else: the library decides
        elif kind is list or kind is tuple:
            for inner in item:
                inner_kind = type(inner)
                if inner_kind is str or inner_kind is bool or inner is None:
                    continue
                if inner_kind is int:
                    if low <= inner <= high:
                        continue
                    return False
                if inner_kind is dict or inner_kind is list or inner_kind is tuple:
                    push(inner)
                    continue
                return False
        elif kind is str or kind is bool or item is None:
            continue
        elif kind is int:
            if not low <= item <= high:
                return False
        else:
            return False
    return True


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
