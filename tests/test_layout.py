"""The package layout shows the architecture (ADR 0011)."""

from __future__ import annotations

import ast
from pathlib import Path

import turnframe

PACKAGE = Path(turnframe.__file__).parent

#: The public vocabulary at the top of the package; everything else is private or in a stage.
PUBLIC_TOP_LEVEL = {
    "__init__", "__main__", "workflow", "policy", "messages", "plan", "results", "execution",
    "response", "lifecycle", "errors", "clock", "config",
}  # fmt: skip


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("turnframe", *path.relative_to(PACKAGE).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _top_level_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules imported when ``name`` is imported (not in functions, not under TYPE_CHECKING)."""
    imported: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                targets = [f"{sub.module}.{alias.name}" for alias in sub.names]
                submodules = [t for t in targets if t in modules]
                imported.update(submodules)
                if len(submodules) < len(targets):
                    imported.add(sub.module)
            elif isinstance(sub, ast.Import):
                imported.update(alias.name for alias in sub.names)
    # a module's parent packages are imported first anyway: not an edge of a cycle
    return {m for m in imported if m in modules and m != name and not name.startswith(m + ".")}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_a_module_that_imports_it_back() -> None:
    modules = _modules()
    graph = {name: _top_level_imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_top_level_holds_only_the_public_vocabulary_and_private_helpers() -> None:
    loose = {
        path.stem
        for path in PACKAGE.glob("*.py")
        if not path.stem.startswith("_") or path.stem in ("__init__", "__main__")
    }
    assert loose <= PUBLIC_TOP_LEVEL, sorted(loose - PUBLIC_TOP_LEVEL)


def test_the_imports_the_docs_use_keep_working() -> None:
    from turnframe.config import config_bindings, load_config  # noqa: F401
    from turnframe.plan import KeepUnchangedAct, OperationAct, SetFieldAct  # noqa: F401
    from turnframe.policy import AtomicityScope, CommandPolicy  # noqa: F401
    from turnframe.results import ActStatus, Rejection  # noqa: F401
    from turnframe.workflow import ActOnCase, CaseSnapshot, HoldBack  # noqa: F401
