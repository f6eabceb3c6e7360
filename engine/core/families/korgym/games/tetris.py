"""25-Tetris (control and interaction reasoning): drop tetrominoes on a 10×10 board, each at a
chosen column and rotation; a full row is cleared for a point. Multi-turn, 100 pieces.

KORGym draws the first piece at generation and each next one when a move is read (before
placing the current piece), from the game's generator as play goes on. A piece is turned
clockwise once per 90° of the angle, shifted so its leftmost square lands in the given
column (clamped to the board), and dropped straight down from the top until it would
overlap; if it overlaps even at the top the game ends (the board unchanged).

KORGym's flaws, kept: an action that is not two numbers is ignored but still counts a turn
(the epoch goes up, the piece stays); an angle that is not a multiple of 90 is rounded down
to one and a negative angle means no turn at all; the game does not end after the 100th
piece by itself, as the prompt says (eval.py stops there). KORGym turns the piece once per
90° in a loop, so a huge angle makes it loop for ever; four turns are no turn, so here the
turns are counted modulo four (the same piece, without the hang).

The score is a count of rows (log-scaled); success here: at least ``GOAL_LINES`` rows in 100
pieces, which the reference (a one-piece look-ahead placing each piece to keep the board
low, flat and without holes) reaches.
"""

from __future__ import annotations

from engine.core.families import display as draw
from engine.core.families.korgym.common import MAX_TURNS, KorgymGame, symbol_grid

WIDTH = HEIGHT = 10
GOAL_LINES = 20
BEAM = 4
SHAPES = (
    ((1, 1, 1, 1),),
    ((1, 1), (1, 1)),
    ((0, 1, 1), (1, 1, 0)),
    ((1, 1, 0), (0, 1, 1)),
    ((1, 0, 0), (1, 1, 1)),
    ((0, 0, 1), (1, 1, 1)),
    ((0, 1, 0), (1, 1, 1)),
)
PROMPT = (
    "\nYou are a skilled game player. I'll provide you with a game board and rules.\n\n"
    "Your tasks are as follows:\n\n- First, provide your solution based on the given game "
    "board and rules.\n- Second, present your solution strictly in the required format. The "
    "final line of your response must follow this format exactly:  \n  'Answer: "
    "$YOUR_ANSWER'  \n(without quotes), where 'YOUR_ANSWER' is your final response. For "
    "example, 'Answer: 4 90'.\n\nNext, I will show you a Tetris game board, along with "
    "relevant information such as the epoch, score, the current state of the board, and the "
    "currently falling block. The game will forcibly end after the 100th round or if a block "
    "exceeds the top boundary of the board when placed. If an entire row becomes fully "
    "occupied, it will automatically be cleared, increasing the score by 1.The block will "
    "continue to fall until it is obstructed by another block or reaches the bottom of the "
    "board.\n\n- On the board:\n  - '*' represents a square occupied by a block.\n  - '.' "
    "represents an empty square.\n\n- The current block information includes its shape and "
    "rotation state:\n  - '*' represents squares occupied by the current block.\n  - '0' "
    "represents empty spaces.\n\nYou must provide your action in the format:  \n'Answer: "
    "[drop_coordinate] [rotation_angle]' ,e.g. 'Answer: 4 90'.\nwhere:\n- "
    "'[drop_coordinate]' refers to the leftmost square of the block relative to the board, "
    "ranging from 1 (leftmost) to 10 (rightmost).\n- '[rotation_angle]' represents the "
    "rotation applied to the current falling block, provided explicitly in the game "
    "information, where '*' denotes block squares and '0' denotes empty spaces.\nFor "
    "example, if the board is:\n..........\n..........\n..........\n..........\n..........\n"
    "..........\n..........\n......**..\n**..****..\n**...**...\nand the Current Block is:  "
    "\n0\u00b0:\n0**\n**0\n90\u00b0:\n*0\n**\n0*\n180\u00b0:\n0**\n**0\n270\u00b0:\n*0\n**\n"
    "0*\nIf the provided action is 'Answer: 3 90', the leftmost square of the block rotated "
    "by 90\u00b0 will land in the third column of the board, and the board will become:\n"
    "..........\n..........\n..........\n..........\n..........\n..........\n..........\n"
    "..*...**..\n********..\n**.*.**...\n\nThe current game board is:\n{board}\n\n"
)


def _turned(block):
    """The block turned 90° clockwise."""
    return [list(row) for row in zip(*block[::-1], strict=True)]


def _text(matrix, empty: str, full: str) -> str:
    return "\n".join("".join(full if cell else empty for cell in row) for row in matrix)


def _drop(block, board, column: int) -> bool:
    """Drops ``block`` with its leftmost square at ``column`` (1-based, clamped); changes
    ``board`` and says whether it fitted."""
    height, width = len(block), len(block[0])
    left = next((j for j in range(width) if any(row[j] == 1 for row in block)), 0)
    x = min(max(column - 1 - left, 0), len(board[0]) - width)
    landed = None
    for y in range(len(board) - height + 1):
        if any(
            block[i][j] == 1 and board[y + i][x + j] == 1
            for i in range(height)
            for j in range(width)
        ):
            break
        landed = y
    if landed is None:
        return False
    for i in range(height):
        for j in range(width):
            if block[i][j] == 1:
                board[landed + i][x + j] = 1
    return True


def _cleared(board):
    full = [i for i, row in enumerate(board) if sum(row) == len(row)]
    if not full:
        return board, 0
    kept = [row for i, row in enumerate(board) if i not in full]
    return [[0] * len(board[0]) for _ in full] + kept, len(full)


def _read(action: str):
    """KORGym's reading of an action: two numbers, the angle perhaps with a degree sign."""
    parts = action.split()
    if len(parts) != 2:
        return None
    try:
        return int(parts[0]), int(parts[1].replace("\u00b0", ""))
    except Exception:
        return None


class Tetris(KorgymGame):
    name = "tetris"
    folder = "25-Tetris"
    title = "Tetris"
    dimension = "CIR"
    multi_turn = True
    log_scaled = True
    answer_format = "a column (1–10) and an angle, e.g. 4 90"

    def generate(self, seed, rng):
        item = {
            "epoch": 1,
            "board": [[0] * WIDTH for _ in range(HEIGHT)],
            "last_block": [list(row) for row in rng.choice(SHAPES)],
            "score": 0,
            "is_end": False,
            "prompt": "",
            "action": "",
            "width": WIDTH,
            "height": HEIGHT,
        }
        item["prompt"] = self.board(item)
        return item

    def board(self, item):
        block = item["last_block"]
        rotations = "0\u00b0:\n" + _text(block, "0", "*")
        for quarter in range(1, 4):
            block = _turned(block)
            rotations += f"\n{quarter * 90}\u00b0:\n" + _text(block, "0", "*")
        info = (
            f"Epoch: {item['epoch']}\n"
            f"Score: {item['score']}\n"
            f"Board:\n{_text(item['board'], '.', '*')}\n"
            f"Current Block (rotations):\n{rotations}\n"
        )
        return PROMPT.format(board=info)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["epoch"] += 1
        if item.get("is_end"):
            return item
        move = _read(action)
        if move is None:
            return item
        column, angle = move
        following = [list(row) for row in rng.choice(SHAPES)]
        block = item["last_block"]
        for _ in range(max(angle // 90, 0) % 4):
            block = _turned(block)
        board = item["board"]
        if _drop(block, board, column):
            board, lines = _cleared(board)
            item["score"] += lines
            item["board"] = board
        else:
            item["is_end"] = True
        item["last_block"] = following
        return item

    def success(self, item):
        return int(item.get("score") or 0) >= GOAL_LINES

    def display(self, item, *, finished=False):
        """The board and the block to place (unturned)."""
        return draw.stack(
            symbol_grid(
                item["board"],
                {"0": "empty", "1": "filled"},
                texts={"0": "", "1": ""},
                labels={"0": "empty", "1": "filled"},
                caption=f"Epoch {item['epoch']} · score {item['score']}",
                coords=True,
                origin=1,
            ),
            symbol_grid(
                item["last_block"],
                {"0": "", "1": "box"},
                texts={"0": "", "1": ""},
                labels={"0": "blank", "1": "square"},
                caption="Current block at 0°",
            ),
        )

    def reference(self, item, rng):
        """100 moves, each placing the current piece where, with the best placement of the
        next piece (known: it is drawn from the game's generator), the board left scores
        best (rows cleared, against height, holes and bumpiness)."""
        actions = []
        for _ in range(MAX_TURNS):
            if item["is_end"]:
                break
            peek = rng.getstate()
            following = rng.choice(SHAPES)
            rng.setstate(peek)
            action = _best_move(item["board"], item["last_block"], following)
            actions.append(action)
            item = self.verify(item, action, rng)
        return actions


def _placements(board, block):
    """Each (action, board after, rows cleared) for ``block`` on ``board``."""
    for quarter in range(4):
        for column in range(1, WIDTH - len(block[0]) + 2):
            trial = [list(row) for row in board]
            if _drop(block, trial, column):
                trial, lines = _cleared(trial)
                yield f"{column} {quarter * 90}", trial, lines
        block = _turned(block)


def _best_move(board, block, following) -> str:
    """The placement of ``block`` whose best follow-up with ``following`` scores highest,
    among the ``BEAM`` placements that score highest alone."""
    alone = sorted(
        (
            (_value(after, lines), action, after, lines)
            for action, after, lines in _placements(board, block)
        ),
        key=lambda found: -found[0],
    )[:BEAM]
    best, chosen = None, "1 0"
    for value, action, after, lines in alone:
        then = max(
            (_value(last, lines + more) for _, last, more in _placements(after, following)),
            default=value - 1000,
        )
        if best is None or then > best:
            best, chosen = then, action
    return chosen


def _value(board, lines: int) -> float:
    heights, holes = [], 0
    for j in range(WIDTH):
        column = [board[i][j] for i in range(HEIGHT)]
        top = next((i for i, cell in enumerate(column) if cell), HEIGHT)
        heights.append(HEIGHT - top)
        holes += sum(1 for cell in column[top:] if not cell)
    bumps = sum(abs(a - b) for a, b in zip(heights[:-1], heights[1:], strict=True))
    return -0.51 * sum(heights) + 0.76 * lines - 0.36 * holes - 0.18 * bumps


GAME = Tetris()
