"""Task signatures, the majority verdict, the χ² test and Cramér's V."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

from engine.core.families.kumo.analysis import (
    cramers_v,
    format_signature,
    independence_test,
    majority_correct,
    task_signature,
)


def test_signature_of_a_hand_built_task(garden_core):
    # Task truths a1, a2, a5, c1; actions A-one, A-four, C-one, B-one, Weather.
    # A-one mentions a1 a2 (a5 too) -> 3; A-four mentions a2 a5 -> 2; C-one: c1 -> 1;
    # B-one and Weather mention none of the task's truths -> 0.
    # Truth degrees: a1 (A-one) 1, a2 (A-one, A-four) 2, a5 (A-one, A-four) 2, c1 1.
    signature = task_signature(
        garden_core, ["a1", "a2", "a5", "c1"], ["A-one", "A-four", "C-one", "B-one", "Weather"]
    )
    assert signature == ((2, 2, 1, 1), (3, 2, 1, 0, 0))
    assert format_signature(signature) == "truths [2, 2, 1, 1] · actions [3, 2, 1, 0, 0]"


def test_signature_does_not_depend_on_order_or_names(garden_core):
    one = task_signature(garden_core, ["b1", "b2", "b4"], ["B-one", "B-three"])
    two = task_signature(garden_core, ["b4", "b1", "b2"], ["B-three", "B-one"])
    # b3 instead of b4 changes which truths B-three mentions: a different structure.
    three = task_signature(garden_core, ["b1", "b2", "b3"], ["B-one", "B-three"])
    assert one == two == ((2, 2, 1), (3, 2))
    assert three == ((2, 1, 1), (3, 1))


def test_signature_rejects_an_unknown_action(garden_core):
    with pytest.raises(KeyError, match="not an action of domain 'garden'"):
        task_signature(garden_core, ["a1"], ["Nope"])


@pytest.mark.parametrize(
    ("wins", "runs", "correct"),
    [
        (3, 5, True),
        (2, 5, False),
        (5, 5, True),
        (0, 5, False),
        (1, 1, True),
        (2, 4, False),
        (3, 4, True),
        (0, 1, False),
    ],
)
def test_a_task_is_correct_when_it_wins_a_majority_of_its_runs(wins, runs, correct):
    assert majority_correct(wins, runs) is correct


def test_majority_rejects_impossible_counts():
    with pytest.raises(ValueError):
        majority_correct(1, 0)
    with pytest.raises(ValueError):
        majority_correct(6, 5)


def pairs_from_table(rows: list[str], columns: list[str], table: list[list[int]]):
    return [
        (row, column)
        for row, counts in zip(rows, table, strict=True)
        for column, count in zip(columns, counts, strict=True)
        for _ in range(count)
    ]


def test_chi_square_and_cramers_v_on_a_hand_built_table():
    table = [[10, 2], [3, 9], [4, 4]]
    result = independence_test(pairs_from_table(["s1", "s2", "s3"], ["correct", "wrong"], table))
    expected = chi2_contingency(np.array(table), correction=False)
    assert result.defined
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert result.dof == expected.dof == 2
    assert (result.n, result.rows, result.columns) == (32, 3, 2)
    assert result.cramers_v == pytest.approx(math.sqrt(expected.statistic / (32 * 1)))
    # By hand: columns hold 17 and 15 of the 32 tasks, so a row of m tasks expects
    # 17m/32 and 15m/32; χ² = Σ (observed − expected)² / expected ≈ 8.2405.
    by_hand = sum(
        (observed - expected) ** 2 / expected
        for row in table
        for observed, expected in zip(row, (17 * sum(row) / 32, 15 * sum(row) / 32), strict=True)
    )
    assert result.statistic == pytest.approx(by_hand) == pytest.approx(8.2405, abs=1e-4)
    # Cells of 8 tasks expect 4.25 and 3.75; 2 of 6 cells are below 5.
    assert result.low_expected == pytest.approx(2 / 6)


def test_cramers_v_uses_the_smaller_dimension():
    assert cramers_v(12.0, 50, 4, 3) == pytest.approx(math.sqrt(12.0 / (50 * 2)))
    assert cramers_v(12.0, 50, 2, 7) == pytest.approx(math.sqrt(12.0 / 50))
    with pytest.raises(ValueError):
        cramers_v(1.0, 10, 1, 2)


@given(st.lists(st.lists(st.integers(1, 30), min_size=2, max_size=4), min_size=2, max_size=5))
def test_chi_square_agrees_with_scipy_on_any_table_with_full_margins(raw):
    width = min(len(row) for row in raw)
    table = [row[:width] for row in raw]
    rows = [f"r{i}" for i in range(len(table))]
    columns = [f"c{j}" for j in range(width)]
    result = independence_test(pairs_from_table(rows, columns, table))
    expected = chi2_contingency(np.array(table), correction=False)
    assert result.statistic == pytest.approx(expected.statistic, abs=1e-9)
    assert result.p_value == pytest.approx(expected.pvalue, abs=1e-12)
    assert result.dof == expected.dof
    n = sum(map(sum, table))
    k = min(len(table) - 1, width - 1)
    assert result.cramers_v == pytest.approx(math.sqrt(expected.statistic / (n * k)), abs=1e-12)
    assert 0 <= result.cramers_v <= 1 + 1e-12


def test_a_single_signature_is_not_enough_variation():
    result = independence_test([("s", True), ("s", False), ("s", True)])
    assert not result.defined
    assert result.statistic is result.p_value is result.dof is result.cramers_v is None
    assert result.note == "not enough variation: every task has the same signature"
    assert (result.n, result.rows, result.columns) == (3, 1, 2)


def test_a_single_outcome_is_not_enough_variation():
    result = independence_test([("s1", True), ("s2", True)])
    assert not result.defined
    assert result.note == "not enough variation: every task has the same outcome"
    one_cell = independence_test([("s", False)])
    assert one_cell.note == (
        "not enough variation: every task has the same signature and every task has the "
        "same outcome"
    )


def test_no_data_is_reported_as_such():
    result = independence_test([])
    assert not result.defined and result.note == "no data" and result.n == 0
