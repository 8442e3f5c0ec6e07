"""Digests are SHA-256 over RFC 8785 canonical JSON: any JCS implementation reproduces them."""

from __future__ import annotations

import hashlib
import json

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe._hashing import NotCanonicalJson, canonical_json, digest

#: RFC 8785 §3.2.2's own example, as JSON text, and the bytes §3.2.3 says it canonicalises to.
RFC_INPUT = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC_OUTPUT = (
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
    '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
).encode("utf-8")


def test_the_rfc_8785_example_canonicalises_to_the_bytes_the_rfc_gives() -> None:
    assert canonical_json(json.loads(RFC_INPUT)) == RFC_OUTPUT


def test_a_digest_is_sha256_of_the_domain_and_the_jcs_bytes_written_by_hand() -> None:
    value = {"b": [1, 2.5, 1.0, True, None], "a": "caf\u00e9", "\U0001f600": 1, "\uffff": 2}
    # RFC 8785 by hand: keys by UTF-16 code units (U+FFFF sorts after the surrogate pair of
    # U+1F600), numbers as ECMAScript writes them (1.0 is 1), UTF-8, no whitespace.
    jcs = b'{"a":"caf\xc3\xa9","b":[1,2.5,1,true,null],"\xf0\x9f\x98\x80":1,"\xef\xbf\xbf":2}'
    by_hand = hashlib.sha256(b"turnframe/v1/plan\x00" + jcs).hexdigest()
    assert canonical_json(value) == jcs
    assert digest("plan", value) == by_hand
    # the same, from a shell: printf 'turnframe/v1/plan\0<the bytes above>' | sha256sum
    assert by_hand == "de769b9d372c2cfbaf775241ca6383c318beec286e960ee69af3ebf423efb4a6"


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), 2**53, -(2**53), {1: "a"}, b"bytes", {1.5}]
)
def test_a_value_json_cannot_hold_exactly_is_refused_with_a_typed_error(value: object) -> None:
    with pytest.raises(NotCanonicalJson, match="RFC 8785"):
        canonical_json(value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_canonical_json_reads_back_as_the_same_value(value: object) -> None:
    assert json.loads(canonical_json(value)) == value


any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(codec="utf-8")),
    lambda inner: st.lists(inner, max_size=4)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6), inner, max_size=4),
    max_leaves=16,
)


@settings(max_examples=400)
@given(any_json)
def test_every_value_gets_the_rfc8785_packages_bytes_or_its_refusal(value: object) -> None:
    try:
        expected = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        with pytest.raises(NotCanonicalJson):
            canonical_json(value)
        return
    assert canonical_json(value) == expected


@pytest.mark.parametrize("value", ["\ud800", {"\udc00": 1}, ["a\ud83d"]])
def test_a_lone_surrogate_is_refused_with_the_typed_error(value: object) -> None:
    with pytest.raises(NotCanonicalJson):
        canonical_json(value)
