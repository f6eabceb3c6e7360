"""Cases for 40-CircleTheCat-Text: won lines (found by the project's planner, played
through KORGym), actions KORGym only counts as a turn (no numbers, the cat's cell, outside
the board, three numbers), a wall on an exit (which KORGym accepts), and walls far from
the cat until it escapes."""

import sys
from pathlib import Path

FOLDER = "40-CircleTheCat-Text"
MULTI_TURN = True
PLANS = {}


def _winning(name):
    def policy(item, turn):
        if turn == 0:
            sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
            from engine.core.families.korgym.games.circlethecat_text import plan

            PLANS[name] = plan({**item, "is_end": False})
        line = PLANS[name]
        return line[turn] if turn < len(line) else None

    return policy


def far_walls(item, turn):
    """Walls on the bottom row's empty cells, right to left: the cat walks out."""
    if turn >= 30:
        return None
    row = item["board"][10]
    empty = [c for c in range(10, -1, -1) if row[c] == "0"]
    return f"10 {empty[0]}" if empty else None


CASES = [
    {"seed": 1, "policy": _winning("one"), "note": "a won line"},
    {
        "seed": 3,
        "actions": ["wall at three four", "5 5", "12 3", "3 4 5", "-1 2", "0 1"],
        "note": "no numbers, the cat's cell, outside, three numbers, negative, an exit",
    },
    {"seed": 4, "policy": far_walls, "note": "walls far away; the cat escapes"},
    {"seed": 2, "policy": _winning("two"), "note": "another won line"},
]
