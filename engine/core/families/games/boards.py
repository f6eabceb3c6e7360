"""Two board games with exact yardsticks (written afresh):

* ``tic_tac_toe`` (strategic): against a perfect opponent (minimax, ties broken by the
  lowest square), so a draw is the best anyone can force from a fair start; the player
  scores 1 for a draw or a win and 0 for a loss. Games start from positions a few random
  moves in (the opponent's opening at easy; from two moves on, a position where at least
  one natural-looking move loses);
* ``lights_out`` (puzzle): pressing a light toggles it and its neighbours; switch every
  light off. The fewest presses are found exactly over GF(2) (elimination, then every
  solution of the small null space tried); the score is that optimum over the presses
  used when solved.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import product

from engine.core.families.base import Kind, Parameter
from engine.core.families.display import cell, grid
from engine.core.families.games.common import Game, IllegalMove, Step, plural

# -- tic-tac-toe ---------------------------------------------------------------------------

LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6),
)  # fmt: skip


def _winner(board: str) -> str | None:
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@cache
def _value(board: str, to_move: str) -> int:
    """The game's value for X with perfect play from here: 1 X wins, 0 draw, -1 O wins."""
    won = _winner(board)
    if won:
        return 1 if won == "X" else -1
    if "." not in board:
        return 0
    other = "O" if to_move == "X" else "X"
    values = [
        _value(board[:i] + to_move + board[i + 1 :], other)
        for i, cell in enumerate(board)
        if cell == "."
    ]
    return max(values) if to_move == "X" else min(values)


def _best(board: str, mark: str) -> int:
    """A perfect move for ``mark`` (the lowest square among the best)."""
    other = "O" if mark == "X" else "X"
    sign = 1 if mark == "X" else -1
    options = [i for i, cell in enumerate(board) if cell == "."]
    return max(options, key=lambda i: (sign * _value(board[:i] + mark + board[i + 1 :], other), -i))


def _grid(board: str) -> str:
    return "\n".join(" ".join(board[r * 3 : r * 3 + 3]) for r in range(3))


class TicTacToe(Game):
    dimension = "strategic"
    kind = Kind(
        "tic_tac_toe",
        "Tic-tac-toe against a perfect opponent",
        'a square "R C" (row and column, 1 to 3)',
        (Parameter("opening", 0, 0, 4, "moves already played (0: you open)"),),
        {"easy": {"opening": 1}, "medium": {"opening": 2}, "hard": {"opening": 3}},
    )

    def generate(self, rng, params):
        opened = params["opening"]
        while True:
            board, mark = "." * 9, "X"
            for _ in range(opened):
                free = [i for i, cell in enumerate(board) if cell == "."]
                square = rng.choice(free)
                board = board[:square] + mark + board[square + 1 :]
                mark = "O" if mark == "X" else "X"
            if _winner(board):
                continue
            you = mark
            sign = 1 if you == "X" else -1
            other = "O" if you == "X" else "X"
            if sign * _value(board, you) < 0:
                continue  # lost already with best play: nothing to play for
            outcomes = [
                sign * _value(board[:i] + you + board[i + 1 :], other)
                for i, cell in enumerate(board)
                if cell == "."
            ]
            if opened >= 2 and min(outcomes) >= 0:
                continue  # hard starts hide a losing move among the natural ones
            break
        text = (
            f"Tic-tac-toe on a 3 x 3 board. You play {you}; your opponent ({other}) plays "
            "perfectly and answers each of your moves at once. Three in a row (across, down "
            "or diagonal) wins; a full board with no line is a draw. A draw is the best "
            "anyone can force against perfect play, so a draw or a win scores 1 and a loss "
            f'0. Board (rows top to bottom, . empty):\n{_grid(board)}\nA move is "R C": '
            'the row and column of an empty square, each 1 to 3 (e.g. "2 3").'
        )
        public = {"text": text, "board": board, "you": you, "turn_limit": 5, "view": _grid(board)}
        return public, {}

    def initial(self, public, hidden):
        return {"board": public["board"], "you": public["you"], "result": None}

    def play(self, state, move):
        match = re.fullmatch(
            r"\s*(?:row\s*)?([1-3])\s*(?:[,\s]|col(?:umn)?)\s*(?:col(?:umn)?\s*)?([1-3])\s*\.?\s*",
            move,
            re.I,
        )
        if not match:
            raise IllegalMove('a move is "R C": a row and a column, each 1 to 3')
        square = (int(match.group(1)) - 1) * 3 + int(match.group(2)) - 1
        board, you = state["board"], state["you"]
        if board[square] != ".":
            raise IllegalMove(f"row {match.group(1)}, column {match.group(2)} is taken")
        board = board[:square] + you + board[square + 1 :]
        other = "O" if you == "X" else "X"
        if _winner(board) == you:
            return {**state, "board": board, "result": "win"}, Step(
                {"view": _grid(board), "result": "you win"}, True
            )
        if "." not in board:
            return {**state, "board": board, "result": "draw"}, Step(
                {"view": _grid(board), "result": "draw"}, True
            )
        reply = _best(board, other)
        board = board[:reply] + other + board[reply + 1 :]
        shown = {"opponent": f"{reply // 3 + 1} {reply % 3 + 1}", "view": _grid(board)}
        if _winner(board) == other:
            return {**state, "board": board, "result": "loss"}, Step(
                {**shown, "result": "the opponent made three in a row: you lose"}, True
            )
        if "." not in board:
            return {**state, "board": board, "result": "draw"}, Step(
                {**shown, "result": "draw"}, True
            )
        return {**state, "board": board}, Step(shown, False)

    def score(self, state, moves, public):
        return 1.0 if state["result"] in ("win", "draw") else 0.0

    def display(self, public, state, *, finished=False):
        you, board = state["you"], state["board"]

        def square(index: int) -> dict:
            mark = board[index]
            where = f"row {index // 3 + 1}, column {index % 3 + 1}"
            if mark == ".":
                return cell("", "empty", f"{where}: empty")
            whose = "yours" if mark == you else "the opponent's"
            return cell(mark, "mark-a" if mark == you else "mark-b", f"{where}: {mark}, {whose}")

        return grid(
            ([square(r * 3 + c) for c in range(3)] for r in range(3)),
            caption=f"You play {you}",
            coords=True,
            origin=1,
        )

    def describe(self, observation):
        said = []
        if "opponent" in observation:
            r, c = observation["opponent"].split()
            said.append(f"the opponent played row {r}, column {c}")
        if "result" in observation:
            said.append(observation["result"])
        return "; ".join(said)

    def reference(self, public, hidden):
        state, moves = self.initial(public, hidden), []
        while state["result"] is None:
            square = _best(state["board"], state["you"])
            move = f"{square // 3 + 1} {square % 3 + 1}"
            state, _ = self.play(state, move)
            moves.append(move)
        return moves


# -- lights out -----------------------------------------------------------------------------


def _press(lights: tuple[int, ...], n: int, square: int) -> tuple[int, ...]:
    r, c = divmod(square, n)
    toggled = list(lights)
    for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= r + dr < n and 0 <= c + dc < n:
            toggled[(r + dr) * n + c + dc] ^= 1
    return tuple(toggled)


def _fewest_presses(lights: tuple[int, ...], n: int) -> list[int]:
    """The smallest set of squares whose presses switch every light off: the presses x
    solve A x = lights over GF(2); every solution is one particular solution plus a vector
    of A's null space (at most 2^n of them here), and the lightest is kept."""
    size = n * n
    columns = [_press((0,) * size, n, square) for square in range(size)]
    rows = [[columns[j][i] for j in range(size)] + [lights[i]] for i in range(size)]
    pivots, row = [], 0
    for col in range(size):
        pivot = next((r for r in range(row, size) if rows[r][col]), None)
        if pivot is None:
            continue
        rows[row], rows[pivot] = rows[pivot], rows[row]
        for r in range(size):
            if r != row and rows[r][col]:
                rows[r] = [a ^ b for a, b in zip(rows[r], rows[row], strict=True)]
        pivots.append(col)
        row += 1
    if any(rows[r][size] for r in range(row, size)):
        raise ValueError("no presses switch these lights off")
    free = [col for col in range(size) if col not in pivots]
    best: list[int] | None = None
    for choice in product((0, 1), repeat=len(free)):
        x = [0] * size
        for col, bit in zip(free, choice, strict=True):
            x[col] = bit
        for r, col in enumerate(pivots):
            x[col] = rows[r][size] ^ (sum(rows[r][f] & x[f] for f in free) % 2)
        pressed = [square for square in range(size) if x[square]]
        if best is None or len(pressed) < len(best):
            best = pressed
    return best or []


def _lights(lights: tuple[int, ...], n: int) -> str:
    return "\n".join(
        " ".join("#" if lights[r * n + c] else "." for c in range(n)) for r in range(n)
    )


class LightsOut(Game):
    dimension = "puzzle"
    kind = Kind(
        "lights_out",
        "Lights out",
        'a square to press, "R C" (row and column from 1)',
        (
            Parameter("size", 4, 3, 5, "lights per side"),
            Parameter("presses", 4, 1, 12, "presses that scrambled the board"),
        ),
        {"easy": {"size": 3, "presses": 2}, "medium": {"size": 4, "presses": 5},
         "hard": {"size": 5, "presses": 9}},
    )  # fmt: skip

    def generate(self, rng, params):
        n = params["size"]
        while True:
            lights = (0,) * (n * n)
            for square in rng.sample(range(n * n), params["presses"]):
                lights = _press(lights, n, square)
            if any(lights):
                break
        optimum = len(_fewest_presses(lights, n))
        text = (
            f"Lights out on a {n} x {n} board (# on, . off; rows top to bottom):\n"
            f"{_lights(lights, n)}\nPressing a square toggles it and the squares directly "
            "above, below, left and right of it. Switch every light off in as few presses "
            f'as you can. A move is "R C": the row and column of the square to press, from 1.'
        )
        public = {
            "text": text,
            "size": n,
            "lights": list(lights),
            "turn_limit": 3 * optimum + 5,
            "view": _lights(lights, n),
        }
        return public, {"optimum": optimum}

    def initial(self, public, hidden):
        return {
            "lights": tuple(public["lights"]),
            "n": public["size"],
            "optimum": hidden["optimum"],
        }

    def play(self, state, move):
        n = state["n"]
        match = re.fullmatch(r"\s*(?:press\s+)?(\d+)\s*[,\s]\s*(\d+)\s*\.?\s*", move, re.I)
        if not match:
            raise IllegalMove('a move is "R C": a row and a column')
        r, c = int(match.group(1)), int(match.group(2))
        if not (1 <= r <= n and 1 <= c <= n):
            raise IllegalMove(f"rows and columns go from 1 to {n}")
        lights = _press(state["lights"], n, (r - 1) * n + c - 1)
        return {**state, "lights": lights}, Step(
            {"view": _lights(lights, n), "on": sum(lights)}, not any(lights)
        )

    def score(self, state, moves, public):
        return state["optimum"] / moves if not any(state["lights"]) and moves else 0.0

    def display(self, public, state, *, finished=False):
        n, lights = state["n"], state["lights"]
        return grid(
            (
                [
                    cell("", "on", f"row {r + 1}, column {c + 1}: on")
                    if lights[r * n + c]
                    else cell("", "off", f"row {r + 1}, column {c + 1}: off")
                    for c in range(n)
                ]
                for r in range(n)
            ),
            caption=f"{plural(sum(lights), 'light')} on; switch them all off",
            coords=True,
            origin=1,
        )

    def describe(self, observation):
        return f"{plural(observation['on'], 'light')} still on"

    def reference(self, public, hidden):
        n = public["size"]
        return [
            f"{square // n + 1} {square % n + 1}"
            for square in _fewest_presses(tuple(public["lights"]), n)
        ]


BOARD_GAMES = (TicTacToe(), LightsOut())
