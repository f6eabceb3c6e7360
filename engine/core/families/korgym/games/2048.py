"""3-2048 (strategic reasoning): KORGym's 2048 on a 4x4 grid, one swipe a turn.

As KORGym plays it: the game starts with two 2s; every turn the tiles slide and merge
(a merge scores the new tile's value), then one empty cell, if any, gets a new tile whose
value is drawn uniformly from the powers of two up to half the largest tile (2 while the
largest tile is below 4). An action other than up/down/left/right (any case, spaces
around allowed) is replaced by a random one. A new tile is added even after a swipe that
moves nothing.

KORGym's flaws, kept here: its rules say the game ends when no move is left or when a 2048
tile is made, and that a new tile is "2 or 4", but its code never ends the game (only
KORGym's 100-turn limit does) and draws new tiles up to half the largest tile.

The score is a count (the sum of merged tiles), so ``success`` needs a threshold: a game
counts as won when a 2048 tile is on the board, the goal its rules state. The reference
knows the game's generator (it is the server's), so it looks three swipes ahead on the exact
tiles to come (``Game2048.reference`` says how well that does).
"""

from __future__ import annotations

import random

from engine.core.families import display as draw
from engine.core.families.korgym.common import MAX_TURNS, KorgymGame, new_item

PROMPT = (
    "You are a good game problem-solver, I'll give you a game board and rules.\n"
    "Your task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: LEFT'\n"
    "Rules:The game is played on a 4x4 grid, with each tile containing a number that is "
    "a power of 2 (e.g., 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048). Your goal is "
    "to combine the tiles to have more scores. The game ends when there are no more "
    "valid moves, or when you achieve the 2048 tile.In the game board, 0 means empty "
    "tile and | means the delimiter between tiles. At the beginning of the game, two "
    "tiles with the number 2 or 4 will appear randomly on the grid. You can swipe left, "
    "right, up, or down to move all tiles in that direction. All tiles will shift to the "
    "edge of the grid, and any empty spaces will be filled by a new tile (2 or 4).When "
    "two tiles of the same number touch, they will merge into one tile with the sum of "
    "those numbers and you will get the score of the new tiles. For example, two tiles "
    "with the number 2 will merge to form a 4. After merging, the new tile will not "
    "combine again in the same move. You lose the game if the grid is full, and no valid "
    "moves are left. A valid move is when two adjacent tiles are the same or there is an "
    "empty space to move a tile into. Keep in mind that combining tiles strategically is "
    "key. Try to keep the larger tiles in a corner and work towards merging smaller "
    "tiles to get higher scores.Remember, the game will end after the 100th epoch.\n"
    "For example,if the Game board is\n"
    "0|0|4|0\n"
    "0|2|0|8\n"
    "0|0|4|0\n"
    "0|0|0|2\n"
    "and the answer is DOWN\n"
    "\n"
    "the next state of Game board will be\n"
    "0|0|0|0\n"
    "0|0|0|0\n"
    "0|0|0|8\n"
    "0|2|8|2\n"
    "and since the two '4' merge into '8',so you will get 8 score\n"
    "Game board:\n"
    "{board}\n"
    "Current epoch: {epoch}\n"
    "The answer you give should be one of 'LEFT', 'RIGHT', 'UP' and 'DOWN'\n"
)

MOVES = ("up", "down", "left", "right")
# Quarter turns that bring each swipe to a swipe to the left (KORGym's rotations).
TURNS = {"down": 1, "up": 3, "left": 0, "right": 2}
GOAL = 2048
LOOKAHEAD = 3


def new_tile(board: list[list[int]], rng: random.Random) -> int:
    largest = max(max(row) for row in board)
    if largest < 4:
        return 2
    values = []
    value = 2
    while value <= largest // 2:
        values.append(value)
        value *= 2
    return rng.choice(values)


def rotate(board: list[list[int]], times: int) -> list[list[int]]:
    for _ in range(times):
        board = [list(row) for row in zip(*board[::-1], strict=True)]
    return board


def slide_left(board: list[list[int]]) -> tuple[list[list[int]], int]:
    rows = []
    gained = 0
    for row in board:
        tiles = [tile for tile in row if tile]
        merged = []
        i = 0
        while i < len(tiles):
            if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
                merged.append(tiles[i] * 2)
                gained += tiles[i] * 2
                i += 2
            else:
                merged.append(tiles[i])
                i += 1
        rows.append(merged + [0] * (4 - len(merged)))
    return rows, gained


def swipe(board, move, rng):
    """The board and points after ``move`` and the new tile (drawn from ``rng``)."""
    turned, gained = slide_left(rotate([row[:] for row in board], TURNS[move]))
    board = rotate(turned, (4 - TURNS[move]) % 4)
    empty = [(i, j) for i in range(4) for j in range(4) if board[i][j] == 0]
    if empty:
        i, j = rng.choice(empty)
        board[i][j] = new_tile(board, rng)
    return board, gained


class Game2048(KorgymGame):
    name = "2048"
    folder = "3-2048"
    title = "2048"
    dimension = "SR"
    multi_turn = True
    log_scaled = True
    answer_format = "one of LEFT, RIGHT, UP, DOWN"

    keys = {"ArrowUp": "UP", "ArrowDown": "DOWN", "ArrowLeft": "LEFT", "ArrowRight": "RIGHT"}

    def generate(self, seed, rng):
        board = [[0] * 4 for _ in range(4)]
        for cell in rng.sample(range(16), 2):
            board[cell // 4][cell % 4] = new_tile(board, rng)
        return new_item(
            board=board,
        )

    def board(self, item):
        rows = "".join("|".join(str(tile) for tile in row) + "\n" for row in item["board"])
        return PROMPT.format(board=rows, epoch=item["epoch"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        move = action.strip().lower()
        if move not in MOVES:
            move = rng.choice(["up", "down", "left", "right"])
        item["board"], gained = swipe(item["board"], move, rng)
        item["score"] += gained
        item["epoch"] += 1
        return item

    def success(self, item):
        return max(max(row) for row in item["board"]) >= GOAL

    def display(self, item, *, finished=False):
        """The tiles, coloured by value."""
        return draw.grid(
            [
                [
                    draw.cell(tile or "", draw.tile_tone(tile) or "empty", str(tile or "empty"))
                    for tile in row
                ]
                for row in item["board"]
            ],
            caption=f"Epoch {item['epoch']} · score {item['score']}",
        )

    def reference(self, item, rng):
        """KORGym's 100 turns, each the move whose next three swipes (on the tiles the
        generator will really draw) end on the best board: the largest sum of squared
        tiles, times one more than the empty cells. It makes a 2048 tile in 46 of the
        games of seeds 0-49 (not 15, 23, 27, 49)."""
        board, actions = item["board"], []
        for _ in range(MAX_TURNS):
            move = max(MOVES, key=lambda m: _outlook(board, m, rng, LOOKAHEAD))
            board, _ = swipe(board, move, rng)
            actions.append(move.upper())
        return actions


def _outlook(board, move, rng, depth):
    trial = random.Random()
    trial.setstate(rng.getstate())
    board, _ = swipe(board, move, trial)
    if depth > 1:
        return max(_outlook(board, m, trial, depth - 1) for m in MOVES)
    empty = sum(tile == 0 for row in board for tile in row)
    return sum(tile * tile for row in board for tile in row) * (1 + empty)


GAME = Game2048()
