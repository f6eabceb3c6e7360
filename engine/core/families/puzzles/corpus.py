"""The sentences cryptograms and drop quotes are made of.

``data/quotes.txt`` is bundled with the platform: traditional English proverbs and
quotations from works published before 1929 whose authors (and translators) died more than
70 years ago, all in the public domain; written out for this project from common
knowledge, one per line with its source.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "quotes.txt"


@cache
def sentences() -> tuple[tuple[str, str], ...]:
    """(text, source) pairs, in the file's order."""
    found = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        text, _, source = line.partition(" — ")
        found.append((text.strip(), source.strip()))
    return tuple(found)


def passage(rng, length: int) -> tuple[str, str]:
    """A sentence (or consecutive sentences joined) of at least ``length`` characters."""
    pool = sentences()
    start = rng.randrange(len(pool))
    text, sources = "", []
    index = start
    while len(text) < length and len(sources) < len(pool):
        sentence, source = pool[index % len(pool)]
        text = f"{text} {sentence}".strip()
        sources.append(source)
        index += 1
    return text, "; ".join(dict.fromkeys(sources))
