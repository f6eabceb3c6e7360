"""Cases for 26-TrustRovolution: a whole game of cheating against the "random" opponent
(the most points it allows), two major rounds of the best play against "stubborn"
(collaborate seven times, then cheat), ten turns of collaborating with a "grudger", and
actions KORGym reads oddly: unknown words and "" (nothing happens), "Answer: cheat" (read
after the prefix), "answer: collaborate" (its code fails: the evaluator zeroes the score),
mixed case and spaces."""

FOLDER = "26-TrustRovolution"
MULTI_TURN = True


def always_cheat(item, turn):
    return "cheat"


def seven_then_cheat(item, turn):
    if turn >= 16:
        return None
    return "cheat" if item["minor_round"] == 8 else "collaborate"


def collaborate(item, turn):
    return None if turn >= 10 else "collaborate"


CASES = [
    {"seed": 9, "policy": always_cheat, "note": "a whole game against the random opponent"},
    {"seed": 0, "policy": seven_then_cheat, "note": "the best play against stubborn"},
    {"seed": 3, "policy": collaborate, "note": "collaborating with a grudger"},
    {
        "seed": 5,
        "actions": [
            "cheat",
            "dance",
            "",
            "Answer: cheat",
            "answer: collaborate",
            " COLLABORATE ",
            "answer: x Answer: cheat",
            "cheat",
        ],
        "note": "unknown, prefixed and failing actions against the detective",
    },
]
