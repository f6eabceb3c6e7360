"""11-maze (spatial and geometric reasoning): a path through a square maze from 'I' (top
left) to 'X' (bottom right), given as a Python list of moves ('up', 'down', 'left',
'right'); single turn, 1 if the moves walk from start to end, else 0.

KORGym draws the maze's size (its ``scale``, 10 to 30, which sets a maze of 3 to 13 cells a
side) from Python's global generator *before* seeding it, so in KORGym the size depends on
whatever the server drew before, not on the seed. Here the size is drawn as KORGym's server
would draw it had its global generator last been seeded with the same seed (the fixtures
are recorded so); the maze itself is then KORGym's for the seed: its randomised Prim
construction, end at the corner farthest from the start.

KORGym's verifier, kept as it is: the answer is read with ``ast.literal_eval`` (anything
it cannot read scores 0) and walked move by move; an unknown move, a step off the board or
into a wall ends with 0; reaching the end before the last move ends with 0 *unless that
move is the same word as the last move* (KORGym compares the words, not the positions), in
which case the walk goes on. An answer that is not a sequence (e.g. a number) or holds a
list as a move crashes KORGym's verifier (a failed verification, 0 here too).
"""

from __future__ import annotations

import ast
import random
from collections import deque

from engine.core.families.korgym.common import KorgymGame, new_item, symbol_grid

PROMPT = """
You need to provide a path from the start point to the end point based on an n*n maze map \
that I provide. Output your answer in the form of a list, where:
'I' represents the starting point
'X' represents the destination point
'o' represents empty space (passable)
'*' represents a wall (impassable)

Your available moves are:
'up': move one cell upwards
'down': move one cell downwards
'left': move one cell to the left
'right': move one cell to the right
You need to output your answer as a list of these strings，e.g."Answer: ['up','down','down',...]"
Maze Board:
{board}
"""

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
# KORGym's Prim step tries the neighbours in this order: right, down, left, up.
PRIM_STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def prim_maze(cells: int, rng: random.Random) -> list[list[int]]:
    """KORGym's randomised Prim maze on ``cells``×``cells`` rooms, as a map of
    (2·cells − 1)² squares, 0 open and 1 wall: rooms at even coordinates, the squares
    between two rooms open when the passage between them was cut."""
    seen = [[False] * cells for _ in range(cells)]
    # open_sides[r][c][k]: the passage from room (r, c) in PRIM_STEPS[k] is cut.
    open_sides = [[[False] * 4 for _ in range(cells)] for _ in range(cells)]
    seen[0][0] = True
    frontier = [(0, 0)]
    while frontier:
        r, c = rng.choice(frontier)
        fresh = [
            k
            for k, (dr, dc) in enumerate(PRIM_STEPS)
            if 0 <= r + dr < cells and 0 <= c + dc < cells and not seen[r + dr][c + dc]
        ]
        if not fresh:
            frontier.remove((r, c))
            continue
        k = rng.choice(fresh)
        nr, nc = r + PRIM_STEPS[k][0], c + PRIM_STEPS[k][1]
        frontier.append((nr, nc))
        open_sides[r][c][k] = True
        open_sides[nr][nc][(k + 2) % 4] = True
        seen[nr][nc] = True
    side = 2 * cells - 1
    grid = [[1] * side for _ in range(side)]
    for i in range(side):
        for j in range(side):
            if i % 2 == 0 and j % 2 == 0:
                grid[i][j] = 0
            elif i % 2 == 0:
                grid[i][j] = 0 if open_sides[i // 2][j // 2][0] else 1
            elif j % 2 == 0:
                grid[i][j] = 0 if open_sides[i // 2][j // 2][1] else 1
    return grid


def walk(item: dict, moves) -> int:
    """KORGym's check of a parsed answer (any Python value ``ast.literal_eval`` gives);
    raises TypeError or KeyError where KORGym's verifier would crash."""
    maze = item["char_maze"]
    end = tuple(item["end"])
    here = tuple(item["start"])
    for move in moves:
        step = MOVES.get(move)
        if step is None:
            return 0
        r, c = here[0] + step[0], here[1] + step[1]
        if not (0 <= r < len(maze) and 0 <= c < len(maze[0])) or maze[r][c] == "*":
            return 0
        if (r, c) == end and move != moves[-1]:
            return 0
        here = (r, c)
    return int(here == end)


class Maze(KorgymGame):
    name = "maze"
    folder = "11-maze"
    title = "Maze"
    dimension = "SGR"
    answer_format = "a Python list of moves, e.g. ['up','down','right']"

    def generate(self, seed, rng):
        scale = random.Random(seed).randint(10, 30)
        grid = prim_maze((scale + 1) // 2 // 2, rng)
        last = len(grid) - 1
        rows = [["o" if cell == 0 else "*" for cell in line] for line in grid]
        rows[0][0] = "I"
        rows[last][last] = "X"
        return new_item(
            scale=scale,
            char_maze=rows,
            start=[0, 0],
            end=[last, last],
        )

    def board(self, item):
        return PROMPT.format(board="".join("".join(row) + "\n" for row in item["char_maze"]))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            moves = ast.literal_eval(action)
        except Exception:  # KORGym: whatever cannot be read scores 0
            item["score"] = 0
            return item
        try:
            item["score"] = walk(item, moves)
        except (TypeError, KeyError, IndexError):  # KORGym's verifier crashes: 0
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        return symbol_grid(
            item["char_maze"],
            {"I": "start", "X": "end", "o": "floor", "*": "wall"},
            texts={"o": "", "*": ""},
            labels={"I": "start", "X": "end", "o": "open", "*": "wall"},
            caption="From I (top left) to X (bottom right)",
            coords=True,
        )

    def reference(self, item, rng):
        """A shortest path (breadth-first), which never passes the end before its last move."""
        maze = item["char_maze"]
        start, end = tuple(item["start"]), tuple(item["end"])
        came_from = {start: None}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for name, (dr, dc) in MOVES.items():
                r, c = here[0] + dr, here[1] + dc
                if 0 <= r < len(maze) and 0 <= c < len(maze[0]) and maze[r][c] != "*":
                    if (r, c) not in came_from:
                        came_from[(r, c)] = (here, name)
                        queue.append((r, c))
        path = []
        here = end
        while came_from[here] is not None:
            here, name = came_from[here]
            path.append(name)
        return [str(path[::-1])]


GAME = Maze()
