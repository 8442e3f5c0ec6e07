"""The one converter writes what a plain cattrs converter writes: its faster hooks for enums,
sequences and optional values change the cost of a value, never its JSON."""

from __future__ import annotations

import enum

import attrs
import cattrs
from hypothesis import given
from hypothesis import strategies as st

from turnframe._converter import converter


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@attrs.frozen(kw_only=True)
class Leaf:
    name: str
    colour: Colour
    note: str | None = None


@attrs.frozen(kw_only=True)
class Tree:
    leaves: tuple[Leaf, ...] = ()
    tags: tuple[str, ...] = ()
    levels: list[Level] = attrs.field(factory=list)
    best: Leaf | None = None
    colour: Colour | None = None
    count: int | None = None
    nested: tuple[tuple[str, ...], ...] = ()


leaves = st.builds(Leaf, name=st.text(), colour=st.sampled_from(Colour), note=st.none() | st.text())
trees = st.builds(
    Tree,
    leaves=st.lists(leaves, max_size=3).map(tuple),
    tags=st.lists(st.text(), max_size=3).map(tuple),
    levels=st.lists(st.sampled_from(Level), max_size=3),
    best=st.none() | leaves,
    colour=st.none() | st.sampled_from(Colour),
    count=st.none() | st.integers(),
    nested=st.lists(st.lists(st.text(), max_size=2).map(tuple), max_size=2).map(tuple),
)


@given(trees)
def test_the_one_converter_writes_a_value_as_a_plain_cattrs_converter_does(tree: Tree) -> None:
    plain = cattrs.Converter(forbid_extra_keys=True)
    written = converter.unstructure(tree, unstructure_as=Tree)
    assert written == plain.unstructure(tree, unstructure_as=Tree)
    assert [type(v) for v in written.values()] == [
        type(v) for v in plain.unstructure(tree, unstructure_as=Tree).values()
    ]
    assert converter.structure(written, Tree) == tree
