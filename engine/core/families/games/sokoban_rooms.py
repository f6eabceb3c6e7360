"""Sokoban (spatial and geometric; written afresh): push every box onto a goal square.

Rooms are made backwards so that every one is solvable: boxes start on the goals and the
player walks the room pulling them (the reverse of a push) at random; where that leaves
them is the start. The fewest moves (steps and pushes alike) are then found by
breadth-first search over (player, boxes), with boxes pushed into a corner off the goals
pruned (they can never move again); a room whose search grows too large is drawn again.
The score is that optimum over the moves used when every box is on a goal.
"""

from __future__ import annotations

from collections import deque

from engine.core.families.base import Kind, Parameter
from engine.core.families.display import cell, grid
from engine.core.families.games.common import (
    ARROW_KEYS,
    Game,
    IllegalMove,
    Step,
    plural,
    read_direction,
)

STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
SEARCH_LIMIT = 60_000  # (player, boxes) states a room's optimum may take to find


def _room_text(walls, goals, boxes, player, size) -> str:
    lines = []
    for r in range(-1, size + 1):
        cells = []
        for c in range(-1, size + 1):
            square = (r, c)
            if not (0 <= r < size and 0 <= c < size) or square in walls:
                cells.append("#")
            elif square in boxes:
                cells.append("*" if square in goals else "$")
            elif square == player:
                cells.append("+" if square in goals else "@")
            else:
                cells.append("." if square in goals else "_")
        lines.append("".join(cells))
    return "\n".join(lines)


def _open(square, walls, size) -> bool:
    r, c = square
    return 0 <= r < size and 0 <= c < size and square not in walls


def _dead(square, walls, goals, size) -> bool:
    """A box on a non-goal square with walls on two sides at a corner can never move."""
    if square in goals:
        return False
    r, c = square
    up, down = not _open((r - 1, c), walls, size), not _open((r + 1, c), walls, size)
    left, right = not _open((r, c - 1), walls, size), not _open((r, c + 1), walls, size)
    return (up or down) and (left or right)


def _shortest(walls, goals, boxes, player, size) -> list[str] | None:
    """The fewest moves putting every box on a goal (breadth-first search), or None if none
    is found within SEARCH_LIMIT states."""
    start = (player, boxes)
    parents: dict = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        at, held = state
        if held == goals:
            path = []
            while parents[state] is not None:
                state, move = parents[state]
                path.append(move)
            return path[::-1]
        for name, (dr, dc) in STEPS.items():
            step = (at[0] + dr, at[1] + dc)
            if not _open(step, walls, size):
                continue
            moved = held
            if step in held:
                beyond = (step[0] + dr, step[1] + dc)
                if not _open(beyond, walls, size) or beyond in held:
                    continue
                if _dead(beyond, walls, goals, size):
                    continue
                moved = (held - {step}) | {beyond}
            nxt = (step, moved)
            if nxt not in parents:
                parents[nxt] = (state, name)
                if len(parents) > SEARCH_LIMIT:
                    return None
                queue.append(nxt)
    return None


class Sokoban(Game):
    dimension = "spatial_geometric"
    keys = ARROW_KEYS
    kind = Kind(
        "sokoban",
        "Sokoban: push the boxes onto the goals",
        "a move up, down, left or right",
        (
            Parameter("size", 6, 4, 8, "squares per side inside the walls"),
            Parameter("boxes", 2, 1, 3, "boxes"),
            Parameter("pulls", 20, 5, 80, "random backward moves that made the start"),
            Parameter("least", 10, 3, 30, "fewest moves a start may need"),
        ),
        {"easy": {"size": 5, "boxes": 1, "pulls": 20, "least": 6},
         "medium": {"size": 6, "boxes": 2, "pulls": 40, "least": 12},
         "hard": {"size": 7, "boxes": 2, "pulls": 60, "least": 16}},
    )  # fmt: skip

    def generate(self, rng, params):
        size, count = params["size"], params["boxes"]
        while True:
            squares = [(r, c) for r in range(size) for c in range(size)]
            walls = frozenset(rng.sample(squares, rng.randint(0, size - 2)))
            floor = [s for s in squares if s not in walls]
            if len(floor) < count + 4:
                continue
            goals = frozenset(rng.sample(floor, count))
            boxes = set(goals)
            player = rng.choice([s for s in floor if s not in boxes])
            for _ in range(params["pulls"]):
                name = rng.choice(sorted(STEPS))
                dr, dc = STEPS[name]
                step = (player[0] + dr, player[1] + dc)
                if not _open(step, walls, size) or step in boxes:
                    continue
                behind = (player[0] - dr, player[1] - dc)
                if behind in boxes and rng.random() < 0.8:
                    boxes.remove(behind)
                    boxes.add(player)
                player = step
            boxes = frozenset(boxes)
            if boxes == goals or any(_dead(b, walls, goals, size) for b in boxes):
                continue
            path = _shortest(walls, goals, boxes, player, size)
            if path and len(path) >= params["least"]:
                break
        view = _room_text(walls, goals, boxes, player, size)
        text = (
            f"Sokoban. Push every box onto a goal square:\n{view}\n# wall, _ floor, . goal, "
            "$ box, * box on a goal, @ you (+ on a goal). A move (up, down, left or right) "
            "steps one square; stepping into a box pushes it one square further if that "
            "square is free (floor or goal). Boxes cannot be pulled, and one push moves one "
            "box. The score is the fewest moves possible over the moves you use."
        )
        public = {
            "text": text,
            "size": size,
            "walls": sorted(list(w) for w in walls),
            "goals": sorted(list(g) for g in goals),
            "boxes": sorted(list(b) for b in boxes),
            "player": list(player),
            "turn_limit": 3 * len(path) + 10,
            "view": view,
        }
        return public, {"optimum": len(path), "reference": path}

    def initial(self, public, hidden):
        return {
            "size": public["size"],
            "walls": frozenset(tuple(w) for w in public["walls"]),
            "goals": frozenset(tuple(g) for g in public["goals"]),
            "boxes": frozenset(tuple(b) for b in public["boxes"]),
            "player": tuple(public["player"]),
            "optimum": hidden["optimum"],
        }

    def play(self, state, move):
        name = read_direction(move)
        dr, dc = STEPS[name]
        size, walls, boxes = state["size"], state["walls"], state["boxes"]
        at = state["player"]
        step = (at[0] + dr, at[1] + dc)
        if not _open(step, walls, size):
            raise IllegalMove(f"a wall is in the way ({name})")
        if step in boxes:
            beyond = (step[0] + dr, step[1] + dc)
            if not _open(beyond, walls, size) or beyond in boxes:
                raise IllegalMove(f"the box cannot be pushed {name}: something is behind it")
            boxes = (boxes - {step}) | {beyond}
        new = {**state, "player": step, "boxes": boxes}
        view = _room_text(walls, state["goals"], boxes, step, size)
        done = boxes == state["goals"]
        return new, Step({"view": view, "on_goals": len(boxes & state["goals"])}, done)

    def score(self, state, moves, public):
        return state["optimum"] / moves if state["boxes"] == state["goals"] and moves else 0.0

    def display(self, public, state, *, finished=False):
        size, walls, goals = state["size"], state["walls"], state["goals"]
        boxes, player = state["boxes"], state["player"]

        def square(r: int, c: int) -> dict:
            at = (r, c)
            if not (0 <= r < size and 0 <= c < size) or at in walls:
                return cell("", "wall", "wall")
            if at in boxes:
                if at in goals:
                    return cell("■", "box-on-goal", "a box on a goal")
                return cell("■", "box", "a box")
            if at == player:
                if at in goals:
                    return cell("●", "player-on-goal", "you, on a goal")
                return cell("●", "player", "you")
            if at in goals:
                return cell("◎", "goal", "a goal")
            return cell("", "floor", "floor")

        on = len(boxes & goals)
        return grid(
            ([square(r, c) for c in range(-1, size + 1)] for r in range(-1, size + 1)),
            caption=f"{on} of {plural(len(goals), 'box', 'boxes')} on goals",
        )

    def describe(self, observation):
        return f"{plural(observation['on_goals'], 'box', 'boxes')} on goals"

    def reference(self, public, hidden):
        return list(hidden["reference"])


SOKOBAN_GAMES = (Sokoban(),)
