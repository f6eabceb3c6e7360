"""19-party_time (mathematical and logical reasoning): 70–200 party guests with a gender,
shirt, trouser and hair colour and one to six belongings, and criteria on two to five of
those features; the player counts the guests who meet them all, or those of them carrying
a given item. Single turn, 1 for KORGym's number (read by ``int``), else 0.

A guest meets a criterion when one of its values is among the criterion's values (for
belongings: carries at least one of the listed items).

Flaw of KORGym's code: each criterion's values, and the item asked about, are drawn from
``list(set(...))`` of strings, whose order depends on the server process's string-hash
salt; so KORGym's question *and answer* for a seed change from one run of its server to
the next. The game here is KORGym's with ``PYTHONHASHSEED=0`` (``korgym.hashorder``), the
one reproducible rendition; the fixtures are recorded that way.
"""

from __future__ import annotations

import string

from engine.core.families.korgym.common import CountQuestion
from engine.core.families.korgym.hashorder import set_order

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: 12'\n{board}\n"
)
COLOURS = ["red", "orange", "blue", "green", "yellow", "purple", "cyan"]
ITEMS = [
    "balloon", "snacks", "camera", "hat", "sunglasses", "lighter",
    "bottle", "phone", "book", "flowers",
    "candy", "guitar", "umbrella", "scarf",
    "perfume", "candle", "wallet", "pencil",
]  # fmt: skip
FEATURES = ["gender", "shirt_color", "pants_color", "hair_color", "has_items"]


def _guest(rng) -> dict:
    length = rng.randint(3, 8)
    return {
        "name": "".join(rng.choices(string.ascii_letters, k=length)),
        "gender": [rng.choice(["male", "female"])],
        "shirt_color": [rng.choice(COLOURS)],
        "pants_color": [rng.choice(COLOURS)],
        "hair_color": [rng.choice(COLOURS)],
        "has_items": rng.sample(ITEMS, rng.randint(1, 6)),
    }


class PartyTime(CountQuestion):
    prompt = PROMPT
    name = "party_time"
    folder = "19-party_time"
    title = "Party Time"
    dimension = "MLR"

    def generate(self, seed, rng):
        guests = [_guest(rng) for _ in range(rng.randint(70, 200))]
        asked = rng.choice(["total number", "items number"])
        chosen = rng.sample(FEATURES, rng.randint(2, len(FEATURES)))
        criteria = {}
        for feature in chosen:
            present = set_order([value for guest in guests for value in guest[feature]])
            criteria[feature] = rng.sample(present, rng.randint(1, len(present)))
        item_asked = rng.choice(set_order([x for guest in guests for x in guest["has_items"]]))
        answer = 0
        for guest in guests:
            if all(any(v in values for v in guest[f]) for f, values in criteria.items()):
                if asked == "total number" or item_asked in guest["has_items"]:
                    answer += 1
        text = (
            "We invite some students to our party today. Their appearance and their "
            "belongings are as follows:\n"
        )
        for number, guest in enumerate(guests, 1):
            text += (
                f"Student({number}): Name = {guest['name']}, Gender = {guest['gender'][0]}, "
                f"Shirt color = {guest['shirt_color'][0]}, "
                f"Pants color = {guest['pants_color'][0]}, "
                f"Hair color = {guest['hair_color'][0]}, "
                f"Has items = {'/'.join(guest['has_items'])};\n"
            )
        if asked == "total number":
            text += "Please help me calculate the total number of students that meet the "
        else:
            text += f"Please help me calculate the total number of {item_asked} of these "
            text += "students that meet the "
        text += (
            "following criteria, and return the number in the following format: "
            "'Answer: $YOUR_ANSWER' (without quotes), where YOUR_ANSWER is your final answer "
            "to the question, e.g., 'Answer: 16'.\nAll students that: "
        )
        text += "; ".join(
            f"{number}. {feature} belong to {'/'.join(values)}"
            for number, (feature, values) in enumerate(criteria.items(), 1)
        )
        return self.question(text + ".", answer)


GAME = PartyTime()
