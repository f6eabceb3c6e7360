"""Acrostics: clue words that use the quotation's letters exactly once each, tied square by
square; deterministic by seed; read as words or as LR²Bench's numbered squares."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import get_family

FAMILY = get_family("puzzles")
# The small level here; the 172–258-letter one is timed by benchmarks/puzzle_generation.py.
LEVELS = ["72-162-letters"]
seeds = st.integers(min_value=0, max_value=2**40)


def _square_letters(task) -> dict[int, str]:
    letters = [ch for ch in task.hidden["quote"].upper() if ch.isalpha()]
    return {number: ch for number, ch in enumerate(letters, 1)}


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=4, deadline=None)
@given(seed=seeds, data=st.data())
def test_words_tie_to_every_square_once_and_scores(level, seed, data):
    task = FAMILY.generate("acrostic", seed, level=level)
    squares = _square_letters(task)
    links = task.public["links"]
    solution = task.hidden["solution"]
    tied = [n for numbers in links.values() for n in numbers]
    assert sorted(tied) == sorted(squares)  # every square once
    for label, numbers in links.items():
        assert "".join(squares[n] for n in numbers) == solution[label]
        assert f"({len(solution[label])})" in task.public["clues"][label]
    public = json.dumps(task.public).upper()
    assert task.hidden["quote"].upper() not in public
    clue_text = " ".join(task.public["clues"].values()).upper().split()
    assert not [w for label, w in solution.items() if label != "quote" and w in clue_text]
    score = FAMILY.score(task, FAMILY.reference_answer(task))
    assert score.correct and score.details["cr"] == 1.0
    # LR²Bench's subtasks: the squares; our own units: clue words and quotation words.
    n = score.details["subtasks"]
    assert n == len(squares)
    words = len(links) + len(solution["quote"].split())
    assert score.details["by_unit"] == {"unit": "word", "of": words, "given": words, "right": words}
    label = data.draw(st.sampled_from(sorted(links)))
    wrong = dict(solution)
    wrong[label] = (
        "Z" * len(solution[label]) if set(solution[label]) != {"Z"} else "Q" * len(solution[label])
    )
    off = sum(a != b for a, b in zip(wrong[label], solution[label], strict=True))
    changed = FAMILY.score(task, wrong).details
    assert changed["s_acc"] == (n - off) / n  # a clue's letter counts where the quote differs
    assert changed["by_unit"]["right"] == words - 1


def test_deterministic_and_the_square_form():
    # Seed 13 draws a quotation without an apostrophe (one with is tested below).
    one, two = (FAMILY.generate("acrostic", 13, level="medium") for _ in range(2))
    assert json.dumps([one.public, one.hidden]) == json.dumps([two.public, two.hidden])
    squares = {str(n): ch for n, ch in _square_letters(one).items()}
    assert FAMILY.score(one, squares).correct  # LR²Bench's {"1": "N", …}
    assert FAMILY.score(one, json.dumps({k: v.lower() for k, v in squares.items()})).correct
    partial = dict(squares)
    partial.pop("1")
    score = FAMILY.score(one, partial)
    assert not score.correct and 0 < score.details["s_acc"] < 1
    lines = "\n".join(f"{k}: {v}" for k, v in one.hidden["solution"].items())
    assert FAMILY.score(one, lines).correct
    assert FAMILY.score(one, "{}").details["cr"] == 0.0
    odd = dict(one.hidden["solution"])
    odd["Z9"] = "WORD"
    assert any("not a clue" in p for p in FAMILY.score(one, odd).details["unread"])


@pytest.mark.parametrize("level", LEVELS)
def test_no_clue_holds_an_answer_word(level):
    # Seeds that drew a clue containing another clue's answer before the check existed
    # are among these (1 to 5 in 150 per level).
    for seed in range(6):
        task = FAMILY.generate("acrostic", seed, level=level)
        answers = set(task.hidden["solution"].values())
        for clue in task.public["clues"].values():
            assert not answers & set(re.findall(r"[A-Z]+", clue.upper())), (seed, clue)


def test_quotations_are_as_long_as_lr2bench_easy_ones():
    figures = json.loads((Path(__file__).parent / "lr2bench_sizes.json").read_text())
    easy = figures["acrostic"]["easy"]["letters"]
    for seed in range(3):
        task = FAMILY.generate("acrostic", seed, level="72-162-letters")
        letters = sum(ch.isalpha() for ch in task.hidden["quote"])
        assert easy["min"] <= letters <= easy["max"]
        assert len(task.public["clues"]) <= 26
    assert FAMILY.kind("acrostic").canonical_level("hard") == "172-258-letters"


def test_a_word_with_an_apostrophe_reads_from_its_squares():
    task = FAMILY.generate("acrostic", 12, level="72-162-letters")
    assert "'" in task.hidden["quote"]
    squares = {str(n): ch for n, ch in _square_letters(task).items()}
    assert FAMILY.score(task, squares).correct


def test_a_level_beyond_lr2benchs_longest_quotation():
    """259–400 letters (LR²Bench's longest is 258): the quotation is split in two halves,
    so its clues run past Z (AA, AB…); the reference scores 1 and a wrong word does not."""
    first = FAMILY.generate("acrostic", 0, level="259-400-letters")
    assert first == FAMILY.generate("acrostic", 0, level="259-400-letters")
    letters = sum(len(numbers) for numbers in first.public["links"].values())
    assert 259 <= letters <= 400
    labels = list(first.public["clues"])
    assert len(labels) > 26 and labels[26] == "AA"
    # Every square of the quotation is one clue letter's: the clues cover it exactly.
    squares = sorted(n for numbers in first.public["links"].values() for n in numbers)
    assert squares == list(range(1, letters + 1))
    reference = FAMILY.reference_answer(first)
    assert FAMILY.score(first, reference).value == 1.0
    answer = json.loads(reference)
    answer["AA"] = "Q" * len(answer["AA"])
    assert FAMILY.score(first, json.dumps(answer)).value < 1.0
