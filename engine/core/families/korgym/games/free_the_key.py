"""45-free_the_key (spatial and geometric reasoning): a 6×6 sliding-block puzzle. Six
blocks (letters; a block slides along its length only) and a two-cell key (1) on the third
row, to be slid out through the exit (2) at that row's right end. Multi-turn, one step of
one block or the key per turn; 1 when the key reaches the exit.

Generation, as KORGym's: block A stands upright over the first three rows (in a column
from 1 to 4, so it always bars the key's row), then blocks B to F are placed by
backtracking over shuffled candidate places (at most one lying block per row, one standing
block per column, none else on the key's row, at most 50 tries per block), the key last
at the row's left end.

Flaws of KORGym's code, kept here:

* The starting item's ``score`` is 1 ("generation succeeded"), and an action that is not
  two words leaves the score as it is: a player who never answers keeps KORGym's score 1
  for ever. Here the game counts as won only when the key has reached the exit
  (``is_end``), which is what the score means everywhere else in the game.
* Nothing checks that the puzzle can be solved (KORGym's breadth-first solver is never
  called); see ``reference``.
* A block may slide onto the exit cell (the rule lets blocks into '2' cells as into empty
  ones), and when it slides on, the cell is left empty: the exit is gone and the key can
  no longer win.
* Block A may be placed in column 1, over the key's right cell; then no placement of the
  other blocks can pass the final check (the key needs that cell), but KORGym searches
  them all (up to 50 tries for each of five blocks, tens of millions of arrangements)
  before trying another column: for about one seed in four (those whose shuffle puts
  column 1 first) its generator does not finish in hours. Here that branch is skipped at
  once, so every seed gets a board; for the seeds where KORGym's generator finishes, the
  board is KORGym's, for the others it is the board KORGym would reach without the
  hopeless search (its generator's state after that search cannot be had in practice).
* When the backtracking fails KORGym's generator raises (it unpacks None) instead of
  trying again; here that is a ``ValueError`` too.
"""

from __future__ import annotations

from collections import deque

from engine.core.families.korgym.common import KorgymGame, colours, symbol_grid

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n- Second, output the "
    "answer in the required format. The last line of your response should be in the "
    "following format: 'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is your "
    'final answer to the question,e.g."Answer: 1 right".\n'
    "The game contains horizontal and vertical blocks (represented by letters), a key (1), "
    "and an exit (2). Your goal is to move the blocks and the key to help the key reach the "
    "exit. Horizontal blocks can only move horizontally, vertical blocks can only move "
    "vertically, and the key can only move horizontally. Control the blocks and the key to "
    "make moves so that the key successfully reaches the exit on the right side.\n"
    'In each turn, output the block/key and its moving direction. For example, "Answer: 1 '
    'right" means moving the key one step to the right, and "Answer: F up" means moving the '
    "block labeled 'F' one step upward.\n"
    "Remember,the game will end at 100th epoch.\n"
    "Current epoch:{epoch}\n"
    "Board:\n"
    "{board}\n"
)

SIZE = 6
BLOCKS = 6
TRIES = 50
KEY_ROW = 2
OPEN = ("0", "2")  # cells a block or the key may slide into


def _place(rng, grid, blocks, index, rows_used, cols_used):
    """KORGym's backtracking placement of block ``index`` onwards; the finished grid, or
    None."""
    if index == BLOCKS:
        if grid[KEY_ROW][0] == "0" and grid[KEY_ROW][1] == "0":
            grid[KEY_ROW][0] = grid[KEY_ROW][1] = "1"
            grid[KEY_ROW][SIZE - 1] = "2"
            return grid
        return None
    letter = chr(65 + index)
    if index == 0:
        candidates = [
            ("V", 0, j, 3) for j in range(1, 5) if all(grid[r][j] == "0" for r in range(3))
        ]
    else:
        candidates = []
        for i in (0, 1, 3, 4, 5):
            if i in rows_used:
                continue
            for length in (2, 3):
                for j in range(SIZE - length + 1):
                    if all(grid[i][j + k] == "0" for k in range(length)):
                        candidates.append(("H", i, j, length))
        for j in range(SIZE):
            if j in cols_used:
                continue
            for length in (2, 3):
                for i in range(SIZE - length + 1):
                    if i <= KEY_ROW < i + length:
                        continue
                    if all(grid[i + k][j] == "0" for k in range(length)):
                        candidates.append(("V", i, j, length))
    rng.shuffle(candidates)
    for orient, i, j, length in candidates[:TRIES]:
        if index == 0 and j == 1:
            continue  # a block A over the key: hopeless, and hours of search in KORGym
        cells = [[i, j + k] if orient == "H" else [i + k, j] for k in range(length)]
        for r, c in cells:
            grid[r][c] = letter
        blocks[letter] = {"type": orient, "positions": cells}
        rows = rows_used | {i} if orient == "H" else rows_used
        cols = cols_used | {j} if orient == "V" else cols_used
        if _place(rng, grid, blocks, index + 1, rows, cols) is not None:
            return grid
        for r, c in cells:
            grid[r][c] = "0"
        del blocks[letter]
    return None


def slide(grid, blocks, key, what: str, direction: str):
    """KORGym's move of a block or the key one cell, in place: False when it cannot go,
    "WIN" when the key's right cell lands on the exit, else True."""
    if what.isalpha() and what in blocks:
        block = blocks[what]
        cells = block["positions"]
        axis = {"H": ("LEFT", "RIGHT"), "V": ("UP", "DOWN")}[block["type"]]
        if direction not in axis:
            return False
        if block["type"] == "H":
            row = cells[0][0]
            low, high = min(c for _, c in cells), max(c for _, c in cells)
            if direction == "LEFT":
                if low - 1 < 0 or grid[row][low - 1] not in OPEN:
                    return False
                grid[row][high] = "0"
                block["positions"] = [[r, c - 1] for r, c in cells]
            else:
                if high + 1 >= SIZE or grid[row][high + 1] not in OPEN:
                    return False
                grid[row][low] = "0"
                block["positions"] = [[r, c + 1] for r, c in cells]
        else:
            col = cells[0][1]
            low, high = min(r for r, _ in cells), max(r for r, _ in cells)
            if direction == "UP":
                if low - 1 < 0 or grid[low - 1][col] not in OPEN:
                    return False
                grid[high][col] = "0"
                block["positions"] = [[r - 1, c] for r, c in cells]
            else:
                if high + 1 >= SIZE or grid[high + 1][col] not in OPEN:
                    return False
                grid[low][col] = "0"
                block["positions"] = [[r + 1, c] for r, c in cells]
        for r, c in block["positions"]:
            grid[r][c] = what
        return True
    if what != "1":
        return False
    row = key[0][0]
    left, right = sorted((key[0][1], key[1][1]))
    shift = {"LEFT": -1, "RIGHT": 1}.get(direction)
    if shift is None:
        return False
    new_left, new_right = left + shift, right + shift
    if new_left < 0 or new_right >= SIZE:
        return False
    # The key's own cells count as free while it moves.
    free = {left, right}
    if not all(grid[row][c] in OPEN or c in free for c in (new_left, new_right)):
        return False
    won = grid[row][new_right] == "2"
    grid[row][left] = grid[row][right] = "0"
    grid[row][new_left] = grid[row][new_right] = "1"
    key[0], key[1] = [row, new_left], [row, new_right]
    return "WIN" if won else True


def solve(grid, blocks, key) -> list[str] | None:
    """A shortest list of actions that frees the key, or None when there is none: a
    breadth-first search over the blocks' and the key's places, on bit masks of occupied
    cells. A block never slides onto the exit, which would lose it (module docstring)."""
    exit_cell = KEY_ROW * SIZE + SIZE - 1
    names = list(blocks)
    shapes = []  # per block: lying?, its fixed row or column, length
    start = []
    for name in names:
        cells = blocks[name]["positions"]
        lying = blocks[name]["type"] == "H"
        shapes.append((lying, cells[0][0] if lying else cells[0][1], len(cells)))
        start.append(min(c if lying else r for r, c in cells))
    key_start = min(c for _, c in key)

    def cell(lying, line, along):
        return line * SIZE + along if lying else along * SIZE + line

    def mask(place, length, lying, line):
        return sum(1 << cell(lying, line, place + k) for k in range(length))

    first = (tuple(start), key_start)
    before = {first: None}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        places, key_at = state
        taken = [
            mask(p, length, lying, line)
            for p, (lying, line, length) in zip(places, shapes, strict=True)
        ]
        everything = sum(taken) | (0b11 << (KEY_ROW * SIZE + key_at))
        nexts = []
        for index, (lying, line, length) in enumerate(shapes):
            p = places[index]
            back, ahead = ("left", "right") if lying else ("up", "down")
            if p > 0 and not everything >> cell(lying, line, p - 1) & 1:
                if cell(lying, line, p - 1) != exit_cell:
                    moved = places[:index] + (p - 1,) + places[index + 1 :]
                    nexts.append(((moved, key_at), f"{names[index]} {back}"))
            if p + length < SIZE and not everything >> cell(lying, line, p + length) & 1:
                if cell(lying, line, p + length) != exit_cell:
                    moved = places[:index] + (p + 1,) + places[index + 1 :]
                    nexts.append(((moved, key_at), f"{names[index]} {ahead}"))
        if key_at > 0 and not everything >> (KEY_ROW * SIZE + key_at - 1) & 1:
            nexts.append(((places, key_at - 1), "1 left"))
        if key_at + 2 < SIZE and not everything >> (KEY_ROW * SIZE + key_at + 2) & 1:
            if key_at + 2 == SIZE - 1:
                path = ["1 right"]
                while before[state] is not None:
                    state, step = before[state]
                    path.append(step)
                return path[::-1]
            nexts.append(((places, key_at + 1), "1 right"))
        for there, step in nexts:
            if there not in before:
                before[there] = (state, step)
                queue.append(there)
    return None


class FreeTheKey(KorgymGame):
    name = "free_the_key"
    folder = "45-free_the_key"
    title = "Free the Key"
    dimension = "SGR"
    multi_turn = True
    answer_format = "a block's letter or 1 (the key) and a direction, e.g. 1 right"

    def generate(self, seed, rng):
        grid = [["0"] * SIZE for _ in range(SIZE)]
        blocks: dict = {}
        if _place(rng, grid, blocks, 0, frozenset(), frozenset()) is None:
            raise ValueError(f"KORGym's generator fails for seed {seed}")
        return {
            "score": 1,
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
            "board": grid,
            "bricks": blocks,
            "key_pos": [[KEY_ROW, 0], [KEY_ROW, 1]],
        }

    def board(self, item):
        rows = "".join(" ".join(row) + "\n" for row in item["board"])
        return PROMPT.format(board=rows, epoch=item["epoch"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["epoch"] += 1
        words = action.strip().upper().split()
        if len(words) != 2:
            return item
        what, direction = words
        result = slide(item["board"], item["bricks"], item["key_pos"], what, direction)
        won = result == "WIN"
        item.update(score=1 if won else 0, is_end=won)
        return item

    def success(self, item):
        return bool(item.get("is_end")) and float(item.get("score") or 0) >= 1

    def value(self, item):
        return 1.0 if self.success(item) else 0.0

    def display(self, item, *, finished=False):
        """The blocks (one colour each), the key (1) and the exit (2)."""
        tones = colours(item["bricks"])
        tones.update({"0": "empty", "1": "player", "2": "goal"})
        return symbol_grid(
            item["board"],
            tones,
            texts={"0": ""},
            labels={"0": "empty", "1": "key", "2": "exit"},
            caption=f"Slide the key (1) out at the exit (2) · epoch {item['epoch']}",
            coords=True,
        )

    def reference(self, item, rng):
        """A shortest way out (breadth-first); for the rare puzzle with none, nothing is
        played (a loss)."""
        return solve(item["board"], item["bricks"], item["key_pos"]) or []


GAME = FreeTheKey()
