"""Cryptograms: a public-domain sentence enciphered by a random letter substitution.

Every letter is replaced by another (never by itself); spaces and punctuation stay. Some
letters may be revealed as hints. The subtasks, LR²Bench's as ours, are the cipher letters
that occur (the keys of LR²Bench's gold mapping), in alphabetical order: one is right when
the answer maps that cipher letter to its plain letter.

Answers: a mapping {"X": "A", …} (JSON, Python-style, or lines "X -> A", "X=A", "X: A"),
or the deciphered text itself, from which the mapping is read (a cipher letter read as two
different letters is not read).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from typing import Any

from engine.core.families.base import Kind, Levels, Parameter
from engine.core.families.display import cell
from engine.core.families.puzzles.common import PuzzleKind, Reading, maybe_json
from engine.core.families.puzzles.corpus import passage
from engine.core.families.puzzles.drawing import answer_grid, solution_grid

LETTERS = string.ascii_uppercase


def derangement(rng) -> dict[str, str]:
    """A random substitution alphabet in which no letter stands for itself."""
    while True:
        shuffled = list(LETTERS)
        rng.shuffle(shuffled)
        if all(a != b for a, b in zip(LETTERS, shuffled, strict=True)):
            return dict(zip(LETTERS, shuffled, strict=True))


class Cryptogram(PuzzleKind):
    subtask_name = "letter"
    lr2_type = "cryptogram"
    lr2_units = "cipher letters"
    kind = Kind(
        "cryptogram",
        "Cryptogram: a sentence under a letter substitution",
        "the mapping from cipher letters to plain letters",
        (
            Parameter("length", 40, 20, 400, "least length of the text in characters"),
            Parameter("hints", 3, 0, 10, "cipher letters revealed"),
        ),
        # LR²Bench: easy 60–147 letters (median 98), hard 51–124 (66), 3 hints each; a
        # short text without hints goes beyond (few repeats to lean on).
        Levels(
            {
                "120-chars-3-hints": {"length": 120, "hints": 3},
                "80-chars-3-hints": {"length": 80, "hints": 3},
                "60-chars-0-hints": {"length": 60, "hints": 0},
            },
            aliases={
                "easy": "120-chars-3-hints",
                "medium": "80-chars-3-hints",
                "hard": "60-chars-0-hints",
                "expert": "60-chars-0-hints",
            },
        ),
    )

    def generate(self, rng, params: Mapping[str, int]):
        plain, source = passage(rng, params["length"])
        plain = plain.upper()
        key = derangement(rng)  # plain -> cipher
        cipher = "".join(key.get(ch, ch) for ch in plain)
        used = sorted({ch for ch in cipher if ch in LETTERS})
        solution = {c: next(p for p, k in key.items() if k == c) for c in used}
        hint_letters = sorted(rng.sample(used, min(params["hints"], len(used) - 1)))
        hints = {c: solution[c] for c in hint_letters}
        hint_text = (
            "Revealed: " + ", ".join(f"{c} stands for {p}" for c, p in hints.items()) + "."
            if hints
            else "No letter is revealed."
        )
        text = (
            "Here is a cryptogram: an English sentence in which every letter was replaced by "
            "another (the same letter always by the same one, and never by itself; spaces and "
            "punctuation are kept).\n\n"
            f"{cipher}\n\n{hint_text}\n\nFind the plain letter of every cipher letter."
        )
        public = {"text": text, "ciphertext": cipher, "hints": hints, "letters": used}
        return public, {"solution": solution, "plaintext": plain, "source": source}

    def expected(self, hidden) -> list[Any]:
        return [hidden["solution"][c] for c in sorted(hidden["solution"])]

    def render(self, hidden) -> str:
        return json.dumps(hidden["solution"])

    def lr2_gold(self, public, hidden) -> Any:
        return dict(hidden["solution"])

    def lr2_prediction(self, public, answer) -> Any | None:
        reading = self.read(public, answer)
        read = {c: v for c, v in zip(public["letters"], reading.subtasks, strict=True) if v}
        return read or None

    def _map(self, public, hidden, answer):
        letters = public["letters"]
        given = self.read(public, answer).subtasks if answer is not None else [None] * len(letters)

        def square(r: int, c: int):
            if r == 0:
                return "fixed", cell(letters[c], "given", f"cipher {letters[c]}"), None
            if letters[c] in public["hints"]:
                plain = public["hints"][letters[c]]
                return "fixed", cell(plain, "given", f"{letters[c]} stands for {plain}"), None
            return "open", given[c] or "", hidden["solution"][letters[c]]

        def where(r: int, c: int) -> str:
            return f"{letters[c]} stands for"

        return 2, len(letters), square, where

    def answer_display(self, public, hidden, answer, *, marked):
        height, width, square, where = self._map(public, hidden, answer)
        return answer_grid(
            height, width, square, marked=marked, caption="Your letters", where=where
        )

    def solution_display(self, public, hidden):
        height, width, square, where = self._map(public, hidden, None)
        caption = f"The letters: {hidden['plaintext']}"
        return solution_grid(height, width, square, caption=caption, where=where)

    def answer_help(self, public) -> str:
        return (
            'a JSON object mapping every cipher letter to its plain letter, like {"X": "A", '
            '"M": "N"}'
        )

    def random_answer(self, public, rng) -> str:
        letters = public["letters"]
        return json.dumps({c: rng.choice(LETTERS) for c in letters})

    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        letters: list[str] = public["letters"]
        problems: list[str] = []
        mapping = maybe_json(answer)
        if isinstance(mapping, str):
            mapping = _pairs(mapping) or _from_plaintext(public["ciphertext"], mapping, problems)
        if not isinstance(mapping, dict):
            return Reading([None] * len(letters), problems or ["the answer is not a mapping"])
        read: dict[str, str] = {}
        for key, value in mapping.items():
            cipher = str(key).strip().strip("'\"").upper()
            plain = str(value).strip().strip("'\"").upper() if value is not None else ""
            if cipher not in letters:
                problems.append(f"{key!r} is not a letter of the cryptogram")
                continue
            if len(plain) != 1 or plain not in LETTERS:
                problems.append(f"{cipher}: {value!r} is not one letter")
                continue
            read[cipher] = plain
        return Reading([read.get(c) for c in letters], problems)


PAIR = re.compile(
    r"^\s*['\"]?([A-Za-z])['\"]?\s*(?:->|→|=|:|to)\s*['\"]?([A-Za-z])['\"]?\s*[,;]?\s*$"
)


def _pairs(text: str) -> dict[str, str] | None:
    """Lines "X -> A" (or "X=A", "X: A"); None when no line is one."""
    pairs = {}
    for line in re.split(r"[\n,;]", text):
        match = PAIR.match(line)
        if match:
            pairs[match.group(1)] = match.group(2)
    return pairs or None


def _from_plaintext(cipher: str, text: str, problems: list[str]) -> dict[str, str] | str:
    """The mapping a deciphered text implies, aligned letter by letter with the cipher
    (spaces and punctuation must line up); letters read two ways are left out."""
    plain = text.strip().upper()
    if len(plain) != len(cipher) or any(
        (a in LETTERS) != (b in LETTERS) for a, b in zip(cipher, plain, strict=True)
    ):
        problems.append("the answer is neither a mapping nor the deciphered text")
        return text
    seen: dict[str, set[str]] = {}
    for a, b in zip(cipher, plain, strict=True):
        if a in LETTERS:
            seen.setdefault(a, set()).add(b)
    mapping = {}
    for a, options in seen.items():
        if len(options) == 1:
            mapping[a] = options.pop()
        else:
            problems.append(f"{a} is read as {', '.join(sorted(options))}")
    return mapping


KINDS = (Cryptogram(),)
