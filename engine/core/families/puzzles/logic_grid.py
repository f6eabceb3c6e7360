"""Logic grid puzzles: people, their attributes and clues that pin down exactly one answer.

A puzzle has ``categories`` categories (the first is the people's names) of ``items`` values
each; every person has exactly one value of each category and no value is shared. The
generator draws a theme and a hidden assignment, then clues that are true of it:

* "A is B" / "A is not B" (A and B name a person by a value: "Asher", "the dog owner");
* "A is either B or C";
* "Of A and B, one is C and the other is D";
* for ordered categories (ages, house numbers): "A is older than B" and "A is exactly one
  step older than B".

Clues are added in a random order until the SAT encoding (a permutation per category plus
every clue) has exactly one solution, then removed one by one wherever the puzzle stays
unique: the clue set is *minimal* (no clue can be dropped) and *sufficient* (the solver's
UNSAT proof, with a clause forbidding the hidden assignment, shows no other answer exists).

LR²Bench's subtasks are the cells person × attribute (every category but the first, the
names): the answer's entry for a person is the first naming them, and each of its values
is right when it is the person's. Our own units (``by_unit``) are the people: a person is
given when the answer has a known value of every category for them, and right when all
of them are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pysat.solvers import Minisat22

from engine.core.families.base import Kind, Levels, Parameter
from engine.core.families.display import cell
from engine.core.families.puzzles.common import PuzzleKind, Reading, maybe_json
from engine.core.families.puzzles.drawing import answer_grid, solution_grid


@dataclass(frozen=True)
class Category:
    name: str  # plural, the answer's key
    values: tuple[str, ...]
    phrase: str  # "{}" → the person with that value: "the owner of the {}"
    ordered: bool = False
    more: str = ""  # ordered only: "is older than"
    step: str = ""  # ordered only: "is exactly 5 years older than"


NAMES = (
    "Asher", "Bianca", "Carlos", "Dalia", "Edwin", "Freya", "Gideon", "Hana", "Ivo",
    "Jasmin", "Kofi", "Lena", "Milo", "Nadia", "Oren", "Priya", "Quentin", "Rosa",
)  # fmt: skip

CATEGORIES = (
    Category("pets", ("cat", "dog", "parrot", "hamster", "tortoise", "rabbit", "goldfish"),
             "the owner of the {}"),
    Category("drinks", ("tea", "coffee", "cocoa", "lemonade", "milk", "cider", "water"),
             "the person who drinks {}"),
    Category("cities", ("Lisbon", "Oslo", "Kyoto", "Lima", "Cairo", "Dublin", "Perth"),
             "the person from {}"),
    Category("colours", ("red", "blue", "green", "yellow", "purple", "orange", "white"),
             "the person whose favourite colour is {}"),
    Category("instruments", ("violin", "flute", "drums", "piano", "cello", "harp", "banjo"),
             "the {} player"),
    Category("sports", ("tennis", "rowing", "chess", "judo", "golf", "cycling", "fencing"),
             "the person who does {}"),
    Category("ages", ("20", "25", "30", "35", "40", "45", "50"), "the {}-year-old",
             ordered=True, more="is older than", step="is exactly 5 years older than"),
    Category("houses", ("1", "2", "3", "4", "5", "6", "7"), "the person in house {}",
             ordered=True, more="lives in a higher-numbered house than",
             step="lives in the house right after that of"),
)  # fmt: skip


class Encoding:
    """Variables x(c, e, v): person e (index of their name) has value v of category c."""

    def __init__(self, categories: int, items: int) -> None:
        self.k, self.m = categories, items

    def x(self, c: int, e: int, v: int) -> int:
        return (c * self.m + e) * self.m + v + 1

    def base(self) -> list[list[int]]:
        k, m = self.k, self.m
        clauses = [[self.x(0, e, e)] for e in range(m)]
        for c in range(k):
            for e in range(m):
                clauses.append([self.x(c, e, v) for v in range(m)])
                clauses.append([self.x(c, f, e) for f in range(m)])  # value e used by someone
                for v in range(m):
                    for w in range(v + 1, m):
                        clauses.append([-self.x(c, e, v), -self.x(c, e, w)])
                        clauses.append([-self.x(c, v, e), -self.x(c, w, e)])
        return clauses

    def clue(self, clue: tuple) -> list[list[int]]:
        """CNF of one clue; attributes are (category, value) pairs."""
        m, x = self.m, self.x
        kind = clue[0]
        if kind == "same":
            (ca, va), (cb, vb) = clue[1], clue[2]
            return [[-x(ca, e, va), x(cb, e, vb)] for e in range(m)]
        if kind == "differ":
            (ca, va), (cb, vb) = clue[1], clue[2]
            return [[-x(ca, e, va), -x(cb, e, vb)] for e in range(m)]
        if kind == "either":
            (ca, va), (cb, vb), (cc, vc) = clue[1], clue[2], clue[3]
            return [[-x(ca, e, va), x(cb, e, vb), x(cc, e, vc)] for e in range(m)]
        if kind == "pair":
            (ca, va), (cb, vb), (cc, vc), (cd, vd) = clue[1:5]
            clauses = []
            for e in range(m):
                clauses.append([-x(ca, e, va), -x(cb, e, vb)])  # A and B are two people
                clauses.append([-x(ca, e, va), x(cc, e, vc), x(cd, e, vd)])
                clauses.append([-x(cb, e, vb), x(cc, e, vc), x(cd, e, vd)])
                clauses.append([-x(cc, e, vc), x(ca, e, va), x(cb, e, vb)])
                clauses.append([-x(cd, e, vd), x(ca, e, va), x(cb, e, vb)])
            return clauses
        if kind in ("more", "step"):
            (ca, va), (cb, vb), order = clue[1], clue[2], clue[3]
            clauses = []
            for e in range(m):
                for f in range(m):
                    for i in range(m):
                        for j in range(m):
                            ok = i > j if kind == "more" else i == j + 1
                            if e == f or not ok:
                                clauses.append(
                                    [-x(ca, e, va), -x(cb, f, vb), -x(order, e, i),
                                     -x(order, f, j)]
                                )  # fmt: skip
            return clauses
        raise ValueError(f"unknown clue {kind}")


class LogicGrid(PuzzleKind):
    subtask_name = "person"
    subtask_plural = "people"
    lr2_type = "logic"
    lr2_units = "person attributes"
    kind = Kind(
        "logic_grid",
        "Logic grid puzzle: who has what, from clues",
        "a JSON list with one object per person, every category as a key",
        (
            Parameter("categories", 3, 3, 6, "categories, the people's names included"),
            Parameter("items", 4, 3, 7, "people (values per category)"),
        ),
        # categories x people: LR²Bench's are 4x4, 4x5, 4x6 and 4x7; 6x7 goes beyond.
        Levels(
            {
                "3x3": {"categories": 3, "items": 3},
                "4x4": {"categories": 4, "items": 4},
                "4x5": {"categories": 4, "items": 5},
                "4x6": {"categories": 4, "items": 6},
                "4x7": {"categories": 4, "items": 7},
                "6x7": {"categories": 6, "items": 7},
            },
            aliases={"easy": "3x3", "medium": "4x4", "hard": "4x6", "expert": "6x7"},
        ),
    )

    def generate(self, rng, params: Mapping[str, int]):
        k, m = params["categories"], params["items"]
        names = tuple(sorted(rng.sample(NAMES, m)))
        chosen = rng.sample(CATEGORIES, k - 1)
        cats = [Category("names", names, "{}")]
        for cat in chosen:
            values = (
                tuple(cat.values[:m]) if cat.ordered else tuple(sorted(rng.sample(cat.values, m)))
            )
            cats.append(Category(cat.name, values, cat.phrase, cat.ordered, cat.more, cat.step))
        # assignment[c][e] = value index of person e in category c
        assignment = [list(range(m))] + [rng.sample(range(m), m) for _ in range(k - 1)]
        owner = [{v: e for e, v in enumerate(assignment[c])} for c in range(k)]
        enc = Encoding(k, m)

        def attr(c=None):
            c = rng.randrange(k) if c is None else c
            return (c, rng.randrange(m))

        def person(a):
            return owner[a[0]][a[1]]

        def candidate():
            roll = rng.random()
            a = attr()
            ordered = [c for c in range(1, k) if cats[c].ordered]
            if roll < 0.12:  # same
                b = (rng.choice([c for c in range(k) if c != a[0]]), None)
                b = (b[0], assignment[b[0]][person(a)])
                return ("same", a, b)
            if roll < 0.45:
                b = attr(rng.choice([c for c in range(k) if c != a[0]]))
                if person(a) == person(b):
                    return None
                return ("differ", a, b)
            if roll < 0.65:
                c = rng.choice([c for c in range(k) if c != a[0]])
                right = assignment[c][person(a)]
                other = rng.choice([v for v in range(m) if v != right])
                pair = sorted([right, other])
                return ("either", a, (c, pair[0]), (c, pair[1]))
            if roll < 0.82 or not ordered:
                b = attr(a[0])
                if b == a:
                    return None
                c = rng.choice([c for c in range(k) if c != a[0]])
                va, vb = assignment[c][person(a)], assignment[c][person(b)]
                if rng.random() < 0.5:
                    va, vb = vb, va
                return ("pair", a, b, (c, va), (c, vb))
            order = rng.choice(ordered)
            b = attr(rng.choice([c for c in range(k) if c != order]))
            if a[0] == order or person(a) == person(b):
                return None
            i, j = assignment[order][person(a)], assignment[order][person(b)]
            if i < j:
                a, b, i, j = b, a, j, i
            kind = "step" if i == j + 1 and rng.random() < 0.6 else "more"
            return (kind, a, b, order)

        solver = Minisat22(bootstrap_with=enc.base())
        solver.add_clause([-enc.x(c, e, assignment[c][e]) for c in range(1, k) for e in range(m)])
        selectors: list[int] = []
        clues: list[tuple] = []
        top = enc.x(k - 1, m - 1, m - 1)
        seen = set()
        try:
            tries = 0
            while True:
                tries += 1
                if tries > 5000:
                    raise RuntimeError("no unique logic grid found")  # never seen in tests
                clue = candidate()
                if clue is None or clue in seen:
                    continue
                seen.add(clue)
                top += 1
                for clause in enc.clue(clue):
                    solver.add_clause([-top, *clause])
                selectors.append(top)
                clues.append(clue)
                if not solver.solve(assumptions=selectors):
                    break
            # Minimal: drop every clue the others make redundant (in a random order).
            keep = list(range(len(clues)))
            for index in rng.sample(range(len(clues)), len(clues)):
                trial = [i for i in keep if i != index]
                if not solver.solve(assumptions=[selectors[i] for i in trial]):
                    keep = trial
        finally:
            solver.delete()
        final = [clues[i] for i in keep]
        rng.shuffle(final)
        sentences = [_sentence(cats, clue) for clue in final]
        variables = {cat.name: list(cat.values) for cat in cats}
        text = (
            "Here is a logic puzzle. Each person has exactly one value of every category, and "
            "no two people share a value. Use the clues to work out who has what.\n\n"
            + json.dumps({"variables": variables}, indent=2)
            + "\n\nClues:\n"
            + "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, 1))
        )
        solution = [
            {cat.name: cat.values[assignment[c][e]] for c, cat in enumerate(cats)} for e in range(m)
        ]
        public = {"text": text, "variables": variables, "clues": sentences}
        codes = [list(clue) for clue in final]
        return public, {"solution": solution, "clue_codes": codes}

    def expected(self, hidden) -> list[Any]:
        return [tuple(sorted(row.items())) for row in hidden["solution"]]

    def render(self, hidden) -> str:
        return json.dumps(hidden["solution"], indent=1)

    def lr2_gold(self, public, hidden) -> Any:
        # Names first, whatever order the stored JSON kept (PostgreSQL's jsonb sorts keys):
        # LR²Bench finds a person by the gold's first category.
        return [
            {"names": person["names"], **{k: v for k, v in person.items() if k != "names"}}
            for person in hidden["solution"]
        ]

    def lr2_prediction(self, public, answer) -> Any | None:
        """Every entry of the answer with the values it gives that are known (any case,
        spacing), keyed by category; None when no entry gives one."""
        variables: dict[str, list[str]] = public["variables"]
        rows = _answer_rows(answer, variables)
        if not isinstance(rows, list):
            return None
        lookup = {cat: {_key(v): v for v in values} for cat, values in variables.items()}
        cat_keys = {_key(cat): cat for cat in variables}
        people = []
        for row in rows:
            if not isinstance(row, dict):
                continue
            person = {}
            for key, raw in row.items():
                cat = cat_keys.get(_key(str(key)))
                value = lookup[cat].get(_key(str(raw))) if cat and raw is not None else None
                if value is not None:
                    person[cat] = value
            if person:
                people.append(person)
        return people or None

    def random_answer(self, public, rng) -> str:
        variables = public["variables"]
        columns = {cat: rng.sample(values, len(values)) for cat, values in variables.items()}
        columns["names"] = list(variables["names"])
        people = len(variables["names"])
        return json.dumps([{cat: columns[cat][e] for cat in variables} for e in range(people)])

    def _table(self, public, hidden, answer):
        """(height, width, square, where) of the table of people by category: a header
        row, then each person's name and values (the answer's, read leniently)."""
        names = public["variables"]["names"]
        categories = [cat for cat in public["variables"] if cat != "names"]
        solution = {person["names"]: person for person in hidden["solution"]}
        given: dict[str, dict] = {}
        for person in (self.lr2_prediction(public, answer) if answer is not None else None) or ():
            if person.get("names") in solution:
                given.setdefault(person["names"], person)

        def square(r: int, c: int):
            if r == 0:
                return "fixed", cell(categories[c - 1] if c else "", "given"), None
            name = names[r - 1]
            if c == 0:
                return "fixed", cell(name, "given"), None
            cat = categories[c - 1]
            return "open", given.get(name, {}).get(cat, ""), solution[name][cat]

        def where(r: int, c: int) -> str:
            return f"{names[r - 1]}, {categories[c - 1]}"

        return len(names) + 1, len(categories) + 1, square, where

    def answer_display(self, public, hidden, answer, *, marked):
        height, width, square, where = self._table(public, hidden, answer)
        return answer_grid(height, width, square, marked=marked, caption="Your table", where=where)

    def solution_display(self, public, hidden):
        height, width, square, where = self._table(public, hidden, None)
        return solution_grid(height, width, square, caption="The solution", where=where)

    def answer_help(self, public) -> str:
        keys = ", ".join(f'"{name}"' for name in public["variables"])
        return f"a JSON list with one object per person, each with the keys {keys}"

    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        variables: dict[str, list[str]] = public["variables"]
        names = variables["names"]
        lookup = {
            cat: {_key(value): value for value in values} for cat, values in variables.items()
        }
        rows = _answer_rows(answer, variables)
        problems: list[str] = []
        subtasks: list[Any] = [None] * len(names)
        if not isinstance(rows, list):
            return Reading(subtasks, ["the answer is not a list of people"])
        cat_keys = {_key(cat): cat for cat in variables}
        for number, row in enumerate(rows, 1):
            if not isinstance(row, dict):
                problems.append(f"entry {number} is not an object")
                continue
            fields = {cat_keys.get(_key(str(key))): value for key, value in row.items()}
            fields.pop(None, None)
            name = lookup["names"].get(_key(str(fields.get("names", ""))))
            if name is None:
                problems.append(f"entry {number} names no known person")
                continue
            index = names.index(name)
            if subtasks[index] is not None:
                problems.append(f"{name} is given twice; the first counts")
                continue
            values = {}
            for cat in variables:
                raw = fields.get(cat)
                value = lookup[cat].get(_key(str(raw))) if raw is not None else None
                if value is None:
                    problems.append(f"{name}: no known value of {cat}")
                    break
                values[cat] = value
            else:
                subtasks[index] = tuple(sorted(values.items()))
        return Reading(subtasks, problems)


def _answer_rows(answer: Any, variables: Mapping[str, list[str]]) -> Any:
    """The answer's entries: a JSON list of objects, an object keyed by name, or lines."""
    rows = maybe_json(answer)
    if isinstance(rows, str):
        rows = _rows_from_lines(rows, variables)
    if isinstance(rows, dict):  # {"Asher": {...}, ...}
        rows = [{"names": key, **val} for key, val in rows.items() if isinstance(val, dict)]
    return rows


def _key(text: str) -> str:
    text = re.sub(r"[^0-9a-z]+", " ", str(text).casefold()).strip()
    return re.sub(r"^(the|house|a|an) |(years? old| year old)$", "", text).strip()


def _rows_from_lines(text: str, variables: Mapping[str, list[str]]) -> list[dict] | str:
    """Rows written as lines "Asher: dog, tea, Lisbon" (values matched to categories)."""
    where: dict[str, list[str]] = {}
    for cat, values in variables.items():
        for value in values:
            where.setdefault(_key(value), []).append(cat)
    rows = []
    for line in text.splitlines():
        parts = [p for p in re.split(r"[:|,;\t]", line) if p.strip()]
        row: dict[str, str] = {}
        for part in parts:
            cats = where.get(_key(part), [])
            if len(cats) == 1:
                row[cats[0]] = part.strip()
        if "names" in row:
            rows.append(row)
    return rows or text


def _sentence(cats: list[Category], clue: tuple) -> str:
    def who(a):
        cat = cats[a[0]]
        return cat.phrase.format(cat.values[a[1]])

    def cap(text):
        return text[0].upper() + text[1:]

    kind = clue[0]
    if kind == "same":
        return cap(f"{who(clue[1])} is {who(clue[2])}.")
    if kind == "differ":
        return cap(f"{who(clue[1])} is not {who(clue[2])}.")
    if kind == "either":
        return cap(f"{who(clue[1])} is either {who(clue[2])} or {who(clue[3])}.")
    if kind == "pair":
        return (
            f"Of {who(clue[1])} and {who(clue[2])}, one is {who(clue[3])} "
            f"and the other is {who(clue[4])}."
        )
    order = cats[clue[3]]
    verb = order.more if kind == "more" else order.step
    return cap(f"{who(clue[1])} {verb} {who(clue[2])}.")


KINDS = (LogicGrid(),)
