"""Two games with chance in them, held out (written afresh):

* ``game_2048`` (strategic): slide the tiles of a 4 x 4 board and merge equal ones towards
  a target tile;
* ``snake`` (control and interaction): steer a growing snake to apples that appear one at a
  time.

What chance brings (2048's new tiles, the next apple) is drawn on the server from the
game's secret seed and the move number, so replaying the moves rebuilds the same game and
nothing about a future draw exists in any reply before it happens. Both report KORGym's own
score as ``points`` (2048: the sum of merged tiles; snake: apples eaten), log-scaled in the
capability dimensions, and a 0–1 ``score``: 1 for reaching the target tile / eating every
apple, else the share of the way (2048: log2 of the best tile over log2 of the target).

The reference players may read the seed (they are the server's yardstick, not a player): a
beam search that knows the coming tiles, and a breadth-first path finder that knows where
each apple will appear. A seed whose game the reference cannot win is never issued.
"""

from __future__ import annotations

import math
import random
from collections import deque

from engine.core.families.base import Kind, Parameter
from engine.core.families.display import cell, grid, tile_tone
from engine.core.families.games.common import (
    ARROW_KEYS,
    Game,
    IllegalMove,
    Step,
    plural,
    read_direction,
)

# -- 2048 ---------------------------------------------------------------------------------


def _slide_row(row: list[int]) -> tuple[list[int], int]:
    """A row slid to the left: equal neighbours merge once; (row, points gained)."""
    tiles = [v for v in row if v]
    out, points, i = [], 0, 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(2 * tiles[i])
            points += 2 * tiles[i]
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (4 - len(out)), points


def _lines(direction: str) -> list[list[int]]:
    """Square indices of each line, in the order tiles slide along it."""
    rows = [[r * 4 + c for c in range(4)] for r in range(4)]
    cols = [[r * 4 + c for r in range(4)] for c in range(4)]
    return {
        "left": rows,
        "right": [line[::-1] for line in rows],
        "up": cols,
        "down": [line[::-1] for line in cols],
    }[direction]


def _shift(board: tuple[int, ...], direction: str) -> tuple[tuple[int, ...], int]:
    cells, points = list(board), 0
    for line in _lines(direction):
        slid, gained = _slide_row([board[i] for i in line])
        points += gained
        for i, value in zip(line, slid, strict=True):
            cells[i] = value
    return tuple(cells), points


def _spawn(board: tuple[int, ...], seed: int, draw: int) -> tuple[int, ...]:
    """One new tile: 2 (9 in 10) or 4, on an empty square, drawn from the seed and the
    draw's number."""
    rng = random.Random(f"2048/{seed}/{draw}")
    empty = [i for i, v in enumerate(board) if not v]
    if not empty:
        return board
    square = rng.choice(empty)
    cells = list(board)
    cells[square] = 4 if rng.random() < 0.1 else 2
    return tuple(cells)


def _tiles(board: tuple[int, ...]) -> str:
    return "\n".join(" ".join(f"{board[r * 4 + c] or '.':>4}" for c in range(4)) for r in range(4))


# The corner-snake weights of the reference's evaluation: big tiles along one edge, in order.
WEIGHTS = (15, 14, 13, 12, 8, 9, 10, 11, 7, 6, 5, 4, 0, 1, 2, 3)


def _worth(board: tuple[int, ...]) -> float:
    return sum(v * 2.0**w for v, w in zip(board, WEIGHTS, strict=True) if v) / 2**14 + 64 * sum(
        1 for v in board if not v
    )


class Game2048(Game):
    dimension = "strategic"
    keys = ARROW_KEYS
    log_scaled = True
    kind = Kind(
        "game_2048",
        "2048: merge tiles up to a target",
        "a move up, down, left or right",
        (
            Parameter("target", 128, 32, 512, "the tile to make"),
            Parameter("turns", 120, 20, 400, "moves allowed"),
        ),
        {"easy": {"target": 64, "turns": 60}, "medium": {"target": 128, "turns": 120},
         "hard": {"target": 256, "turns": 220}},
    )  # fmt: skip

    def generate(self, rng, params):
        if params["target"] & (params["target"] - 1):
            raise ValueError("the target must be a power of two")
        while True:
            seed = rng.randrange(2**40)
            board = _spawn(_spawn((0,) * 16, seed, -1), seed, 0)
            public = self._public(board, params)
            found = self._search(public, {"seed": seed})
            if found is not None:  # kept: the search is the costly part of a game
                return public, {"seed": seed, "reference": found}

    def _public(self, board, params) -> dict:
        text = (
            "2048 on a 4 x 4 board (. empty):\n"
            f"{_tiles(board)}\nA move (up, down, left or right) slides every tile that way "
            "as far as it goes; two equal tiles that meet merge into their sum (a tile "
            "merges once per move) and the merged value is added to your points. After each "
            "move that changes the board a new tile (2, sometimes 4) appears on an empty "
            "square; a move that changes nothing is not allowed. "
            f"Make a {params['target']} tile within {params['turns']} moves: that scores 1; "
            "otherwise the score is log2 of your best tile over "
            f"log2({params['target']})."
        )
        return {
            "text": text,
            "board": list(board),
            "target": params["target"],
            "turn_limit": params["turns"],
            "view": _tiles(board),
        }

    def initial(self, public, hidden):
        return {
            "board": tuple(public["board"]),
            "points": 0,
            "moves": 0,
            "seed": hidden["seed"],
            "target": public["target"],
        }

    def play(self, state, move):
        direction = read_direction(move)
        board, gained = _shift(state["board"], direction)
        if board == state["board"]:
            raise IllegalMove(f"moving {direction} changes nothing")
        moves = state["moves"] + 1
        board = _spawn(board, state["seed"], moves)
        new = {**state, "board": board, "points": state["points"] + gained, "moves": moves}
        stuck = not any(_shift(board, d)[0] != board for d in ("up", "down", "left", "right"))
        shown = {"view": _tiles(board), "points": new["points"], "best": max(board)}
        return new, Step(shown, stuck or self._won(new))

    @staticmethod
    def _won(state) -> bool:
        return max(state["board"]) >= state["target"]

    def score(self, state, moves, public):
        if self._won(state):
            return 1.0
        return min(0.99, math.log2(max(state["board"])) / math.log2(public["target"]))

    def points(self, state, moves, public):
        return float(state["points"])

    def display(self, public, state, *, finished=False):
        board = state["board"]
        return grid(
            (
                [
                    cell(v, tile_tone(v), f"tile {v}") if v else cell("", "empty", "empty")
                    for v in board[r * 4 : r * 4 + 4]
                ]
                for r in range(4)
            ),
            caption=(
                f"Target {public['target']} · best tile {max(board)} · points {state['points']}"
            ),
        )

    def solution_text(self, public, hidden):
        moves = self.reference(public, hidden)
        return (
            f"Make a {public['target']} tile. A player who knew the coming tiles made it in "
            f"{len(moves)} moves: {', '.join(moves)}"
        )

    def describe(self, observation):
        return f"{observation['points']} points, best tile {observation['best']}"

    def reference(self, public, hidden):
        return list(hidden["reference"])

    def _search(self, public, hidden, beam: int = 6) -> list[str] | None:
        """Moves reaching the target within the turn limit, by a beam search over the
        known future tiles (the best few boards by a corner-snake evaluation kept at each
        move), or None."""
        seed, target = hidden["seed"], public["target"]
        frontier = [(tuple(public["board"]), ())]
        for moves in range(1, public["turn_limit"] + 1):
            options = []
            for board, path in frontier:
                for direction in ("left", "up", "right", "down"):
                    shifted, _ = _shift(board, direction)
                    if shifted == board:
                        continue
                    if max(shifted) >= target:
                        return [*path, direction]
                    new = _spawn(shifted, seed, moves)
                    options.append((_worth(new), new, (*path, direction)))
            if not options:
                return None
            options.sort(key=lambda option: -option[0])
            frontier = [(new, path) for _, new, path in options[:beam]]
        return None


# -- snake ----------------------------------------------------------------------------------

STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _apple(seed: int, eaten: int, n: int, body: tuple) -> tuple[int, int]:
    """Where apple number ``eaten`` appears: drawn from the seed when it is due."""
    rng = random.Random(f"snake/{seed}/{eaten}")
    free = [(r, c) for r in range(n) for c in range(n) if (r, c) not in body]
    return rng.choice(free)


class Snake(Game):
    dimension = "control_interaction"
    keys = ARROW_KEYS
    log_scaled = True
    kind = Kind(
        "snake",
        "Snake: eat the apples",
        "a move up, down, left or right",
        (
            Parameter("size", 8, 5, 12, "squares per side inside the walls"),
            Parameter("apples", 5, 1, 15, "apples to eat"),
        ),
        {"easy": {"size": 6, "apples": 3}, "medium": {"size": 8, "apples": 5},
         "hard": {"size": 10, "apples": 8}},
    )  # fmt: skip

    def generate(self, rng, params):
        n = params["size"]
        while True:
            seed = rng.randrange(2**40)
            head = (n // 2, n // 2)
            public = {
                "size": n,
                "apples": params["apples"],
                "start": list(head),
                "turn_limit": params["apples"] * 4 * n,
            }
            hidden = {"seed": seed}
            state = self.initial(public, hidden)
            public["view"] = self._view(state)
            if self._path_to_all(public, hidden) is not None:
                break
        public["text"] = (
            f"Snake on a {n} x {n} board inside walls (# wall, H the snake's head, S its "
            "body, A an apple, . empty):\n"
            f"{public['view']}\nEach move steps the head one square up, down, left or right "
            "and the body follows. Eating an apple makes the snake one square longer; the "
            "next apple then appears somewhere empty. Running into a wall or into the snake "
            f"itself ends the game, and the snake cannot turn straight back. Eat "
            f"{params['apples']} apples within {public['turn_limit']} moves: the score is the "
            "share of the apples eaten."
        )
        return public, hidden

    def initial(self, public, hidden):
        n = public["size"]
        body = (tuple(public["start"]),)
        return {
            "n": n,
            "body": body,  # head first
            "apple": _apple(hidden["seed"], 0, n, body),
            "eaten": 0,
            "goal": public["apples"],
            "seed": hidden["seed"],
            "heading": "up",
            "dead": False,
        }

    def _view(self, state) -> str:
        n = state["n"]
        rows = [["."] * n for _ in range(n)]
        for r, c in state["body"][1:]:
            rows[r][c] = "S"
        if state["apple"] is not None:
            rows[state["apple"][0]][state["apple"][1]] = "A"
        hr, hc = state["body"][0]
        rows[hr][hc] = "X" if state["dead"] else "H"
        wall = "#" * (n + 2)
        return "\n".join([wall, *("#" + "".join(row) + "#" for row in rows), wall])

    def play(self, state, move):
        direction = read_direction(move)
        if len(state["body"]) > 1 and direction == OPPOSITE[state["heading"]]:
            raise IllegalMove(f"the snake cannot turn straight back ({direction})")
        n = state["n"]
        (hr, hc), (dr, dc) = state["body"][0], STEPS[direction]
        head = (hr + dr, hc + dc)
        eats = head == state["apple"]
        body = (head, *state["body"][: None if eats else -1])
        if not (0 <= head[0] < n and 0 <= head[1] < n) or head in body[1:]:
            dead = {**state, "dead": True, "heading": direction}
            what = "the wall" if not (0 <= head[0] < n and 0 <= head[1] < n) else "itself"
            return dead, Step(
                {"result": f"the snake ran into {what}", "eaten": state["eaten"]}, True
            )
        eaten = state["eaten"] + eats
        done = eaten >= state["goal"]
        apple = state["apple"]
        if eats:
            apple = None if done or len(body) == n * n else _apple(state["seed"], eaten, n, body)
        new = {**state, "body": body, "apple": apple, "eaten": eaten, "heading": direction}
        shown = {"view": self._view(new), "eaten": eaten}
        if eats:
            shown["ate"] = True
        return new, Step(shown, done or apple is None)

    def score(self, state, moves, public):
        return state["eaten"] / state["goal"]

    def points(self, state, moves, public):
        return float(state["eaten"])

    def display(self, public, state, *, finished=False):
        n, body = state["n"], state["body"]
        head, rest = body[0], set(body[1:])

        def square(r: int, c: int) -> dict:
            if (r, c) == head:
                crashed = ": crashed" if state["dead"] else ""
                return cell("●", "snake-head", f"the snake's head{crashed}")
            if (r, c) in rest:
                return cell("", "snake", "the snake")
            if state["apple"] is not None and (r, c) == tuple(state["apple"]):
                return cell("●", "food", "an apple")
            return cell("", "floor", "empty")

        return grid(
            ([square(r, c) for c in range(n)] for r in range(n)),
            caption=f"{state['eaten']} of {state['goal']} apples eaten; walls all around",
        )

    def solution_text(self, public, hidden):
        moves = self.reference(public, hidden)
        return (
            f"Eat {plural(public['apples'], 'apple')}. A player who knew where each apple would "
            f"appear did it in {len(moves)} moves: {', '.join(moves)}"
        )

    def describe(self, observation):
        said = [f"{plural(observation.get('eaten', 0), 'apple')} eaten"]
        if observation.get("ate"):
            said.insert(0, "ate an apple")
        if "result" in observation:
            said.append(observation["result"])
        return "; ".join(said)

    def reference(self, public, hidden):
        found = self._path_to_all(public, hidden)
        if found is None:  # pragma: no cover - generate() issues only seeds it wins
            raise ValueError("the reference cannot finish this game")
        return found

    def _path_to_all(self, public, hidden) -> list[str] | None:
        """Moves eating every apple within the turn limit: each time a shortest safe path
        to the apple (the body moving along as it goes), preferring one after which the
        head can still reach the tail; None if some apple cannot be reached that way."""
        state, moves = self.initial(public, hidden), []
        while state["eaten"] < state["goal"]:
            path = _safe_path(state)
            if path is None:
                return None
            for direction in path:
                state, step = self.play(state, direction)
                moves.append(direction)
                if state["dead"]:
                    return None
            if len(moves) > public["turn_limit"]:
                return None
            if step.over:
                break
            if not _tail_reachable(state["body"], state["n"]):
                return None  # a seed whose next apple might trap the snake: not issued
        return moves if state["eaten"] >= state["goal"] else None


def _safe_path(state) -> list[str] | None:
    """A shortest path for the head to the apple, by breadth-first search over squares with
    time: a body square is free from the move at which the tail has passed it (the segment
    ``i`` squares behind the head leaves after ``len(body) - i`` moves)."""
    n, apple, body = state["n"], state["apple"], state["body"]
    length = len(body)
    frees_at = {square: length - i for i, square in enumerate(body)}
    start = body[0]
    parents: dict[tuple[int, int], tuple | None] = {start: None}
    queue = deque([(start, 0)])
    while queue:
        square, t = queue.popleft()
        for direction, (dr, dc) in STEPS.items():
            if t == 0 and length > 1 and direction == OPPOSITE[state["heading"]]:
                continue
            nxt = (square[0] + dr, square[1] + dc)
            if not (0 <= nxt[0] < n and 0 <= nxt[1] < n) or nxt in parents:
                continue
            if frees_at.get(nxt, 0) > t + 1:
                continue
            parents[nxt] = (square, direction)
            if nxt == apple:
                path, at = [], nxt
                while parents[at] is not None:
                    at, step = parents[at]
                    path.append(step)
                return path[::-1]
            queue.append((nxt, t + 1))
    return None


def _tail_reachable(body: tuple, n: int) -> bool:
    if len(body) < 3:
        return True
    blocked = set(body[1:-1])
    start, tail = body[0], body[-1]
    queue, seen = deque([start]), {start}
    while queue:
        r, c = queue.popleft()
        for dr, dc in STEPS.values():
            nxt = (r + dr, c + dc)
            if nxt == tail:
                return True
            if 0 <= nxt[0] < n and 0 <= nxt[1] < n and nxt not in blocked and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


ARCADE_GAMES = (Game2048(), Snake())
