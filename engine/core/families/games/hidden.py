"""Two deduction games (written afresh):

* ``wordle`` (puzzle): find a hidden word from per-letter feedback; guesses must be words of
  the bundled list (``puzzles/data/words.tsv``, derived from WordNet). Scores 1 when found
  within the guesses allowed, else 0;
* ``minesweeper`` (control and interaction): reveal every safe square of a board whose mines
  are hidden on the server; the start is a revealed empty square and every board is
  solvable from it by logic alone (a solver proves it before the board is issued). Scores 1
  for a cleared board; otherwise, as KORGym, the share of mines flagged right less the
  share flagged wrong (at least 0), hitting a mine ending the game.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from itertools import combinations

from engine.core.families.base import Kind, Parameter
from engine.core.families.display import cell, grid
from engine.core.families.games.common import Game, IllegalMove, Step, plural
from engine.core.families.puzzles.words import entries

# -- wordle ---------------------------------------------------------------------------------


@cache
def _words(length: int) -> tuple[str, ...]:
    return tuple(word for word, _ in entries() if len(word) == length and word.isalpha())


@cache
def _allowed(length: int) -> frozenset[str]:
    return frozenset(_words(length))


def _feedback(secret: str, guess: str) -> str:
    """G right letter in the right place, Y in the word elsewhere (as many times as it is
    there and not already green), . not in the word."""
    marks = ["."] * len(guess)
    left = Counter(s for s, g in zip(secret, guess, strict=True) if s != g)
    for i, (s, g) in enumerate(zip(secret, guess, strict=True)):
        if s == g:
            marks[i] = "G"
        elif left[g]:
            marks[i] = "Y"
            left[g] -= 1
    return "".join(marks)


def _next_guess(candidates: list[str]) -> str:
    """The reference's guess: with few candidates left, the one whose worst feedback leaves
    fewest; otherwise the one covering the commonest letters of the candidates."""
    if len(candidates) <= 60:

        def worst(guess: str) -> tuple[int, str]:
            return max(Counter(_feedback(c, guess) for c in candidates).values()), guess

        return min(candidates, key=worst)
    common = Counter(ch for word in candidates for ch in set(word))
    return max(candidates, key=lambda w: (sum(common[ch] for ch in set(w)), w))


def _solve(secret: str, guesses: int) -> list[str] | None:
    candidates, moves = list(_words(len(secret))), []
    while len(moves) < guesses:
        guess = _next_guess(candidates)
        moves.append(guess)
        if guess == secret:
            return moves
        marks = _feedback(secret, guess)
        candidates = [c for c in candidates if _feedback(c, guess) == marks]
    return None


class Wordle(Game):
    dimension = "puzzle"
    kind = Kind(
        "wordle",
        "Wordle: find the hidden word",
        "a guess: a word of the hidden word's length",
        (
            Parameter("length", 5, 4, 6, "letters in the word"),
            Parameter("guesses", 6, 3, 10, "guesses allowed"),
        ),
        {"easy": {"length": 5, "guesses": 8}, "medium": {"length": 5, "guesses": 6},
         "hard": {"length": 6, "guesses": 5}},
    )  # fmt: skip

    def generate(self, rng, params):
        words = _words(params["length"])
        while True:
            secret = rng.choice(words)
            reference = _solve(secret, params["guesses"])
            if reference is not None:
                break
        text = (
            f"Wordle: find a hidden English word of {params['length']} letters in at most "
            f"{params['guesses']} guesses. Each guess must be a word of {params['length']} "
            "letters from the game's word list (common English words). After each guess "
            "every letter is marked: G if the hidden word has it in that place, Y if the "
            "hidden word has it elsewhere (as many times as it occurs there), . if not."
        )
        public = {"text": text, "length": params["length"], "turn_limit": params["guesses"]}
        return public, {"secret": secret, "reference": reference}

    def initial(self, public, hidden):
        return {"secret": hidden["secret"], "guesses": (), "found": False}

    def play(self, state, move):
        guess = move.strip().rstrip(".").strip().upper()
        length = len(state["secret"])
        if not re.fullmatch(r"[A-Z]+", guess) or len(guess) != length:
            raise IllegalMove(f"a guess is one word of {length} letters")
        if guess not in _allowed(length):
            raise IllegalMove(f"{guess} is not in the word list")
        marks = _feedback(state["secret"], guess)
        guesses = (*state["guesses"], (guess, marks))
        found = guess == state["secret"]
        view = "\n".join(f"{' '.join(g)}\n{' '.join(m)}" for g, m in guesses)
        new = {**state, "guesses": guesses, "found": found}
        return new, Step({"guess": guess, "marks": marks, "view": view}, found)

    def score(self, state, moves, public):
        return 1.0 if state["found"] else 0.0

    def display(self, public, state, *, finished=False):
        """The guesses, each letter coloured by its mark; empty rows for the guesses left.
        Never the hidden word (it is the solution, shown apart once the game has ended)."""
        tones = {"G": ("hit", "in the word, right place"), "Y": ("near", "in the word, elsewhere")}
        lines = [
            [
                cell(letter, *tones.get(mark, ("miss", "not in the word")))
                for letter, mark in zip(guess, marks, strict=True)
            ]
            for guess, marks in state["guesses"]
        ]
        for line in lines:
            for square in line:
                square["label"] = f"{square['text']}: {square['label']}"
        if not state["found"]:
            left = public["turn_limit"] - len(lines)
            lines += [[cell("", "empty", "not guessed yet")] * public["length"]] * left
        return grid(
            lines, caption="Green: right place; yellow: elsewhere in the word; grey: not in it"
        )

    def solution_text(self, public, hidden):
        return hidden["secret"]

    def describe(self, observation):
        marks = observation["marks"]
        return (
            f"{observation['guess']}: {plural(marks.count('G'), 'letter')} in place, "
            f"{marks.count('Y')} elsewhere"
        )

    def reference(self, public, hidden):
        return list(hidden["reference"])


# -- minesweeper ----------------------------------------------------------------------------


def _around(square: tuple[int, int], rows: int, cols: int) -> list[tuple[int, int]]:
    r, c = square
    return [
        (r + dr, c + dc)
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
    ]


def _open(
    start: tuple[int, int], mines: frozenset, rows: int, cols: int, shown: frozenset
) -> frozenset:
    """The squares shown after revealing ``start``: an empty square (no mine around) opens
    its neighbours too, and so on."""
    opened, stack = set(shown), [start]
    while stack:
        square = stack.pop()
        if square in opened:
            continue
        opened.add(square)
        if not any(n in mines for n in _around(square, rows, cols)):
            stack.extend(n for n in _around(square, rows, cols) if n not in opened)
    return frozenset(opened)


def _deduce(mines: frozenset, rows: int, cols: int, start: tuple[int, int]) -> list[str] | None:
    """The moves of a logic-only player (no guessing) from the start: every square it can
    prove safe is revealed and every square it can prove a mine is flagged. None when it
    gets stuck before clearing the board. Rules: a number whose mines are all flagged frees
    its other neighbours; one with as many hidden neighbours as missing mines flags them;
    and for two numbers whose hidden neighbours nest, the difference holds the difference."""
    shown = _open(start, mines, rows, cols, frozenset())
    flagged: set[tuple[int, int]] = set()
    moves: list[str] = []
    safe_total = rows * cols - len(mines)
    while len(shown) < safe_total:
        constraints = []
        for square in shown:
            hidden = [n for n in _around(square, rows, cols) if n not in shown]
            unknown = frozenset(n for n in hidden if n not in flagged)
            if unknown:
                count = sum(n in mines for n in _around(square, rows, cols))
                constraints.append((unknown, count - sum(n in flagged for n in hidden)))
        safe, mine = set(), set()
        for unknown, missing in constraints:
            if missing == 0:
                safe |= unknown
            elif missing == len(unknown):
                mine |= unknown
        if not safe and not mine:
            unique = list(set(constraints))
            for (a, ka), (b, kb) in combinations(unique, 2):
                for small, ks, big, kg in ((a, ka, b, kb), (b, kb, a, ka)):
                    if small < big:
                        rest = big - small
                        if kg - ks == 0:
                            safe |= rest
                        elif kg - ks == len(rest):
                            mine |= rest
        if not safe and not mine:
            return None
        for square in sorted(mine):
            flagged.add(square)
            moves.append(f"flag {square[0] + 1} {square[1] + 1}")
        for square in sorted(safe):
            if square not in shown:
                shown = _open(square, mines, rows, cols, shown)
                moves.append(f"reveal {square[0] + 1} {square[1] + 1}")
    return moves  # the last reveal cleared the board: the game is over


def _board(state) -> str:
    rows, cols, mines = state["rows"], state["cols"], state["mines"]
    lines = []
    for r in range(rows):
        cells = []
        for c in range(cols):
            square = (r, c)
            if square in state["shown"]:
                count = sum(n in mines for n in _around(square, rows, cols))
                cells.append(str(count) if count else "_")
            elif state["boom"] is not None and square in mines:
                cells.append("*")
            elif square in state["flags"]:
                cells.append("F")
            else:
                cells.append("?")
        lines.append(" ".join(cells))
    return "\n".join(lines)


class Minesweeper(Game):
    dimension = "control_interaction"
    kind = Kind(
        "minesweeper",
        "Minesweeper, solvable without guessing",
        '"reveal R C", "flag R C" or "unflag R C" (row and column from 1)',
        (
            Parameter("rows", 7, 4, 12, "rows"),
            Parameter("cols", 7, 4, 12, "columns"),
            Parameter("mines", 8, 1, 30, "mines"),
        ),
        {"easy": {"rows": 5, "cols": 5, "mines": 3}, "medium": {"rows": 7, "cols": 7, "mines": 7},
         "hard": {"rows": 9, "cols": 9, "mines": 12}},
    )  # fmt: skip

    def generate(self, rng, params):
        rows, cols, count = params["rows"], params["cols"], params["mines"]
        if count > rows * cols - 9:
            raise ValueError("too many mines for the board")
        while True:
            start = (rng.randrange(rows), rng.randrange(cols))
            keep_clear = {start, *_around(start, rows, cols)}
            squares = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in keep_clear]
            mines = frozenset(rng.sample(squares, count))
            reference = _deduce(mines, rows, cols, start)
            if reference:  # solvable by logic, and not already cleared by the opening
                break
        public = {
            "rows": rows,
            "cols": cols,
            "mines": count,
            "start": list(start),
            "turn_limit": 2 * rows * cols,
        }
        hidden = {"mines": sorted(list(m) for m in mines), "reference": reference}
        public["view"] = _board(self.initial(public, hidden))
        public["text"] = (
            f"Minesweeper: a {rows} x {cols} board hides {count} mines. Square (row "
            f"{start[0] + 1}, column {start[1] + 1}) is safe and already revealed, with the "
            "empty squares around it. A revealed square shows how many of its up to eight "
            "neighbours are mines (_ for none); ? is hidden, F flagged.\n"
            f'{public["view"]}\nMoves: "reveal R C" (row and column from 1), "flag R C", '
            '"unflag R C". Revealing a mine ends the game. Revealing every safe square '
            "scores 1; otherwise the score is the share of mines flagged right less the share "
            "flagged wrong. The board can be cleared by logic alone, without guessing."
        )
        return public, hidden

    def initial(self, public, hidden):
        rows, cols = public["rows"], public["cols"]
        mines = frozenset(tuple(m) for m in hidden["mines"])
        start = tuple(public["start"])
        return {
            "rows": rows,
            "cols": cols,
            "mines": mines,
            "shown": _open(start, mines, rows, cols, frozenset()),
            "flags": frozenset(),
            "boom": None,
        }

    def play(self, state, move):
        match = re.fullmatch(
            r"\s*(reveal|open|flag|unflag)\s+(\d+)\s*[,\s]\s*(\d+)\s*\.?\s*", move, re.I
        )
        if not match:
            raise IllegalMove('write "reveal R C", "flag R C" or "unflag R C"')
        action = match.group(1).lower()
        r, c = int(match.group(2)) - 1, int(match.group(3)) - 1
        rows, cols = state["rows"], state["cols"]
        if not (0 <= r < rows and 0 <= c < cols):
            raise IllegalMove(f"rows go from 1 to {rows}, columns from 1 to {cols}")
        square = (r, c)
        if square in state["shown"]:
            raise IllegalMove(f"row {r + 1}, column {c + 1} is already revealed")
        if action == "flag":
            if square in state["flags"]:
                raise IllegalMove(f"row {r + 1}, column {c + 1} is already flagged")
            new = {**state, "flags": state["flags"] | {square}}
        elif action == "unflag":
            if square not in state["flags"]:
                raise IllegalMove(f"row {r + 1}, column {c + 1} is not flagged")
            new = {**state, "flags": state["flags"] - {square}}
        else:
            if square in state["flags"]:
                raise IllegalMove(f"row {r + 1}, column {c + 1} is flagged: unflag it first")
            if square in state["mines"]:
                new = {**state, "boom": square}
                return new, Step({"result": "a mine: the game is over", "view": _board(new)}, True)
            shown = _open(square, state["mines"], rows, cols, state["shown"])
            new = {**state, "shown": shown, "flags": state["flags"] - shown}
        cleared = len(new["shown"]) == rows * cols - len(state["mines"])
        return new, Step({"view": _board(new)}, cleared)

    def score(self, state, moves, public):
        if len(state["shown"]) == state["rows"] * state["cols"] - len(state["mines"]):
            return 1.0
        right = len(state["flags"] & state["mines"])
        wrong = len(state["flags"] - state["mines"])
        return max(0.0, (right - wrong) / len(state["mines"]))

    def display(self, public, state, *, finished=False):
        """Revealed squares with their counts, flags and hidden squares. The mines appear
        only once a mine was hit (the player saw it) or the game has ended and its answer
        is shown (``finished``); then a flag on a safe square is marked wrong."""
        rows_, cols, mines = state["rows"], state["cols"], state["mines"]
        reveal = finished or state["boom"] is not None

        def square(r: int, c: int) -> dict:
            where = f"row {r + 1}, column {c + 1}"
            if (r, c) in state["shown"]:
                count = sum(n in mines for n in _around((r, c), rows_, cols))
                return cell(count or "", "open", f"{where}: {count or 'no'} mines around")
            if (r, c) == state["boom"]:
                return cell("✹", "mine", f"{where}: the mine you hit")
            if (r, c) in state["flags"]:
                if reveal and (r, c) not in mines:
                    return cell("⚑", "wrong", f"{where}: flagged, but no mine")
                return cell("⚑", "flag", f"{where}: flagged")
            if reveal and (r, c) in mines:
                return cell("✹", "mine", f"{where}: a mine")
            return cell("", "hidden", f"{where}: hidden")

        return grid(
            ([square(r, c) for c in range(cols)] for r in range(rows_)),
            caption=(
                f"{plural(len(mines), 'mine')} hidden; {plural(len(state['flags']), 'flag')} placed"
            ),
            coords=True,
            origin=1,
        )

    def solution_text(self, public, hidden):
        mines = "; ".join(f"row {r + 1}, column {c + 1}" for r, c in hidden["mines"])
        return f"The mines: {mines}."

    def describe(self, observation):
        return observation.get("result", "")

    def reference(self, public, hidden):
        return list(hidden["reference"])


HIDDEN_GAMES = (Wordle(), Minesweeper())
