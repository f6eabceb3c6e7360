"""33-wordle (puzzle reasoning): guess a hidden word of 4–12 letters in at most ten tries,
each guess answered letter by letter (right spot, elsewhere in the word, not in it).

KORGym draws the length, reseeds with the seed and draws the word from its word list
(data/wordle_words.txt, duplicates and all) among the words of that length. A guess is
lower-cased, padded with "-" or cut to the word's length; the game ends when it equals the
word (score 1) or after the tenth guess (score 0).

KORGym's flaws, kept: a letter is "in the word but in the wrong spot" whenever it occurs
anywhere in the word, however often the guess repeats it (no counting, unlike Wordle);
guesses need not be words; and the prompt asks for "a specific location-based word".
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame

WORDS = Path(__file__).resolve().parent.parent / "data" / "wordle_words.txt"
PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question, e.g., 'Answer: happy'\n"
    "You need to guess a specific location-based word according to the information provided "
    "below. You have several attempts, and each guess result will be recorded in the History "
    "for future reference. Please provide your guess for this round based on the following "
    "information, e.g., 'Answer: happy'.\n{board}\n"
)


@cache
def _words_by_length() -> dict[int, list[str]]:
    bank: dict[int, list[str]] = {}
    for line in WORDS.read_text(encoding="utf-8").splitlines():
        word = line.strip()
        if word:
            bank.setdefault(len(word), []).append(word)
    return bank


def _feedback(word: str, guess: str) -> str:
    lines = []
    for i, letter in enumerate(guess):
        if i < len(word) and letter == word[i]:
            where = "is in the word and in the correct spot"
        elif letter in word:
            where = "is in the word but in the wrong spot"
        else:
            where = "is not in the word in any spot"
        lines.append(f"The letter {letter} located at idx={i} {where},")
    return "\n".join(lines)


def _tone(feedback_line: str) -> str:
    """The tone of one line of ``_feedback``."""
    if "correct spot" in feedback_line:
        return "hit"
    return "near" if "wrong spot" in feedback_line else "miss"


class Wordle(KorgymGame):
    name = "wordle"
    folder = "33-wordle"
    title = "Wordle"
    dimension = "PR"
    multi_turn = True
    answer_format = "a word of the length shown"

    def generate(self, seed, rng):
        level = rng.randint(4, 12)
        rng.seed(seed)
        bank = _words_by_length()
        words = bank.get(level) or [word for group in bank.values() for word in group]
        return {
            "epoch": 1,
            "secret_word": rng.choice(words),
            "attempts": 10,
            "history": [],
            "is_end": False,
            "prompt": "",
            "action": "",
            "level": level,
            "seed": seed,
            "score": 0,
        }

    def board(self, item):
        lines = [
            "Wordle Game",
            f"Attempt: {min(item['epoch'], item['attempts'])} of {item['attempts']}",
            f"Word length: {len(item['secret_word'])}",
            "History:",
        ]
        for number, entry in enumerate(item["history"], start=1):
            lines += [f"{number}. Guess: {entry['guess']}", "Feedback:", entry["feedback"]]
        return PROMPT.format(board="\n".join(lines))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        secret = item["secret_word"]
        guess = action.strip().lower()
        guess = guess[: len(secret)] + "-" * (len(secret) - len(guess))
        item["history"].append({"guess": guess, "feedback": _feedback(secret, guess)})
        if guess == secret:
            item["score"], item["is_end"] = 1, True
        elif item["epoch"] >= item["attempts"]:
            item["score"], item["is_end"] = 0, True
        else:
            item["score"] = 0
        item["epoch"] += 1
        item["prompt"] = self.board(item)
        return item

    def display(self, item, *, finished=False):
        """The guesses, each letter marked as the feedback says, and a blank row for each
        guess left; at the end the word."""
        length = len(item["secret_word"])
        rows = []
        for entry in item["history"]:
            marks = entry["feedback"].splitlines()
            rows.append(
                [
                    draw.cell(letter, _tone(mark), f"{letter}: {_tone(mark)}")
                    for letter, mark in zip(entry["guess"], marks, strict=True)
                ]
            )
        left = item["attempts"] - len(item["history"])
        rows += [[draw.cell("", "empty", "blank")] * length for _ in range(max(left, 0))]
        caption = f"{length} letters"
        if finished:
            caption += f" · the word: {item['secret_word']}"
        return draw.grid(rows, caption=caption)

    def reference(self, item, rng):
        return [item["secret_word"]]


GAME = Wordle()
