"""Cases for 15-emoji_connect: the right count (also with spaces and a plus sign, which
KORGym's int() accepts), a wrong count, a word, and an empty action."""

from itertools import pairwise

FOLDER = "15-emoji_connect"
MULTI_TURN = False


def _count(board):
    lines = [list(row) for row in board] + [list(col) for col in zip(*board, strict=True)]
    total = 0
    for line in lines:
        run = 1
        for a, b in pairwise(line):
            if a == b:
                run += 1
            else:
                total += run >= 2
                run = 1
        total += run >= 2
    return total


def right(item, turn):
    return None if turn else str(_count(item["board"]))


def signed(item, turn):
    return None if turn else f" +{_count(item['board'])} "


def off_by_one(item, turn):
    return None if turn else str(_count(item["board"]) + 1)


CASES = [
    {"seed": 0, "policy": right, "note": "the right count"},
    {"seed": 5, "policy": right, "note": "the right count, another board size"},
    {"seed": 11, "policy": signed, "note": "the right count with a sign and spaces"},
    {"seed": 1, "policy": off_by_one, "note": "one too many"},
    {"seed": 2, "actions": ["twelve"], "note": "a word, not a number"},
    {"seed": 3, "actions": [""], "note": "nothing read from the reply"},
]
