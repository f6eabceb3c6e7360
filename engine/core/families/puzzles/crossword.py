"""Crosswords: words from the bundled word list laid across and down a square grid, each
clued by its definition.

Generation (deterministic by seed): the first word goes across the middle; then words drawn
from the list are placed one at a time where they cross letters already in the grid,
never running into or alongside another word (so no unintended word forms), until the
grid holds its target number of entries or no drawn word fits. Entries are numbered as in
a printed crossword (left to right, top to bottom; a square starting an across and a down
entry has one number). The solution is the set of placed words: the clues and the shared
letters determine it for a solver who knows the words; there is no SAT proof here, since
what makes it the only answer is the language.

The subtasks, LR²Bench's as ours, are the entries (the keys of LR²Bench's gold mapping),
Across then Down by number: one is right when the answer gives the entry's word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from engine.core.families.base import Kind, Parameter
from engine.core.families.puzzles.common import PuzzleKind, Reading, letters_only, maybe_json
from engine.core.families.puzzles.words import by_length, clue_for

BLANK = "#"
INTRO = (
    "Here is a {size} x {size} crossword. # is a blocked square, _ a square to fill; "
    "a number marks where an entry starts. Each entry's clue gives its length."
)
TARGET = {5: 6, 6: 7, 7: 9, 8: 10, 9: 12, 10: 14, 11: 16, 12: 18, 13: 21, 14: 24, 15: 28}


def _fits(grid, word, row, col, across, ways=None) -> int | None:
    """How many letters ``word`` shares with the grid when placed at (row, col), or None
    when it cannot go there (out of the grid, a clash, touching another word, or running
    along a word placed the same way). ``ways`` maps a square to the directions of the
    words through it."""
    n = len(grid)
    dr, dc = (0, 1) if across else (1, 0)
    end_r, end_c = row + dr * (len(word) - 1), col + dc * (len(word) - 1)
    if not (0 <= row < n and 0 <= col < n and end_r < n and end_c < n):
        return None
    before = (row - dr, col - dc)
    after = (end_r + dr, end_c + dc)
    for r, c in (before, after):
        if 0 <= r < n and 0 <= c < n and grid[r][c] != BLANK:
            return None
    crossings = 0
    for i, letter in enumerate(word):
        r, c = row + dr * i, col + dc * i
        cell = grid[r][c]
        if cell == letter:
            if ways is not None and across in ways.get((r, c), ()):
                return None  # it would run along (and swallow) a word placed this way
            crossings += 1
            continue
        if cell != BLANK:
            return None
        # A new letter: nothing beside it across the word's direction.
        for sr, sc in ((r + dc, c + dr), (r - dc, c - dr)):
            if 0 <= sr < n and 0 <= sc < n and grid[sr][sc] != BLANK:
                return None
    return crossings if crossings < len(word) else None


def _place(grid, word, row, col, across) -> None:
    dr, dc = (0, 1) if across else (1, 0)
    for i, letter in enumerate(word):
        grid[row + dr * i][col + dc * i] = letter


def fill(rng, size: int, target: int, draws: int = 40, misses: int = 25):
    """(grid, placements): placements are (word, clue, row, col, across). Each round draws
    ``draws`` words and places the one that crosses the grid most (ties drawn at random);
    it stops at ``target`` entries or after ``misses`` rounds in which no word fitted."""
    words, openers = _pool(size)
    grid = [[BLANK] * size for _ in range(size)]
    template = _template()
    word, definition = rng.choice(openers)
    first = (word, clue_for(word, definition))
    row, col = size // 2, (size - len(first[0])) // 2
    _place(grid, first[0], row, col, True)
    placed = [(first[0], first[1], row, col, True)]
    used = {first[0]}
    letters: dict[str, list[tuple[int, int]]] = {}
    ways: dict[tuple[int, int], set[bool]] = {}
    for i, letter in enumerate(first[0]):
        letters.setdefault(letter, []).append((row, col + i))
        ways[(row, col + i)] = {True}
    # No clue may give away another entry: a word never appears in another entry's clue.
    clue_words = set(_tokens(first[1])) | template
    missed = 0
    while len(placed) < target and missed < misses:
        options = []
        for word, definition in rng.sample(words, draws):
            clue = clue_for(word, definition)  # a written clue when one is active
            if word in used or word in clue_words or used & set(_tokens(clue)):
                continue
            for i, own in enumerate(word):
                for r, c in letters.get(own, ()):
                    for across in (True, False):
                        sr, sc = (r, c - i) if across else (r - i, c)
                        shared = _fits(grid, word, sr, sc, across, ways)
                        if shared:
                            options.append((shared, len(word), word, clue, sr, sc, across))
        if not options:
            missed += 1
            continue
        best = max(option[:2] for option in options)
        _, _, word, clue, r, c, across = rng.choice(sorted(o for o in options if o[:2] == best))
        _place(grid, word, r, c, across)
        dr, dc = (0, 1) if across else (1, 0)
        for i, letter in enumerate(word):
            cell = (r + dr * i, c + dc * i)
            ways.setdefault(cell, set()).add(across)
            if cell not in letters.setdefault(letter, []):
                letters[letter].append(cell)
        placed.append((word, clue, r, c, across))
        used.add(word)
        clue_words.update(_tokens(clue))
    return grid, placed


@cache
def _pool(size: int) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """(every word that fits a grid of ``size``, the long ones a grid may open with), as
    (word, definition): built once per size, not once per crossword."""
    words = tuple(entry for length in range(3, size + 1) for entry in by_length().get(length, ()))
    template = _template()
    longest = min(size, 12)
    openers = tuple((w, d) for w, d in words if len(w) >= max(3, longest - 2) and w not in template)
    return words, openers


@cache
def _template() -> frozenset[str]:
    return frozenset(_tokens(INTRO)) | {"ACROSS", "DOWN"}


def _tokens(clue: str) -> list[str]:
    return re.findall(r"[A-Z]+", clue.upper())


def numbering(placed) -> dict[tuple[int, int], int]:
    starts = sorted({(r, c) for _, _, r, c, _ in placed})
    return {start: number for number, start in enumerate(starts, 1)}


class Crossword(PuzzleKind):
    subtask_name = "word"
    lr2_type = "crossword"
    lr2_units = "entries"
    kind = Kind(
        "crossword",
        "Crossword from a word list with definition clues",
        "every entry's word, keyed by its number and direction",
        (
            Parameter("size", 5, 5, 15, "the grid's side"),
            Parameter("clues", 0, 0, 1, "1: clues written by the authoring LLM where stored"),
        ),
        {"easy": {"size": 5}, "medium": {"size": 10}, "hard": {"size": 15}},
    )

    def generate(self, rng, params: Mapping[str, int]):
        size = params["size"]
        # Small grids have few places to cross: draw more words per round to fill them;
        # a sparse fill is drawn again (the same rng goes on, so this stays deterministic).
        target = TARGET.get(size, size * 2)
        for _ in range(10):
            grid, placed = fill(rng, size, target, draws=40 if size >= 10 else 150)
            if len(placed) >= max(4, target * 3 // 5):
                break
        numbers = numbering(placed)
        solution, clues = {}, {}
        for word, clue, r, c, across in sorted(
            placed, key=lambda p: (not p[4], numbers[(p[2], p[3])])
        ):
            key = f"{numbers[(r, c)]}-{'Across' if across else 'Down'}"
            solution[key] = word
            clues[key] = f"{clue} ({len(word)})"
        shape = [
            "".join(BLANK if grid[r][c] == BLANK else "_" for c in range(size)) for r in range(size)
        ]
        layout = []
        for r in range(size):
            cells = []
            for c in range(size):
                if grid[r][c] == BLANK:
                    cells.append(" ###")
                else:
                    cells.append(f"{numbers[(r, c)]:>3}_" if (r, c) in numbers else "   _")
            layout.append("".join(cells))
        text = (
            INTRO.format(size=size)
            + "\n\n"
            + "\n".join(layout)
            + "\n\nAcross:\n"
            + "\n".join(f"{k.split('-')[0]}. {v}" for k, v in clues.items() if k.endswith("Across"))
            + "\n\nDown:\n"
            + "\n".join(f"{k.split('-')[0]}. {v}" for k, v in clues.items() if k.endswith("Down"))
        )
        public = {
            "text": text,
            "size": size,
            "shape": shape,
            "numbers": [[r, c, n] for (r, c), n in sorted(numbers.items())],
            "clues": clues,
        }
        return public, {"solution": solution, "grid": ["".join(row) for row in grid]}

    def expected(self, hidden) -> list[Any]:
        return list(hidden["solution"].values())

    def render(self, hidden) -> str:
        return json.dumps(hidden["solution"])

    def lr2_gold(self, public, hidden) -> Any:
        return dict(hidden["solution"])

    def lr2_prediction(self, public, answer) -> Any | None:
        reading = self.read(public, answer)
        read = {k: v for k, v in zip(public["clues"], reading.subtasks, strict=True) if v}
        return read or None

    def answer_help(self, public) -> str:
        return (
            'a JSON object from each entry to its word, like {"1-Across": "WORD", "2-Down": "WORD"}'
        )

    def random_answer(self, public, rng) -> str:
        return json.dumps(
            {
                key: "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(_length(clue)))
                for key, clue in public["clues"].items()
            }
        )

    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        keys = list(public["clues"])
        problems: list[str] = []
        mapping = maybe_json(answer)
        if isinstance(mapping, str):
            mapping = _entry_lines(mapping)
        if not isinstance(mapping, dict):
            return Reading([None] * len(keys), ["the answer is not a mapping of entries"])
        read: dict[str, str] = {}
        for raw_key, value in mapping.items():
            key = _entry_key(str(raw_key))
            if key not in public["clues"]:
                problems.append(f"{raw_key!r} is not an entry of this crossword")
                continue
            word = letters_only(value)
            if word is None:
                problems.append(f"{key}: {value!r} is not a word")
                continue
            read[key] = word
        return Reading([read.get(key) for key in keys], problems)


def _length(clue: str) -> int:
    match = re.search(r"\((\d+)\)$", clue)
    return int(match.group(1)) if match else 3


def _entry_key(text: str) -> str:
    """ "1-Across", "1 across", "1A", "1a", "Across 1" → "1-Across"."""
    text = text.strip().lower()
    match = re.fullmatch(r"(\d+)\s*[-. ]?\s*(a|across|d|down)", text) or re.fullmatch(
        r"(across|down)\s*(\d+)", text
    )
    if not match:
        return text
    number, direction = match.groups()
    if number.isalpha():
        number, direction = direction, number
    return f"{number}-{'Across' if direction.startswith('a') else 'Down'}"


def _entry_lines(text: str) -> dict[str, str] | str:
    found = {}
    for line in text.splitlines():
        match = re.match(r"\s*(\d+\s*[-. ]?\s*(?:across|down|a|d))\s*[:=.\-]\s*(.+)$", line, re.I)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found or text


KINDS = (Crossword(),)
