"""2-GuessWord (puzzle reasoning): name an English word of a given length (5-10) with given
letters at three or four given positions. Single turn: 1 if the answer has that length,
is in KORGym's big checking list (370,000 words, not the 17,000-word list the puzzle is
made from) and has those letters, else 0.

Words of the puzzle list missing from the checking list ("blogger", "cellphone",
"daycare"…; 47 of five to ten letters) are refused, though the puzzle was made from them,
and a puzzle whose only fitting words are such cannot be won. As in KORGym: the answer is
not stripped (a space around it changes its length); capitals are accepted. KORGym's item
keeps the puzzle's words that fit (``current_valid_words``, never shown or used to score)
as a Python set turned into a list, so its order in KORGym changes from one process to the
next; here the list is sorted (``unordered`` tells the fixture test to compare it as a set).
"""

from __future__ import annotations

import gzip
import string
from functools import cache

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame, new_item
from engine.core.families.korgym.data import HERE, read_lines

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: 1992/05/18'\n\n"
    "{question}\n"
)
MAX_ATTEMPTS = 100


@cache
def puzzle_words() -> frozenset[str]:
    """The words puzzles are made from: KORGym's words.txt without those of four letters or
    fewer."""
    return frozenset(word for word in read_lines("words.txt") if len(word) > 4)


@cache
def checking_words() -> frozenset[str]:
    """The words answers are checked against: KORGym's verify_words.txt, same filter."""
    with gzip.open(HERE / "verify_words.txt.gz", "rt", encoding="utf-8") as f:
        return frozenset(word for word in (line.strip() for line in f) if len(word) > 4)


def fitting(length: int, rules: list[list], words: frozenset[str]) -> set[str]:
    """The words (lower case) of that length with each rule's letter at its position."""
    return {
        word.lower()
        for word in words
        if len(word.lower()) == length
        and all(pos < length and word[pos].lower() == letter.lower() for pos, letter in rules)
    }


class GuessWord(KorgymGame):
    name = "guessword"
    folder = "2-GuessWord"
    title = "Crossword Puzzle"
    dimension = "PR"
    answer_format = "one English word"
    unordered = ("current_valid_words",)

    def generate(self, seed, rng):
        words = puzzle_words()
        while True:
            length = rng.randint(5, 10)
            wanted = rng.randint(3, 4)
            rules: list[list] = []
            for _ in range(MAX_ATTEMPTS):
                if len(rules) >= wanted:
                    break
                pos = rng.randint(0, length - 1)
                letter = rng.choice(string.ascii_lowercase)
                if all(pos != p for p, _ in rules) and fitting(
                    length, [*rules, [pos, letter]], words
                ):
                    rules.append([pos, letter])
            if len(rules) == wanted:
                break
        return new_item(
            current_valid_words=sorted(fitting(length, rules, words)),
            length=length,
            rules=rules,
        )

    def board(self, item):
        wanted = " and ".join(
            f"the letter at position {pos + 1} is '{letter}'" for pos, letter in item["rules"]
        )
        question = (
            "Please provide an English word that meets the following requirements:\n"
            f"1. The word must be {item['length']} letters long\n2. {wanted}\n"
        )
        return PROMPT.format(question=question)

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        fits = (
            len(action) == item["length"]
            and action.lower() in checking_words()
            and all(action[pos].lower() == letter.lower() for pos, letter in item["rules"])
        )
        item["score"] = 1 if fits else 0
        return item

    def display(self, item, *, finished=False):
        """The word's places, with the letters the rules give."""
        given = {pos: letter for pos, letter in item["rules"]}
        return draw.grid(
            [
                [
                    draw.cell(given[i], "given") if i in given else draw.cell("", "empty", "blank")
                    for i in range(item["length"])
                ]
            ],
            caption=f"A word of {item['length']} letters",
            coords=True,
            origin=1,
        )

    def reference(self, item, rng):
        """The first fitting puzzle word (alphabetically) that the checking list has, else
        the first fitting word of the checking list; "" when no word fits (KORGym's puzzle
        cannot be won then)."""
        known = [w for w in sorted(item["current_valid_words"]) if w in checking_words()]
        known = known or sorted(fitting(item["length"], item["rules"], checking_words()))
        return [known[0] if known else ""]


GAME = GuessWord()
