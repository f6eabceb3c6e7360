"""39-Nullify (control and interaction reasoning): numbered units (+n, -n) combine with each
other (adding) or with operators (*n, /n, sqrt, square, reciprocal, floor, ceil) into a new
number unit at the end of the list; the goal is to combine everything down to 0. Each turn
names two units by index.

KORGym builds the units backwards from 0: 3–10 random steps (a number subtracted, a
multiplication or division undone, an operator undone), the value reached becomes the last
number, and the list is shuffled. It keeps the units on its server under a uuid4 game id
(``uid``, carried by the player's item); here they stay in the hidden item (``units``, with
the order they were made in, for the reference), and the id is derived from the seed
(``unseeded``: it cannot be KORGym's).

KORGym's flaws, kept: the prompt breaks off mid-sentence and its example answer is 'LEFT';
"square" is undone by a square root of the absolute value, so a puzzle made through a
negative value and "square" may have no solution; an illegal pair (an index out of range,
the same unit twice, two operators, the square root of a negative number) changes nothing
but counts a turn, as does an action that is not two integers; when the last combination
leaves one unit the game ends, won if it is within 1e-3 of 0 (two numbers) or 1e-4 (with an
operator), lost otherwise, and the board still shows the two units before it.

KORGym rounds the last number made to four decimals, so where later steps magnify that
error (a reciprocal of a small value, say) the intended solution misses 0 by more than the
tolerance; with the "square" flaw this leaves some puzzles with no win at all (seed 4:
every order of its seven units tried; seed 141: 8, square, -2, 4.8284). Of seeds 0–199,
151 are won by undoing the construction, 17 more by the search, 32 not.

The reference replays the construction backwards from the last number made (the intended
solution); where floating-point error or the "square" flaw keeps that from reaching 0 it
searches the combinations (depth first, at most ``SEARCH_LIMIT`` positions); a puzzle with
no win found gets a single (losing) move.
"""

from __future__ import annotations

import math
import uuid

from engine.core.families import display as draw
from engine.core.families.korgym.common import KorgymGame, new_item

PROMPT = (
    "\nYou are a good game player, I'll give you a game board and rules.\nYour task is:\n"
    "- First, give your answer according to the game board and rules.\n"
    "- Second, output the answer in the required format. The last line of your response "
    "should be in the following format: 'Answer: $YOUR_ANSWER' (without quotes), where "
    "YOUR_ANSWER is your final answer to the question,e.g.'Answer: LEFT'\n\n"
    "In the game, there are several independent units. Among them, units that consist of a "
    "sign (+ or -) followed by a number can combine with other units. For example, combining "
    "-10 with \u00d78 results in -80, and combining -7 with \u00f73 yields -2.33... If the "
    "combination of two units results in 0 (i.e. when a positive and a negative number with "
    "equal absolute values are operated on), no new unit is produced; if two units that do "
    "not contain a + or - sign\u2026  \nGame Objective: Eliminate all units, meaning that the "
    "final combined result is 0.  \n\nCurrent Unit Types:\n+number: A positive number, which "
    "also represents the addition operation.  \n-number: A negative number, which also "
    "represents the subtraction operation.  \n*number: Multiplication operation.  \n"
    "/number: Division operation.  \nsqrt: Square root operation.  \nsquare: Square "
    "operation.  \nreciprocal: Reciprocal operation.  \nfloor: Floor (round down) "
    "operation.  \nceil: Ceiling (round up) operation.  \n\nPlease output the operation for "
    "the current turn by directly providing the two corresponding unit indices, separated "
    'by a space (e.g., "Answer: 2 4").  \n\nboard:  \n{board}\n'
)
NUMBER, ORDINARY, OPERATOR = "number", "ordinary", "operator"
SEARCH_LIMIT = 200_000


def _shown(unit) -> str:
    kind, symbol, value = unit
    if kind == NUMBER:
        return f"{value}"
    if kind == ORDINARY:
        return f"{symbol}{value}"
    return f"{symbol}"


def _listing(units) -> str:
    return "".join(f"{index} {_shown(unit)}\n" for index, unit in enumerate(units))


def _number(value):
    return [NUMBER, "+" if value >= 0 else "-", value]


def _make(rng) -> list:
    """The units in the order KORGym makes them (before the shuffle)."""
    units: list = []
    current = 0
    steps = rng.randint(3, 10)
    while steps:
        kind = rng.choice(["add_or_minus", "multiply", "apply_operator"])
        if kind == "add_or_minus":
            while (value := rng.randint(-10, 10)) == 0:
                pass
            current -= value
            units.append(_number(value))
        elif kind == "multiply":
            if current == 0:
                continue
            while (value := rng.randint(-10, 10)) == 0:
                pass
            symbol = rng.choice(["*", "/"])
            current = current / value if symbol == "*" else current * value
            units.append([ORDINARY, symbol, value])
        else:
            if current == 0:
                continue
            symbol = rng.choice(["floor", "ceil", "sqrt", "square", "reciprocal"])
            if symbol == "sqrt":
                if current < 0:
                    continue
                current = current**2
            elif symbol == "square":
                current = math.sqrt(abs(current))
            elif symbol == "reciprocal":
                current = 1 / current
            else:
                whole = math.floor(current)
                part = current - whole
                if part != 0:
                    units.append([NUMBER, "+" if part > 0 else "-", round(part, 4)])
                shift = rng.uniform(0, 1)
                current = whole + shift if symbol == "floor" else whole - shift
            units.append([OPERATOR, symbol, None])
        steps -= 1
    units.append([NUMBER, "+" if current > 0 else "-", round(current, 4)])
    return units


def _combine(units: list, i: int, j: int):
    """KORGym's move on two units: (result, units after). Result 0 goes on, 1 wins, -2
    loses (the units then stay as they were, as in KORGym), -1 is an illegal pair."""
    if i < 0 or j < 0 or i >= len(units) or j >= len(units) or i == j:
        return -1, units
    first, second = units[i], units[j]
    rest = [unit for k, unit in enumerate(units) if k not in (i, j)]
    if first[0] == NUMBER and second[0] == NUMBER:
        total = first[2] + second[2]
        if abs(total) < 1e-9:
            return (0 if rest else 1), rest
        rest.append(_number(total))
        if len(rest) == 1:
            return (1 if abs(total) < 1e-3 else -2), units
        return 0, rest
    if first[0] == NUMBER and second[0] != NUMBER:
        number, operator = first, second
    elif second[0] == NUMBER and first[0] != NUMBER:
        number, operator = second, first
    else:
        return -1, units
    value, symbol = number[2], operator[1]
    try:
        if operator[0] == ORDINARY:
            if symbol == "*":
                result = value * operator[2]
            elif abs(operator[2]) < 1e-9:
                return -1, units
            else:
                result = value / operator[2]
        elif symbol == "floor":
            result = math.floor(value)
        elif symbol == "ceil":
            result = math.ceil(value)
        elif symbol == "sqrt":
            if value < 0:
                return -1, units
            result = math.sqrt(value)
        elif symbol == "square":
            result = value**2
        else:
            if abs(value) < 1e-9:
                return -1, units
            result = 1 / value
    except (ValueError, ZeroDivisionError):
        return -1, units
    rest.append(_number(result))
    if len(rest) == 1:
        return (1 if abs(result) < 1e-4 else -2), units
    return 0, rest


class Nullify(KorgymGame):
    name = "nullify"
    folder = "39-Nullify"
    title = "Nullify"
    dimension = "CIR"
    multi_turn = True
    unseeded = ("uid",)
    answer_format = "two unit indices, e.g. 2 4"

    def generate(self, seed, rng):
        made = _make(rng)
        order = list(range(len(made)))
        rng.shuffle(order)  # the same permutation as shuffling the units themselves
        units = [made[k] for k in order]
        return new_item(
            uid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"korgym/nullify/{seed}")),
            board=_listing(units),
            units=units,
            made=order,
        )

    def board(self, item):
        return PROMPT.format(board=item["board"])

    def verify(self, item, action, rng):
        item = self.copy(item)
        item["action"] = action
        item["epoch"] += 1
        try:
            i, j = map(int, action.split())
            result, units = _combine(item["units"], i, j)
        except Exception:  # KORGym's bare except: the turn counts, nothing else changes
            return item
        item["units"] = units
        item["board"] = _listing(units)
        if result == 1:
            item["is_end"], item["score"] = True, 1
        elif result == -2:
            item["is_end"], item["score"] = True, 0
        return item

    def display(self, item, *, finished=False):
        """The units by index, as the board lists them."""
        cells = []
        for line in item["board"].splitlines():
            index, _, unit = line.partition(" ")
            tone = "" if unit[:1] in "+-0123456789" else "highlight"
            cells.append(draw.cell(f"{index}: {unit}", tone, f"unit {index}: {unit}"))
        return draw.rows([("Units", cells)], caption="Combine two units a turn down to 0")

    def reference(self, item, rng):
        plan = _backwards(item)
        if plan is None:
            plan = _search(item["units"])
        return plan or ["0 1"]


def _backwards(item) -> list[str] | None:
    """The construction undone: the last number made, combined with each unit made before
    it, latest first (a fraction split off by floor or ceil comes after its operator)."""
    units = [list(unit) for unit in item["units"]]
    labels: list = list(item["made"])  # what each unit on the board was, in making order
    last = len(labels) - 1
    run = labels.index(last)
    labels[run] = "run"
    actions = []
    for made in range(last - 1, -1, -1):
        other = labels.index(made)
        if "run" not in labels:  # the running value vanished at 0: start again from here
            labels[other] = "run"
            continue
        run = labels.index("run")
        result, after = _combine(units, run, other)
        actions.append(f"{run} {other}")
        if result == 1:
            return actions if made == 0 else None
        if result != 0:
            return None
        kept = [label for k, label in enumerate(labels) if k not in (run, other)]
        if len(after) > len(kept):
            kept.append("run")
        units, labels = after, kept
    return None


def _search(units) -> list[str] | None:
    """Depth-first search over all pairs for a win, within ``SEARCH_LIMIT`` positions."""
    budget = [SEARCH_LIMIT]

    def dig(units):
        for i in range(len(units)):
            for j in range(i + 1, len(units)):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                result, after = _combine(units, i, j)
                if result == 1:
                    return [f"{i} {j}"]
                if result == 0:
                    found = dig(after)
                    if found is not None:
                        return [f"{i} {j}", *found]
        return None

    return dig(units)


GAME = Nullify()
