"""``turnframe chat --json`` recall blocks, ``/click expand``, ``/recollect``, a resume command
that works, and ``turnframe recall index|search``: as a user runs them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from cli_kit import run_cli, script

PAST = "2026-01-06T10:00:00+00:00"
TODAY = "2026-01-14T09:30:00+00:00"
POOL = "The hotel pool is closed until March, so we settled on the lounge pass instead"


def chat(folder: Path, *lines: str, clock: str = TODAY, extra: tuple[str, ...] = ()) -> list[Any]:
    result = run_cli(
        "chat",
        "--store",
        "t.db",
        "--clock",
        clock,
        "--script",
        script(folder, *lines),
        "--json",
        *extra,
        cwd=folder,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def recall_blocks(turn: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in turn["blocks"] if b["code"].startswith("turnframe.recall.")]


def test_chat_json_recall_blocks_carry_the_contract(tmp_path: Path) -> None:
    [past] = chat(tmp_path, POOL, clock=PAST)
    presented, identified = chat(
        tmp_path, "what was that thing we settled about the hotel pool?", "yes, that one"
    )
    [shown] = recall_blocks(presented)
    assert shown["code"] == "turnframe.recall.presented"
    [candidate] = shown["candidates"]
    assert candidate["session_id"] == past["session_id"]
    assert candidate["turn_id"] == past["turn_id"]
    assert candidate["excerpt"] == POOL
    assert candidate["resume"] == f"turnframe chat --store t.db --session {past['session_id']}"
    assert shown["attempts_left"] == 3
    [recalled] = recall_blocks(identified)
    assert recalled["code"] == "turnframe.recall.identified"
    assert recalled["session_id"] == past["session_id"]
    assert "Recall shows that this was discussed, not that it still holds." in recalled["text"]


def test_a_candidates_resume_command_reopens_that_conversation(tmp_path: Path) -> None:
    [past] = chat(tmp_path, POOL, clock=PAST)
    [presented] = chat(tmp_path, "do you remember the hotel pool thing?")
    resume = recall_blocks(presented)[0]["candidates"][0]["resume"]
    program, *arguments = shlex.split(resume)
    assert program == "turnframe"
    result = run_cli(
        *arguments, "--script", script(tmp_path, "Set the note to lounge pass"), "--json",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    [turn] = [json.loads(line) for line in result.stdout.splitlines()]
    assert turn["session_id"] == past["session_id"]


def test_a_presentation_of_several_lines_stays_in_the_plain_text_column(tmp_path: Path) -> None:
    chat(tmp_path, POOL, clock=PAST)
    asked = script(tmp_path, "do you remember the hotel pool thing?")
    result = run_cli(
        "chat", "--store", "t.db", "--clock", TODAY, "--script", asked, "--plain", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    first = next(n for n, line in enumerate(lines) if "Is this the conversation" in line)
    assert lines[first].startswith("  answer   ")
    shown = lines[first + 1 : first + 4]
    assert all(line.startswith(" " * 11) and line.strip() for line in shown)
    assert shown[0].strip().startswith(f"\u201c{POOL}\u201d")
    assert shown[-1].strip() == "Recall shows that this was discussed, not that it still holds."


def test_the_store_expansion_card_is_clicked_with_click_expand(tmp_path: Path) -> None:
    chat(tmp_path, "What time does the last train from Porto leave?", clock=PAST)
    asked, offered, expanded = chat(
        tmp_path,
        "do you remember that place somebody recommended?",
        "a cafe with tiles, I think",
        "/click expand",
    )
    assert recall_blocks(asked)[0]["code"] == "turnframe.recall.ask"
    [card] = recall_blocks(offered)
    assert card["code"] == "turnframe.recall.expand" and card["kind"] == "card"
    assert card["options"] == ["expand", "stop"]
    [searched] = recall_blocks(expanded)  # every turn and reply: still nothing
    assert searched["code"] == "turnframe.recall.null_match"
    assert "every turn and reply" in searched["text"]


def test_recollect_in_a_chat_script_recalls_the_previous_message(tmp_path: Path) -> None:
    [past] = chat(tmp_path, POOL, clock=PAST)
    _, recalled = chat(tmp_path, "the lounge pass instead of the hotel pool", "/recollect")
    [shown] = recall_blocks(recalled)
    assert shown["candidates"][0]["session_id"] == past["session_id"]


def test_recall_index_and_search_work_outside_any_conversation(tmp_path: Path) -> None:
    [past] = chat(tmp_path, POOL, clock=PAST)
    index = run_cli("recall", "index", "--store", "t.db", "--all", "--json", cwd=tmp_path)
    assert index.returncode == 0, index.stderr
    assert json.loads(index.stdout) == {"written": 1, "skipped": 0}
    found = run_cli("recall", "search", "hotel pool", "--store", "t.db", "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    assert [c["session_id"] for c in result["candidates"]] == [past["session_id"]]
    assert result["candidates"][0]["excerpt"] == POOL
    sessions = run_cli("sessions", "--store", "t.db", "--json", cwd=tmp_path)
    assert len(json.loads(sessions.stdout)) == 1  # searching started nothing


def test_recall_commands_name_their_mistakes_in_one_line(tmp_path: Path) -> None:
    missing = run_cli("recall", "search", "pool", "--store", "none.db", cwd=tmp_path)
    assert missing.returncode == 1
    assert missing.stderr.startswith("turnframe: turnframe.cli.store_not_found:")
    bare = run_cli("recall", cwd=tmp_path)
    assert bare.returncode == 1 and "turnframe.cli.usage" in bare.stderr


def test_a_search_whose_cue_gives_nothing_to_look_for_is_a_one_line_mistake(
    tmp_path: Path,
) -> None:
    chat(tmp_path, POOL, clock=PAST)
    for said in ("", "\u201c\u201d", "what did we decide"):
        found = run_cli("recall", "search", said, "--store", "t.db", cwd=tmp_path)
        assert found.returncode == 1
        assert found.stderr.startswith("turnframe: turnframe.cli.usage:")
        assert "nothing to look for" in found.stderr


def test_a_recall_with_no_cue_says_so_in_its_act_summary(tmp_path: Path) -> None:
    asked = script(tmp_path, "/recollect \u201c\u201d")
    result = run_cli(
        "chat", "--store", "t.db", "--clock", TODAY, "--script", asked, "--plain", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "recall (no cue of its own)" in result.stdout
    assert "I have nothing to look for yet." in result.stdout


@pytest.mark.anyio
async def test_resume_handles_of_every_command_name_the_store_it_was_given_without_a_password() -> (
    None
):
    import attrs

    from turnframe.cli.desk import build_runtime, sample_runtime
    from turnframe.cli.serve import build_service_runtime
    from turnframe.cli.worker import desks_runtime
    from turnframe.clock import ManualClock
    from turnframe.examples import sample
    from turnframe.runtime import RuntimeSettings
    from turnframe.stores import SqliteStore

    url = "postgresql://app:secret@db:5433/turns?schema=desk"
    shown = "postgresql://app@db:5433/turns?schema=desk"
    desk, clock = sample("refund-desk"), ManualClock()
    async with SqliteStore.open(":memory:") as store:  # the handles name --store, not this
        runtimes = [
            build_runtime(store, desk, clock=clock, store_location=url),
            build_service_runtime(store, [desk], clock=clock, store_location=url),
            desks_runtime(
                store, [desk], clock=clock, lease_seconds=30, worker_id="w", store_location=url
            ),
        ]
        assert [rt.settings.recall.store_location for rt in runtimes] == [shown] * 3
        settings = RuntimeSettings()
        chosen = attrs.evolve(
            settings, recall=attrs.evolve(settings.recall, store_location="elsewhere.db")
        )
        kept = sample_runtime(store, [desk], clock=clock, settings=chosen, store_location=url)
        assert kept.settings.recall.store_location == "elsewhere.db"  # a chosen setting wins
