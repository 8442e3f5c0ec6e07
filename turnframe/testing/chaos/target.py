"""What a chaos run plays: a :class:`ChaosTarget` (a workflow, its seed cases, its offline
interpreter and the conversations to play), a sample desk's, or an adopter's own.

A conversation is a list of lines, as ``turnframe chat --script`` reads them: a user turn, or
``/click LABEL`` (click the option labelled LABEL on the session's open card). A corpus file
holds many: JSON Lines whose objects carry ``"turns": [...]`` (the phrasing corpus format; other
keys are ignored), or a plain script of one conversation per block of lines (blank lines
between conversations, ``#`` comments skipped).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from turnframe.errors import TurnframeError
from turnframe.providers.base import Provider
from turnframe.stores.inputs import NewCase
from turnframe.workflow import Workflow

#: The instant every chaos turn is received at, unless the target says otherwise (a Wednesday).
CHAOS_CLOCK = datetime(2026, 1, 28, 9, 30, tzinfo=UTC)


class BadChaosTarget(TurnframeError):
    """The workflow or corpus given to chaos cannot be played."""

    code = "turnframe.chaos.bad_target"


def _no_cases(account_id: str) -> Sequence[NewCase]:
    return ()


def _conversations(value: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    found = tuple(tuple(str(line) for line in c) for c in value)
    return tuple(c for c in found if c)


@attrs.frozen(kw_only=True)
class ChaosTarget:
    """A workflow to chaos-test.

    - ``workflow``: the workflow under test.
    - ``interpreter``: makes the workflow's provider (offline and deterministic: chaos injects
      the faults itself, at the provider interface). Called for each runtime a run starts.
    - ``conversations``: what users say, each a list of lines (text or ``/click LABEL``).
    - ``seed``: the cases an account starts with, as store inputs (``account_id -> NewCase``s).
    - ``confirm_cards``: when a turn shows a confirmation card and the next line is not a click,
      click its confirm option first (what ``turnframe demo`` does).
    - ``clock``: the instant turns are received at (relative dates count from it).
    """

    workflow: Workflow[Any]
    interpreter: Callable[[], Provider]
    conversations: tuple[tuple[str, ...], ...] = attrs.field(converter=_conversations)
    seed: Callable[[str], Sequence[NewCase]] = _no_cases
    confirm_cards: bool = False
    clock: datetime = CHAOS_CLOCK

    @conversations.validator
    def _some(self, _: attrs.Attribute[Any], value: tuple[tuple[str, ...], ...]) -> None:
        if not value:
            raise BadChaosTarget(
                f"chaos target {self.workflow.name!r} has no conversation to play",
                hint="give it conversations=[[...lines...]] or a corpus file",
            )

    @property
    def name(self) -> str:
        return self.workflow.name

    def with_conversations(self, conversations: Sequence[Sequence[str]]) -> ChaosTarget:
        return attrs.evolve(self, conversations=conversations)

    @classmethod
    def sample(cls, name: str) -> ChaosTarget:
        """A sample desk (``travel-desk``, ``refund-desk``): its demo conversation, its seed
        cases and the offline rules interpreter; cards are confirmed as the demo does."""
        from turnframe.examples import sample
        from turnframe.providers.rules import RulesProvider

        desk = sample(name)
        rules = RulesProvider(workflows=[desk.workflow])  # stateless: one serves every run

        def interpreter() -> Provider:
            return rules

        def seed(account_id: str) -> Sequence[NewCase]:
            return [case.new_case(account_id) for case in desk.seed()]

        return cls(
            workflow=desk.workflow,
            interpreter=interpreter,
            conversations=[desk.demo_turns],
            seed=seed,
            confirm_cards=True,
        )


def load_target(spec: str) -> ChaosTarget:
    """A sample desk by name, or ``package.module:attribute`` naming a :class:`ChaosTarget`
    (or a function without arguments that returns one)."""
    from turnframe.examples import SAMPLE_WORKFLOWS

    if spec in SAMPLE_WORKFLOWS:
        return ChaosTarget.sample(spec)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        known = ", ".join(sorted(SAMPLE_WORKFLOWS))
        raise BadChaosTarget(
            f"--workflow {spec!r} is neither a sample desk nor module:attribute",
            hint=f"name a sample desk ({known}) or your ChaosTarget as package.module:NAME",
        )
    if os.getcwd() not in sys.path:  # your project's module, as `python -m` would find it
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BadChaosTarget(
            f"cannot import {module_name!r} for --workflow {spec!r}: {error}",
            hint="run from your project's directory, or install it in this environment",
        ) from None
    found = getattr(module, attribute, None)
    if callable(found) and not isinstance(found, ChaosTarget):
        try:
            found = found()
        except Exception as error:
            raise BadChaosTarget(
                f"calling {spec!r} to get a ChaosTarget failed: {type(error).__name__}: {error}",
                hint="point --workflow at a ChaosTarget, or a function without arguments",
            ) from None
    if not isinstance(found, ChaosTarget):
        raise BadChaosTarget(
            f"{spec!r} is not a ChaosTarget (got {type(found).__name__})",
            hint="point --workflow at a turnframe.testing.chaos.ChaosTarget",
        )
    return found


def read_corpus(path: Path) -> tuple[tuple[str, ...], ...]:
    """The conversations in ``path`` (JSON Lines with ``turns``, or a plain script), checked
    whole: a bad line is a typed error naming the file and the line."""
    try:
        content = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadChaosTarget(
            f"corpus {str(path)!r} does not exist", hint="give --corpus an existing file"
        ) from None
    except UnicodeDecodeError:
        raise BadChaosTarget(
            f"corpus {str(path)!r} is not UTF-8 text", hint="save the corpus as UTF-8"
        ) from None
    except OSError as error:
        raise BadChaosTarget(
            f"cannot read corpus {str(path)!r}: {error.strerror}", hint="check the --corpus path"
        ) from None
    if path.suffix in (".jsonl", ".json"):
        conversations = _jsonl(content, path)
    else:
        conversations = _script(content)
    if not conversations:
        raise BadChaosTarget(
            f"corpus {str(path)!r} holds no conversation",
            hint='write one JSON object per line with "turns": [...], or script lines',
        )
    return conversations


def _jsonl(content: str, path: Path) -> tuple[tuple[str, ...], ...]:
    found: list[tuple[str, ...]] = []
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as error:
            raise BadChaosTarget(
                f"{path}:{number}: not JSON ({error})", hint="one JSON object per line"
            ) from None
        turns = item.get("turns") if isinstance(item, dict) else None
        if not isinstance(turns, list) or not turns or not all(
            isinstance(t, str) and t.strip() for t in turns
        ):
            raise BadChaosTarget(
                f'{path}:{number}: "turns" must be a non-empty list of non-empty strings',
                hint='e.g. {"turns": ["Refund 20 euros on order 1001", "/click confirm"]}',
            )
        found.append(tuple(turns))
    return tuple(found)


def _script(content: str) -> tuple[tuple[str, ...], ...]:
    found: list[tuple[str, ...]] = []
    current: list[str] = []
    for raw in [*content.splitlines(), ""]:
        line = raw.strip()
        if line.startswith("#"):
            continue
        if line:
            current.append(line)
        elif current:
            found.append(tuple(current))
            current = []
    return tuple(found)


__all__ = ["CHAOS_CLOCK", "BadChaosTarget", "ChaosTarget", "load_target", "read_corpus"]
