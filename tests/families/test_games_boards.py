"""Tic-tac-toe against a perfect opponent and lights out with an exact optimum: the
opponent is never beaten, a careless move in a hard start loses, and the lights' optimum
agrees with brute force."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.core.families.games.boards import LightsOut, TicTacToe, _press, _value
from engine.core.families.games.common import IllegalMove


def _make(game, seed: int, level: str):
    return game.generate(random.Random(seed), game.kind.resolve(level=level))


def _play_out(game, public, hidden, first: str | None, rng) -> float:
    state, moves = game.initial(public, hidden), 0
    move, over = first, False
    while not over:
        if move is None:
            free = [i for i, cell in enumerate(state["board"]) if cell == "."]
            square = rng.choice(free)
            move = f"{square // 3 + 1} {square % 3 + 1}"
        state, step = game.play(state, move)
        moves, move, over = moves + 1, None, step.over
    return game.score(state, moves, public)


def test_the_perfect_opponent_is_never_beaten():
    game, rng = TicTacToe(), random.Random(7)
    for seed in range(150):
        public, hidden = _make(game, seed, ["easy", "medium", "hard"][seed % 3])
        sign = 1 if public["you"] == "X" else -1
        if sign * _value(public["board"], public["you"]) > 0:
            continue  # a start the player can win with best play: the opponent may lose
        state = game.initial(public, hidden)
        for _ in range(5):
            free = [i for i, cell in enumerate(state["board"]) if cell == "."]
            square = rng.choice(free)
            state, step = game.play(state, f"{square // 3 + 1} {square % 3 + 1}")
            if step.over:
                break
        assert state["result"] != "win"


def test_a_careless_move_in_a_hard_start_loses():
    game, rng = TicTacToe(), random.Random(3)
    for seed in range(20):
        public, hidden = _make(game, seed, "hard")
        board, you = public["board"], public["you"]
        other = "O" if you == "X" else "X"
        sign = 1 if you == "X" else -1
        losing = [
            i
            for i, cell in enumerate(board)
            if cell == "." and sign * _value(board[:i] + you + board[i + 1 :], other) < 0
        ]
        assert losing, "a hard start always hides a losing move"
        square = losing[0]
        assert _play_out(game, public, hidden, f"{square // 3 + 1} {square % 3 + 1}", rng) == 0.0
        # ... and the reference, which never loses, scores 1.
        state = game.initial(public, hidden)
        for move in game.reference(public, hidden):
            state, _ = game.play(state, move)
        assert game.score(state, 1, public) == 1.0


def test_tic_tac_toe_moves_are_read_leniently_and_refused_clearly():
    game = TicTacToe()
    public, hidden = game.generate(random.Random(2), game.kind.resolve({"opening": 0}))
    state = game.initial(public, hidden)
    for move in ("2 2", "2,2", "row 2 col 2", "Row 2, column 2."):
        after, _ = game.play(state, move)
        assert after["board"][4] == "X"
    taken, _ = game.play(state, "1 1")
    with pytest.raises(IllegalMove, match="taken"):
        game.play(taken, "1 1")
    with pytest.raises(IllegalMove):
        game.play(state, "4 4")
    assert state["board"] == "." * 9  # nothing changed


def _brute_optimum(lights: tuple[int, ...], n: int) -> int:
    for count in range(n * n + 1):
        for squares in itertools.combinations(range(n * n), count):
            board = lights
            for square in squares:
                board = _press(board, n, square)
            if not any(board):
                return count
    raise AssertionError("unsolvable")


@pytest.mark.parametrize(("level", "seeds"), [("easy", 12), ("medium", 3)])
def test_the_lights_optimum_agrees_with_brute_force(level, seeds):
    game = LightsOut()
    for seed in range(seeds):
        public, hidden = _make(game, seed, level)
        n = public["size"]
        assert hidden["optimum"] == _brute_optimum(tuple(public["lights"]), n)
        assert len(game.reference(public, hidden)) == hidden["optimum"]


def test_lights_out_scores_optimum_over_presses():
    game = LightsOut()
    public, hidden = _make(game, 4, "medium")
    state = game.initial(public, hidden)
    moves = game.reference(public, hidden)
    state, _ = game.play(state, "1 1")
    state, _ = game.play(state, "1 1")  # twice the same square: back where it was
    assert state["lights"] == tuple(public["lights"])
    for move in moves:
        state, step = game.play(state, move)
    assert step.over
    assert game.score(state, len(moves) + 2, public) == hidden["optimum"] / (len(moves) + 2)
    with pytest.raises(IllegalMove, match="from 1 to 4"):
        game.play(state, "5 1")
