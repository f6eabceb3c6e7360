"""The puzzles' grids drawn for people once a task has ended (``engine.core.families.display``):
the player's answer on the puzzle's own grid, each square right (green), wrong (red) or
left empty, and the reference solution on the same grid.

A kind gives the grid square by square: what the puzzle shows there (a given number, a
black square, a punctuation mark) or, for a square to fill, the player's value and the
solution's. Plain Python, no Django.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.families.display import cell, grid

# What a square of the puzzle is: ("fixed", cell) for what the puzzle shows, or
# ("open", player's value or "", the solution's value).
Square = tuple[str, Any, Any]


def answer_grid(
    height: int,
    width: int,
    square: Callable[[int, int], Square],
    *,
    marked: bool,
    caption: str,
    where: Callable[[int, int], str] | None = None,
) -> dict[str, Any]:
    """The player's grid: with ``marked``, each open square right, wrong or missing, and
    the caption counts them; without, the player's values only (the solution stays
    secret)."""
    counts = {"right": 0, "wrong": 0, "missing": 0}

    def draw(r: int, c: int) -> dict[str, str]:
        what, value, want = square(r, c)
        if what == "fixed":
            return value
        at = where(r, c) if where else f"row {r + 1}, column {c + 1}"
        if value in ("", None):
            counts["missing"] += 1
            return cell("", "missing", f"{at}: left empty")
        if not marked:
            return cell(value, "filled", f"{at}: {value}")
        verdict = "right" if str(value) == str(want) else "wrong"
        counts[verdict] += 1
        return cell(value, verdict, f"{at}: {value}, {verdict}")

    rows = [[draw(r, c) for c in range(width)] for r in range(height)]
    if marked:
        caption = (
            f"{caption}: {counts['right']} right, {counts['wrong']} wrong, "
            f"{counts['missing']} left empty"
        )
    return grid(rows, caption=caption)


def solution_grid(
    height: int,
    width: int,
    square: Callable[[int, int], Square],
    *,
    caption: str,
    where: Callable[[int, int], str] | None = None,
) -> dict[str, Any]:
    """The reference solution on the puzzle's grid (given squares as the puzzle shows them)."""

    def draw(r: int, c: int) -> dict[str, str]:
        what, _, want = square(r, c)
        if what == "fixed":
            return _
        at = where(r, c) if where else f"row {r + 1}, column {c + 1}"
        return cell(want, "filled", f"{at}: {want}")

    return grid([[draw(r, c) for c in range(width)] for r in range(height)], caption=caption)
