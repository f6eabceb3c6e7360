"""32-numeral_bricks (control and interaction reasoning): a 5×6 grid holds a few lettered
cells, each with a number; colour every cell with a letter so that each letter's cells are
straight arms in its row and column from its lettered cell (a plus shape), as many cells
beyond the lettered one as its number. Single turn: the answer is the whole grid.

KORGym makes the puzzle by tiling the grid with such plus shapes: it lists every possible
shape (each lettered cell and arm lengths, at least two cells), then backtracks over the
uncovered cell with the fewest shapes left, trying its shapes in a shuffled order. Which
cell that is, among equals, depends on the iteration order of Python sets of cells, so the
search here builds its sets with the same operations in the same order as KORGym's.

KORGym's flaws, kept: its check counts a region's vertical arm one short (the column's
cells without the lettered one, less one) and then accepts a count within one of the
number, so a region passes with from its number to two more arm cells, never fewer; as
every cell must be coloured and no region may fall short, only grids with every region
exactly its number pass, so the miscount changes no score. An answer holding unhashable
cells (lists) makes KORGym's verify fail (an error, scored 0).
"""

from __future__ import annotations

import ast

from engine.core.families.base import SeedRefused
from engine.core.families.korgym.common import KorgymGame, colours, symbol_grid

ROWS, COLS = 5, 6
PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.\"Answer: [['c','a','a',...],"
    "['c','a','b',...]...]\"\n\n"
    "You need to fill the grid by coloring cells based on the numeric mappings. The letter "
    "indicates the color of the cell, and each cell containing a digit indicates the total "
    "number of adjacent cells (including diagonal, horizontal, or vertical directions) that "
    "should be colored starting from that cell. For example, if a cell contains the number "
    "5, you must color exactly 5 cells adjacent to it, forming a path in any combination of "
    "directions. For instance, you might move 3 steps to the right, 1 step up, and 1 step "
    "down from the starting cell, totaling 5 colored cells. You are free to choose the "
    "direction of each segment, but the total number of colored cells must exactly match "
    "the number in the starting cell. Each segment must be a straight line \u2014 once a "
    "direction is chosen, you must continue in that direction without turning.The number "
    "specified in the mapping refers to the number of additional cells to be colored, "
    "excluding the starting cell itself.\nFor example,if the board is \n0a000\n00b00\n"
    "c0000\n00de0\n0f00g\nand a:4 b:2 c:3 d:3 e:1 f:1 g:5\nThe game answer can be\ncaaaa\n"
    "cabbb\nccdeg\ndddeg\nffggg\n{board}\n\n"
)


def _shapes(rows: int, cols: int) -> list[dict]:
    """Every plus shape of at least two cells, in KORGym's order (lettered cell, then arm
    lengths left, right, up, down)."""
    shapes = []
    for r in range(rows):
        for c in range(cols):
            for left in range(c + 1):
                for right in range(cols - c):
                    for up in range(r + 1):
                        for down in range(rows - r):
                            if not (left or right or up or down):
                                continue
                            cells = set()
                            for j in range(c - left, c + right + 1):
                                cells.add((r, j))
                            for i in range(r - up, r + down + 1):
                                cells.add((i, c))
                            shapes.append({"clue": (r, c), "cells": cells, "digit": len(cells) - 1})
    return shapes


def _tile(rows: int, cols: int, shapes: list[dict], rng) -> list[dict] | None:
    board = {(i, j) for i in range(rows) for j in range(cols)}
    by_cell: dict[tuple, list[dict]] = {(i, j): [] for i in range(rows) for j in range(cols)}
    for shape in shapes:
        for cell in shape["cells"]:
            if cell in by_cell:
                by_cell[cell].append(shape)

    def search(covered: set, chosen: list[dict]) -> list[dict] | None:
        if covered == board:
            return chosen
        fewest = None
        for cell in board - covered:
            fitting = [shape for shape in by_cell[cell] if shape["cells"].isdisjoint(covered)]
            if fewest is None or len(fitting) < len(fewest):
                fewest = fitting
            if not fewest:
                return None
        rng.shuffle(fewest)
        for shape in fewest:
            chosen.append(shape)
            if search(covered.union(shape["cells"]), chosen) is not None:
                return chosen
            chosen.pop()
        return None

    return search(set(), [])


def _valid(puzzle: list, clues: dict, answer: list) -> bool:
    """KORGym's check of a full grid (it raises where KORGym's code raises)."""
    rows = len(puzzle)
    if rows == 0:
        return False
    cols = len(puzzle[0])
    if len(answer) != rows or any(len(row) != cols for row in answer):
        return False
    letters = set(clues.keys())
    if any(answer[r][c] not in letters for r in range(rows) for c in range(cols)):
        return False
    for letter, number in clues.items():
        at = [(r, c) for r in range(rows) for c in range(cols) if puzzle[r][c] == letter]
        if len(at) != 1:
            return False
        cr, cc = at[0]
        if answer[cr][cc] != letter:
            return False
        region = {(r, c) for r in range(rows) for c in range(cols) if answer[r][c] == letter}
        if any(r != cr and c != cc for r, c in region):
            return False
        across = set()
        c = cc
        while c >= 0 and answer[cr][c] == letter:
            across.add((cr, c))
            c -= 1
        c = cc + 1
        while c < cols and answer[cr][c] == letter:
            across.add((cr, c))
            c += 1
        down = set()
        r = cr - 1
        while r >= 0 and answer[r][cc] == letter:
            down.add((r, cc))
            r -= 1
        r = cr + 1
        while r < rows and answer[r][cc] == letter:
            down.add((r, cc))
            r += 1
        if across | down != region:
            return False
        if abs(len(across) - 1 + len(down) - 1 - number) > 1:
            return False
    return True


class NumeralBricks(KorgymGame):
    name = "numeral_bricks"
    folder = "32-numeral_bricks"
    title = "Numeric Bricks"
    dimension = "CIR"
    answer_format = "the grid as a list of rows of letters, e.g. [['c','a','a'],['c','a','b']]"

    def generate(self, seed, rng):
        rng.seed(seed)
        tiling = None
        for _ in range(50):
            tiling = _tile(ROWS, COLS, _shapes(ROWS, COLS), rng)
            if tiling is not None:
                break
        if tiling is None:
            # KORGym's generator crashes here; the platform draws another seed instead.
            raise SeedRefused(f"KORGym finds no tiling for seed {seed}: draw another")
        solved = [["" for _ in range(COLS)] for _ in range(ROWS)]
        puzzle = [["0" for _ in range(COLS)] for _ in range(ROWS)]
        clues = {}
        for index, shape in enumerate(tiling):
            letter = chr(97 + index)
            clues[letter] = shape["digit"]
            for i, j in shape["cells"]:
                solved[i][j] = letter
            r, c = shape["clue"]
            puzzle[r][c] = letter
        return {
            "sol_board": solved,
            "puzzle_board": puzzle,
            "clues": clues,
            "prompt": "\n".join("".join(row) for row in puzzle),
            "score": 0,
            "is_end": False,
            "response": [],
            "action": "",
            "epoch": 1,
        }

    def board(self, item):
        text = "Board:\n" + "\n".join("".join(row) for row in item["puzzle_board"]) + "\n\n"
        if item["clues"]:
            text += " Mapping (Letter : Number, where Number = Expansion Grid Count)\uff1a\n"
            for letter in sorted(item["clues"]):
                text += f"{letter} : {item['clues'][letter]}\n"
        return PROMPT.format(board=text)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            answer = ast.literal_eval(action)
        except Exception:
            item["score"] = 0
            return item
        puzzle = item["puzzle_board"]
        shaped = (
            isinstance(answer, list)
            and len(answer) == len(puzzle)
            and all(isinstance(row, list) and len(row) == len(puzzle[0]) for row in answer)
        )
        try:
            item["score"] = 1 if shaped and _valid(puzzle, item["clues"], answer) else 0
        except Exception:  # KORGym's verify fails: eval.py scores the turn 0
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        """The letters' starting cells, each with the count of cells it grows by."""
        clues = item["clues"]
        tones = colours(clues)
        tones["0"] = "empty"
        texts = {"0": ""} | {letter: f"{letter}{count}" for letter, count in clues.items()}
        labels = {"0": "empty"} | {
            letter: f"{letter}: grows by {count}" for letter, count in clues.items()
        }
        return symbol_grid(
            item["puzzle_board"],
            tones,
            texts=texts,
            labels=labels,
            caption="Letter and the number of cells it grows by",
        )

    def reference(self, item, rng):
        return [repr(item["sol_board"])]


GAME = NumeralBricks()
