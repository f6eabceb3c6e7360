"""Cases for 12-sokoban: winning walks (from the game's reference, scored here by KORGym's
own verifier), a win followed by more moves (KORGym stops at the win), a winning walk with
unknown words mixed in (KORGym skips them), a walk that stops halfway, moves into walls,
text that is not a Python list, and a number (which crashes KORGym's verifier)."""

FOLDER = "12-sokoban"
MULTI_TURN = False

SEED0 = ["up", "right", "right", "up", "right", "down", "down"]
SEED1 = ["right", "right", "right", "right", "right", "down", "down", "left", "left"]
SEED5 = [
    "right", "down", "right", "right", "right", "down", "down", "left", "up", "left", "up",
    "left", "left", "down", "down", "down", "down", "right", "right", "up", "right", "up",
    "up", "left", "left", "left", "right", "right", "up", "right", "down", "right", "up",
]  # fmt: skip

CASES = [
    {"seed": 0, "actions": [str(SEED0)], "note": "a winning walk, two boxes"},
    {"seed": 1, "actions": [str(SEED1)], "note": "a winning walk, one box"},
    {"seed": 5, "actions": [str(SEED5)], "note": "a winning walk, three boxes"},
    {"seed": 4, "actions": ["['down', 'up', 'up', 'left']"], "note": "a win, then more moves"},
    {
        "seed": 0,
        "actions": [str(["north", *SEED0[:3], 7, "Up", *SEED0[3:]])],
        "note": "unknown words among the winning moves",
    },
    {"seed": 5, "actions": [str(SEED5[:12])], "note": "stops halfway"},
    {"seed": 2, "actions": ["['up', 'up', 'left', 'left', 'left']"], "note": "into walls"},
    {"seed": 3, "actions": ["up, up, left"], "note": "not a Python list"},
    {"seed": 6, "actions": ["7"], "note": "a number: KORGym crashes"},
]
