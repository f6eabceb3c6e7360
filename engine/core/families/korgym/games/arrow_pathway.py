"""14-Arrow-pathway (spatial and geometric reasoning): a walker starts at 'P' on the edge of
an n×n maze (n from 7 to 15) moving in a given direction and goes straight until a device
turns it; the player places the devices (a direction and a cell each) so that the walker
passes waypoints 1, 2 and 3 in order without leaving the board or entering a wall. Single
turn: the answer is a Python list such as [['R', 3, 2], ['U', 0, 2]]; 1 if the walk meets
the waypoints in order, else 0.

KORGym's verifier, kept as it is: devices are used strictly in the given order, each when
the walker stands on its cell (the next device only; a device whose cell the walker never
reaches blocks the rest); a waypoint counts only in its turn; the walk is cut after 1000
steps. The board lists the letters of KORGym's own solution ("Device Actions"), but the
verifier does not hold the player to them: any devices that lead the walker through the
waypoints score 1. An answer ``ast.literal_eval`` cannot read, or of the wrong shape,
scores 0.
"""

from __future__ import annotations

import ast
from collections import deque

from engine.core.families.korgym.common import KorgymGame, symbol_grid

PROMPT = """
You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should \
be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is \
your final answer to the question,e.g."Answer: [['R',3,2], ['U',0,2], ...]".

Given an 'n*n' maze containing empty spaces ('E'), a protagonist ('P'), walls ('X'), and \
numbered waypoints ('digits') that must be visited in sequence. You are provided with an \
initial player movement direction ('up/down/left/right') and a series of player actions \
('U/D/L/R') along with their respective counts. The player needs to produce an action \
sequence such that the protagonist changes direction automatically when reaching each \
waypoint, ensuring that waypoints are visited sequentially. The action sequence must \
trigger the waypoints strictly in order; if the second waypoint isn't triggered, subsequent \
waypoints will not be triggered even if visited.The coordinates in the top left corner are \
[0,0].

Please output the sequence of actions and corresponding trigger positions in the following \
format:
'Answer: [['R',3,2], ['U',0,2], ...]'
Maze Board:
{board}
Current Direction:{direction}
Device Actions:{letters}
"""

HEADINGS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
LETTERS = {"up": "U", "down": "D", "left": "L", "right": "R"}
NAMES = {letter: name for name, letter in LETTERS.items()}
WAYPOINTS = 3
MAX_STEPS = 1000


def _heading(a: tuple[int, int], b: tuple[int, int]) -> str | None:
    for name, (dr, dc) in HEADINGS.items():
        if (a[0] + dr, a[1] + dc) == tuple(b):
            return name
    return None


def _straight(a: tuple[int, int], b: tuple[int, int], across_first: bool) -> list:
    """The L-shaped path from a to b, along the row first or along the column first."""
    (r0, c0), (r1, c1) = a, b
    cols = range(c0 + 1, c1 + 1) if c1 > c0 else range(c0 - 1, c1 - 1, -1)
    rows = range(r0 + 1, r1 + 1) if r1 > r0 else range(r0 - 1, r1 - 1, -1)
    if across_first:
        return [a] + [(r0, c) for c in cols] + [(r, c1) for r in rows]
    return [a] + [(r, c0) for r in rows] + [(r1, c) for c in cols]


def _turns(path: list, heading: str) -> int:
    count = 0
    for a, b in zip(path, path[1:], strict=False):
        step = _heading(a, b)
        if step != heading:
            count += 1
            heading = step
    return count


def run(devices, maze: list[list[str]], heading: str) -> int:
    """KORGym's walk: 1 if the walker meets every waypoint in order, else 0. ``devices`` is
    whatever the answer parses to; a wrong shape raises, as in KORGym (which scores 0)."""
    n = len(maze)
    start = next(((i, j) for i in range(n) for j in range(n) if maze[i][j] == "P"), None)
    if start is None:
        return 0
    last = max((int(cell) for row in maze for cell in row if cell.isdigit()), default=0)
    here, used, expected = start, 0, 1
    for _ in range(MAX_STEPS):
        if used < len(devices):
            device = devices[used]
            if here == (device[1], device[2]):
                heading = NAMES[device[0]]
                used += 1
        cell = maze[here[0]][here[1]]
        if cell.isdigit() and int(cell) == expected:
            expected += 1
            if expected > last and last > 0:
                return 1
        step = HEADINGS.get(heading)
        if step is None:
            return 0
        r, c = here[0] + step[0], here[1] + step[1]
        if not (0 <= r < n and 0 <= c < n) or maze[r][c] == "X":
            return 0
        here = (r, c)
    return 0


class ArrowPathway(KorgymGame):
    name = "arrow_pathway"
    folder = "14-Arrow-pathway"
    title = "Arrow Pathway"
    dimension = "SGR"
    answer_format = "a Python list of devices [direction letter, row, column], e.g. [['R',3,2]]"

    def generate(self, seed, rng):
        n = rng.randint(7, 15)
        heading = rng.choice(list(HEADINGS))
        edge = {
            "right": lambda: (rng.randint(0, n - 1), 0),
            "left": lambda: (rng.randint(0, n - 1), n - 1),
            "down": lambda: (0, rng.randint(0, n - 1)),
            "up": lambda: (n - 1, rng.randint(0, n - 1)),
        }
        start = edge[heading]()
        waypoints: list[tuple[int, int]] = []
        for _ in range(WAYPOINTS):
            cell = (rng.randint(0, n - 1), rng.randint(0, n - 1))
            while cell == start or cell in waypoints:
                cell = (rng.randint(0, n - 1), rng.randint(0, n - 1))
            waypoints.append(cell)
        # The solution path: to each waypoint in turn by the L-shaped path with fewer turns
        # (along the row first on a tie), counting a turn at the start of the leg.
        path = [start]
        here, going = start, heading
        for waypoint in waypoints:
            across = _straight(here, waypoint, True)
            down = _straight(here, waypoint, False)
            leg = across if _turns(across, going) <= _turns(down, going) else down
            going = _heading(leg[-2], leg[-1])
            path.extend(leg[1:])
            here = waypoint
        devices = []
        if _heading(path[0], path[1]) != heading:
            devices.append([LETTERS[_heading(path[0], path[1])], path[0][0], path[0][1]])
        for i in range(1, len(path) - 1):
            before, after = _heading(path[i - 1], path[i]), _heading(path[i], path[i + 1])
            if after != before:
                devices.append([LETTERS[after], path[i][0], path[i][1]])
        on_path = set(path)
        maze = [["E" if (i, j) in on_path else "X" for j in range(n)] for i in range(n)]
        maze[start[0]][start[1]] = "P"
        for number, (r, c) in enumerate(waypoints, start=1):
            maze[r][c] = str(number)
        for i in range(n):
            for j in range(n):
                if (i, j) not in on_path:
                    maze[i][j] = "E" if rng.random() < 0.4 else "X"
        return {
            "maze": maze,
            "initial_direction": heading,
            "device_actions": devices,
            "score": 0,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": "",
            "epoch": 1,
            "n": n,
        }

    def board(self, item):
        return PROMPT.format(
            board="".join(" ".join(row) + "\n" for row in item["maze"]),
            direction=item["initial_direction"],
            letters=[device[0] for device in item["device_actions"]],
        )

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            item["score"] = run(ast.literal_eval(action), item["maze"], item["initial_direction"])
        except Exception:  # KORGym scores any failure to read or walk the answer 0
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        return symbol_grid(
            item["maze"],
            {"P": "player", "E": "floor", "X": "wall", "1": "goal", "2": "goal", "3": "goal"},
            texts={"E": "", "X": ""},
            labels={"P": "walker", "E": "empty", "X": "wall"},
            caption=f"The walker starts {item['initial_direction']}; pass 1, 2 and 3 in order",
            coords=True,
        )

    def reference(self, item, rng):
        """KORGym's own solution (the devices it lists) when its walk wins; otherwise the
        fewest devices found by a breadth-first search over (cell, heading, next waypoint),
        a device being placed where the walker turns (it goes straight in between, so it
        never meets a later device's cell early)."""
        maze, heading = item["maze"], item["initial_direction"]
        if run(item["device_actions"], maze, heading):
            return [str(item["device_actions"])]
        return [str(search(maze, heading))]


def search(maze: list[list[str]], heading: str) -> list:
    n = len(maze)
    start = next((i, j) for i in range(n) for j in range(n) if maze[i][j] == "P")
    last = max(int(cell) for row in maze for cell in row if cell.isdigit())
    # A state is where the walker stands, its heading, the waypoint it needs next, and
    # whether a device was used on this cell already (one device per visit).
    first = (start, heading, 1, False)
    came_from: dict = {first: None}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        here, going, expected, turned = state
        cell = maze[here[0]][here[1]]
        if cell.isdigit() and int(cell) == expected:
            expected += 1
            if expected > last:
                devices = []
                while came_from[state] is not None:
                    state, device = came_from[state]
                    if device:
                        devices.append(device)
                return devices[::-1]
        options = [(going, None)]
        if not turned:
            options += [(name, [LETTERS[name], *here]) for name in HEADINGS if name != going]
        for name, device in options:
            if device:
                nxt = (here, name, state[2], True)
            else:
                dr, dc = HEADINGS[name]
                r, c = here[0] + dr, here[1] + dc
                if not (0 <= r < n and 0 <= c < n) or maze[r][c] == "X":
                    continue
                nxt = ((r, c), name, expected, False)
            if nxt not in came_from:
                came_from[nxt] = (state, device)
                queue.append(nxt)
    raise ValueError("no walk meets the waypoints")


GAME = ArrowPathway()
