"""Crosswords from the bundled WordNet word lists: deterministic by seed, American-style
grids of LR²Bench's shape (entries and white share within its ranges, every letter in an
across and a down entry), clues that never give a word away, numbering as printed, every
answer form read, LR²Bench's figures per entry. The unit tests use the small levels; the
15×15 and 21×21 are timed and measured by benchmarks/puzzle_generation.py (one 15×15 here)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import FamilyError, get_family
from engine.core.families.puzzles.words import entries, fill_entries

FAMILY = get_family("puzzles")
LEVELS = ["5x5", "10x10"]
LR2 = json.loads((Path(__file__).parent / "lr2bench_sizes.json").read_text())["crossword"]
RANGES = {"5x5": LR2["5_5"]["5x5"], "10x10": LR2["10_10"]["10x10"], "15x15": LR2["15_15"]["15x15"]}
seeds = st.integers(min_value=0, max_value=2**40)


def test_the_word_list_is_bundled_clean_and_clued():
    words = entries()
    assert len(words) >= 10000
    for word, clue in words:
        assert word.isalpha() and word.isupper() and 3 <= len(word) <= 12
        assert word.lower() not in clue.lower().split()
    assert not any("offensive" in clue.lower() or "slang" in clue.lower() for _, clue in words)


def test_the_fill_list_holds_the_common_words_clued():
    fill = {word: clue for word, clue, _, _ in fill_entries()}
    assert len(fill) >= 40000
    for word, clue in entries():
        assert fill[word] == clue  # the same definition as the common list's
    for word, clue in fill.items():
        assert word.isalpha() and word.isupper() and 3 <= len(word) <= 15
        assert word.lower() not in re.findall(r"[a-z]+", clue.lower())


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
    # Each clue ends with the entry's length ("(3,5)" for a phrase such as "ice cream").
    for key, word in task.hidden["solution"].items():
        lengths = re.search(r"\(([\d,]+)\)$", task.public["clues"][key]).group(1)
        assert sum(map(int, lengths.split(","))) == len(word)


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


def _shape(task):
    grid = task.hidden["grid"]
    n = len(grid)
    white = sum(cell != "#" for row in grid for cell in row) / (n * n)
    return len(task.hidden["solution"]), white


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=8, deadline=None)
@given(seed=seeds)
def test_grids_have_lr2bench_shape_and_are_clean(level, seed):
    task = FAMILY.generate("crossword", seed, level=level)
    entries_count, white = _shape(task)
    figures = RANGES[level]
    assert figures["entries"]["min"] <= entries_count <= figures["entries"]["max"] + 4
    assert figures["white"]["min"] <= white <= figures["white"]["max"]
    cells = _cells(task)
    across = {cell for key, squares in cells.items() if key.endswith("Across") for cell in squares}
    down = {cell for key, squares in cells.items() if key.endswith("Down") for cell in squares}
    letters = {
        (r, c) for r, row in enumerate(task.hidden["grid"]) for c, ch in enumerate(row) if ch != "#"
    }
    assert across == down == letters  # every letter is checked, as in LR²Bench's grids
    words = list(task.hidden["solution"].values())
    assert len(set(words)) == len(words) and all(len(w) >= 3 for w in words)
    for key, clue in task.public["clues"].items():
        others = set(words) - {task.hidden["solution"][key]}
        assert not others & set(re.findall(r"[A-Z]+", clue.upper())), (key, clue)
    assert FAMILY.score(task, FAMILY.reference_answer(task)).value == 1.0


def test_a_15x15_has_lr2bench_entry_count():
    task = FAMILY.generate("crossword", 1, level="15x15")
    entries_count, white = _shape(task)
    assert 70 <= entries_count <= 78 + 4 and 0.80 <= white <= 0.87
    assert FAMILY.score(task, FAMILY.reference_answer(task)).correct


def test_old_level_names_stand_for_the_new_ones():
    kind = FAMILY.kind("crossword")
    assert list(kind.levels) == ["5x5", "10x10", "15x15", "21x21"]
    assert kind.canonical_level("easy") == "5x5" and kind.canonical_level("hard") == "15x15"
    old, new = (FAMILY.generate("crossword", 7, level=name) for name in ("easy", "5x5"))
    assert old.public == new.public and old.hidden == new.hidden
    with pytest.raises(FamilyError, match="no level 'tiny'; use one of 5x5, 10x10"):
        FAMILY.generate("crossword", 7, level="tiny")


def test_phrases_are_clued_with_their_word_lengths():
    from engine.core.families.puzzles.crossword import enumeration

    assert enumeration("ICECREAM") in ("8", "3,5")
    phrase = next(w for w, _, _, display in fill_entries() if " " in display)
    display = next(d for w, _, _, d in fill_entries() if w == phrase)
    assert enumeration(phrase) == ",".join(str(len(part)) for part in display.split())
