"""15-emoji_connect (spatial and geometric reasoning): count the horizontal and vertical
runs of two or more equal emojis on a board; single turn, 1 for the exact count, else 0.

KORGym's generator seeds Python's generator twice with the seed (once to draw the number
of emojis, which sets the board size, and again before drawing the emojis), so the first
draw of both is the same number. Its verifier reads the action with Python's ``int`` after
stripping it (so "+7", " 7 " and "0_7" all read as 7); anything else scores 0.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

from engine.core.families.korgym.common import KorgymGame, colours, symbol_grid

EMOJIS = json.loads(
    (Path(__file__).resolve().parent.parent / "data" / "emoji_connect_emojis.json").read_text(
        encoding="utf-8"
    )
)

PROMPT = (
    "\nYou are a good game problem-solver, I'll give you a question.\nYour task is:\n"
    "- First, answer the question.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: 192'\n"
    "There is a rectangular board made up of emojis. Your task is to count the number of "
    "horizontal or vertical lines formed by the same emoji, with a length of 2 or more. "
    "Output the total count of such lines as the answer.\n"
    "board:\n{board}\n"
    "Please provide the number as your answer,e.g.'Answer: 192'\n"
)


def _side(kinds: int) -> int:
    if kinds <= 3:
        return 5
    if kinds <= 5:
        return 6
    if kinds <= 7:
        return 7
    return 10


def count_lines(board: list[list[str]]) -> int:
    """Maximal runs of length two or more, along rows and then along columns."""
    lines = [list(row) for row in board] + [list(column) for column in zip(*board, strict=True)]
    total = 0
    for line in lines:
        run = 1
        for before, here in pairwise(line):
            if here == before:
                run += 1
            else:
                total += run >= 2
                run = 1
        total += run >= 2
    return total


class EmojiConnect(KorgymGame):
    name = "emoji_connect"
    folder = "15-emoji_connect"
    title = "Emoji Connect"
    dimension = "SGR"
    answer_format = "a whole number (the count of lines)"

    def generate(self, seed, rng):
        kinds = rng.randint(3, 10)
        side = _side(kinds)
        rng.seed(seed)  # KORGym seeds again before drawing the emojis
        chosen = rng.sample(EMOJIS, kinds)
        board = [[rng.choice(chosen) for _ in range(side)] for _ in range(side)]
        return {
            "answer": 0,
            "score": 0,
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
            "board": board,
        }

    def board(self, item):
        shown = "".join("".join(row) + "\n" for row in item["board"])
        return PROMPT.format(board=shown)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["answer"] = count_lines(item["board"])
        try:
            item["score"] = int(int(action.strip().lower()) == item["answer"])
        except ValueError:
            item["score"] = 0
        return item

    def display(self, item, *, finished=False):
        tones = colours(cell for row in item["board"] for cell in row)
        return symbol_grid(item["board"], tones, caption="Count the lines of one emoji")

    def reference(self, item, rng):
        return [str(count_lines(item["board"]))]


GAME = EmojiConnect()
