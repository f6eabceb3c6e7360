"""18-alien (mathematical and logical reasoning): a catalogue of alien kinds (diet, legs,
horns, reproduction, colour), how many of each live in an area, and criteria on two to
five features; the player counts the matching animals, or their legs or horns. Single
turn, 1 for KORGym's number (read by ``int``), else 0.

KORGym draws 70–200 animals spread over 1–that many kinds (a kind may get none), then the
criteria: for each chosen feature a random sample of the kinds' values, listed through a
Python ``set``; the question is about legs or horns only when that feature is not a
criterion.

Flaw of KORGym's code: the set makes the order in which a criterion's text values
(diets, reproductions, colours) are listed depend on the server process's string-hash
salt, so KORGym's board for a seed changes from run to run (the answer does not). The
board here is KORGym's with ``PYTHONHASHSEED=0`` (``korgym.hashorder``), the one
reproducible rendition; the fixtures are recorded that way.
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
DIETS = ["herbivore", "carnivore", "Omnivore", "Scavenger", "Parasite", "Insectivore"]
REPRODUCTIONS = ["mammal", "oviparous", "Viviparous", "Asexual Reproduction", "Spore Reproduction"]
COLOURS = ["red", "orange", "blue", "green", "yellow", "purple", "cyan"]
FEATURES = ["diet", "legs", "horns", "reproduction", "color"]


def _kind(rng) -> dict:
    length = rng.randint(3, 8)
    return {
        "name": "".join(rng.choices(string.ascii_letters, k=length)),
        "diet": rng.choice(DIETS),
        "legs": rng.randint(0, 10),
        "horns": rng.randint(0, 10),
        "reproduction": rng.choice(REPRODUCTIONS),
        "color": rng.choice(COLOURS),
    }


class Alien(CountQuestion):
    prompt = PROMPT
    name = "alien"
    folder = "18-alien"
    title = "Alien"
    dimension = "MLR"

    def generate(self, seed, rng):
        animals = rng.randint(70, 200)
        kinds = [_kind(rng) for _ in range(rng.randint(1, animals))]
        counts = [0] * len(kinds)
        for _ in range(animals):
            counts[rng.randint(0, len(kinds) - 1)] += 1
        chosen = rng.sample(FEATURES, rng.randint(2, len(FEATURES)))
        asked = rng.choice([q for q in ("total number", "horns", "legs") if q not in chosen])
        criteria = {}
        for feature in chosen:
            size = rng.randint(1, len(kinds))
            criteria[feature] = set_order(rng.sample([k[feature] for k in kinds], size))
        answer = 0
        for kind, count in zip(kinds, counts, strict=True):
            if all(kind[feature] in values for feature, values in criteria.items()):
                answer += count if asked == "total number" else count * kind[asked]
        text = (
            "There are several alien beings on a distant planet. Their categories and "
            "corresponding features are as follows:\n"
        )
        for number, kind in enumerate(kinds, 1):
            text += (
                f"Alien({number}): Name = {kind['name']}, Diet = {kind['diet']}, "
                f"Legs = {kind['legs']}, Horns = {kind['horns']}, "
                f"Reproduction = {kind['reproduction']}, Color = {kind['color']};\n"
            )
        living = [f"{count} {kind['name']}" for kind, count in zip(kinds, counts, strict=True)]
        text += "Now, there are " + ", ".join(c for c, n in zip(living, counts, strict=True) if n)
        if asked == "total number":
            text += (
                " in this area. Please help me calculate the total number of alien animals "
                "that meet the following criteria, "
            )
        else:
            text += (
                f" in this area, please help me calculate the total number of {asked} of "
                "these alien animals that meet the following criteria, "
            )
        text += (
            "and return the number in the following format: 'Answer: $YOUR_ANSWER' (without "
            "quotes), where YOUR_ANSWER is your final answer to the question,e.g.'Answer: 16'."
            "\nAll alien animals that: "
        )
        text += "; ".join(
            f"{number}. {feature} are " + "/".join(str(v) for v in values)
            for number, (feature, values) in enumerate(criteria.items(), 1)
        )
        return self.question(text + ".", answer)


GAME = Alien()
