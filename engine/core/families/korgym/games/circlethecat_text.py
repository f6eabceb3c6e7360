"""40-CircleTheCat-Text (strategic reasoning): an 11×11 hex grid (odd rows shifted left),
the cat in the middle, about 15% of the cells walls. Each turn the player walls an empty
cell and the cat steps to a neighbouring empty cell; the player wins when the cat cannot
move, loses when it reaches the edge. Multi-turn; 1 for a win, else 0.

The cat's move, as KORGym's: a free neighbour on the edge if there is one (the first in
KORGym's neighbour order); otherwise, for each free neighbour in order, the longest way out
the player could force with one more wall (a breadth-first distance to the edge that never
passes the cat's present cell, for every empty cell walled in turn), and the neighbour
where that is shortest (the first on ties). When every neighbour can be walled in by one
wall, the cat takes the first neighbour, unless no later wall in KORGym's scan reopens a
way out, when KORGym's cat gives up: the player wins. Here the scan only runs the search
for walls on a shortest way out (any other wall leaves the distance as it is), which gives
the same distances much faster.

KORGym keeps each game on its server under a random id (``uid``, a uuid4) and reads the
walls and the cat from there; here the item itself is the whole state (the walls and the
cat are its board's '1' and 'C'), so there is no ``uid``.

Flaws of KORGym's code, kept here:

* The prompt forbids walls on exits, but any empty cell is accepted, edge cells included.
* When the cat's step would reach the edge, the game ends (lost) with the cat still shown
  where it was.
* The cat may "give up" (the player wins) while it still has a free neighbour, as above.
* An action that is not two integers, or an occupied or outside cell, only costs the turn.
* The prompt says "X Y" is a coordinate without saying which is the row: it is row, then
  column, as the rules' (r, c).
"""

from __future__ import annotations

from collections import deque

from engine.core.families.korgym.common import KorgymGame, new_item, symbol_grid

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n- Second, output the "
    "answer in the required format. The last line of your response should be in the "
    "following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is your "
    "final answer to the question,e.g.'Answer: LEFT'\n\n"
    "Below is a hexagonal board represented in a textual 11×11 grid. Each cell is labeled "
    "with a character. “E” stands for an exit, “1” stands for a wall, “C” stands for the "
    "cat, and “0” stands for an empty space. Although shown as an 11×11 grid, each row in a "
    "hex grid is slightly offset from its neighbors, and each cell has up to six neighbors "
    "(rather than four or eight as in a square grid).\n\n"
    "Specifically, for a cell at coordinates (r, c): if r is even, the adjacent cells are "
    "(r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c), and (r+1, c+1). If r is odd, the "
    "adjacent cells are (r-1, c-1), (r-1, c), (r, c-1), (r, c+1), (r+1, c-1), and (r+1, c)."
    "\n\n"
    "In this game, the cat (“C”) aims to reach any exit (“E”) on the boundary. You aim to "
    "trap the cat by placing walls (“1”) so that it can no longer move to an exit. You and "
    "the cat take turns. On the cat’s turn, it moves to an adjacent empty cell (“0”) if "
    "possible. On your turn, you place a wall on a currently empty cell (“0”), but not on an "
    "exit cell (“E”). If the cat reaches an exit (“E”), you lose. If the cat cannot move and "
    "is not on an exit, you win.\n\n"
    "Your task is to first give your move according to the current board and rules. Then, "
    "output the move in the required format. The last line of your response should be "
    "“Answer: X Y”, where (X, Y) is the coordinate where you choose to place a wall.\n\n"
    "The board layout (textual hex grid) is shown below:\n"
    "{board}\n"
)

SIZE = 11
INF = float("inf")


def neighbours(cell):
    r, c = cell
    if r % 2 == 1:
        offsets = ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 0))
    else:
        offsets = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1))
    return [(r + dr, c + dc) for dr, dc in offsets if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE]


def on_edge(cell) -> bool:
    return cell[0] in (0, SIZE - 1) or cell[1] in (0, SIZE - 1)


def depths(start, blocked) -> dict:
    """Breadth-first depths from ``start`` through cells not ``blocked``."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for nxt in neighbours(cell):
            if nxt not in seen and nxt not in blocked:
                seen[nxt] = seen[cell] + 1
                queue.append(nxt)
    return seen


def way_out(start, blocked) -> float:
    """KORGym's distance: one more than the depth of the nearest edge cell reachable from
    ``start`` through cells not ``blocked``; infinite when there is none."""
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        cell, depth = queue.popleft()
        if on_edge(cell):
            return depth + 1
        for nxt in neighbours(cell):
            if nxt not in seen and nxt not in blocked:
                seen.add(nxt)
                queue.append((nxt, depth + 1))
    return INF


def cat_move(grid, cat):
    """KORGym's choice of the cat's next cell (module docstring), or None: the cat stays
    (it is walled in, or gives up)."""
    walls = {(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == "1"}
    moves = [cell for cell in neighbours(cat) if grid[cell[0]][cell[1]] == "0"]
    if not moves:
        return None
    for cell in moves:
        if on_edge(cell):
            return cell
    blocked = walls | {cat}
    empty = [(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == "0"]
    best, best_longest, any_reopening = None, INF, False
    for move in moves:
        candidates = [cell for cell in empty if cell != move]
        base = way_out(move, blocked)
        if not candidates:
            if base < best_longest:
                best, best_longest = move, base
            continue
        if base == INF:
            on_shortest: set = set()
        else:
            # Cells on some shortest way out: a wall elsewhere leaves the distance alone.
            from_cat = depths(move, blocked)
            edges = [cell for cell in from_cat if on_edge(cell)]
            to_edge = {cell: 0 for cell in edges}
            queue = deque(edges)
            while queue:
                cell = queue.popleft()
                for nxt in neighbours(cell):
                    if nxt in from_cat and nxt not in to_edge:
                        to_edge[nxt] = to_edge[cell] + 1
                        queue.append(nxt)
            on_shortest = {
                cell
                for cell, depth in from_cat.items()
                if cell in to_edge and depth + to_edge[cell] == base - 1
            }
        longest, reopened = 0, False
        for wall in candidates:
            if base == INF:
                distance = INF
            elif wall in on_shortest:
                distance = way_out(move, blocked | {wall})
            else:
                distance = base
            if distance > longest:
                longest = distance
            if distance < longest:
                reopened = True
        any_reopening = any_reopening or reopened
        if longest < best_longest:
            best, best_longest = move, longest
    if best is not None:
        return best
    return moves[0] if any_reopening else None


class CircleTheCat(KorgymGame):
    name = "circlethecat_text"
    folder = "40-CircleTheCat-Text"
    title = "Circle the Cat"
    dimension = "SR"
    multi_turn = True
    answer_format = "the row and column of the cell to wall, e.g. 3 4"
    not_reproduced = ("uid",)

    def generate(self, seed, rng):
        grid = [["0"] * SIZE for _ in range(SIZE)]
        middle = SIZE // 2
        grid[middle][middle] = "C"
        for r in range(SIZE):
            for c in range(SIZE):
                if (r, c) != (middle, middle) and rng.random() < 0.15:
                    grid[r][c] = "1"
        return new_item(
            board=grid,
        )

    def board(self, item):
        grid = item["board"]
        rows = []
        for r, row in enumerate(grid):
            rows.append(
                "".join(
                    "E" if value == "0" and on_edge((r, c)) else value
                    for c, value in enumerate(row)
                )
                + "\n"
            )
        return PROMPT.format(board="".join(rows))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["epoch"] += 1
        score, over = self._play(item, action)
        item.update(score=score, is_end=bool(over))
        return item

    def _play(self, item, action):
        """KORGym's turn on ``item["board"]`` (changed in place): (score, end)."""
        try:
            r, c = map(int, action.strip().split())
        except Exception:  # KORGym: any unreadable action only costs the turn
            return 0, 0
        grid = item["board"]
        if not (0 <= r < SIZE and 0 <= c < SIZE) or grid[r][c] != "0":
            return 0, 0
        grid[r][c] = "1"
        cat = next((i, j) for i in range(SIZE) for j in range(SIZE) if grid[i][j] == "C")
        step = cat_move(grid, cat)
        if step is None:
            return 1, 1
        if on_edge(step):
            return 0, 1
        grid[cat[0]][cat[1]] = "0"
        grid[step[0]][step[1]] = "C"
        if all(grid[i][j] == "1" for i, j in neighbours(step)):
            return 1, 1
        return 0, 0

    def display(self, item, *, finished=False):
        """The hex grid as its rows (odd rows sit half a cell to the left)."""
        rows = [
            ["E" if value == "0" and on_edge((r, c)) else value for c, value in enumerate(row)]
            for r, row in enumerate(item["board"])
        ]
        return symbol_grid(
            rows,
            {"0": "empty", "E": "end", "1": "wall", "C": "enemy"},
            texts={"0": "", "E": "", "1": ""},
            labels={"0": "empty", "E": "exit", "1": "wall", "C": "cat"},
            caption="Wall the cat (C) in; odd rows sit half a cell to the left",
            coords=True,
        )

    def reference(self, item, rng):
        return plan(item)


def _standing(item) -> tuple:
    """How well the player stands after a turn, smaller being better: won first, lost
    last; then the cat's distance to the edge (longer is better; shut in is best), the
    number of edge cells at that distance, and the room the cat has."""
    if item["is_end"]:
        return (0,) if item["score"] else (9,)
    grid = item["board"]
    cat = next((i, j) for i in range(SIZE) for j in range(SIZE) if grid[i][j] == "C")
    walls = {(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == "1"}
    room = depths(cat, walls | {cat})
    out = way_out(cat, walls)
    if out == INF:
        return (1, -99, 0, len(room))
    nearest = sum(1 for cell, depth in room.items() if on_edge(cell) and depth == out - 1)
    return (1, -out, nearest, len(room))


def plan(item, width: int = 6, turns: int = 60, reach: int = 2) -> list[str]:
    """A beam search for a won game: each turn, walls near the cat or on its shortest ways
    out are tried, the cat's answer played by KORGym's rule, and the ``width`` best
    positions kept (``_standing``). The first won line is returned; none found, the best
    line's actions (a loss). It won from each of seeds 0 to 10 (6 to 25 seconds each)."""
    beam = [(_standing(item), [], item)]
    for _ in range(turns):
        grown = []
        for _, actions, state in beam:
            grid = state["board"]
            cat = next((i, j) for i in range(SIZE) for j in range(SIZE) if grid[i][j] == "C")
            walls = {(r, c) for r in range(SIZE) for c in range(SIZE) if grid[r][c] == "1"}
            near = depths(cat, walls | {cat})
            tried = sorted(
                cell
                for cell, depth in near.items()
                if 0 < depth <= reach and grid[cell[0]][cell[1]] == "0"
            )
            base = way_out(cat, walls)
            if base != INF:
                from_edge = {}
                edges = [cell for cell in near if on_edge(cell)]
                from_edge = {cell: 0 for cell in edges}
                queue = deque(edges)
                while queue:
                    cell = queue.popleft()
                    for nxt in neighbours(cell):
                        if nxt in near and nxt not in from_edge:
                            from_edge[nxt] = from_edge[cell] + 1
                            queue.append(nxt)
                tried += sorted(
                    cell
                    for cell, depth in near.items()
                    if depth > reach and depth + from_edge.get(cell, INF) == base - 1
                )
            for cell in tried:
                action = f"{cell[0]} {cell[1]}"
                after = GAME.verify(state, action, None)
                standing = _standing(after)
                if standing == (0,):
                    return [*actions, action]
                if standing != (9,):
                    grown.append((standing, [*actions, action], after))
        if not grown:
            break
        grown.sort(key=lambda entry: entry[0])
        beam = grown[:width]
    return beam[0][1] if beam else []


GAME = CircleTheCat()
