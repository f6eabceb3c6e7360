"""5-light_out_game (mathematical and logical reasoning): Lights Out on a 3×3 or 4×4 board;
single turn, 1 if the listed presses switch every light off, else 0.

KORGym draws a level from 1 to 15: levels 1–5 press that many distinct cells of a 3×3 board,
levels 6–15 press ``level - 4`` distinct cells of a 4×4 board. The answer is read as chunks
split at ``"),"``, each chunk's runs of digits making one press; a chunk without exactly two
numbers, or a press off the board, scores 0.

Flaws of KORGym's code, kept as it plays them:

* The prompt always describes "a 3 by 3 grid" with cells (0,0)…(2,2), though two thirds of
  the boards are 4×4.
* The prompt's own Example 3 answer, ``(2,2) ,(0,2)``, scores 0: with the space before the
  comma there is no ``"),"`` to split at, so its four numbers make one malformed press.
* A number of more than 4,300 digits makes ``int`` raise: a server error in KORGym, which
  its evaluator scores 0 (here a 0).
* Minus signs are not read (only digit runs), so ``(-1,0)`` presses (1,0).
* A 4×4 board whose generating presses cancel out (4×4 Lights Out has non-trivial
  null patterns) starts all off, and then even an empty answer scores 1.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.core.families.korgym.common import KorgymGame, new_item, symbol_grid

PROMPT = (Path(__file__).resolve().parent.parent / "data" / "light_out_game_prompt.txt").read_text()
_NUMBER = re.compile(r"\d+")


def _press(board: list[list[int]], row: int, col: int) -> None:
    n = len(board)
    for r, c in ((row, col), (row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < n and 0 <= c < n:
            board[r][c] ^= 1


def _presses(action: str) -> list[tuple[int, ...]]:
    """KORGym's reading of an answer: one tuple of numbers per ``"),"``-separated chunk."""
    return [
        tuple(int(number) for number in _NUMBER.findall(chunk.strip()))
        for chunk in action.split("),")
        if chunk.strip()
    ]


def _all_off(board: list[list[int]], action: str) -> bool:
    n = len(board)
    lights = [row.copy() for row in board]
    for press in _presses(action):
        if len(press) != 2 or not all(0 <= x < n for x in press):
            return False
        _press(lights, *press)
    return not any(any(row) for row in lights)


class LightsOut(KorgymGame):
    name = "light_out_game"
    folder = "5-light_out_game"
    title = "Light Out Game"
    dimension = "MLR"
    answer_format = "the cells to press as (row,column), separated by commas: (0,2), (2,1)"

    def generate(self, seed, rng):
        level = rng.randint(1, 15)
        n, presses = (3, level) if level <= 5 else (4, level - 4)
        board = [[0] * n for _ in range(n)]
        cells = [(i, j) for i in range(n) for j in range(n)]
        for i, j in rng.sample(cells, presses):
            _press(board, i, j)
        return new_item(
            board=board,
            level=level,
        )

    def board(self, item):
        rows = "".join("".join(str(light) for light in row) + "\n" for row in item["board"])
        return PROMPT.format(board=rows)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            item["score"] = 1 if _all_off(item["board"], action) else 0
        except ValueError:  # a number too long for int(): KORGym's server fails, scored 0
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        return symbol_grid(
            item["board"],
            {"1": "on", "0": "off"},
            texts={"1": "", "0": ""},
            labels={"1": "on", "0": "off"},
            caption="Switch every light off",
            coords=True,
        )

    def reference(self, item, rng):
        """The fewest presses: every solution is fixed by its first row's presses (each
        later row must switch off the lights left on in the row above), so try all first
        rows and keep the shortest solution. A board already off gets a press made twice
        (a no-op) so that the answer is not empty."""
        board = item["board"]
        n = len(board)
        best: list[tuple[int, int]] | None = None
        for first in range(1 << n):
            lights = [row.copy() for row in board]
            pressed = [(0, j) for j in range(n) if first >> j & 1]
            for cell in pressed:
                _press(lights, *cell)
            for i in range(1, n):
                for j in range(n):
                    if lights[i - 1][j]:
                        _press(lights, i, j)
                        pressed.append((i, j))
            if not any(lights[n - 1]) and (best is None or len(pressed) < len(best)):
                best = pressed
        if not best:
            best = [(0, 0), (0, 0)]
        return [", ".join(f"({i},{j})" for i, j in best)]


GAME = LightsOut()
