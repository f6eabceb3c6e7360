"""Crosswords: American-style grids filled from the bundled word list, each entry clued by
its definition.

Generation (deterministic by seed, ``fill.dense_fill``): a block pattern symmetric about the
centre, in which every white square belongs to an across and a down entry of at least three
letters, is filled by a search over the fill list (``data/fill.tsv``) so that every run of
letters is a word of the list, no word appears twice, and no entry's word appears in another
entry's clue. The pattern's shape (entries, white share) is LR²Bench's for its sizes (see
``shape_for``). Entries are numbered as in a printed crossword (left to right, top to
bottom; a square starting an across and a down entry has one number). The solution is the
set of words: the clues and the crossing letters determine it for a solver who knows the
words; there is no SAT proof here, since what makes it the only answer is the language.

The subtasks, LR²Bench's as ours, are the entries (the keys of LR²Bench's gold mapping),
Across then Down by number: one is right when the answer gives the entry's word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from engine.core.families.base import Kind, Levels, Parameter
from engine.core.families.display import cell
from engine.core.families.puzzles.common import PuzzleKind, Reading, letters_only, maybe_json
from engine.core.families.puzzles.drawing import answer_grid, solution_grid
from engine.core.families.puzzles.fill import Shape, dense_fill
from engine.core.families.puzzles.words import clue_for, fill_entries

BLANK = "#"
INTRO = (
    "Here is a {size} x {size} crossword. # is a blocked square, _ a square to fill; "
    "a number marks where an entry starts. Each entry's clue gives its length."
)


def shape_for(size: int, entries: int) -> Shape:
    """The pattern a grid of ``size`` is drawn to: at least ``entries`` entries (0: as many
    as LR²Bench's grids of that size have, about 0.31 × size²), at most 12 % more, white
    share 0.80–0.87 (0.70 from 10×10 down, 0.92 at most for the small ones), entries no
    longer than 5 + size / 5 letters (LR²Bench's long themed entries are phrases the list
    lacks). Measured on LR²Bench's crosswords (tests/families/puzzles/lr2bench_sizes.json):
    5×5 10 entries, white 0.84–1.0; 10×10 28–38, 0.70–0.86; 15×15 70–78, 0.80–0.87;
    21×21 140–144, 0.82–0.83."""
    least = entries or max(2 * size, round(0.31 * size * size))
    return Shape(
        least_entries=least,
        most_entries=least + round(least * 0.12),
        least_white=0.70 if size <= 10 else 0.80,
        most_white=0.92 if size <= 7 else 0.87,
        longest=min(size, 5 + size // 5),
    )


def enumeration(word: str) -> str:
    """The entry's length as a printed crossword gives it: "5", or "3,5" for a phrase
    ("ice cream" is entered ICECREAM)."""
    display = displays().get(word, word)
    return (
        ",".join(str(len(part)) for part in display.split()) if " " in display else str(len(word))
    )


@cache
def displays() -> dict[str, str]:
    return {word: display for word, _, _, display in fill_entries()}


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
            Parameter("size", 5, 5, 21, "the grid's side"),
            Parameter("entries", 0, 0, 200, "least number of entries (0: LR²Bench's for the size)"),
            Parameter("clues", 0, 0, 1, "1: clues written by the authoring LLM where stored"),
        ),
        # LR²Bench's sizes (its 15×15 level also holds 16×16 and 21×21 grids); 21×21 as a
        # level of its own goes beyond.
        Levels(
            {
                "5x5": {"size": 5, "entries": 10},
                "10x10": {"size": 10, "entries": 30},
                "15x15": {"size": 15, "entries": 70},
                "21x21": {"size": 21, "entries": 140},
            },
            aliases={"easy": "5x5", "medium": "10x10", "hard": "15x15"},
        ),
    )

    def generate(self, rng, params: Mapping[str, int]):
        size = params["size"]
        grid, words = dense_fill(
            rng, size, shape_for(size, params["entries"]), clue_for, banned=_template()
        )
        placed = []
        for word, clue, squares in words:
            (r, c), across = squares[0], squares[0][0] == squares[1][0]
            placed.append((word, clue, r, c, across))
        grid = [list(row) for row in grid]
        for word, _, squares in words:
            for (r, c), letter in zip(squares, word, strict=True):
                grid[r][c] = letter
        numbers = numbering(placed)
        solution, clues = {}, {}
        for word, clue, r, c, across in sorted(
            placed, key=lambda p: (not p[4], numbers[(p[2], p[3])])
        ):
            key = f"{numbers[(r, c)]}-{'Across' if across else 'Down'}"
            solution[key] = word
            clues[key] = f"{clue} ({enumeration(word)})"
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

    def _square(self, public, hidden, answer):
        """Each square: a black one, or the letter the answer's entries put there (an
        across and a down word that disagree put the across one) and the solution's."""
        shape, solution = public["shape"], hidden["grid"]
        letters: dict[tuple[int, int], str] = {}
        if answer is not None:
            starts = {n: (r, c) for r, c, n in public["numbers"]}
            words = self.read(public, answer).subtasks
            for key, word in zip(public["clues"], words, strict=True):
                number, direction = key.split("-")
                r, c = starts[int(number)]
                dr, dc = (0, 1) if direction == "Across" else (1, 0)
                squares = []
                while r < len(shape) and c < len(shape[r]) and shape[r][c] != BLANK:
                    squares.append((r, c))
                    r, c = r + dr, c + dc
                if word is None or len(word) != len(squares):
                    continue
                for at, letter in zip(squares, word, strict=True):
                    letters.setdefault(at, letter)

        def square(r: int, c: int):
            if shape[r][c] == BLANK:
                return "fixed", cell("", "wall", "black square"), None
            return "open", letters.get((r, c), ""), solution[r][c]

        return square

    def answer_display(self, public, hidden, answer, *, marked):
        size = len(public["shape"])
        square = self._square(public, hidden, answer)
        return answer_grid(size, size, square, marked=marked, caption="Your grid")

    def solution_display(self, public, hidden):
        size = len(public["shape"])
        square = self._square(public, hidden, None)
        return solution_grid(size, size, square, caption="The solution")

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
    match = re.search(r"\(([\d,]+)\)$", clue)
    return sum(map(int, match.group(1).split(","))) if match else 3


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
