"""How a family's board is drawn in the browser: one small JSON vocabulary, one renderer.

A family shows a player its current board through :meth:`Family.display` (plain data built
from the game's state, never from anything hidden); the attempt page draws it with one
template (``templates/engine/_display.html``) and one style sheet, whatever the family. The
text view (``"view"`` in the public part and the observations) stays what a model reads; a
display is for people only and never enters a prompt.

Three shapes, each a dict with ``"type"``:

* ``grid``: rows of cells (a 2048 board, Wordle's guesses, a Minesweeper field, a maze, a
  Sudoku). ``{"type": "grid", "rows": [[cell, ...], ...], "caption": str}``; a cell is
  ``{"text": str, "tone": str, "label": str}`` (label: what a screen reader says, default
  the text). Optional ``"coords": True`` draws row and column numbers around the grid (the
  numbers the game's moves use, from ``"origin"``, 0 or 1).
* ``cards``: piles of playing cards (Spider Solitaire). ``{"type": "cards", "piles":
  [{"label": str, "cards": [card, ...]}], "caption": str}``; a card is ``{"rank": str,
  "suit": str, "face_down": bool}`` (a face-down card shows no rank or suit: leave them "").
* ``rows``: labelled lines of tokens (Nim's heaps, Hanoi's pegs, a sequence to sort).
  ``{"type": "rows", "rows": [{"label": str, "items": [cell, ...]}], "caption": str}``.

A display may hold several parts: ``{"type": "stack", "parts": [display, ...]}``.

Tones are a closed list (``TONES``) so the style sheet can draw every one: add a tone here
and in ``static/css/site.css`` together. ``tile-N`` (N a power of two up to 65536) colours a
2048 tile by value; ``colour-N`` (N from 1 to 12) tells pieces apart by colour alone
(``colour_tone``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

TONES = frozenset(
    {
        "",  # plain
        # Letters and guesses (Wordle and its kin)
        "hit",  # right letter, right place (green)
        "near",  # right letter, wrong place (yellow)
        "miss",  # not in the word (grey)
        # Cells of boards and mazes
        "empty",
        "wall",
        "floor",
        "goal",
        "box",
        "box-on-goal",
        "player",
        "player-on-goal",
        "path",
        "start",
        "end",
        "hidden",  # not uncovered yet (Minesweeper)
        "open",
        "flag",
        "mine",
        "on",  # a light that is on
        "off",
        "given",  # a puzzle's given value
        "filled",  # a value the player wrote
        "right",  # a result: right (green)
        "wrong",  # a result: wrong (red)
        "missing",  # a result: left empty
        "mark-a",  # a player's or a side's mark (X, black)
        "mark-b",  # the other side's (O, white)
        "lava",  # a deadly cell (Minigrid)
        "food",
        "snake",
        "snake-head",
        "enemy",
        "highlight",
    }
    | {f"tile-{2**n}" for n in range(1, 17)}
    # Colours that tell pieces apart where the colour is the only thing that matters
    # (balls in tubes, blocks, regions, a graph's colours): colour-1 … colour-12.
    | {f"colour-{n}" for n in range(1, 13)}
)

SHAPES = frozenset({"grid", "cards", "rows", "stack"})
MAX_CELLS = 10_000


class DisplayError(ValueError):
    """A display that the renderer cannot draw (a family's bug, caught by its tests)."""


def cell(text: object = "", tone: str = "", label: str = "") -> dict[str, str]:
    """One cell; ``text`` is shown as text (the page escapes it)."""
    if tone not in TONES:
        raise DisplayError(f"unknown tone {tone!r}")
    shown = "" if text is None else str(text)
    return {"text": shown, "tone": tone, "label": label or shown}


def tile_tone(value: int) -> str:
    """The tone of a 2048 tile of ``value`` ("" for an empty square or an odd value)."""
    tone = f"tile-{value}"
    return tone if tone in TONES else ""


def colour_tone(index: int) -> str:
    """A colour for the ``index``-th kind of piece (1-based; colours repeat after 12)."""
    return f"colour-{(index - 1) % 12 + 1}"


def grid(
    rows: Iterable[Iterable[Mapping[str, str]]],
    *,
    caption: str = "",
    coords: bool = False,
    origin: int = 0,
) -> dict[str, Any]:
    shown = {"type": "grid", "rows": [list(row) for row in rows], "caption": caption}
    if coords:
        shown["coords"] = True
        shown["origin"] = origin
    return shown


def card(rank: str = "", suit: str = "", *, face_down: bool = False) -> dict[str, Any]:
    return {
        "rank": "" if face_down else rank,
        "suit": "" if face_down else suit,
        "face_down": face_down,
    }


def cards(piles: Iterable[tuple[str, Sequence[Mapping[str, Any]]]], *, caption: str = "") -> dict:
    return {
        "type": "cards",
        "piles": [{"label": label, "cards": list(pile)} for label, pile in piles],
        "caption": caption,
    }


def rows(lines: Iterable[tuple[str, Sequence[Mapping[str, str]]]], *, caption: str = "") -> dict:
    return {
        "type": "rows",
        "rows": [{"label": label, "items": list(items)} for label, items in lines],
        "caption": caption,
    }


def stack(*parts: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "stack", "parts": list(parts)}


def check_display(display: object) -> None:
    """Raise ``DisplayError`` unless ``display`` is drawable (shape, tones, size)."""
    count = _check(display, 0)
    if count > MAX_CELLS:
        raise DisplayError(f"a display may have at most {MAX_CELLS} cells, got {count}")


def _check_cell(item: object) -> None:
    if not isinstance(item, Mapping) or not isinstance(item.get("text"), str):
        raise DisplayError(f"a cell must be a dict with a text, got {item!r}")
    if item.get("tone", "") not in TONES:
        raise DisplayError(f"unknown tone {item.get('tone')!r}")


def _check(display: object, depth: int) -> int:
    if not isinstance(display, Mapping) or display.get("type") not in SHAPES:
        raise DisplayError(f"a display must be a dict with a type in {sorted(SHAPES)}")
    kind = display["type"]
    if kind == "stack":
        if depth > 0:
            raise DisplayError("a stack may not hold another stack")
        return sum(_check(part, depth + 1) for part in display.get("parts", ()))
    count = 0
    if kind == "grid":
        for row in display.get("rows", ()):
            for item in row:
                _check_cell(item)
                count += 1
    elif kind == "rows":
        for line in display.get("rows", ()):
            for item in line.get("items", ()):
                _check_cell(item)
                count += 1
    else:
        for pile in display.get("piles", ()):
            for item in pile.get("cards", ()):
                if not isinstance(item, Mapping) or not isinstance(item.get("face_down"), bool):
                    raise DisplayError(f"a card must say whether it is face down: {item!r}")
                count += 1
    return count
