"""``[corpora]`` in turnframe.toml: which packs and teaching files to answer from, and the
composers' settings, for `turnframe chat`, `turnframe corpus check` and ``Runtime(config=…)``."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import seed_format_kit as kit

from turnframe.config import ConfigValueError, UnknownConfigKeyError, load_config, parse_config
from turnframe.corpora import CompositionLimits
from turnframe.corpora.sources import ChainsSource, CorpusSources
from turnframe.examples import sample
from turnframe.providers.rules import RulesProvider
from turnframe.response import BlockKind
from turnframe.runtime import Runtime


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "turnframe.toml"
    path.write_text(text)
    return path


def test_corpora_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        '[corpora]\npacks = ["packs/a", "packs/b"]\n'
        'chains = ["t/one.jsonl", { path = "t/two.jsonl", pack = "b" }]\nshipped = true\n',
    )
    assert load_config(path).corpora == CorpusSources(
        packs=(tmp_path / "packs/a", tmp_path / "packs/b"),
        chains=(
            ChainsSource(path=tmp_path / "t/one.jsonl"),
            ChainsSource(path=tmp_path / "t/two.jsonl", pack_id="b"),
        ),
        shipped=True,
    )


def test_the_composers_settings_default_to_the_seeds_and_can_be_set(tmp_path: Path) -> None:
    assert load_config(_config(tmp_path, "")).corpora.limits == CompositionLimits(
        max_clauses=4, max_examples=3, domains_subject_k=2, domains_object_k=1, pack_domains=3
    )
    path = _config(tmp_path, "[corpora]\nmax_clauses = 2\ndomains_subject_k = 1\n")
    limits = load_config(path).corpora.limits
    assert (limits.max_clauses, limits.domains_subject_k, limits.max_examples) == (2, 1, 3)


def test_an_unknown_corpora_key_names_itself_and_the_closest_key(tmp_path: Path) -> None:
    with pytest.raises(UnknownConfigKeyError) as raised:
        parse_config("[corpora]\nmax_clause = 2\n", path=tmp_path / "turnframe.toml")
    assert raised.value.key == "corpora.max_clause"
    assert "did you mean corpora.'max_clauses'" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("max_clauses = 0", "corpora.max_clauses"),
        ("pack_domains = true", "corpora.pack_domains"),
        ('packs = "one"', "corpora.packs"),
        ("chains = [3]", "corpora.chains"),
        ('chains = [{ path = "x.jsonl", pack = 1 }]', "corpora.chains"),
        ('shipped = "yes"', "corpora.shipped"),
    ],
)
def test_a_bad_corpora_value_is_a_typed_error_naming_its_key(
    tmp_path: Path, text: str, key: str
) -> None:
    with pytest.raises(ConfigValueError) as raised:
        parse_config(f"[corpora]\n{text}\n", path=tmp_path / "turnframe.toml")
    assert raised.value.key == key
    assert "docs/corpora.md" in str(raised.value)


def _corpora_config(tmp_path: Path, extra: str = "") -> Path:
    packs = ", ".join(f'"{p}"' for p in kit.ALL_PACKS)
    chains = ", ".join(f'"{p}"' for p in (*kit.IN_PACK_CHAINS, kit.CROSS_PACK_CHAINS))
    return _config(tmp_path, f"[corpora]\npacks = [{packs}]\nchains = [{chains}]\n{extra}")


@pytest.mark.anyio
async def test_a_runtime_given_the_config_file_answers_from_its_corpora(tmp_path: Path) -> None:
    desk = sample("travel-desk")
    runtime = Runtime(
        workflows=[desk.workflow],
        provider=RulesProvider(workflows=[desk.workflow]),
        config=_corpora_config(tmp_path, "max_clauses = 1\n"),
    )
    async with runtime:
        session = await runtime.open_session(account_id="demo", workflow=desk.name)
        at = datetime(2026, 1, 7, 9, 30, tzinfo=UTC)
        response = await runtime.handle_turn(
            runtime.new_turn(session, "Tell me about soil.", at=at)
        )
    [answer] = [b for b in response.blocks if b.kind is BlockKind.ANSWER]
    assert answer.text == (
        "soil — narrative-grounded (garden_chains_v1): garden.ground; earth.medium. "
        "soil feeds root (action.anchor). No session evidence yet."
    )
    assert [c.corpus_id for c in runtime.corpora.corpora][:4] == [
        "garden_chains_v1",
        "roles_chains_v1",
        "roles_chains_v2",
        "cross_pack_chains_v1",
    ]


def _chat(*args: str | Path, script: str, tmp_path: Path) -> list[str]:
    turns = tmp_path / "turns.txt"
    turns.write_text(script)
    command = [sys.executable, "-m", "turnframe", "chat", "--store", ":memory:", "--json"]
    result = subprocess.run(
        [*command, "--script", str(turns), *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [b["text"] for line in result.stdout.splitlines() for b in json.loads(line)["blocks"]]


def test_chat_answers_from_the_corpora_of_its_config_file(tmp_path: Path) -> None:
    config = _corpora_config(tmp_path)
    [soil, truth] = _chat(
        "--config", config, script="Tell me about soil.\nTell me about truth.\n", tmp_path=tmp_path
    )
    assert soil.startswith("soil — narrative-grounded (garden_chains_v1)")
    assert truth.startswith("truth — no reviewed entry yet.")  # the shipped corpora are left out


def test_chat_with_shipped_keeps_the_shipped_corpora_next_to_the_named_ones(tmp_path: Path) -> None:
    config = _corpora_config(tmp_path)
    [soil, truth] = _chat(
        "--config",
        config,
        "--shipped",
        script="Tell me about soil.\nTell me about truth.\n",
        tmp_path=tmp_path,
    )
    assert soil.startswith("soil — narrative-grounded (garden_chains_v1)")
    assert truth.startswith("truth — narrative-grounded (cognition_chains_v1)")


def test_named_files_on_the_command_line_replace_the_config_files(tmp_path: Path) -> None:
    config = _corpora_config(tmp_path)
    [soil, grower] = _chat(
        "--config",
        config,
        "--pack",
        kit.ROLES_V2,
        "--chains",
        kit.ROLES_CHAINS_V2,
        script="Tell me about soil.\nTell me about grower.\n",
        tmp_path=tmp_path,
    )
    assert soil.startswith("soil — no reviewed entry yet.")
    assert grower.startswith("grower — narrative-grounded (roles_chains_v2)")
