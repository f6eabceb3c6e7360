"""KORGym's Capability Dimension Aggregated Mean with the paper's grouping, on figures
worked out by hand: per game ln(1 + s) where some player's raw score exceeds 1, min–max
across the players who played it, mean per dimension, Overall the mean of dimensions."""

from __future__ import annotations

import dataclasses
import math

import pytest

from engine.core.families.base import get_family
from leaderboard.dimension_board import dimension_rows
from leaderboard.family_board import FamilyRow


def row(kind: str, player: str, points: float, value: float | None = None) -> FamilyRow:
    figures = dict.fromkeys(
        ("cr", "cr_low", "cr_high", "s_acc", "s_acc_low", "s_acc_high", "em", "pm05"), None
    )
    figures |= {"pm05_low": None, "pm05_high": None}
    return FamilyRow(
        family="korgym", kind=kind, level="korgym", round_id=None, player=player,
        player_kind="model", model_id=None, verified=True, attempts=2, correct=0,
        success_rate=0.0, ci_low=0.0, ci_high=0.0,
        mean_value=min(points, 1.0) if value is None else value,
        parse_error_rate=0.0, mean_tokens=0.0, mean_points=points, owner="lab", **figures,
    )  # fmt: skip


def test_the_paper_grouping_and_formula_on_hand_worked_figures():
    korgym = get_family("korgym")
    # The paper's dimensions of the games used here.
    assert [korgym.dimension(k) for k in ("datecount", "sudoku", "wordle", "2048")] == [
        "MLR", "MLR", "PR", "SR",
    ]  # fmt: skip
    rows = [
        row("datecount", "m1", 1.0), row("datecount", "m2", 0.5), row("datecount", "m3", 0.0),
        row("sudoku", "m1", 0.0), row("sudoku", "m2", 1.0),
        row("wordle", "m3", 0.8),  # one player: kept as it is
        # 2048's raw points exceed 1: ln(1 + s) before min–max.
        row("2048", "m1", 1000.0, 1.0), row("2048", "m2", 10.0, 0.0), row("2048", "m3", 0.0, 0.0),
    ]  # fmt: skip
    found = {r.player: r for r in dimension_rows(rows=rows, family="korgym")}
    m2_2048 = math.log(11) / math.log(1001)  # 0.34708…
    assert found["m1"].dimensions == pytest.approx(
        {"MLR": 0.5, "CIR": None, "PR": None, "SGR": None, "SR": 1.0}
    )
    assert found["m2"].dimensions["MLR"] == pytest.approx(0.75)
    assert found["m2"].dimensions["SR"] == pytest.approx(m2_2048)
    assert found["m3"].dimensions == pytest.approx(
        {"MLR": 0.0, "CIR": None, "PR": 0.8, "SGR": None, "SR": 0.0}
    )
    assert found["m1"].overall == pytest.approx(0.75)
    assert found["m2"].overall == pytest.approx((0.75 + m2_2048) / 2)
    assert found["m3"].overall == pytest.approx(0.8 / 3)
    assert {r.player: r.games for r in found.values()} == {"m1": 3, "m2": 3, "m3": 3}
    scores = {s.kind: s for s in found["m1"].scores}
    assert scores["2048"].raw == pytest.approx(math.log(1001))


def test_our_games_never_enter_korgyms_table():
    rows = [row("datecount", "m1", 1.0)]
    ours = dataclasses.replace(rows[0], family="games", kind="nim")
    assert [r.player for r in dimension_rows(rows=[*rows, ours], family="korgym")] == ["m1"]
    table = dimension_rows(rows=[*rows, ours], family="korgym")[0]
    assert table.games == 1
