"""Cases for 27-NpointPlus: a whole game against "careful" (hitting while 10 or more below
N), twelve turns of standing against "stubborn" (whose hitting goes on after the player
stands), and actions KORGym ignores or reads loosely against "repeat": "" and an unknown
word (nothing happens), "Hit" and " HIT " (read as hit), then play after standing."""

FOLDER = "27-NpointPlus"
MULTI_TURN = True
VALUES = {"A": 1, "J": 11, "Q": 12, "K": 13}


def total(cards):
    return sum(VALUES.get(card) or int(card) for card in cards)


def cautious(item, turn):
    return "hit" if total(item["player_cards"]) < item["n"] - 10 else "stand"


def standing(item, turn):
    return None if turn >= 12 else "stand"


CASES = [
    {"seed": 1, "policy": cautious, "note": "a whole game against careful"},
    {"seed": 2, "policy": standing, "note": "standing against stubborn"},
    {
        "seed": 0,
        "actions": ["", "draw", " HIT ", "Hit", "stand", "hit", "stand", "stand", "hit"],
        "note": "ignored and loosely read actions against repeat",
    },
]
