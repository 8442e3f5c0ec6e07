"""Profiles for local OpenAI-compatible servers: where they listen and what they accept.

Each server speaks OpenAI's chat-completions API at its own ``/v1``; they differ in their usual
address, in the placeholder key they ignore (the SDK needs one), and in a sensible default
context budget (a local model's window is set when it is served: raise the budget to match).

=============  ============================  =========================================
profile        usual base_url                notes
=============  ============================  =========================================
``vllm``       ``http://127.0.0.1:8000/v1``  ``json_schema`` via guided decoding
``ollama``     ``http://127.0.0.1:11434/v1`` ``json_schema`` since Ollama 0.5
``llama_cpp``  ``http://127.0.0.1:8080/v1``  ``json_schema`` compiled to a grammar
=============  ============================  =========================================
"""

from __future__ import annotations

from typing import Literal

import attrs

from turnframe.errors import ConfigError


@attrs.frozen(kw_only=True)
class LocalServerProfile:
    """How to reach one kind of local OpenAI-compatible server."""

    name: str
    base_url: str
    api_key: str = "not-needed"
    context_budget_tokens: int = 8_192
    structured: Literal["json_schema", "tool", "json_object", "none"] = "json_schema"
    token_limit_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"


VLLM = LocalServerProfile(
    name="vllm", base_url="http://127.0.0.1:8000/v1", api_key="EMPTY", context_budget_tokens=32_768
)
OLLAMA = LocalServerProfile(name="ollama", base_url="http://127.0.0.1:11434/v1", api_key="ollama")
LLAMA_CPP = LocalServerProfile(name="llama_cpp", base_url="http://127.0.0.1:8080/v1")

LOCAL_PROFILES: dict[str, LocalServerProfile] = {p.name: p for p in (VLLM, OLLAMA, LLAMA_CPP)}


def local_profile(profile: str | LocalServerProfile) -> LocalServerProfile:
    """The profile named ``profile`` (or ``profile`` itself); a typed error names the known
    ones."""
    if isinstance(profile, LocalServerProfile):
        return profile
    try:
        return LOCAL_PROFILES[profile.replace("-", "_").replace(".", "_").lower()]
    except KeyError:
        known = ", ".join(sorted(LOCAL_PROFILES))
        raise ConfigError(
            f"no local server profile named {profile!r}",
            hint=f"use one of {known}, or pass a LocalServerProfile",
        ) from None
