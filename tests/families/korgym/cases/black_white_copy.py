"""Cases for 7-black_white_copy: a shortest painting, the same with True for index 1
(accepted), one operation over the limit, a wrong pattern, a repeated operation, an index
out of range, a whole-number float for a diagonal (accepted) and for a row (KORGym's code
fails: 0), a text index (fails), tuples instead of lists, an empty answer and no literal."""

FOLDER = "7-black_white_copy"
MULTI_TURN = False
SHORTEST_0 = (
    "[['diagonal_black', 9], ['diagonal_black', 8], ['diagonal_black', 1], ['line', 1], "
    "['row', 5], ['line', 4]]"
)

CASES = [
    {"seed": 0, "actions": [SHORTEST_0], "note": "a shortest painting"},
    {
        "seed": 0,
        "actions": [SHORTEST_0.replace("1]", "True]")],
        "note": "True as index 1",
    },
    {
        "seed": 1,
        "actions": ["[['diagonal_black', 10], ['diagonal_black', 7], ['row', 0]]"],
        "note": "over the limit",
    },
    {"seed": 3, "actions": ["[['line', 3], ['line', 5]]"], "note": "a wrong pattern"},
    {
        "seed": 4,
        "actions": ["[['diagonal_black', 10], ['diagonal_black', 10]]"],
        "note": "a repeated operation",
    },
    {"seed": 2, "actions": ["[['line', 6]]"], "note": "an index out of range"},
    {
        "seed": 1,
        "actions": ["[['diagonal_black', 10.0], ['diagonal_black', 7]]"],
        "note": "a float index for a diagonal",
    },
    {
        "seed": 3,
        "actions": ["[['diagonal_black', 2], ['line', 3], ['row', 4.0], ['line', 5]]"],
        "note": "a float index for a row (KORGym fails)",
    },
    {"seed": 3, "actions": ["[['line', '3']]"], "note": "a text index (KORGym fails)"},
    {
        "seed": 4,
        "actions": ["[('diagonal_black', 10), ('diagonal_black', 8)]"],
        "note": "tuples",
    },
    {"seed": 5, "actions": [""], "note": "an empty answer"},
    {"seed": 5, "actions": ["line 3, row 2"], "note": "no literal"},
]
