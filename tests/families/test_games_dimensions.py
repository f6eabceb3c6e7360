"""KORGym's Capability Dimension Aggregated Mean on the family board: per-game scores,
min–max normalised across the players who played the game, averaged per dimension, with
figures checked against values worked out by hand."""

from __future__ import annotations

import math

import pytest
from django.test import Client
from django.utils import timezone

from engine import families
from engine.models import FamilyAttempt
from leaderboard.dimension_board import dimension_rows

pytestmark = pytest.mark.django_db(transaction=True)


def _played(runner, kind: str, model: str, values: list[float], points=None) -> None:
    tasks = families.do_generate_family_tasks("games", kind, count=len(values), level="easy")
    for index, (task, value) in enumerate(zip(tasks.tasks, values, strict=True)):
        details = {"moves": 3, "dimension": "", "points": value}
        if points is not None:
            details["points"] = points[index]
        FamilyAttempt.objects.create(
            player=runner,
            task=task,
            model_name=model,
            finished_at=timezone.now(),
            answer="x",
            correct=value == 1.0,
            value=value,
            details=details,
        )


def test_dimension_means_follow_the_hand_worked_figures(make_user, rebuild_board):
    runner = make_user("runner")
    _played(runner, "nim", "m1", [1.0, 1.0])  # strategic
    _played(runner, "nim", "m2", [1.0, 0.0])
    _played(runner, "nim", "m3", [0.0, 0.0])
    _played(runner, "maze", "m1", [0.5])  # spatial and geometric
    _played(runner, "maze", "m2", [1.0])
    _played(runner, "eight_puzzle", "m1", [0.8])  # only m1: kept as it is
    _played(runner, "mastermind", "m3", [1.0])  # puzzle, only m3
    # 2048 is scored by points (log-scaled): m1 means 200 points, m2 0.
    _played(runner, "game_2048", "m1", [0.9, 0.95], points=[100, 300])
    _played(runner, "game_2048", "m2", [0.5], points=[0])
    rebuild_board(full=True)  # written directly, unmarked: the nightly full recompute
    rows = {row.player: row for row in dimension_rows()}
    assert set(rows) == {"m1", "m2", "m3"}
    # nim normalises to m1 1, m2 0.5, m3 0; maze to m1 0, m2 1; eight_puzzle m1 0.8;
    # 2048: ln(1 + 200) against ln(1 + 0) gives m1 1, m2 0 (not the 0-1 values).
    m1, m2, m3 = rows["m1"], rows["m2"], rows["m3"]
    scores = {score.kind: score for score in m1.scores}
    assert scores["game_2048"].raw == pytest.approx(math.log(201))
    assert m1.dimensions["strategic"] == 1.0
    assert m1.dimensions["spatial_geometric"] == pytest.approx(0.4)
    assert m1.overall == pytest.approx(0.7) and m1.games == 4
    assert m2.dimensions["strategic"] == 0.25 and m2.dimensions["spatial_geometric"] == 1.0
    assert m2.overall == pytest.approx(0.625) and m2.dimensions["puzzle"] is None
    assert m3.dimensions == {
        "mathematical_logical": None,
        "control_interaction": None,
        "puzzle": 1.0,
        "spatial_geometric": None,
        "strategic": 0.0,
    }
    assert m3.overall == pytest.approx(0.5)
    assert [row.player for row in dimension_rows()] == ["m1", "m2", "m3"]  # by overall

    page = Client().get("/leaderboard/families/").content.decode()
    assert 'id="dimension-board"' in page
    assert page.count('<tr data-player="m1" data-level="easy">') == 1
    assert ">0.700<" in page and ">0.625<" in page
