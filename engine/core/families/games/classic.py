"""Seven games with exact reference players (KORGym's text dimensions, written afresh):

* ``nim`` (strategic): take from one pile; whoever takes the last object wins; the server
  plays the other side optimally, and every start is a win for the player who plays well;
* ``hanoi`` (mathematical and logical, as KORGym files it): gather the disks on peg C
  from a scrambled position; the optimum is computed exactly;
* ``eight_puzzle`` (spatial and geometric): slide the tiles back to order; the optimum
  is found by BFS;
* ``maze`` (spatial and geometric): walk from S to G in a generated maze; optimum by BFS;
* ``mastermind`` (puzzle, beside KORGym's Wordle): find a hidden code from black/white
  feedback; the reference guesses the first code consistent with every answer so far;
* ``twenty_four`` (mathematical and logical, one turn): make 24 from four numbers, each used once;
* ``sequence`` (mathematical and logical, one turn): the next term of a generated integer sequence.

Scores: a win or a solve within the turn limit scores 1 for nim, mastermind, twenty_four and
sequence; the planning games (hanoi, eight_puzzle, maze) score optimum ÷ moves used when
solved (1 for an optimal solution), 0 when not solved.

Boards are drawn as text (``public["view"]`` and each observation's ``"view"``) for the
page; the 8-puzzle and the maze take arrow keys there.
"""

from __future__ import annotations

import ast
import itertools
import operator
import re
from collections import deque
from fractions import Fraction

from engine.core.families.base import Kind, Parameter
from engine.core.families.display import cell, grid, rows
from engine.core.families.games.common import (
    ARROW_KEYS,
    Game,
    IllegalMove,
    Step,
    at_words,
    plural,
    read_direction,
)

# -- nim ---------------------------------------------------------------------------------


def _xor(piles) -> int:
    result = 0
    for pile in piles:
        result ^= pile
    return result


def _best_take(piles: list[int]) -> tuple[int, int]:
    """(pile index, count) of an optimal move: to a zero nim-sum if possible."""
    total = _xor(piles)
    if total:
        for index, pile in enumerate(piles):
            target = pile ^ total
            if target < pile:
                return index, pile - target
    index = max(range(len(piles)), key=lambda i: piles[i])
    return index, 1


def _piles(piles: list[int]) -> str:
    return "\n".join(f"pile {i + 1}: {'|' * p or '-'} ({p})" for i, p in enumerate(piles))


class Nim(Game):
    dimension = "strategic"
    kind = Kind(
        "nim",
        "Nim against an optimal opponent",
        'a move "take N from P" (N objects from pile P)',
        (
            Parameter("piles", 3, 2, 6, "piles"),
            Parameter("size", 7, 3, 20, "most objects in a pile"),
        ),
        {"easy": {"piles": 2, "size": 5}, "medium": {"piles": 3, "size": 9},
         "hard": {"piles": 5, "size": 15}},
    )  # fmt: skip

    def generate(self, rng, params):
        while True:
            piles = [rng.randint(1, params["size"]) for _ in range(params["piles"])]
            if _xor(piles):  # a win for the player who moves first and plays well
                break
        text = (
            "Nim. Piles: "
            + ", ".join(f"pile {i + 1}: {p}" for i, p in enumerate(piles))
            + ". You move first; a move takes one or more objects from one pile. The "
            "player who takes the last object wins. Your opponent answers each move at "
            'once. Write a move as "take N from P".'
        )
        public = {"text": text, "piles": piles, "turn_limit": sum(piles), "view": _piles(piles)}
        return public, {}

    def initial(self, public, hidden):
        return {"piles": list(public["piles"]), "winner": None}

    def play(self, state, move):
        match = re.fullmatch(r"\s*take\s+(\d+)\s+from\s+(?:pile\s+)?(\d+)\s*\.?\s*", move, re.I)
        if not match:
            raise IllegalMove('write a move as "take N from P"')
        count, pile = int(match.group(1)), int(match.group(2)) - 1
        piles = list(state["piles"])
        if not 0 <= pile < len(piles):
            raise IllegalMove(f"there is no pile {pile + 1}")
        if not 1 <= count <= piles[pile]:
            raise IllegalMove(f"pile {pile + 1} has {piles[pile]}; take 1 to {piles[pile]}")
        piles[pile] -= count
        if not any(piles):
            return {"piles": piles, "winner": "you"}, Step(
                {"piles": piles, "result": "you win", "view": _piles(piles)}, True
            )
        index, take = _best_take(piles)
        piles[index] -= take
        reply = {
            "opponent": f"take {take} from {index + 1}",
            "piles": list(piles),
            "view": _piles(piles),
        }
        if not any(piles):
            reply["result"] = "the opponent took the last object: you lose"
            return {"piles": piles, "winner": "opponent"}, Step(reply, True)
        return {"piles": piles, "winner": None}, Step(reply, False)

    def score(self, state, moves, public):
        return 1.0 if state["winner"] == "you" else 0.0

    def display(self, public, state, *, finished=False):
        return rows(
            (
                (f"Pile {i + 1} ({count})", [cell("●", "box", "an object")] * count)
                for i, count in enumerate(state["piles"])
            ),
            caption="Take from one pile; whoever takes the last object wins",
        )

    def describe(self, observation):
        said = []
        if "opponent" in observation:
            count, pile = re.findall(r"\d+", observation["opponent"])
            said.append(f"the opponent took {count} from pile {pile}")
        if "result" in observation:
            said.append(observation["result"])
        return "; ".join(said)

    def reference(self, public, hidden):
        state, moves = self.initial(public, hidden), []
        while state["winner"] is None:
            index, take = _best_take(state["piles"])
            move = f"take {take} from {index + 1}"
            state, _ = self.play(state, move)
            moves.append(move)
        return moves


# -- tower of hanoi ------------------------------------------------------------------------


def _hanoi(n: int, source: str, target: str, spare: str) -> list[str]:
    if n == 0:
        return []
    return [
        *_hanoi(n - 1, source, spare, target),
        f"{source} {target}",
        *_hanoi(n - 1, spare, target, source),
    ]


def _hanoi_from(where: dict[int, str], n: int, target: str) -> list[str]:
    """A shortest move list gathering disks 1..n on ``target`` from any legal position
    (``where``: disk → peg, updated as the moves are made)."""
    if n == 0:
        return []
    if where[n] == target:
        return _hanoi_from(where, n - 1, target)
    spare = next(peg for peg in "ABC" if peg not in (where[n], target))
    moves = _hanoi_from(where, n - 1, spare)
    moves.append(f"{where[n]} {target}")
    where[n] = target
    third = next(peg for peg in "ABC" if peg not in (spare, target))
    moves += _hanoi(n - 1, spare, target, third)
    for disk in range(1, n):
        where[disk] = target
    return moves


def _pegs(pegs: dict[str, list[int]]) -> str:
    return "\n".join(f"{peg}: {' '.join(map(str, pegs[peg])) or '-'}" for peg in "ABC")


class Hanoi(Game):
    dimension = "mathematical_logical"
    kind = Kind(
        "hanoi",
        "Tower of Hanoi from a scrambled position",
        'a move "A C" (the top disk of peg A onto peg C)',
        (Parameter("disks", 3, 2, 8, "disks"),),
        {"easy": {"disks": 3}, "medium": {"disks": 5}, "hard": {"disks": 7}},
    )

    def generate(self, rng, params):
        n = params["disks"]
        while True:  # any assignment of disks to pegs is a legal position (sorted per peg)
            where = {disk: rng.choice("ABC") for disk in range(1, n + 1)}
            if any(peg != "C" for peg in where.values()):
                break
        pegs = {
            peg: sorted((d for d, p in where.items() if p == peg), reverse=True) for peg in "ABC"
        }
        optimum = len(_hanoi_from(dict(where), n, "C"))
        text = (
            f"Tower of Hanoi with {n} disks, numbered 1 (smallest) to {n}. Now: "
            + "; ".join(f"peg {peg}: {' '.join(map(str, disks)) or 'empty'} (bottom first)"
                        for peg, disks in pegs.items())
            + ". Gather every disk on peg C, moving one top disk at a time and never putting a "
            'disk on a smaller one. Write a move as "A C" (from peg A to peg C).'
        )  # fmt: skip
        public = {
            "text": text,
            "pegs": pegs,
            "disks": n,
            "turn_limit": 3 * optimum + 5,
            "view": _pegs(pegs),
        }
        return public, {"optimum": optimum}

    def initial(self, public, hidden):
        return {peg: list(disks) for peg, disks in public["pegs"].items()} | {
            "optimum": hidden["optimum"]
        }

    def play(self, state, move):
        match = re.fullmatch(r"\s*([ABC])\s*(?:->|to|,|\s)\s*([ABC])\s*", move.upper())
        if not match or match.group(1) == match.group(2):
            raise IllegalMove('write a move as "A C": two different pegs')
        source, target = match.groups()
        if not state[source]:
            raise IllegalMove(f"peg {source} is empty")
        disk = state[source][-1]
        if state[target] and state[target][-1] < disk:
            raise IllegalMove(f"disk {disk} cannot go on the smaller disk {state[target][-1]}")
        new = {peg: list(state[peg]) for peg in "ABC"} | {"optimum": state["optimum"]}
        new[target].append(new[source].pop())
        over = not new["A"] and not new["B"]
        pegs = {peg: list(new[peg]) for peg in "ABC"}
        return new, Step({**pegs, "view": _pegs(pegs)}, over)

    def score(self, state, moves, public):
        if state["A"] or state["B"] or not moves:
            return 0.0
        return state["optimum"] / moves

    def display(self, public, state, *, finished=False):
        return rows(
            (
                (f"Peg {peg}", [cell(disk, "box", f"disk {disk}") for disk in state[peg]])
                for peg in "ABC"
            ),
            caption="Each peg's disks, bottom first; gather them all on peg C",
        )

    def describe(self, observation):
        done = len(observation.get("C", ()))
        return f"{plural(done, 'disk')} on peg C"

    def reference(self, public, hidden):
        where = {disk: peg for peg, disks in public["pegs"].items() for disk in disks}
        return _hanoi_from(where, public["disks"], "C")


# -- eight puzzle ----------------------------------------------------------------------------

GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 0)
SHIFT = {"up": -3, "down": 3, "left": -1, "right": 1}


def _slide(board: tuple[int, ...], direction: str) -> tuple[int, ...] | None:
    """The board after the blank moves ``direction``, or None if it cannot."""
    blank = board.index(0)
    row, col = divmod(blank, 3)
    if (direction == "up" and row == 0) or (direction == "down" and row == 2):
        return None
    if (direction == "left" and col == 0) or (direction == "right" and col == 2):
        return None
    other = blank + SHIFT[direction]
    cells = list(board)
    cells[blank], cells[other] = cells[other], cells[blank]
    return tuple(cells)


def _solve(board: tuple[int, ...]) -> list[str]:
    """A shortest move list back to the goal (breadth-first search)."""
    parents: dict[tuple, tuple | None] = {board: None}
    queue = deque([board])
    while queue:
        current = queue.popleft()
        if current == GOAL:
            path = []
            while parents[current] is not None:
                current, move = parents[current]
                path.append(move)
            return path[::-1]
        for direction in SHIFT:
            nxt = _slide(current, direction)
            if nxt is not None and nxt not in parents:
                parents[nxt] = (current, direction)
                queue.append(nxt)
    raise ValueError("unsolvable board")


def _tiles(board: tuple[int, ...]) -> str:
    return "\n".join(" ".join(str(v or "_") for v in board[r * 3 : r * 3 + 3]) for r in range(3))


class EightPuzzle(Game):
    dimension = "spatial_geometric"
    keys = ARROW_KEYS
    kind = Kind(
        "eight_puzzle",
        "The 8-puzzle",
        "a move up, down, left or right (where the blank goes)",
        (Parameter("scramble", 10, 2, 60, "random moves that scrambled the board"),),
        {"easy": {"scramble": 6}, "medium": {"scramble": 16}, "hard": {"scramble": 40}},
    )

    def generate(self, rng, params):
        board = GOAL
        for _ in range(params["scramble"]):
            board = rng.choice([b for d in SHIFT if (b := _slide(board, d)) is not None])
        if board == GOAL:
            board = _slide(board, "up")
        optimum = len(_solve(board))
        text = (
            "The 8-puzzle. Tiles 1 to 8 and a blank (0) on a 3 x 3 board:\n"
            + "\n".join(" ".join(str(v) for v in board[r * 3 : r * 3 + 3]) for r in range(3))
            + "\nSlide tiles until the board reads 1 2 3 / 4 5 6 / 7 8 0. A move names where "
            "the blank goes: up, down, left or right."
        )
        public = {
            "text": text,
            "board": list(board),
            "turn_limit": 4 * optimum + 10,
            "view": _tiles(board),
        }
        return public, {"optimum": optimum}

    def initial(self, public, hidden):
        return {"board": tuple(public["board"]), "optimum": hidden["optimum"]}

    def play(self, state, move):
        direction = read_direction(move)
        board = _slide(state["board"], direction)
        if board is None:
            raise IllegalMove(f"the blank cannot move {direction}")
        return {**state, "board": board}, Step(
            {"board": list(board), "view": _tiles(board)}, board == GOAL
        )

    def score(self, state, moves, public):
        return state["optimum"] / moves if state["board"] == GOAL and moves else 0.0

    def display(self, public, state, *, finished=False):
        board = state["board"]
        return grid(
            (
                [
                    cell(v, "filled", f"tile {v}") if v else cell("", "empty", "the blank")
                    for v in board[r * 3 : r * 3 + 3]
                ]
                for r in range(3)
            ),
            caption="Slide the tiles back to 1 2 3 / 4 5 6 / 7 8 and the blank",
        )

    def describe(self, observation):
        return ""

    def reference(self, public, hidden):
        return _solve(tuple(public["board"]))


# -- maze -------------------------------------------------------------------------------------

STEPS = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}


def _walker(rows: list[str], at: tuple[int, int]) -> str:
    """The maze with @ where the player stands."""
    r, c = at
    return "\n".join(row[:c] + "@" + row[c + 1 :] if i == r else row for i, row in enumerate(rows))


class Maze(Game):
    dimension = "spatial_geometric"
    keys = {"ArrowUp": "north", "ArrowDown": "south", "ArrowLeft": "west", "ArrowRight": "east"}
    kind = Kind(
        "maze",
        "Walking a maze from S to G",
        "a move north, south, east or west",
        (Parameter("size", 5, 3, 15, "cells per side"),),
        {"easy": {"size": 4}, "medium": {"size": 7}, "hard": {"size": 12}},
    )

    def generate(self, rng, params):
        n = params["size"]
        side = 2 * n + 1
        grid = [["#"] * side for _ in range(side)]
        stack, seen = [(0, 0)], {(0, 0)}
        grid[1][1] = "."
        while stack:  # randomised depth-first search: a perfect maze
            r, c = stack[-1]
            options = [
                (r + dr, c + dc)
                for dr, dc in STEPS.values()
                if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in seen
            ]
            if not options:
                stack.pop()
                continue
            nr, nc = rng.choice(options)
            grid[2 * r + 1 + (nr - r)][2 * c + 1 + (nc - c)] = "."
            grid[2 * nr + 1][2 * nc + 1] = "."
            seen.add((nr, nc))
            stack.append((nr, nc))
        grid[1][1], grid[side - 2][side - 2] = "S", "G"
        rows = ["".join(line) for line in grid]
        path = _maze_path(rows)
        text = (
            "A maze: # is a wall, . an open square, S your start and G the goal.\n"
            + "\n".join(rows)
            + "\nWalk to G. A move is north, south, east or west (one square)."
        )
        public = {
            "text": text,
            "rows": rows,
            "turn_limit": 3 * len(path) + 10,
            "view": _walker(rows, (1, 1)),
        }
        return public, {"optimum": len(path)}

    def initial(self, public, hidden):
        return {"at": (1, 1), "rows": public["rows"], "optimum": hidden["optimum"]}

    def play(self, state, move):
        direction = move.strip().lower().rstrip(".")
        if direction not in STEPS:
            raise IllegalMove("a move is north, south, east or west")
        dr, dc = STEPS[direction]
        r, c = state["at"][0] + dr, state["at"][1] + dc
        if state["rows"][r][c] == "#":
            raise IllegalMove(f"a wall is in the way to the {direction}")
        return {**state, "at": (r, c)}, Step(
            {"at": [r, c], "view": _walker(state["rows"], (r, c))}, state["rows"][r][c] == "G"
        )

    def score(self, state, moves, public):
        r, c = state["at"]
        return state["optimum"] / moves if state["rows"][r][c] == "G" and moves else 0.0

    def display(self, public, state, *, finished=False):
        look = {
            "#": ("", "wall", "wall"),
            ".": ("", "floor", "open"),
            "S": ("S", "start", "start"),
            "G": ("G", "end", "goal"),
        }
        at = tuple(state["at"])
        return grid(
            (
                [
                    cell("●", "player", "you") if (r, c) == at else cell(*look[square])
                    for c, square in enumerate(line)
                ]
                for r, line in enumerate(state["rows"])
            ),
            caption="Walk from S to G",
        )

    def describe(self, observation):
        return f"now at {at_words(observation['at'])}" if "at" in observation else ""

    def reference(self, public, hidden):
        return _maze_path(public["rows"])


def _maze_path(rows: list[str]) -> list[str]:
    start = (1, 1)
    parents: dict[tuple[int, int], tuple | None] = {start: None}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        if rows[r][c] == "G":
            path, at = [], (r, c)
            while parents[at] is not None:
                at, move = parents[at]
                path.append(move)
            return path[::-1]
        for name, (dr, dc) in STEPS.items():
            nxt = (r + dr, c + dc)
            if rows[nxt[0]][nxt[1]] != "#" and nxt not in parents:
                parents[nxt] = ((r, c), name)
                queue.append(nxt)
    raise ValueError("no path")


# -- mastermind ----------------------------------------------------------------------------

COLOURS = "RGBYOPWK"


def _feedback(code: str, guess: str) -> tuple[int, int]:
    black = sum(a == b for a, b in zip(code, guess, strict=True))
    common = sum(min(code.count(c), guess.count(c)) for c in set(guess))
    return black, common - black


class Mastermind(Game):
    dimension = "puzzle"
    kind = Kind(
        "mastermind",
        "Mastermind: find the hidden code",
        "a guess of the code's length in colour letters, e.g. RGBY",
        (
            Parameter("length", 4, 3, 5, "pegs in the code"),
            Parameter("colours", 6, 4, 8, "colours to choose from"),
        ),
        {"easy": {"length": 3, "colours": 4}, "medium": {"length": 4, "colours": 6},
         "hard": {"length": 5, "colours": 8}},
    )  # fmt: skip

    def generate(self, rng, params):
        colours = COLOURS[: params["colours"]]
        code = "".join(rng.choice(colours) for _ in range(params["length"]))
        text = (
            f"Mastermind. A hidden code of {params['length']} pegs, each one of the colours "
            f"{', '.join(colours)} (repeats allowed). Guess it: after each guess you are told "
            "how many pegs are the right colour in the right place (black) and how many more "
            f"are a right colour in the wrong place (white). Write a guess like "
            f"{colours[: params['length']]}."
        )
        public = {
            "text": text,
            "length": params["length"],
            "colours": colours,
            "turn_limit": 12,
        }
        return public, {"code": code}

    def initial(self, public, hidden):
        return {
            "code": hidden["code"],
            "colours": public["colours"],
            "solved": False,
            "guesses": (),
        }

    def play(self, state, move):
        guess = re.sub(r"[\s,]", "", move).upper()
        if len(guess) != len(state["code"]) or any(c not in state["colours"] for c in guess):
            raise IllegalMove(
                f"a guess is {len(state['code'])} letters from {', '.join(state['colours'])}"
            )
        black, white = _feedback(state["code"], guess)
        solved = black == len(state["code"])
        guesses = (*state.get("guesses", ()), (guess, black, white))
        return {**state, "solved": solved, "guesses": guesses}, Step(
            {"guess": guess, "black": black, "white": white}, solved
        )

    def score(self, state, moves, public):
        return 1.0 if state["solved"] else 0.0

    def display(self, public, state, *, finished=False):
        """Each guess with its pegs: black (right colour, right place) and white."""
        lines = [
            [cell(c, "filled", f"colour {c}") for c in guess]
            + [
                cell(black, "hit", f"{black} right colour in the right place"),
                cell(white, "near", f"{white} right colour in the wrong place"),
            ]
            for guess, black, white in state.get("guesses", ())
        ]
        if not state["solved"] and len(lines) < public["turn_limit"]:
            lines.append([cell("", "empty", "next guess")] * public["length"] + [cell()] * 2)
        return grid(lines, caption="Your guesses; green: right place, yellow: wrong place")

    def solution_text(self, public, hidden):
        return hidden["code"]

    def describe(self, observation):
        return (
            f"{observation['guess']}: {observation['black']} black (right place), "
            f"{observation['white']} white (wrong place)"
        )

    def reference(self, public, hidden):
        candidates = [
            "".join(p) for p in itertools.product(public["colours"], repeat=public["length"])
        ]
        moves = []
        while True:
            guess = candidates[0]
            moves.append(guess)
            answer = _feedback(hidden["code"], guess)
            if answer[0] == public["length"]:
                return moves
            candidates = [c for c in candidates if _feedback(c, guess) == answer]


# -- 24 -----------------------------------------------------------------------------------------

OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def _evaluate(node) -> Fraction:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.BinOp) and type(node.op) in OPS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise IllegalMove("the expression divides by zero")
        return OPS[type(node.op)](left, right)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    ):
        return Fraction(node.value)
    raise IllegalMove("use only numbers, + - * / and parentheses")


def _numbers_of(node) -> list[int]:
    return sorted(n.value for n in ast.walk(node) if isinstance(n, ast.Constant))


def _solutions(numbers: list[int]) -> str | None:
    """One expression making 24 from the numbers, or None."""
    items = [(Fraction(n), str(n)) for n in numbers]

    def search(items):
        if len(items) == 1:
            return items[0][1] if items[0][0] == 24 else None
        for i, j in itertools.permutations(range(len(items)), 2):
            (a, ta), (b, tb) = items[i], items[j]
            rest = [items[k] for k in range(len(items)) if k not in (i, j)]
            options = [(a + b, f"({ta} + {tb})"), (a - b, f"({ta} - {tb})")]
            options.append((a * b, f"({ta} * {tb})"))
            if b:
                options.append((a / b, f"({ta} / {tb})"))
            for value, text in options:
                found = search([*rest, (value, text)])
                if found:
                    return found
        return None

    return search(items)


class TwentyFour(Game):
    dimension = "mathematical_logical"
    single_turn = True
    kind = Kind(
        "twenty_four",
        "Make 24 from four numbers",
        "an expression using each number once, e.g. (8 - 4) * (7 - 1)",
        (Parameter("top", 13, 6, 13, "largest number"),),
        {"easy": {"top": 6}, "medium": {"top": 9}, "hard": {"top": 13}},
    )

    def generate(self, rng, params):
        while True:
            numbers = sorted(rng.randint(1, params["top"]) for _ in range(4))
            solution = _solutions(numbers)
            if solution:
                break
        text = (
            f"Make 24 from the numbers {', '.join(map(str, numbers))}, using each exactly once "
            "with + - * / and parentheses. Write the expression."
        )
        return {"text": text, "numbers": numbers, "turn_limit": 1}, {"solution": solution}

    def initial(self, public, hidden):
        return {"numbers": public["numbers"], "value": None}

    def play(self, state, move):
        text = move.strip().rstrip(".").replace("×", "*").replace("÷", "/").split("=")[0]
        if len(text) > 200:
            raise IllegalMove("the expression is too long")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise IllegalMove("that is not an arithmetic expression") from None
        value = _evaluate(tree)
        if _numbers_of(tree) != sorted(state["numbers"]):
            raise IllegalMove(f"use each of {', '.join(map(str, state['numbers']))} exactly once")
        return {**state, "value": value}, Step({"value": str(value)}, True)

    def score(self, state, moves, public):
        return 1.0 if state["value"] == 24 else 0.0

    def display(self, public, state, *, finished=False):
        lines = [("Numbers", [cell(n, "given") for n in public["numbers"]])]
        if state["value"] is not None:
            tone = "right" if state["value"] == 24 else "wrong"
            lines.append(("Your expression makes", [cell(state["value"], tone)]))
        return rows(lines, caption="Make 24, using each number once")

    def describe(self, observation):
        return f"makes {observation['value']}"

    def reference(self, public, hidden):
        return [hidden["solution"]]


# -- sequences ----------------------------------------------------------------------------------


class Sequence(Game):
    dimension = "mathematical_logical"
    single_turn = True
    kind = Kind(
        "sequence",
        "The next term of a sequence",
        "a whole number",
        (
            Parameter(
                "rule",
                2,
                0,
                4,
                "0 arithmetic, 1 geometric, 2 quadratic, 3 Fibonacci-like, 4 alternating",
            ),
        ),
        {"easy": {"rule": 0}, "medium": {"rule": 2}, "hard": {"rule": 4}},
    )

    def generate(self, rng, params):
        rule = params["rule"]
        a, b = rng.randint(1, 9), rng.randint(2, 7)
        if rule == 0:
            terms = [a + b * i for i in range(7)]
        elif rule == 1:
            terms = [a * b**i for i in range(7)]
        elif rule == 2:
            c = rng.randint(1, 4)
            terms = [a + b * i + c * i * i for i in range(7)]
        elif rule == 3:
            terms = [a, b]
            while len(terms) < 7:
                terms.append(terms[-1] + terms[-2])
        else:
            d = rng.randint(1, 5)
            terms = [a]
            for i in range(6):
                terms.append(terms[-1] + (b if i % 2 == 0 else -d))
        shown, answer = terms[:6], terms[6]
        text = f"What is the next term of the sequence {', '.join(map(str, shown))}, …?"
        return {"text": text, "terms": shown, "turn_limit": 1}, {"answer": answer}

    def initial(self, public, hidden):
        return {"answer": hidden["answer"], "given": None}

    def play(self, state, move):
        value = move.strip().rstrip(".").replace(",", "")
        if not re.fullmatch(r"[+-]?\d+", value):
            raise IllegalMove("write a whole number")
        return {**state, "given": int(value)}, Step({"given": int(value)}, True)

    def score(self, state, moves, public):
        return 1.0 if state["given"] == state["answer"] else 0.0

    def display(self, public, state, *, finished=False):
        terms = [cell(t, "given") for t in public["terms"]]
        given = state["given"]
        if given is None:
            terms.append(cell("?", "empty", "the next term"))
        elif finished:  # the answer is shown now: right or wrong
            tone = "right" if given == state["answer"] else "wrong"
            terms.append(cell(given, tone, f"your next term {given}"))
        else:
            terms.append(cell(given, "filled", f"your next term {given}"))
        return rows([("Sequence", terms)], caption="The next term")

    def describe(self, observation):
        return f"you answered {observation['given']}"

    def reference(self, public, hidden):
        return [str(hidden["answer"])]


CLASSIC_GAMES = (Nim(), Hanoi(), EightPuzzle(), Maze(), Mastermind(), TwentyFour(), Sequence())
