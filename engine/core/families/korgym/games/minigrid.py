"""10-minigrid (control and interaction reasoning): steer an agent through one of 26
MiniGrid worlds (KORGym's list: empty rooms, lava gaps and crossings, doors and keys,
dynamic obstacles, fetching, going to a door or object, locked rooms, obstructed mazes…),
one action a turn, for at most 100 steps; 1 for completing the world's mission, else 0.

KORGym picks the world with ``random.seed(seed); random.sample(env_names, 1)`` and builds
it with gymnasium's ``make(name, max_steps=100).reset(seed=seed)``; the world here is built
by ``minigrid_world`` with the same numpy draws, so a seed gives KORGym's board. The item
keeps the world (serialised, with its generator) under ``world``.

KORGym's flaws, kept:

* The observation is MiniGrid's SymbolicObsWrapper image printed by numpy: each cell is
  ``[x, y, object type]`` (-1 for an empty cell, 10 for the agent), not the
  ``[object_type, color, state]`` the prompt describes: colours and door states (open,
  closed, locked) never show, and on a board of more than 1,000 numbers (FourRooms,
  LockedRoom, Playground, MultiRoom: 19×19 or 25×25) numpy elides all but the first and
  last three rows and columns with "...".
* The status line always says "not carrying anything" (KORGym reads the carried object
  from a key the observation does not have).
* An unknown action is played as ``move_forward``; in the dynamic-obstacle worlds any
  action but turning and moving is played as ``turn_left``.
* "done" ends nothing except in GoToDoor and GoToObject (where it is how one wins);
  Playground has no mission at all and cannot be won.
* The score is the sum of MiniGrid's rewards, set to 1 if positive and 0 if negative when
  the game ends (and at the 100th turn).

The reference plays a scripted route (keys, doors, goals, found breadth-first on the true
board) or, among the moving balls, a breadth-first search over the real moves; it finds no
win in Playground, nor in ObstructedMaze-Full boards that need more than 100 steps.
"""

from __future__ import annotations

import numpy as np

from engine.core.families import display as shown
from engine.core.families.korgym.common import KorgymGame
from engine.core.families.korgym.minigrid_world import (
    ACTION_NAMES,
    ENV_NAMES,
    FORWARD,
    World,
    make_world,
    plan,
)

MAX_STEPS = 100
PROMPT = (
    "\n    You are a good game problem-solver, I'll give you a game board and rules.\n"
    "    Your task is:\n"
    "    - First, give your answer according to the game board and rules.\n"
    "    - Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: move_forward'\n"
    "         You are an AI agent navigating a grid environment. Your task is:\n \n"
    "         1. Analyze environmental observations\n"
    "         2. Choose optimal actions to achieve the mission\n \n"
    "         **Core Rules**:\n"
    "         - Strictly use ONLY the provided action list\n"
    "         - Prioritize shortest paths\n"
    "         - Avoid dangerous areas (lava)\n"
    "         - Manage inventory carefully (keys, etc)\n"
    "         - Closed doors require 'toggle' to open\n"
    "         - Locked doors need matching key (use pickup first)\n \n"
    "         **Action Space** (REQUIRED RESPONSE FORMAT):\n"
    "         turn_left   : Rotate 90° counter-clockwise\n"
    "         turn_right  : Rotate 90° clockwise\n"
    "         move_forward: Advance if path clear\n"
    "         pickup      : Collect keys/objects\n"
    "         drop        : Drop carried object\n"
    "         toggle      : Open doors or interact (facing target required)\n"
    "         done        : ONLY when goal reached\n \n"
    "         **Observation**:\n"
    "         You receive the entire grid as an observation, represented as a 3D array of "
    "shape (width, height, 3).\n"
    "         - Coordinates range from (0,0) at top-left to (width-1, height-1) at "
    "bottom-right.\n"
    "         - Each cell contains [object_type, color, state]:\n"
    "           - object_type: 1=EMPTY, 2=WALL, 3=FLOOR, 4=DOOR, 5=KEY, 6=BALL, 7=BOX, "
    "8=GOAL, 9=LAVA, 10=AGENT\n"
    "           - color: 0=RED, 1=GREEN, 2=BLUE, 3=PURPLE, 4=YELLOW, 5=GREY\n"
    "             - For AGENT (10), this is direction: 0=right, 1=down, 2=left, 3=up\n"
    "           - state: For DOOR, 0=open, 1=closed, 2=locked; otherwise 0\n"
    "         - Your position is the cell with object_type=10.\n"
    "         - The mission is a string, e.g., 'get to the green goal square'.\n \n"
    "         Respond with exactly one lowercase action word,e.g.'Answer: move_forward'\n"
    "    "
)
DIRECTIONS = ("right (→)", "down (↓)", "left (←)", "up (↑)")
ACTIONS = dict(enumerate(ACTION_NAMES))


def observation(item: dict, world: World) -> str:
    """KORGym's ``get_observation_text`` (numpy prints the array with its default
    options, given explicitly so a changed global setting cannot alter the board)."""
    image = np.array2string(
        world.symbolic(), separator=", ", max_line_width=75, threshold=1000, edgeitems=3
    )
    x, y = item["agent_pos"]
    return (
        f"Mission: {world.mission}\n"
        f"Grid size: {world.width}x{world.height}\n"
        f"Agent at ({x}, {y}), facing {DIRECTIONS[item['agent_dir']]}\n"
        f"Status: not carrying anything | {item['max_steps'] - item['current_step']} "
        "steps remaining\n"
        f"Observation:\n{image}\n"
    )


def _clamp(item: dict) -> None:
    if item["score"] < 0:
        item["score"] = 0
    if item["score"] > 0:
        item["score"] = 1


# How each object type of the observation is drawn: (text, tone, what a screen reader says).
DRAWN = {
    -1: ("", "empty", "empty"),
    2: ("", "wall", "wall"),
    3: ("", "floor", "floor"),
    4: ("D", "", "door"),
    5: ("K", "", "key"),
    6: ("●", "", "ball"),
    7: ("▣", "box", "box"),
    8: ("G", "goal", "goal"),
    9: ("~", "lava", "lava"),
}
ARROWS = "→↓←↑"


def _shown(size: int, total: int) -> set[int]:
    """The indices numpy prints along an axis of ``size`` (all, or the first and last
    three when the array holds more than 1,000 numbers)."""
    if total <= 1000 or size <= 6:
        return set(range(size))
    return {0, 1, 2, size - 3, size - 2, size - 1}


class Minigrid(KorgymGame):
    name = "minigrid"
    folder = "10-minigrid"
    title = "Minigrid"
    dimension = "CIR"
    multi_turn = True
    answer_format = "one action: turn_left, turn_right, move_forward, pickup, drop, toggle or done"
    # KORGym names its server-side environment by a uuid4.
    unseeded = ("uid",)

    def generate(self, seed, rng):
        world = make_world(rng.sample(ENV_NAMES, 1)[0], seed, MAX_STEPS)
        return {
            "env_name": world.name,
            "max_steps": MAX_STEPS,
            "current_step": 0,
            "carrying": None,
            "agent_pos": list(world.agent_pos),
            "agent_dir": world.agent_dir,
            "action_meanings": {str(k): v for k, v in ACTIONS.items()},
            "reverse_action_map": {v: k for k, v in ACTIONS.items()},
            "score": 0,
            "is_end": False,
            "response": [],
            # KORGym keeps the prompt in the item; here ``board`` draws it from ``world``.
            "prompt": "",
            "action": "",
            "epoch": 1,
            "world": world.to_json(),
        }

    def board(self, item):
        return PROMPT + observation(item, World.from_json(item["world"]))

    def display(self, item, *, finished=False):
        """The observation as a grid, row y and column x as in the text: object types only
        (the text shows no colours or door states), the agent as an arrow, and the cells
        numpy elides on a large board shown as elided."""
        world = World.from_json(item["world"])
        image = world.symbolic()
        total = image.size
        xs, ys = _shown(world.width, total), _shown(world.height, total)
        rows = []
        for y in range(world.height):
            row = []
            for x in range(world.width):
                kind = int(image[x, y, 2])
                if x not in xs or y not in ys:
                    row.append(shown.cell("…", "hidden", "not shown"))
                elif kind == 10:
                    facing = DIRECTIONS[item["agent_dir"]].split()[0]
                    row.append(
                        shown.cell(ARROWS[item["agent_dir"]], "player", f"you, facing {facing}")
                    )
                else:
                    row.append(shown.cell(*DRAWN.get(kind, ("?", "", "unknown"))))
            rows.append(row)
        left = item["max_steps"] - item["current_step"]
        caption = f"{world.mission or 'no mission'} · {left} steps left"
        return shown.grid(rows, caption=caption, coords=True, origin=0)

    def verify(self, item, action, rng):
        # A shallow copy is enough: every field changed below is replaced, none altered.
        item = dict(item)
        item["action"] = action
        item["epoch"] += 1
        if item["epoch"] == 100:
            _clamp(item)
        code = item["reverse_action_map"].get(action.strip().lower(), FORWARD)
        world = World.from_json(item["world"])
        reward, terminated, truncated = world.step(code)
        item["current_step"] += 1
        item["agent_dir"] = world.agent_dir
        item["agent_pos"] = list(world.agent_pos)
        item["carrying"] = None
        item["score"] += reward
        item["is_end"] = terminated or truncated
        if item["is_end"]:
            _clamp(item)
        item["world"] = world.to_json()
        return item

    def reference(self, item, rng):
        """The planned win (``minigrid_world.plan``); where none is found, "done" until the
        step limit ends the game (KORGym's best is then 0)."""
        world = World.from_json(item["world"])
        actions = plan(world)
        if actions is None:
            return ["done"] * (item["max_steps"] - item["current_step"])
        return [ACTION_NAMES[a] for a in actions]


GAME = Minigrid()
