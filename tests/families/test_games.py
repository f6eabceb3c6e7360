"""The multi-turn games (engine.core.families.games): generation deterministic by seed,
the reference player reaching the game's best score, illegal moves refused with a reason
and never entering the history, nothing hidden in the public view, and the server's state
rebuilt from the moves alone."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import FamilyError
from engine.core.families.games import GAMES_FAMILY as FAMILY

KINDS = sorted(FAMILY.kinds)
LEVELS = ["easy", "medium", "hard"]
seeds = st.integers(min_value=0, max_value=2**40)


@pytest.mark.parametrize(("kind", "level"), list(itertools.product(KINDS, LEVELS)))
def test_deterministic_by_seed(kind, level):
    one, two = (FAMILY.generate(kind, 21, level=level) for _ in range(2))
    assert json.dumps([one.public, one.hidden]) == json.dumps([two.public, two.hidden])
    drawn = {
        json.dumps([(t := FAMILY.generate(kind, seed, level=level)).public, t.hidden])
        for seed in range(12)
    }
    assert len(drawn) >= 3


@pytest.mark.parametrize(("kind", "level"), list(itertools.product(KINDS, LEVELS)))
@settings(max_examples=8, deadline=None)
@given(seed=seeds)
def test_the_reference_player_reaches_the_best_score(kind, level, seed):
    task = FAMILY.generate(kind, seed, level=level)
    moves = FAMILY.reference_answer(task).splitlines()
    history: list[str] = []
    for move in moves:
        result = FAMILY.step(task, history, move)
        history.append(move)
    assert result["over"]
    score = FAMILY.finish(task, history)
    assert score.correct and score.value == 1.0
    assert len(history) <= task.public["turn_limit"]
    with pytest.raises(FamilyError, match="over"):
        FAMILY.step(task, history, moves[-1])


BAD_MOVES = {
    "nim": ["take 0 from 1", "take 99 from 1", "take 1 from 9", "grab everything"],
    "hanoi": ["A A", "D A", "move it"],
    "eight_puzzle": ["diagonal", "jump"],
    "maze": ["north", "west", "fly"],  # walls all round the start's north and west
    "mastermind": ["RGB", "ZZZZ", ""],
    "twenty_four": ["24", "1 + 2", "__import__('os')", "(1 + 1) ** 5"],
    "sequence": ["seven", "3.5"],
    "date_count": ["soon", "2024-13-45", "next week"],
    "crypto_math": ["A=1", "hello", "A=1 A=2"],
    "tic_tac_toe": ["4 1", "middle", "0 0"],
    "lights_out": ["9 9", "press", "0 1"],
    "game_2048": ["north", "jump", "upwards"],
    "snake": ["north", "fly", "u-turn"],
    "wordle": ["ZZZZZ", "AB", "12345", "QXJZV"],
    "minesweeper": ["reveal 0 0", "dig 1 1", "flag 99 1", "unflag 1 1"],
    "sokoban": ["north", "jump", "push"],
}


@pytest.mark.parametrize("kind", KINDS)
def test_illegal_moves_are_refused_and_change_nothing(kind):
    task = FAMILY.generate(kind, 5, level="medium")
    for move in BAD_MOVES[kind]:
        with pytest.raises(FamilyError):
            FAMILY.step(task, [], move)
    # The state is rebuilt from accepted moves only: the reference still wins from here.
    assert FAMILY.score(task, FAMILY.reference_answer(task)).value == 1.0


def test_nothing_secret_in_public():
    for seed in range(20):
        code = FAMILY.generate("mastermind", seed, level="hard")
        assert code.hidden["code"] not in json.dumps(code.public)
        made = FAMILY.generate("twenty_four", seed, level="hard")
        assert made.hidden["solution"] not in json.dumps(made.public)
        sequence = FAMILY.generate("sequence", seed, level="medium")
        assert "answer" not in sequence.public
        assert str(sequence.hidden["answer"]) not in sequence.public["text"].split(", ")[-1]


def test_nim_punishes_a_careless_move():
    """A first move that leaves a non-zero nim-sum hands the optimal opponent the win:
    from then on every position the player faces is lost, whatever it plays."""
    task = FAMILY.generate("nim", 3, level="medium")
    piles = task.public["piles"]
    careless = next(
        f"take 1 from {i + 1}"
        for i, pile in enumerate(piles)
        if pile and _nim_sum([*piles[:i], pile - 1, *piles[i + 1 :]]) != 0
    )
    history = [careless]
    result = FAMILY.step(task, [], careless)
    while not result["over"]:
        state, _ = FAMILY.games["nim"].replay(task.public, task.hidden, history)
        move = f"take 1 from {next(i for i, p in enumerate(state['piles']) if p) + 1}"
        result = FAMILY.step(task, history, move)
        history.append(move)
    assert FAMILY.finish(task, history).value == 0.0
    assert FAMILY.score(task, FAMILY.reference_answer(task)).value == 1.0


def _nim_sum(piles: list[int]) -> int:
    total = 0
    for pile in piles:
        total ^= pile
    return total


def test_planning_games_score_optimum_over_moves():
    task = FAMILY.generate("hanoi", 1, level="medium")
    moves = FAMILY.reference_answer(task).splitlines()
    optimum = task.hidden["optimum"]
    assert len(moves) == optimum
    source = moves[0].split()[0]
    other = next(p for p in "ABC" if p not in moves[0].split())
    detour = [f"{source} {other}", f"{other} {source}", *moves]  # two wasted moves
    assert FAMILY.score(task, "\n".join(detour)).value == pytest.approx(optimum / (optimum + 2))
    unsolved = FAMILY.score(task, "\n".join(moves[:-1]))
    assert unsolved.value == 0.0 and not unsolved.correct
    maze = FAMILY.generate("maze", 2, level="easy")
    path = FAMILY.reference_answer(maze).splitlines()
    assert FAMILY.score(maze, "\n".join(path)).value == 1.0


def test_twenty_four_checks_the_expression_not_the_text():
    task = FAMILY.generate("twenty_four", 4, level="easy")
    a, b, c, d = task.public["numbers"]
    assert FAMILY.score(task, FAMILY.reference_answer(task)).correct
    wrong = FAMILY.score(task, f"{a} + {b} + {c} + {d}")
    assert wrong.value == (1.0 if a + b + c + d == 24 else 0.0)


@pytest.mark.parametrize("seed", range(15))
def test_hanoi_reference_is_optimal_against_breadth_first_search(seed):
    from collections import deque

    task = FAMILY.generate("hanoi", seed, params={"disks": 4})
    game = FAMILY.games["hanoi"]
    start = game.initial(task.public, task.hidden)
    key = lambda state: tuple(tuple(state[p]) for p in "ABC")  # noqa: E731
    seen, queue = {key(start): 0}, deque([start])
    while queue:
        state = queue.popleft()
        if not state["A"] and not state["B"]:
            best = seen[key(state)]
            break
        for move in ("A B", "A C", "B A", "B C", "C A", "C B"):
            try:
                nxt, _ = game.play(state, move)
            except Exception:
                continue
            if key(nxt) not in seen:
                seen[key(nxt)] = seen[key(state)] + 1
                queue.append(nxt)
    assert len(FAMILY.reference_answer(task).splitlines()) == best == task.hidden["optimum"]
