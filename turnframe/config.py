"""``turnframe.toml``: the config-file layer of the runtime.

Found in the working directory, or named by ``--config PATH`` / ``Runtime(config=…)``. Today it
holds reference bindings::

    [references]                      # runtime-wide: every workflow that declares the slot
    glossary = "refs/glossary.md"     # relative to this file's directory

    [workflows.travel-desk.references]
    roster = ["refs/a.md", "refs/b.md"]   # several items, for a slot declared multiple=True
    glossary = ""                          # clears the runtime-wide binding for this workflow

and the reviewed corpora to answer from (docs/corpora.md)::

    [corpora]
    packs = ["corpora/packs/policy_v1"]             # pack folders, in registration order
    chains = ["corpora/teaching/policy_chains_v1.jsonl",
              { path = "corpora/teaching/extra.jsonl", pack = "policy_v1" }]
    shipped = false                                 # default: only when nothing is named
    max_clauses = 4                                 # and the composers' settings

Unknown keys are errors naming the key and the file: a typo must not silently drop a binding.
A new section is added to ``_SECTIONS`` (top level) or ``_WORKFLOW_SECTIONS`` with its parser.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, ClassVar

import attrs

from turnframe.corpora.answer import CompositionLimits
from turnframe.corpora.sources import ChainsSource, CorpusSources
from turnframe.errors import ConfigError
from turnframe.references.bindings import (
    BindingLayer,
    ReferenceBinding,
    ReferenceSource,
    file_source,
)

CONFIG_FILE_NAME = "turnframe.toml"

_SECTIONS = ("references", "workflows", "corpora")
_CORPORA_KEYS = ("packs", "chains", "shipped", *attrs.fields_dict(CompositionLimits))
_WORKFLOW_SECTIONS = ("references",)


class ConfigFileError(ConfigError):
    """A problem with a config file; ``path`` names it and ``key`` the dotted key, if any."""

    code: ClassVar[str] = "turnframe.config.invalid"

    def __init__(self, message: str, *, path: str, key: str | None = None, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.path = path
        self.key = key


class ConfigUnreadableError(ConfigFileError):
    code = "turnframe.config.unreadable"


class ConfigSyntaxError(ConfigFileError):
    code = "turnframe.config.syntax"


class UnknownConfigKeyError(ConfigFileError):
    code = "turnframe.config.unknown_key"


class ConfigValueError(ConfigFileError):
    code = "turnframe.config.invalid_value"


class UnknownWorkflowError(ConfigFileError):
    code = "turnframe.config.unknown_workflow"


@attrs.frozen(kw_only=True)
class WorkflowConfig:
    name: str
    references: tuple[ReferenceBinding, ...] = ()


@attrs.frozen(kw_only=True)
class TurnframeConfig:
    """A loaded config; ``path`` is ``None`` when there was no file (everything empty)."""

    path: Path | None = None
    display: str | None = None
    references: tuple[ReferenceBinding, ...] = ()
    workflows: tuple[WorkflowConfig, ...] = ()
    corpora: CorpusSources = attrs.field(factory=CorpusSources)

    def workflow(self, name: str) -> WorkflowConfig | None:
        return next((w for w in self.workflows if w.name == name), None)


def find_config(cwd: Path) -> Path | None:
    """``turnframe.toml`` in ``cwd`` (not its parents: what applies must be visible)."""
    candidate = cwd / CONFIG_FILE_NAME
    return candidate if candidate.is_file() else None


def load_config(
    path: str | os.PathLike[str] | None = None, *, cwd: Path | None = None
) -> TurnframeConfig:
    """Load ``path`` (relative to ``cwd``), or ``turnframe.toml`` in ``cwd`` if there is one.

    A named file that cannot be read is an error; no file found is an empty config.
    """
    cwd = cwd if cwd is not None else Path.cwd()
    if path is None:
        found = find_config(cwd)
        if found is None:
            return TurnframeConfig()
        written: PurePath = PurePath(CONFIG_FILE_NAME)
    else:
        written = PurePath(path)
    absolute = Path(os.path.normpath(cwd / written))
    display = PurePath(os.path.normpath(written)).as_posix()
    try:
        text = absolute.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        raise ConfigUnreadableError(
            f"cannot read config file {display!r} at {str(absolute)!r}: {reason}",
            path=display,
            hint="check the --config path, or remove the flag to use ./turnframe.toml",
        ) from exc
    return parse_config(text, path=absolute, display=display)


def parse_config(text: str, *, path: Path, display: str | None = None) -> TurnframeConfig:
    """Parse config ``text`` that came from ``path``; relative paths in it resolve against
    ``path``'s directory and read, in messages and provenance, relative to ``display``'s."""
    shown = display if display is not None else str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigSyntaxError(
            f"config file {shown!r} is not valid TOML: {exc}",
            path=shown,
            hint="fix the TOML syntax at the line named",
        ) from exc
    reader = _Reader(path=path, display=shown)
    reader.check_keys(data, _SECTIONS, prefix="")
    references = reader.references(data.get("references", {}), "references", runtime_wide=True)
    workflows = tuple(
        WorkflowConfig(
            name=name,
            references=reader.references(
                reader.table(body, f"workflows.{name}", _WORKFLOW_SECTIONS).get("references", {}),
                f"workflows.{name}.references",
                runtime_wide=False,
            ),
        )
        for name, body in reader.table(data.get("workflows", {}), "workflows", None).items()
    )
    corpora = reader.corpora(data.get("corpora", {}), "corpora")
    return TurnframeConfig(
        path=path, display=shown, references=references, workflows=workflows, corpora=corpora
    )


def config_bindings(config: TurnframeConfig, workflow: str) -> tuple[ReferenceBinding, ...]:
    """The config layer for ``workflow``: runtime-wide bindings, then the workflow's own."""
    own = config.workflow(workflow)
    return config.references + (own.references if own else ())


def check_config_workflows(config: TurnframeConfig, workflows: Collection[str]) -> None:
    """A ``[workflows.NAME]`` table for a workflow the runtime does not know is an error."""
    for entry in config.workflows:
        if entry.name not in workflows:
            close = difflib.get_close_matches(entry.name, list(workflows), n=1)
            raise UnknownWorkflowError(
                f"config file {config.display!r} configures workflow {entry.name!r}, which is "
                f"not registered; registered: {', '.join(sorted(workflows)) or 'none'}",
                path=config.display or "",
                key=f"workflows.{entry.name}",
                hint=f"did you mean {close[0]!r}?" if close else "fix or remove the table",
            )


@attrs.frozen(kw_only=True)
class _Reader:
    path: Path
    display: str

    def check_keys(self, data: Mapping[str, Any], allowed: Sequence[str], *, prefix: str) -> None:
        for key in data:
            if key not in allowed:
                dotted = f"{prefix}{key}"
                close = difflib.get_close_matches(key, list(allowed), n=1)
                raise UnknownConfigKeyError(
                    f"config file {self.display!r} has an unknown key {dotted!r}",
                    path=self.display,
                    key=dotted,
                    hint=f"did you mean {prefix}{close[0]!r}?"
                    if close
                    else f"allowed here: {', '.join(allowed)}",
                )

    def table(self, value: Any, key: str, allowed: Sequence[str] | None) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self._value_error(key, value, "a table")
        if allowed is not None:
            self.check_keys(value, allowed, prefix=f"{key}.")
        return value

    def references(
        self, value: Any, key: str, *, runtime_wide: bool
    ) -> tuple[ReferenceBinding, ...]:
        table = self.table(value, key, None)
        where = f"{self.display} [{key}]"
        display_base = PurePath(self.display).parent.as_posix()
        bindings = []
        for slot, paths in table.items():
            listed = paths if isinstance(paths, list) else [paths]
            if not all(isinstance(p, str) for p in listed):
                raise self._value_error(f"{key}.{slot}", paths, "a path or a list of paths")
            sources: tuple[ReferenceSource, ...] = tuple(
                file_source(
                    p,
                    base_dir=self.path.parent,
                    display_base="" if display_base == "." else display_base,
                )
                for p in listed
                if p != ""
            )
            bindings.append(
                ReferenceBinding(
                    slot=slot,
                    sources=sources,
                    layer=BindingLayer.CONFIG,
                    where=where,
                    runtime_wide=runtime_wide,
                )
            )
        return tuple(bindings)

    def corpora(self, value: Any, key: str) -> CorpusSources:
        table = self.table(value, key, _CORPORA_KEYS)
        base = self.path.parent
        packs = tuple(base / p for p in self._strings(table.get("packs", []), f"{key}.packs"))
        chains: list[ChainsSource] = []
        for item in self._list(table.get("chains", []), f"{key}.chains"):
            if isinstance(item, dict):
                entry = self.table(item, f"{key}.chains[]", ("path", "pack"))
                path, pack = entry.get("path"), entry.get("pack")
                if not isinstance(path, str) or not (pack is None or isinstance(pack, str)):
                    raise self._value_error(f"{key}.chains", item, '{ path = "...", pack = "..." }')
                chains.append(ChainsSource(path=base / path, pack_id=pack or None))
            elif isinstance(item, str):
                chains.append(ChainsSource(path=base / item))
            else:
                raise self._value_error(f"{key}.chains", item, "a path or a { path, pack } table")
        shipped = table.get("shipped")
        if shipped is not None and not isinstance(shipped, bool):
            raise self._value_error(f"{key}.shipped", shipped, "true or false")
        settings = {
            name: table[name] for name in attrs.fields_dict(CompositionLimits) if name in table
        }
        for name, number in settings.items():
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                raise self._value_error(f"{key}.{name}", number, "a whole number of at least 1")
        return CorpusSources(
            packs=packs,
            chains=tuple(chains),
            shipped=shipped,
            limits=CompositionLimits(**settings),
        )

    def _list(self, value: Any, key: str) -> list[Any]:
        if not isinstance(value, list):
            raise self._value_error(key, value, "a list")
        return value

    def _strings(self, value: Any, key: str) -> list[str]:
        listed = self._list(value, key)
        if not all(isinstance(item, str) and item for item in listed):
            raise self._value_error(key, value, "a list of paths")
        return listed

    def _value_error(self, key: str, value: Any, expected: str) -> ConfigValueError:
        guide = "corpora" if key.startswith("corpora") else "references"
        return ConfigValueError(
            f"config file {self.display!r}: {key!r} must be {expected}, "
            f"not {type(value).__name__} {value!r}",
            path=self.display,
            key=key,
            hint=f"see docs/{guide}.md for the config format",
        )
