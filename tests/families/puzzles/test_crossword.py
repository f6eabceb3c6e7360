"""Crosswords from the bundled WordNet word list: deterministic by seed, entries that cross
where they share letters and never touch otherwise, clues that never give the word away,
numbering as printed, every answer form read, LR²Bench's figures per entry."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import get_family
from engine.core.families.puzzles.words import entries

FAMILY = get_family("puzzles")
LEVELS = ["easy", "medium", "hard"]
seeds = st.integers(min_value=0, max_value=2**40)


def test_the_word_list_is_bundled_clean_and_clued():
    words = entries()
    assert len(words) >= 10000
    for word, clue in words:
        assert word.isalpha() and word.isupper() and 3 <= len(word) <= 12
        assert word.lower() not in clue.lower().split()
    assert not any("offensive" in clue.lower() or "slang" in clue.lower() for _, clue in words)


def _cells(task):
    """Every entry's cells, from the hidden grid and the public numbering."""
    numbers = {n: (r, c) for r, c, n in task.public["numbers"]}
    found = {}
    for key, word in task.hidden["solution"].items():
        number, direction = key.split("-")
        r, c = numbers[int(number)]
        dr, dc = (0, 1) if direction == "Across" else (1, 0)
        found[key] = [(r + dr * i, c + dc * i) for i in range(len(word))]
    return found


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=10, deadline=None)
@given(seed=seeds)
def test_the_grid_holds_exactly_its_entries(level, seed):
    task = FAMILY.generate("crossword", seed, level=level)
    grid = task.hidden["grid"]
    size = task.public["size"]
    cells = _cells(task)
    covered = {}
    for key, word in task.hidden["solution"].items():
        for (r, c), letter in zip(cells[key], word, strict=True):
            assert grid[r][c] == letter
            covered.setdefault((r, c), []).append(key)
    # Every letter belongs to an entry; two entries share a square only where they cross.
    letters = {(r, c) for r in range(size) for c in range(size) if grid[r][c] != "#"}
    assert letters == set(covered)
    assert all(len(keys) <= 2 for keys in covered.values())
    # No unintended words: every run of two or more letters, across or down, is an entry.
    runs = set()
    for line, transpose in (
        (grid, False),
        (["".join(col) for col in zip(*grid, strict=True)], True),
    ):
        for i, text in enumerate(line):
            j = 0
            while j < size:
                if text[j] != "#":
                    k = j
                    while k < size and text[k] != "#":
                        k += 1
                    if k - j >= 2:
                        runs.add(("down", j, i) if transpose else ("across", i, j))
                    j = k
                else:
                    j += 1
    assert len(runs) == len(task.hidden["solution"])
    # Shape public, letters not: no entry's word in the task's text or any clue.
    import re

    shown = set(
        re.findall(
            r"[A-Z]+", (task.public["text"] + " ".join(task.public["clues"].values())).upper()
        )
    )
    assert not [w for w in task.hidden["solution"].values() if w in shown]
    assert all(f"({len(w)})" in task.public["clues"][k] for k, w in task.hidden["solution"].items())


@pytest.mark.parametrize("level", LEVELS)
def test_deterministic_and_varied(level):
    one, two = (FAMILY.generate("crossword", 9, level=level) for _ in range(2))
    assert json.dumps([one.public, one.hidden]) == json.dumps([two.public, two.hidden])
    grids = {tuple(FAMILY.generate("crossword", s, level=level).hidden["grid"]) for s in range(6)}
    assert len(grids) == 6


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=10, deadline=None)
@given(seed=seeds, data=st.data())
def test_reference_one_entry_wrong_and_blank(level, seed, data):
    task = FAMILY.generate("crossword", seed, level=level)
    solution = task.hidden["solution"]
    n = len(solution)
    assert n >= 4
    score = FAMILY.score(task, FAMILY.reference_answer(task))
    assert score.correct and score.details["cr"] == 1.0
    key = data.draw(st.sampled_from(sorted(solution)))
    wrong = dict(solution)
    wrong[key] = "Q" * len(solution[key])
    changed = FAMILY.score(task, wrong)
    assert changed.details["s_acc"] == (n - 1) / n and changed.details["cr"] == 1.0
    assert FAMILY.score(task, "{}").details["cr"] == 0.0


def test_answer_forms():
    task = FAMILY.generate("crossword", 4, level="medium")
    solution = task.hidden["solution"]
    short = {
        k.replace("-Across", "A").replace("-Down", "D"): v.lower() for k, v in solution.items()
    }
    spaced = {k.replace("-", " ").lower(): " ".join(v) for k, v in solution.items()}
    lines = "\n".join(f"{k}: {v}" for k, v in solution.items())
    for form in (solution, json.dumps(solution), short, spaced, lines, str(solution)):
        assert FAMILY.score(task, form).correct, form
    odd = dict(solution)
    odd["99-Across"] = "EXTRA"
    first = next(iter(solution))
    odd[first] = "12345"
    score = FAMILY.score(task, odd)
    assert score.details["by_unit"]["given"] == len(solution) - 1
    assert any("99-Across" in p for p in score.details["unread"])
    assert any(first in p for p in score.details["unread"])
