"""Cases for 39-Nullify: three puzzles solved by undoing their construction (one through
ceil), and on another illegal pairs (the same unit twice, two operators, out of range,
negative), text that is not two integers, then legal moves down to a last unit that is not
0 (a loss)."""

FOLDER = "39-Nullify"
MULTI_TURN = True

CASES = [
    {"seed": 2, "actions": ["1 2", "2 0", "1 0"], "note": "solved"},
    {"seed": 6, "actions": ["1 4", "3 1", "2 1", "1 0"], "note": "solved"},
    {"seed": 10, "actions": ["3 0", "2 1", "1 0"], "note": "solved through ceil"},
    {
        "seed": 1,
        "actions": [
            "0 0",
            "2 4",
            "9 1",
            "-1 2",
            "a b",
            "1",
            "",
            "0 1 2",
            "0 1",
            "0 1",
            "1 2",
            "1 2",
            "0 1",
        ],
        "note": "illegal pairs, unreadable actions, then a last unit that is not 0",
    },
]
