"""23-puzzlegame (spatial and geometric reasoning): a sliding-tile puzzle on an n×n grid
(n from 3 to 5); move one given tile (1, 2 or 3) to a given cell by sliding tiles into the
empty cell. Single turn: the answer is the tiles moved, in order, separated by spaces;
1 if every move is legal and the tile ends on the cell, else 0.

As KORGym's verifier does: an empty answer scores 0 even when the tile already stands on
its cell; a move of a number not on the board, a tile not beside the empty cell, or a word
ends the check with 0; the tile need only be on its cell after the last move. KORGym's
board prints the target cell as a Python list ("Target: move 2 to [3, 1]").
"""

from __future__ import annotations

from collections import deque

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame

PROMPT = """
You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should \
be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is \
your final answer to the question,e.g.'Answer: 15 3 4 2'

The goal of this game is to rearrange tiles into an n×n grid by moving a specified target \
tile to a target position. For example, if the input target is "4 (2,1)", you must move \
tile "4" to row 2, column 1 according to specific rules.

Rules:  
- Grid positions are indexed starting from 1, with the top-left coordinate as (1,1).  
- The puzzle consists of an n×n grid: n×n-1 numbered tiles and one empty space \
(represented by 0).  
- A tile can only be moved into the empty space if it is directly adjacent to it (left, \
right, above, or below).  
- Tiles cannot move diagonally. For example, in the following state, you cannot move tile \
"7" into the empty space:  
  5 6 8  
  7 2 3  
  1 0 4  

- Only one tile can be moved at each step.  
- The puzzle is completed when the target tile reaches the target position.  
- You must output your solution as a sequence of numbers separated by spaces. Each number \
indicates the tile moved into the empty space, following the above rules. For example:  
'Answer: 15 3 4 2'
{board}
"""  # noqa: W291 (KORGym's prompt has trailing spaces)

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _grid(text: str) -> list[list[int]]:
    return [[int(cell) for cell in row.split()] for row in text.splitlines() if row.strip()]


def _find(grid: list[list[int]], number: int) -> tuple[int, int] | None:
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == number:
                return r, c
    return None


def slide(grid: list[list[int]], moves: list[str]) -> list[list[int]] | None:
    """The grid after the moves (each a tile number), or None at the first bad move."""
    grid = [row[:] for row in grid]
    empty = _find(grid, 0)
    if empty is None:
        return None
    for move in moves:
        tile = _find(grid, int(move))
        if tile is None or abs(tile[0] - empty[0]) + abs(tile[1] - empty[1]) != 1:
            return None
        grid[empty[0]][empty[1]], grid[tile[0]][tile[1]] = grid[tile[0]][tile[1]], 0
        empty = tile
    return grid


class PuzzleGame(KorgymGame):
    name = "puzzlegame"
    folder = "23-puzzlegame"
    title = "8-puzzle"
    dimension = "SGR"
    answer_format = "the tiles to move, in order, separated by spaces (e.g. 15 3 4 2)"

    def generate(self, seed, rng):
        n = rng.randint(3, 5)
        tiles = n * n - 1
        cells = list(range(1, tiles + 1))
        odd = False
        # Shuffle all but the last two, then swap those two if the permutation is odd, so
        # the puzzle stays solvable (KORGym's construction).
        for i in range(tiles - 2):
            j = rng.randint(i, tiles - 1)
            odd ^= i != j
            cells[i], cells[j] = cells[j], cells[i]
        if odd:
            cells[-2], cells[-1] = cells[-1], cells[-2]
        cells.append(0)
        empty = tiles
        up, left = rng.randint(0, n - 1), rng.randint(0, n - 1)
        for step in [n] * up + [1] * left:
            cells[empty], cells[empty - step] = cells[empty - step], cells[empty]
            empty -= step
        board = "\n".join(" ".join(map(str, cells[i : i + n])) for i in range(0, len(cells), n))
        target = rng.randint(1, 3)
        cell = [rng.randint(1, n), rng.randint(1, n)]
        return {
            "board": board,
            "target_num": target,
            "target_grid": cell,
            "score": 0,
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
        }

    def board(self, item):
        target = f"Target: move {item['target_num']} to {item['target_grid']}"
        return PROMPT.format(board=item["board"] + "\n" + target)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        moves = action.strip().split()
        item["score"] = 0
        if not moves:
            return item
        try:
            grid = slide(_grid(item["board"]), moves)
        except ValueError:  # a move that is not a whole number
            return item
        if grid is not None:
            row, col = item["target_grid"]
            item["score"] = int(_find(grid, item["target_num"]) == (row - 1, col - 1))
        return item

    def display(self, item, *, finished=False):
        """The tiles (0 the gap), the tile to move and its target cell (1-based)."""
        target = item["target_num"]
        goal = (item["target_grid"][0] - 1, item["target_grid"][1] - 1)
        rows = []
        for i, row in enumerate(_grid(item["board"])):
            line = []
            for j, tile in enumerate(row):
                if tile == 0:
                    line.append(draw.cell("", "empty", "gap"))
                else:
                    tone = "highlight" if tile == target else "goal" if (i, j) == goal else ""
                    line.append(draw.cell(tile, tone))
            rows.append(line)
        return draw.grid(
            rows, caption=f"Move {target} to {item['target_grid']}", coords=True, origin=1
        )

    def reference(self, item, rng):
        """The fewest moves (at least one) that bring the tile to its cell: a breadth-first
        search over where the tile and the empty cell are, the other tiles being alike."""
        grid = _grid(item["board"])
        n = len(grid)
        goal = (item["target_grid"][0] - 1, item["target_grid"][1] - 1)
        start = (_find(grid, item["target_num"]), _find(grid, 0))
        came_from: dict = {}
        queue = deque([start])
        found = None
        while queue and found is None:
            tile, empty = queue.popleft()
            for dr, dc in STEPS:
                moved = (empty[0] + dr, empty[1] + dc)
                if not (0 <= moved[0] < n and 0 <= moved[1] < n):
                    continue
                state = (empty if moved == tile else tile, moved)
                if state in came_from:
                    continue
                came_from[state] = (tile, empty)
                if state[0] == goal:
                    found = state
                    break
                queue.append(state)
        empties = []
        state = found
        while state != start or not empties:
            empties.append(state[1])
            state = came_from[state]
        moves = []
        for r, c in reversed(empties):
            moves.append(str(grid[r][c]))
            slid = slide(grid, [moves[-1]])
            assert slid is not None
            grid = slid
        return [" ".join(moves)]


GAME = PuzzleGame()
