"""21-Anagramania (puzzle reasoning): a word of more than four letters with all letters but
the first shuffled; name the word. Single turn: 1 if the answer (stripped, any case) is the
hidden word, else 0.

KORGym accepts the hidden word only: another word with the same letters and first letter
(an equally good answer to the question asked) scores 0.
"""

from __future__ import annotations

from functools import cache

from engine.core.families.korgym.common import KorgymGame
from engine.core.families.korgym.data import read_lines

PROMPT = (
    "\nYou are a good game problem-solver, I'll give you a question.\nYour task is:\n"
    "- First, answer the question.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question, e.g. 'Answer: happy'\n{board}\n"
)
QUESTION = (
    "Please rearrange the letters to form the original word for this anagram. "
    "The first letter is already in the correct position.\n"
)


@cache
def long_words() -> tuple[str, ...]:
    """KORGym's list without the words of four letters or fewer, in file order."""
    return tuple(word for word in read_lines("words.txt") if len(word) > 4)


class Anagramania(KorgymGame):
    name = "anagramania"
    folder = "21-Anagramania"
    title = "Letter Connection"
    dimension = "PR"
    answer_format = "the word"

    def generate(self, seed, rng):
        word = rng.choice(long_words())
        rest = list(word[1:])
        rng.shuffle(rest)
        return {
            "correct_word": word,
            "board": QUESTION + " ".join([word[0], *rest]),
            "action": "",
            "score": 0,
        }

    def board(self, item):
        return PROMPT.format(board=item["board"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        word = item.get("correct_word", "")
        item["score"] = 1 if word and action.strip().lower() == word.lower() else 0
        return item

    def reference(self, item, rng):
        return [item["correct_word"]]


GAME = Anagramania()
