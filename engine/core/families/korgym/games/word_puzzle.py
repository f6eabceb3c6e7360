"""8-word_puzzle (puzzle reasoning): a crossword of 5-15 words; answer all its words in
order as a list. Single turn: the share of words right (each compared stripped, any case,
by position).

KORGym sends the model a picture of the grid (numbers, grey squares, 50-90% of each word's
letters hidden) besides the clues its text shows. **This platform shows text only, so here
the player sees the clues and not the picture** (not the lengths, crossings or shown
letters): the game is harder here than in KORGym. Everything else is KORGym's: the same
words, clues, grid and hidden letters are drawn (the picture's file name, ``image_path``,
included), but the picture itself (``base64_image``, drawn with Pillow) is not made.

KORGym's flaws, kept: the number of words and the hiding rate are drawn from Python's
global generator before any seeding (here from the seed's own generator, as KORGym does
when the global generator was seeded with the same seed; the fixtures are recorded that
way); each try picks its words with the generator seeded by seed + try number, so seed s's
second try is seed s+1's first and neighbouring seeds often share their words; a try
succeeds only when word 1 is among the longest (every other word must cross one already
placed, and the longest is placed first); words may touch side by side; a word whose clue
is empty in KORGym's list shows the clue "nan"; an answer list holding, among the first
as many entries as there are words, something other than text or bytes crashes KORGym's
verify (scored 0, even if other words were right).
"""

from __future__ import annotations

import ast
import math
from functools import cache

import pandas as pd

from engine.core.families.base import SeedRefused
from engine.core.families.korgym.common import KorgymGame
from engine.core.families.korgym.data import HERE

PROMPT = (
    "\nYou are a good game player, I'll give you a game board which is a picture and rules."
    "\nYour task is:\n- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    'YOUR_ANSWER is your final answer to the question,e.g.\'Answer: ["happy","person"]\'\n'
    "You need to complete a crossword puzzle that consists of grey and white squares. The "
    "solver guesses the words corresponding to the horizontal and vertical directions based "
    "on a set of clues. During the decryption process, every white square must be filled "
    "with a letter, and the red number in the first white square of each entry corresponds "
    "to its clue number. You need to provide all the words in order in your answer as a "
    'list, e.g. \'Answer: ["happy", "sad", ...]\'.\n\nClues:\n{clues}\n'
)
MAX_TRIES = 1000
TRIES_PER_SIZE = 20


@cache
def word_bank() -> dict[str, object]:
    """KORGym's words and clues: its CSV read by pandas as KORGym reads it (words stripped
    and lower-cased, the first clue of a word kept), words of 3-12 letters only."""
    table = pd.read_csv(HERE / "high_quality_word_clues.csv.gz")
    table["word"] = table["word"].str.strip().str.lower()
    clues = table.drop_duplicates("word").set_index("word")["clue"].to_dict()
    # An empty clue is read as NaN, which KORGym's board prints "nan"; kept as that text,
    # since JSON (the task's storage) has no NaN.
    return {
        w: c if isinstance(c, str) else str(c)
        for w, c in clues.items()
        if 3 <= len(w) <= 12 and w.isalpha()
    }


def pick(rng, bank: dict[str, object], count: int, seed: int) -> list[str]:
    """``count`` different words, five- to eight-letter ones three times as likely."""
    rng.seed(seed)
    words = list(bank)
    weights = [3 if 5 <= len(w) <= 8 else 1 for w in words]
    chosen: list[str] = []
    while len(chosen) < count and words:
        word = rng.choices(words, weights=weights, k=1)[0]
        if word not in chosen:
            chosen.append(word)
            at = words.index(word)
            del words[at], weights[at]
    return chosen


def place(rng, words: list[str], size: int) -> list[dict]:
    """KORGym's placement, longest first: random spots and directions, each word crossing
    one already placed (word 1 excepted); stops at the first word it cannot place."""
    grid: list[list[str | None]] = [[None] * size for _ in range(size)]
    placed: list[dict] = []
    for index, word in sorted(enumerate(words), key=lambda pair: -len(pair[1])):
        word = word.upper()
        for _ in range(200 if index == 0 else 500):
            direction = rng.choice(["across", "down"])
            rows = size - 1 if direction == "across" else size - len(word)
            cols = size - len(word) if direction == "across" else size - 1
            if rows < 0 or cols < 0:
                continue
            row, col = rng.randint(0, rows), rng.randint(0, cols)
            cells = [
                (row + (i if direction == "down" else 0), col + (i if direction == "across" else 0))
                for i in range(len(word))
            ]
            crossings = 0
            for (r, c), letter in zip(cells, word, strict=True):
                if grid[r][c]:
                    if grid[r][c] != letter:
                        break
                    crossings += 1
            else:
                if crossings > 0 or index == 0:
                    for (r, c), letter in zip(cells, word, strict=True):
                        grid[r][c] = letter
                    placed.append(
                        {"number": index + 1, "row": row, "col": col, "direction": direction}
                    )
                    break
        else:
            return placed
    return placed


class WordPuzzle(KorgymGame):
    name = "word_puzzle"
    folder = "8-word_puzzle"
    title = "Word Problem"
    dimension = "PR"
    answer_format = 'the words in clue order, as a list: ["happy", "sad", ...]'
    not_reproduced = ("base64_image",)

    def generate(self, seed, rng):
        bank = word_bank()
        size, tries = 20, 0
        while tries < MAX_TRIES:
            count = rng.randint(5, 15)
            difficulty = rng.randint(5, 9) / 10
            for _ in range(TRIES_PER_SIZE):
                tries += 1
                words = pick(rng, bank, count, seed + tries)
                placed = place(rng, words, size)
                if len(placed) == count:
                    # The picture's hidden letters: drawn, as KORGym draws them, though the
                    # picture is not made here.
                    for entry in placed:
                        length = len(words[entry["number"] - 1])
                        hidden = min(max(1, math.ceil(difficulty * length)), length)
                        rng.sample(range(length), hidden)
                    order = sorted(entry["number"] for entry in placed)
                    return {
                        "score": 0,
                        "is_end": False,
                        "response": [],
                        "prompt": "",
                        "action": "",
                        "epoch": 1,
                        "answer": [words[number - 1] for number in order],
                        "clues": [bank[words[number - 1]] for number in order],
                        "image_path": f"cache/crossword_{rng.randint(1000, 9999)}.png",
                    }
            size += 5
            if size > 40:
                break
        # KORGym's own generator crashes here; the platform draws another seed instead.
        raise SeedRefused(f"KORGym builds no crossword from seed {seed}: draw another")

    def board(self, item):
        clues = "".join(f"{number}. {clue}\n" for number, clue in enumerate(item["clues"], 1))
        return PROMPT.format(clues=clues)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            answers = ast.literal_eval(action)
        except Exception:
            answers = None
        if not isinstance(answers, list):
            item["score"] = 0
            return item
        right = 0
        for index, word in enumerate(item["answer"]):
            given = answers[index] if index < len(answers) else ""
            if not isinstance(given, str | bytes):  # no .strip(): KORGym's verify crashes
                item["score"] = 0
                return item
            right += isinstance(given, str) and given.strip().lower() == word.strip().lower()
        item["score"] = right / len(item["answer"]) if item["answer"] else 0
        return item

    def reference(self, item, rng):
        return [str(item["answer"])]


GAME = WordPuzzle()
