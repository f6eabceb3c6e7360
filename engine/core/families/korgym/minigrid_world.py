"""The MiniGrid worlds KORGym's 10-minigrid plays, written afresh: MiniGrid 2.5.0's rules
(the version KORGym vendors) for the 26 environments its game draws from, generated from
the same seed into the same boards.

MiniGrid draws every random choice from gymnasium's generator, ``numpy.random.Generator``
over PCG64 seeded with ``SeedSequence(seed)``; the code here makes the same draws, with the
same numpy calls, in the same order, so a seed gives KORGym's board cell for cell (and, for
the dynamic-obstacle worlds, the same obstacle moves turn by turn). The world is a grid of
cells, each empty (None) or an ``Obj``; the agent stands on a cell, faces one of four
directions and carries at most one object.

``World.to_json`` / ``World.from_json`` keep a world (its generator's state included) in a
task's hidden item between moves.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections import deque
from typing import Any

import numpy as np

# MiniGrid's tables (minigrid/core/constants.py).
COLOR_TO_IDX = {"red": 0, "green": 1, "blue": 2, "purple": 3, "yellow": 4, "grey": 5}
IDX_TO_COLOR = {v: k for k, v in COLOR_TO_IDX.items()}
COLOR_NAMES = sorted(COLOR_TO_IDX)  # blue, green, grey, purple, red, yellow
OBJECT_TO_IDX = {
    "unseen": 0, "empty": 1, "wall": 2, "floor": 3, "door": 4, "key": 5, "ball": 6,
    "box": 7, "goal": 8, "lava": 9, "agent": 10,
}  # fmt: skip
IDX_TO_OBJECT = {v: k for k, v in OBJECT_TO_IDX.items()}
DIR_TO_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))  # right, down, left, up

# Actions (minigrid/core/actions.py).
LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)

# KORGym's list (its ``env_names``), drawn from with ``random.sample(env_names, 1)``; two
# names appear twice, as in KORGym, which makes them twice as likely.
ENV_NAMES = (
    "MiniGrid-Empty-5x5-v0",
    "MiniGrid-DoorKey-6x6-v0",
    "MiniGrid-LavaGapS5-v0",
    "MiniGrid-BlockedUnlockPickup-v0",
    "MiniGrid-LavaCrossingS9N1-v0",
    "MiniGrid-LavaCrossingS11N5-v0",
    "MiniGrid-DistShift2-v0",
    "MiniGrid-DoorKey-5x5-v0",
    "MiniGrid-DoorKey-8x8-v0",
    "MiniGrid-Dynamic-Obstacles-5x5-v0",
    "MiniGrid-Dynamic-Obstacles-Random-5x5-v0",
    "MiniGrid-Empty-Random-6x6-v0",
    "MiniGrid-Fetch-5x5-N2-v0",
    "MiniGrid-Fetch-8x8-N3-v0",
    "MiniGrid-FourRooms-v0",
    "MiniGrid-GoToDoor-6x6-v0",
    "MiniGrid-GoToObject-6x6-N2-v0",
    "MiniGrid-KeyCorridorS3R2-v0",
    "MiniGrid-LavaGapS5-v0",
    "MiniGrid-LockedRoom-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0",
    "MiniGrid-ObstructedMaze-Full-v0",
    "MiniGrid-Playground-v0",
    "MiniGrid-PutNear-8x8-N3-v0",
    "MiniGrid-RedBlueDoors-6x6-v0",
    "MiniGrid-Unlock-v0",
    "MiniGrid-Unlock-v0",
)


class Obj:
    """A world object (MiniGrid's WorldObj): its type, colour, a door's state, a box's
    contents, and an id that stands for MiniGrid's object identity (``carrying == obj``)."""

    __slots__ = ("type", "color", "is_open", "is_locked", "contains", "oid")

    def __init__(self, type_: str, color: str, *, is_open=False, is_locked=False, contains=None):
        self.type = type_
        self.color = color
        self.is_open = is_open
        self.is_locked = is_locked
        self.contains = contains
        self.oid = 0

    def can_overlap(self) -> bool:
        return self.type in ("goal", "floor", "lava") or (self.type == "door" and self.is_open)

    def can_pickup(self) -> bool:
        return self.type in ("key", "ball", "box")

    def state(self) -> int:
        if self.type != "door":
            return 0
        return 0 if self.is_open else 2 if self.is_locked else 1

    def dump(self) -> list:
        return [
            OBJECT_TO_IDX[self.type],
            COLOR_TO_IDX[self.color],
            self.state(),
            self.oid,
            None if self.contains is None else self.contains.dump(),
        ]

    @classmethod
    def load(cls, data: list) -> Obj:
        kind, color, state, oid, contains = data
        obj = cls(
            IDX_TO_OBJECT[kind],
            IDX_TO_COLOR[color],
            is_open=state == 0 and kind == OBJECT_TO_IDX["door"],
            is_locked=state == 2,
            contains=None if contains is None else cls.load(contains),
        )
        obj.oid = oid
        return obj


def wall() -> Obj:
    return Obj("wall", "grey")


def goal() -> Obj:
    return Obj("goal", "green")


def lava() -> Obj:
    return Obj("lava", "red")


def door(color: str, locked: bool = False) -> Obj:
    return Obj("door", color, is_locked=locked)


def thing(kind: str, color: str) -> Obj:
    return Obj(kind, color)


# Cells no action changes (walls, goals, lava: never picked up, opened or moved), kept
# as one character each; a loaded world shares one object of each.
STATIC = {"wall": "#", "goal": "G", "lava": "~"}
FIXED = {"#": wall(), "G": goal(), "~": lava(), ".": None}
SHARED = {obj for obj in FIXED.values() if obj is not None}
# Loaded worlds' fixed cells by layout (a replay loads the same layout at every move).
_BASES: dict[str, tuple] = {}


class Room:
    """A room of a RoomGrid world (minigrid/core/roomgrid.py); doors and neighbours are
    listed right, down, left, up."""

    def __init__(self, top, size):
        self.top = top
        self.size = size
        self.doors: list = [None] * 4
        self.door_pos: list = [None] * 4
        self.neighbors: list = [None] * 4
        self.locked = False
        self.objs: list = []


class PlacementError(Exception):
    """MiniGrid's RecursionError: rejection sampling gave up."""


class World:
    def __init__(self, name: str, width: int, height: int, rng: np.random.Generator):
        self.name = name
        self.width = width
        self.height = height
        self.grid: list[Obj | None] = [None] * (width * height)
        self.rng = rng
        self.agent_pos: tuple[int, int] = (-1, -1)
        self.agent_dir = -1
        self.carrying: Obj | None = None
        self.step_count = 0
        self.max_steps = 100
        self.mission = ""
        self.extra: dict[str, Any] = {}
        self._next_oid = 1
        self.layout: str | None = None

    # -- the grid -----------------------------------------------------------------------

    def get(self, i: int, j: int) -> Obj | None:
        return self.grid[j * self.width + i]

    def set(self, i: int, j: int, obj: Obj | None) -> None:
        assert 0 <= i < self.width and 0 <= j < self.height
        if obj is not None and not obj.oid:
            obj.oid = self._next_oid
            self._next_oid += 1
        self.grid[j * self.width + i] = obj

    def horz_wall(self, x, y, length=None, make=wall):
        length = self.width - x if length is None else length
        for i in range(length):
            self.set(x + i, y, make())

    def vert_wall(self, x, y, length=None, make=wall):
        length = self.height - y if length is None else length
        for j in range(length):
            self.set(x, y + j, make())

    def wall_rect(self, x, y, w, h):
        self.horz_wall(x, y, w)
        self.horz_wall(x, y + h - 1, w)
        self.vert_wall(x, y, h)
        self.vert_wall(x + w - 1, y, h)

    # -- chance, as MiniGridEnv draws it --------------------------------------------------

    def rand_int(self, low: int, high: int) -> int:
        return int(self.rng.integers(low, high))

    def rand_bool(self) -> bool:
        return self.rng.integers(0, 2) == 0

    def rand_elem(self, items):
        items = list(items)
        return items[self.rand_int(0, len(items))]

    def rand_subset(self, items, count: int) -> list:
        items = list(items)
        out = []
        while len(out) < count:
            elem = self.rand_elem(items)
            items.remove(elem)
            out.append(elem)
        return out

    def place_obj(self, obj, top=None, size=None, reject=None, max_tries=None):
        top = (0, 0) if top is None else (max(top[0], 0), max(top[1], 0))
        size = (self.width, self.height) if size is None else size
        tries = 0
        while True:
            if max_tries is not None and tries > max_tries:
                raise PlacementError("rejection sampling failed in place_obj")
            tries += 1
            pos = (
                self.rand_int(top[0], min(top[0] + size[0], self.width)),
                self.rand_int(top[1], min(top[1] + size[1], self.height)),
            )
            if self.get(*pos) is not None or pos == tuple(self.agent_pos):
                continue
            if reject and reject(pos):
                continue
            break
        if obj is not None:
            self.set(*pos, obj)
        return pos

    def place_agent(self, top=None, size=None, rand_dir=True, max_tries=None):
        self.agent_pos = (-1, -1)
        self.agent_pos = self.place_obj(None, top, size, max_tries=max_tries)
        if rand_dir:
            self.agent_dir = self.rand_int(0, 4)
        return self.agent_pos

    # -- rooms (RoomGrid) -------------------------------------------------------------------

    def room_grid_init(self, room_size: int, rows: int, cols: int) -> None:
        self.room_size, self.num_rows, self.num_cols = room_size, rows, cols
        self.rooms = []
        for j in range(rows):
            row = []
            for i in range(cols):
                room = Room((i * (room_size - 1), j * (room_size - 1)), (room_size, room_size))
                row.append(room)
                self.wall_rect(*room.top, *room.size)
            self.rooms.append(row)
        for j in range(rows):
            for i in range(cols):
                room = self.rooms[j][i]
                x_l, y_l = room.top[0] + 1, room.top[1] + 1
                x_m, y_m = room.top[0] + room.size[0] - 1, room.top[1] + room.size[1] - 1
                if i < cols - 1:
                    room.neighbors[0] = self.rooms[j][i + 1]
                    room.door_pos[0] = (x_m, self.rand_int(y_l, y_m))
                if j < rows - 1:
                    room.neighbors[1] = self.rooms[j + 1][i]
                    room.door_pos[1] = (self.rand_int(x_l, x_m), y_m)
                if i > 0:
                    room.neighbors[2] = self.rooms[j][i - 1]
                    room.door_pos[2] = room.neighbors[2].door_pos[0]
                if j > 0:
                    room.neighbors[3] = self.rooms[j - 1][i]
                    room.door_pos[3] = room.neighbors[3].door_pos[1]
        self.agent_pos = (
            (cols // 2) * (room_size - 1) + room_size // 2,
            (rows // 2) * (room_size - 1) + room_size // 2,
        )
        self.agent_dir = 0

    def _reject_next_to(self, pos) -> bool:
        sx, sy = self.agent_pos
        return abs(sx - pos[0]) + abs(sy - pos[1]) < 2

    def place_in_room(self, i, j, obj):
        room = self.rooms[j][i]
        pos = self.place_obj(obj, room.top, room.size, self._reject_next_to, max_tries=1000)
        room.objs.append(obj)
        return obj, pos

    def add_object(self, i, j, kind=None, color=None):
        if kind is None:
            kind = self.rand_elem(["key", "ball", "box"])
        if color is None:
            color = self.rand_elem(COLOR_NAMES)
        return self.place_in_room(i, j, thing(kind, color))

    def add_door(self, i, j, door_idx=None, color=None, locked=None):
        room = self.rooms[j][i]
        if door_idx is None:
            while True:
                door_idx = self.rand_int(0, 4)
                if room.neighbors[door_idx] and room.doors[door_idx] is None:
                    break
        if color is None:
            color = self.rand_elem(COLOR_NAMES)
        if locked is None:
            locked = self.rand_bool()
        room.locked = locked
        made = door(color, locked)
        pos = room.door_pos[door_idx]
        self.set(*pos, made)
        room.doors[door_idx] = made
        room.neighbors[door_idx].doors[(door_idx + 2) % 4] = made
        return made, pos

    def remove_wall(self, i, j, wall_idx):
        room = self.rooms[j][i]
        tx, ty = room.top
        w, h = room.size
        if wall_idx == 0:
            cells = [(tx + w - 1, ty + k) for k in range(1, h - 1)]
        elif wall_idx == 1:
            cells = [(tx + k, ty + h - 1) for k in range(1, w - 1)]
        elif wall_idx == 2:
            cells = [(tx, ty + k) for k in range(1, h - 1)]
        else:
            cells = [(tx + k, ty) for k in range(1, w - 1)]
        for cell in cells:
            self.set(*cell, None)
        room.doors[wall_idx] = True
        room.neighbors[wall_idx].doors[(wall_idx + 2) % 4] = True

    def room_place_agent(self, i=None, j=None):
        if i is None:
            i = self.rand_int(0, self.num_cols)
        if j is None:
            j = self.rand_int(0, self.num_rows)
        room = self.rooms[j][i]
        while True:
            self.place_agent(room.top, room.size, True, max_tries=1000)
            front = self.get(*self.front_pos())
            if front is None or front.type == "wall":
                break
        return self.agent_pos

    def connect_all(self, max_itrs=5000):
        size = self.room_size - 1
        start = self.rooms[self.agent_pos[1] // size][self.agent_pos[0] // size]

        def reach():
            seen, stack = [], [start]
            while stack:
                room = stack.pop()
                if any(room is r for r in seen):
                    continue
                seen.append(room)
                stack.extend(room.neighbors[k] for k in range(4) if room.doors[k])
            return len(seen)

        itrs = 0
        while True:
            if itrs > max_itrs:
                raise PlacementError("connect_all failed")
            itrs += 1
            if reach() == self.num_rows * self.num_cols:
                break
            i = self.rand_int(0, self.num_cols)
            j = self.rand_int(0, self.num_rows)
            k = self.rand_int(0, 4)
            room = self.rooms[j][i]
            if not room.door_pos[k] or room.doors[k]:
                continue
            if room.locked or room.neighbors[k].locked:
                continue
            color = self.rand_elem(COLOR_NAMES)
            self.add_door(i, j, k, color, False)

    # -- play ---------------------------------------------------------------------------

    def front_pos(self) -> tuple[int, int]:
        dx, dy = DIR_TO_VEC[self.agent_dir]
        return (self.agent_pos[0] + dx, self.agent_pos[1] + dy)

    def reward(self) -> float:
        return 1 - 0.9 * (self.step_count / self.max_steps)

    def base_step(self, action: int) -> tuple[float, bool, bool]:
        """MiniGridEnv.step: (reward, terminated, truncated)."""
        self.step_count += 1
        reward, terminated = 0, False
        fwd = self.front_pos()
        cell = self.get(*fwd)
        if action == LEFT:
            self.agent_dir = (self.agent_dir - 1) % 4
        elif action == RIGHT:
            self.agent_dir = (self.agent_dir + 1) % 4
        elif action == FORWARD:
            if cell is None or cell.can_overlap():
                self.agent_pos = fwd
            if cell is not None and cell.type == "goal":
                terminated, reward = True, self.reward()
            if cell is not None and cell.type == "lava":
                terminated = True
        elif action == PICKUP:
            if cell is not None and cell.can_pickup() and self.carrying is None:
                self.carrying = cell
                self.set(*fwd, None)
        elif action == DROP:
            if cell is None and self.carrying is not None:
                self.set(*fwd, self.carrying)
                self.carrying = None
        elif action == TOGGLE:
            if cell is not None:
                self._toggle(cell, fwd)
        return reward, terminated, self.step_count >= self.max_steps

    def _toggle(self, cell: Obj, pos) -> None:
        if cell.type == "door":
            if cell.is_locked:
                held = self.carrying
                if held is not None and held.type == "key" and held.color == cell.color:
                    cell.is_locked, cell.is_open = False, True
                return
            cell.is_open = not cell.is_open
        elif cell.type == "box":
            self.set(*pos, cell.contains)

    def step(self, action: int) -> tuple[float, bool, bool]:
        """The world's own step (the environment's ``step``, overrides included)."""
        return STEPS.get(self.extra.get("rules"), World.base_step)(self, action)

    # -- what the player sees -----------------------------------------------------------

    def symbolic(self) -> np.ndarray:
        """MiniGrid's SymbolicObsWrapper image: cell (x, y) is [x, y, object type], with -1
        for an empty cell and 10 where the agent stands."""
        image = np.zeros((self.width, self.height, 3), dtype=np.int64)
        for x in range(self.width):
            for y in range(self.height):
                obj = self.get(x, y)
                image[x, y] = (x, y, -1 if obj is None else OBJECT_TO_IDX[obj.type])
        image[self.agent_pos[0], self.agent_pos[1], 2] = OBJECT_TO_IDX["agent"]
        return image

    # -- keeping it -----------------------------------------------------------------------

    def to_json(self) -> str:
        """The world as JSON: the cells that never change (walls, goals, lava) as one
        string, one character a cell; the doors and objects each with their cell."""
        # No action changes these cells, so a loaded world's layout is written back as read.
        layout = self.layout or "".join(
            "." if c is None or c.type not in STATIC else STATIC[c.type] for c in self.grid
        )
        objects = [
            [index, *cell.dump()]
            for index, cell in enumerate(self.grid)
            if cell is not None and cell not in SHARED and cell.type not in STATIC
        ]
        return json.dumps(
            {
                "name": self.name,
                "size": [self.width, self.height],
                "layout": layout,
                "objects": objects,
                "agent": [int(self.agent_pos[0]), int(self.agent_pos[1]), int(self.agent_dir)],
                "carrying": None if self.carrying is None else self.carrying.dump(),
                "steps": [self.step_count, self.max_steps],
                "mission": self.mission,
                "extra": self.extra,
                "next_oid": self._next_oid,
                "rng": self.rng.bit_generator.state,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> World:
        data = json.loads(text)
        bits = np.random.PCG64()
        bits.state = data["rng"]
        world = cls(data["name"], *data["size"], np.random.Generator(bits))
        world.layout = data["layout"]
        base = _BASES.get(world.layout)
        if base is None:
            if len(_BASES) > 512:
                _BASES.clear()
            base = _BASES[world.layout] = tuple(FIXED.get(char) for char in world.layout)
        world.grid = list(base)
        for index, *dumped in data["objects"]:
            world.grid[index] = Obj.load(dumped)
        world.agent_pos = (data["agent"][0], data["agent"][1])
        world.agent_dir = data["agent"][2]
        world.carrying = None if data["carrying"] is None else Obj.load(data["carrying"])
        world.step_count, world.max_steps = data["steps"]
        world.mission = data["mission"]
        world.extra = data["extra"]
        world._next_oid = data["next_oid"]
        return world

    def clone(self) -> World:
        twin = copy.copy(self)
        twin.grid = [c if c is None or c.type in STATIC else _copy_obj(c) for c in self.grid]
        twin.carrying = None if self.carrying is None else _copy_obj(self.carrying)
        twin.extra = copy.deepcopy(self.extra)
        twin.rng = np.random.Generator(np.random.PCG64())
        twin.rng.bit_generator.state = self.rng.bit_generator.state
        return twin

    def find(self, oid: int) -> tuple[int, int] | None:
        for index, cell in enumerate(self.grid):
            if cell is not None and cell.oid == oid:
                return (index % self.width, index // self.width)
        return None


def _copy_obj(obj: Obj) -> Obj:
    twin = Obj(obj.type, obj.color, is_open=obj.is_open, is_locked=obj.is_locked)
    twin.contains = None if obj.contains is None else _copy_obj(obj.contains)
    twin.oid = obj.oid
    return twin


# -- the environments' own steps ----------------------------------------------------------


def _step_pickup_target(world: World, action: int):
    """BlockedUnlockPickup, KeyCorridor, ObstructedMaze: picking up the target wins."""
    reward, terminated, truncated = world.base_step(action)
    if action == PICKUP and world.carrying is not None:
        if world.carrying.oid == world.extra["target"]:
            reward, terminated = world.reward(), True
    return reward, terminated, truncated


def _step_unlock(world: World, action: int):
    reward, terminated, truncated = world.base_step(action)
    if action == TOGGLE and world.get(*world.extra["door"]).is_open:
        reward, terminated = world.reward(), True
    return reward, terminated, truncated


def _step_fetch(world: World, action: int):
    reward, terminated, truncated = world.base_step(action)
    held = world.carrying
    if held is not None:
        if held.color == world.extra["color"] and held.type == world.extra["type"]:
            reward, terminated = world.reward(), True
        else:
            reward, terminated = 0, True
    return reward, terminated, truncated


def _step_go_to(world: World, action: int):
    """GoToDoor and GoToObject: toggling ends the game; "done" next to the target wins."""
    reward, terminated, truncated = world.base_step(action)
    ax, ay = world.agent_pos
    tx, ty = world.extra["target_pos"]
    if action == TOGGLE:
        terminated = True
    if action == DONE:
        if (ax == tx and abs(ay - ty) == 1) or (ay == ty and abs(ax - tx) == 1):
            reward = world.reward()
        terminated = True
    return reward, terminated, truncated


def _step_put_near(world: World, action: int):
    held_before = world.carrying
    reward, terminated, truncated = world.base_step(action)
    ox, oy = world.front_pos()
    tx, ty = world.extra["target_pos"]
    if action == PICKUP and world.carrying is not None:
        held = world.carrying
        if held.type != world.extra["move_type"] or held.color != world.extra["move_color"]:
            terminated = True
    if action == DROP and held_before is not None:
        there = world.get(ox, oy)
        if there is not None and there.oid == held_before.oid:
            if abs(ox - tx) <= 1 and abs(oy - ty) <= 1:
                reward = world.reward()
        terminated = True
    return reward, terminated, truncated


def _step_red_blue(world: World, action: int):
    red, blue = world.get(*world.extra["red"]), world.get(*world.extra["blue"])
    red_before, blue_before = red.is_open, blue.is_open
    reward, terminated, truncated = world.base_step(action)
    if blue.is_open:
        reward, terminated = (world.reward() if red_before else 0), True
    elif red.is_open and blue_before:
        reward, terminated = 0, True
    return reward, terminated, truncated


def _step_dynamic(world: World, action: int):
    """DynamicObstacles: only turning and moving (any other action turns left); the balls
    move first, each to a free cell around it; walking into a ball or a wall (as it stood
    before the balls moved) loses."""
    if action > FORWARD:
        action = LEFT
    front = world.get(*world.front_pos())
    not_clear = front is not None and front.type != "goal"
    obstacles = world.extra["obstacles"]
    for index, (x, y) in enumerate(obstacles):
        ball = world.get(x, y)
        try:
            # MiniGrid places the ball anew in the 3×3 square around it before clearing
            # its old cell (the ball's own cell is taken, so it always moves).
            new = world.place_obj(ball, top=(x - 1, y - 1), size=(3, 3), max_tries=100)
        except PlacementError:
            continue
        world.set(x, y, None)
        obstacles[index] = [new[0], new[1]]
    reward, terminated, truncated = world.base_step(action)
    if action == FORWARD and not_clear:
        return -1, True, truncated
    return reward, terminated, truncated


STEPS = {
    "pickup_target": _step_pickup_target,
    "unlock": _step_unlock,
    "fetch": _step_fetch,
    "go_to": _step_go_to,
    "put_near": _step_put_near,
    "red_blue": _step_red_blue,
    "dynamic": _step_dynamic,
}


# -- the environments' boards ---------------------------------------------------------------


def _empty(w: World, size: int, random_start: bool):
    w.wall_rect(0, 0, size, size)
    w.set(size - 2, size - 2, goal())
    if random_start:
        w.place_agent()
    else:
        w.agent_pos, w.agent_dir = (1, 1), 0
    w.mission = "get to the green goal square"


def _door_key(w: World, size: int):
    w.wall_rect(0, 0, size, size)
    w.set(size - 2, size - 2, goal())
    split = w.rand_int(2, size - 2)
    w.vert_wall(split, 0)
    w.place_agent(size=(split, size))
    door_y = w.rand_int(1, size - 2)
    w.set(split, door_y, door("yellow", locked=True))
    w.place_obj(thing("key", "yellow"), top=(0, 0), size=(split, size))
    w.mission = "use the key to open the door and then get to the goal"


def _lava_gap(w: World, size: int):
    w.wall_rect(0, 0, size, size)
    w.agent_pos, w.agent_dir = (1, 1), 0
    w.set(size - 2, size - 2, goal())
    gap = (w.rand_int(2, size - 2), w.rand_int(1, size - 1))
    w.vert_wall(gap[0], 1, size - 2, lava)
    w.set(*gap, None)
    w.mission = "avoid the lava and get to the green goal square"


def _crossing(w: World, size: int, crossings: int):
    w.wall_rect(0, 0, size, size)
    w.agent_pos, w.agent_dir = (1, 1), 0
    w.set(size - 2, size - 2, goal())
    rivers = [("v", i) for i in range(2, size - 2, 2)]
    rivers += [("h", j) for j in range(2, size - 2, 2)]
    w.rng.shuffle(rivers)
    rivers = rivers[:crossings]
    rivers_v = sorted(pos for way, pos in rivers if way == "v")
    rivers_h = sorted(pos for way, pos in rivers if way == "h")
    for i, j in itertools.chain(
        itertools.product(range(1, size - 1), rivers_h),
        itertools.product(rivers_v, range(1, size - 1)),
    ):
        w.set(i, j, lava())
    path = ["h"] * len(rivers_v) + ["v"] * len(rivers_h)
    w.rng.shuffle(path)
    limits_v = [0, *rivers_v, size - 1]
    limits_h = [0, *rivers_h, size - 1]
    room_i = room_j = 0
    for way in path:
        if way == "h":
            i = limits_v[room_i + 1]
            j = int(w.rng.choice(range(limits_h[room_j] + 1, limits_h[room_j + 1])))
            room_i += 1
        else:
            i = int(w.rng.choice(range(limits_v[room_i] + 1, limits_v[room_i + 1])))
            j = limits_h[room_j + 1]
            room_j += 1
        w.set(i, j, None)
    w.mission = "avoid the lava and get to the green goal square"


def _dist_shift(w: World, strip2_row: int):
    w.wall_rect(0, 0, w.width, w.height)
    w.set(w.width - 2, 1, goal())
    for i in range(w.width - 6):
        w.set(3 + i, 1, lava())
        w.set(3 + i, strip2_row, lava())
    w.agent_pos, w.agent_dir = (1, 1), 0
    w.mission = "get to the green goal square"


def _dynamic(w: World, size: int, random_start: bool, count: int):
    w.wall_rect(0, 0, size, size)
    w.set(size - 2, size - 2, goal())
    if random_start:
        w.place_agent()
    else:
        w.agent_pos, w.agent_dir = (1, 1), 0
    obstacles = []
    for _ in range(count):
        obstacles.append(list(w.place_obj(thing("ball", "blue"), max_tries=100)))
    w.extra.update(rules="dynamic", obstacles=obstacles)
    w.mission = "get to the green goal square"


def _outer_walls(w: World):
    w.horz_wall(0, 0)
    w.horz_wall(0, w.height - 1)
    w.vert_wall(0, 0)
    w.vert_wall(w.width - 1, 0)


def _fetch(w: World, count: int):
    _outer_walls(w)
    objs = []
    while len(objs) < count:
        kind = w.rand_elem(["key", "ball"])
        color = w.rand_elem(COLOR_NAMES)
        obj = thing(kind, color)
        w.place_obj(obj)
        objs.append(obj)
    w.place_agent()
    target = objs[w.rand_int(0, len(objs))]
    syntax = ("get a", "go get a", "fetch a", "go fetch a", "you must fetch a")[w.rand_int(0, 5)]
    w.mission = f"{syntax} {target.color} {target.type}"
    w.extra.update(rules="fetch", type=target.type, color=target.color)


def _four_rooms(w: World):
    _outer_walls(w)
    room_w, room_h = w.width // 2, w.height // 2
    for j in range(2):
        for i in range(2):
            x_l, y_t = i * room_w, j * room_h
            x_r, y_b = x_l + room_w, y_t + room_h
            if i + 1 < 2:
                w.vert_wall(x_r, y_t, room_h)
                w.set(x_r, w.rand_int(y_t + 1, y_b), None)
            if j + 1 < 2:
                w.horz_wall(x_l, y_b, room_w)
                w.set(w.rand_int(x_l + 1, x_r), y_b, None)
    w.place_agent()
    w.place_obj(goal())
    w.mission = "reach the goal"


def _go_to_door(w: World, size: int):
    width = w.rand_int(5, size + 1)
    height = w.rand_int(5, size + 1)
    w.wall_rect(0, 0, width, height)
    spots = [
        (w.rand_int(2, width - 2), 0),
        (w.rand_int(2, width - 2), height - 1),
        (0, w.rand_int(2, height - 2)),
        (width - 1, w.rand_int(2, height - 2)),
    ]
    colors: list[str] = []
    while len(colors) < len(spots):
        color = w.rand_elem(COLOR_NAMES)
        if color not in colors:
            colors.append(color)
    for spot, color in zip(spots, colors, strict=True):
        w.set(*spot, door(color))
    w.place_agent(size=(width, height))
    index = w.rand_int(0, len(spots))
    w.mission = f"go to the {colors[index]} door"
    w.extra.update(rules="go_to", target_pos=list(spots[index]))


def _distinct_objects(w: World, count: int, reject_near: bool):
    objs: list[tuple[str, str]] = []
    spots: list[tuple[int, int]] = []

    def near(pos):
        return any(abs(pos[0] - x) <= 1 and abs(pos[1] - y) <= 1 for x, y in spots)

    while len(objs) < count:
        kind = w.rand_elem(["key", "ball", "box"])
        color = w.rand_elem(COLOR_NAMES)
        if (kind, color) in objs:
            continue
        spots.append(w.place_obj(thing(kind, color), reject=near if reject_near else None))
        objs.append((kind, color))
    return objs, spots


def _go_to_object(w: World, count: int):
    w.wall_rect(0, 0, w.width, w.height)
    objs, spots = _distinct_objects(w, count, False)
    w.place_agent()
    index = w.rand_int(0, len(objs))
    kind, color = objs[index]
    w.mission = f"go to the {color} {kind}"
    w.extra.update(rules="go_to", target_pos=list(spots[index]))


def _put_near(w: World, count: int):
    _outer_walls(w)
    objs, spots = _distinct_objects(w, count, True)
    w.place_agent()
    move = w.rand_int(0, len(objs))
    while True:
        target = w.rand_int(0, len(objs))
        if target != move:
            break
    w.mission = (
        f"put the {objs[move][1]} {objs[move][0]} near the {objs[target][1]} {objs[target][0]}"
    )
    w.extra.update(
        rules="put_near",
        move_type=objs[move][0],
        move_color=objs[move][1],
        move_pos=list(spots[move]),
        target_pos=list(spots[target]),
    )


def _unlock(w: World):
    w.room_grid_init(6, 1, 2)
    made, pos = w.add_door(0, 0, 0, locked=True)
    w.add_object(0, 0, "key", made.color)
    w.room_place_agent(0, 0)
    w.mission = "open the door"
    w.extra.update(rules="unlock", door=list(pos))


def _blocked_unlock_pickup(w: World):
    w.room_grid_init(6, 1, 2)
    obj, _ = w.add_object(1, 0, kind="box")
    made, pos = w.add_door(0, 0, 0, locked=True)
    w.set(pos[0] - 1, pos[1], thing("ball", w.rand_elem(COLOR_NAMES)))
    w.add_object(0, 0, "key", made.color)
    w.room_place_agent(0, 0)
    w.mission = f"pick up the {obj.color} {obj.type}"
    w.extra.update(rules="pickup_target", target=obj.oid)


def _key_corridor(w: World, room_size: int, rows: int):
    w.room_grid_init(room_size, rows, 3)
    for j in range(1, rows):
        w.remove_wall(1, j, 3)
    room = w.rand_int(0, rows)
    made, _ = w.add_door(2, room, 2, locked=True)
    obj, _ = w.add_object(2, room, kind="ball")
    w.add_object(0, w.rand_int(0, rows), "key", made.color)
    w.room_place_agent(1, rows // 2)
    w.connect_all()
    w.mission = f"pick up the {obj.color} {obj.type}"
    w.extra.update(rules="pickup_target", target=obj.oid)


def _locked_room(w: World):
    size = w.width
    for i in range(size):
        w.set(i, 0, wall())
        w.set(i, size - 1, wall())
    for j in range(size):
        w.set(0, j, wall())
        w.set(size - 1, j, wall())
    left, right = size // 2 - 2, size // 2 + 2
    for j in range(size):
        w.set(left, j, wall())
        w.set(right, j, wall())
    rooms = []
    for n in range(3):
        j = n * (size // 3)
        for i in range(left):
            w.set(i, j, wall())
        for i in range(right, size):
            w.set(i, j, wall())
        room_w, room_h = left + 1, size // 3 + 1
        rooms.append({"top": (0, j), "size": (room_w, room_h), "door": (left, j + 3)})
        rooms.append({"top": (right, j), "size": (room_w, room_h), "door": (right, j + 3)})

    def rand_pos(room):
        (tx, ty), (sx, sy) = room["top"], room["size"]
        return (w.rand_int(tx + 1, tx + sx - 1), w.rand_int(ty + 1, ty + sy - 1))

    locked_index = w.rand_int(0, len(rooms))
    locked = rooms[locked_index]
    w.set(*rand_pos(locked), goal())
    colors = set(COLOR_NAMES)
    for room in rooms:
        color = w.rand_elem(sorted(colors))
        colors.remove(color)
        room["color"] = color
        w.set(*room["door"], door(color, locked=room is locked))
    while True:
        key_room = w.rand_elem(rooms)
        if key_room is not locked:
            break
    w.set(*rand_pos(key_room), thing("key", locked["color"]))
    w.place_agent(top=(left, 0), size=(right - left, size))
    w.mission = (
        f"get the {locked['color']} key from the {key_room['color']} room, "
        f"unlock the {locked['color']} door and go to the goal"
    )


def _multi_room(w: World, min_rooms: int, max_rooms: int, max_size: int):
    rooms: list[dict] = []
    count = w.rand_int(min_rooms, max_rooms + 1)
    while len(rooms) < count:
        attempt: list[dict] = []
        entry = (w.rand_int(0, w.width - 2), w.rand_int(0, w.width - 2))
        _place_room(w, count, attempt, 4, max_size, 2, entry)
        if len(attempt) > len(rooms):
            rooms = attempt
    the_wall = wall()
    previous = None
    for index, room in enumerate(rooms):
        (tx, ty), (sx, sy) = room["top"], room["size"]
        for i in range(sx):
            w.set(tx + i, ty, the_wall)
            w.set(tx + i, ty + sy - 1, the_wall)
        for j in range(sy):
            w.set(tx, ty + j, the_wall)
            w.set(tx + sx - 1, ty + j, the_wall)
        if index > 0:
            colors = set(COLOR_NAMES)
            if previous:
                colors.remove(previous)
            color = w.rand_elem(sorted(colors))
            w.set(*room["entry"], door(color))
            previous = color
    w.place_agent(rooms[0]["top"], rooms[0]["size"])
    w.place_obj(goal(), rooms[-1]["top"], rooms[-1]["size"])
    w.mission = "traverse the rooms to get to the goal"


def _place_room(w: World, left, rooms, min_size, max_size, entry_wall, entry) -> bool:
    size_x = w.rand_int(min_size, max_size + 1)
    size_y = w.rand_int(min_size, max_size + 1)
    if not rooms:
        top_x, top_y = entry
    elif entry_wall == 0:
        top_x = entry[0] - size_x + 1
        top_y = w.rand_int(entry[1] - size_y + 2, entry[1])
    elif entry_wall == 1:
        top_x = w.rand_int(entry[0] - size_x + 2, entry[0])
        top_y = entry[1] - size_y + 1
    elif entry_wall == 2:
        top_x = entry[0]
        top_y = w.rand_int(entry[1] - size_y + 2, entry[1])
    else:
        top_x = w.rand_int(entry[0] - size_x + 2, entry[0])
        top_y = entry[1]
    if top_x < 0 or top_y < 0:
        return False
    if top_x + size_x > w.width or top_y + size_y >= w.height:
        return False
    for room in rooms[:-1]:
        (rx, ry), (rw, rh) = room["top"], room["size"]
        apart = top_x + size_x < rx or rx + rw <= top_x or top_y + size_y < ry or ry + rh <= top_y
        if not apart:
            return False
    rooms.append({"top": (top_x, top_y), "size": (size_x, size_y), "entry": entry})
    if left == 1:
        return True
    for _ in range(8):
        exit_wall = w.rand_elem(sorted({0, 1, 2, 3} - {entry_wall}))
        if exit_wall == 0:
            exit_pos = (top_x + size_x - 1, top_y + w.rand_int(1, size_y - 1))
        elif exit_wall == 1:
            exit_pos = (top_x + w.rand_int(1, size_x - 1), top_y + size_y - 1)
        elif exit_wall == 2:
            exit_pos = (top_x, top_y + w.rand_int(1, size_y - 1))
        else:
            exit_pos = (top_x + w.rand_int(1, size_x - 1), top_y)
        if _place_room(w, left - 1, rooms, min_size, max_size, (exit_wall + 2) % 4, exit_pos):
            break
    return True


def _obstructed_start(w: World, rows: int, cols: int):
    w.room_grid_init(6, rows, cols)
    w.door_colors = w.rand_subset(COLOR_NAMES, len(COLOR_NAMES))
    w.mission = f"pick up the {COLOR_NAMES[0]} ball"


def _obstructed_door(w: World, i, j, door_idx, color, locked, key_in_box=False, blocked=False):
    made, pos = w.add_door(i, j, door_idx, color, locked=locked)
    if blocked:
        vx, vy = DIR_TO_VEC[door_idx]
        w.set(pos[0] - vx, pos[1] - vy, thing("ball", COLOR_NAMES[1]))
    if locked:
        obj = thing("key", made.color)
        if key_in_box:
            obj = Obj("box", COLOR_NAMES[2], contains=obj)
        w.place_in_room(i, j, obj)
    return made, pos


def _obstructed_1dlhb(w: World):
    _obstructed_start(w, 1, 2)
    _obstructed_door(w, 0, 0, 0, w.door_colors[0], True, key_in_box=True, blocked=True)
    obj, _ = w.add_object(1, 0, "ball", color=COLOR_NAMES[0])
    w.room_place_agent(0, 0)
    w.extra.update(rules="pickup_target", target=obj.oid)


def _obstructed_full(w: World):
    _obstructed_start(w, 3, 3)
    sides = [(2, 1), (1, 2), (0, 1), (1, 0)]
    for i, side in enumerate(sides):
        _obstructed_door(w, 1, 1, i, w.door_colors[i], False)
        for k in (-1, 1):
            # The door's side wraps round four walls, its colour round six colours.
            color = w.door_colors[(i + k) % len(w.door_colors)]
            _obstructed_door(w, *side, (i + k) % 4, color, True, key_in_box=True, blocked=True)
    corner = w.rand_elem([(2, 0), (2, 2), (0, 2), (0, 0)])
    obj, _ = w.add_object(corner[0], corner[1], "ball", color=COLOR_NAMES[0])
    w.room_place_agent(1, 1)
    w.extra.update(rules="pickup_target", target=obj.oid)


def _playground(w: World):
    _outer_walls(w)
    room_w, room_h = w.width // 3, w.height // 3
    for j in range(3):
        for i in range(3):
            x_l, y_t = i * room_w, j * room_h
            x_r, y_b = x_l + room_w, y_t + room_h
            if i + 1 < 3:
                w.vert_wall(x_r, y_t, room_h)
                pos = (x_r, w.rand_int(y_t + 1, y_b - 1))
                w.set(*pos, door(w.rand_elem(COLOR_NAMES)))
            if j + 1 < 3:
                w.horz_wall(x_l, y_b, room_w)
                pos = (w.rand_int(x_l + 1, x_r - 1), y_b)
                w.set(*pos, door(w.rand_elem(COLOR_NAMES)))
    w.place_agent()
    for _ in range(12):
        kind = w.rand_elem(["key", "ball", "box"])
        w.place_obj(thing(kind, w.rand_elem(COLOR_NAMES)))
    w.mission = ""


def _red_blue(w: World, size: int):
    w.wall_rect(0, 0, 2 * size, size)
    w.wall_rect(size // 2, 0, size, size)
    w.place_agent(top=(size // 2, 0), size=(size, size))
    red = (size // 2, w.rand_int(1, size - 1))
    w.set(*red, door("red"))
    blue = (size // 2 + size - 1, w.rand_int(1, size - 1))
    w.set(*blue, door("blue"))
    w.mission = "open the red door then the blue door"
    w.extra.update(rules="red_blue", red=list(red), blue=list(blue))


# name: (width, height, builder)
ENVS = {
    "MiniGrid-Empty-5x5-v0": (5, 5, lambda w: _empty(w, 5, False)),
    "MiniGrid-Empty-Random-6x6-v0": (6, 6, lambda w: _empty(w, 6, True)),
    "MiniGrid-DoorKey-5x5-v0": (5, 5, lambda w: _door_key(w, 5)),
    "MiniGrid-DoorKey-6x6-v0": (6, 6, lambda w: _door_key(w, 6)),
    "MiniGrid-DoorKey-8x8-v0": (8, 8, lambda w: _door_key(w, 8)),
    "MiniGrid-LavaGapS5-v0": (5, 5, lambda w: _lava_gap(w, 5)),
    "MiniGrid-LavaCrossingS9N1-v0": (9, 9, lambda w: _crossing(w, 9, 1)),
    "MiniGrid-LavaCrossingS11N5-v0": (11, 11, lambda w: _crossing(w, 11, 5)),
    "MiniGrid-DistShift2-v0": (9, 7, lambda w: _dist_shift(w, 5)),
    "MiniGrid-Dynamic-Obstacles-5x5-v0": (5, 5, lambda w: _dynamic(w, 5, False, 2)),
    "MiniGrid-Dynamic-Obstacles-Random-5x5-v0": (5, 5, lambda w: _dynamic(w, 5, True, 2)),
    "MiniGrid-Fetch-5x5-N2-v0": (5, 5, lambda w: _fetch(w, 2)),
    "MiniGrid-Fetch-8x8-N3-v0": (8, 8, lambda w: _fetch(w, 3)),
    "MiniGrid-FourRooms-v0": (19, 19, _four_rooms),
    "MiniGrid-GoToDoor-6x6-v0": (6, 6, lambda w: _go_to_door(w, 6)),
    "MiniGrid-GoToObject-6x6-N2-v0": (6, 6, lambda w: _go_to_object(w, 2)),
    "MiniGrid-KeyCorridorS3R2-v0": (7, 5, lambda w: _key_corridor(w, 3, 2)),
    "MiniGrid-LockedRoom-v0": (19, 19, _locked_room),
    "MiniGrid-MultiRoom-N2-S4-v0": (25, 25, lambda w: _multi_room(w, 2, 2, 4)),
    "MiniGrid-ObstructedMaze-1Dlhb-v0": (11, 6, _obstructed_1dlhb),
    "MiniGrid-ObstructedMaze-Full-v0": (16, 16, _obstructed_full),
    "MiniGrid-Playground-v0": (19, 19, _playground),
    "MiniGrid-PutNear-8x8-N3-v0": (8, 8, lambda w: _put_near(w, 3)),
    "MiniGrid-RedBlueDoors-6x6-v0": (12, 6, lambda w: _red_blue(w, 6)),
    "MiniGrid-Unlock-v0": (11, 6, _unlock),
    "MiniGrid-BlockedUnlockPickup-v0": (11, 6, _blocked_unlock_pickup),
}
assert set(ENVS) == set(ENV_NAMES)


def make_world(name: str, seed: int, max_steps: int = 100) -> World:
    """The world gymnasium's ``make(name, max_steps=max_steps).reset(seed=seed)`` builds."""
    width, height, build = ENVS[name]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    world = World(name, width, height, rng)
    world.max_steps = max_steps
    build(world)
    world.agent_pos = (int(world.agent_pos[0]), int(world.agent_pos[1]))
    world.agent_dir = int(world.agent_dir)
    # Room lists and door colours are generation's scaffolding, not the world's state.
    for name_ in ("rooms", "door_colors"):
        world.__dict__.pop(name_, None)
    return world


# -- finding a way (the reference player) -------------------------------------------------


def passable(world: World, x: int, y: int, open_doors: bool) -> bool:
    cell = world.get(x, y)
    if cell is None:
        return True
    if cell.type in ("lava", "goal"):
        return False
    if cell.type == "door":
        return cell.is_open or (open_doors and not cell.is_locked)
    return cell.can_overlap()


def route_to_face(world: World, target, open_doors: bool = True) -> list[tuple] | None:
    """The shortest turns and steps (a list of (x, y, dir) states after each action) that
    bring the agent to face ``target`` (a cell), walking only on free cells (and through
    closed unlocked doors when ``open_doors``); None when it cannot."""
    start = (world.agent_pos[0], world.agent_pos[1], world.agent_dir)
    came: dict[tuple, tuple | None] = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        x, y, d = state
        dx, dy = DIR_TO_VEC[d]
        if (x + dx, y + dy) == tuple(target):
            path = []
            while state is not None:
                path.append(state)
                state = came[state]
            return path[::-1]
        moves = [(x, y, (d - 1) % 4), (x, y, (d + 1) % 4)]
        fx, fy = x + dx, y + dy
        if 0 <= fx < world.width and 0 <= fy < world.height:
            if passable(world, fx, fy, open_doors):
                moves.append((fx, fy, d))
        for nxt in moves:
            if nxt not in came:
                came[nxt] = state
                queue.append(nxt)
    return None


ACTION_NAMES = ("turn_left", "turn_right", "move_forward", "pickup", "drop", "toggle", "done")


class _Script:
    """A plan played on a copy of the world: each action is applied as it is chosen, so
    every later choice sees the world as it then is."""

    def __init__(self, world: World):
        self.world = world.clone()
        self.actions: list[int] = []
        self.won = False
        self.over = False

    def act(self, action: int) -> None:
        if self.over:
            raise _Stuck("the game is over")
        reward, terminated, truncated = self.world.step(action)
        self.actions.append(action)
        self.won = self.won or (terminated and reward > 0)
        self.over = terminated or truncated

    def face(self, target, open_doors: bool = True) -> None:
        route = route_to_face(self.world, target, open_doors)
        if route is None:
            raise _Stuck(f"cannot reach {target}")
        for (x, y, d), (nx, ny, nd) in itertools.pairwise(route):
            if (x, y) != (nx, ny):
                cell = self.world.get(nx, ny)
                if cell is not None and cell.type == "door" and not cell.is_open:
                    self.act(TOGGLE)
                self.act(FORWARD)
            else:
                self.act(LEFT if nd == (d - 1) % 4 else RIGHT)

    def go(self, target) -> None:
        self.face(target)
        self.act(FORWARD)

    def stash(self, needed, keep_clear=()) -> None:
        """Drop what the agent carries on a free cell from which it blocks nothing: every
        cell of ``needed`` that could be faced before can still be faced after."""
        w = self.world
        if w.carrying is None:
            return
        before = [c for c in needed if route_to_face(w, c) is not None]
        spots = _reachable(w)
        for spot in sorted(spots, key=spots.get):
            if w.get(*spot) is not None or spot in keep_clear or spot == w.agent_pos:
                continue
            trial = _Script(w)
            try:
                trial.face(spot)
                trial.act(DROP)
            except _Stuck:
                continue
            if all(route_to_face(trial.world, c) is not None for c in before):
                for action in trial.actions:
                    self.act(action)
                return
        raise _Stuck("nowhere to drop")


class _Stuck(Exception):
    pass


def _reachable(world: World) -> dict[tuple[int, int], int]:
    """Cells the agent can walk to (opening closed doors), with their distances."""
    start = tuple(world.agent_pos)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in DIR_TO_VEC:
            nx, ny = x + dx, y + dy
            if 0 <= nx < world.width and 0 <= ny < world.height and (nx, ny) not in seen:
                if passable(world, nx, ny, True):
                    seen[(nx, ny)] = seen[(x, y)] + 1
                    queue.append((nx, ny))
    return seen


def _cells(world: World, test) -> list[tuple[int, int]]:
    return [
        (i % world.width, i // world.width)
        for i, cell in enumerate(world.grid)
        if cell is not None and test(cell)
    ]


def _goal_script(s: _Script) -> None:
    s.go(_cells(s.world, lambda c: c.type == "goal")[0])


def _key_door_goal_script(s: _Script) -> None:
    """DoorKey and LockedRoom: the key, the locked door, the goal."""
    locked = _cells(s.world, lambda c: c.type == "door" and c.is_locked)[0]
    color = s.world.get(*locked).color
    s.face(_cells(s.world, lambda c: c.type == "key" and c.color == color)[0])
    s.act(PICKUP)
    s.face(locked)
    s.act(TOGGLE)
    _goal_script(s)


def _unlock_script(s: _Script) -> None:
    door_at = tuple(s.world.extra["door"])
    color = s.world.get(*door_at).color
    s.face(_cells(s.world, lambda c: c.type == "key" and c.color == color)[0])
    s.act(PICKUP)
    s.face(door_at)
    s.act(TOGGLE)


def _fetch_script(s: _Script) -> None:
    kind, color = s.world.extra["type"], s.world.extra["color"]
    s.face(_cells(s.world, lambda c: c.type == kind and c.color == color)[0], open_doors=False)
    s.act(PICKUP)


def _go_to_script(s: _Script) -> None:
    s.face(s.world.extra["target_pos"], open_doors=False)
    s.act(DONE)


def _put_near_script(s: _Script) -> None:
    w = s.world
    s.face(w.extra["move_pos"], open_doors=False)
    s.act(PICKUP)
    tx, ty = w.extra["target_pos"]
    spots = [
        (tx + dx, ty + dy)
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if 0 <= tx + dx < w.width and 0 <= ty + dy < w.height and w.get(tx + dx, ty + dy) is None
    ]
    best = None
    for spot in spots:
        if spot == w.agent_pos:
            continue
        route = route_to_face(w, spot, open_doors=False)
        if route is not None and (best is None or len(route) < len(best[1])):
            best = (spot, route)
    if best is None:
        raise _Stuck("no free cell near the target")
    s.face(best[0], open_doors=False)
    s.act(DROP)


def _red_blue_script(s: _Script) -> None:
    s.face(s.world.extra["red"], open_doors=False)
    s.act(TOGGLE)
    s.face(s.world.extra["blue"], open_doors=False)
    s.act(TOGGLE)


def _pickup_target_script(s: _Script) -> None:
    """Through locked doors to the target: for a locked door whose opening lets the agent
    reach the target, clear the objects in front of it, fetch its key (from its box if
    need be), unlock it, put the key down; then pick up the target."""
    target = s.world.extra["target"]
    for _ in range(4):
        w = s.world
        spot = w.find(target)
        if route_to_face(w, spot) is not None:
            s.stash([spot])
            s.face(spot)
            s.act(PICKUP)
            return
        door_at = _door_to(w, spot)
        color = w.get(*door_at).color
        fronts = [
            (door_at[0] + dx, door_at[1] + dy)
            for dx, dy in DIR_TO_VEC
            if 0 <= door_at[0] + dx < w.width and 0 <= door_at[1] + dy < w.height
        ]
        if route_to_face(w, door_at) is None:
            for front in fronts:
                blocker = w.get(*front)
                if blocker is not None and blocker.can_pickup() and front in _reachable_fronts(w):
                    s.stash([door_at, front])
                    s.face(front)
                    s.act(PICKUP)
                    s.stash([door_at, *_key_spots(s.world, color)], keep_clear=fronts)
                    break
        if not (s.world.carrying and s.world.carrying.type == "key"):
            s.stash([door_at, *_key_spots(s.world, color)], keep_clear=fronts)
            key = _key_spots(s.world, color)[0]
            s.face(key)
            if s.world.get(*key).type == "box":
                s.act(TOGGLE)
            s.act(PICKUP)
        s.face(door_at)
        s.act(TOGGLE)
        s.stash([s.world.find(target)], keep_clear=fronts)
    raise _Stuck("too many doors")


def _key_spots(w: World, color: str) -> list[tuple[int, int]]:
    return _cells(
        w,
        lambda c: (
            (c.type == "key" and c.color == color)
            or (c.type == "box" and c.contains is not None and c.contains.color == color)
        ),
    )


def _reachable_fronts(w: World) -> set[tuple[int, int]]:
    """Cells the agent could face: next to a cell it can walk to."""
    near = set()
    for x, y in _reachable(w):
        near.update((x + dx, y + dy) for dx, dy in DIR_TO_VEC)
    return near


def _door_to(w: World, spot) -> tuple[int, int]:
    """The locked door nearest the agent whose opening lets it reach ``spot``, once the
    objects it can pick up are out of the way."""
    found = []
    for door_at in _cells(w, lambda c: c.type == "door" and c.is_locked):
        trial = w.clone()
        trial.get(*door_at).is_open = True
        trial.get(*door_at).is_locked = False
        for index, cell in enumerate(trial.grid):
            if cell is not None and cell.can_pickup() and cell.oid != w.extra["target"]:
                trial.grid[index] = None
        if route_to_face(trial, spot) is not None:
            route = route_to_face(_cleared(w), door_at)
            found.append((len(route) if route else 10**6, door_at))
    if not found:
        raise _Stuck("no door leads to the target")
    return min(found)[1]


def _cleared(w: World) -> World:
    trial = w.clone()
    for index, cell in enumerate(trial.grid):
        if cell is not None and cell.can_pickup():
            trial.grid[index] = None
    return trial


def _dynamic_search(world: World, limit: int = 60_000) -> list[int] | None:
    """Breadth-first over the real world (the balls' moves included) with the three
    actions that matter, to the goal."""
    frontier: list[tuple[World, list[int]]] = [(world, [])]
    # Boards already reached are not searched again, whatever the generator's state (a
    # pruning that may, rarely, miss a win the balls' later moves would have allowed).
    seen: set = set()
    while frontier and len(seen) < limit:
        following = []
        for state, actions in frontier:
            for action in (FORWARD, LEFT, RIGHT):
                trial = state.clone()
                reward, terminated, truncated = trial.step(action)
                if terminated and reward > 0:
                    return [*actions, action]
                key = (trial.agent_pos, trial.agent_dir, str(trial.extra["obstacles"]))
                if not (terminated or truncated) and key not in seen:
                    seen.add(key)
                    following.append((trial, [*actions, action]))
        frontier = following
    return None


SCRIPTS = {
    "MiniGrid-DoorKey-5x5-v0": _key_door_goal_script,
    "MiniGrid-DoorKey-6x6-v0": _key_door_goal_script,
    "MiniGrid-DoorKey-8x8-v0": _key_door_goal_script,
    "MiniGrid-LockedRoom-v0": _key_door_goal_script,
    "MiniGrid-Unlock-v0": _unlock_script,
    "MiniGrid-Fetch-5x5-N2-v0": _fetch_script,
    "MiniGrid-Fetch-8x8-N3-v0": _fetch_script,
    "MiniGrid-GoToDoor-6x6-v0": _go_to_script,
    "MiniGrid-GoToObject-6x6-N2-v0": _go_to_script,
    "MiniGrid-PutNear-8x8-N3-v0": _put_near_script,
    "MiniGrid-RedBlueDoors-6x6-v0": _red_blue_script,
    "MiniGrid-BlockedUnlockPickup-v0": _pickup_target_script,
    "MiniGrid-KeyCorridorS3R2-v0": _pickup_target_script,
    "MiniGrid-ObstructedMaze-1Dlhb-v0": _pickup_target_script,
    "MiniGrid-ObstructedMaze-Full-v0": _pickup_target_script,
}
NO_GOAL = {"MiniGrid-Playground-v0"}


def plan(world: World) -> list[int] | None:
    """Actions that win from ``world`` within its step limit, or None when none is found
    (Playground has no goal; an ObstructedMaze-Full may need more steps than KORGym's
    limit)."""
    if world.name in NO_GOAL:
        return None
    if world.extra.get("rules") == "dynamic":
        return _dynamic_search(world)
    script = _Script(world)
    try:
        SCRIPTS.get(world.name, _goal_script)(script)
    except _Stuck:
        return None
    return script.actions if script.won else None
