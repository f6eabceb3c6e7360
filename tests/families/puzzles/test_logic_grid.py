"""Generated logic grids: a minimal set of true clues with exactly one solution (the
solver's proof), deterministic by seed, answer forms read leniently, LR²Bench's figures."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from engine.core.families.base import get_family
from engine.core.families.puzzles import logic_grid

FAMILY = get_family("puzzles")
LEVELS = ["easy", "medium", "hard", "expert"]
seeds = st.integers(min_value=0, max_value=2**40)


def _count_solutions(task, limit=3):
    """How many assignments satisfy every stored clue, counted with a fresh solver (the
    generator's own proof used one solver with selectors and a blocking clause)."""
    variables = task.public["variables"]
    cats = list(variables)
    m = len(variables["names"])
    enc = logic_grid.Encoding(len(cats), m)
    count = 0
    with Minisat22(bootstrap_with=enc.base()) as solver:
        for clue in task.hidden["clue_codes"]:
            for clause in enc.clue(tuple(_tupled(clue))):
                solver.add_clause(clause)
        while count < limit and solver.solve():
            count += 1
            model = [
                lit for lit in solver.get_model() if 0 < lit <= enc.x(len(cats) - 1, m - 1, m - 1)
            ]
            solver.add_clause([-lit for lit in model])
    return count


def _tupled(clue):
    return [tuple(part) if isinstance(part, list) else part for part in clue]


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=10, deadline=None)
@given(seed=seeds)
def test_exactly_one_solution_and_every_clue_is_needed(level, seed):
    task = FAMILY.generate("logic_grid", seed, level=level)
    assert _count_solutions(task) == 1
    codes = task.hidden["clue_codes"]
    assert len(codes) == len(task.public["clues"])
    variables = task.public["variables"]
    enc = logic_grid.Encoding(len(variables), len(variables["names"]))
    # Minimal: without any one clue the puzzle has more than one solution.
    for skip in range(len(codes)):
        with Minisat22(bootstrap_with=enc.base()) as solver:
            for index, clue in enumerate(codes):
                if index != skip:
                    for clause in enc.clue(tuple(_tupled(clue))):
                        solver.add_clause(clause)
            assert solver.solve()
            first = [
                lit
                for lit in solver.get_model()
                if 0 < lit <= enc.x(len(variables) - 1, enc.m - 1, enc.m - 1)
            ]
            solver.add_clause([-lit for lit in first])
            assert solver.solve(), f"clue {skip + 1} is redundant"


@pytest.mark.parametrize("level", LEVELS)
def test_the_reference_is_consistent_with_every_clue(level):
    task = FAMILY.generate("logic_grid", 8, level=level)
    variables = task.public["variables"]
    cats = list(variables)
    enc = logic_grid.Encoding(len(cats), len(variables["names"]))
    truth = []
    for e, row in enumerate(task.hidden["solution"]):
        assert row["names"] == variables["names"][e]
        for c, cat in enumerate(cats):
            truth.append(enc.x(c, e, variables[cat].index(row[cat])))
    with Minisat22(bootstrap_with=enc.base()) as solver:
        for clue in task.hidden["clue_codes"]:
            for clause in enc.clue(tuple(_tupled(clue))):
                solver.add_clause(clause)
        assert solver.solve(assumptions=truth)


@pytest.mark.parametrize("level", LEVELS)
def test_deterministic_byte_for_byte(level):
    one = FAMILY.generate("logic_grid", 7, level=level)
    two = FAMILY.generate("logic_grid", 7, level=level)
    assert json.dumps([one.public, one.hidden]) == json.dumps([two.public, two.hidden])
    texts = {FAMILY.generate("logic_grid", s, level=level).public["text"] for s in range(6)}
    assert len(texts) == 6


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=8, deadline=None)
@given(seed=seeds, data=st.data())
def test_reference_scores_one_and_a_swap_costs_two_cells(level, seed, data):
    task = FAMILY.generate("logic_grid", seed, level=level)
    m = len(task.public["variables"]["names"])
    score = FAMILY.score(task, FAMILY.reference_answer(task))
    assert score.correct and score.value == 1.0 and score.details["cr"] == 1.0
    rows = [dict(row) for row in task.hidden["solution"]]
    a, b = data.draw(st.lists(st.integers(0, m - 1), min_size=2, max_size=2, unique=True))
    cat = data.draw(st.sampled_from([c for c in task.public["variables"] if c != "names"]))
    rows[a][cat], rows[b][cat] = rows[b][cat], rows[a][cat]
    swapped = FAMILY.score(task, json.dumps(rows))
    # LR²Bench's subtasks: person × attribute (names excluded); our own units: people.
    cells = m * (len(task.public["variables"]) - 1)
    assert swapped.details["subtasks"] == cells and swapped.details["right"] == cells - 2
    assert swapped.details["s_acc"] == (cells - 2) / cells and swapped.details["em"] == 0
    assert swapped.details["cr"] == 1 and swapped.details["by_unit"]["right"] == m - 2
    del rows[a]
    missing = FAMILY.score(task, rows).details
    attributes = len(task.public["variables"]) - 1
    assert missing["right"] == cells - attributes - 1  # a's cells, and b's swapped one
    assert missing["by_unit"]["given"] == m - 1 and missing["by_unit"]["right"] == m - 2


def test_answer_forms():
    task = FAMILY.generate("logic_grid", 3, level="medium")
    solution = task.hidden["solution"]
    cats = list(task.public["variables"])
    shouting = [{k.upper(): str(v).upper() for k, v in row.items()} for row in solution]
    keyed = {row["names"]: {k: v for k, v in row.items() if k != "names"} for row in solution}
    lines = "\n".join(
        ": ".join([row["names"], ", ".join(row[c] for c in cats[1:])]) for row in solution
    )
    for form in (
        solution,
        json.dumps(solution),
        json.dumps(shouting),
        keyed,
        list(reversed(solution)),
        lines,
        f"<Answer>{json.dumps(solution)}</Answer>",
    ):
        assert FAMILY.score(task, form).correct, form
    unknown = [dict(row) for row in solution]
    unknown[0][cats[1]] = "a unicorn"
    score = FAMILY.score(task, unknown)
    assert score.details["by_unit"]["given"] == len(solution) - 1
    assert score.details["right"] == score.details["subtasks"] - 1  # only that cell is lost
    assert any("no known value" in p for p in score.details["unread"])
    assert FAMILY.score(task, "no idea").details["cr"] == 0


def test_nothing_hidden_in_public():
    for seed in range(5):
        task = FAMILY.generate("logic_grid", seed, level="hard")
        assert "solution" not in task.public and "clue_codes" not in task.public
        # Every clue is a sentence over the puzzle's own values.
        for sentence in task.public["clues"]:
            assert sentence.endswith(".") and sentence[0].isupper()


def test_sizes_beyond_lr2bench():
    task = FAMILY.generate("logic_grid", 1, level="expert")
    assert len(task.public["variables"]) == 6 and len(task.public["variables"]["names"]) == 7
    assert list(itertools.islice(task.public["variables"], 1)) == ["names"]
