"""36-CryptoWord (puzzle reasoning): a sentence with some of its letters replaced by emoji
(one emoji a letter), the most frequent emoji's letter given as a hint; each turn the player
submits "emoji=letter" pairs and sees which were right. Multi-turn, at most ten guesses: 1
when every emoji has been named correctly (in one guess or over several), else 0.

As in KORGym: the share of letters replaced is drawn first (30-100%), then the generator is
seeded again with the seed before the sentence is chosen; an empty guess changes nothing
(no attempt is used); the feedback is the Python form of a dict of the pairs read (the
last pair for an emoji decides its feedback, and a pair names any text left of "=").
KORGym's prompt asks for the hinted and earlier right emoji to be repeated in each guess,
but its check keeps every emoji named right once, so repeating them is not needed.
"""

from __future__ import annotations

import string
from collections import Counter
from functools import cache

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame
from engine.core.families.korgym.data import read_lines

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: 😀=c,😂=d...'.\n\n"
    "Next, I will provide a sentence encoded by replacing each letter with a unique emoji. "
    "Then, I will reveal the letter corresponding to the most frequently occurring emoji. "
    "You'll have several attempts to guess the words, and each guess will be recorded in "
    "History for future reference. Based on the provided information, please submit your "
    "guesses for this round in the format 'emoji=word', separated by commas, e.g., "
    "'Answer: 😀=c,😂=d...'.\n"
    "Note that the emoji provided as a hint, as well as previously correctly answered "
    "emojis, must also be included in your answer.\n{board}\n"
)
EMOJIS = (
    "😀", "😂", "😍", "🤔", "😎", "🥳", "😴", "🤩", "🥺", "😱",
    "🙄", "😇", "🤗", "🤫", "🤭", "🤥", "🤮", "🤧", "🥶", "🥵",
    "🤠", "🥴", "🤑", "🤓", "🧐", "😈", "👻", "👽", "🤖", "💩",
    "🐶", "🐱", "🐭", "🐹", "🐰", "🦊", "🐻", "🐼", "🐨", "🐯",
    "🦁", "🐮", "🐷", "🐸", "🐵", "🐔", "🐧", "🐦", "🦆", "🦉",
)  # fmt: skip
MAX_ATTEMPTS = 10


@cache
def sentences() -> tuple[str, ...]:
    return tuple(line for line in read_lines("sentences.txt") if line)


def _pairs(guess: str) -> list[tuple[str, str]]:
    """The "emoji=letter" pairs of a guess, split at commas and the first "=", stripped."""
    found = []
    for part in guess.split(","):
        part = part.strip()
        if "=" in part:
            emoji, letter = part.split("=", 1)
            found.append((emoji.strip(), letter.strip()))
    return found


class CryptoWord(KorgymGame):
    name = "cryptoword"
    folder = "36-CryptoWord"
    title = "Crypto Word"
    dimension = "PR"
    multi_turn = True
    answer_format = "emoji=letter pairs separated by commas, e.g. 😀=c,😂=d"

    def generate(self, seed, rng):
        ratio = rng.randint(3, 10) / 10
        rng.seed(seed)
        sentence = rng.choice(sentences()).lower()
        letters = list(Counter(c for c in sentence if c in string.ascii_lowercase))
        count = max(1, min(int(len(letters) * ratio), len(letters)))
        rng.shuffle(letters)
        emojis = list(EMOJIS)
        rng.shuffle(emojis)
        table = dict(zip(letters[:count], emojis, strict=False))
        answer = {emoji: letter for letter, emoji in table.items()}
        encoded = "".join(table.get(c, c) for c in sentence)
        counts: dict[str, int] = {}
        for c in encoded:
            if c in answer:
                counts[c] = counts.get(c, 0) + 1
        hint = ""
        if counts:
            top = max(counts.items(), key=lambda pair: pair[1])[0]
            hint = f"{top}={answer[top]}"
        return {
            "epoch": 1,
            "max_attempts": MAX_ATTEMPTS,
            "encoded_sentence": encoded,
            "hint": hint,
            "answer": answer,
            "history": [],
            "correct_guesses": {},
            "action": "",
            "is_end": False,
            "seed": seed,
            "replacement_ratio": ratio,
            "score": 0,
            "prompt": "",
        }

    def board(self, item):
        lines = [
            "Crypto Word Game",
            f"Attempt: {min(item['epoch'], item['max_attempts'])} of {item['max_attempts']}",
            f"Encoded Sentence: {item['encoded_sentence']}",
            f"Hint: {item['hint']}",
            "History:",
        ]
        for number, entry in enumerate(item["history"], start=1):
            lines.append(f"{number}. Guess: {entry['guess']}")
            lines.append(f"   Feedback: {entry['feedback']}")
        if not item["history"]:
            lines.append("No guesses yet.")
        return PROMPT.format(board="\n".join(lines))

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        guess = action.strip()
        if not guess:
            return item
        answer = item["answer"]
        pairs = _pairs(guess)
        feedback = {}
        for emoji, letter in pairs:
            feedback[emoji] = emoji in answer and letter.lower() == answer[emoji]
        item["history"].append({"guess": guess, "feedback": feedback})
        for emoji, letter in pairs:
            if feedback.get(emoji):
                item["correct_guesses"][emoji] = letter.lower()
        if len(item["correct_guesses"]) == len(answer):
            item["is_end"], item["score"] = True, 1
        elif item["epoch"] >= item["max_attempts"]:
            item["is_end"], item["score"] = True, 0
        else:
            item["score"] = 0
        item["epoch"] += 1
        return item

    def display(self, item, *, finished=False):
        """The hint and each guess's pairs, marked right or wrong as the feedback says."""
        lines = [("Hint", [draw.cell(item["hint"], "given")])]
        for number, entry in enumerate(item["history"], start=1):
            feedback = entry["feedback"]
            guessed = dict(_pairs(entry["guess"]))
            pairs = [
                draw.cell(f"{emoji}={guessed.get(emoji, '')}", "hit" if right else "miss")
                for emoji, right in feedback.items()
            ]
            lines.append((f"Guess {number}", pairs))
        caption = (
            f"Attempt {min(item['epoch'], item['max_attempts'])} of {item['max_attempts']}"
            f" · {item['encoded_sentence']}"
        )
        return draw.rows(lines, caption=caption)

    def reference(self, item, rng):
        """Every emoji's letter in one guess: a win at the first attempt."""
        return [",".join(f"{emoji}={letter}" for emoji, letter in item["answer"].items())]


GAME = CryptoWord()
