"""1-DateCount (mathematical and logical reasoning): one question, a date some days before
or after a given one; single turn, 1 for the exact date string, else 0."""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.core.families.korgym.common import KorgymGame

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: 1992/05/18'\n\n"
    "{question}\n"
)


class DateCount(KorgymGame):
    name = "datecount"
    folder = "1-DateCount"
    title = "Date Calculation"
    dimension = "MLR"
    answer_format = "year/month/day, as YYYY/MM/DD"

    def generate(self, seed, rng):
        year = rng.randint(500, 1525)
        month = rng.randint(1, 12)
        day = rng.randint(1, 28)
        offset = rng.randint(-100000, 100000)
        base = datetime(year, month, day)
        target = base + timedelta(days=offset)
        direction = "ago" if offset > 0 else "later"
        question = (
            f"The date {abs(offset)} days {direction} is {base.year}/{base.month}/{base.day}, "
            "what is the date today? (The output should be in the format: "
            "'Answer: year/month/date')"
        )
        return {
            "score": 0,
            "is_end": False,
            "response": [],
            "prompt": "",
            "action": "",
            "epoch": 1,
            # KORGym writes the year as the C library's %Y does on Linux: not padded.
            "correct_answer": f"{target.year}/{target.month:02d}/{target.day:02d}",
            "current_problem": question,
        }

    def board(self, item):
        return PROMPT.format(question=item["current_problem"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["score"] = 1 if str(action).strip() == str(item["correct_answer"]).strip() else 0
        return item

    def reference(self, item, rng):
        return [item["correct_answer"]]


GAME = DateCount()
