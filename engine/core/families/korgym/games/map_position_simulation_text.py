"""48-map_position_simulation_text (spatial and geometric reasoning): a walled map with
portals, jumpers, reversers, traps and repeaters, and a list of moves; single turn, 1 for
the player's final position, else 0.

Generation, as KORGym's: the generator is seeded with the seed, the map's rows, columns
and number of moves are drawn, and then the generator is seeded *again* with the seed (so
the map is drawn from the seed's start whatever the size); if KORGym's simulation gives up
on the result (more than 200 loop rounds), the seed is raised by one and the size drawn
from where the generator stands.

Flaws of KORGym's code, kept here:

* The prompt's examples measure coordinates the other way round from the code: "player at
  (1,1), jumper at (1,2), the move is UP, lands at (1,4)" has UP raising the second
  coordinate, but the code moves UP to row - 1 (and the answer is (row, column)).
* "Elements that have already been triggered during the current turn will not trigger
  again": the code keeps no such record; it only stops after 200 rounds (and then
  generates another map).
* A repeater reached on the last move does nothing: the extra step is taken only while
  moves remain.
* A portal ends the move on the other portal, whatever stands next to it.
"""

from __future__ import annotations

import ast
import math

from engine.core.families.korgym.common import KorgymGame, symbol_grid

PROMPT = """
You are a good game player, I'll give you a game board and rules.
Your task is:
- First, give your answer according to the game board and rules.
- Second, output the answer in the required format. The last line of your response should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is your final answer to the question,e.g.'Answer: (3, 12)'.

You will be given an n*n map containing the following elements:
  - Player (P)
  - Empty cell (E)
  - Portal (paired with matching numbers): Represented by numbers and appear in pairs (1,1; 2,2; etc.). Stepping onto one portal will teleport the player to the other portal with the same number. For example, stepping onto portal 1 will teleport the player to the other portal 1.
  - Jumper (J): Stepping onto a jumper will cause the player to leap two steps in the current direction, skipping the cell in between. For example, if the player is at (1,1) and the jumper is at (1,2), and the move is UP, the player will land at (1,4), and the element at (1,3) will not be triggered.
  - Wall (W): A wall blocks the player's movement, causing them to stay in the original position.
  - Reverser (A): The direction of movement will be reversed when passing through a reverser. For example, if the player is at (3,3), the reverser is at (3,4), and the intended move is UP, the actual movement will be DOWN, landing at (3,2).
  - Trap (T): Stepping into a trap will trap the player for one turn, making the next move ineffective. For example, if the player is at (3,3), the trap is at (3,4), and the move sequence is UP, UP, LEFT, then the first UP puts the player into the trap, the next UP is canceled, and the player ends up performing LEFT next.
  - Repeater (R): Stepping onto a repeater causes the player to move an extra step in the same direction. For example, if the player is at (1,1), and the repeater is at (1,2), and the move is UP, the player will end up at (1,3).

Additional Rules:
  - Map elements can be combined. For example, a jumper may cause the player to land on a trap two cells away.
  - Elements that have already been triggered during the current turn will not trigger again (except for walls), to prevent infinite loops.
  - The map boundaries are all walls to prevent going out of bounds.
  - Map coordinates start from (0,0), i.e., the top-left corner is (0,0).

You will see a generated sequence of moves. Based on the given map and the move sequence, determine the player's final position after executing all moves.

Please output the final player coordinate in the following format:'Answer: (row, col)',e.g.'Answer: (3, 12)'

Map:
{board_str}

Move sequence:
{task_str}
"""  # noqa: E501

STEP = {"UP": (-1, 0), "DOWN": (1, 0), "LEFT": (0, -1), "RIGHT": (0, 1)}
ROUNDS = 200  # KORGym's guard against endless loops, for moves and for one move's chain


def make_map(rng, rows: int, cols: int, moves: int):
    """A map and a list of moves, drawn as KORGym draws them (after reseeding); None when
    the map is too small for its elements (never for KORGym's sizes)."""
    inner = (rows - 2) * (cols - 2)
    portals_max = math.ceil(inner * 0.05)
    others_max = math.ceil(inner * 0.4) // 4
    if inner <= 1 + portals_max * 2 + others_max:
        return None
    grid = [
        ["W" if r in (0, rows - 1) or c in (0, cols - 1) else "E" for c in range(cols)]
        for r in range(rows)
    ]
    free = [(r, c) for r in range(1, rows - 1) for c in range(1, cols - 1)]

    def take():
        cell = rng.choice(free)
        free.remove(cell)
        return cell

    r, c = take()
    grid[r][c] = "P"
    pairs = rng.randint(1, portals_max) if portals_max >= 1 else 1
    for number in range(1, pairs + 1):
        if len(free) >= 2:
            for _ in range(2):
                r, c = take()
                grid[r][c] = str(number)
    for element in "JATR":
        for _ in range(rng.randint(0, others_max)):
            if free:
                r, c = take()
                grid[r][c] = element
    return grid, [rng.choice(list(STEP)) for _ in range(moves)]


def final_position(grid: list[list[str]], moves: list[str]):
    """Where the player ends, by KORGym's rules (module docstring); None when a move's
    chain or the whole walk runs past KORGym's 200 rounds."""
    rows, cols = len(grid), len(grid[0]) if grid else 0
    start = next(((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "P"), None)
    if start is None:
        return None
    here = start
    next_move, skip, again, rounds = 0, 0, None, 0
    while next_move < len(moves):
        rounds += 1
        if rounds > ROUNDS:
            return None
        if skip:
            skip -= 1
            next_move += 1
            continue
        if again is not None:
            move, again = again, None
        else:
            move = moves[next_move]
            next_move += 1
        dr, dc = STEP.get(move, (0, 0))
        to = (here[0] + dr, here[1] + dc)
        cell = grid[to[0]][to[1]] if 0 <= to[0] < rows and 0 <= to[1] < cols else "W"
        chain = 0
        while True:
            chain += 1
            if chain > ROUNDS:
                return None
            if cell == "W":
                to = here
                break
            if cell.isdigit():
                twin = next(
                    (
                        (r, c)
                        for r in range(rows)
                        for c in range(cols)
                        if grid[r][c] == cell and (r, c) != to
                    ),
                    None,
                )
                if twin:
                    to = twin
                break
            if cell == "J":
                land = (to[0] + 2 * dr, to[1] + 2 * dc)
                if 0 <= land[0] < rows and 0 <= land[1] < cols and grid[land[0]][land[1]] != "W":
                    to = land
                    cell = grid[to[0]][to[1]]
                    continue
                break
            if cell == "A":
                dr, dc = -dr, -dc
                back = (here[0] + dr, here[1] + dc)
                if 0 <= back[0] < rows and 0 <= back[1] < cols and grid[back[0]][back[1]] != "W":
                    to = back
                    cell = grid[to[0]][to[1]]
                    continue
                to = here
                break
            if cell == "T":
                skip = 1
            elif cell == "R":
                again = move
            break
        here = to
    return here


class MapPositionSimulation(KorgymGame):
    name = "map_position_simulation_text"
    folder = "48-map_position_simulation_text"
    title = "Map Simulation"
    dimension = "SGR"
    answer_format = "the final position as (row, col)"

    def generate(self, seed, rng):
        while True:
            rows, cols = rng.randint(10, 50), rng.randint(10, 50)
            moves = rng.randint(10, 50)
            rng.seed(seed)
            made = make_map(rng, rows, cols, moves)
            if made is not None and final_position(*made) is not None:
                break
            seed += 1
        grid, task = made
        return {
            "game_map": grid,
            "task": task,
            "action": "",
            "score": 0,
            "is_end": False,
            "prompt": "",
            "epoch": 1,
            "row_num": len(grid),
            "col_num": len(grid[0]),
        }

    def board(self, item):
        return PROMPT.format(
            board_str="\n".join(" ".join(row) for row in item["game_map"]),
            task_str=", ".join(item["task"]),
        )

    def verify(self, item, action, rng):
        """KORGym reads the action as a Python literal; a tuple or list equal to the final
        position scores 1 (so "[3, 12]" and "3, 12" count), anything else 0."""
        item = self.copy(item)
        item["action"] = action
        try:
            answer = ast.literal_eval(action)
            if not isinstance(answer, (tuple, list)):
                raise ValueError("not a position")
            answer = tuple(answer)
        except Exception:  # any unreadable answer scores 0, as in KORGym
            item["score"] = 0
            return item
        item["score"] = 1 if final_position(item["game_map"], item["task"]) == answer else 0
        return item

    def display(self, item, *, finished=False):
        """The map (portals numbered in pairs) and the moves to follow."""
        tones = {
            "P": "player",
            "E": "floor",
            "W": "wall",
            "J": "highlight",
            "A": "highlight",
            "T": "enemy",
            "R": "highlight",
        }
        portals = {str(cell) for row in item["game_map"] for cell in row if str(cell).isdigit()}
        tones.update(dict.fromkeys(portals, "goal"))
        return symbol_grid(
            item["game_map"],
            tones,
            texts={"E": "", "W": ""},
            labels={
                "P": "player",
                "E": "empty",
                "W": "wall",
                "J": "jumper",
                "A": "reverser",
                "T": "trap",
                "R": "repeater",
            }
            | {p: f"portal {p}" for p in portals},
            caption="Moves: " + ", ".join(item["task"]),
            coords=True,
        )

    def reference(self, item, rng):
        row, col = final_position(item["game_map"], item["task"])
        return [f"({row}, {col})"]


GAME = MapPositionSimulation()
