"""Human output: plain text always works; rich tables and colour when ``rich`` is installed.

Both renderers print the same facts from the same rows (:func:`act_rows`, :func:`session_rows`,
the audit view); only the layout differs. ``--plain`` / ``--rich`` choose; by default rich is used
when it is importable and stdout is a terminal (``NO_COLOR`` turns its colour off).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import Any, Protocol, TextIO

import attrs

from turnframe.cli.conversation import TurnOutcome
from turnframe.cli.explain import compact, decided_by, verdict
from turnframe.pipeline.replay_view import ReplayView
from turnframe.response import Block, BlockKind


@attrs.frozen(kw_only=True)
class ActRow:
    index: int
    summary: str
    word: str
    why: str
    kind: str
    result: str
    reason: str
    evidence: str


@attrs.frozen(kw_only=True)
class SessionRow:
    """A session and one of its turns (its last one, unless every turn is listed)."""

    session_id: str
    workflow: str
    created_at: str
    turns: int
    turn_id: str
    phase: str
    text: str
    #: Why the turn failed (or its reply was parked): a stable code; empty otherwise.
    reason: str = ""

    @property
    def phase_shown(self) -> str:
        return f"{self.phase} ({self.reason})" if self.reason else self.phase


def act_rows(view: ReplayView) -> list[ActRow]:
    rows: list[ActRow] = []
    for act in view.acts:
        judged = verdict(act, view)
        rows.append(
            ActRow(
                index=act.index,
                summary=act.summary,
                word=judged.word,
                why=judged.why,
                kind=act.kind,
                result=act.result or "-",
                reason=act.reason or "-",
                evidence=" … ".join(f"\u201c{e}\u201d" for e in act.evidence),
            )
        )
    return rows


def event_lines(view: ReplayView) -> list[str]:
    return [f"{e.type} on {e.case_id} (revision {e.revision})" for e in view.events]


def card_lines(block: Block) -> list[str]:
    """Under a card: each command with every argument as it will run, then the options."""
    if block.kind is not BlockKind.CARD:
        return []
    lines = []
    for command in block.data.get("commands", []):
        shown = command.get("shown", {})
        proposed = set(command.get("proposed", []))
        args = ", ".join(
            f"{name}={value}" + (" (proposed)" if name in proposed else "")
            for name, value in shown.items()
        )
        lines.append(f"{command.get('operation')} on {command.get('record')}: {args or '-'}")
    labels = [str(o.get("label") or o.get("option_id")) for o in block.data.get("options", [])]
    if labels:
        lines.append("options: " + " | ".join(labels) + "   (/click LABEL)")
    return lines


def click_line(view: ReplayView) -> str | None:
    outcome = view.interaction_outcome if isinstance(view.interaction_outcome, dict) else None
    if outcome is None:
        return None
    return (
        f"option {outcome.get('option_id')} on card {outcome.get('interaction_id')}: "
        f"{outcome.get('status')} ({outcome.get('reason')})"
    )


class Renderer(Protocol):
    def heading(self, text: str) -> None: ...

    def note(self, text: str) -> None: ...

    def turn(self, number: int, outcome: TurnOutcome, *, echo: bool = True) -> None:
        """Print one turn; ``echo`` repeats what the user said (not at an interactive prompt)."""
        ...

    def replay(self, view: ReplayView) -> None: ...

    def sessions(self, rows: Sequence[SessionRow]) -> None: ...


def choose_renderer(style: str, out: TextIO | None = None) -> Renderer:
    """``style`` is ``plain``, ``rich`` or ``auto``."""
    stream = out or sys.stdout
    has_rich = importlib.util.find_spec("rich") is not None
    if style == "rich" and has_rich:
        return RichRenderer(stream, force_terminal=True)
    if style == "auto" and has_rich and stream.isatty():
        return RichRenderer(stream, force_terminal=False)
    return PlainRenderer(stream)


# -- plain text -----------------------------------------------------------------------------------


class PlainRenderer:
    def __init__(self, out: TextIO) -> None:
        self._out = out

    def _line(self, text: str = "") -> None:
        print(text, file=self._out)

    def heading(self, text: str) -> None:
        self._line(text)

    def note(self, text: str) -> None:
        self._line(text)

    def turn(self, number: int, outcome: TurnOutcome, *, echo: bool = True) -> None:
        self._line(f"\u2500\u2500 turn {number} \u2500\u2500")
        if echo:
            self._line(f"you> {outcome.said}")
        for block in outcome.response.blocks:
            # A block of several lines (a recall presentation) stays in the text column.
            text = block.text.replace("\n", "\n" + " " * 11)
            self._line(f"  {block.kind.value:<8} {text}")
            for line in card_lines(block):
                self._line(f"           {line}")
        view = outcome.view
        if view is None:
            return
        if view.acts:
            self._line("  what happened, act by act:")
        for row in act_rows(view):
            why = f" \u2014 {row.why}" if row.why else ""
            self._line(f"    {row.index} {row.summary}: {row.word}{why}")
            self._line(f"        {row.kind} \u00b7 {row.result} \u00b7 {row.reason}")
        click = click_line(view)
        if click:
            self._line(f"  click: {click}")
        for text in view.not_understood:
            self._line(f"  not understood: \u201c{text}\u201d")
        events = event_lines(view)
        self._line("  committed events: " + ("; ".join(events) if events else "none"))
        self._line()

    def replay(self, view: ReplayView) -> None:
        for line in replay_lines(view):
            self._line(line)

    def sessions(self, rows: Sequence[SessionRow]) -> None:
        if not rows:
            self._line("no sessions")
            return
        header = ("SESSION", "WORKFLOW", "TURNS", "TURN", "PHASE", "MESSAGE")
        table = [header] + [
            (r.session_id, r.workflow, str(r.turns), r.turn_id, r.phase_shown, r.text)
            for r in rows
        ]
        widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
        for row in table:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            self._line("  ".join([*cells, row[-1]]).rstrip())


def replay_lines(view: ReplayView) -> list[str]:
    """The audit view as plain lines (the layout of ``turnframe replay``)."""
    out = [
        f"turn {view.turn_id}",
        f"  session {view.session_id} \u00b7 account {view.account_id} \u00b7 "
        f"workflow {view.workflow or '-'} \u00b7 phase {view.phase}",
        f"  clock {view.clock or '-'} \u00b7 record {view.source}",
        f"  said: \u201c{view.text}\u201d" if view.text else "  said: (nothing)",
    ]
    if isinstance(view.click, dict):
        out.append(
            f"  clicked: option {view.click.get('option_id')} on card "
            f"{view.click.get('interaction_id')} (expected revision "
            f"{view.click.get('expected_revision')})"
        )
    out.append("interpretation")
    out.append(f"  provider {view.provider or '-'} \u00b7 template {view.template_hash or '-'}")
    out.append(f"  plan hash {view.plan_hash or '-'}")
    for attempt in view.provider_attempts:
        out.append("  attempt " + _attempt(attempt))
    out.extend(_reference_lines(view.references))
    if isinstance(view.failure, dict):
        out.append(f"  failed: {compact(view.failure)}")
    out.append("plan and results")
    if not view.acts:
        out.append("  (no acts)")
    for act in view.acts:
        out.append(f"  act {act.index} {act.kind}: {act.summary}")
        for evidence in act.evidence:
            out.append(f"    evidence \u201c{evidence}\u201d")
        out.append(
            f"    result {act.result or '-'} \u00b7 rule {act.reason or '-'} \u00b7 "
            f"decided by {decided_by(act, view)}"
        )
        judged = verdict(act, view)
        out.append(f"    {judged.word}" + (f" \u2014 {judged.why}" if judged.why else ""))
    for text in view.not_understood:
        out.append(f"  not understood \u201c{text}\u201d")
    click = click_line(view)
    if click:
        out.append(f"  click outcome: {click}")
    out.append("commands")
    if not view.commands:
        out.append("  (none)")
    for command in view.commands:
        origin = "click" if command.origin_act is None else f"act {command.origin_act}"
        if command.planned_in not in (None, view.turn_id):
            origin += f" of turn {command.planned_in}"
        out.append(
            f"  {command.name}({compact(command.args)}) on {command.case_id} \u00b7 from {origin}"
            f" \u00b7 batch {command.batch_id}"
        )
        recorded = "none" if command.outcome is None else compact(command.outcome)
        out.append(
            f"    this turn's outcome {recorded} \u00b7 journal now {command.journal_status or '-'}"
            f" \u00b7 key {command.idempotency_key}"
        )
    out.append("events")
    if not view.events:
        out.append("  (none)")
    for event in view.events:
        out.append(
            f"  #{event.seq} {event.type} on {event.case_id} revision {event.revision} "
            f"{compact(event.data)}"
        )
    out.append("response")
    for block in view.blocks:
        out.append(f"  {block.kind:<8} {block.text}  [{block.code}]")
    return out


def _attempt(attempt: Any) -> str:
    if not isinstance(attempt, dict):
        return compact(attempt)
    used = " \u00b7 used" if attempt.get("used") else ""
    error = f" \u00b7 {attempt.get('error_code')}" if attempt.get("error_code") else ""
    return (
        f"{attempt.get('number')}: {attempt.get('provider')} {attempt.get('purpose')} "
        f"({attempt.get('step')}) \u2192 {attempt.get('outcome')}{error}{used}"
    )


def _reference_lines(references: Any) -> list[str]:
    items = references.get("references") if isinstance(references, dict) else None
    if not items:
        return ["  references: none bound"]
    lines = [f"  references (digest {references.get('reference_digest')}):"]
    for item in items:
        lines.append(
            f"    {item.get('slot')}[{item.get('item')}] from {item.get('origin')} "
            f"({item.get('layer')}) \u00b7 {item.get('media_type')} \u00b7 "
            f"{item.get('size_bytes')} bytes \u00b7 sha256 {item.get('digest')}"
        )
    return lines


# -- rich -----------------------------------------------------------------------------------------

_KIND_STYLE = {
    "receipt": "green",
    "notice": "yellow",
    "card": "cyan",
    "answer": "blue",
    "text": "white",
}
_WORD_STYLE = {
    "DONE": "bold green",
    "ANSWERED": "green",
    "NO CHANGE": "dim",
    "NOT YET": "yellow",
    "NOT DONE": "bold red",
    "NOT ANSWERED": "red",
    "FAILED": "bold red",
}


class RichRenderer:
    def __init__(self, out: TextIO, *, force_terminal: bool) -> None:
        from rich.console import Console

        self._console = Console(
            file=out,
            force_terminal=force_terminal,
            no_color="NO_COLOR" in os.environ,
            highlight=False,
        )

    def heading(self, text: str) -> None:
        self._console.print(text, style="bold", markup=False)

    def note(self, text: str) -> None:
        self._console.print(text, style="dim", markup=False)

    def turn(self, number: int, outcome: TurnOutcome, *, echo: bool = True) -> None:
        from rich.table import Table
        from rich.text import Text

        self._console.rule(f"turn {number}")
        if echo:
            self._console.print(Text("you> ", style="bold") + Text(outcome.said))
        blocks = Table(show_header=False, box=None, padding=(0, 1))
        for block in outcome.response.blocks:
            style = _KIND_STYLE.get(block.kind.value, "")
            blocks.add_row(Text(block.kind.value, style=style), Text(block.text))
            for line in card_lines(block):
                blocks.add_row(Text(""), Text(line, style="cyan"))
        self._console.print(blocks)
        view = outcome.view
        if view is None:
            return
        if view.acts:
            acts = Table(title="what happened, act by act", title_justify="left")
            for column in ("#", "act", "outcome", "why", "result", "rule"):
                acts.add_column(column, overflow="fold")
            for row in act_rows(view):
                acts.add_row(
                    str(row.index),
                    row.summary,
                    Text(row.word, style=_WORD_STYLE.get(row.word, "")),
                    row.why,
                    row.result,
                    row.reason,
                )
            self._console.print(acts)
        click = click_line(view)
        if click:
            self._console.print(Text("click: " + click))
        events = event_lines(view)
        self._console.print(
            Text("committed events: " + ("; ".join(events) if events else "none"), style="dim")
        )

    def replay(self, view: ReplayView) -> None:
        from rich.text import Text

        for line in replay_lines(view):
            style = "bold" if not line.startswith(" ") else ""
            self._console.print(Text(line, style=style))

    def sessions(self, rows: Sequence[SessionRow]) -> None:
        from rich.table import Table

        if not rows:
            self._console.print("no sessions")
            return
        table = Table()
        for column in ("session", "workflow", "turns", "turn", "phase", "message"):
            table.add_column(column, overflow="fold")
        for r in rows:
            table.add_row(
                r.session_id, r.workflow, str(r.turns), r.turn_id, r.phase_shown, r.text
            )
        self._console.print(table)


__all__ = [
    "ActRow",
    "PlainRenderer",
    "Renderer",
    "RichRenderer",
    "SessionRow",
    "act_rows",
    "choose_renderer",
    "replay_lines",
]
