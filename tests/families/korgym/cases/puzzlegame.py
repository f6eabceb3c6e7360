"""Cases for 23-puzzlegame: winning moves (found by the game's reference and checked here
against KORGym's own verifier), legal moves that leave the tile elsewhere, a tile not beside
the empty cell, a number not on the board, a word, and an empty answer."""

FOLDER = "23-puzzlegame"
MULTI_TURN = False

CASES = [
    {"seed": 0, "actions": ["5 1 13 8 1 6 3 1"], "note": "a winning sequence, 4×4"},
    {"seed": 3, "actions": ["2 8 5 1 6 2"], "note": "a winning sequence, 3×3"},
    {"seed": 4, "actions": ["  1 3 6 1 "], "note": "a winning sequence with spaces around"},
    {"seed": 4, "actions": ["1 3"], "note": "legal moves, tile not on its cell"},
    {"seed": 1, "actions": ["8 7"], "note": "7 is not beside the empty cell after 8"},
    {"seed": 2, "actions": ["9"], "note": "a number not on a 3×3 board"},
    {"seed": 7, "actions": ["left up"], "note": "words, not tiles"},
    {"seed": 5, "actions": [""], "note": "nothing read from the reply"},
]
