"""6-LongCat (control and interaction reasoning): KORGym's Long Cat, one answer: a list of
slides that leaves no empty cell.

As KORGym plays it: a board of 5-10 rows by 5-10 columns walled all round, with a fifth
of its inner cells drawn as walls (a draw that would cut the empty cells in two is undone)
and the cat on an empty cell with one empty neighbour if there is one; boards are drawn
again until one is solvable. The answer is read as a Python literal and walked in order:
a direction (any case) slides the cat to the next wall, turning the cells it crosses into
walls; a slide that crosses nothing and an unknown word are skipped. It scores 1 when no
empty cell is left, else 0; an answer that is no literal, is not iterable or holds
something other than text scores 0 (KORGym's code fails on the last two, and its
evaluator then scores 0), even after the board is already filled.

KORGym's flaws: its rules speak of an n × n board, but rows and columns are drawn apart
(kept); its generator redraws boards without end, and for seed 20 finds no solvable one in
hours (here a seed is refused with a ``SeedRefused`` past ``MAX_BOARDS`` boards, which
none of KORGym's other evaluation seeds 0-49 reaches).
"""

from __future__ import annotations

import ast

from engine.core.families.base import SeedRefused
from engine.core.families.korgym.common import KorgymGame, symbol_grid

PROMPT = (
    "\n"
    "You are a good game player, I'll give you a game board and rules.\n"
    "Your task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: ['left', 'down', "
    "'right', 'up', 'left']'.\n"
    "\n"
    "Next, I will provide an n × n board containing a cat ('C'), empty spaces ('E'), and "
    "walls ('X'). You need to control the cat's movement by entering directions: up, "
    "down, left, or right. The cat moves from its initial position, sliding continuously "
    "in the chosen direction until hitting a wall. All empty spaces ('E') traversed "
    "along the path will turn into walls ('X'). The game is won when all empty spaces "
    "have been filled. Please output your solution as a list containing directions "
    "('up', 'left', 'right', 'down'), for example:  \n"
    "'Answer: ['left', 'down', 'right', 'up', 'left']'\n"
    "Board:\n"
    "{board}\n"
)

# KORGym draws boards until one is solvable, without end; seed 20 takes it hours (over
# 50,000 boards here without a solvable one), while its other evaluation seeds (0-49)
# need at most 13,691 (seed 38). Here a seed is refused past these bounds (boards drawn;
# positions searched for one board).
MAX_BOARDS = 30_000
BUDGET = 200_000
UNDECIDED = (
    "KORGym's Long Cat generator finds no solvable board for seed {seed} in reasonable "
    "time; choose another seed"
)
STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def empty_neighbours(grid, r, c):
    rows, cols = len(grid), len(grid[0])
    return [
        (r + dr, c + dc)
        for dr, dc in STEPS.values()
        if 0 <= r + dr < rows and 0 <= c + dc < cols and grid[r + dr][c + dc] == "E"
    ]


def spread(cells: int, within: int, cols: int, edges: tuple[int, int]) -> int:
    """The cells of ``within`` 4-connected to ``cells`` (bit masks, row-major), by
    flooding all directions at once."""
    not_first, not_last = edges
    while True:
        grown = (
            cells
            | (
                ((cells << 1) & not_first)
                | ((cells >> 1) & not_last)
                | (cells << cols)
                | (cells >> cols)
            )
            & within
        )
        if grown == cells:
            return cells
        cells = grown


def draw_walls(grid, rng):
    """KORGym's walls: a fifth as many draws as inner cells, each undone if it would cut
    the empty cells in two."""
    rows, cols = len(grid), len(grid[0])
    inner = [(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1) if grid[r][c] == "E"]
    first = sum(1 << (r * cols) for r in range(rows))
    edges = (~first, ~(first << (cols - 1)))
    empty = sum(1 << (r * cols + c) for r, c in inner)
    for _ in range(len(inner) // 5):
        r, c = rng.choice(inner)
        bit = 1 << (r * cols + c)
        rest = empty & ~bit
        if rest and spread(rest & -rest, rest, cols, edges) != rest:
            continue  # KORGym puts the cell back as it was
        grid[r][c] = "X"
        empty = rest


def place_cat(grid, rng):
    rows, cols = len(grid), len(grid[0])
    empty, leaves = [], []
    for r in range(1, rows - 1):
        for c in range(1, cols - 1):
            if grid[r][c] == "E":
                empty.append((r, c))
                if len(empty_neighbours(grid, r, c)) == 1:
                    leaves.append((r, c))
    if not leaves and not empty:
        raise RuntimeError("no empty cell left for the cat")
    r, c = rng.choice(leaves or empty)
    grid[r][c] = "C"


def slide(grid, cat, direction):
    """The cells a slide from ``cat`` crosses (the cat ends on the last)."""
    dr, dc = STEPS[direction]
    r, c = cat
    crossed = []
    while 0 <= r + dr < len(grid) and 0 <= c + dc < len(grid[0]) and grid[r + dr][c + dc] != "X":
        r, c = r + dr, c + dc
        crossed.append((r, c))
    return crossed


class Undecided(Exception):
    """The search met its budget before it could tell."""


def solve(game_map, budget: int | None = None):
    """Slides that fill every empty cell, or None when there are none: a depth-first search
    over (cat, empty cells) as bit masks, cut where no slides can be left (below); raises
    ``Undecided`` after ``budget`` positions, if given."""
    rows, cols = len(game_map), len(game_map[0])
    empty = 0
    cat = None
    for r, row in enumerate(game_map):
        for c, cell in enumerate(row):
            if cell == "E":
                empty |= 1 << (r * cols + c)
            elif cell == "C":
                cat = r * cols + c
    if cat is None:
        return None
    neighbours = [
        [
            (r + dr) * cols + c + dc
            for dr, dc in STEPS.values()
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        for r in range(rows)
        for c in range(cols)
    ]
    failed: set = set()
    visits = [0]

    def hopeless(cat, empty):
        """The cells the cat crosses form one path through every empty cell, starting
        next to it; so all must be reachable from it, and at most one (the path's end) may
        have fewer than two neighbours among the empty cells and the cat."""
        start = [n for n in neighbours[cat] if empty >> n & 1]
        if not start:
            return True
        seen, stack = 0, start
        for n in start:
            seen |= 1 << n
        while stack:
            at = stack.pop()
            for n in neighbours[at]:
                if empty >> n & 1 and not seen >> n & 1:
                    seen |= 1 << n
                    stack.append(n)
        if seen != empty:
            return True
        ends = 0
        rest = empty
        while rest:
            low = rest & -rest
            at = low.bit_length() - 1
            rest ^= low
            degree = sum(1 for n in neighbours[at] if n == cat or empty >> n & 1)
            if degree < 2:
                ends += 1
                if ends > 1:
                    return True
        return False

    def search(cat, empty):
        if not empty:
            return []
        if (cat, empty) in failed:
            return None
        visits[0] += 1
        if budget is not None and visits[0] > budget:
            raise Undecided
        if not hopeless(cat, empty):
            r, c = divmod(cat, cols)
            for direction, (dr, dc) in STEPS.items():
                crossed = 0
                at_r, at_c = r, c
                while (
                    0 <= at_r + dr < rows
                    and 0 <= at_c + dc < cols
                    and empty >> ((at_r + dr) * cols + at_c + dc) & 1
                ):
                    at_r, at_c = at_r + dr, at_c + dc
                    crossed |= 1 << (at_r * cols + at_c)
                if not crossed:
                    continue
                found = search(at_r * cols + at_c, empty & ~crossed)
                if found is not None:
                    return [direction, *found]
        failed.add((cat, empty))
        return None

    return search(cat, empty)


def walk(game_map, moves) -> int:
    """KORGym's score for the slides ``moves`` (1 when no empty cell is left); 0 too where
    KORGym's code fails (``moves`` not iterable, or holding something other than text)."""
    grid = [["X" if cell == "C" else cell for cell in row] for row in game_map]
    cat = next(
        ((r, c) for r, row in enumerate(game_map) for c, cell in enumerate(row) if cell == "C"),
        None,
    )
    if cat is None:
        return 0
    try:
        moves = iter(moves)
    except TypeError:
        return 0
    for move in moves:
        if not isinstance(move, str | bytes):
            return 0
        move = move.lower()
        if move not in STEPS:
            continue
        crossed = slide(grid, cat, move)
        for r, c in crossed:
            grid[r][c] = "X"
        if crossed:
            cat = crossed[-1]
    return 0 if any("E" in row for row in grid) else 1


class LongCat(KorgymGame):
    name = "longcat"
    folder = "6-LongCat"
    title = "Long Cat"
    dimension = "CIR"
    answer_format = "a list of directions, e.g. ['left', 'down', 'right']"

    def generate(self, seed, rng):
        rows = rng.randint(5, 10)
        cols = rng.randint(5, 10)
        for _ in range(MAX_BOARDS):
            grid = [
                ["X" if r in (0, rows - 1) or c in (0, cols - 1) else "E" for c in range(cols)]
                for r in range(rows)
            ]
            draw_walls(grid, rng)
            place_cat(grid, rng)
            try:
                if solve(grid, BUDGET) is not None:
                    break
            except Undecided:
                raise SeedRefused(UNDECIDED.format(seed=seed)) from None
        else:
            raise SeedRefused(UNDECIDED.format(seed=seed))
        return {
            "score": 0,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": "",
            "epoch": 1,
            "row_num": rows,
            "col_num": cols,
            "game_map": grid,
        }

    def board(self, item):
        return PROMPT.format(board="\n".join(" ".join(row) for row in item["game_map"]))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            moves = ast.literal_eval(action)
        except Exception:  # KORGym scores anything literal_eval refuses as 0
            item["score"] = 0
            return item
        item["score"] = walk(item["game_map"], moves)
        return item

    def display(self, item, *, finished=False):
        return symbol_grid(
            item["game_map"],
            {"X": "wall", "E": "empty", "C": "player"},
            texts={"X": "", "E": ""},
            labels={"X": "wall", "E": "empty", "C": "cat"},
            caption="Slide the cat over every empty cell",
        )

    def reference(self, item, rng):
        return [str(solve(item["game_map"]))]


GAME = LongCat()
