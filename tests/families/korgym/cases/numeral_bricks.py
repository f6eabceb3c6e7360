"""Cases for 32-numeral_bricks: the solution (as KORGym's repr and as JSON), every cell the
first letter, a grid of the wrong size, a grid with a list in a cell (KORGym's verify
fails), and text that is no Python literal."""

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


CASES = [
    {"seed": 0, "policy": solution, "note": "the solution"},
    {"seed": 1, "policy": as_json, "note": "the solution as JSON"},
    {"seed": 2, "policy": one_letter, "note": "every cell the first letter"},
    {"seed": 3, "actions": [repr([["a"] * 5] * 5)], "note": "a 5x5 grid"},
    {"seed": 4, "policy": list_in_a_cell, "note": "a list in a cell"},
    {"seed": 5, "actions": ["caaaa cabbb"], "note": "no Python literal"},
]
