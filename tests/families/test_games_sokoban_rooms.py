"""Sokoban: rooms made backwards are solvable, the optimum is the breadth-first search's
(checked on a hand-built room), pushes follow the rules, and a box pushed into a corner
off the goals leaves the score at 0."""

from __future__ import annotations

import random

import pytest

from engine.core.families.games.common import IllegalMove
from engine.core.families.games.sokoban_rooms import Sokoban, _shortest


def _room(rows: list[str]) -> dict:
    """A public view from a drawing of a square room (the walls round the edge included)."""
    size = len(rows) - 2
    walls, goals, boxes, player = [], [], [], None
    for r, line in enumerate(rows[1:-1]):
        for c, ch in enumerate(line[1:-1]):
            if ch == "#":
                walls.append([r, c])
            if ch in ".*+":
                goals.append([r, c])
            if ch in "$*":
                boxes.append([r, c])
            if ch in "@+":
                player = [r, c]
    return {"size": size, "walls": walls, "goals": goals, "boxes": boxes, "player": player}


def test_a_hand_built_room_has_the_optimum_worked_out_by_hand():
    room = _room(["######", "#@$_.#", "#____#", "#____#", "#____#", "######"])
    state = Sokoban().initial(room, {"optimum": 2})
    path = _shortest(state["walls"], state["goals"], state["boxes"], state["player"], 4)
    assert path == ["right", "right"]  # push the box twice to the right


def test_pushes_follow_the_rules():
    game = Sokoban()
    room = _room(["######", "#@$$.#", "#____#", "#____#", "#____#", "######"])
    state = game.initial({**room, "turn_limit": 10}, {"optimum": 1})
    with pytest.raises(IllegalMove, match="cannot be pushed"):
        game.play(state, "right")  # two boxes in a row
    with pytest.raises(IllegalMove, match="wall"):
        game.play(state, "up")
    with pytest.raises(IllegalMove):
        game.play(state, "jump")
    moved, step = game.play(state, "d")
    assert moved["player"] == (1, 0) and moved["boxes"] == state["boxes"]
    assert step.observation["view"].splitlines()[2] == "#@___#"


def test_a_box_in_a_corner_off_the_goals_scores_0():
    game = Sokoban()
    room = _room(["#####", "#_._#", "#_$_#", "#_@_#", "#####"])
    public = {**room, "turn_limit": 12}
    history = ["left", "up", "right", "down", "right", "up"]  # the box ends top right
    state, over = game.replay(public, {"optimum": 1}, history)
    assert (0, 2) in state["boxes"] and not over
    assert game.score(state, len(history), public) == 0.0
    # Stuck for good: no sequence of moves gets it out of the corner.
    assert _shortest(state["walls"], state["goals"], state["boxes"], state["player"], 3) is None


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_every_room_is_solvable_and_at_least_as_long_as_its_level_asks(level):
    game = Sokoban()
    params = game.kind.resolve(level=level)
    for seed in range(6):
        public, hidden = game.generate(random.Random(seed), params)
        assert hidden["optimum"] >= params["least"]
        state = game.initial(public, hidden)
        assert state["boxes"] != state["goals"]
        for move in game.reference(public, hidden):
            state, step = game.play(state, move)
        assert step.over and game.score(state, hidden["optimum"], public) == 1.0
