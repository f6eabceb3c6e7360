"""16-jiafa (mathematical and logical reasoning): a grid of symbols, each standing for a
hidden integer from -100 to 100, with every row's sum; the player gives every column's sum
as a list. Single turn, 1 for exactly KORGym's list, else 0.

KORGym draws a 5–10 × 5–10 grid over ``min(rows, columns) - 1`` symbols and redraws until
the rows' symbol counts have full column rank (numpy's ``matrix_rank``), so the row sums
fix every symbol's value. The answer is read with ``ast.literal_eval``: text that is not a
Python literal scores 0 and ends the game; a literal that is not a list of integers, or of
the wrong length, scores 0; a literal that makes ``literal_eval`` raise anything else (e.g.
``{[1]}``, an unhashable set member) is a server error in KORGym, which its evaluator
scores 0.

Flaws of KORGym's code, kept or noted:

* Its symbol list holds ``*`` twice, so a board may use one symbol fewer than it meant
  (the second draw for ``*`` overwrites the first value; the rank check uses the symbols
  actually kept).
* A symbol the random grid missed is put in at a shuffled position, in the order of a
  Python ``set`` of strings, which changes with the process's string-hash seed: with two
  or more missing symbols KORGym's board is not reproducible from the seed. Here they go
  in the order the symbols were drawn (with one missing symbol, as in most boards that
  miss any, both agree).
* The starting item's score is already 1 ("generated"); here an item counts as won only
  after an answer was verified.
* ``True``/``False`` count as integers (``[True, 0, …]`` is read as ``[1, 0, …]``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame

PROMPT = (Path(__file__).resolve().parent.parent / "data" / "jiafa_prompt.txt").read_text()
SYMBOLS = (
    "*", "@", "√", "x", "+", "-", "*", "/", "%", "^", "&", "#", "$", "!", "?",
    "∑", "∆", "∏", "∫", "≈", "≠", "≥", "≤", "⊕", "⊗", "⊙", "∩", "∈", "∉",
    "⇒", "⇔", "←", "→", "↑", "↓", "∇", "∞", "∂", "∃", "∀", "¬", "∝", "⊥", "∥",
    "∅", "∴", "∵", "♠", "♣", "♥", "♦",
)  # fmt: skip


class Jiafa(KorgymGame):
    name = "jiafa"
    folder = "16-jiafa"
    title = "Square Addition"
    dimension = "MLR"
    answer_format = "the column sums as a list, left to right: [12,3,12,-15]"

    def generate(self, seed, rng):
        while True:
            rows = rng.randint(5, 10)
            columns = rng.randint(5, 10)
            chosen = rng.sample(SYMBOLS, min(rows, columns) - 1)
            values = {symbol: rng.randint(-100, 100) for symbol in chosen}
            symbols = list(values)
            grid = [[rng.choice(symbols) for _ in range(columns)] for _ in range(rows)]
            missing = [s for s in symbols if not any(s in row for row in grid)]
            if missing:
                cells = [(i, j) for i in range(rows) for j in range(columns)]
                rng.shuffle(cells)
                for symbol in missing:
                    i, j = cells.pop()
                    grid[i][j] = symbol
            counts = np.array([[row.count(symbol) for symbol in symbols] for row in grid])
            if np.linalg.matrix_rank(counts) == len(symbols):
                break
        row_sums = [sum(values[symbol] for symbol in row) for row in grid]
        col_sums = [sum(values[row[j]] for row in grid) for j in range(columns)]
        return {
            "score": 1,  # KORGym's starting score ("generated")
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
            "grid": grid,
            "row_sums": row_sums,
            "col_sums": col_sums,
            "col_count": columns,
            "symbol_values": values,
        }

    def board(self, item):
        sums = item["row_sums"]
        lines = "".join("".join(row) + f" {sums[i]}\n" for i, row in enumerate(item["grid"]))
        return PROMPT.format(board=lines)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["verified"] = True
        try:
            answer = ast.literal_eval(action)
        except (ValueError, SyntaxError):
            item["score"] = 0
            item["is_end"] = True
            return item
        except Exception:  # a server error in KORGym, scored 0 by its evaluator
            item["score"] = 0
            return item
        if (
            isinstance(answer, list)
            and all(isinstance(x, int) for x in answer)
            and len(answer) == item["col_count"]
            and answer == item["col_sums"]
        ):
            item["score"] = 1
        else:
            item["score"] = 0
        return item

    # KORGym's starting score is 1; only a verified answer counts.
    def success(self, item):
        return bool(item.get("verified")) and super().success(item)

    def value(self, item):
        return super().value(item) if item.get("verified") else 0.0

    def display(self, item, *, finished=False):
        """The symbols with each row's sum; at the end the column sums asked for."""
        rows = [
            [draw.cell(symbol) for symbol in row] + [draw.cell(total, "given", f"row sum {total}")]
            for row, total in zip(item["grid"], item["row_sums"], strict=True)
        ]
        if finished:
            rows.append(
                [draw.cell(total, "highlight", f"column sum {total}") for total in item["col_sums"]]
                + [draw.cell("")]
            )
        return draw.grid(rows, caption="Each row's sum at its end; find the columns' sums")

    def reference(self, item, rng):
        return ["[" + ",".join(str(total) for total in item["col_sums"]) + "]"]


GAME = Jiafa()
