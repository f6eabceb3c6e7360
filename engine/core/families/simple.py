"""Simple procedural reasoning: tasks easy for a person, whose size is a knob.

Modelled on the task kinds of "Frontier LLMs still struggle with simple reasoning tasks"
(google-deepmind/unpuzzles_and_simple_reasoning), written afresh:

* ``counting``: how often a word (or a letter) occurs in a long text;
* ``logic``: the truth value of a first-order formula (or its negation) in a small world;
* ``math``: a word problem built from a proof tree (depth and branching as knobs);
* ``travel``: a route under a budget; any feasible route is right, and the score says
  whether it is also the fastest (the optimum is computed exactly).

Unpuzzles (famous puzzles made trivial) are human-written: they are imported from the file a
user points at, never generated or shipped here.

Answers are read leniently and scored exactly: "1,204", "1204." and " 1204 " are the same
number; "True", "yes" and "T" the same truth value; routes may be written "A -> B -> C",
"A, B, C", "A to B to C" or as a JSON list, names in any case.
"""

from __future__ import annotations

import heapq
import json
import random
import re
from collections.abc import Mapping
from typing import Any

from engine.core.families import simple_seed
from engine.core.families.base import (
    Family,
    FamilyInstance,
    Kind,
    Parameter,
    ParsedReply,
    Score,
    register,
)

# -- answer forms ------------------------------------------------------------------------------

NUMBER = re.compile(r"^[+-]?\d{1,3}(?:[,_ ]\d{3})+$|^[+-]?\d+$")


def read_integer(text: str) -> int | None:
    """An integer written in any usual way ("1,204", "1204.", "1204.0", "+7"), else None."""
    value = text.strip().strip("*`\"'").rstrip(".").strip()
    if re.fullmatch(r"[+-]?\d+\.0+", value):
        value = value.split(".")[0]
    if not NUMBER.fullmatch(value):
        return None
    return int(re.sub(r"[,_ ]", "", value))


TRUE_WORDS = {"true", "t", "yes", "y", "1"}
FALSE_WORDS = {"false", "f", "no", "n", "0"}


def read_truth(text: str) -> bool | None:
    value = text.strip().strip("*`\"'").rstrip(".").strip().casefold()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    return None


def name_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def read_route(text: str) -> list[str] | None:
    """The city names of a route, in order, from any usual notation; None if unreadable."""
    value = text.strip().rstrip(".")
    if value.startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return [name_key(item) for item in parsed if item.strip()]
        return None
    parts = re.split(r"\s*(?:->|→|=>|,|;|\n|\bto\b|\bthen\b)\s*", value, flags=re.I)
    names = [name_key(part) for part in parts if part.strip()]
    return names or None


# -- word material ----------------------------------------------------------------------------

WORDS = (
    "apple river stone cloud garden window paper bread candle forest letter market pencil "
    "bridge silver summer winter autumn spring mountain valley ocean island harbor castle "
    "village station teacher doctor farmer baker sailor painter singer dancer writer "
    "kitchen table chair basket blanket bottle button carpet ribbon mirror ladder hammer "
    "orange lemon cherry pepper carrot potato onion tomato butter cheese honey coffee "
    "morning evening night sunset shadow thunder rainbow breeze meadow pebble feather "
    "rabbit turtle falcon badger otter sparrow salmon beetle spider donkey camel zebra "
    "yellow purple golden quiet gentle clever brave happy narrow heavy bright simple "
    "travel listen follow gather wander whisper borrow answer repair measure wonder "
    "lantern compass anchor canvas marble velvet copper timber harvest journey puzzle "
    "signal rocket planet comet galaxy engine motor wheel tunnel tower temple palace "
    "museum library theater stadium factory office bakery garage school chapel cottage "
    "jacket pocket sandal helmet glove scarf collar sleeve boot hat coat shirt "
    "violin guitar trumpet piano drum flute cello banjo harp organ choir melody rhythm "
    "number circle square angle corner middle border center edge surface column shelf"
).split()
NAMES = (
    "Ada Ben Cleo Dev Ema Finn Gus Hana Ivo Jana Kofi Lena Milo Nia Omar Pia Quin Rosa "
    "Sami Tara Uma Vik Wren Xena Yuri Zoe Abel Bea Cato Dina Eli Faye Gil Hugo Iris Joel"
).split()
ITEMS = ("apples", "marbles", "stamps", "coins", "books", "shells", "cards", "pencils")
CITIES = (
    "Avonby Brill Carrow Dunmere Elston Fairhold Glenrock Harwick Ivydale Jesmond Kestrel "
    "Lowbridge Marden Northam Oakhurst Pennock"
).split()
MODES = ("train", "bus", "ferry", "flight")


# -- the family -------------------------------------------------------------------------------


class SimpleReasoning(Family):
    name = "simple"
    title = "Simple procedural reasoning"
    kinds = {
        "counting": Kind(
            "counting",
            "Counting words or letters in a long text",
            "a whole number",
            (
                Parameter("words", 40, 5, 5000, "length of the text in words"),
                Parameter("letter", 0, 0, 1, "1: count a letter; 0: count a whole word"),
            ),
            {
                "easy": {"words": 20, "letter": 0},
                "medium": {"words": 300, "letter": 1},
                "hard": {"words": 3000, "letter": 1},
            },
        ),
        "logic": Kind(
            "logic",
            "Truth of a first-order formula in a small world",
            "true or false",
            (
                Parameter("entities", 3, 2, 8, "people in the world"),
                Parameter("depth", 2, 1, 6, "nesting depth of the formula"),
                Parameter("negate", 0, 0, 1, "1: ask about the formula's negation"),
            ),
            {
                "easy": {"entities": 2, "depth": 1},
                "medium": {"entities": 4, "depth": 3},
                "hard": {"entities": 8, "depth": 6},
            },
        ),
        "math": Kind(
            "math",
            "A word problem built from a proof tree",
            "a whole number",
            (
                Parameter("depth", 2, 1, 5, "depth of the proof tree"),
                Parameter("branching", 2, 1, 3, "children of each inner step"),
            ),
            {
                "easy": {"depth": 1, "branching": 2},
                "medium": {"depth": 3, "branching": 2},
                "hard": {"depth": 5, "branching": 3},
            },
        ),
        "travel": Kind(
            "travel",
            "Planning a route under a budget",
            "the cities of your route in order, e.g. A -> B -> C",
            (
                Parameter("cities", 5, 3, 16, "cities on the map"),
                Parameter("links", 2, 1, 4, "extra links per city beyond a spanning tree"),
            ),
            {
                "easy": {"cities": 3, "links": 1},
                "medium": {"cities": 7, "links": 2},
                "hard": {"cities": 16, "links": 4},
            },
        ),
        # DeepMind's seven task types, with its knobs (engine/core/families/simple_seed.py).
        **simple_seed.SEED_KINDS,
    }

    def _generate(self, kind, params, seed):
        rng = random.Random(f"simple/{kind}/{seed}")
        if kind in simple_seed.SEED_KINDS:
            return simple_seed.generate(kind, rng, params)
        return getattr(self, f"_make_{kind}")(rng, params)

    def answer_form(self, kind: str) -> str | None:
        """A trip is typed as a route (``travel``, with city buttons) or as legs
        (``travel_modes``); every other kind answers in a text box or its options."""
        return {"travel": "route", "travel_modes": "legs"}.get(kind)

    def random_answer(self, instance: FamilyInstance, rng) -> str | None:
        if instance.kind == "travel":
            cities = list(instance.public["cities"])
            rng.shuffle(cities)
            return " -> ".join(cities[: rng.randint(2, len(cities))])
        return None

    def prompt(self, instance: FamilyInstance) -> str:
        if instance.kind in simple_seed.SEED_KINDS:
            return simple_seed.prompt(instance.kind, instance.public)
        return super().prompt(instance)

    def reply_with(self, instance: FamilyInstance, answer: str) -> str:
        if instance.kind in simple_seed.SEED_KINDS:
            return simple_seed.reply_with(instance.kind, instance.public, answer)
        return super().reply_with(instance, answer)

    def parse_reply(self, instance: FamilyInstance, text: str) -> ParsedReply:
        if instance.kind in simple_seed.SEED_KINDS:
            return simple_seed.parse_reply(instance.kind, instance.public, text)
        return super().parse_reply(instance, text)

    def reference_answer(self, instance: FamilyInstance) -> str:
        hidden = instance.hidden
        if instance.kind in simple_seed.SEED_KINDS:
            return simple_seed.reference_answer(instance.kind, hidden)
        if instance.kind == "travel":
            return " -> ".join(hidden["route"])
        if instance.kind == "logic":
            return "true" if hidden["answer"] else "false"
        return str(hidden["answer"])

    def score(self, instance: FamilyInstance, answer: str) -> Score:
        if not isinstance(answer, str):
            return Score(False, 0.0, {"error": "the answer must be text"})
        if instance.kind in simple_seed.SEED_KINDS:
            return simple_seed.score(instance.kind, instance.public, instance.hidden, answer)
        if instance.kind == "travel":
            return _score_route(instance, answer)
        expected = instance.hidden["answer"]
        read = read_truth(answer) if instance.kind == "logic" else read_integer(answer)
        if read is None:
            return Score(False, 0.0, {"error": f"not {instance.public['answer_format']}"})
        correct = read == expected
        return Score(correct, float(correct), {"read": read})

    # -- counting ---------------------------------------------------------------------

    def _make_counting(self, rng: random.Random, p: Mapping[str, int]):
        words = [rng.choice(WORDS) for _ in range(p["words"])]
        if p["letter"]:
            letter = rng.choice("aeiorstnlc")
            answer = sum(word.count(letter) for word in words)
            question = f'How many times does the letter "{letter}" occur in the text?'
        else:
            target = rng.choice(WORDS)
            # Make the word occur a few times at least in long texts, rarely zero times.
            for _ in range(rng.randint(0, max(1, p["words"] // 40))):
                words[rng.randrange(len(words))] = target
            answer = sum(word == target for word in words)
            question = (
                f'How many times does the word "{target}" occur in the text, as a whole word?'
            )
        passage = _sentences(rng, words)
        text = f"Here is a text.\n\n{passage}\n\n{question}"
        return {"text": text}, {"answer": answer}

    # -- logic -------------------------------------------------------------------------

    def _make_logic(self, rng: random.Random, p: Mapping[str, int]):
        people = NAMES[: p["entities"]]
        unary = {"tall": set(), "kind": set(), "calm": set()}
        for facts in unary.values():
            facts.update(person for person in people if rng.random() < 0.5)
        likes = {(a, b) for a in people for b in people if rng.random() < 0.4}
        formula = _formula(rng, p["depth"], [], people)
        value = _evaluate(formula, {}, people, unary, likes)
        if p["negate"]:
            formula, value = ("not", formula), not value
        facts = []
        for name, holders in unary.items():
            listed = ", ".join(sorted(holders)) or "nobody"
            facts.append(
                f"- {listed} {'is' if len(holders) == 1 else 'are'} {name}"
                if holders
                else f"- nobody is {name}"
            )
        pairs = ", ".join(f"{a} likes {b}" for a, b in sorted(likes)) or "nobody likes anyone"
        facts.append(f"- {pairs}")
        text = (
            f"In a world of exactly these people: {', '.join(people)}.\n"
            "The only facts (everything not listed is false):\n"
            + "\n".join(facts)
            + f"\n\nIs this statement true or false?\n{_render(formula)}"
        )
        return {"text": text}, {"answer": value}

    # -- math --------------------------------------------------------------------------

    def _make_math(self, rng: random.Random, p: Mapping[str, int]):
        item = rng.choice(ITEMS)
        names = iter(_names(rng))
        sentences: list[str] = []

        def node(depth: int) -> tuple[str, int]:
            name = next(names)
            if depth == 0:
                value = rng.randint(1, 9)
                sentences.append(f"{name} has {value} {item if value != 1 else item[:-1]}.")
                return name, value
            children = [node(depth - 1) for _ in range(p["branching"])]
            extra = rng.randint(0, 5)
            together = _join([child for child, _ in children])
            if len(children) == 1:
                factor = rng.randint(2, 3)
                value = children[0][1] * factor + extra
                sentence = f"{name} has {factor} times as many {item} as {together}"
            else:
                value = sum(v for _, v in children) + extra
                sentence = f"{name} has as many {item} as {together} together"
            sentences.append(sentence + (f", plus {extra} more." if extra else "."))
            return name, value

        root, answer = node(p["depth"])
        rng.shuffle(sentences)
        text = " ".join(sentences) + f"\n\nHow many {item} does {root} have?"
        return {"text": text}, {"answer": answer}

    # -- travel ------------------------------------------------------------------------

    def _make_travel(self, rng: random.Random, p: Mapping[str, int]):
        cities = rng.sample(CITIES, p["cities"])
        pairs: set[tuple[str, str]] = set()
        for index in range(1, len(cities)):  # a spanning tree: every city is reachable
            pairs.add(tuple(sorted((cities[index], rng.choice(cities[:index])))))
        for city in cities:
            for _ in range(p["links"]):
                other = rng.choice(cities)
                if other != city:
                    pairs.add(tuple(sorted((city, other))))
        links = {}
        for a, b in sorted(pairs):
            mode = rng.choice(MODES)
            hours = rng.randint(1, 9)
            # Faster is dearer, on the whole: a budget then makes a real trade-off.
            cost = max(5, (12 - hours) * rng.randint(4, 9) + rng.randint(0, 10))
            links[(a, b)] = {"mode": mode, "hours": hours, "cost": cost}
        start, end = rng.sample(cities, 2)
        _, _, cheapest_cost = _best_route(links, start, end, by="cost")
        _, _, fastest_cost = _best_route(links, start, end, by="hours")
        # Halfway between the cheapest route's cost and the fastest one's: the fastest may
        # be out of reach, and the cheapest is always within it.
        budget = cheapest_cost + max(0, fastest_cost - cheapest_cost) // 2
        route, cost, hours = _constrained_fastest(links, start, end, budget)
        lines = [
            f"- {link['mode']} between {a} and {b}: {link['hours']} h, {link['cost']} euros"
            for (a, b), link in sorted(links.items())
        ]
        text = (
            "These are all the direct connections (each goes both ways):\n"
            + "\n".join(lines)
            + f"\n\nPlan a route from {start} to {end} that costs at most {budget} euros in "
            "total and visits no city twice. Any such route is accepted; try to make it as "
            "fast as you can."
        )
        hidden = {
            "links": [[a, b, link["hours"], link["cost"]] for (a, b), link in links.items()],
            "budget": budget,
            "route": route,
            "optimum_hours": hours,
            "optimum_cost": cost,
        }
        return {"text": text, "cities": sorted(cities), "start": start, "end": end}, hidden


def _sentences(rng: random.Random, words: list[str]) -> str:
    out, current = [], []
    for word in words:
        current.append(word)
        if len(current) >= rng.randint(5, 12):
            out.append(" ".join(current).capitalize() + ".")
            current = []
    if current:
        out.append(" ".join(current).capitalize() + ".")
    return " ".join(out)


def _names(rng: random.Random):
    """Distinct person names, as many as needed (numbered once the list runs out)."""
    base = list(NAMES)
    rng.shuffle(base)
    yield from base
    number = 2
    while True:
        for name in base:
            yield f"{name} {number}"
        number += 1


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# Formulas: ("is", prop, term) | ("likes", term, term) | ("not", f) | ("and"|"or"|"if", f, g)
# | ("all"|"some", var, f); a term is a person's name or a bound variable.
VARIABLES = ("x", "y", "z", "u", "v", "w")


def _formula(rng: random.Random, depth: int, bound: list[str], people: list[str]):
    terms = bound + people
    if depth == 0:
        if rng.random() < 0.5:
            return ("is", rng.choice(("tall", "kind", "calm")), rng.choice(bound or terms))
        return ("likes", rng.choice(bound or terms), rng.choice(terms))
    choice = rng.random()
    if choice < 0.4 and len(bound) < len(VARIABLES):
        var = VARIABLES[len(bound)]
        return (rng.choice(("all", "some")), var, _formula(rng, depth - 1, bound + [var], people))
    if choice < 0.55:
        return ("not", _formula(rng, depth - 1, bound, people))
    op = rng.choice(("and", "or", "if"))
    return (op, _formula(rng, depth - 1, bound, people), _formula(rng, depth - 1, bound, people))


def _evaluate(f, env: dict, people, unary, likes) -> bool:
    tag = f[0]
    if tag == "is":
        return env.get(f[2], f[2]) in unary[f[1]]
    if tag == "likes":
        return (env.get(f[1], f[1]), env.get(f[2], f[2])) in likes
    if tag == "not":
        return not _evaluate(f[1], env, people, unary, likes)
    if tag in ("all", "some"):
        results = (_evaluate(f[2], {**env, f[1]: p}, people, unary, likes) for p in people)
        return all(results) if tag == "all" else any(results)
    left = _evaluate(f[1], env, people, unary, likes)
    right = _evaluate(f[2], env, people, unary, likes)
    return {"and": left and right, "or": left or right, "if": (not left) or right}[tag]


def _render(f) -> str:
    tag = f[0]
    if tag == "is":
        return f"{f[2]} is {f[1]}"
    if tag == "likes":
        return f"{f[1]} likes {f[2]}"
    if tag == "not":
        return f"it is not the case that ({_render(f[1])})"
    if tag == "all":
        return f"for every person {f[1]}: ({_render(f[2])})"
    if tag == "some":
        return f"there is a person {f[1]} such that ({_render(f[2])})"
    if tag == "if":
        return f"if ({_render(f[1])}) then ({_render(f[2])})"
    return f"({_render(f[1])}) {tag} ({_render(f[2])})"


def _neighbours(links) -> dict[str, list[tuple[str, int, int]]]:
    graph: dict[str, list[tuple[str, int, int]]] = {}
    for (a, b), link in links.items():
        graph.setdefault(a, []).append((b, link["hours"], link["cost"]))
        graph.setdefault(b, []).append((a, link["hours"], link["cost"]))
    return graph


def _best_route(links, start: str, end: str, *, by: str) -> tuple[list[str], int, int]:
    """Dijkstra on one criterion ("cost" or "hours"): the route, its hours and its cost."""
    graph = _neighbours(links)
    queue = [(0, [start], 0, 0)]
    seen = set()
    while queue:
        _total, route, hours, cost = heapq.heappop(queue)
        city = route[-1]
        if city == end:
            return route, hours, cost
        if city in seen:
            continue
        seen.add(city)
        for nxt, link_hours, link_cost in graph.get(city, []):
            if nxt not in seen:
                step = link_cost if by == "cost" else link_hours
                heapq.heappush(
                    queue, (_total + step, route + [nxt], hours + link_hours, cost + link_cost)
                )
    raise ValueError("the map is connected by construction")


def _constrained_fastest(links, start: str, end: str, budget: int):
    """The fastest route within the budget, exactly: a label-setting search over (hours,
    cost) pairs, popped fastest first, that drops a label another one at the same city
    beats on both. With positive hours and costs the first route to reach the end is
    simple (cutting out a cycle would make it faster and no dearer). Ties on hours go to
    the cheaper, then to the route's names, so the answer is deterministic."""
    graph = _neighbours(links)
    queue = [(0, 0, [start])]
    labels: dict[str, list[tuple[int, int]]] = {}
    while queue:
        hours, cost, route = heapq.heappop(queue)
        city = route[-1]
        if city == end:
            return route, cost, hours
        kept = labels.setdefault(city, [])
        if any(h <= hours and c <= cost for h, c in kept):
            continue
        kept.append((hours, cost))
        for nxt, link_hours, link_cost in graph.get(city, []):
            if cost + link_cost <= budget:
                heapq.heappush(queue, (hours + link_hours, cost + link_cost, route + [nxt]))
    raise ValueError("the budget admits the cheapest route by construction")


def _score_route(instance: FamilyInstance, answer: str) -> Score:
    hidden = instance.hidden
    names = read_route(answer)
    if not names:
        return Score(False, 0.0, {"error": "no route could be read"})
    canonical = {name_key(city): city for city in instance.public["cities"]}
    unknown = [name for name in names if name not in canonical]
    if unknown:
        return Score(False, 0.0, {"error": f"unknown city: {unknown[0]}"})
    route = [canonical[name] for name in names]
    links = {frozenset((a, b)): (hours, cost) for a, b, hours, cost in hidden["links"]}
    problems = []
    start, end = instance.public["start"], instance.public["end"]
    if route[0] != start or route[-1] != end:
        problems.append(f"the route must go from {start} to {end}")
    if len(set(route)) != len(route):
        problems.append("the route visits a city twice")
    legs = [links.get(frozenset(pair)) for pair in zip(route, route[1:], strict=False)]
    if any(leg is None for leg in legs) or len(route) < 2:
        problems.append("a leg of the route has no direct connection")
    hours = sum(leg[0] for leg in legs if leg)
    cost = sum(leg[1] for leg in legs if leg)
    if not problems and cost > hidden["budget"]:
        problems.append(f"the route costs {cost} euros, over the budget of {hidden['budget']}")
    details: dict[str, Any] = {
        "route": route,
        "hours": hours,
        "cost": cost,
        "optimum_hours": hidden["optimum_hours"],
    }
    if problems:
        return Score(False, 0.0, {**details, "error": "; ".join(problems)})
    return Score(True, 1.0, {**details, "optimal": hours == hidden["optimum_hours"]})


SIMPLE = register(SimpleReasoning())
