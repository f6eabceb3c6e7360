"""The puzzles' browser answer forms: which form each kind draws and how its posted
fields become an answer (``ConstraintPuzzles.answer_form`` / ``read_form``).

The fields are the form's as posted (a mapping of name to string): Sudoku cells
``cell-R-C``, logic-grid choices ``pick-E-CATEGORY``, cryptogram letters ``map-X``, and the
letter squares ``letter-R-C`` of crosswords and drop quotes. A square or cell left empty or
holding something else leaves its entry, row or cell unanswered; a form with nothing filled
in is refused (``FamilyError``), so an empty grid never ends a task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.families.base import FamilyError

FORMS = {
    "sudoku": "sudoku",
    "logic_grid": "logic_grid",
    "cryptogram": "cryptogram",
    "crossword": "crossword",
    "dropquote": "dropquote",
}


def read_form(form: str, public: Mapping[str, Any], fields: Mapping[str, str]) -> object:
    if form in ("crossword", "dropquote"):
        return _grid(form, public, fields)
    if form == "cryptogram":
        mapping = {
            letter: fields.get(f"map-{letter}", "").strip()[:5] for letter in public["letters"]
        }
        mapping = {letter: plain for letter, plain in mapping.items() if plain}
        if not mapping:
            raise FamilyError("fill in at least one letter first")
        return mapping
    if form == "sudoku":
        size = public["size"]
        grid = [
            [fields.get(f"cell-{r}-{c}", "").strip()[:3] for c in range(size)] for r in range(size)
        ]
        if not any(value for row in grid for value in row if value):
            raise FamilyError("fill in the grid first")
        return [[int(v) if v.isdigit() else v for v in row] for row in grid]
    if form == "logic_grid":
        variables = public["variables"]
        people = []
        for e, name in enumerate(variables["names"]):
            row = {"names": name}
            for category in (c for c in variables if c != "names"):
                value = fields.get(f"pick-{e}-{category}", "")
                if value:
                    row[category] = value[:200]
            people.append(row)
        if not any(len(row) > 1 for row in people):
            raise FamilyError("choose at least one value first")
        return people
    return fields.get("answer", "")


def _letter(fields: Mapping[str, str], r: int, c: int) -> str:
    value = fields.get(f"letter-{r}-{c}", "").strip().upper()[:1]
    return value if value.isascii() and value.isalpha() else ""


def _grid(form: str, public: Mapping[str, Any], fields: Mapping[str, str]) -> object:
    """A crossword's entries or a drop quote's rows, read from the grid's squares; an entry
    or row with an empty square is left unanswered."""
    shape = public["shape"]
    if form == "dropquote":
        rows = []
        for r, line in enumerate(shape):
            letters = [
                _letter(fields, r, c) if cell == "_" else cell for c, cell in enumerate(line)
            ]
            rows.append("".join(letters) if all(letters) else None)
        if not any(rows):
            raise FamilyError("fill in at least one whole row first")
        return rows
    starts = {n: (r, c) for r, c, n in public["numbers"]}
    entries = {}
    for key in public["clues"]:
        number, direction = key.split("-")
        r, c = starts[int(number)]
        dr, dc = (0, 1) if direction == "Across" else (1, 0)
        word = []
        while r < len(shape) and c < len(shape[r]) and shape[r][c] != "#":
            word.append(_letter(fields, r, c))
            r, c = r + dr, c + dc
        if all(word):
            entries[key] = "".join(word)
    if not entries:
        raise FamilyError("fill in at least one whole entry first")
    return entries
