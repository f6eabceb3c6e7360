"""35-pipe_game (spatial and geometric reasoning): an n×n grid (n from 4 to 6) of pipes
to rotate so that water entering left of the top-left cell leaves right of the
bottom-right one; single turn, the answer an n×n list of quarter turns clockwise, 1 when
the water gets through, else 0.

Generation, as KORGym's: a depth-first maze from the top-left cell (the bottom-right one
held back, then joined to its first free neighbour), dead ends given one more opening
where they can, and each cell's openings named by a piece: three openings '┏', two in a
line '|', two at a corner or one 'L', four ' ' (a piece that connects nothing).

Flaws of KORGym's code, kept here:

* The pieces are shown in no particular orientation: the board names the piece type
  only, and a piece's unrotated openings are fixed ('L' top and right, '|' top and bottom,
  '┏' top, left and right, although the glyph draws right and bottom). So the item's
  ``answer``, all zeros ("no rotation needed"), is usually not a solution.
* A cell that the maze opened on four sides is shown as ' ', which no rotation connects;
  a blank in a row reads as an extra space between its neighbours.
* Some grids (about 1 seed in 50) cannot be solved: a cell opened on four sides is a
  ' ' that connects nothing, and it can cut every path from start to end.
* A rotation that is not a number (``None``, text) breaks KORGym's check (an error, scored
  0) when the water reaches that cell, and goes unread when it does not.
"""

from __future__ import annotations

import ast

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame

PROMPT = """
You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is your final answer to the question,e.g.'Answer: [[0,1,1,3...],[1,3,2,3...],...]'.

Given three types of pipes with the following initial connections:  
- L connects the top and right sides  
- | connects the top and bottom sides  
- ┏ connects the top, left, and right sides  

You are provided with an n x n grid, where each cell contains one type of pipe. The starting point is to the left of position (0,0), and the goal is to reach the right side of position (n-1,n-1). Players need to rotate the pipes in the grid to ensure a valid connection from the start to the end.

Your task is to output an n x n list in one line, where each element indicates the number of 90° clockwise rotations (0, 1, 2, or 3) applied to the pipe at that position.  
For example:  
'Answer: [[0,1,1,3...],[1,3,2,3...],...]'
Board:
{board}
"""  # noqa: E501, W291

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
STEP = {UP: (-1, 0), RIGHT: (0, 1), DOWN: (1, 0), LEFT: (0, -1)}
# Each piece's openings before any rotation (KORGym's, whatever the glyph draws).
UNROTATED = {"|": {UP, DOWN}, "L": {UP, RIGHT}, "┏": {UP, RIGHT, LEFT}}


def make_grid(rng, n: int) -> list[list[str]]:
    """The pieces of an n×n maze, drawn as KORGym draws them (module docstring)."""
    start, end = (0, 0), (n - 1, n - 1)
    links = {(i, j): set() for i in range(n) for j in range(n)}
    seen = {end}

    def inside(i, j):
        return 0 <= i < n and 0 <= j < n

    def join(a, b):
        links[a].add(b)
        links[b].add(a)

    def carve(cell, parent):
        seen.add(cell)
        order = [UP, RIGHT, DOWN, LEFT]
        rng.shuffle(order)
        for d in order:
            nxt = (cell[0] + STEP[d][0], cell[1] + STEP[d][1])
            if inside(*nxt) and nxt not in seen:
                join(cell, nxt)
                carve(nxt, cell)
        if cell not in (start, end) and parent is not None and len(links[cell]) == 1:
            order = [UP, RIGHT, DOWN, LEFT]
            rng.shuffle(order)
            for d in order:
                nxt = (cell[0] + STEP[d][0], cell[1] + STEP[d][1])
                if (
                    inside(*nxt)
                    and nxt in seen
                    and nxt != parent
                    and nxt not in links[cell]
                    and len(links[nxt]) < 3
                ):
                    join(cell, nxt)
                    break

    carve(start, None)
    for d in (UP, RIGHT, DOWN, LEFT):
        nxt = (end[0] + STEP[d][0], end[1] + STEP[d][1])
        if inside(*nxt) and nxt in seen and len(links[nxt]) < 3:
            join(end, nxt)
            break
    # KORGym then joins any cell the maze missed to its first seen neighbour; the maze
    # reaches every cell but the held-back end, so this never happens.
    for i in range(n):
        for j in range(n):
            if (i, j) not in seen:
                for d in (UP, RIGHT, DOWN, LEFT):
                    nxt = (i + STEP[d][0], j + STEP[d][1])
                    if inside(*nxt) and nxt in seen:
                        join((i, j), nxt)
                        break
                seen.add((i, j))

    grid = []
    for i in range(n):
        row = []
        for j in range(n):
            opens = {d for d in STEP if (i + STEP[d][0], j + STEP[d][1]) in links[(i, j)]}
            if (i, j) == start:
                opens.add(LEFT)
            if (i, j) == end:
                opens.add(RIGHT)
            if len(opens) == 3:
                row.append("┏")
            elif len(opens) == 2:
                row.append("|" if opens in ({UP, DOWN}, {LEFT, RIGHT}) else "L")
            elif len(opens) == 1:
                row.append("L")
            else:
                row.append(" ")
        grid.append(row)
    return grid


def water_gets_through(grid, turns) -> bool:
    """KORGym's check: water enters (0,0) from the left and spreads through every matching
    opening (never back the way it came) until it leaves (n-1,n-1) on the right. Rotations
    are read only where the water reaches, as KORGym reads them (a bad one raises)."""
    n = len(grid)

    def opens(i, j):
        piece = grid[i][j]
        if piece not in UNROTATED:
            return set()
        return {(d + turns[i][j]) % 4 for d in UNROTATED[piece]}

    queue, seen = [], set()
    if LEFT in opens(0, 0):
        queue.append((0, 0, LEFT))
        seen.add((0, 0, LEFT))
    while queue:
        i, j, came = queue.pop(0)
        out = opens(i, j)
        if came in out:
            out = out - {came}
        for d in out:
            if i == n - 1 and j == n - 1 and d == RIGHT:
                return True
            if d == UP and i - 1 >= 0:
                nxt = (i - 1, j, DOWN)
            elif d == RIGHT and j + 1 < n:
                nxt = (i, j + 1, LEFT)
            elif d == DOWN and i + 1 < n:
                nxt = (i + 1, j, UP)
            elif d == LEFT and j - 1 >= 0:
                nxt = (i, j - 1, RIGHT)
            else:
                continue
            if nxt[2] in opens(nxt[0], nxt[1]) and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


def turned(piece: str, turn: int) -> set[int]:
    return {(d + turn) % 4 for d in UNROTATED.get(piece, ())}


def solve(grid) -> list[list[int]] | None:
    """Rotations that carry the water through: a depth-first search for a path of cells,
    each turned to take the water in and pass it on; cells off the path stay unturned."""
    n = len(grid)
    turns = [[0] * n for _ in range(n)]
    on_path: set[tuple[int, int]] = set()

    def exits(piece, came):
        # Where water entering a piece from ``came`` can leave it, over all rotations.
        return {d for turn in range(4) for d in turned(piece, turn) if came in turned(piece, turn)}

    def end_reachable(i, j, came) -> bool:
        # Pruning: water entering (i, j) from ``came`` must be able to reach the exit
        # through pieces not yet on the path, each turned as the water needs.
        stack, seen = [(i, j, came)], {(i, j, came)}
        while stack:
            ci, cj, cc = stack.pop()
            for d in exits(grid[ci][cj], cc) - {cc}:
                if (ci, cj) == (n - 1, n - 1) and d == RIGHT:
                    return True
                ni, nj = ci + STEP[d][0], cj + STEP[d][1]
                state = (ni, nj, (d + 2) % 4)
                if 0 <= ni < n and 0 <= nj < n and (ni, nj) not in on_path and state not in seen:
                    seen.add(state)
                    stack.append(state)
        return False

    def walk(i, j, came) -> bool:
        piece = grid[i][j]
        if piece not in UNROTATED or not end_reachable(i, j, came):
            return False
        on_path.add((i, j))
        for turn in range(4):
            opens = turned(piece, turn)
            if came not in opens:
                continue
            turns[i][j] = turn
            for d in sorted(opens - {came}):
                if (i, j) == (n - 1, n - 1) and d == RIGHT:
                    return True
                ni, nj = i + STEP[d][0], j + STEP[d][1]
                if 0 <= ni < n and 0 <= nj < n and (ni, nj) not in on_path:
                    if walk(ni, nj, (d + 2) % 4):
                        return True
        turns[i][j] = 0
        on_path.discard((i, j))
        return False

    return turns if walk(0, 0, LEFT) else None


def show(grid) -> str:
    return "\n".join(" ".join(row) for row in grid)


class PipeGame(KorgymGame):
    name = "pipe_game"
    folder = "35-pipe_game"
    title = "Pipe Game"
    dimension = "SGR"
    answer_format = "an n×n list of quarter turns, e.g. [[0,1,2],[3,0,1],[2,2,0]]"

    def generate(self, seed, rng):
        n = rng.randint(4, 6)
        grid = make_grid(rng, n)
        return {
            "board": PROMPT.format(board=show(grid)),
            "puzzle_grid": grid,
            "grid_size": n,
            "endpoints": {"start": [0, 0], "end": [n - 1, n - 1]},
            "answer": str([[0] * n for _ in range(n)]),
            "score": 0,
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
        }

    def board(self, item):
        return PROMPT.format(board=show(item["puzzle_grid"]))

    def verify(self, item, action, rng):
        """KORGym reads the action as a Python literal; anything but an n×n list of lists
        scores 0; a rotation that breaks its check is an error, scored 0."""
        item = self.copy(item)
        item["action"] = action
        n = item["grid_size"]
        try:
            turns = ast.literal_eval(action)
        except Exception:  # KORGym scores any unreadable answer 0 and ends
            item.update(score=0, is_end=True)
            return item
        if not (
            isinstance(turns, list)
            and len(turns) == n
            and all(isinstance(row, list) and len(row) == n for row in turns)
        ):
            item.update(score=0, is_end=True)
            return item
        try:
            through = water_gets_through(item["puzzle_grid"], turns)
        except Exception:  # KORGym's server fails (500); its evaluator scores 0
            item["score"] = 0
            return item
        item.update(score=1 if through else 0, is_end=True)
        return item

    def display(self, item, *, finished=False):
        """The pieces as KORGym names them, water coming in at the start's left and going
        out at the end's right."""
        start, end = (tuple(item["endpoints"][k]) for k in ("start", "end"))
        rows = []
        for i, row in enumerate(item["puzzle_grid"]):
            line = []
            for j, piece in enumerate(row):
                tone = "start" if (i, j) == start else "end" if (i, j) == end else "path"
                label = {" ": "a piece open on all four sides"}.get(piece, f"piece {piece}")
                line.append(draw.cell(piece, tone, label))
            rows.append(line)
        return draw.grid(rows, caption="Water enters left of the top left cell", coords=True)

    def reference(self, item, rng):
        """The rotations ``solve`` finds; a few of KORGym's grids have no way through (a
        four-way cell, shown ' ', blocks every path), and then KORGym's own all-zero
        ``answer`` is played, which loses."""
        turns = solve(item["puzzle_grid"])
        if turns is None:
            return [item["answer"].replace(" ", "")]
        return [str(turns).replace(" ", "")]


GAME = PipeGame()
