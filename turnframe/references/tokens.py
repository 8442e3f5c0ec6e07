"""A deterministic token estimate: UTF-8 bytes / 4, rounded up.

No tokenizer dependency and the same answer on every machine. It over-counts non-ASCII text,
which is the safe side for a budget guardrail; a provider that knows better declares its budget
with that margin in mind.
"""

from __future__ import annotations


def estimate_tokens(text: str | bytes) -> int:
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8"))
    return (size + 3) // 4
