"""4-SudoKu (mathematical and logical reasoning): a 9×9 Sudoku; single turn, 1 for a full
grid (a Python list of nine lists of nine) that keeps every clue and has 1–9 in every row,
column and 3×3 block, else 0.

KORGym's generator: a difficulty drawn from easy / moderate / difficult; a fixed pattern
grid shuffled 8–15 times (swap two digits, then two rows within one band); then cells
emptied one at a time at random places (up to 4,500 tries) when the emptied cell has a
single candidate left, 32 for easy and up to 81 otherwise; then moderate and difficult
also empty the first 5 or 8 filled cells in reading order. KORGym checks each of those
last removals with a backtracking solver, which always succeeds (the grid came from a
solution), so nothing is drawn there and the check is left out here.

The answer is read with ``ast.literal_eval``. Any valid completion scores 1, not only the
stored solution (moderate and difficult puzzles may have several). A grid whose rows mix
numbers and text makes KORGym's sort raise (a server error, which its evaluator scores 0);
here it scores 0.

Flaws of KORGym's code: the prompt's format example is ``'Answer: happy'`` (left from
another game) before the Sudoku instructions give the right one; numbers given as floats
(``1.0``) are accepted as digits.
"""

from __future__ import annotations

import ast

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame, new_item

SIZE = 9
BOX = 3
# Cells emptied by logic, then in reading order, for each difficulty (KORGym's table).
CUTOFFS = {"easy": (32, 0), "moderate": (81, 5), "difficult": (81, 8)}
PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: happy'\n\n{board}\n"
)
INSTRUCTIONS = (
    "Please solve this Sudoku puzzle. Fill in the empty cells (marked as 0) "
    "with numbers 1-9 so that each row, column, and 3x3 block contains "
    "all numbers from 1 to 9 without repetition.\n\n"
    "Please provide your solution in exactly the same format as above, "
    "i.e., a 9x9 grid where each row is a list of numbers. "
    "Example format: Answer: [[1, 2, 3, 4, 5, 6, 7, 8, 9],[4, 5, 6, 7, 8, 9, 1, 2, 3],...]\n"
    "Current Sudoku board:\n"
)


def _candidates(grid: list[list[int]], row: int, col: int) -> set[int]:
    seen = set(grid[row]) | {grid[i][col] for i in range(SIZE)}
    top, left = row // BOX * BOX, col // BOX * BOX
    seen |= {grid[i][j] for i in range(top, top + BOX) for j in range(left, left + BOX)}
    return set(range(1, SIZE + 1)) - seen


def _solution(rng) -> list[list[int]]:
    grid = [[(i * BOX + i // BOX + j) % SIZE + 1 for j in range(SIZE)] for i in range(SIZE)]
    for _ in range(rng.randint(8, 15)):
        first = rng.randint(1, SIZE)
        second = rng.randint(1, SIZE)
        while second == first:
            second = rng.randint(1, SIZE)
        swap = {first: second, second: first}
        grid = [[swap.get(value, value) for value in row] for row in grid]
        band = rng.randint(0, BOX - 1)
        a = rng.randint(0, BOX - 1) + band * BOX
        b = rng.randint(0, BOX - 1) + band * BOX
        while b == a:
            b = rng.randint(0, BOX - 1) + band * BOX
        grid[a], grid[b] = grid[b], grid[a]
    return grid


def _puzzle(solution: list[list[int]], difficulty: str, rng) -> list[list[int]]:
    grid = [row[:] for row in solution]
    by_logic, in_order = CUTOFFS[difficulty]
    removed = 0
    for _ in range(SIZE * 500):
        if removed >= by_logic:
            break
        i = rng.randint(0, SIZE - 1)
        j = rng.randint(0, SIZE - 1)
        if grid[i][j] == 0:
            continue
        kept, grid[i][j] = grid[i][j], 0
        if len(_candidates(grid, i, j)) == 1:
            removed += 1
        else:
            grid[i][j] = kept
    removed = 0
    for i in range(SIZE):
        for j in range(SIZE):
            if removed >= in_order:
                return grid
            if grid[i][j] != 0:
                grid[i][j] = 0
                removed += 1
    return grid


def _solves(answer, clues: list[list[int]]) -> bool:
    if not isinstance(answer, list) or len(answer) != SIZE:
        return False
    if any(not isinstance(row, list) or len(row) != SIZE for row in answer):
        return False
    for i in range(SIZE):
        for j in range(SIZE):
            if clues[i][j] != 0 and clues[i][j] != answer[i][j]:
                return False
    units = [list(row) for row in answer]
    units += [[answer[i][j] for i in range(SIZE)] for j in range(SIZE)]
    units += [
        [answer[i][j] for i in range(top, top + BOX) for j in range(left, left + BOX)]
        for top in range(0, SIZE, BOX)
        for left in range(0, SIZE, BOX)
    ]
    return all(sorted(unit) == list(range(1, SIZE + 1)) for unit in units)


class Sudoku(KorgymGame):
    name = "sudoku"
    folder = "4-SudoKu"
    title = "Sudoku"
    dimension = "MLR"
    answer_format = "the full grid as nine lists: [[1, 2, …, 9],[4, 5, …, 3],…]"

    def generate(self, seed, rng):
        difficulty = rng.choice(["easy", "moderate", "difficult"])
        solution = _solution(rng)
        return new_item(
            difficulty=difficulty,
            solution=solution,
            current_board=_puzzle(solution, difficulty, rng),
        )

    def board(self, item):
        rows = "".join(str(row) + "\n" for row in item["current_board"])
        return PROMPT.format(board=INSTRUCTIONS + rows)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            item["score"] = 1 if _solves(ast.literal_eval(action), item["current_board"]) else 0
        except Exception:  # unreadable text, or a sort KORGym's server fails on: 0
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        """The givens; at the end the stored solution in the empty cells (KORGym checks
        the rules, so it is one solution among any others)."""
        solution = item["solution"]
        rows = []
        for i, row in enumerate(item["current_board"]):
            line = []
            for j, value in enumerate(row):
                if value:
                    line.append(draw.cell(value, "given"))
                elif finished:
                    line.append(draw.cell(solution[i][j], "missing"))
                else:
                    line.append(draw.cell("", "empty", "empty"))
            rows.append(line)
        return draw.grid(rows, caption=f"Sudoku ({item['difficulty']})")

    def reference(self, item, rng):
        return [str(item["solution"])]


GAME = Sudoku()
