"""The one-turn mathematical games: date counting checked against the calendar read back
from the question's own words, cryptarithms with exactly one solution (checked by brute
force), and answers of the wrong form refused while wrong answers score 0."""

from __future__ import annotations

import itertools
import json
import random
import re
from datetime import date, timedelta

import pytest

from engine.core.families.games.common import IllegalMove
from engine.core.families.games.reckoning import CryptoMath, DateCount

LEVELS = ["easy", "medium", "hard"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _make(game, seed: int, level: str):
    return game.generate(random.Random(seed), game.kind.resolve(level=level))


def _truth_from_the_question(text: str):
    """The answer worked out from the question's words alone, with datetime."""
    start = date.fromisoformat(re.search(r"(\d{4}-\d{2}-\d{2})", text).group(1))
    if text.startswith("How many days"):
        end = date.fromisoformat(re.findall(r"(\d{4}-\d{2}-\d{2})", text)[1])
        return str((end - start).days)
    shift = re.search(r"(?:date|it) (.*) (after|before) today", text)
    sign = 1 if shift.group(2) == "after" else -1
    amounts = {unit: int(n) for n, unit in re.findall(r"(\d+) (year|week|day)s?", shift.group(1))}
    moved = start.replace(year=start.year + sign * amounts.get("year", 0))
    moved += timedelta(days=sign * (7 * amounts.get("week", 0) + amounts.get("day", 0)))
    return moved.isoformat() if "What is the date" in text else WEEKDAYS[moved.weekday()]


@pytest.mark.parametrize("level", LEVELS)
def test_date_questions_agree_with_the_calendar(level):
    game = DateCount()
    forms = set()
    for seed in range(80):
        public, hidden = _make(game, seed, level)
        forms.add(public["form"])
        truth = _truth_from_the_question(public["text"])
        assert str(hidden["answer"]) == truth, public["text"]
        assert "answer" not in public
        state, step = game.play(game.initial(public, hidden), truth)
        assert step.over and game.score(state, 1, public) == 1.0
    assert forms == {"date", "weekday", "number"}


def test_a_wrong_date_scores_0_and_a_malformed_one_is_refused():
    game = DateCount()
    for seed in range(30):
        public, hidden = _make(game, seed, "medium")
        state = game.initial(public, hidden)
        if public["form"] == "date":
            wrong = (date.fromisoformat(hidden["answer"]) + timedelta(days=1)).isoformat()
            bad = ["25/10/2008", "2008-02-30", "tomorrow"]
        elif public["form"] == "weekday":
            wrong = WEEKDAYS[(WEEKDAYS.index(hidden["answer"]) + 1) % 7]
            bad = ["Funday", "7"]
        else:
            wrong, bad = str(hidden["answer"] + 1), ["forty", "3.5"]
        for move in bad:
            with pytest.raises(IllegalMove):
                game.play(state, move)
        after, step = game.play(state, wrong)
        assert step.over and game.score(after, 1, public) == 0.0
        assert state["right"] is None  # the refused moves changed nothing


def _brute_force(words: list[str], total: str, given: dict[str, int]) -> list[dict]:
    letters = sorted(set("".join(words) + total) - set(given))
    free = [d for d in range(10) if d not in given.values()]
    found = []
    for digits in itertools.permutations(free, len(letters)):
        mapping = {**given, **dict(zip(letters, digits, strict=True))}
        if any(mapping[w[0]] == 0 for w in (*words, total) if len(w) > 1):
            continue

        def value(word, mapping=mapping):
            return int("".join(str(mapping[ch]) for ch in word))

        if sum(value(w) for w in words) == value(total):
            found.append(mapping)
    return found


def test_cryptarithms_have_exactly_one_solution():
    game = CryptoMath()
    checked = 0
    for seed in range(40):
        public, hidden = _make(game, seed, "easy" if seed % 2 else "medium")
        if len(public["letters"]) - len(public["given"]) > 6:
            continue  # brute force over 10P7 and more is too slow for a test
        solutions = _brute_force(hidden["words"], hidden["total"], public["given"])
        assert solutions == [hidden["solution"]]
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("level", LEVELS)
def test_cryptarithm_answers(level):
    game = CryptoMath()
    public, hidden = _make(game, 11, level)
    state = game.initial(public, hidden)
    solution = hidden["solution"]
    assert json.dumps(solution) not in json.dumps(public)
    assert all(solution[ch] == d for ch, d in public["given"].items())
    right = ", ".join(f"{ch.lower()} = {d}" for ch, d in solution.items())
    assert game.score(game.play(state, right)[0], 1, public) == 1.0
    first, second = sorted(solution)[:2]
    swapped = {**solution, first: solution[second], second: solution[first]}
    wrong = " ".join(f"{ch}={d}" for ch, d in swapped.items())
    after, step = game.play(state, wrong)
    assert step.over and game.score(after, 1, public) == 0.0
    missing = " ".join(f"{ch}={d}" for ch, d in list(solution.items())[1:])
    repeated = wrong.replace(f"{first}={swapped[first]}", f"{first}={swapped[second]}")
    for move in (missing, repeated, "no idea", right + " Q=1", f"{first}=12"):
        with pytest.raises(IllegalMove):
            game.play(state, move)
