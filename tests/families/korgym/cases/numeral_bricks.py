"""Cases for 32-numeral_bricks: the solution (as KORGym's repr and as JSON), a grid with one
region a cell bigger and another a cell smaller than its number (refused, though KORGym's
check allows a region up to two cells over), every cell the first letter, a grid of the
wrong size, a grid with a list in a cell (KORGym's verify fails), and text that is no
Python literal."""

import json

FOLDER = "32-numeral_bricks"
MULTI_TURN = False


def solution(item, turn):
    return None if turn else repr(item["sol_board"])


def as_json(item, turn):
    return None if turn else json.dumps(item["sol_board"])


def one_letter(item, turn):
    return None if turn else repr([["a"] * 6 for _ in range(5)])


def list_in_a_cell(item, turn):
    if turn:
        return None
    grid = [list(row) for row in item["sol_board"]]
    grid[4][5] = ["a"]
    return repr(grid)


def plus_sizes(grid, puzzle):
    """Each letter's arm cells if its cells form a plus round its lettered cell, else None."""
    found = {}
    for r, row in enumerate(puzzle):
        for c, letter in enumerate(row):
            if letter == "0":
                continue
            cells = {(i, j) for i in range(5) for j in range(6) if grid[i][j] == letter}
            if any(i != r and j != c for i, j in cells):
                return None
            line = {(r, j) for j in range(6) if (r, j) in cells}
            col = {(i, c) for i in range(5) if (i, c) in cells}
            span = sorted(j for _, j in line)
            down = sorted(i for i, _ in col)
            if (r, c) not in cells or span != list(range(span[0], span[-1] + 1)):
                return None
            if down != list(range(down[0], down[-1] + 1)):
                return None
            found[letter] = len(cells) - 1
    return found


def one_cell_moved(item, turn):
    """The solution with one cell given to a neighbouring region: still plus shapes, one
    region a cell over its number, one a cell short."""
    if turn:
        return None
    solved, puzzle = item["sol_board"], item["puzzle_board"]
    for i in range(5):
        for j in range(6):
            for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if not (0 <= i + di < 5 and 0 <= j + dj < 6):
                    continue
                grid = [list(row) for row in solved]
                grid[i][j] = solved[i + di][j + dj]
                if grid[i][j] != solved[i][j] and plus_sizes(grid, puzzle):
                    return repr(grid)
    return repr(solved)


CASES = [
    {"seed": 0, "policy": solution, "note": "the solution"},
    {"seed": 1, "policy": as_json, "note": "the solution as JSON"},
    {"seed": 6, "policy": one_cell_moved, "note": "a cell moved to the next region"},
    {"seed": 2, "policy": one_letter, "note": "every cell the first letter"},
    {"seed": 3, "actions": [repr([["a"] * 5] * 5)], "note": "a 5x5 grid"},
    {"seed": 4, "policy": list_in_a_cell, "note": "a list in a cell"},
    {"seed": 5, "actions": ["caaaa cabbb"], "note": "no Python literal"},
]
