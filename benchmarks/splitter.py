"""The clause splitter at 20,000 words: today's linear splitter against the quadratic one it
replaced, both measured in this run on the same text.

The baseline (``_old_split_clauses`` below) is a verbatim copy of the splitter before issue 12:
it sliced the rest of the sentence at every word and searched back from the sentence start for
connectives, so one long sentence cost O(n²). The figures: the time of each at 20k words, their
ratio (target: the new one under 1% of the old), and the new splitter's growth from 2k to 20k
words (time per word at 20k over time per word at 2k; linear means about 1), plus the whole
rules interpreter (``read_turn``) at 20k words and its growth the same way (one-time costs such
as loading word lists are paid before timing). ``--quick`` times the baseline at 5k words and
scales it by the square (it is quadratic) instead of waiting for it at 20k.

    python benchmarks/splitter.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from typing import Any

import attrs

from turnframe.examples import sample
from turnframe.providers.rules import read_turn
from turnframe.providers.rules.shapes import MARKER, STRONG_MARKER, TRIM
from turnframe.providers.rules.split import split_clauses
from turnframe.providers.rules.vocabulary import Vocabulary, vocabulary_of
from turnframe.testing import make_turn

TARGET_RATIO = 0.01
SENTENCE = (
    "please change the travel date to Friday and add a note saying window seat, then submit "
    "it and also rebook the return flight to March 20 but leave the budget as it is "
)

# -- the baseline: the splitter as it was before issue 12 (quadratic), kept verbatim ----------
_SENTENCE_END = frozenset(".!?;\n\u2026")
_CLOSERS = frozenset(".!?;\u2026\"')\u201d\u2019")
_WORD_START = re.compile(r"(?<![\w'])[\w€$£]")
_CONDITIONAL = re.compile(r"(?:if|suppose|supposing|imagine|hypothetically)\b", re.IGNORECASE)
_CONNECTIVE = re.compile(r"(?<!\w)(?:and|but|then|also|plus)\s*$", re.IGNORECASE)


@attrs.frozen(kw_only=True)
class _OldClause:
    """``text[start:end]`` is the clause without its marker; ``lead`` is where the marker began."""

    start: int
    end: int
    lead: int
    marker: str | None = None
    question: bool = False

    def body(self, text: str) -> str:
        return text[self.start : self.end]


def _old_sentences(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, ends with '?') for each sentence."""
    out: list[tuple[int, int, bool]] = []
    start = 0
    i = 0
    while i < len(text):
        c = text[i]
        after = text[i + 1] if i + 1 < len(text) else " "
        inside_word = c == "." and not (after.isspace() or after in _CLOSERS)
        if c in _SENTENCE_END and not inside_word:
            j = i
            while j < len(text) and text[j] in _SENTENCE_END | {" ", "\t", "\r"}:
                j += 1
            out.append((start, i, "?" in text[i:j]))
            start = i = j
            continue
        i += 1
    if start < len(text):
        out.append((start, len(text), False))
    return out


def _old_gap_start(text: str, start: int, w: int) -> int:
    """Where the punctuation and connectives before the word at ``w`` begin."""
    j = w
    while True:
        while j > start and text[j - 1] in " \t,-\u2013\u2014":
            j -= 1
        word = _CONNECTIVE.search(text, start, j)
        if word is None or word.end() != j:
            return j
        j = word.start()


def _old_cuts(text: str, start: int, end: int, vocab: Vocabulary) -> list[tuple[int, int]]:
    """(gap start, next clause start) for every cut inside one sentence."""
    out: list[tuple[int, int]] = []
    for word in _WORD_START.finditer(text, start, end):
        w = word.start()
        gap_start = _old_gap_start(text, start, w)
        if gap_start <= start:
            continue
        joined = any(c in ",-\u2013\u2014" for c in text[gap_start:w]) or bool(
            re.search(r"\w", text[gap_start:w])
        )
        window = text[w:end]
        opens = MARKER.match(window) or vocab.starters.match(window)
        before = text[max(start, w - 3) : w].casefold()
        strong = STRONG_MARKER.match(window) and not before.endswith(("i ", "we "))
        if (joined and opens) or strong:
            out.append((gap_start, w))
    return out


def _old_trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in TRIM:
        start += 1
    while end > start and text[end - 1] in TRIM:
        end -= 1
    return start, end


def _old_split_clauses(text: str, vocab: Vocabulary) -> list[_OldClause]:
    clauses: list[_OldClause] = []
    for s_start, s_end, asked in _old_sentences(text):
        pieces: list[tuple[int, int]] = []
        at = s_start
        conditional = _CONDITIONAL.match(text[s_start:s_end].lstrip()) is not None
        cuts = [] if conditional else _old_cuts(text, s_start, s_end, vocab)
        for gap_start, next_start in cuts:
            pieces.append((at, gap_start))
            at = next_start
        pieces.append((at, s_end))
        pending: tuple[int, str] | None = None
        sentence: list[_OldClause] = []
        for p_start, p_end in pieces:
            lead, end = _old_trimmed(text, p_start, p_end)
            if lead >= end:
                continue
            start, marker = lead, None
            found = MARKER.match(text[lead:end])
            if found is not None:
                marker = " ".join(found.group(0).strip(" ,:;.!-").casefold().split())
                start, end = _old_trimmed(text, lead + found.end(), end)
            if pending is not None:
                lead, marker = pending[0], marker or pending[1]
                pending = None
            if start >= end:
                pending = (lead, marker or "")
                continue
            sentence.append(_OldClause(start=start, end=end, lead=lead, marker=marker))
        if sentence and asked:
            sentence[-1] = attrs.evolve(sentence[-1], question=True)
        clauses.extend(sentence)
    return clauses


# -- the measurement ---------------------------------------------------------------------------


def text_of(words: int) -> str:
    """One long sentence (no full stop): the splitter's worst case."""
    pool = SENTENCE.split()
    return " ".join(pool[i % len(pool)] for i in range(words))


def timed(fn: Any, *args: Any, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="baseline at 5k words, scaled")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    workflow = sample("travel-desk").workflow
    vocab = vocabulary_of(workflow)
    small, big = text_of(2_000), text_of(20_000)
    new_small = timed(split_clauses, small, vocab)
    new_big = timed(split_clauses, big, vocab)
    assert [(c.start, c.end) for c in split_clauses(small, vocab)] == [
        (c.start, c.end) for c in _old_split_clauses(small, vocab)
    ], "the linear splitter must cut exactly where the old one did"
    if args.quick:
        old_words = 5_000
        old_big = timed(_old_split_clauses, text_of(old_words), vocab, rounds=1) * (
            20_000 / old_words
        ) ** 2
    else:
        old_big = timed(_old_split_clauses, big, vocab, rounds=1)
    def read(text: str) -> None:
        read_turn(make_turn(text), workflow, case_labels=("Lisbon",))

    read(text_of(50))  # one-time costs (word lists, compiled patterns) are not the reading's
    reader_small = timed(read, small, rounds=1)
    reader = timed(read, big, rounds=1)
    figures = {
        "words": 20_000,
        "new_seconds": round(new_big, 4),
        "old_seconds": round(old_big, 2),
        "old_estimated": args.quick,
        "new_over_old": round(new_big / old_big, 5),
        "target_new_over_old": TARGET_RATIO,
        "growth_2k_to_20k_per_word": round((new_big / 20_000) / (new_small / 2_000), 3),
        "read_turn_seconds_20k": round(reader, 3),
        "read_turn_growth_2k_to_20k_per_word": round((reader / 20_000) / (reader_small / 2_000), 3),
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
