"""Cases for 13-play_lines: the generator's filled board with its numbers as text (wins),
the same board with bare numbers (KORGym compares with its pairs' numbers as text: 0),
text that is not a Python list, and the winning board with an extra row (KORGym's
no-branching check takes the row count as the size and crashes on the short rows).
KORGym's generator takes minutes per seed, so the cases are few."""

FOLDER = "13-play_lines"
MULTI_TURN = False

SEED0 = [
    ["1", "1", "3", "3", "3"],
    ["2", "1", "1", "1", "3"],
    ["2", "3", "3", "1", "3"],
    ["2", "2", "3", "3", "3"],
    ["X", "2", "2", "2", "2"],
]
SEED1 = [
    ["2", "2", "2", "2", "2"],
    ["2", "X", "3", "3", "2"],
    ["2", "3", "3", "1", "2"],
    ["2", "2", "1", "1", "2"],
    ["1", "1", "1", "2", "2"],
]
SEED1_NUMBERS = [[cell if cell == "X" else int(cell) for cell in row] for row in SEED1]

CASES = [
    {"seed": 0, "actions": [str(SEED0)], "note": "the filled board, numbers as text"},
    {"seed": 1, "actions": [str(SEED1_NUMBERS)], "note": "the filled board, bare numbers"},
    {"seed": 2, "actions": ["2 2 1 1 1 / 2 X 1 X 1"], "note": "not a Python list"},
    {
        "seed": 0,
        "actions": [str([*SEED0, ["X"] * 5])],
        "note": "the filled board and an extra row: KORGym crashes",
    },
]
