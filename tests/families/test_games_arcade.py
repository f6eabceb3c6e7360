"""2048 and snake: chance drawn on the server from the secret seed and the move number
(the same moves rebuild the same game; no reply shows a draw before it happens), 2048's
merge rules, snake's growth, walls and turns, and the graded scores and KORGym points."""

from __future__ import annotations

import json
import random

import pytest

from engine.core.families.games.arcade import Game2048, Snake, _slide_row
from engine.core.families.games.common import IllegalMove


def _make(game, seed: int, level: str):
    return game.generate(random.Random(seed), game.kind.resolve(level=level))


@pytest.mark.parametrize(
    ("row", "slid", "points"),
    [
        ([2, 2, 2, 2], [4, 4, 0, 0], 8),
        ([2, 2, 4, 0], [4, 4, 0, 0], 4),  # the new 4 does not merge again this move
        ([4, 0, 4, 8], [8, 8, 0, 0], 8),
        ([0, 0, 0, 2], [2, 0, 0, 0], 0),
        ([2, 4, 8, 16], [2, 4, 8, 16], 0),
    ],
)
def test_2048_rows_slide_and_merge_once(row, slid, points):
    assert _slide_row(row) == (slid, points)


def test_2048_refuses_a_move_that_changes_nothing_and_scores_the_way_there():
    game = Game2048()
    public, hidden = _make(game, 3, "medium")
    state = game.initial(public, hidden)
    stuck = {**state, "board": (2, 4, 8, 16, *([0] * 12))}
    with pytest.raises(IllegalMove, match="changes nothing"):
        game.play(stuck, "up")
    moved, step = game.play(stuck, "down")
    assert moved["board"][12:] == (2, 4, 8, 16) and sum(1 for v in moved["board"] if v) == 5
    assert game.score(moved, 1, public) == pytest.approx(4 / 7)  # log2(16) / log2(128)
    assert game.points(moved, 1, public) == 0.0


def test_2048_draws_come_from_the_seed_and_stay_hidden():
    game = Game2048()
    public, hidden = _make(game, 8, "easy")
    moves = game.reference(public, hidden)
    one, _ = game.replay(public, hidden, moves[:5])
    two, _ = game.replay(public, hidden, moves[:5])
    assert one == two
    # The same first move with other seeds: the new tile lands elsewhere or differs.
    first = game.play(game.initial(public, hidden), moves[0])[0]["board"]
    others = {
        game.play(game.initial(public, {**hidden, "seed": seed}), moves[0])[0]["board"]
        for seed in range(10)
    }
    assert others - {first}
    state, shown = game.initial(public, hidden), []
    for move in moves:
        state, step = game.play(state, move)
        shown.append(step.observation)
    assert step.over and game.score(state, len(moves), public) == 1.0
    assert game.points(state, len(moves), public) > 0
    text = json.dumps([public, shown])
    assert str(hidden["seed"]) not in text and "reference" not in text
    assert all(set(o) == {"view", "points", "best"} for o in shown)


def test_snake_grows_turns_and_dies():
    game = Snake()
    public, hidden = _make(game, 1, "easy")
    state = game.initial(public, hidden)
    n = public["size"]
    apple = state["apple"]
    # One square next to the apple, then eat it: the snake grows by one.
    beside = {**state, "body": ((apple[0] + 1, apple[1]),) if apple[0] + 1 < n else (
        (apple[0] - 1, apple[1]),)}  # fmt: skip
    step_to = "up" if apple[0] + 1 < n else "down"
    ate, step = game.play(beside, step_to)
    assert ate["eaten"] == 1 and len(ate["body"]) == 1 + 1 and step.observation["ate"]
    assert ate["apple"] != apple and ate["apple"] not in ate["body"]
    with pytest.raises(IllegalMove, match="straight back"):
        game.play({**ate, "heading": step_to}, "down" if step_to == "up" else "up")
    # Into the wall: the game ends with the apples eaten so far.
    top = {**state, "body": ((0, 0),), "apple": (n - 1, n - 1)}
    dead, step = game.play(top, "up")
    assert step.over and dead["dead"] and "wall" in step.observation["result"]
    assert game.score(dead, 1, public) == 0.0
    with pytest.raises(IllegalMove):
        game.play(state, "north-east")


def test_the_next_apple_is_never_shown_before_it_appears():
    game = Snake()
    for seed in range(10):
        public, hidden = _make(game, seed, "medium")
        state = game.initial(public, hidden)
        for move in game.reference(public, hidden):
            state, step = game.play(state, move)
            assert set(step.observation) <= {"view", "eaten", "ate", "result"}
            assert step.observation["view"].count("A") == (0 if step.over else 1)
        assert step.over and game.score(state, 0, public) == 1.0
        assert game.points(state, 0, public) == public["apples"]
        assert str(hidden["seed"]) not in json.dumps(public)
