"""Cases for 45-free_the_key: a way out (found by the project's solver, played through
KORGym), the start of one, actions KORGym ignores or refuses (nothing and three words keep
the starting score 1; an unknown block, a block moved across its axis, the key moved up),
and a block slid onto the exit and off again, which loses the exit."""

import sys
from pathlib import Path

FOLDER = "45-free_the_key"
MULTI_TURN = True
PLANS = {}


def _plan(item):
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
    from engine.core.families.korgym.games.free_the_key import solve

    return solve(item["board"], item["bricks"], item["key_pos"])


def _playing(name, cut=None):
    def policy(item, turn):
        if turn == 0:
            PLANS[name] = _plan(item)[:cut]
        plan = PLANS[name]
        return plan[turn] if turn < len(plan) else None

    return policy


CASES = [
    {"seed": 0, "policy": _playing("out"), "note": "a way out"},
    {
        "seed": 1,
        "actions": ["", "1 right now", "X up", "A left", "1 up", "a   DOWN"],
        "note": "nothing, three words, an unknown block, across its axis, the key up, spaces",
    },
    {"seed": 2, "policy": _playing("start", 3), "note": "three moves of a way out"},
    {
        "seed": 19,
        "actions": ["E up", "E down", "A up"],
        "note": "no way out (KORGym's own solver agrees); a block over the exit and off it",
    },
    {"seed": 3, "policy": _playing("again"), "note": "another way out"},
]
