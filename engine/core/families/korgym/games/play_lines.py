"""13-play_lines (spatial and geometric reasoning): a "Flow"-style puzzle: fill every empty
cell ('E') of a square board with numbers so that each pair of equal numbers is joined by
one unbranched line, walls ('X') staying; single turn, the answer the filled board as a
Python list of rows; 1 if every pair is joined, no 'E' is left and no line branches.

KORGym's generator draws a size (5 to 10), 3 to 5 pairs and 1 to 3 walls, then tries up
to 5,000–10,000 random layouts (shuffled cells: each pair's first end, its second the
first cell not beside it, walls drawn from the rest) before drawing the size again. A
layout is kept when the pairs, joined in order of decreasing distance by breadth-first
shortest paths, cover the board and pass its no-branching check; its "forced extension"
step can never lead to a kept layout (a shortest path has no shortcuts, so an extension
always lengthens a line past one of its ends, which the check then refuses), so here a
layout is kept exactly when the shortest paths cover the board. For the seeds tried only
5×5 boards with three pairs came out, after 100,000–450,000 layouts: KORGym's generator
takes minutes of CPU a seed, this one (the same draws, leaner checks) about ten seconds.
The starting item has ``score`` 1 (KORGym marks a generated puzzle so); the
verifier sets it. KORGym keeps no solution; here the item also holds the generator's
filled board (``solution``, on the server only) for the reference player.

KORGym's verifier, kept as it is: the answer is read with ``ast.literal_eval``. The
pairs' numbers come back from KORGym's item as text (JSON keys), so a cell joins a line
only when it is the *string* '1', '2', … (as the prompt's example writes them): a board of
bare numbers scores 0. A line is checked from its first end, whose own cell is not looked
at; the board's size for the no-branching check is the answer's row count (a ragged or
short answer can crash KORGym's verifier: 0).
"""

from __future__ import annotations

import ast
import random

from engine.core.families.korgym.common import KorgymGame, colours, symbol_grid

PROMPT = """
You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should \
be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is \
your final answer to the question, e.g., "Answer: [['E','X','E',...],['E','1','1',...]...]".

Next, I will provide an n*n chessboard. On the chessboard, 'E' indicates that the element \
is an empty space, 'X' indicates a node that cannot be passed through, and numbers indicate \
nodes that need to be connected. You need to fill in the numbers on the empty spaces of the \
chessboard so that all identical numbers on the chessboard are connected.Moreover, the final \
chessboard must not have any empty spaces; every cell must be filled with a number (or \
remain 'X' if it's an impassable cell). Importantly, the connection for each color must \
form a single continuous line without branching For example, if the initial chessboard is:
E E E E E
E X E 3 E
E 3 E 1 E
E 2 E E E
1 E E 2 E
The filled chessboard could be:
2 2 2 2 2
2 X 3 3 2
2 3 3 1 2
2 2 1 1 2
1 1 1 2 2
When all the numbers on the chessboard are connected, it is considered a game victory, and \
you score 1 point; otherwise, if any number does not meet the connection requirement, the \
score will be 0.

Board:
{board}
Please output the answer in the form of a list within one line and do not break lines when \
outputting Answer, e.g., "Answer: [['E','X','E',...],['E','1','1',...]...]".
"""

STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # KORGym's search order: up, down, left, right


def _neighbours(size: int) -> list[list[int]]:
    """For each cell (flat index), its neighbours in KORGym's search order."""
    table = []
    for cell in range(size * size):
        r, c = divmod(cell, size)
        table.append(
            [
                (r + dr) * size + c + dc
                for dr, dc in STEPS
                if 0 <= r + dr < size and 0 <= c + dc < size
            ]
        )
    return table


def _shortest(cells: list, start: int, end: int, colour: int, near: list[list[int]]):
    """KORGym's breadth-first path from start to end over empty cells and cells of the
    colour (the first found among the shortest, in its search order), or None. The path
    is fixed once the end is first reached, so the search stops there."""
    came_from = [-1] * len(cells)
    came_from[start] = start
    frontier = [start]
    while frontier:
        following = []
        for cell in frontier:
            for nxt in near[cell]:
                if came_from[nxt] < 0 and (cells[nxt] == "E" or cells[nxt] == colour):
                    came_from[nxt] = cell
                    if nxt == end:
                        path = [nxt]
                        while nxt != start:
                            nxt = came_from[nxt]
                            path.append(nxt)
                        return path
                    following.append(nxt)
        frontier = following
    return None


def _python_shuffle(rng, size: int) -> list[int]:
    order = list(range(size))
    rng.shuffle(order)
    return order


def _quick_shuffle(rng, size: int) -> list[int]:
    """``rng.shuffle(list(range(size)))``, by Python's own algorithm written out (its
    ``_randbelow`` inlined): the same draws and order, about twice as fast. Used only when
    it agrees with this Python's ``shuffle`` (checked below)."""
    order = list(range(size))
    bits = rng.getrandbits
    for i in range(size - 1, 0, -1):
        bound = i + 1
        width = bound.bit_length()
        j = bits(width)
        while j >= bound:
            j = bits(width)
        order[i], order[j] = order[j], order[i]
    return order


def _pick_shuffle():
    ours, theirs = random.Random(2024), random.Random(2024)
    same = all(_quick_shuffle(ours, n) == _python_shuffle(theirs, n) for n in (25, 49, 100))
    return _quick_shuffle if same and ours.random() == theirs.random() else _python_shuffle


_shuffle = _pick_shuffle()


def _layout(size: int, colours: int, walls: int, rng, near):
    """One of KORGym's tries: the puzzle and its filled board (flat lists) if kept, else
    None. Draws from ``rng`` exactly as KORGym's try does, kept or not."""
    order = _shuffle(rng, size * size)
    cells: list = ["E"] * (size * size)
    ends = {}
    for colour in range(1, colours + 1):
        if len(order) < 2:
            return None
        first = order.pop()
        r0, c0 = divmod(first, size)
        for i, cell in enumerate(order):
            if abs(cell // size - r0) + abs(cell % size - c0) > 1:
                second = order.pop(i)
                break
        else:
            return None
        cells[first] = cells[second] = colour
        ends[colour] = (first, second, abs(second // size - r0) + abs(second % size - c0))
    for cell in rng.sample(order, min(walls, len(order))):
        cells[cell] = "X"
    puzzle = cells[:]
    # Joined in order of decreasing distance (a stable sort, as KORGym's).
    for colour in sorted(ends, key=lambda colour: ends[colour][2], reverse=True):
        path = _shortest(cells, ends[colour][0], ends[colour][1], colour, near)
        if path is None:
            return None
        for cell in path:
            cells[cell] = colour
    if "E" in cells:
        return None
    return puzzle, cells, {colour: pair[:2] for colour, pair in ends.items()}


def _rows(cells: list, size: int) -> list[list]:
    return [cells[i : i + size] for i in range(0, size * size, size)]


def _joined(grid, start, end, colour, size) -> bool:
    """KORGym's check that a line of ``colour`` joins the ends: a breadth-first search
    from ``start`` (its own cell not looked at) over cells equal to the colour."""
    seen = {start}
    frontier = [start]
    while frontier:
        following = []
        for r, c in frontier:
            if (r, c) == end:
                return True
            for dr, dc in STEPS:
                nr, nc = r + dr, c + dc
                if 0 <= nr < size and 0 <= nc < size and (nr, nc) not in seen:
                    if nr < len(grid) and nc < len(grid[nr]):
                        cell = grid[nr][nc]
                        if cell != "X" and cell == colour:
                            seen.add((nr, nc))
                            following.append((nr, nc))
        frontier = following
    return False


def _unbranched(grid, ends: dict) -> bool:
    """KORGym's no-branching check: per pair, the cells of its number over the whole board
    first (the board's size taken as the answer's row count, so a short row raises
    IndexError, as KORGym's crashes), then each end must have one like neighbour and every
    other cell two."""
    size = len(grid)
    for colour, (start, end) in ends.items():
        cells = [(i, j) for i in range(size) for j in range(size) if grid[i][j] == colour]
        found = 0
        for i, j in cells:
            same = 0
            for dr, dc in STEPS:
                if 0 <= i + dr < size and 0 <= j + dc < size and grid[i + dr][j + dc] == colour:
                    same += 1
            if (i, j) in (start, end):
                if same != 1:
                    return False
                found += 1
            elif same != 2:
                return False
        if found != 2:
            return False
    return True


class PlayLines(KorgymGame):
    name = "play_lines"
    folder = "13-play_lines"
    title = "Playlines"
    dimension = "SGR"
    answer_format = "the filled board as a Python list of rows, e.g. [['1','1','X'],...]"

    def generate(self, seed, rng):
        while True:
            size = rng.randint(5, 10)
            colours = rng.randint(3, 5)
            walls = rng.randint(1, 3)
            tries = rng.randint(5000, 10000)
            near = _neighbours(size)
            for _ in range(tries):
                kept = _layout(size, colours, walls, rng, near)
                if kept is None:
                    continue
                puzzle, filled, ends = kept
                return {
                    "puzzle_grid": _rows(puzzle, size),
                    # As KORGym's item comes back from its app: the pairs keyed by their
                    # number as text, each a pair of [row, column].
                    "endpoints": {
                        str(colour): [list(divmod(cell, size)) for cell in pair]
                        for colour, pair in ends.items()
                    },
                    "score": 1,
                    "is_end": False,
                    "response": [],
                    "prompt": "",
                    "action": "",
                    "epoch": 1,
                    "grid_size": size,
                    "solution": [[str(cell) for cell in row] for row in _rows(filled, size)],
                }

    def board(self, item):
        shown = "".join("".join(str(cell) for cell in row) + "\n" for row in item["puzzle_grid"])
        return PROMPT.format(board=shown)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            grid = ast.literal_eval(action)
        except (ValueError, SyntaxError):
            item["score"], item["is_end"] = 0, True
            return item
        except Exception:  # KORGym's verifier crashes: a failed verification, 0
            item["score"] = 0
            return item
        item["score"], item["is_end"] = 0, True
        if not isinstance(grid, list) or not all(isinstance(row, list) for row in grid):
            return item
        ends = {
            colour: (tuple(pair[0]), tuple(pair[1])) for colour, pair in item["endpoints"].items()
        }
        size = item["grid_size"]
        if not all(_joined(grid, *pair, colour, size) for colour, pair in ends.items()):
            return item
        if any("E" in row for row in grid):
            return item
        try:
            item["score"] = int(_unbranched(grid, ends))
        except IndexError:  # KORGym's verifier crashes: 0, and the game is not marked over
            item["is_end"] = False
        return item

    def display(self, item, *, finished=False):
        """The numbered ends of each line, blank cells to fill, X cells closed."""
        grid = item["puzzle_grid"]
        tones = colours(item["endpoints"])
        tones.update({"E": "empty", "X": "wall"})
        return symbol_grid(
            grid,
            tones,
            texts={"E": "", "X": ""},
            labels={"E": "empty", "X": "blocked"},
            caption="Join each pair of numbers",
            coords=True,
        )

    def reference(self, item, rng):
        """The generator's own filled board, its numbers written as text."""
        return [str(item["solution"])]


GAME = PlayLines()
