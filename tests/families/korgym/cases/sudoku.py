"""Cases for 4-SudoKu: the stored solution (each difficulty), one with two digits swapped
in a row (a repeated digit in two columns), the clues alone, a row of text among numbers
(KORGym's sort raises: a server error), garbled text and an empty answer."""

FOLDER = "4-SudoKu"
MULTI_TURN = False


def solved(item, turn):
    return None if turn else str(item["solution"])


def swapped(item, turn):
    grid = [row[:] for row in item["solution"]]
    grid[0][0], grid[0][1] = grid[0][1], grid[0][0]
    return None if turn else str(grid)


def clues_only(item, turn):
    return None if turn else str(item["current_board"])


def with_text(item, turn):
    grid = [row[:] for row in item["solution"]]
    for i in range(9):
        for j in range(9):
            if item["current_board"][i][j] == 0:
                grid[i][j] = "x"
                return None if turn else str(grid)
    return None


CASES = [
    {"seed": 0, "policy": solved, "note": "the solution"},
    {"seed": 1, "policy": solved, "note": "the solution"},
    {"seed": 2, "policy": solved, "note": "the solution"},
    {"seed": 3, "policy": swapped, "note": "two digits of the first row swapped"},
    {"seed": 4, "policy": clues_only, "note": "the puzzle itself, zeros left in"},
    {"seed": 5, "policy": with_text, "note": "a text cell where a digit belongs"},
    {"seed": 6, "actions": ["I cannot solve this"], "note": "garbled text"},
    {"seed": 7, "actions": [""], "note": "nothing read from the reply"},
]
