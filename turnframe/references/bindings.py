"""Bindings: which content fills which slot, from three layers where the later one wins.

Layers, lowest first: the config file (``turnframe.toml``: runtime-wide ``[references]``, then
``[workflows.<name>.references]``), the API (``Runtime(references=…)``, then per session), the
CLI (``--reference NAME=PATH``). A later binding of a slot replaces the earlier one whole; a
binding with no sources clears the slot (``--reference NAME=``, ``None`` in the API, ``""`` in
the config). Paths are made absolute when the binding is made: config paths against the config
file's directory, API and CLI paths against the working directory.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePath

import attrs

from turnframe.references.errors import BindingSyntaxError


class BindingLayer(enum.Enum):
    """Which layer bound a slot; recorded in provenance."""

    CONFIG = "config"
    API = "api"
    CLI = "cli"


@attrs.frozen(kw_only=True)
class FileSource:
    """A file to read at resolution. ``path`` is absolute; ``display`` is how the user wrote it,
    relative to the working directory when they wrote it relative to something."""

    path: Path
    display: str


@attrs.frozen(kw_only=True)
class InlineSource:
    """Content handed over through the API (a CRM profile, a generated roster)."""

    content: bytes
    label: str
    media_type: str = "text/plain"


ReferenceSource = FileSource | InlineSource


@attrs.frozen(kw_only=True)
class ReferenceBinding:
    """``sources`` bound to ``slot`` by ``layer``; no sources means the slot is cleared.

    ``where`` names the place it came from for messages (``turnframe.toml [references]``,
    ``--reference``). A ``runtime_wide`` binding applies to every workflow that declares the slot
    and is skipped by the others; a workflow-level binding of an undeclared slot is an error.
    """

    slot: str
    sources: tuple[ReferenceSource, ...]
    layer: BindingLayer
    where: str
    runtime_wide: bool = False

    @property
    def cleared(self) -> bool:
        return not self.sources


def file_source(
    path: str | os.PathLike[str], *, base_dir: Path, display_base: str = ""
) -> FileSource:
    """A :class:`FileSource` for ``path`` as written, relative paths taken against ``base_dir``.

    ``display_base`` is how ``base_dir`` reads to the user (``""`` for the working directory).
    """
    written = PurePath(path)
    absolute = Path(os.path.normpath(base_dir / written))
    relative_to_display_base = display_base and not written.is_absolute()
    shown = PurePath(display_base) / written if relative_to_display_base else written
    display = PurePath(os.path.normpath(shown)).as_posix()
    return FileSource(path=absolute, display=display)


def parse_cli_references(args: Sequence[str], *, cwd: Path) -> tuple[ReferenceBinding, ...]:
    """Bindings from repeated ``--reference NAME=PATH`` arguments, paths relative to ``cwd``.

    Repeating a name adds items (for ``multiple`` slots); ``NAME=`` clears what came before it.
    """
    by_slot: dict[str, list[ReferenceSource]] = {}
    for arg in args:
        name, sep, path = arg.partition("=")
        name = name.strip()
        if not sep or not name:
            raise BindingSyntaxError(
                f"--reference {arg!r} is not NAME=PATH",
                hint="write --reference glossary=./glossary.md, or --reference glossary= to clear",
            )
        sources = by_slot.setdefault(name, [])
        if path == "":
            sources.clear()
        else:
            sources.append(file_source(path, base_dir=cwd))
    return tuple(
        ReferenceBinding(
            slot=name, sources=tuple(sources), layer=BindingLayer.CLI, where="--reference"
        )
        for name, sources in by_slot.items()
    )


ApiValue = str | os.PathLike[str] | FileSource | InlineSource | None
ApiBindings = Mapping[str, ApiValue | Sequence[ApiValue]]


def api_references(
    bindings: ApiBindings,
    *,
    cwd: Path,
    runtime_wide: bool = False,
    where: str = "Runtime(references=…)",
) -> tuple[ReferenceBinding, ...]:
    """Bindings handed over in code: a path (``str``/``PathLike``, relative to ``cwd``), a
    :class:`FileSource` or :class:`InlineSource`, a list of them, or ``None`` (or ``""``) to
    clear."""
    out: list[ReferenceBinding] = []
    for name, value in bindings.items():
        values: Sequence[ApiValue]
        if isinstance(value, bytes | bytearray):
            raise BindingSyntaxError(
                f"{where}: reference {name!r} is bound to raw bytes",
                hint="wrap content in InlineSource(content=..., label=...); a str is a path",
            )
        if value is None or isinstance(value, str | os.PathLike | FileSource | InlineSource):
            values = [value]
        else:
            values = value
        sources: list[ReferenceSource] = []
        for one in values:
            if one is None or one == "":
                continue
            if isinstance(one, FileSource | InlineSource):
                sources.append(one)
            elif isinstance(one, str | os.PathLike):
                sources.append(file_source(one, base_dir=cwd))
            else:
                raise BindingSyntaxError(
                    f"{where}: reference {name!r} is bound to a {type(one).__name__}",
                    hint="bind a path, a FileSource, an InlineSource, a list of them, or None",
                )
        out.append(
            ReferenceBinding(
                slot=name,
                sources=tuple(sources),
                layer=BindingLayer.API,
                where=where,
                runtime_wide=runtime_wide,
            )
        )
    return tuple(out)


def effective_bindings(bindings: Iterable[ReferenceBinding]) -> dict[str, ReferenceBinding]:
    """The winning binding per slot: ``bindings`` are given lowest layer first, later wins."""
    winners: dict[str, ReferenceBinding] = {}
    for binding in bindings:
        winners[binding.slot] = binding
    return winners
