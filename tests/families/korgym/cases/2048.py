"""Cases for 3-2048: KORGym's app is driven for 30 turns (its games never end before the
100th), by a policy that cycles through the swipes, by one that swipes left only (a swipe
that moves nothing still adds a tile), and by garbled actions, which KORGym replaces with a
random swipe (mixed case and spaces are read as the swipe)."""

FOLDER = "3-2048"
MULTI_TURN = True
CYCLE = ["UP", "LEFT", "DOWN", "RIGHT"]


def cycling(item, turn):
    return None if turn >= 30 else CYCLE[turn % 4]


def left_only(item, turn):
    return None if turn >= 30 else "LEFT"


CASES = [
    {"seed": 0, "policy": cycling, "note": "cycling through the swipes"},
    {"seed": 1, "policy": left_only, "note": "left only, until the board is full"},
    {
        "seed": 2,
        "actions": ["  down ", "Left", "jump", "", "UP RIGHT", "rIgHt", "3", "down"],
        "note": "mixed case, spaces and garbled actions",
    },
]
