"""44-city (mathematical and logical reasoning): 100-200 cities with random facilities and
200-1000 roads with lengths; the total of one facility (or of the coastal or inland
cities) over the k nearest direct neighbours of one city. Single turn: 1 if the answer
read as an integer is that total, else 0.

KORGym draws the numbers of cities and roads from Python's global generator *before*
seeding it with the seed, so in KORGym the same seed gives a graph of a size that depends
on what the server generated before. Here they are drawn from the seed's own generator
first (what KORGym does when the global generator was seeded with the same seed; the
fixtures are recorded that way), and the generator is then seeded again, as KORGym does.
The roads are networkx's ``gnm_random_graph`` on the seed, as in KORGym. When two
neighbours are equally far, KORGym's question ("the k nearest") is ambiguous; its answer
takes them in the order networkx lists the neighbours.
"""

from __future__ import annotations

import string

import networkx as nx

from engine.core.families.korgym.common import KorgymGame

PROMPT = "Cities and Connections Game:\n{board}"
FACILITIES = (
    "lumber mills",
    "hospitals",
    "churches",
    "banks",
    "stadiums",
    "restaurants",
    "mines",
    "factories",
    "research centers",
)
ASKED = ("coastal cities", "inland cities", "population", *FACILITIES)


class City(KorgymGame):
    name = "city"
    folder = "44-city"
    title = "City Traveller"
    dimension = "MLR"
    answer_format = "an integer"

    def generate(self, seed, rng):
        n = rng.randint(100, 200)
        e = min(rng.randint(200, 1000), n * (n - 1) // 2)
        rng.seed(seed)
        cities = []
        names: set[str] = set()
        for _ in range(n):
            name = "".join(rng.choices(string.ascii_uppercase, k=10))
            while name in names:
                name = "".join(rng.choices(string.ascii_uppercase, k=10))
            names.add(name)
            coastal = rng.choice([0, 1])
            city = {
                "name": name,
                "coastal cities": coastal,
                "inland cities": 1 - coastal,
                "population": rng.randint(100, 10000) * 10000,
            }
            for facility in FACILITIES:
                city[facility] = rng.randint(0, 100)
            cities.append(city)
        graph = nx.gnm_random_graph(n, e, seed=seed)
        for u, v in graph.edges():
            graph[u][v]["distance"] = rng.randint(1, 100)
        connected = [node for node in graph.nodes() if graph.degree(node) > 0]
        centre = rng.choice(connected) if connected else 0
        asked = rng.choice(ASKED)
        near = sorted(
            ((other, graph[centre][other]["distance"]) for other in graph.neighbors(centre)),
            key=lambda pair: pair[1],
        )
        k, answer = 0, 0
        if near:
            k = rng.randint(1, len(near))
            answer = sum(cities[other][asked] for other, _ in near[:k])
        details = "\n".join(
            f"City Name={c['name']}: Type={'Coastal' if c['coastal cities'] == 1 else 'Inland'}, "
            f"Population={c['population']}, Lumber Mills={c['lumber mills']}, "
            f"Hospitals={c['hospitals']}, Churches={c['churches']}, Banks={c['banks']}, "
            f"Stadiums={c['stadiums']}, Restaurants={c['restaurants']}, Mines={c['mines']}, "
            f"Factories={c['factories']}, Research Centers={c['research centers']}"
            for c in cities
        )
        roads = "\n".join(
            f"City {cities[u]['name']} is connected to City {cities[v]['name']} "
            f"(Distance: {data['distance']}km)"
            for u, v, data in graph.edges(data=True)
        )
        question = (
            "Given the following cities and their connections:\n\n"
            "── City Details ──\n"
            f"{details}\n\n"
            "── Connections ──\n"
            f"{roads}\n\n"
            f"Question: What is the total number of {asked} in the {k} nearest cities "
            f"directly adjacent to {cities[centre]['name']}?\n"
            "Please provide your answer in the following format: 'Answer: $YOUR_ANSWER' "
            "(without quotes), where $YOUR_ANSWER is your final answer."
        )
        return {
            "board": question,
            "answer": str(answer),
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
            item["score"] = 1 if int(action.strip()) == int(item["answer"]) else 0
        except ValueError:
            item["score"] = 0
        return item

    def reference(self, item, rng):
        return [item["answer"]]


GAME = City()
