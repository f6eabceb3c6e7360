"""Cases for 38-minesweeper: every mine flagged (a win), a game of uncovering (an empty
region, a numbered cell next to one), a wrong flag taken back, a right flag and then a mine
uncovered (the end, with the flag's score), and actions KORGym reads oddly. The mine map
is KORGym's server's; the policies rebuild it from the seed as KORGym's generate does."""

import random

FOLDER = "38-minesweeper"
MULTI_TURN = True


def mine_map(seed):
    rng = random.Random(seed)
    n = rng.randint(10, 20)
    mines = rng.sample([(i, j) for i in range(n) for j in range(n)], rng.randint(10, 2 * n))
    return n, set(mines)


def count(n, mines, i, j):
    return sum((i + a, j + b) in mines for a in (-1, 0, 1) for b in (-1, 0, 1))


def flag_all(item, turn):
    n, mines = mine_map(item["seed"])
    mines = sorted(mines)
    return f"flag ({mines[turn][0]},{mines[turn][1]})" if turn < len(mines) else None


def explore(item, turn):
    n, mines = mine_map(item["seed"])
    mask = item["mask"]
    unknown = [(i, j) for i in range(n) for j in range(n) if mask[i][j] == "?"]
    safe = [c for c in unknown if c not in mines]
    empty = [c for c in safe if count(n, mines, *c) == 0]
    numbered = [c for c in safe if count(n, mines, *c) > 0]
    mine = sorted(mines)
    corner = max(c for c in ((i, j) for i in range(n) for j in range(n)) if c not in mines)
    plan = [
        ("uncover", empty[len(empty) // 2] if empty else safe[0]),
        ("uncover", numbered[0]),
        ("flag", corner),
        ("unflag", corner),
        ("flag", mine[0]),
        ("uncover", mine[1]),
    ]
    if turn >= len(plan):
        return None
    command, (i, j) = plan[turn]
    return f"{command} ({i},{j})"


CASES = [
    {"seed": 0, "policy": flag_all, "note": "every mine flagged"},
    {"seed": 1, "policy": explore, "note": "uncovering, a flag taken back, then a mine"},
    {"seed": 4, "policy": explore, "note": "uncovering, a flag taken back, then a mine"},
    {
        "seed": 2,
        "actions": [
            "uncover 3,4",
            "UNCOVER (3, 4)",
            "uncover  (1,1)",
            "reveal (2,2)",
            "flag (99,99)",
            "flag (-1,0)",
            "",
            "uncover (1,2,3)",
            "uncover (3,4)",
            "unflag (0,0)",
            "flag(0,0)",
        ],
        "note": "odd actions",
    },
]
