"""Acrostics: clue words whose letters, put in their numbered squares, spell a quotation.

Generation (deterministic by seed): a public-domain quotation from the bundled corpus is
split, letter for letter, into words of the bundled word list (``data/words.tsv``), each
with its definition as the clue: a randomised search takes words whose letters are still
left in the quotation, finishing with one or two words that use exactly the rest (retried,
then another quotation, until it succeeds). Every letter of every answer is tied to one
square of the quotation (same letter), so a solved clue fills squares of the quotation and
a guessed quotation word gives letters of clues, as in a printed acrostic.

An answer is read as clue words (``{"A": "WORD", …, "quote": "THE QUOTATION"}``) or, as
LR²Bench writes it, as the letter of every numbered square (``{"1": "N", "2": "E", …}``).
LR²Bench's subtasks are the numbered squares: one is right when the answer puts the
quotation's letter in it (clue words and quotation words are spread over their squares;
a clue's letter is kept where the quotation gives another). Our own units (``by_unit``)
are the clue answers and the quotation's words.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Mapping
from functools import cache
from typing import Any

from engine.core.families.base import Kind, Parameter
from engine.core.families.puzzles.common import PuzzleKind, Reading, letters_only, maybe_json
from engine.core.families.puzzles.corpus import sentences
from engine.core.families.puzzles.words import entries

LABELS = string.ascii_uppercase


@cache
def _anagrams() -> dict[str, tuple[tuple[str, str], ...]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for word, clue in entries():
        found.setdefault("".join(sorted(word)), []).append((word, clue))
    return {key: tuple(value) for key, value in found.items()}


@cache
def _counted() -> tuple[tuple[str, str, tuple[tuple[str, int], ...]], ...]:
    """Every word with its clue and letter counts (computed once)."""
    return tuple((w, c, tuple(Counter(w).items())) for w, c in entries())


def _fits(counts, pool: Counter) -> bool:
    return all(pool[ch] >= n for ch, n in counts)


def _split(rng, letters: str, most: int) -> list[tuple[str, str]] | None:
    """Words (with clues) whose letters together are exactly ``letters``, or None."""
    pool = Counter(letters)
    words = [item for item in _counted() if 4 <= len(item[0]) <= 8]
    chosen: list[tuple[str, str]] = []
    while len(chosen) < most:
        left = sum(pool.values())
        used = {w for w, _ in chosen}
        key = "".join(sorted(pool.elements()))
        if left <= 12:
            whole = [x for x in _anagrams().get(key, ()) if x[0] not in used]
            if whole:
                return [*chosen, rng.choice(whole)]
        if left <= 16:
            for word, clue, counts in _counted():
                if word in used or not _fits(counts, pool):
                    continue
                rest = "".join(sorted((pool - Counter(word)).elements()))
                pair = [x for x in _anagrams().get(rest, ()) if x[0] not in used | {word}]
                if pair:
                    return [*chosen, (word, clue), pair[0]]
        candidates = [w for w in rng.sample(words, 400) if w[0] not in used and _fits(w[2], pool)]
        if not candidates:
            return None
        pick = max(
            candidates[:60], key=lambda w: sum(1 / (1 + pool[ch]) for ch in w[0]) + rng.random()
        )
        chosen.append(pick[:2])
        pool -= Counter(pick[0])
    return None


def _gives_away(words: list[tuple[str, str]]) -> bool:
    """Whether a clue holds an answer word (its own or another's): the acrostic is drawn
    again rather than printed with a clue that answers a clue."""
    answers = {word for word, _ in words}
    return any(answers & set(re.findall(r"[A-Z]+", clue.upper())) for _, clue in words)


class Acrostic(PuzzleKind):
    subtask_name = "word"
    lr2_type = "acrostic"
    lr2_units = "squares"
    kind = Kind(
        "acrostic",
        "Acrostic: clue words whose letters spell a quotation",
        "every clue's word and the quotation",
        (
            Parameter("letters", 30, 15, 80, "least letters in the quotation"),
            Parameter("spread", 20, 10, 60, "letters more the quotation may have"),
        ),
        {
            "easy": {"letters": 15, "spread": 15},
            "medium": {"letters": 30, "spread": 15},
            "hard": {"letters": 45, "spread": 20},
        },
    )

    def generate(self, rng, params: Mapping[str, int]):
        low, high = params["letters"], params["letters"] + params["spread"]
        pool = [
            (text, source)
            for text, source in sentences()
            if low <= sum(ch.isalpha() for ch in text) <= high
        ]
        for _ in range(400):
            quote, source = rng.choice(pool)
            letters = "".join(ch for ch in quote.upper() if ch.isalpha())
            words = _split(rng, letters, most=len(LABELS))
            if words and not _gives_away(words):
                break
        else:  # pragma: no cover - never seen: the search succeeds within a few tries
            raise RuntimeError("no acrostic found")
        rng.shuffle(words)
        # Tie each answer letter to a square of the quotation holding the same letter.
        squares: dict[str, list[int]] = {}
        for number, ch in enumerate(letters, 1):
            squares.setdefault(ch, []).append(number)
        for spots in squares.values():
            rng.shuffle(spots)
        clues, solution, links = {}, {}, {}
        for label, (word, clue) in zip(LABELS, words, strict=False):
            numbers = [squares[ch].pop() for ch in word]
            clues[label] = f"{clue} ({len(word)})"
            solution[label] = word
            links[label] = numbers
        shape, number = [], 0
        for ch in quote.upper():
            if ch.isalpha():
                number += 1
                shape.append(number)
            else:
                shape.append(ch)
        quote_words = re.findall(r"[A-Z]+(?:'[A-Z]+)?", quote.upper())
        solution["quote"] = " ".join(quote_words)
        text = (
            "Here is an acrostic. Each clue's answer is a word of the given length; its "
            "letters go, in order, into the numbered squares listed after the clue. Filled "
            "in, the squares spell a quotation.\n\nClues:\n"
            + "\n".join(
                f"{label}. {clues[label]}: squares {' '.join(map(str, links[label]))}"
                for label in clues
            )
            + "\n\nQuotation squares (numbers in reading order; other characters are shown):\n"
            + " ".join(str(cell) if isinstance(cell, int) else repr(cell) for cell in shape)
        )
        public = {"text": text, "clues": clues, "links": links, "shape": shape}
        return public, {"solution": solution, "quote": quote, "source": source}

    def expected(self, hidden) -> list[Any]:
        solution = dict(hidden["solution"])
        quote = solution.pop("quote")
        return [*solution.values(), *quote.split()]

    def render(self, hidden) -> str:
        return json.dumps(hidden["solution"])

    def lr2_gold(self, public, hidden) -> Any:
        letters = [ch for ch in hidden["quote"].upper() if ch.isalpha()]
        return {str(number): letter for number, letter in enumerate(letters, 1)}

    def lr2_prediction(self, public, answer) -> Any | None:
        mapping = maybe_json(answer)
        if isinstance(mapping, str):
            mapping = _lines(mapping)
        if not isinstance(mapping, dict):
            return None
        squares = {str(k).strip(): v for k, v in mapping.items() if str(k).strip().isdigit()}
        if squares:
            return squares
        letters: dict[str, str] = {}
        for key, value in mapping.items():
            label = str(key).strip().upper()
            word = letters_only(value)
            if label in public["links"] and word and len(word) == len(public["links"][label]):
                for number, letter in zip(public["links"][label], word, strict=True):
                    letters[str(number)] = letter
        quote = next(
            (v for k, v in mapping.items() if str(k).strip().lower() in ("quote", "quotation")),
            None,
        )
        if isinstance(quote, str):
            found = re.findall(r"[A-Z]+(?:'[A-Z]+)?", quote.upper())
            for word, numbers in zip(found, _quote_words(public["shape"]), strict=False):
                word = word.replace("'", "")
                if len(word) == len(numbers):
                    for number, letter in zip(numbers, word, strict=True):
                        letters.setdefault(str(number), letter)
        return letters or None

    def answer_help(self, public) -> str:
        return (
            'a JSON object with every clue\'s word and the quotation, like {"A": "WORD", '
            '"B": "WORD", "quote": "THE WHOLE QUOTATION"}'
        )

    def random_answer(self, public, rng) -> str:
        return json.dumps(
            {
                label: "".join(rng.choice(LABELS) for _ in public["links"][label])
                for label in public["clues"]
            }
        )

    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        labels = list(public["clues"])
        quote_length = len(_quote_words(public["shape"]))
        problems: list[str] = []
        mapping = maybe_json(answer)
        if isinstance(mapping, str):
            mapping = _lines(mapping)
        if not isinstance(mapping, dict):
            blank = [None] * (len(labels) + quote_length)
            return Reading(blank, ["the answer is not a mapping"])
        squares = {str(k).strip(): v for k, v in mapping.items() if str(k).strip().isdigit()}
        if squares:  # LR²Bench's form: the letter of every numbered square
            mapping = _from_squares(public, squares, problems)
        words: dict[str, str] = {}
        quote: list[str | None] = [None] * quote_length
        for key, value in mapping.items():
            key = str(key).strip()
            if key.lower() in ("quote", "quotation"):
                if isinstance(value, str):
                    found = re.findall(r"[A-Z]+(?:'[A-Z]+)?", value.upper())
                    quote = [*found[:quote_length], *[None] * (quote_length - len(found))]
                else:
                    problems.append("the quotation is not text")
                continue
            label = key.upper()
            if label not in public["clues"]:
                problems.append(f"{key!r} is not a clue of this acrostic")
                continue
            word = letters_only(value)
            if word is None:
                problems.append(f"{label}: {value!r} is not a word")
                continue
            words[label] = word
        return Reading([words.get(label) for label in labels] + quote, problems)


def _quote_words(shape: list) -> list[list[int]]:
    """The quotation's words as lists of square numbers (an apostrophe keeps a word)."""
    words: list[list[int]] = []
    current: list[int] = []
    for index, cell in enumerate(shape):
        if isinstance(cell, int):
            current.append(cell)
        elif (
            cell == "'" and current and index + 1 < len(shape) and isinstance(shape[index + 1], int)
        ):
            continue
        elif current:
            words.append(current)
            current = []
    if current:
        words.append(current)
    return words


def _from_squares(public, squares: dict[str, Any], problems: list[str]) -> dict[str, str]:
    letter = {}
    for key, value in squares.items():
        text = value.strip().upper() if isinstance(value, str) else ""
        if len(text) == 1 and text in LABELS:
            letter[int(key)] = text
        else:
            problems.append(f"square {key}: {value!r} is not one letter")
    mapping = {}
    for label, numbers in public["links"].items():
        if all(n in letter for n in numbers):
            mapping[label] = "".join(letter[n] for n in numbers)
    words = [
        "".join(letter[n] for n in word) if all(n in letter for n in word) else "?"
        for word in _quote_words(public["shape"])
    ]
    mapping["quote"] = " ".join(words)
    return mapping


def _lines(text: str) -> dict[str, str] | str:
    found = {}
    for line in text.splitlines():
        match = re.match(r"\s*([A-Za-z]|quote|quotation)\s*[:=.\-]\s*(.+)$", line, re.I)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found or text


KINDS = (Acrostic(),)
