"""20-city_path (mathematical and logical reasoning): a road network of 70–200 cities; the
player gives the shortest distance between two of them. Single turn, 1 if KORGym's
distance is among the numbers in the answer, else 0.

KORGym's network: the cities in a shuffled chain (so every city is reachable), then as
many extra draws of two cities as there are cities, each adding a road unless the two are
the same or already joined; distances are 1–20.

Flaw of KORGym's code, kept: the answer is not read as one number but searched for any
run of digits equal to the distance, so an answer listing many numbers ("12 13 14 …")
scores 1 if one of them is right, and a minus sign is ignored (``-12`` counts as 12).
A run of more than 4,300 digits before the right number makes ``int`` raise: a server
error in KORGym, which its evaluator scores 0 (here a 0).
"""

from __future__ import annotations

import heapq
import re

from engine.core.families.korgym.common import KorgymGame

PROMPT = (
    "\nYou are an expert in city navigation. Below is the information about a network of "
    "cities and roads.\nYour task:\n- Read the information carefully.\n"
    "- Calculate the shortest distance from the start city to the target city.\n"
    "- Provide your answer in the following format: 'Answer: $YOUR_ANSWER' (without quotes)."
    "\n\n{board}\n"
)
_NUMBER = re.compile(r"\d+")


def _shortest(roads: list[tuple[str, str, int]], start: str, target: str) -> int | None:
    """Dijkstra's distance from ``start`` to ``target``; None if unreachable."""
    near: dict[str, dict[str, int]] = {}
    for a, b, d in roads:
        for x, y in ((a, b), (b, a)):
            near.setdefault(x, {})
            near[x][y] = min(d, near[x].get(y, d))
    best = {start: 0}
    queue = [(0, start)]
    done: set[str] = set()
    while queue:
        dist, city = heapq.heappop(queue)
        if city in done:
            continue
        if city == target:
            return dist
        done.add(city)
        for other, d in near.get(city, {}).items():
            if other not in done and dist + d < best.get(other, dist + d + 1):
                best[other] = dist + d
                heapq.heappush(queue, (dist + d, other))
    return None


class CityPath(KorgymGame):
    name = "city_path"
    folder = "20-city_path"
    title = "Path Planning Problem"
    dimension = "MLR"
    answer_format = "the shortest distance, a whole number"

    def generate(self, seed, rng):
        count = rng.randint(70, 200)
        cities = [f"City{i}" for i in range(count)]
        chain = cities[:]
        rng.shuffle(chain)
        roads = [(chain[i], chain[i + 1], rng.randint(1, 20)) for i in range(count - 1)]
        joined = {frozenset(road[:2]) for road in roads}
        for _ in range(count):
            a = rng.choice(cities)
            b = rng.choice(cities)
            if a == b or frozenset((a, b)) in joined:
                continue
            roads.append((a, b, rng.randint(1, 20)))
            joined.add(frozenset((a, b)))
        start = rng.choice(cities)
        target = rng.choice(cities)
        while target == start:
            target = rng.choice(cities)
        distance = _shortest(roads, start, target)
        board = (
            "City Network Information:\n"
            "Cities: " + ", ".join(cities) + "\n"
            "Roads (format: CityA - CityB (distance)):\n"
            + ", ".join(f"{a} - {b} ({d})" for a, b, d in roads)
            + "\n"
            f"Start City: {start}\nTarget City: {target}\n"
            "Question: What is the shortest distance from the start city to the target city?"
        )
        return {
            "board": board,
            "answer": str(distance) if distance is not None else "N/A",
            "score": 0,
            "is_end": False,
            "action": "",
            "response": [],
            "prompt": "",
            "epoch": 1,
        }

    def board(self, item):
        return PROMPT.format(board=item["board"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        try:
            distance = int(item["answer"])
        except ValueError:
            item["score"] = 0
            return item
        try:
            found = any(int(number) == distance for number in _NUMBER.findall(action))
        except ValueError:  # a number too long for int(): KORGym's server fails, scored 0
            found = False
        item["score"] = 1 if found else 0
        return item

    def reference(self, item, rng):
        return [item["answer"]]


GAME = CityPath()
