"""DeepMind's seven simple-reasoning task types, as kinds of the ``simple`` family.

"Frontier LLMs still struggle with simple reasoning tasks" (google-deepmind/
unpuzzles_and_simple_reasoning) generates seven task types, named here as its answer
extraction and scoring name them: ``character_count``, ``word_count`` (k words counted at
once), ``mathgap_irrelevant`` (a proof-tree word problem padded with irrelevant facts),
``mathgap_diverse`` (a proof tree whose steps use diverse rules), ``travel_modes`` (its
``travel``: a trip over links with transport modes, within a budget, through a minimum
number of distinct cities), ``logic_evaluation`` and ``logic_negation`` (multiple choice,
A-D). Generators are written afresh, with the knobs its generator exposes; answers are read
the way its published extraction reads them (the reply forms its prompts ask for) and scored
by its rules:

* counts: the first "appear … N … time(s)" (one count) or "appear [a, b, …] time(s)"
  (k counts, in the order asked), every count equal;
* mathgap: the last ``\\boxed{N}``, an integer, equal;
* travel: the last ```python block, a list of (from, to, mode) legs: it must start at the
  start, chain, use only listed links and modes, end at the end, visit at least the minimum
  number of distinct cities (revisits allowed) and cost at most the budget;
* logic: a letter A-D after "answer" (or in ``\\boxed{}`` or ``<answer>``), equal.

A person's typed answer (the browser) is read in the same forms or bare: a number, numbers
separated by commas, legs one a line ``A, B, mode``, a letter.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Mapping
from typing import Any

from engine.core.families.base import Kind, Parameter, ParsedReply, Score

SEED_KINDS = {
    "character_count": Kind(
        "character_count",
        "DeepMind: count a character in a text",
        "a whole number",
        (Parameter("words", 60, 5, 5000, "length of the text in words"),),
        {"easy": {"words": 20}, "medium": {"words": 250}, "hard": {"words": 2000}},
    ),
    "word_count": Kind(
        "word_count",
        "DeepMind: count k words at once in a text",
        "the counts in the order asked, e.g. [3, 0, 5]",
        (
            Parameter("words", 60, 5, 5000, "length of the text in words"),
            Parameter("k", 1, 1, 10, "words counted at once"),
        ),
        {
            "easy": {"words": 30, "k": 1},
            "medium": {"words": 300, "k": 3},
            "hard": {"words": 2000, "k": 6},
        },
    ),
    "mathgap_irrelevant": Kind(
        "mathgap_irrelevant",
        "DeepMind: a proof-tree word problem with irrelevant information",
        "a whole number",
        (
            Parameter("depth", 2, 1, 5, "depth of the proof tree"),
            Parameter("irrelevant", 2, 0, 20, "irrelevant statements mixed in"),
        ),
        {
            "easy": {"depth": 1, "irrelevant": 1},
            "medium": {"depth": 3, "irrelevant": 4},
            "hard": {"depth": 5, "irrelevant": 12},
        },
    ),
    "mathgap_diverse": Kind(
        "mathgap_diverse",
        "DeepMind: a proof-tree word problem with diverse rules",
        "a whole number",
        (
            Parameter("depth", 2, 1, 6, "depth of the proof tree"),
            Parameter("rules", 4, 1, 5, "kinds of step used (sum, times, more, fewer, gives)"),
        ),
        {
            "easy": {"depth": 1, "rules": 2},
            "medium": {"depth": 3, "rules": 4},
            "hard": {"depth": 6, "rules": 5},
        },
    ),
    "travel_modes": Kind(
        "travel_modes",
        "DeepMind: a trip with transport modes, a budget and a minimum of cities",
        "the legs as (from, to, mode), in order",
        (
            Parameter("cities", 6, 3, 16, "cities on the map"),
            Parameter("modes", 2, 1, 5, "transport modes"),
            Parameter("min_cities", 3, 2, 12, "distinct cities the trip must visit"),
            Parameter("links", 2, 1, 4, "extra links per city"),
        ),
        {
            "easy": {"cities": 4, "modes": 2, "min_cities": 3, "links": 1},
            "medium": {"cities": 8, "modes": 3, "min_cities": 5, "links": 2},
            "hard": {"cities": 14, "modes": 5, "min_cities": 9, "links": 3},
        },
    ),
    "logic_evaluation": Kind(
        "logic_evaluation",
        "DeepMind: which statement is true in a small world (A-D)",
        "A, B, C or D",
        (
            Parameter("entities", 3, 2, 8, "people in the world"),
            Parameter("depth", 2, 1, 5, "nesting depth of each statement"),
        ),
        {
            "easy": {"entities": 2, "depth": 1},
            "medium": {"entities": 4, "depth": 3},
            "hard": {"entities": 7, "depth": 5},
        },
    ),
    "logic_negation": Kind(
        "logic_negation",
        "DeepMind: which statement is the negation (A-D)",
        "A, B, C or D",
        (Parameter("depth", 2, 1, 5, "nesting depth of the statement"),),
        {"easy": {"depth": 1}, "medium": {"depth": 3}, "hard": {"depth": 5}},
    ),
}

LETTERS = "ABCD"
MODE_NAMES = ("car", "train", "bus", "flight", "ferry")
SEED_CITIES = (
    "Avonby Brill Carrow Dunmere Elston Fairhold Glenrock Harwick Ivydale Jesmond Kestrel "
    "Lowbridge Marden Northam Oakhurst Pennock"
).split()

INSTRUCTIONS = {
    "character_count": 'End your reply with the sentence: The character "{target}" appears '
    "N times.",
    "word_count": "End your reply with the sentence: The words appear [N1, N2, …] times. "
    "(one count per word, in the order the words are listed)",
    "mathgap_irrelevant": "Put your final answer, a whole number, in \\boxed{{}}.",
    "mathgap_diverse": "Put your final answer, a whole number, in \\boxed{{}}.",
    "travel_modes": "End your reply with your plan as a Python list of (from, to, mode) "
    "tuples in a ```python code block.",
    "logic_evaluation": "End your reply with: The answer is <letter>.",
    "logic_negation": "End your reply with: The answer is <letter>.",
}


# -- generation ------------------------------------------------------------------------------


def generate(kind: str, rng: random.Random, p: Mapping[str, int]):
    return GENERATORS[kind](rng, p)


def _text(rng: random.Random, count: int) -> list[str]:
    from engine.core.families.simple import WORDS

    return [rng.choice(WORDS) for _ in range(count)]


def _character_count(rng, p):
    from engine.core.families.simple import _sentences

    words = _text(rng, p["words"])
    target = rng.choice("aeiorstnlcmpu")
    passage = _sentences(rng, words)
    answer = passage.lower().count(target)
    text = (
        f"Here is a text.\n\n{passage}\n\nHow many times does the character "
        f'"{target}" appear in the text (in either case)?'
    )
    return {"text": text, "targets": [target], "k": 1}, {"answer": [answer]}


def _word_count(rng, p):
    from engine.core.families.simple import WORDS, _sentences

    words = _text(rng, p["words"])
    targets = rng.sample(WORDS, p["k"])
    for target in targets:  # each word a few times at least in long texts
        for _ in range(rng.randint(0, max(1, p["words"] // (20 * p["k"])))):
            words[rng.randrange(len(words))] = target
    passage = _sentences(rng, words)
    answer = [sum(word == target for word in words) for target in targets]
    listed = ", ".join(f'"{t}"' for t in targets)
    what = f"the word {listed}" if p["k"] == 1 else f"each of these words: {listed}"
    text = f"Here is a text.\n\n{passage}\n\nHow many times does {what} appear in the text?"
    return {"text": text, "targets": targets, "k": p["k"]}, {"answer": answer}


def _people_tree(rng, depth: int, rules: tuple[str, ...], item: str, names, sentences):
    """A proof tree of people's counts of one item: leaves state a count, each inner node
    derives its count from its children by one of ``rules``. Returns (name, count); the
    people named are the ``names`` iterator's first ones."""
    name = next(names)
    if depth == 0:
        value = rng.randint(2, 12)
        sentences.append(f"{name} has {value} {item}.")
        return name, value
    rule = rng.choice(rules)
    if rule == "sum":
        children = [_people_tree(rng, depth - 1, rules, item, names, sentences) for _ in range(2)]
        value = sum(v for _, v in children)
        sentences.append(
            f"{name} has as many {item} as {children[0][0]} and {children[1][0]} together."
        )
        return name, value
    child, base = _people_tree(rng, depth - 1, rules, item, names, sentences)
    if rule == "times":
        factor = rng.randint(2, 3)
        sentences.append(f"{name} has {factor} times as many {item} as {child}.")
        return name, base * factor
    if rule == "more":
        extra = rng.randint(1, 9)
        sentences.append(f"{name} has {extra} more {item} than {child}.")
        return name, base + extra
    if rule == "fewer" and base > 1:
        fewer = rng.randint(1, base - 1)
        sentences.append(f"{name} has {fewer} fewer {item} than {child}.")
        return name, base - fewer
    # "gives" (and "fewer" of a count too small to lessen): a transfer, which leaves the
    # person with as many as the child.
    given = rng.randint(1, 9)
    sentences.append(
        f"At first {name} had {given} more {item} than {child}; then {name} gave {given} "
        f"{item} away."
    )
    return name, base


def _mathgap(rng, p, rules: tuple[str, ...], irrelevant: int):
    from engine.core.families.simple import ITEMS

    item = rng.choice(ITEMS)
    order = list(_names_for(rng))
    names = iter(order)
    sentences: list[str] = []
    root, answer = _people_tree(rng, p["depth"], rules, item, names, sentences)
    people = order[: order.index(next(names))]
    others = [i for i in ITEMS if i != item]
    for _ in range(irrelevant):
        # Irrelevant: another item, of the problem's people or of new ones.
        who = next(names) if rng.random() < 0.5 else rng.choice(people)
        sentences.append(f"{who} has {rng.randint(2, 30)} {rng.choice(others)}.")
    rng.shuffle(sentences)
    text = " ".join(sentences) + f"\n\nHow many {item} does {root} have?"
    return {"text": text}, {"answer": answer}


def _names_for(rng):
    """Distinct names, enough for the deepest tree and every irrelevant statement."""
    from engine.core.families.simple import _names

    names = _names(rng)
    return [next(names) for _ in range(200)]


def _mathgap_irrelevant(rng, p):
    return _mathgap(rng, p, ("sum",), p["irrelevant"])


RULES = ("sum", "times", "more", "fewer", "gives")


def _mathgap_diverse(rng, p):
    rules = tuple(rng.sample(RULES, p["rules"]))
    return _mathgap(rng, p, rules, 0)


def _travel_modes(rng, p):
    count = p["cities"]
    min_cities = min(p["min_cities"], count)
    cities = rng.sample(SEED_CITIES, count)
    modes = list(MODE_NAMES[: p["modes"]])
    start = cities[0]
    # A planted trip through ``min_cities`` distinct cities keeps every task feasible.
    planted = [start, *rng.sample(cities[1:], min_cities - 1)]
    end = planted[-1]
    pairs = {tuple(sorted(pair)) for pair in zip(planted, planted[1:], strict=False)}
    for index in range(1, count):  # every city reachable
        pairs.add(tuple(sorted((cities[index], rng.choice(cities[:index])))))
    for city in cities:
        for _ in range(p["links"]):
            other = rng.choice(cities)
            if other != city:
                pairs.add(tuple(sorted((city, other))))
    graph: dict[str, dict[str, list[str]]] = {city: {} for city in cities}
    costs: dict[str, int] = {}
    lines = []
    for a, b in sorted(pairs):
        for mode in sorted(rng.sample(modes, rng.randint(1, len(modes)))):
            cost = rng.randint(20, 200)
            for x, y in ((a, b), (b, a)):
                graph[x].setdefault(y, []).append(mode)
                costs[x + y + mode] = cost
            lines.append(f"- {a} and {b} by {mode}: {cost} dollars each way")
    legs = [
        (x, y, min(graph[x][y], key=lambda m: costs[x + y + m]))
        for x, y in zip(planted, planted[1:], strict=False)
    ]
    budget = sum(costs[x + y + m] for x, y, m in legs)
    budget += rng.randint(0, budget // 5)
    text = (
        "These are all the direct connections (each goes both ways, at the same price):\n"
        + "\n".join(lines)
        + f"\n\nPlan a trip from {start} to {end} that visits at least {min_cities} distinct "
        f"cities (start and end included; a city may be visited more than once) and costs "
        f"at most {budget} dollars in total. Give each leg as (from, to, mode)."
    )
    public = {"text": text, "cities": sorted(cities), "start": start, "end": end}
    hidden = {
        "answer": {
            "city_start": start,
            "city_end": end,
            "total_budget": budget,
            "steps": min_cities,
            "graph": graph,
            "costs": costs,
        },
        "plan": [list(leg) for leg in legs],
    }
    return public, hidden


def _world(rng, entities: int):
    from engine.core.families.simple import NAMES

    people = NAMES[:entities]
    unary = {"tall": set(), "kind": set(), "calm": set()}
    for facts in unary.values():
        facts.update(person for person in people if rng.random() < 0.5)
    likes = {(a, b) for a in people for b in people if rng.random() < 0.4}
    return people, unary, likes


def _world_text(people, unary, likes) -> str:
    facts = [
        f"- {', '.join(sorted(holders))} {'is' if len(holders) == 1 else 'are'} {name}"
        if holders
        else f"- nobody is {name}"
        for name, holders in unary.items()
    ]
    pairs = ", ".join(f"{a} likes {b}" for a, b in sorted(likes)) or "nobody likes anyone"
    facts.append(f"- {pairs}")
    return (
        f"In a world of exactly these people: {', '.join(people)}.\n"
        "The only facts (everything not listed is false):\n" + "\n".join(facts)
    )


def _choices(statements: list[str]) -> str:
    return "\n".join(f"{letter}. {s}" for letter, s in zip(LETTERS, statements, strict=True))


def _logic_evaluation(rng, p):
    from engine.core.families.simple import _evaluate, _formula, _render

    people, unary, likes = _world(rng, p["entities"])
    true, false = [], []
    while not true or len(false) < 3:
        formula = _formula(rng, p["depth"], [], people)
        rendered = _render(formula)
        if rendered in true or rendered in false:
            continue
        (true if _evaluate(formula, {}, people, unary, likes) else false).append(rendered)
        if len(true) + len(false) > 400:  # a world where (almost) nothing is true or false
            people, unary, likes = _world(rng, p["entities"])
            true, false = [], []
    options = [true[0], *false[:3]]
    rng.shuffle(options)
    answer = LETTERS[options.index(true[0])]
    text = (
        _world_text(people, unary, likes)
        + "\n\nExactly one of these statements is true. Which one?\n"
        + _choices(options)
    )
    return {"text": text, "options": list(LETTERS)}, {"answer": answer}


def _negated(f):
    """The negation of ``f`` pushed down to the facts (negation normal form)."""
    tag = f[0]
    if tag in ("is", "likes"):
        return ("not", f)
    if tag == "not":
        return _nnf(f[1])
    if tag == "and":
        return ("or", _negated(f[1]), _negated(f[2]))
    if tag == "or":
        return ("and", _negated(f[1]), _negated(f[2]))
    if tag == "if":
        return ("and", _nnf(f[1]), _negated(f[2]))
    return ("some" if tag == "all" else "all", f[1], _negated(f[2]))


def _nnf(f):
    tag = f[0]
    if tag in ("is", "likes"):
        return f
    if tag == "not":
        return _negated(f[1])
    if tag == "if":
        return ("or", _negated(f[1]), _nnf(f[2]))
    if tag in ("and", "or"):
        return (tag, _nnf(f[1]), _nnf(f[2]))
    return (tag, f[1], _nnf(f[2]))


def _dual_only(f):
    """A classic wrong negation: connectives and quantifiers flipped, facts kept."""
    tag = f[0]
    if tag in ("is", "likes", "not"):
        return f
    if tag in ("and", "or"):
        return ("or" if tag == "and" else "and", _dual_only(f[1]), _dual_only(f[2]))
    return ("some" if tag == "all" else "all", f[1], _dual_only(f[2]))


def _facts_only(f):
    """Another wrong negation: every fact negated, connectives and quantifiers kept."""
    tag = f[0]
    if tag in ("is", "likes"):
        return ("not", f)
    if tag == "not":
        return f[1]
    if tag in ("and", "or"):
        return (tag, _facts_only(f[1]), _facts_only(f[2]))
    return (tag, f[1], _facts_only(f[2]))


def _logic_negation(rng, p):
    from engine.core.families.simple import NAMES, _evaluate, _formula, _render

    people = NAMES[:3]
    worlds = [_world(rng, 3) for _ in range(40)]
    while True:
        formula = _nnf(_formula(rng, p["depth"], [], people))
        right = _nnf(("not", formula))
        wrong = [formula, _dual_only(formula), _facts_only(formula)]

        def table(f):
            return tuple(_evaluate(f, {}, people, u, lk) for _, u, lk in worlds)

        truth = table(right)
        rendered = {_render(f) for f in [right, *wrong]}
        # Every wrong option must differ from the negation in some sampled world.
        if len(rendered) == 4 and all(table(f) != truth for f in wrong):
            break
    options = [right, *wrong]
    rng.shuffle(options)
    answer = LETTERS[options.index(right)]
    text = (
        f"Consider this statement about the people {', '.join(people)}:\n{_render(formula)}\n\n"
        "Which of these statements is its negation (true exactly when it is false)?\n"
        + _choices([_render(f) for f in options])
    )
    return {"text": text, "options": list(LETTERS)}, {"answer": answer}


GENERATORS = {
    "character_count": _character_count,
    "word_count": _word_count,
    "mathgap_irrelevant": _mathgap_irrelevant,
    "mathgap_diverse": _mathgap_diverse,
    "travel_modes": _travel_modes,
    "logic_evaluation": _logic_evaluation,
    "logic_negation": _logic_negation,
}


# -- DeepMind's reading of replies -------------------------------------------------------------

COUNT_ONE = re.compile(r"appear.*?(\d+).*?time")
COUNT_MANY = re.compile(r".*appear \**\\?\[(.+)?\\?\]\** time")
SMALL_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
BOXED = re.compile(r"boxed{([^}]*)}")
LOGIC_CUES = (
    re.compile(r".*<answer>([A-D])</answer>"),
    re.compile(r"boxed\{([A-D])\}"),
    re.compile(r"answer:? ([A-D])"),
    re.compile(r"answer.*?([A-D])"),
)
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _count_item(text: str) -> str:
    value = re.sub(r"[#*\\]", "", text).strip()
    if re.fullmatch(r"[+-]?\d+", value):
        return str(int(value))
    return str(SMALL_NUMBERS.index(text)) if text in SMALL_NUMBERS else "?"


def _read_counts(text: str, k: int) -> list[int] | None:
    parts = [part for part in re.split(r"[,\s]+", text.strip().strip("[]")) if part]
    if len(parts) != k or not all(re.fullmatch(r"[+-]?\d+", part) for part in parts):
        return None
    return [int(part) for part in parts]


def _quote_tuples(text: str) -> str:
    def quoted(match):
        parts = [part.strip() for part in match.group(1).split(",")]
        return (
            "("
            + ", ".join(p if p[:1] in "'\"" and p[-1:] == p[:1] else f"'{p}'" for p in parts)
            + ")"
        )

    return re.sub(r"\(([^()]+)\)", quoted, text)


def read_plan(text: str) -> list[tuple[str, str, str]] | None:
    """A list of (from, to, mode) legs from DeepMind's notation (tuples, names unquoted
    allowed) or, typed, one leg a line "A, B, mode"; None if unreadable."""
    value = text.strip()
    if "(" not in value:
        value = "[" + ", ".join(f"({line})" for line in value.splitlines() if line.strip()) + "]"
    try:
        plan = ast.literal_eval(_quote_tuples(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(plan, tuple) and plan and not isinstance(plan[0], tuple):
        plan = [plan]
    if not isinstance(plan, list | tuple) or not plan:
        return None
    if not all(
        isinstance(leg, tuple) and len(leg) == 3 and all(isinstance(x, str) for x in leg)
        for leg in plan
    ):
        return None
    return [tuple(leg) for leg in plan]


def parse_reply(kind: str, public: Mapping[str, Any], text: str) -> ParsedReply:
    """The answer of a model's reply, read as DeepMind's extraction reads it."""
    if not isinstance(text, str) or not text.strip():
        return ParsedReply(None, "the reply is empty")
    if kind in ("character_count", "word_count"):
        k = public["k"]
        if k == 1:
            found = COUNT_ONE.search(text)
            if found:
                return ParsedReply(_count_item(found.group(1)))
            return ParsedReply(None, 'no "appears N times" in the reply')
        found = COUNT_MANY.search(text)
        if not found or found.group(1) is None:
            return ParsedReply(None, 'no "appear [N1, N2, …] times" in the reply')
        return ParsedReply(", ".join(_count_item(part) for part in found.group(1).split(",")))
    if kind.startswith("mathgap"):
        boxes = BOXED.findall(text)
        if not boxes:
            return ParsedReply(None, "no \\boxed{…} in the reply")
        return ParsedReply(boxes[-1])
    if kind == "travel_modes":
        blocks = PYTHON_BLOCK.findall(text)
        if not blocks:
            return ParsedReply(None, "no ```python block in the reply")
        return ParsedReply(blocks[-1].strip())
    for cue in LOGIC_CUES:
        found = cue.search(text)
        if found:
            return ParsedReply(found.group(1))
    return ParsedReply(None, "no answer letter (A-D) in the reply")


def score(kind: str, public: Mapping[str, Any], hidden: Mapping[str, Any], answer: str) -> Score:
    if kind in ("character_count", "word_count"):
        expected = hidden["answer"]
        read = _read_counts(answer, len(expected))
        if read is None:
            return Score(False, 0.0, {"error": f"not {len(expected)} whole number(s)"})
        correct = read == list(expected)
        return Score(correct, float(correct), {"read": read})
    if kind.startswith("mathgap"):
        try:
            read = int(answer.strip())
        except ValueError:
            return Score(False, 0.0, {"error": "not a whole number"})
        correct = read == hidden["answer"]
        return Score(correct, float(correct), {"read": read})
    if kind == "travel_modes":
        return _score_plan(hidden["answer"], answer)
    correct = answer.strip().lower() == hidden["answer"].lower()
    return Score(correct, float(correct), {"read": answer.strip()})


def _score_plan(rules: Mapping[str, Any], answer: str) -> Score:
    plan = read_plan(answer)
    if plan is None:
        return Score(False, 0.0, {"error": "no list of (from, to, mode) legs could be read"})
    graph, costs = rules["graph"], rules["costs"]
    problems, here, visited, cost = [], rules["city_start"], set(), 0
    for a, b, mode in plan:
        if mode not in graph.get(a, {}).get(b, []):
            problems.append(f"no {mode} from {a} to {b}")
            break
        if a != here:
            problems.append(f"the leg from {a} does not start where the trip is ({here})")
            break
        visited.update((a, b))
        here = b
        cost += costs[a + b + mode]
    if not problems:
        if plan[-1][1] != rules["city_end"]:
            problems.append(f"the trip must end at {rules['city_end']}")
        if len(visited) < rules["steps"]:
            problems.append(f"{len(visited)} distinct cities, fewer than {rules['steps']}")
        if cost > rules["total_budget"]:
            problems.append(f"it costs {cost}, over the budget of {rules['total_budget']}")
    details = {"legs": [list(leg) for leg in plan], "cost": cost, "cities": len(visited)}
    if problems:
        return Score(False, 0.0, {**details, "error": "; ".join(problems)})
    return Score(True, 1.0, details)


def reference_answer(kind: str, hidden: Mapping[str, Any]) -> str:
    if kind in ("character_count", "word_count"):
        return ", ".join(str(n) for n in hidden["answer"])
    if kind == "travel_modes":
        return "[" + ", ".join(f"({a}, {b}, {m})" for a, b, m in hidden["plan"]) + "]"
    return str(hidden["answer"])


def reply_with(kind: str, public: Mapping[str, Any], answer: str) -> str:
    """A reply giving ``answer`` in the form the prompt asks for."""
    if kind == "character_count":
        return f'The character "{public["targets"][0]}" appears {answer} times.'
    if kind == "word_count":
        return (
            f"The words appear [{answer}] times."
            if public["k"] > 1
            else (f"The word appears {answer} times.")
        )
    if kind.startswith("mathgap"):
        return f"The answer is \\boxed{{{answer}}}."
    if kind == "travel_modes":
        return f"My plan:\n```python\n{answer}\n```"
    return f"The answer is {answer}."


def prompt(kind: str, public: Mapping[str, Any]) -> str:
    target = (public.get("targets") or [""])[0]
    return f"{public['text']}\n\n{INSTRUCTIONS[kind].format(target=target)}"
