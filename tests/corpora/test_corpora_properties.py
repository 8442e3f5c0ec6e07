"""Properties of loading and composing that hold for any corpus in the seed's format."""

from __future__ import annotations

import json

from corpora_builders import chain, make_pack
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.corpora import CorpusRegistry, IntentTag, compose, parse_teaching

LEMMAS = ("sun", "soil", "root", "leaf", "rain")
PACK = make_pack("p", *LEMMAS)
CONNECTIVES = ("feeds", "warms", "belongs_to", "requires")

quads = st.lists(
    st.tuples(
        st.sampled_from(LEMMAS),
        st.sampled_from(("cause", "verification")),
        st.sampled_from(CONNECTIVES),
        st.sampled_from(LEMMAS),
    ),
    min_size=1,
    max_size=12,
    unique=True,
)


def _text(records: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


def _records(chosen: list[tuple[str, str, str, str]]) -> list[dict[str, object]]:
    return [chain(f"c{n}", s, c, o, intent=i) for n, (s, i, c, o) in enumerate(chosen)]


def _surfaces(text: str) -> list[str | None]:
    registry = CorpusRegistry()
    registry.register(pack=PACK, corpus=parse_teaching(text, corpus_id="c", pack=PACK))
    return [
        compose(intent, lemma, registry).surface
        for lemma in LEMMAS
        for intent in (IntentTag.NARRATIVE, IntentTag.EXAMPLE)
    ]


@settings(max_examples=60, deadline=None)
@given(chosen=quads, data=st.data())
def test_the_order_of_a_files_lines_never_changes_a_narrative_or_an_example(
    chosen: list[tuple[str, str, str, str]], data: st.DataObject
) -> None:
    records = _records(chosen)
    shuffled = data.draw(st.permutations(records))
    assert _surfaces(_text(records)) == _surfaces(_text(list(shuffled)))


@settings(max_examples=60, deadline=None)
@given(chosen=quads, data=st.data())
def test_a_chain_named_in_superseded_by_never_shows_and_its_replacement_does(
    chosen: list[tuple[str, str, str, str]], data: st.DataObject
) -> None:
    records = _records(chosen)
    retired = data.draw(st.sets(st.sampled_from([r["chain_id"] for r in records])))
    replacements = [
        {**chain(f"r{n}", "sun", "warms", "soil"), "superseded_by": old}
        for n, old in enumerate(sorted(retired, key=str))
    ]
    load = parse_teaching(_text(records + replacements), corpus_id="c", pack=PACK)
    active = {c.chain_id for c in load.corpus.chains}
    assert not active & retired
    assert {r["chain_id"] for r in replacements} <= active
    assert {d.line for d in load.drops if d.code.endswith("superseded")} == {
        n + 1 for n, r in enumerate(records) if r["chain_id"] in retired
    }
