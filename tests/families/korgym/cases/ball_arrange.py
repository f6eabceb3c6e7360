"""Cases for 31-ball_arrange: a solution (found by the project's solver, played through
KORGym), the start of one, actions KORGym ignores (not two letters, an unknown tube, an
illegal move, lower case), and a tube moved onto itself until KORGym's server fails."""

import sys
from pathlib import Path

FOLDER = "31-ball_arrange"
MULTI_TURN = True


def _plan(item):
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
    from engine.core.families.korgym.games.ball_arrange import solve

    return [chr(65 + src) + chr(65 + dst) for src, dst in solve(item["state"])]


PLANS = {}


def solution(item, turn):
    if turn == 0:
        PLANS["solution"] = _plan(item)
    plan = PLANS["solution"]
    return plan[turn] if turn < len(plan) else None


def three_moves(item, turn):
    if turn == 0:
        PLANS["three"] = _plan(item)[:3]
    plan = PLANS["three"]
    return plan[turn] if turn < len(plan) else None


def self_moves(item, turn):
    empty = chr(65 + len(item["state"]) - 1)
    if turn == 0:
        return "a " + empty.lower()
    return empty + empty if turn <= 4 else None


CASES = [
    {"seed": 0, "policy": solution, "note": "a solution"},
    {"seed": 1, "policy": three_moves, "note": "three moves of a solution"},
    {
        "seed": 2,
        "actions": ["A to F", "", "AZ", "AB", "Answer: AF", "a\tf"],
        "note": "not two letters, nothing, an unknown tube, an illegal move, a tab",
    },
    {"seed": 3, "policy": self_moves, "note": "a ball raised in its own tube off the top"},
    {"seed": 4, "policy": solution, "note": "another solution"},
]
