"""Cases for 24-snake: 30 (and 12) turns round a cycle through every inner cell (apples eaten, new
ones drawn), straight up into the wall, a reversal (ignored) then lower-case and spaced
directions, and a garbled direction (the head stays: a collision)."""

FOLDER = "24-snake"
MULTI_TURN = True
MOVES = {(0, -1): "LEFT", (0, 1): "RIGHT", (-1, 0): "UP", (1, 0): "DOWN"}


def cycle_next(i, j):
    if j == 1 and i > 1:
        return i - 1, 1
    if i == 1:
        return (1, j + 1) if j < 6 else (2, 6)
    if i == 6:
        return 6, j - 1
    if i % 2:
        return (i, j + 1) if j < 6 else (i + 1, 6)
    return (i, j - 1) if j > 2 else (i + 1, 2)


def round_the_cycle(item, turn, turns=30):
    if turn >= turns:
        return None
    i, j = item["snake"][-1]
    ni, nj = cycle_next(i, j)
    return MOVES[(ni - i, nj - j)]


CASES = [
    {"seed": 0, "policy": round_the_cycle, "note": "30 turns round the cycle"},
    {"seed": 7, "policy": lambda item, turn: round_the_cycle(item, turn, 12), "note": "12 turns"},
    {"seed": 1, "actions": ["UP", "UP", "UP", "UP"], "note": "straight into the wall"},
    {
        "seed": 2,
        "actions": ["DOWN", " left ", "down", "Right", "UP", "up"],
        "note": "a reversal, then lower case and spaces",
    },
    {"seed": 3, "actions": ["LEFT", "go north"], "note": "a garbled direction"},
]
