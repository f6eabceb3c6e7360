"""Generated Sudoku: exactly one solution (the solver's UNSAT proof and an independent
count), deterministic by seed, and LR²Bench's figures on the reference and altered answers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import get_family
from engine.core.families.puzzles.sudoku import rules, singles_solve, solutions_count

FAMILY = get_family("puzzles")
LEVELS = ["easy", "4x4_hard", "medium", "hard"]
seeds = st.integers(min_value=0, max_value=2**40)


def _valid(grid, box):
    n = box * box
    units = [row for row in grid] + [list(col) for col in zip(*grid, strict=True)]
    for br in range(box):
        for bc in range(box):
            units.append([grid[br * box + r][bc * box + c] for r in range(box) for c in range(box)])
    return all(sorted(unit) == list(range(1, n + 1)) for unit in units)


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=12, deadline=None)
@given(seed=seeds)
def test_every_puzzle_has_exactly_one_solution_and_it_is_the_reference(level, seed):
    task = FAMILY.generate("sudoku", seed, level=level)
    box, grid, solution = task.public["box"], task.public["grid"], task.hidden["solution"]
    assert _valid(solution, box)
    n = box * box
    assert all(grid[r][c] in (0, solution[r][c]) for r in range(n) for c in range(n))
    assert solutions_count(box, grid) == 1
    # A puzzle with one clue fewer than the minimum the generator kept may have more; a
    # puzzle with every cell blank certainly has more: the counter can tell.
    assert solutions_count(box, [[0] * n for _ in range(n)]) == 2
    assert task.hidden["grade"] in ("singles", "search")
    assert singles_solve(box, grid) == (task.hidden["grade"] == "singles")


def test_a_16x16_puzzle_is_unique_too():
    task = FAMILY.generate("sudoku", 3, level="expert")
    assert task.public["size"] == 16 and solutions_count(4, task.public["grid"]) == 1


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_arguments_give_the_same_puzzle_byte_for_byte(level):
    one = FAMILY.generate("sudoku", 42, level=level)
    two = FAMILY.generate("sudoku", 42, level=level)
    assert json.dumps([one.public, one.hidden]) == json.dumps([two.public, two.hidden])
    others = {json.dumps(FAMILY.generate("sudoku", s, level=level).public) for s in range(8)}
    assert len(others) >= 6


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=10, deadline=None)
@given(seed=seeds, data=st.data())
def test_reference_scores_one_and_one_changed_cell_costs_exactly_one_empty_cell(level, seed, data):
    task = FAMILY.generate("sudoku", seed, level=level)
    n = task.public["size"]
    score = FAMILY.score(task, FAMILY.reference_answer(task))
    assert score.correct and score.value == 1.0
    assert (score.details["cr"], score.details["em"], score.details["pm05"]) == (1.0, 1, 1)
    grid = [row[:] for row in task.hidden["solution"]]
    r = data.draw(st.integers(0, n - 1))
    c = data.draw(st.integers(0, n - 1))
    grid[r][c] = grid[r][c] % n + 1
    changed = FAMILY.score(task, json.dumps(grid))
    # LR²Bench's subtasks: the empty cells (a changed given is none); our own units: rows.
    empty = sum(row.count(0) for row in task.public["grid"])
    assert changed.details["subtasks"] == empty == task.public["lr2_subtasks"]
    if task.public["grid"][r][c] == 0:
        assert not changed.correct and changed.details["s_acc"] == (empty - 1) / empty
    else:
        assert changed.correct and changed.details["s_acc"] == 1.0
    assert changed.details["cr"] == 1 and changed.details["pm05"] == 1
    assert changed.details["by_unit"] == {"unit": "row", "of": n, "given": n, "right": n - 1}


def test_answer_forms_and_what_cannot_be_read():
    task = FAMILY.generate("sudoku", 5, level="medium")
    solution = task.hidden["solution"]
    forms = [
        json.dumps(solution),
        solution,  # the structured answer the API takes
        "\n".join(" ".join(map(str, row)) for row in solution),
        "\n".join("".join(map(str, row)) for row in solution),
        "<Answer>" + str(solution) + "</Answer>",
        "[" + ",\n".join("[" + ", ".join(f'"{v}"' for v in row) + "]" for row in solution) + "]",
    ]
    for form in forms:
        assert FAMILY.score(task, form).correct, form
    partial = [solution[0], [0] * 9, solution[2][:8], "not a row"] + solution[4:]
    score = FAMILY.score(task, json.dumps(partial))
    assert score.details["by_unit"]["given"] == 6 and score.details["by_unit"]["right"] == 6
    grid = task.public["grid"]
    right = sum(row.count(0) for i, row in enumerate(grid) if i in (0, 4, 5, 6, 7, 8))
    right += grid[2][:8].count(0)  # the short row's cells still count, cell by cell
    assert score.details["right"] == right and score.details["cr"] == 1
    assert any("row 2" in problem for problem in score.details["unread"])
    blank = FAMILY.score(task, "")
    assert blank.details["cr"] == 0 and blank.value == 0
    assert FAMILY.score(task, "I give up").details["by_unit"]["given"] == 0


def test_nothing_of_the_solution_is_public():
    task = FAMILY.generate("sudoku", 9, level="hard")
    public = json.dumps(task.public)
    assert json.dumps(task.hidden["solution"]) not in public
    assert "solution" not in task.public
    blanks = sum(value == 0 for row in task.public["grid"] for value in row)
    assert blanks == 81 - task.public["givens"] and blanks >= 50


def test_rules_have_redundant_unit_constraints():
    # The at-most-once unit clauses are what keep uniqueness proofs fast (see benchmarks).
    assert len(rules(2)) > 16 + 16 * 6
