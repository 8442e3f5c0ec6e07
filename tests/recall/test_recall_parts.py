"""The pure parts of recall: identifiers, excerpts, the cue, the order, the edge rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.recall.assemble import concept, succession, topic
from turnframe.recall.cue import InputType, Track, Unit, cue, input_type, recue, track_of
from turnframe.recall.find import Candidate
from turnframe.recall.ground import ELLIPSIS, Handles, trim
from turnframe.recall.identifiers import canonical
from turnframe.recall.rank import rank
from turnframe.recall.salience import MarkerProfile
from turnframe.recall.state import load_memory, pending
from turnframe.recall.temporal import temporal_phrase, window
from turnframe.recall.writer import bounded

WEDNESDAY = datetime(2026, 1, 14, 9, 30, tzinfo=UTC)
SURFACES = [
    "PR {n}",
    "PR #{n}",
    "pr {n}",
    "pull request {n}",
    "Pull Request #{n}",
    "issue {n}",
    "ticket {n}",
    "Ticket #{n}",
    "#{n}",
]


@given(
    n=st.integers(min_value=1, max_value=999_999),
    surface=st.sampled_from(SURFACES),
    before=st.sampled_from(["", "about ", "see ", "(re: "]),
    after=st.sampled_from(["", "?", " please", ", thanks", ")"]),
)
def test_every_way_of_writing_a_numbered_reference_is_one_identifier(
    n: int, surface: str, before: str, after: str
) -> None:
    assert canonical(before + surface.format(n=n) + after) == [f"#{n}"]


def test_identifiers_of_other_kinds_keep_their_own_canonical_forms() -> None:
    assert canonical("order #309 and case 12") == ["order:309", "case:12"]
    assert canonical("commit a1b2c3d4e5f6 then a1b2c3d") == ["sha:a1b2c3d"]
    assert canonical("https://Example.com/a/b/#top and https://example.com/a/b") == [
        "https://example.com/a/b"
    ]
    assert canonical("edit ./src/app.py and config.yaml") == ["src/app.py", "config.yaml"]
    assert canonical("we spoke in ses_0123abcd") == ["ses_0123abcd"]
    assert canonical("room 42 on the 2026-01-07 trip, version 1.2.3") == []


@given(
    text=st.text(
        alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=600
    ),
    word=st.sampled_from(["pool", "ferry", "x"]),
)
def test_an_excerpt_is_the_records_own_words_trimmed_with_an_ellipsis_only(
    text: str, word: str
) -> None:
    excerpt = trim(text, [word])
    body = excerpt.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
    assert body in text
    assert ELLIPSIS not in body or ELLIPSIS in text
    assert len(body) <= 220


def test_an_excerpt_of_a_long_turn_keeps_the_words_the_cue_reaches() -> None:
    said = " ".join(["blah"] * 100) + " the hotel pool closes at eight " + " ".join(["more"] * 80)
    excerpt = trim(said, ["pool"])
    assert "hotel pool closes" in excerpt
    assert excerpt.startswith(ELLIPSIS) and excerpt.endswith(ELLIPSIS)


def test_a_resume_handle_names_the_account_only_when_it_is_not_the_command_lines_default() -> None:
    assert Handles(store_location="t.db", account_id="demo").resume("ses_1") == (
        "turnframe chat --store t.db --session ses_1"
    )
    assert Handles(store_location="my store.db", account_id="acct-7").resume("ses_1") == (
        "turnframe chat --store 'my store.db' --session ses_1 --account acct-7"
    )


@pytest.mark.parametrize(
    ("said", "unit"),
    [
        ("what was that thing we settled about the pool?", Unit.SESSION),
        ("remind me how the whole thread about ticket 4471 went", Unit.LINE),
        ("remind me of everything we said about the lounge pass", Unit.TOPIC),
        ("what was the name we came up with for the shuttle plan?", Unit.CONCEPT),
    ],
)
def test_the_cue_names_the_whole_the_user_means(said: str, unit: Unit) -> None:
    assert cue(said).unit is unit


def test_the_cue_keeps_what_to_look_for_and_leaves_the_framing_words() -> None:
    recall = cue("what was that thing we settled about the hotel pool last week?")
    assert recall.trace.keywords == ("hotel", "pool")  # "we settled" frames, it names nothing
    assert recall.trace.temporal == "last week"


@pytest.mark.parametrize(
    ("said", "kind", "track"),
    [
        ("what did we say about ticket 4471?", InputType.STRUCTURED_IDENTIFIER, Track.ENTROPY),
        ("the hotel pool thing", InputType.NATURAL_RECALL, Track.SALIENCE),
        ("the pool thing, PR 309", InputType.MIXED, Track.HYBRID),
    ],
)
def test_the_input_type_dispatches_the_track(said: str, kind: InputType, track: Track) -> None:
    trace = cue(said).trace
    assert input_type(trace) is kind and track_of(kind) is track


def test_a_recue_folds_the_new_words_in_and_rereads_the_whole() -> None:
    recall = recue(cue("the pool thing"), "the whole thread, from start to finish")
    assert recall.unit is Unit.LINE
    assert "pool" in recall.trace.keywords
    assert len(recall.cues) == 2


def test_last_week_seen_from_a_wednesday_is_monday_to_sunday_before() -> None:
    found = window(temporal_phrase("that thing last week"), WEDNESDAY)
    assert found is not None
    assert (found.first.isoformat(), found.last.isoformat()) == ("2026-01-05", "2026-01-11")


def _candidate(session_id: str, **fields: object) -> Candidate:
    base: dict[str, object] = {
        "record": session_id,
        "recency": WEDNESDAY,
        "started_at": WEDNESDAY,
        "workflow": "desk",
    }
    base.update(fields)
    return Candidate(session_id=session_id, **base)  # type: ignore[arg-type]


@given(
    matched=st.lists(
        st.lists(st.sampled_from(["hotel", "pool", "ferry", "porto"]), max_size=4), max_size=8
    )
)
def test_rank_only_orders_it_never_drops_or_adds_a_candidate(matched: list[list[str]]) -> None:
    candidates = [
        _candidate(f"ses_{i}", matched_terms=tuple(dict.fromkeys(m))) for i, m in enumerate(matched)
    ]
    trace = cue("the hotel pool").trace
    ordered = rank(candidates, trace, Track.SALIENCE, None)
    assert sorted(r.candidate.session_id for r in ordered) == sorted(
        c.session_id for c in candidates
    )
    scores = [r.primary for r in ordered]
    assert scores == sorted(scores, reverse=True)


def test_succession_needs_the_same_workflow_a_shared_anchor_and_nearness_in_time() -> None:
    early = _candidate(
        "a", identifier_literals=("#4471",), started_at=WEDNESDAY - timedelta(days=20),
        recency=WEDNESDAY - timedelta(days=20),
    )
    later = _candidate("b", identifier_literals=("#4471",))
    assert succession(early, later) == ("#4471",)
    assert succession(early, _candidate("c", identifier_literals=("#1",))) is None
    assert succession(early, _candidate("d", identifier_literals=("#4471",), workflow="x")) is None
    far = _candidate(
        "e", identifier_literals=("#4471",), started_at=WEDNESDAY + timedelta(days=90)
    )
    assert succession(early, far) is None


def test_a_topic_is_one_topic_or_two_shared_keywords() -> None:
    one = _candidate("a", keywords=("lounge", "pass", "airport"))
    assert topic(one, _candidate("b", keywords=("pass", "lounge"))) == ("lounge", "pass")
    assert topic(one, _candidate("c", keywords=("lounge", "ferry"))) is None
    assert topic(_candidate("d", topic="ferry"), _candidate("e", topic="ferry")) == ("ferry",)


def test_a_concept_is_a_shared_coinage_one_record_marks_settled() -> None:
    forged = _candidate("a", markers=MarkerProfile(coinage=("bluebird",)))
    settled = _candidate("b", markers=MarkerProfile(coinage=("bluebird",)), settled=("bluebird",))
    unsettled = _candidate("c", markers=MarkerProfile(coinage=("bluebird",)))
    assert concept(forged, settled) == ("bluebird",)
    assert concept(forged, unsettled) is None


def test_a_long_session_is_read_head_and_tail_and_says_how_much_it_left_out() -> None:
    texts = ["a" * 30_000, "b" * 30_000]
    kept, omitted = bounded(texts, limit=40_000)
    assert sum(len(t) for t in kept) + omitted == 60_000
    assert kept[0].startswith("a") and kept[-1].endswith("b") and omitted == 20_000
    assert bounded(["short"], limit=40_000) == (["short"], 0)


def test_an_unreadable_stored_state_is_no_recall_in_progress() -> None:
    assert pending({"state": {"phase": "nonsense"}}) is None
    assert load_memory("garbage").state is None
