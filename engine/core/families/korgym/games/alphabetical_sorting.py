"""22-alphabetical_sorting (puzzle reasoning): a nine-letter word laid along a path through a
3x3 grid, the path starting anywhere and moving to a neighbouring square each letter; name
the word. Single turn: 1 if the answer (stripped, any case) is a word of KORGym's list that
some such path spells on the board (not only the hidden one), else 0.

KORGym's rules say the letters are placed "in the order they appear in the word" along
consecutive squares; its check accepts any nine-letter word of its list that a path spells,
so a board with two readings accepts both.
"""

from __future__ import annotations

from functools import cache

from engine.core.families.korgym.common import KorgymGame, symbol_grid
from engine.core.families.korgym.data import read_lines

PROMPT = (
    "\nYou are a good game problem-solver, I'll give you a question.\nYour task is:\n"
    "- First, answer the question.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question, e.g. 'Answer: happy'\n{board}\n"
)
RULES = (
    "Game rules: A word with a length of 9, randomly select a starting point in a 3x3 square, "
    "and fill in the letters in the order they appear in the word, selecting consecutive "
    "positions to place them in the grid. Please identify the word in the square.\n"
    "board:\n"
)
SIZE = 3
# KORGym's order of trying the neighbours of a square: down, up, right, left.
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@cache
def paths() -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every path visiting all nine squares once, moving to a side neighbour each step, in
    the order KORGym lists them (start squares row by row, then depth first in STEPS order);
    the generator picks one by its position in this list."""
    found: list[tuple[tuple[int, int], ...]] = []

    def extend(path: list[tuple[int, int]]) -> None:
        if len(path) == SIZE * SIZE:
            found.append(tuple(path))
            return
        row, col = path[-1]
        for d_row, d_col in STEPS:
            nxt = (row + d_row, col + d_col)
            if 0 <= nxt[0] < SIZE and 0 <= nxt[1] < SIZE and nxt not in path:
                extend([*path, nxt])

    for row in range(SIZE):
        for col in range(SIZE):
            extend([(row, col)])
    return tuple(found)


@cache
def nine_letter_words() -> tuple[str, ...]:
    return tuple(word for word in read_lines("words.txt") if len(word) == SIZE * SIZE)


class AlphabeticalSorting(KorgymGame):
    name = "alphabetical_sorting"
    folder = "22-alphabetical_sorting"
    title = "Alphabetical Sorting"
    dimension = "PR"
    answer_format = "the nine-letter word"

    def generate(self, seed, rng):
        word = rng.choice(nine_letter_words())
        path = rng.choice(paths())
        grid = [[""] * SIZE for _ in range(SIZE)]
        for (row, col), letter in zip(path, word, strict=True):
            grid[row][col] = letter
        question = RULES + "\n".join("|".join(row) for row in grid)
        return {
            "answer": "",
            "question": question,
            "score": 0,
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
            "board": grid,
            "correct_word": word,
        }

    def board(self, item):
        return PROMPT.format(board=item["question"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        words = set(nine_letter_words())
        grid = item["board"]
        readings = {"".join(grid[r][c] for r, c in path) for path in paths()}
        accepted = {word.lower() for word in readings & words}
        item["score"] = 1 if action.strip().lower() in accepted else 0
        return item

    def display(self, item, *, finished=False):
        return symbol_grid(item["board"], {}, caption="Find the word along adjacent letters")

    def reference(self, item, rng):
        return [item["correct_word"]]


GAME = AlphabeticalSorting()
