"""Cases for 35-pipe_game: a way through (found by the project's solver, judged by
KORGym), KORGym's own all-zero "answer", a list of the wrong shape, text that is no
Python literal, a rotation that is not a number (KORGym's check fails), and a grid with no
way through."""

import sys
from pathlib import Path

FOLDER = "35-pipe_game"
MULTI_TURN = False


def _solve(grid):
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
    from engine.core.families.korgym.games.pipe_game import solve

    return solve(grid)


def through(item, turn):
    return None if turn else str(_solve(item["puzzle_grid"]))


def korgym_answer(item, turn):
    return None if turn else item["answer"]


def not_a_number(item, turn):
    if turn:
        return None
    turns = _solve(item["puzzle_grid"])
    turns[0][0] = None
    return str(turns)


CASES = [
    {"seed": 0, "policy": through, "note": "a way through"},
    {"seed": 1, "policy": korgym_answer, "note": "KORGym's stored answer, all zeros"},
    {"seed": 2, "actions": ["[[0, 1], [1, 0]]"], "note": "a list of the wrong shape"},
    {"seed": 3, "actions": ["rotate the corner twice"], "note": "no Python literal"},
    {"seed": 4, "policy": not_a_number, "note": "None where the water enters"},
    {"seed": 21, "policy": korgym_answer, "note": "a grid with no way through"},
    {"seed": 7, "policy": through, "note": "another way through"},
]
