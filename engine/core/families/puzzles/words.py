"""The crossword word list: words with definition clues, read from ``data/words.tsv``.

The file is derived from Princeton WordNet 3.1 (licence in ``data/WORDNET-LICENSE.txt``) by
``build_words.py``: 12,000 common single words of 3 to 12 letters, each with the definition
of its most frequent sense, never containing the word itself.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "words.tsv"


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
