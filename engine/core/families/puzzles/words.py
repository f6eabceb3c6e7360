"""The crossword word list: words with definition clues, read from ``data/words.tsv``.

The file is derived from Princeton WordNet 3.1 (licence in ``data/WORDNET-LICENSE.txt``) by
``build_words.py``: 12,000 common single words of 3 to 12 letters, each with the definition
of its most frequent sense, never containing the word itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "words.tsv"
FILL = Path(__file__).resolve().parent / "data" / "fill.tsv"


@cache
def entries() -> tuple[tuple[str, str], ...]:
    """(WORD, clue) pairs, sorted by word."""
    found = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        word, _, clue = line.split("\t")
        found.append((word, clue))
    return tuple(found)


@cache
def by_length() -> dict[int, tuple[tuple[str, str], ...]]:
    groups: dict[int, list[tuple[str, str]]] = {}
    for word, clue in entries():
        groups.setdefault(len(word), []).append((word, clue))
    return {length: tuple(group) for length, group in groups.items()}


@cache
def fill_entries() -> tuple[tuple[str, str, int, str], ...]:
    """The dense crosswords' list (``data/fill.tsv``, a superset of the common words, built
    with them by ``build_words.py``): (WORD, clue, Zipf frequency × 100, display) sorted by
    word; ``display`` is how the entry is written ("ice cream" for ICECREAM)."""
    found = []
    for line in FILL.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        word, _, frequency, clue, display = line.split("\t")
        found.append((word, clue, int(frequency), display))
    return tuple(found)


# Clues written by the authoring LLM, checked and stored by the platform
# (``engine.word_clues``), used instead of the definitions while ``written_clues`` is active.
_WRITTEN: dict[str, str] = {}


@contextmanager
def written_clues(clues: Mapping[str, str]) -> Iterator[None]:
    """Within the block, a word with a written clue in ``clues`` gets that clue."""
    previous = dict(_WRITTEN)
    _WRITTEN.clear()
    _WRITTEN.update(clues)
    try:
        yield
    finally:
        _WRITTEN.clear()
        _WRITTEN.update(previous)


def clue_for(word: str, definition: str) -> str:
    return _WRITTEN.get(word, definition)


def clue_problem(word: str, clue: object) -> str:
    """Why ``clue`` is not a fair clue for ``word`` ("" when it is): it must be plain text
    of 8 to 120 characters that does not contain the word, its first five letters, or a
    pattern of its letters."""
    if not isinstance(clue, str):
        return "not text"
    text = " ".join(clue.split())
    if not 8 <= len(text) <= 120:
        return f"{len(text)} characters (a clue has 8 to 120)"
    if not text.isprintable() or any(ch in text for ch in "<>{}"):
        return "holds markup or control characters"
    if word.lower() in re.findall(r"[a-z]+", text.lower()) or word[:5].lower() in text.lower():
        return "gives the word away"
    if re.search(r"\b[A-Za-z](?:[ _.-][A-Za-z_]){2,}\b|_{2,}", text):
        return "spells out letters"
    return ""
