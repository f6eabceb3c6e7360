"""Cases for 11-maze: shortest paths (from the game's reference, scored here by KORGym's own
verifier), a path that passes the end and comes back with the same word as its last move
(KORGym lets it go on), one that passes it with another word, a step into a wall, a path
that stops short, moves that are not a Python list, and a number (which crashes KORGym's
verifier). The maze's size comes from the global generator before KORGym seeds it, so each
case seeds the global generator with its own seed (``global_seed``)."""

FOLDER = "11-maze"
MULTI_TURN = False

SEED0 = ["right", "right", "down", "down", "right", "right", "right", "right", "down", "down"]
SEED0 += ["right", "right", "down", "down", "down", "down"]
SEED1 = ["right", "right", "down", "down", "right", "right", "down", "down"]

CASES = [
    {"seed": 0, "global_seed": 0, "actions": [str(SEED0)], "note": "a shortest path, 9×9"},
    {"seed": 1, "global_seed": 1, "actions": [str(SEED1)], "note": "a shortest path, 5×5"},
    {
        "seed": 0,
        "global_seed": 0,
        "actions": [str(SEED0 + ["up", "down"])],
        "note": "at the end by 'down', out and back by 'down' (the last word): KORGym goes on",
    },
    {
        "seed": 0,
        "global_seed": 0,
        "actions": [str(SEED0 + ["up"])],
        "note": "at the end by 'down' before a last 'up'",
    },
    {"seed": 2, "global_seed": 2, "actions": ["['right', 'down']"], "note": "into a wall"},
    {"seed": 3, "global_seed": 3, "actions": ["['right','right']"], "note": "stops short"},
    {"seed": 4, "global_seed": 4, "actions": ["up, down, left"], "note": "not a Python list"},
    {"seed": 5, "global_seed": 5, "actions": ["5"], "note": "a number: KORGym crashes"},
    {"seed": 6, "global_seed": 6, "actions": ["[]"], "note": "no moves"},
]
