"""A provider's words are cleaned of secrets before anything keeps them."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from turnframe.providers.redaction import REDACTED, Redactor, redact

KEY_ALPHABET = string.ascii_letters + string.digits
secrets = st.text(alphabet=KEY_ALPHABET + "-_", min_size=8, max_size=64)
words = st.text(alphabet=string.printable, max_size=200)


@given(secret=secrets, before=words, after=words)
def test_a_configured_secret_never_survives_redaction(secret: str, before: str, after: str) -> None:
    assume(secret not in REDACTED)

    assert secret not in redact(before + secret + after, [secret])


@given(text=words, secret=secrets)
def test_redacting_twice_changes_nothing_more(text: str, secret: str) -> None:
    once = redact(text, [secret])

    assert redact(once, [secret]) == once


@given(text=st.text(alphabet=string.ascii_letters + " .,'", max_size=200))
def test_prose_without_anything_key_shaped_is_kept_as_it_is(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "leak",
    [
        "Incorrect API key provided: sk-proj-4fT9qLmZ2xR8vB1nC7kD3hJ6",
        "invalid x-api-key sk-ant-api03-Zq81kLp0Xm2Nv7Bc4Rt6Yw9Ue3Io5Pa",
        "request had header authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc",
        'echo {"api_key": "hunter2-but-longer"}',
        "password=correcthorsebattery",
        "the credential Basic dXNlcjpwYXNzd29yZA== was refused",
        "token Xk29aLq0PzR7mN4bV8cT1wYe leaked",
        "AWS says AKIAIOSFODNN7EXAMPLE is unknown",
    ],
)
def test_anything_shaped_like_a_key_is_redacted(leak: str) -> None:
    cleaned = redact(leak)

    assert REDACTED in cleaned
    assert not any(
        part in cleaned
        for part in (
            "4fT9qLmZ",
            "Zq81kLp0",
            "eyJhbGci",
            "hunter2",
            "correcthorse",
            "dXNlcjpw",
            "Xk29aLq0",
            "AKIAIOSF",
        )
    )


@pytest.mark.parametrize(
    "kept",
    [
        "The model `claude-sonnet-4-5-20250929` does not exist or you do not have access to it.",
        "This model's maximum context length is 128000 tokens; max_tokens: 2048.",
        "Rate limit reached for requests; see https://platform.openai.com/account/rate-limits.",
        "request req_011CSHoEeqs5C35K2UUqR7Fy failed; Basic authentication is not supported",
        "conversation 123e4567-e89b-12d3-a456-426614174000 was not found",
        "turn turn-01a2350219f046196151ef5283afaceb was interpreted again in phase committed",
        "session ses_01a234f8f7fb66dedcb619a51dc81473: obx_01a234f6d48a654d52d453a4470b2128.",
    ],
)
def test_what_helps_an_operator_is_kept(kept: str) -> None:
    assert redact(kept) == kept


def test_a_secret_too_short_to_be_a_key_does_not_shred_ordinary_words() -> None:
    assert redact("the request was bad", ["bad"]) == "the request was bad"


def test_a_redactor_carries_the_configured_secrets() -> None:
    redactor = Redactor(["tf-live-0123-4567"])

    assert redactor("the key tf-live-0123-4567 was refused") == f"the key {REDACTED} was refused"
    assert redactor.optional(None) is None
