"""Wordle and Minesweeper: feedback with repeated letters, guesses from the word list only,
mines that never leave the server before the end, a logic-only reference that never flags
a safe square or reveals a mine, and KORGym's flag score."""

from __future__ import annotations

import json
import random

import pytest

from engine.core.families.games.common import IllegalMove
from engine.core.families.games.hidden import Minesweeper, Wordle, _feedback, _words


def _make(game, seed: int, level: str):
    return game.generate(random.Random(seed), game.kind.resolve(level=level))


@pytest.mark.parametrize(
    ("secret", "guess", "marks"),
    [
        ("ABBEY", "BABES", "YYGG."),
        ("SPEED", "EERIE", "YY..."),  # only two Es to find: the third is absent
        ("ROBOT", "FLOOR", "..YGY"),
        ("CRANE", "CRANE", "GGGGG"),
    ],
)
def test_wordle_feedback_counts_repeated_letters(secret, guess, marks):
    assert _feedback(secret, guess) == marks


def test_wordle_takes_listed_words_only_and_keeps_the_word_secret():
    game = Wordle()
    for seed in range(15):
        public, hidden = _make(game, seed, "medium")
        secret = hidden["secret"]
        assert secret not in json.dumps(public)
        state = game.initial(public, hidden)
        for bad in ("ABCDE", "ABC", "CRANES", "12345"):
            with pytest.raises(IllegalMove):
                game.play(state, bad)
        state, shown = game.initial(public, hidden), []
        for move in game.reference(public, hidden):
            state, step = game.play(state, move)
            shown.append(step.observation)
        assert step.over and game.score(state, len(shown), public) == 1.0
        assert all(secret not in json.dumps(o) for o in shown[:-1])


def test_wordle_guesses_that_never_find_it_score_0():
    game = Wordle()
    public, hidden = _make(game, 4, "medium")
    wrong = next(w for w in _words(5) if w != hidden["secret"])
    history = [wrong.lower() + "."] * public["turn_limit"]
    state, over = game.replay(public, hidden, history)
    assert over and game.score(state, len(history), public) == 0.0


def test_minesweeper_reference_is_sound_and_mines_stay_hidden():
    game = Minesweeper()
    for level in ("easy", "medium", "hard"):
        for seed in range(8):
            public, hidden = _make(game, seed, level)
            mines = {tuple(m) for m in hidden["mines"]}
            assert len(mines) == public["mines"]
            assert json.dumps(hidden["mines"]) not in json.dumps(public)
            state = game.initial(public, hidden)
            for move in game.reference(public, hidden):
                action, r, c = move.split()
                square = (int(r) - 1, int(c) - 1)
                assert (square in mines) == (action == "flag"), move  # never a guess
                state, step = game.play(state, move)
                assert "*" not in step.observation["view"]
            assert step.over and game.score(state, 0, public) == 1.0


def test_minesweeper_flags_score_and_a_mine_ends_the_game():
    game = Minesweeper()
    public, hidden = _make(game, 2, "medium")
    mines = sorted(tuple(m) for m in hidden["mines"])
    state = game.initial(public, hidden)
    safe = next(
        (r, c)
        for r in range(public["rows"])
        for c in range(public["cols"])
        if (r, c) not in mines and (r, c) not in state["shown"]
    )
    for r, c in (*mines[:2], safe):
        state, _ = game.play(state, f"flag {r + 1} {c + 1}")
    assert game.score(state, 3, public) == pytest.approx((2 - 1) / 7)
    with pytest.raises(IllegalMove, match="unflag it first"):
        game.play(state, f"reveal {safe[0] + 1} {safe[1] + 1}")
    with pytest.raises(IllegalMove, match="already revealed"):
        game.play(state, f"flag {public['start'][0] + 1} {public['start'][1] + 1}")
    r, c = mines[3]
    boom, step = game.play(state, f"reveal {r + 1},{c + 1}")
    assert step.over and "mine" in step.observation["result"] and "*" in step.observation["view"]
    assert game.score(boom, 4, public) == pytest.approx(1 / 7)  # the flags still count
