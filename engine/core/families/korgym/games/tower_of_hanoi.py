"""30-Tower_of_Hanoi (control and interaction reasoning): five disks a–e on four columns, a
start some moves away from all disks on column 4; the answer is the whole list of moves.

KORGym draws a level (1–13) and a start exactly that many moves from the goal, chosen among
all such positions found by a breadth-first search backwards from the goal (reseeding with
the seed before the choice). ``verify`` replays the moves from the shown position: 1 if they
are all legal and end with a–e on column 4, else 0.

KORGym's flaws, kept: eval.py plays the game as multi-turn, but ``verify`` never ends it nor
changes the position, so every turn shows the same board again and the game runs its 100
turns, the score being the last answer's; a move whose column is not an integer (text, a
float) or an answer that cannot be iterated (a number) makes KORGym's verify fail (an
error, scored 0); an answer that is no Python literal scores 0 without an error.
"""

from __future__ import annotations

import ast
from collections import deque

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame, new_item

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    'YOUR_ANSWER is your final answer to the question,e.g.\'Answer: [("a", 2), ("b", 4)]\''
    "\n\n{question}\n"
)
RULES = (
    "The Tower of Hanoi problem consists of four columns and five disks. The objective is to "
    "move all the disks to the target column. The rules are as follows: each move can only "
    "move one disk; you can only take off the top disk from a column; and you can never place "
    "a larger disk on top of a smaller one. The disks are labeled as a, b, c, d, e in "
    "ascending order of size.\nThe initial state of the Hanoi Tower is similar to: 1: null, "
    "2: a, b, 3: c, d, 4: e. This means column 1 has no disks; column 2 has disks a and b; "
    "column 3 has disks c and d; and column 4 has disk e. Note that column 4 is the target "
    "column.\nYour answer should be a list of moves in the format [(disk, target_column), "
    "...], e.g., [('a', 2), ('b', 4)]. Here, (a, 2) means moving disk a to column 2.\n\n"
    "Current state of columns: "
)
DISKS = ("a", "b", "c", "d", "e")
GOAL = ((), (), (), DISKS)
TARGET = 3


def _before(state):
    """Positions one move before ``state``, in KORGym's order (each column's top disk moved
    back to each other column that can take it)."""
    found = []
    for dest in range(4):
        if not state[dest]:
            continue
        disk = state[dest][0]
        for src in range(4):
            if src != dest and (not state[src] or disk < state[src][0]):
                columns = [list(column) for column in state]
                columns[dest] = columns[dest][1:]
                columns[src] = [disk, *columns[src]]
                found.append(tuple(tuple(column) for column in columns))
    return found


def _by_distance():
    """Every position by its distance from the goal, each list in breadth-first order."""
    distance = {GOAL: 0}
    queue = deque([GOAL])
    while queue:
        state = queue.popleft()
        for earlier in _before(state):
            if earlier not in distance:
                distance[earlier] = distance[state] + 1
                queue.append(earlier)
    levels: dict[int, list] = {}
    for state, steps in distance.items():
        levels.setdefault(steps, []).append(state)
    return levels


def _columns(current_state):
    return [[] if column == "null" else column.split(",") for column in current_state]


def _score(current_state, moves) -> int:
    """KORGym's check of a list of moves (it raises where KORGym's code raises)."""
    columns = _columns(current_state)
    for move in moves:
        if not isinstance(move, tuple) or len(move) != 2:
            return 0
        disk, column = move
        dest = column - 1
        if dest < 0 or dest >= 4:
            return 0
        src = next((i for i in range(4) if columns[i] and columns[i][0] == disk), None)
        if src is None:
            return 0
        if columns[dest] and disk >= columns[dest][0]:
            return 0
        columns[src].pop(0)
        columns[dest].insert(0, disk)
    return 1 if columns[TARGET] == list(DISKS) else 0


class TowerOfHanoi(KorgymGame):
    name = "tower_of_hanoi"
    folder = "30-Tower_of_Hanoi"
    title = "Tower of Hanoi"
    dimension = "CIR"
    multi_turn = True
    answer_format = "the list of moves, e.g. [('a', 2), ('b', 4)]"

    def generate(self, seed, rng):
        level = rng.choice(range(1, 14))
        rng.seed(seed)
        state = rng.choice(_by_distance()[level])
        return new_item(
            current_state=[",".join(column) if column else "null" for column in state],
            difficulty=level,
        )

    def board(self, item):
        shown = ", ".join(f"{i + 1}: {column}" for i, column in enumerate(item["current_state"]))
        return PROMPT.format(question=RULES + shown)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            moves = ast.literal_eval(action)
        except Exception:
            item["score"] = 0
            return item
        try:
            item["score"] = _score(item["current_state"], moves)
        except Exception:  # KORGym's verify fails: eval.py scores the turn 0
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        """The four columns as the board lists them (column 4 the target)."""
        lines = []
        for number, column in enumerate(item["current_state"], start=1):
            disks = [] if column == "null" else column.split(",")
            label = f"{number} (target)" if number == len(item["current_state"]) else str(number)
            lines.append(
                (label, [draw.cell(d, draw.colour_tone(ord(d) - 96), f"disk {d}") for d in disks])
            )
        return draw.rows(lines, caption="Disks a (smallest) to e, as the board lists them")

    def reference(self, item, rng):
        """The shortest solution (``difficulty`` moves), found by breadth-first search."""
        start = tuple(tuple(column) for column in _columns(item["current_state"]))
        came_from = {start: None}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            if state == GOAL:
                break
            for src in range(4):
                if not state[src]:
                    continue
                disk = state[src][0]
                for dest in range(4):
                    if dest != src and (not state[dest] or disk < state[dest][0]):
                        columns = [list(column) for column in state]
                        columns[src].pop(0)
                        columns[dest].insert(0, disk)
                        after = tuple(tuple(column) for column in columns)
                        if after not in came_from:
                            came_from[after] = (state, (disk, dest + 1))
                            queue.append(after)
        moves = []
        state = GOAL
        while came_from[state] is not None:
            state, move = came_from[state]
            moves.append(move)
        return [repr(moves[::-1])]


GAME = TowerOfHanoi()
