"""Two one-turn mathematical games (KORGym's mathematical and logical dimension, written
afresh):

* ``date_count``: calendar arithmetic — the date or weekday some days (or weeks and days)
  before or after a date, or the days between two dates; the truth comes from ``datetime``;
* ``crypto_math``: a cryptarithm (an addition whose letters stand for distinct digits, no
  number starting with 0) with exactly one solution, checked by a column-wise search.

Both score 1 for the right answer and 0 for a wrong one; an answer in the wrong form (not a
date, not a number, a mapping missing a letter) is refused with the reason and counted, so
a slip of form is not mistaken for a wrong answer.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from engine.core.families.base import Kind, Parameter
from engine.core.families.display import cell, grid
from engine.core.families.games.common import Game, IllegalMove, Step

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# -- date counting -------------------------------------------------------------------------


def _day(value: date) -> str:
    return f"{WEEKDAYS[value.weekday()]} {value.isoformat()}"


class DateCount(Game):
    dimension = "mathematical_logical"
    single_turn = True
    kind = Kind(
        "date_count",
        "Counting days on the calendar",
        "a date as YYYY-MM-DD, a whole number of days, or a weekday, as the question asks",
        (
            Parameter("span", 60, 5, 20000, "most days between the dates"),
            Parameter("steps", 1, 1, 3, "shifts to add up (days, weeks, years)"),
        ),
        {"easy": {"span": 30, "steps": 1}, "medium": {"span": 800, "steps": 2},
         "hard": {"span": 12000, "steps": 3}},
    )  # fmt: skip

    def generate(self, rng, params):
        start = date(rng.randint(1900, 2099), rng.randint(1, 12), rng.randint(1, 28))
        question = rng.choice(("date", "weekday", "between"))
        span = params["span"]
        if question == "between":
            end = start + timedelta(days=rng.randint(1, span))
            text = (
                f"How many days are there from {_day(start)} to {end.isoformat()}? Count the "
                "days you step forward (from a date to the next one is 1 day). Answer with a "
                "whole number."
            )
            return self._public(text, "number"), {"answer": (end - start).days}
        budget = rng.randint(1, span)
        years = budget // 365 if params["steps"] >= 3 else 0
        rest = budget - 365 * years
        weeks, days = divmod(rest, 7) if params["steps"] >= 2 else (0, rest)
        later = rng.random() < 0.6
        sign = 1 if later else -1
        # Years move the calendar date (the day of the month is at most 28, so always valid).
        target = start.replace(year=start.year + sign * years) + timedelta(
            days=sign * (7 * weeks + days)
        )
        parts = [
            f"{count} {unit}{'s' if count != 1 else ''}"
            for count, unit in ((years, "year"), (weeks, "week"), (days, "day"))
            if count
        ]
        shift = (
            " and ".join(parts) if len(parts) < 3 else f"{parts[0]}, {parts[1]} and {parts[2]}"
        ) + (" after " if later else " before ")
        if question == "date":
            text = (
                f"Today is {_day(start)}. What is the date {shift}today? Answer with the date "
                "as YYYY-MM-DD."
            )
            return self._public(text, "date"), {"answer": target.isoformat()}
        text = (
            f"Today is {_day(start)}. Which day of the week is it {shift}today? Answer with "
            "the weekday's name."
        )
        return self._public(text, "weekday"), {"answer": WEEKDAYS[target.weekday()]}

    @staticmethod
    def _public(text: str, form: str) -> dict:
        return {"text": text, "form": form, "turn_limit": 1}

    def initial(self, public, hidden):
        return {"form": public["form"], "answer": hidden["answer"], "right": None}

    def play(self, state, move):
        given = move.strip().rstrip(".").strip()
        form = state["form"]
        if form == "number":
            if not re.fullmatch(r"[+-]?\d{1,7}", given.replace(",", "")):
                raise IllegalMove("answer with a whole number of days, e.g. 42")
            right = int(given.replace(",", "")) == state["answer"]
        elif form == "date":
            try:
                date.fromisoformat(given)
            except ValueError:
                raise IllegalMove(
                    "answer with a date written YYYY-MM-DD, e.g. 2024-03-09"
                ) from None
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", given):
                raise IllegalMove("answer with a date written YYYY-MM-DD, e.g. 2024-03-09")
            right = given == state["answer"]
        else:
            name = given.capitalize()
            if name not in WEEKDAYS:
                raise IllegalMove(f"answer with a weekday: {', '.join(WEEKDAYS)}")
            right = name == state["answer"]
        return {**state, "right": right}, Step({"answer": given, "right": right}, True)

    def score(self, state, moves, public):
        return 1.0 if state["right"] else 0.0

    def describe(self, observation):
        right = "right" if observation.get("right") else "not right"
        return f"you answered {observation['answer']}: {right}"

    def reference(self, public, hidden):
        return [str(hidden["answer"])]


# -- cryptarithms ----------------------------------------------------------------------------


def _solutions(
    words: list[str], total: str, fixed: dict[str, int], limit: int = 2
) -> list[dict[str, int]]:
    """Digit assignments making sum(words) == total (distinct digits, no leading zero, the
    ``fixed`` letters as given), up to ``limit`` of them: a column-by-column search from the
    units with carries."""
    width = len(total)
    columns = [
        [w[-1 - i] for w in words if i < len(w)] for i in range(width)
    ]  # letters per column, units first
    leading = {w[0] for w in (*words, total) if len(w) > 1}
    found: list[dict[str, int]] = []

    def column(i: int, carry: int, given: dict[str, int], used: set[int]) -> None:
        if len(found) >= limit:
            return
        if i == width:
            if carry == 0:
                found.append(dict(given))
            return
        free = [ch for ch in dict.fromkeys(columns[i]) if ch not in given]
        assign(i, carry, given, used, free, 0)

    def assign(i, carry, given, used, free, k) -> None:
        if len(found) >= limit:
            return
        if k == len(free):
            value = carry + sum(given[ch] for ch in columns[i])
            digit, next_carry = value % 10, value // 10
            letter = total[-1 - i]
            if letter in given:
                if given[letter] == digit:
                    column(i + 1, next_carry, given, used)
                return
            if digit in used or (digit == 0 and letter in leading):
                return
            given[letter] = digit
            used.add(digit)
            column(i + 1, next_carry, given, used)
            del given[letter]
            used.discard(digit)
            return
        letter = free[k]
        for digit in range(10):
            if digit in used or (digit == 0 and letter in leading):
                continue
            given[letter] = digit
            used.add(digit)
            assign(i, carry, given, used, free, k + 1)
            del given[letter]
            used.discard(digit)

    column(0, 0, dict(fixed), set(fixed.values()))
    return found


class CryptoMath(Game):
    dimension = "mathematical_logical"
    single_turn = True
    kind = Kind(
        "crypto_math",
        "Cryptarithm: letters that stand for digits",
        'every letter with its digit, e.g. "S=9 E=5 N=6"',
        (
            Parameter("digits", 3, 2, 5, "digits in each number added"),
            Parameter("terms", 2, 2, 3, "numbers added"),
        ),
        {"easy": {"digits": 2, "terms": 2}, "medium": {"digits": 3, "terms": 2},
         "hard": {"digits": 4, "terms": 3}},
    )  # fmt: skip

    def generate(self, rng, params):
        low, high = 10 ** (params["digits"] - 1), 10 ** params["digits"] - 1
        while True:
            numbers = [rng.randint(low, high) for _ in range(params["terms"])]
            total = sum(numbers)
            digits = sorted({d for n in (*numbers, total) for d in str(n)})
            if len(digits) >= 5:
                break
        letters = rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZ", len(digits))
        code = dict(zip(digits, letters, strict=True))
        solution = {letter: int(digit) for digit, letter in code.items()}
        words = ["".join(code[d] for d in str(n)) for n in numbers]
        result = "".join(code[d] for d in str(total))
        # Few sums have one solution alone: give letters away, each one that two solutions
        # still disagree on, until exactly one is left.
        given: dict[str, int] = {}
        while len(found := _solutions(words, result, given)) > 1:
            differ = sorted(ch for ch in found[0] if found[0][ch] != found[1][ch])
            letter = rng.choice(differ)
            given[letter] = solution[letter]
        sum_line = " + ".join(words) + f" = {result}"
        hints = ", ".join(f"{ch}={d}" for ch, d in sorted(given.items()))
        text = (
            f"Each letter stands for a different digit, and no number starts with 0: "
            f"{sum_line}."
            + (f" Given: {hints}." if given else "")
            + f" Find the digit of every letter ({', '.join(sorted(solution))}). Answer "
            'with every letter and its digit, like "A=1 B=2".'
        )
        public = {
            "text": text,
            "letters": sorted(solution),
            "sum": sum_line,
            "given": given,
            "turn_limit": 1,
        }
        return public, {"solution": solution, "words": words, "total": result}

    def initial(self, public, hidden):
        return {"letters": public["letters"], "hidden": hidden, "right": None}

    def play(self, state, move):
        pairs = re.findall(r"([A-Za-z])\s*[=:]\s*(\d+)", move)
        leftover = re.sub(r"([A-Za-z])\s*[=:]\s*(\d+)", "", move)
        if not pairs or re.search(r"[A-Za-z0-9]", leftover):
            raise IllegalMove('write every letter with its digit, like "A=1 B=2"')
        given: dict[str, int] = {}
        for letter, digit in pairs:
            letter = letter.upper()
            if letter in given:
                raise IllegalMove(f"{letter} is given twice")
            if len(digit) != 1:
                raise IllegalMove(f"{letter}={digit}: a letter stands for one digit")
            given[letter] = int(digit)
        missing = [ch for ch in state["letters"] if ch not in given]
        extra = [ch for ch in given if ch not in state["letters"]]
        if missing or extra:
            problem = f"missing {', '.join(missing)}" if missing else f"no letter {extra[0]}"
            raise IllegalMove(f"give each of {', '.join(state['letters'])} once ({problem})")
        if len(set(given.values())) != len(given):
            raise IllegalMove("different letters stand for different digits")
        hidden = state["hidden"]
        right = _holds(hidden["words"], hidden["total"], given)
        return {**state, "right": right}, Step({"right": right}, True)

    def score(self, state, moves, public):
        return 1.0 if state["right"] else 0.0

    def display(self, public, state, *, finished=False):
        """The sum written in columns, the given letters marked; once the answer is shown,
        every letter with its digit."""
        added, total = public["sum"].split(" = ")
        words = added.split(" + ")
        width = len(total) + 1
        given = public["given"]

        def line(sign: str, word: str) -> list[dict]:
            pad = [cell()] * (width - 1 - len(word))
            letters = []
            for ch in word:
                if finished:
                    digit = state["hidden"]["solution"][ch]
                    letters.append(cell(f"{ch}={digit}", "given" if ch in given else "", ch))
                elif ch in given:
                    letters.append(cell(f"{ch}={given[ch]}", "given", f"{ch}, given {given[ch]}"))
                else:
                    letters.append(cell(ch, "", ch))
            return [cell(sign), *pad, *letters]

        lines = [line("+" if i else "", word) for i, word in enumerate(words)]
        lines.append(line("=", total))
        return grid(lines, caption="Each letter stands for a different digit")

    def solution_text(self, public, hidden):
        return self.reference(public, hidden)[0]

    def describe(self, observation):
        return "right" if observation.get("right") else "not right"

    def reference(self, public, hidden):
        return [
            " ".join(f"{letter}={digit}" for letter, digit in sorted(hidden["solution"].items()))
        ]


def _holds(words: list[str], total: str, given: dict[str, int]) -> bool:
    def value(word: str) -> int:
        return int("".join(str(given[ch]) for ch in word))

    if any(given[w[0]] == 0 for w in (*words, total) if len(w) > 1):
        return False
    return sum(value(w) for w in words) == value(total)


RECKONING_GAMES = (DateCount(), CryptoMath())
