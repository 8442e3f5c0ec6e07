from __future__ import annotations

import subprocess
import sys

import turnframe
from turnframe._hashing import canonical_json, digest


def test_the_package_reports_its_version_on_the_command_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "turnframe", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"turnframe {turnframe.__version__}"


def test_canonical_json_ignores_key_order() -> None:
    assert canonical_json({"b": 1, "a": [1, 2]}) == canonical_json({"a": [1, 2], "b": 1})


def test_digests_of_the_same_value_differ_by_domain() -> None:
    assert digest("plan", {"a": 1}) != digest("command", {"a": 1})
    assert digest("plan", {"a": 1}) == digest("plan", {"a": 1})


def test_ids_made_in_a_row_are_strictly_increasing() -> None:
    from turnframe._ids import new_id

    ids = [new_id("x_") for _ in range(5000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(len(i) == len("x_") + 32 for i in ids)
