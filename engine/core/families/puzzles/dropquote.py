"""Drop quotes: a public-domain quotation laid out in a grid, its letters dropped.

The quotation (capitals) is written row by row into a grid ``width`` columns wide; words
may wrap across rows, a space is a black square ``#`` and the last row is padded with
``#``. The player is given the grid's shape, the black squares, the punctuation in place,
and for each column its letters in alphabetical order ("dropped" out of the grid); they
put every column's letters back. LR²Bench's subtasks are the grid's cells that are not
black (its letters and the punctuation shown in place): one is right when the answer's
cell at the same place holds the same character. Our own units (``by_unit``) are the rows:
a row is given when the answer has ``width`` characters for it, and right when they are
the quotation's.

Answers: a JSON list of rows, each a string or a list of characters (LR²Bench writes
``[["I", "T", "#", …], …]``), or one row a line (as many lines as the grid has rows; free
text that is not the grid reads as nothing); ``#`` or a space for a black square.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.core.families.base import Kind, Levels, Parameter
from engine.core.families.display import cell
from engine.core.families.puzzles.common import PuzzleKind, Reading, maybe_json
from engine.core.families.puzzles.corpus import passage
from engine.core.families.puzzles.drawing import answer_grid, solution_grid

BLACK = "#"


def layout(text: str, width: int) -> list[str]:
    cells = text.upper().replace(" ", BLACK)
    rows = [cells[i : i + width] for i in range(0, len(cells), width)]
    rows[-1] = rows[-1].ljust(width, BLACK)
    return rows


class DropQuote(PuzzleKind):
    subtask_name = "row"
    lr2_type = "drop"
    lr2_units = "letter cells"
    kind = Kind(
        "dropquote",
        "Drop quote: a quotation's letters dropped out of their columns",
        "the completed grid as a JSON list of rows",
        (
            Parameter("width", 10, 6, 24, "columns of the grid"),
            Parameter("length", 40, 20, 300, "least length of the quotation in characters"),
        ),
        # LR²Bench: easy 15 columns, 21–86 letters (median 40); hard 20 columns, 44–91
        # (70); 24 columns and 150 characters go beyond.
        Levels(
            {
                "15-columns": {"width": 15, "length": 50},
                "20-columns": {"width": 20, "length": 85},
                "24-columns": {"width": 24, "length": 150},
            },
            aliases={
                "easy": "15-columns",
                "medium": "15-columns",
                "hard": "20-columns",
                "expert": "24-columns",
            },
        ),
    )

    def generate(self, rng, params: Mapping[str, int]):
        quote, source = passage(rng, params["length"])
        width = params["width"]
        rows = layout(quote, width)
        columns = ["".join(sorted(ch for row in rows if (ch := row[c]).isalpha()))
                   for c in range(width)]  # fmt: skip
        shape = [
            "".join(ch if not ch.isalpha() else "_" for ch in row) for row in rows
        ]  # blacks and punctuation shown, letters blank
        text = (
            f"Here is a drop quote: a quotation written row by row into a grid {width} columns "
            f"wide (words may wrap from one row to the next; # is a space between words). "
            "Its letters fell out of their columns; each column's letters are listed below in "
            "alphabetical order. Put every letter back in its column to read the quotation.\n\n"
            "Grid (_ is a letter to find):\n"
            + "\n".join(shape)
            + "\n\nLetters of each column, left to right:\n"
            + "\n".join(f"column {c + 1}: {' '.join(col) or '-'}" for c, col in enumerate(columns))
        )
        public = {"text": text, "width": width, "shape": shape, "columns": columns}
        return public, {"solution": rows, "quote": quote, "source": source}

    def expected(self, hidden) -> list[Any]:
        return list(hidden["solution"])

    def lr2_gold(self, public, hidden) -> Any:
        return [list(row) for row in hidden["solution"]]

    def lr2_prediction(self, public, answer) -> Any | None:
        rows = _rows(public, answer)
        if not isinstance(rows, list):
            return None
        grid = [list(_cells(row)) if _cells(row) is not None else [] for row in rows]
        return grid if any(grid) else None

    def render(self, hidden) -> str:
        return json.dumps(hidden["solution"])

    def _square(self, public, hidden, answer):
        shape, solution = public["shape"], hidden["solution"]
        given = self.read(public, answer).subtasks if answer is not None else [None] * len(shape)

        def square(r: int, c: int):
            if shape[r][c] == BLACK:
                return "fixed", cell("", "wall", "space between words"), None
            if shape[r][c] != "_":
                return "fixed", cell(shape[r][c], "given", shape[r][c]), None
            row = given[r]
            letter = row[c] if row is not None and c < len(row) and row[c].isalpha() else ""
            return "open", letter, solution[r][c]

        return square

    def answer_display(self, public, hidden, answer, *, marked):
        square = self._square(public, hidden, answer)
        height, width = len(public["shape"]), public["width"]
        return answer_grid(height, width, square, marked=marked, caption="Your grid")

    def solution_display(self, public, hidden):
        square = self._square(public, hidden, None)
        height, width = len(public["shape"]), public["width"]
        caption = f"The quotation ({hidden['source']})" if hidden.get("source") else "The quotation"
        return solution_grid(height, width, square, caption=caption)

    def answer_help(self, public) -> str:
        return (
            f"a JSON list of {len(public['shape'])} rows, each a string of {public['width']} "
            "characters with # for a black square"
        )

    def random_answer(self, public, rng) -> str:
        rows = []
        pools = [list(col) for col in public["columns"]]
        for pool in pools:
            rng.shuffle(pool)
        for row in public["shape"]:
            rows.append(
                "".join(
                    pools[c].pop() if ch == "_" and pools[c] else ch for c, ch in enumerate(row)
                )
            )
        return json.dumps(rows)

    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        width, count = public["width"], len(public["shape"])
        rows = _rows(public, answer)
        subtasks: list[Any] = [None] * count
        problems: list[str] = []
        if not isinstance(rows, list):
            return Reading(subtasks, ["the answer is not a list of rows (nor one line a row)"])
        if len(rows) != count:
            problems.append(f"the answer has {len(rows)} rows, not {count}")
        for index, row in enumerate(rows[:count]):
            cells = _cells(row)
            if cells is None:
                problems.append(f"row {index + 1} is not text")
                continue
            shape = public["shape"][index]
            if len(cells) < width and set(shape[len(cells) :]) == {BLACK}:
                cells = cells.ljust(width, BLACK)  # trailing blacks left off: the shape has them
            if len(cells) != width:
                problems.append(f"row {index + 1} has {len(cells)} characters, not {width}")
                continue
            subtasks[index] = cells
        return Reading(subtasks, problems)


def _rows(public: Mapping[str, Any], answer: Any) -> Any:
    """The answer's rows: a JSON list, or one line a row when the text has as many lines
    as the grid has rows (free text is not a grid: it reads as nothing)."""
    rows = maybe_json(answer)
    if isinstance(rows, str):
        lines = [line for line in rows.splitlines() if line.strip()]
        return lines if len(lines) == len(public["shape"]) else None
    return rows


def _cells(row: Any) -> str | None:
    """A row as capitals with ``#`` for black squares, or None when it is not text."""
    if isinstance(row, list) and all(isinstance(ch, str) for ch in row):
        row = "".join(ch if ch.strip() else BLACK for ch in row)
    if not isinstance(row, str):
        return None
    cells = row.rstrip("\r\n")
    if len(cells) >= 2 and cells[0] == cells[-1] and cells[0] in "\"'":
        cells = cells[1:-1]  # a quoted row
    return cells.upper().replace(" ", BLACK)  # spaces are black squares, kept


KINDS = (DropQuote(),)
