"""24-snake (control and interaction reasoning): steer a snake on an 8×8 board walled at its
edges, eating apples (one point each, three on the board at any time) for 100 turns or until
it runs into a wall or itself.

KORGym places the three starting apples at random on the inner 6×6 cells not under the
snake (at (4, 3), heading UP), and a new apple the same way each time one is eaten, drawing
from the game's generator as play goes on. The item keeps every board shown so far
(``map``), as KORGym's does.

KORGym's flaws, kept: any action other than a reversal becomes the new direction, so a
garbled or empty action (an unknown direction) keeps the head where it is, which counts as
running into itself and ends the game, with the next board naming the garbled direction;
moving into the cell the tail is about to leave also counts as a collision; the prompt says
nothing of that, and the game does not end at the 100th turn by itself (eval.py stops
there). One change, where KORGym's code hangs: when an apple is eaten and no free inner
cell is left for a new one (a snake of 34 cells and two apples), KORGym draws cells for
ever; here the game ends there instead, with the score reached.

Success here: at least ``GOAL_APPLES`` apples. The reference follows a cycle through all 36
inner cells (it never collides) until it has them, then runs straight into a wall.
"""

from __future__ import annotations

from engine.core.families.korgym.common import KorgymGame, symbol_grid

SIZE = 8
GOAL_APPLES = 10
INNER = (SIZE - 2) ** 2
PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: LEFT'\n\n"
    "You are controlling a snake in a Snake game.The board size is 8x8.In the game board. "
    "The goal of the game is to control the snake, eat as many apples as possible, and grow "
    "the snake in length. Each time the snake eats an apple, the score increases by one. The "
    "game ends when the snake collides with itself or the walls of the board.The game board "
    "is a grid with walls by '#' around the edges.The snake starts with a length of 1 (just "
    "the head). The head is represented by 'H' and the body by 'S'. The game starts with 3 "
    "apples placed randomly on the board. Apples are represented by 'A'. The snake starts "
    "moving in the 'UP' direction. The snake moves one square at a time in the direction it "
    "is facing: 'UP', 'DOWN', 'LEFT', or 'RIGHT'. The player controls the snake\u2019s "
    "movement by providing direction inputs. The snake cannot reverse its direction (i.e., "
    "it cannot turn 'UP' to 'DOWN' or 'LEFT' to 'RIGHT' directly).The snake loses the game "
    "if it collides with itself  or the walls. Each time the snake's head moves to a square "
    "occupied by an apple ('A'), the snake eats the apple and grows in length and meanwhile, "
    "the score will increase 1 point. The Current direction indicates the direction in "
    "which the snake is currently moving forward and the Game board indicates the current "
    "map of game.Remember, the game will end after the 100th epoch.\n\n"
    "For example,if the board is \n########\n#     A#\n#S     #\n#H     #\n#AA    #\n"
    "#      #\n#      #\n########\n\nand the direction you give is DOWN,then you will eat an "
    "apple ,increase 1 score and the next state of board will be \n########\n#  A  A#\n"
    "#S     #\n#S     #\n#HA    #\n#      #\n#      #\n########\n\nThe Direction you give "
    "should be one of 'LEFT', 'RIGHT', 'UP' and 'DOWN'\n\nGame board:\n\n{board}\n\n"
    "Current direction: {direction}\n\nCurrent epoch: {epoch}\n\nBefore giving your "
    "answer,you need to repeat the current game board first.\n"
)
STEPS = {"LEFT": (0, -1), "RIGHT": (0, 1), "UP": (-1, 0), "DOWN": (1, 0)}
OPPOSITE = {"LEFT": "RIGHT", "RIGHT": "LEFT", "UP": "DOWN", "DOWN": "UP"}


def _new_apple(rng, snake, food):
    while True:
        cell = (rng.randint(1, SIZE - 2), rng.randint(1, SIZE - 2))
        if cell not in snake and cell not in food:
            return cell


def _grid(snake, food) -> str:
    rows = []
    for i in range(SIZE):
        row = ""
        for j in range(SIZE):
            if (i, j) == snake[-1]:
                row += "H"
            elif (i, j) in snake:
                row += "S"
            elif (i, j) in food:
                row += "A"
            elif i in (0, SIZE - 1) or j in (0, SIZE - 1):
                row += "#"
            else:
                row += " "
        rows.append(row + "\n")
    return "".join(rows)


def _cells(cells) -> list[tuple[int, int]]:
    return [(int(i), int(j)) for i, j in cells]


def _cycle_next(cell):
    """The next cell on a cycle through the 36 inner cells: rows 1–6 snaking through columns
    2–6 and back up column 1."""
    i, j = cell
    if j == 1 and i > 1:
        return (i - 1, 1)
    if i == 1:
        return (1, j + 1) if j < 6 else (2, 6)
    if i == 6:
        return (6, j - 1)
    if i % 2:  # rows 3 and 5 go right
        return (i, j + 1) if j < 6 else (i + 1, 6)
    return (i, j - 1) if j > 2 else (i + 1, 2)


class Snake(KorgymGame):
    name = "snake"
    folder = "24-snake"
    title = "Snake"
    dimension = "CIR"
    multi_turn = True
    log_scaled = True
    answer_format = "a direction: UP, DOWN, LEFT or RIGHT"

    keys = {"ArrowUp": "UP", "ArrowDown": "DOWN", "ArrowLeft": "LEFT", "ArrowRight": "RIGHT"}

    def generate(self, seed, rng):
        snake = [(SIZE // 2, SIZE // 2 - 1)]
        food: list[tuple[int, int]] = []
        while len(food) < 3:
            food.append(_new_apple(rng, snake, food))
        item = {
            "initial_map": [[0] * SIZE for _ in range(SIZE)],
            "direction": "UP",
            "food": [list(cell) for cell in food],
            "score": 0,
            "snake": [list(cell) for cell in snake],
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
        }
        item["map"] = [self.board(item)]
        return item

    def board(self, item):
        grid = _grid(_cells(item["snake"]), _cells(item["food"]))
        return PROMPT.format(board=grid, direction=item["direction"], epoch=item["epoch"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        action = action.strip().upper()
        item["action"] = action
        if OPPOSITE.get(item["direction"]) != action:
            item["direction"] = action
        snake, food = _cells(item["snake"]), _cells(item["food"])
        di, dj = STEPS.get(item["direction"], (0, 0))
        head = (snake[-1][0] + di, snake[-1][1] + dj)
        crashed = head in snake or not (0 < head[0] < SIZE - 1 and 0 < head[1] < SIZE - 1)
        full = False
        if not crashed:
            snake.append(head)
            if head in food:
                item["score"] += 1
                food.remove(head)
                while len(food) < 3 and not full:
                    full = len(snake) + len(food) >= INNER
                    if not full:
                        food.append(_new_apple(rng, snake, food))
            else:
                snake.pop(0)
        item["snake"] = [list(cell) for cell in snake]
        item["food"] = [list(cell) for cell in food]
        item["map"].append(self.board(item))
        item["is_end"] = crashed or full
        item["epoch"] += 1
        return item

    def success(self, item):
        return int(item.get("score") or 0) >= GOAL_APPLES

    def display(self, item, *, finished=False):
        rows = _grid(_cells(item["snake"]), _cells(item["food"])).splitlines()
        return symbol_grid(
            rows,
            {"H": "snake-head", "S": "snake", "A": "food", "#": "wall", " ": "empty"},
            texts={"#": "", " ": ""},
            labels={"H": "head", "S": "body", "A": "apple", "#": "wall", " ": "empty"},
            caption=f"Heading {item['direction']} · apples {item['score']}",
        )

    def reference(self, item, rng):
        """Round the cycle through every inner cell (never a collision; every apple is
        passed within 36 turns) until ``GOAL_APPLES`` are eaten, then straight on into a
        wall (or the body), which ends the game."""
        actions: list[str] = []
        while not item["is_end"] and len(actions) < 100:
            if int(item["score"]) < GOAL_APPLES:
                i, j = item["snake"][-1]
                after = _cycle_next((i, j))
                step = (after[0] - i, after[1] - j)
                action = next(name for name, move in STEPS.items() if move == step)
            else:
                action = item["direction"]
            actions.append(action)
            item = self.verify(item, action, rng)
        return actions


GAME = Snake()
