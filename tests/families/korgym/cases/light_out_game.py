"""Cases for 5-light_out_game: a fewest-press solution (3×3 and 4×4), one press short,
the prompt's own Example 3 spacing (no ")," to split at), a press off the board, garbled
text and an empty answer."""

FOLDER = "5-light_out_game"
MULTI_TURN = False


def _solve(board):
    n = len(board)
    cells = [(i, j) for i in range(n) for j in range(n)]
    best = None
    for mask in range(1 << (n * n)):
        lights = [row[:] for row in board]
        pressed = [cells[k] for k in range(n * n) if mask >> k & 1]
        if best is not None and len(pressed) >= len(best):
            continue
        for i, j in pressed:
            for r, c in ((i, j), (i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
                if 0 <= r < n and 0 <= c < n:
                    lights[r][c] ^= 1
        if not any(any(row) for row in lights):
            best = pressed
    return best


def solved(item, turn):
    return None if turn else ", ".join(f"({i},{j})" for i, j in _solve(item["board"]))


def one_short(item, turn):
    return None if turn else ", ".join(f"({i},{j})" for i, j in _solve(item["board"])[:-1])


def example_three_spacing(item, turn):
    return None if turn else " ,".join(f"({i},{j})" for i, j in _solve(item["board"]))


CASES = [
    {"seed": 0, "policy": solved, "note": "a fewest-press solution"},
    {"seed": 1, "policy": solved, "note": "a fewest-press solution"},
    {"seed": 5, "policy": solved, "note": "a fewest-press solution"},
    {"seed": 2, "policy": one_short, "note": "one press short"},
    {"seed": 3, "policy": example_three_spacing, "note": "spaced as the prompt's Example 3"},
    {"seed": 4, "actions": ["(0,0), (5,5)"], "note": "a press off the board"},
    {"seed": 6, "actions": ["press the middle one"], "note": "garbled text"},
    {"seed": 7, "actions": [""], "note": "nothing read from the reply"},
    {"seed": 8, "actions": ["(0," + "1" * 4301 + ")"], "note": "a number too long for int"},
]
