"""7-black_white_copy (control and interaction reasoning): KORGym's black-and-white copy,
one answer: operations that paint an all-white 6x6 board into the target pattern.

As KORGym plays it: 5-10 of the 34 operations (a row to white, a column - "line" - to
black, an anti-diagonal i+j=d to black, a diagonal i-j=d-5 to white) are drawn in a
shuffled order and pruned greedily (dropping the first operation whose removal keeps the
pattern, then starting over); the target is their pattern and the limit their number. The
answer, read as a Python literal, scores 1 when it is a list of at most that many
[name, index] lists, each a known name with an index in range, none repeated, that paints
the target; else 0, as is an answer KORGym's code fails on (its evaluator scores 0), e.g.
a text index or a fractional row. An empty answer is no operation at all.

KORGym's flaws, kept here: its rules say a "limited number" of operations, but the limit
is exactly the pruned count, which greedy pruning can leave above the fewest possible; a
fractional index is accepted for a diagonal (painting nothing) though not for a row or
column.
"""

from __future__ import annotations

import ast

from engine.core.families.korgym.common import KorgymGame, symbol_grid

PROMPT = (
    "\n"
    "You are a good game player, I'll give you a game board and rules.\n"
    "Your task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: [['row', 3], ['line', "
    "0], ['diagonal_black', 6], ...]'\n"
    "\n"
    "Given an  n * n  chessboard, each cell can contain either a black (B) or white (W) "
    "piece. Initially, all cells contain white pieces. You can perform the following "
    "operations:\n"
    "\n"
    "1. Row operation (row): Turns all pieces in the selected row to white.\n"
    "2. Column operation ('line'): Turns all pieces in the selected column to black.\n"
    "3. Diagonal operation ('diagonal_black') (from bottom-left to top-right): Turns all "
    "pieces on the selected diagonal to black.\n"
    "4. Diagonal operation ('diagonal_white') (from top-left to bottom-right): Turns all "
    "pieces on the selected diagonal to white.\n"
    "\n"
    "Given a target pattern and a limited number of operations, your task is to achieve "
    "the target pattern starting from an all-white board.  \n"
    "Output your solution as a list in the format '[[operation_name, position], "
    "...]',e.g.'Answer: [['row', 3], ['line', 0], ['diagonal_black', 6], ...]'\n"
    "Target Board:\n"
    "{board}\n"
    "Limited Number:\n"
    "{num}\n"
)

SIZE = 6
NAMES = ("row", "line", "diagonal_black", "diagonal_white")
COLOUR = {"row": "W", "line": "B", "diagonal_black": "B", "diagonal_white": "W"}


def paint(board, name, index):
    """Apply one operation in place (a non-integer index fails for a row or column, as
    list indexing does in KORGym's code)."""
    n = len(board)
    if name == "row":
        board[index][:] = ["W"] * n
    elif name == "line":
        for row in board:
            row[index] = "B"
    elif name == "diagonal_black":
        for i in range(n):
            for j in range(n):
                if i + j == index:
                    board[i][j] = "B"
    elif name == "diagonal_white":
        for i in range(n):
            for j in range(n):
                if i - j == index - (n - 1):
                    board[i][j] = "W"


def pattern(operations, n=SIZE):
    board = [["W"] * n for _ in range(n)]
    for name, index in operations:
        paint(board, name, index)
    return ["".join(row) for row in board]


def prune(operations):
    """KORGym's greedy pruning: drop the first operation whose removal keeps the pattern,
    then look again from the start."""
    target = pattern(operations)
    i = 0
    while i < len(operations):
        shorter = operations[:i] + operations[i + 1 :]
        if pattern(shorter) == target:
            operations, i = shorter, 0
        else:
            i += 1
    return operations


def check(answer, target, limit) -> int:
    """KORGym's score for ``answer`` (a parsed literal): 1 or 0, and 0 where its code
    fails."""
    try:
        if len(answer) > limit:
            return 0
        n = len(target)
        board = [["W"] * n for _ in range(n)]
        done = set()
        for operation in answer:
            if not isinstance(operation, list) or len(operation) != 2:
                return 0
            name, index = operation
            if name not in NAMES:
                return 0
            if not 0 <= index < (n if name in ("row", "line") else 2 * n - 1):
                return 0
            if (name, index) in done:
                return 0
            done.add((name, index))
            paint(board, name, index)
    except TypeError:  # KORGym's code fails on these; its evaluator scores 0
        return 0
    return 1 if ["".join(row) for row in board] == target else 0


def cells(name, index, n=SIZE):
    if name == "row":
        return {(index, j) for j in range(n)}
    if name == "line":
        return {(i, index) for i in range(n)}
    if name == "diagonal_black":
        return {(i, index - i) for i in range(n) if 0 <= index - i < n}
    return {(i, i - index + n - 1) for i in range(n) if 0 <= i - index + n - 1 < n}


def fewest(target):
    """A shortest list of operations painting ``target``, found backwards: the last
    operation's cells all have its colour; the one before it needs that only on the
    cells not painted later; cells never painted stay white."""
    n = len(target)
    moves = [
        (name, index)
        for name in NAMES
        for index in range(n if name in ("row", "line") else 2 * n - 1)
    ]
    usable = [(move, cells(*move, n)) for move in moves]
    black = {(i, j) for i in range(n) for j in range(n) if target[i][j] == "B"}
    failed: dict[frozenset, int] = {}

    def search(painted, depth):
        if black <= painted:
            return []
        if depth == 0 or failed.get(painted, -1) >= depth:
            return None
        for move, covered in usable:
            fresh = covered - painted
            if fresh and all((cell in black) == (COLOUR[move[0]] == "B") for cell in fresh):
                found = search(painted | fresh, depth - 1)
                if found is not None:
                    return [*found, list(move)]
        failed[painted] = depth
        return None

    for depth in range(2 * n * n):
        found = search(frozenset(), depth)
        if found is not None:
            return found
    raise ValueError("no operations paint this pattern")


class BlackWhiteCopy(KorgymGame):
    name = "black_white_copy"
    folder = "7-black_white_copy"
    title = "Black White Copy"
    dimension = "CIR"
    answer_format = "a list of [operation, index] pairs, e.g. [['row', 3], ['line', 0]]"

    def generate(self, seed, rng):
        operations = (
            [("row", r) for r in range(SIZE)]
            + [("line", c) for c in range(SIZE)]
            + [("diagonal_black", d) for d in range(2 * SIZE - 1)]
            + [("diagonal_white", d) for d in range(2 * SIZE - 1)]
        )
        count = rng.randint(5, min(10, len(operations)))
        rng.shuffle(operations)
        kept = prune(operations[:count])
        target = pattern(kept)
        return {
            "target_map": target,
            "num": len(kept),
            "n": SIZE,
            "score": 0,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": (
                "Target:\n" + "\n".join(target) + f"\nPlease give your actions in {len(kept)} "
                "moves，e.g. [action_name, num]，Actions include：row, line, diagonal_black, "
                "diagonal_white。"
            ),
            "epoch": 1,
        }

    def board(self, item):
        return PROMPT.format(board="\n".join(item["target_map"]), num=item["num"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        answer = action
        if action:
            try:
                answer = ast.literal_eval(action)
            except Exception:  # KORGym scores anything literal_eval refuses as 0
                item["score"] = 0
                return item
        item["score"] = check(answer, item["target_map"], item["num"])
        return item

    def display(self, item, *, finished=False):
        return symbol_grid(
            [list(row) for row in item["target_map"]],
            {"B": "mark-a", "W": "mark-b"},
            texts={"B": "", "W": ""},
            labels={"B": "black", "W": "white"},
            caption=f"The pattern to make in at most {item['num']} operations",
            coords=True,
        )

    def reference(self, item, rng):
        return [str(fewest(item["target_map"]))]


GAME = BlackWhiteCopy()
