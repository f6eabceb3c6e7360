"""38-minesweeper (control and interaction reasoning): uncover, flag and unflag cells of a
hidden minefield; multi-turn, until a mine is uncovered, the field is cleared or every mine
is flagged (for at most 100 turns).

KORGym draws the side n (10–20) and the number of mines (10 to 2n), places them with
``sample``, and keeps the mine map on its server under a uuid4 game id (``uid``), which the
player's item carries; here the mine map (``actual``) stays in the hidden item with the
rest, and the id is derived from the seed (``unseeded``: it cannot be KORGym's). The score
is the share of mines flagged (a correct flag adds 1/mines, unflagging one takes it off);
clearing the field or flagging exactly the mines makes it 1.

KORGym's flaws, kept: the prompt says a 9×9 board with 10 mines whatever the board is;
uncovering a numbered cell also opens every empty (0) region next to it; an action it
cannot read, out of the board or on a cell that is not "?" (or not "F" to unflag) changes
nothing and does not count a turn, while an unknown command on a valid cell counts one; a
flag beyond the number of mines is refused; uncovering a mine ends the game with the
flags' score so far, not 0.
"""

from __future__ import annotations

import uuid
from collections import deque

from engine.core.families.korgym.common import KorgymGame, symbol_grid

PROMPT = (
    "\nMinesweeper Game Rules:\n1. The board is a 9x9 grid with 10 hidden mines and the "
    "coordinate of the top-leftmost grid is (0, 0).\n2. Input Format:\n   - Uncover a cell: "
    "'uncover (row, col)' e.g., 'uncover (3,4)'\n   - Flag a mine: 'flag (row, col)' e.g., "
    "'flag (0,0)'\n   - Unflag a cell: 'unflag (row, col)' e.g., 'unflag (0,0)'\n3. Win "
    "Condition: Correctly flag all mines or uncover all safe cells.\n4. The meanings of the "
    "blocks are as follows:\n    - ?: Unknown block\n    - Number: The total number of mines "
    "in the eight adjacent cells\n    - F: Flagged block\n5. The game will end at the 100th "
    "epoch or you uncover a mine.\n6. The final score is calculated as follows: the mines "
    "you flag correctly / total mines.\n{board}\nPlease output your action in the following "
    "format: 'Answer: uncover (3,4)'\n"
)
AROUND = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _open(actual, mask, row: int, col: int) -> None:
    """KORGym's uncovering of a safe cell: the cell, and breadth-first every empty region
    it touches (also next to a numbered cell)."""
    rows, cols = len(actual), len(actual[0])
    queue = deque([(row, col)])
    if actual[row][col] != 0:
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = row + dr, col + dc
                if 0 <= r < rows and 0 <= c < cols and actual[r][c] == 0:
                    queue.append((r, c))
    seen = set()
    while queue:
        r, c = queue.popleft()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        if mask[r][c] != "?":
            continue
        mask[r][c] = str(actual[r][c]) if actual[r][c] > 0 else "0"
        if actual[r][c] == 0:
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    nr, nc = r + dr, c + dc
                    if 0 <= nr < rows and 0 <= nc < cols and (nr, nc) not in seen:
                        queue.append((nr, nc))


def _read(action: str):
    """(command, row, column) as KORGym reads them from the lower-cased action, or None."""
    try:
        command, where = action.split(" ", 1)
        if where.startswith("(") and where.endswith(")"):
            where = where[1:-1]
        row, col = map(int, where.split(","))
    except Exception:
        return None
    return command, row, col


class Minesweeper(KorgymGame):
    name = "minesweeper"
    folder = "38-minesweeper"
    title = "Minesweeper"
    dimension = "CIR"
    multi_turn = True
    unseeded = ("uid",)
    answer_format = "uncover (row,col), flag (row,col) or unflag (row,col)"

    def generate(self, seed, rng):
        n = rng.randint(10, 20)
        mines = rng.randint(10, 2 * n)
        placed = rng.sample([(i, j) for i in range(n) for j in range(n)], mines)
        actual = [[0] * n for _ in range(n)]
        for i, j in placed:
            actual[i][j] = -1
        for i in range(n):
            for j in range(n):
                if actual[i][j] != -1:
                    actual[i][j] = sum(
                        1
                        for di, dj in AROUND
                        if 0 <= i + di < n and 0 <= j + dj < n and actual[i + di][j + dj] == -1
                    )
        return {
            "mask": [["?"] * n for _ in range(n)],
            "score": 0.0,
            "is_end": False,
            "mines": mines,
            "rows": n,
            "cols": n,
            "response": [],
            "prompt": "",
            "unflags": 0,
            "epoch": 1,
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"korgym/minesweeper/{seed}")),
            "action": "",
            "actual": actual,
        }

    def board(self, item):
        flags = sum(row.count("F") for row in item["mask"])
        lines = [
            f"Score: {item.get('score', 0.0)}, Flags: {flags}/{item.get('mines', 10)}, "
            f"Unflags: {item.get('unflags', 0)}",
            "Current Board:",
            *(" ".join(row) for row in item["mask"]),
        ]
        return PROMPT.format(board="\n".join(lines))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        action = action.strip().lower()
        if item["is_end"]:
            return item
        read = _read(action)
        if read is None:
            return item
        command, row, col = read
        if not (0 <= row < item["rows"] and 0 <= col < item["cols"]):
            return item
        mask, actual, mines = item["mask"], item["actual"], item["mines"]
        if command == "uncover":
            if mask[row][col] != "?":
                return item
            if actual[row][col] == -1:
                item["is_end"] = True
                for i in range(item["rows"]):
                    for j in range(item["cols"]):
                        if actual[i][j] == -1:
                            mask[i][j] = "X"
            else:
                _open(actual, mask, row, col)
                shown = sum(1 for line in mask for cell in line if cell not in ("?", "F"))
                if shown == item["rows"] * item["cols"] - mines:
                    item["is_end"] = True
                    item["score"] = 1.0
        elif command == "flag":
            if mask[row][col] != "?" or sum(line.count("F") for line in mask) >= mines:
                return item
            mask[row][col] = "F"
            if actual[row][col] == -1:
                item["score"] += 1.0 / mines
        elif command == "unflag":
            if mask[row][col] != "F":
                return item
            mask[row][col] = "?"
            item["unflags"] += 1
            if actual[row][col] == -1:
                item["score"] -= 1.0 / mines
        flagged = [(i, j) for i, line in enumerate(mask) for j, cell in enumerate(line)]
        flagged = [(i, j) for i, j in flagged if mask[i][j] == "F"]
        if len(flagged) == mines and all(actual[i][j] == -1 for i, j in flagged):
            item["is_end"] = True
            item["score"] = 1.0
        item["epoch"] += 1
        item["prompt"] = ""
        item["response"].append(action)
        return item

    def display(self, item, *, finished=False):
        """The mask the player sees ('?' covered, 'F' flagged, numbers uncovered, 'X' the
        mines once one went off); at the end also the mines left covered and the flags put
        on safe cells."""
        shown = [list(row) for row in item["mask"]]
        if finished:
            for i, line in enumerate(item["actual"]):
                for j, cell in enumerate(line):
                    if cell == -1 and shown[i][j] == "?":
                        shown[i][j] = "X"
                    elif cell != -1 and shown[i][j] == "F":
                        shown[i][j] = "F!"
        flags = sum(row.count("F") for row in item["mask"])
        tones = {"?": "hidden", "F": "flag", "F!": "wrong", "X": "mine"}
        tones.update({str(n): "open" for n in range(9)})
        return symbol_grid(
            shown,
            tones,
            texts={"?": "", "0": "", "F!": "F", "X": "✱"},
            labels={
                "?": "covered",
                "0": "empty",
                "F": "flag",
                "F!": "flag on a safe cell",
                "X": "mine",
            },
            caption=f"Flags {flags}/{item['mines']} · score {item['score']}",
            coords=True,
        )

    def reference(self, item, rng):
        """Flag every mine (row by row): the last flag wins with a score of 1."""
        return [
            f"flag ({i},{j})"
            for i, line in enumerate(item["actual"])
            for j, cell in enumerate(line)
            if cell == -1
        ]


GAME = Minesweeper()
