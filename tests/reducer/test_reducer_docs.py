"""The adopter's guide and the workflow API's docstring example stay true."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import turnframe.workflow

GUIDE = pathlib.Path(__file__).parents[2] / "docs" / "writing-a-workflow.md"


def test_the_writing_a_workflow_guide_runs_as_written() -> None:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    namespace: dict[str, Any] = {"__name__": "guide"}
    exec(compile("\n".join(blocks), str(GUIDE), "exec"), namespace)
    assert namespace["reduction"].interactions


def test_the_workflow_docstring_example_declares_a_valid_workflow() -> None:
    doc = turnframe.workflow.__doc__ or ""
    example = doc.split("::", 1)[1].split("``set_field``", 1)[0]
    code = "\n".join(line[4:] for line in example.splitlines())
    namespace: dict[str, Any] = {"__name__": "docstring"}
    exec(
        "from collections.abc import Mapping\nfrom typing import Any\nimport attrs\n"
        "from turnframe.workflow import *\nfrom turnframe.results import Rejection\n"
        "from turnframe.policy import CommandPolicy\n" + code,
        namespace,
    )
    assert namespace["tickets"].operation("close") is not None
