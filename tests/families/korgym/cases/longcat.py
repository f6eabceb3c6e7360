"""Cases for 6-LongCat: a filling list of slides, the same with capitals, unknown words and
a slide that crosses nothing (all skipped), a list that leaves cells empty, a tuple that
fills the board, text that is no literal, a list of numbers and a filling list followed by
a number (KORGym's code fails on both: 0)."""

FOLDER = "6-LongCat"
MULTI_TURN = False

CASES = [
    {
        "seed": 1,
        "actions": ["['left', 'up', 'left', 'up', 'right', 'down', 'left', 'down', 'right']"],
        "note": "a filling list",
    },
    {
        "seed": 2,
        "actions": ["['DOWN', 'jump', 'left', 'left', 'Up', 'right', 'down']"],
        "note": "capitals, an unknown word and an empty slide",
    },
    {"seed": 4, "actions": ["['down', 'left']"], "note": "cells left empty"},
    {
        "seed": 8,
        "actions": ["('right', 'up', 'left', 'down', 'left', 'up', 'left', 'up')"],
        "note": "a filling tuple",
    },
    {"seed": 6, "actions": ["right, up, left"], "note": "no literal"},
    {"seed": 6, "actions": ["[1, 2]"], "note": "numbers (KORGym fails)"},
    {
        "seed": 7,
        "actions": ["['up', 'left', 'down', 'right', 'up', 'right', 5]"],
        "note": "filled, then a number (KORGym fails)",
    },
]
