"""Every command that prints a table or a list also prints it as JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from cli_kit import chat_json, run_cli

from turnframe.cli import build_parser

#: Commands that print no table (none yet). A command added here says why in a comment.
#: Commands that print no table, each with the reason.
PRINTS_NO_TABLE: dict[str, str] = {
    "turnframe serve": "a long-running server: its output is the HTTP API (JSON) and access logs",
    "turnframe worker": "a long-running worker: its output is one JSON line per turn on stderr",
    "turnframe submit": "prints JSON only: the ids, or with --wait the turn as chat --json has it",
}
TURN_KEYS = {"session_id", "turn_id", "phase", "acts", "blocks", "cards", "events"}


def _commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every command that runs something (a parser with subcommands is a group, not one)."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        yield parser
    for group in groups:
        for child in group.choices.values():
            yield from _commands(child)


def test_every_command_takes_json() -> None:
    commands = {p.prog: p for p in _commands(build_parser())}
    assert {"turnframe demo", "turnframe chat", "turnframe corpus check"} <= set(commands)
    for prog, parser in commands.items():
        if prog in PRINTS_NO_TABLE:
            continue
        options = {o for a in parser._actions for o in a.option_strings}
        assert "--json" in options, f"`{prog}` prints a table: give it --json (docs/cli.md)"


def test_the_demo_prints_each_turn_as_one_json_object_like_chat(tmp_path: Path) -> None:
    result = run_cli("demo", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    turns = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(turns) >= 6 and all(set(t) == TURN_KEYS for t in turns)
    first = turns[0]
    assert [a["result"] for a in first["acts"]][:1] == ["superseded_by_correction"]
    assert {b["code"] for b in first["blocks"]} >= {"turnframe.notice.kept_unchanged"}
    assert set(turns[0]) == set(chat_json(tmp_path, "Thanks!")[0])


def test_corpus_check_prints_its_reports_and_counts_as_json_with_the_same_exit(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "p"
    pack.mkdir()
    (pack / "manifest.json").write_text('{"pack_id": "p", "language": "en", "version": "1"}')
    entry = {"lemma": "truth", "surface": "truth", "pos": "noun", "semantic_domains": ["t"]}
    (pack / "lexicon.jsonl").write_text(json.dumps(entry) + "\n")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"chain_id": "b", "subject": \n')
    plain = run_cli("corpus", "check", corpus, "--pack", pack, "--json", cwd=tmp_path)
    strict = run_cli("corpus", "check", corpus, "--pack", pack, "--json", "--strict", cwd=tmp_path)
    assert (plain.returncode, strict.returncode) == (0, 1)  # a bad line is a warning unless strict
    report = json.loads(plain.stdout)
    assert report["counts"]["defects"] == 1
    (line,) = report["reports"]
    assert (line["line"], line["code"]) == (1, "turnframe.corpus.malformed_line")
    assert json.loads(strict.stdout) == report
