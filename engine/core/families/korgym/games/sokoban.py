"""12-sokoban (spatial and geometric reasoning): push every box ('B') onto a target ('T')
on an 8×8 board walled round, with one to three boxes; single turn, the answer a Python
list of moves ('up', 'down', 'left', 'right'); 1 if the boxes all stand on targets at some
point of the walk, else 0. The board after the answer shows where the walk left the player
and the boxes, as KORGym's does.

KORGym's generator draws a player, boxes, targets and walls (each free cell a wall with
chance 0.2) until the player can reach every box, each box has a target it could be
pushed towards, no box starts in a corner, and a search finds the puzzle solvable; the
boolean checks are KORGym's, the search here an equivalent one (the same puzzles pass).

KORGym's verifier, kept as it is: the answer is read with ``ast.literal_eval`` (anything
it cannot read scores 0 and moves nothing); words other than the four moves are skipped;
a move into a wall, or pushing a box into a wall or another box, does nothing; the walk
stops with 1 as soon as every box is on a target. An answer that is not a sequence (a
number) crashes KORGym's verifier: 0, nothing moved. Board coordinates in KORGym's item are
(x, y), x across.
"""

from __future__ import annotations

import ast
from collections import deque

from engine.core.families.korgym.common import KorgymGame, overlay, symbol_grid

PROMPT = """

You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should \
be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is \
your final answer to the question,e.g."Answer: ['up','down','down',...]"
Next, I will provide you with a Sokoban puzzle. You need to give a solution (push all boxes \
into the target areas) as a list. The map symbols are:

- 'I' indicates the player's position.
- 'B' indicates boxes.
- 'T' indicates target areas where boxes should be moved.
- 'X' indicates walls.

You can choose from the following movements:

- 'up' indicates moving one step upward.
- 'down' indicates moving one step downward.
- 'left' indicates moving one step to the left.
- 'right' indicates moving one step to the right.

Important rules to remember:

- The player can push only one box at a time. If two boxes are aligned in the moving \
direction, the player cannot push them.
- Walls block the player's movement.
- The game is won only when all boxes are pushed into target areas.
- You must output the solution as a list of strings with each move in lowercase, e.g., \
"Answer: ['up','down','down',...]".

Game Board:
{board}
"""

WIDTH = HEIGHT = 8
MOVES = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))

Cell = tuple[int, int]


def _open(grid: list[list[str]], x: int, y: int) -> bool:
    return 0 <= x < len(grid[0]) and 0 <= y < len(grid) and grid[y][x] != "X"


def _region(grid, start: Cell, blocked=frozenset()) -> dict[Cell, Cell | None]:
    """The cells reachable from ``start`` (walls and ``blocked`` cells stop it), each with
    the cell it was reached from."""
    came_from: dict[Cell, Cell | None] = {start: None}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in STEPS:
            nxt = (x + dx, y + dy)
            if nxt not in came_from and _open(grid, *nxt) and nxt not in blocked:
                came_from[nxt] = (x, y)
                queue.append(nxt)
    return came_from


def _could_head_for(grid, box: Cell, target: Cell) -> bool:
    """KORGym's rough test that a box can be pushed towards a target: along each axis the
    target lies off, the cell behind the box and the cell ahead of it are open."""
    x, y = box
    tx, ty = target
    ahead = []
    if tx != x:
        step = 1 if tx > x else -1
        ahead.append((x + step, y))
        if not _open(grid, x - step, y):
            return False
    if ty != y:
        step = 1 if ty > y else -1
        ahead.append((x, y + step))
        if not _open(grid, x, y - step):
            return False
    return all(_open(grid, *cell) for cell in ahead)


def _cornered(grid, box: Cell) -> bool:
    """A wall below or above the box together with a wall beside it (KORGym's test)."""
    x, y = box
    wall = lambda cx, cy: 0 <= cx < len(grid[0]) and 0 <= cy < len(grid) and grid[cy][cx] == "X"  # noqa: E731
    for dy in (1, -1):
        for dx in (-1, 1):
            if 0 <= y + dy < len(grid) and 0 <= x + dx < len(grid[0]):
                if wall(x, y + dy) and wall(x + dx, y):
                    return True
    return False


def solve(grid, player: Cell, boxes: list[Cell], targets: list[Cell]) -> list[tuple] | None:
    """The fewest pushes that put every box on a target, each push (box, step), or None
    when there are none: a breadth-first search over box places, the player's place
    reduced to the area it can reach, never pushing a box into a corner off the targets
    (which cannot change whether there is a solution)."""
    goal = frozenset(targets)

    def state(at: Cell, placed: frozenset) -> tuple:
        return min(_region(grid, at, placed)), placed

    first = state(player, frozenset(boxes))
    came_from: dict = {first: None}
    queue = deque([(first, player)])
    while queue:
        current, at = queue.popleft()
        placed = current[1]
        if placed == goal:
            pushes = []
            while came_from[current] is not None:
                current, push = came_from[current]
                pushes.append(push)
            return pushes[::-1]
        reach = _region(grid, at, placed)
        for box in placed:
            for dx, dy in STEPS:
                ahead = (box[0] + dx, box[1] + dy)
                if (box[0] - dx, box[1] - dy) in reach and _open(grid, *ahead):
                    # A box pushed into a corner off the targets can never leave it.
                    if ahead in placed or (ahead not in goal and _cornered(grid, ahead)):
                        continue
                    moved = (placed - {box}) | {ahead}
                    nxt = state(box, moved)
                    if nxt not in came_from:
                        came_from[nxt] = (current, (box, (dx, dy)))
                        queue.append((nxt, box))
    return None


def _path(grid, start: Cell, end: Cell, blocked) -> list[str]:
    came_from = _region(grid, start, blocked)
    names = {step: name for name, step in MOVES.items()}
    moves = []
    while end != start:
        before = came_from[end]
        moves.append(names[(end[0] - before[0], end[1] - before[1])])
        end = before
    return moves[::-1]


class Sokoban(KorgymGame):
    name = "sokoban"
    folder = "12-sokoban"
    title = "Sokoban"
    dimension = "SGR"
    answer_format = "a Python list of moves, e.g. ['up','down','left']"

    def generate(self, seed, rng):
        count = rng.randint(1, 3)
        inner = lambda: (rng.randint(1, WIDTH - 2), rng.randint(1, HEIGHT - 2))  # noqa: E731
        while True:
            grid = [["E"] * WIDTH for _ in range(HEIGHT)]
            player = inner()
            taken = {player}
            placed: dict[str, list[Cell]] = {"B": [], "T": []}
            for kind in ("B", "T"):
                for _ in range(count):
                    cell = inner()
                    while cell in taken:
                        cell = inner()
                    taken.add(cell)
                    placed[kind].append(cell)
            boxes, targets = placed["B"], placed["T"]
            grid[player[1]][player[0]] = "I"
            for kind, cells in placed.items():
                for x, y in cells:
                    grid[y][x] = kind
            for y in range(HEIGHT):
                for x in range(WIDTH):
                    if grid[y][x] == "E" and rng.random() < 0.2:
                        grid[y][x] = "X"
            for i in range(WIDTH):
                grid[0][i] = grid[HEIGHT - 1][i] = "X"
            for i in range(HEIGHT):
                grid[i][0] = grid[i][WIDTH - 1] = "X"
            region = _region(grid, player)
            if not all(box in region for box in boxes):
                continue
            if not all(
                any(t in _region(grid, box) and _could_head_for(grid, box, t) for t in targets)
                and not _cornered(grid, box)
                for box in boxes
            ):
                continue
            if solve(grid, player, boxes, targets) is not None:
                return {
                    "score": 0,
                    "is_end": False,
                    "response": [],
                    "prompt": "",
                    "action": "",
                    "epoch": 1,
                    "width": WIDTH,
                    "height": HEIGHT,
                    "n": count,
                    "map_data": grid,
                    "target_positions": [list(cell) for cell in targets],
                    "player_pos": list(player),
                    "box_positions": [list(cell) for cell in boxes],
                }

    def board(self, item):
        shown = [row[:] for row in item["map_data"]]
        player = tuple(item["player_pos"])
        boxes = [tuple(cell) for cell in item["box_positions"]]
        for x, y in map(tuple, item["target_positions"]):
            if (x, y) != player and (x, y) not in boxes:
                shown[y][x] = "T"
        for x, y in boxes:
            shown[y][x] = "B"
        shown[player[1]][player[0]] = "I"
        return PROMPT.format(board="".join("".join(row) + "\n" for row in shown))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["score"] = 0
        try:
            moves = iter(ast.literal_eval(action))
        except Exception:  # unreadable (KORGym: 0) or not a sequence (KORGym crashes: 0)
            return item
        grid = item["map_data"]
        targets = {tuple(cell) for cell in item["target_positions"]}
        boxes = [tuple(cell) for cell in item["box_positions"]]
        x, y = item["player_pos"]
        won = False
        for move in moves:
            if not isinstance(move, str) or move not in MOVES:
                continue
            dx, dy = MOVES[move]
            if not _open(grid, x + dx, y + dy):
                continue
            if (x + dx, y + dy) in boxes:
                ahead = (x + 2 * dx, y + 2 * dy)
                if not _open(grid, *ahead) or ahead in boxes:
                    continue
                boxes[boxes.index((x + dx, y + dy))] = ahead
                grid[y + dy][x + dx] = "T" if (x + dx, y + dy) in targets else "E"
                grid[ahead[1]][ahead[0]] = "B"
            grid[y][x] = "T" if (x, y) in targets else "E"
            x, y = x + dx, y + dy
            grid[y][x] = "I"
            if set(boxes) == targets:
                won = True
                break
        item["player_pos"] = [x, y]
        item["box_positions"] = [list(cell) for cell in boxes]
        item["score"] = int(won)
        return item

    def display(self, item, *, finished=False):
        """Walls, goals, boxes and the player where the item has them (after the answer,
        where its moves left them)."""
        targets = {tuple(cell) for cell in item["target_positions"]}
        marks = {(y, x): "T" for x, y in targets}
        for x, y in map(tuple, item["box_positions"]):
            marks[(y, x)] = "B*" if (x, y) in targets else "B"
        x, y = item["player_pos"]
        marks[(y, x)] = "I*" if (x, y) in targets else "I"
        walls = [["X" if cell == "X" else "E" for cell in row] for row in item["map_data"]]
        return symbol_grid(
            overlay(walls, marks),
            {
                "X": "wall",
                "E": "floor",
                "T": "goal",
                "B": "box",
                "B*": "box-on-goal",
                "I": "player",
                "I*": "player-on-goal",
            },
            texts={"X": "", "E": "", "T": "", "B*": "B", "I*": "I"},
            labels={
                "X": "wall",
                "E": "floor",
                "T": "target",
                "B": "box",
                "B*": "box on a target",
                "I": "player",
                "I*": "player on a target",
            },
            caption="Push every box (B) onto a target",
        )

    def reference(self, item, rng):
        """The fewest pushes (breadth-first), walked between pushes by shortest paths."""
        grid = item["map_data"]
        player = tuple(item["player_pos"])
        boxes = {tuple(cell) for cell in item["box_positions"]}
        pushes = solve(grid, player, list(boxes), [tuple(c) for c in item["target_positions"]])
        if pushes is None:
            raise ValueError("this puzzle has no solution")
        names = {step: name for name, step in MOVES.items()}
        moves: list[str] = []
        for box, (dx, dy) in pushes:
            moves += _path(grid, player, (box[0] - dx, box[1] - dy), boxes)
            moves.append(names[(dx, dy)])
            boxes = (boxes - {box}) | {(box[0] + dx, box[1] + dy)}
            player = box
        return [str(moves)]


GAME = Sokoban()
