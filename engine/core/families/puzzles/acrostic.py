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

from engine.core.families.base import Kind, Levels, Parameter
from engine.core.families.puzzles.common import PuzzleKind, Reading, letters_only, maybe_json
from engine.core.families.puzzles.corpus import sentences
from engine.core.families.puzzles.words import entries, fill_entries

LABELS = string.ascii_uppercase
# The clues' labels: A–Z, then AA–AZ for quotations longer than LR²Bench's longest.
CLUE_LABELS = [*LABELS, *(f"A{letter}" for letter in LABELS)]
# Past this many letters a quotation is split in two halves, each into at most 26 words
# (one search over the whole rarely closes), so its clues run past Z.
ONE_SEARCH_MOST = 258


@cache
def _words() -> tuple[tuple[str, str], ...]:
    """The clue words: the common list, and the fill list's single words in common use
    (Zipf ≥ 3) for the long answers the common list has few of (it stops at 12 letters)."""
    common = entries()
    known = {word for word, _ in common}
    more = tuple(
        (word, clue)
        for word, clue, frequency, display in fill_entries()
        if word not in known and " " not in display and frequency >= 300 and len(word) >= 9
    )
    return tuple(sorted(common + more))


@cache
def _anagrams() -> dict[str, tuple[tuple[str, str], ...]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for word, clue in _words():
        found.setdefault("".join(sorted(word)), []).append((word, clue))
    return {key: tuple(value) for key, value in found.items()}


@cache
def _counted() -> tuple[tuple[str, str, tuple[tuple[str, int], ...]], ...]:
    """Every word with its clue and letter counts (computed once)."""
    return tuple((w, c, tuple(Counter(w).items())) for w, c in _words())


@cache
def _by_length(shortest: int, longest: int):
    return [item for item in _counted() if shortest <= len(item[0]) <= longest]


def _fits(counts, pool: Counter) -> bool:
    return all(pool[ch] >= n for ch, n in counts)


def _split(rng, letters: str, most: int) -> list[tuple[str, str]] | None:
    """Words (with clues) whose letters together are exactly ``letters``, at most ``most``
    of them, no answer in another's clue; None when the search gives up.

    1. Greedy: while many letters are left, draw words that fit what is left (long enough
       that the rest fits in the clues left; rare letters first), none clashing with the
       clues chosen so far.
    2. Close: with at most 16 letters left, look for one or two words that use exactly the
       rest (an anagram lookup for the last); when that fails, take the last greedy word
       back and close again, a few times."""
    pool = Counter(letters)
    chosen: list[tuple[str, str]] = []
    retreats = 0
    while len(chosen) < most:
        left = sum(pool.values())
        room = most - len(chosen)
        if left <= 16 or room <= 2:
            closing = _close(rng, pool, chosen)
            if closing is not None:
                return [*chosen, *closing]
            if retreats == 12 or not chosen:
                return None
            retreats += 1  # take the last words back and close again
            for _ in range(min(len(chosen), 1 + retreats % 3)):
                pool += Counter(chosen.pop()[0])
            continue
        needed = left / max(1, room - 2)
        shortest = max(4, min(12, round(needed) - 1, left - 12))
        words = _by_length(shortest, min(max(8, shortest + 3), left - 4))
        drawn = rng.sample(words, min(400, len(words)))
        candidates = [w for w in drawn if _fits(w[2], pool) and _fair(w[0], w[1], chosen)]
        if not candidates:  # few words fit what is left: look through all of them
            have = _mask("".join(pool.elements()))
            candidates = [
                w for w, mask in zip(_counted(), _masks(), strict=True)
                if not mask & ~have and 4 <= len(w[0]) <= left - 4
                and _fits(w[2], pool) and _fair(w[0], w[1], chosen)
            ]  # fmt: skip
            rng.shuffle(candidates)
        if not candidates:  # a dead end: take words back as when closing fails
            if retreats == 12 or not chosen:
                return None
            retreats += 1
            for _ in range(min(len(chosen), 1 + retreats % 3)):
                pool += Counter(chosen.pop()[0])
            continue
        pick = max(
            candidates[:60], key=lambda w: sum(1 / (1 + pool[ch]) for ch in w[0]) + rng.random()
        )
        chosen.append(pick[:2])
        pool -= Counter(pick[0])
    return None


def _fair(word: str, clue: str, chosen: list[tuple[str, str]]) -> bool:
    """Whether ``word`` (with ``clue``) can join ``chosen``: used once, not named in a
    chosen clue, its clue naming no chosen answer."""
    answers = {w for w, _ in chosen}
    if word in answers or any(word in _tokens(c) for _, c in chosen):
        return False
    return not (answers & _tokens(clue))


@cache
def _tokens(clue: str) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Z]+", clue.upper()))


def _close(rng, pool: Counter, chosen, most: int = 3, fitting=None) -> list | None:
    """One to ``most`` (≤ 3) words using exactly the letters of ``pool``, or None;
    ``fitting`` holds every word that may fit (those of a larger pool), when known."""
    key = "".join(sorted(pool.elements()))
    whole = [x for x in _anagrams().get(key, ()) if _fair(*x, chosen)]
    if whole:
        return [rng.choice(whole)]
    if most < 2:
        return None
    have = _mask(key)
    fitting = [
        w for w, mask in fitting or zip(_counted(), _masks(), strict=True)
        if not mask & ~have and len(w[0]) < len(key) and _fits(w[2], pool)
    ]  # fmt: skip
    fitting_masks = [(w, _mask(w[0])) for w in fitting]
    rng.shuffle(fitting_masks)
    if most == 3:
        for (word, clue, _), _ in fitting_masks[:40]:
            if _fair(word, clue, chosen):
                rest = pool - Counter(word)
                found = _close(rng, rest, [*chosen, (word, clue)], 2, fitting_masks)
                if found:
                    return [(word, clue), *found]
        return None
    for (word, clue, _), _ in fitting_masks:
        rest = "".join(sorted((pool - Counter(word)).elements()))
        with_word = [*chosen, (word, clue)]
        pair = [x for x in _anagrams().get(rest, ()) if _fair(*x, with_word)]
        if pair and _fair(word, clue, chosen):
            return [(word, clue), rng.choice(pair)]
    return None


def _mask(letters: str) -> int:
    return sum(1 << (ord(ch) - 65) for ch in set(letters))


@cache
def _masks() -> tuple[int, ...]:
    return tuple(_mask(word) for word, _, _ in _counted())


@cache
def _split_halves(rng, letters: str, tries: int = 200) -> list[tuple[str, str]] | None:
    """Words for a quotation too long for one search: its letters in two halves, each split
    into at most 26 words (``_split``, tried again until it closes), no clue of one half
    holding an answer of the other; None when a half cannot be split."""
    half = len(letters) // 2
    words: list[tuple[str, str]] = []
    for part in (letters[:half], letters[half:]):
        for _ in range(tries):
            found = _split(rng, part, most=len(LABELS))
            if found and not _gives_away([*words, *found]):
                words += found
                break
        else:
            return None
    return words


def _passages(low: int, high: int) -> tuple[tuple[str, str], ...]:
    """Every run of consecutive sentences of the corpus with ``low`` to ``high`` letters, as
    (text, sources): the corpus's sentences are short (at most 92 letters), LR²Bench's
    quotations are not."""
    corpus = sentences()
    found = []
    for start in range(len(corpus)):
        texts, sources, letters = [], [], 0
        for text, source in corpus[start:]:
            texts.append(text)
            sources.append(source)
            letters += sum(ch.isalpha() for ch in text)
            if letters > high:
                break
            if letters >= low:
                found.append((" ".join(texts), "; ".join(dict.fromkeys(sources))))
    if not found:
        raise ValueError(f"no passage of {low} to {high} letters in the corpus")
    return tuple(found)


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
            Parameter("letters", 30, 15, 400, "least letters in the quotation"),
            Parameter("spread", 20, 10, 150, "letters more the quotation may have"),
        ),
        # LR²Bench's quotations: easy 72–162 letters, hard 172–258; beyond them 259–400,
        # with up to 52 clues (A–Z, then AA–AZ).
        Levels(
            {
                "72-162-letters": {"letters": 72, "spread": 90},
                "172-258-letters": {"letters": 172, "spread": 86},
                "259-400-letters": {"letters": 259, "spread": 141},
            },
            aliases={
                "easy": "72-162-letters",
                "medium": "72-162-letters",
                "hard": "172-258-letters",
            },
        ),
    )

    def generate(self, rng, params: Mapping[str, int]):
        low, high = params["letters"], params["letters"] + params["spread"]
        pool = _passages(low, high)
        for _ in range(400):
            quote, source = rng.choice(pool)
            letters = "".join(ch for ch in quote.upper() if ch.isalpha())
            if len(letters) > ONE_SEARCH_MOST:
                words = _split_halves(rng, letters)
            else:
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
        for label, (word, clue) in zip(CLUE_LABELS, words, strict=False):
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
