"""Cryptograms and drop quotes: made from the bundled public-domain corpus, deterministic
by seed, nothing of the plain text in public, every answer form read, and LR²Bench's
figures exact on the reference, one changed subtask and blanks."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import get_family
from engine.core.families.puzzles.corpus import sentences
from engine.core.families.puzzles.dropquote import layout

FAMILY = get_family("puzzles")
LEVELS = ["easy", "medium", "hard", "expert"]
seeds = st.integers(min_value=0, max_value=2**40)


def test_the_corpus_is_bundled_and_sourced():
    pool = sentences()
    assert len(pool) >= 120
    assert all(text and source for text, source in pool)


@pytest.mark.parametrize("kind", ["cryptogram", "dropquote"])
@pytest.mark.parametrize("level", LEVELS)
def test_deterministic_byte_for_byte_and_varied(kind, level):
    one, two = (FAMILY.generate(kind, 5, level=level) for _ in range(2))
    assert json.dumps([one.public, one.hidden]) == json.dumps([two.public, two.hidden])
    texts = {FAMILY.generate(kind, seed, level=level).public["text"] for seed in range(10)}
    assert len(texts) >= 8


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=15, deadline=None)
@given(seed=seeds, data=st.data())
def test_cryptogram_reference_one_letter_changed_and_nothing_leaked(level, seed, data):
    task = FAMILY.generate("cryptogram", seed, level=level)
    solution = task.hidden["solution"]
    public = json.dumps(task.public)
    words = [w for w in task.hidden["plaintext"].split() if len(w.strip(".,;!?'")) >= 5]
    assert not any(word in public for word in words)
    assert all(cipher != plain for cipher, plain in solution.items())  # a derangement
    cipher = task.public["ciphertext"]
    assert "".join(solution.get(ch, ch) for ch in cipher) == task.hidden["plaintext"]
    score = FAMILY.score(task, FAMILY.reference_answer(task))
    assert score.correct and score.details["cr"] == 1.0
    n = len(solution)
    letter = data.draw(st.sampled_from(sorted(solution)))
    wrong = dict(solution)
    wrong[letter] = next(x for x in string.ascii_uppercase if x != solution[letter])
    changed = FAMILY.score(task, json.dumps(wrong))
    assert changed.details["s_acc"] == (n - 1) / n and changed.details["em"] == 0
    assert FAMILY.score(task, "{}").details["cr"] == 0.0
    for hinted, plain in task.public["hints"].items():
        assert solution[hinted] == plain


def test_cryptogram_answer_forms():
    task = FAMILY.generate("cryptogram", 2, level="medium")
    solution = task.hidden["solution"]
    forms = [
        solution,
        json.dumps(solution),
        str({k.lower(): v.lower() for k, v in solution.items()}),
        "\n".join(f"{k} -> {v}" for k, v in solution.items()),
        ", ".join(f"{k}={v}" for k, v in solution.items()),
        task.hidden["plaintext"].lower(),  # the deciphered text itself
    ]
    for form in forms:
        assert FAMILY.score(task, form).correct, form
    half = dict(list(solution.items())[: len(solution) // 2])
    half["?"] = "A"
    score = FAMILY.score(task, half)
    assert score.details["by_unit"]["given"] == len(half) - 1
    assert any("not a letter of the cryptogram" in p for p in score.details["unread"])
    # A "deciphered text" that reads one cipher letter two ways leaves that letter unread.
    cipher = task.public["ciphertext"]
    first = next(ch for ch in cipher if ch.isalpha())
    plain = list(task.hidden["plaintext"])
    positions = [i for i, ch in enumerate(cipher) if ch == first]
    if len(positions) > 1:
        plain[positions[1]] = "Z" if plain[positions[1]] != "Z" else "Q"
        clash = FAMILY.score(task, "".join(plain))
        assert clash.details["by_unit"]["given"] == len(solution) - 1
        assert any(p.startswith(f"{first} is read as") for p in clash.details["unread"])


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=15, deadline=None)
@given(seed=seeds, data=st.data())
def test_dropquote_columns_reference_one_row_changed(level, seed, data):
    task = FAMILY.generate("dropquote", seed, level=level)
    rows, width = task.hidden["solution"], task.public["width"]
    assert rows == layout(task.hidden["quote"], width)
    for c in range(width):  # each column's letters are exactly the dropped ones
        assert "".join(sorted(r[c] for r in rows if r[c].isalpha())) == task.public["columns"][c]
    for shape, row in zip(task.public["shape"], rows, strict=True):
        assert all((s == "_") == ch.isalpha() for s, ch in zip(shape, row, strict=True))
    assert task.hidden["quote"].upper() not in json.dumps(task.public)
    score = FAMILY.score(task, FAMILY.reference_answer(task))
    assert score.correct and score.details["cr"] == 1.0
    n = len(rows)
    r = data.draw(st.integers(0, n - 1))
    wrong = list(rows)
    wrong[r] = wrong[r][::-1] if wrong[r][::-1] != wrong[r] else "Q" * width
    changed = FAMILY.score(task, wrong)
    # LR²Bench's subtasks: every cell that is not "#"; our own units: the rows.
    cells = sum(ch != "#" for row in rows for ch in row)
    right = cells - sum(a != b and a != "#" for a, b in zip(rows[r], wrong[r], strict=True))
    assert changed.details["subtasks"] == cells and changed.details["right"] == right
    assert changed.details["s_acc"] == right / cells and changed.details["cr"] == 1
    assert changed.details["by_unit"] == {"unit": "row", "of": n, "given": n, "right": n - 1}


def test_dropquote_answer_forms():
    task = FAMILY.generate("dropquote", 4, level="medium")
    rows = task.hidden["solution"]
    forms = [
        rows,
        json.dumps([list(r) for r in rows]),  # LR²Bench's list of characters
        "\n".join(r.replace("#", " ").lower() for r in rows),  # lines, spaces for blacks
        "<Answer>" + json.dumps(rows) + "</Answer>",
    ]
    for form in forms:
        assert FAMILY.score(task, form).correct, form
    short = [rows[0][:-1]] + rows[1:]
    score = FAMILY.score(task, short)
    if rows[0][-1] != "#":
        assert score.details["by_unit"]["given"] == len(rows) - 1
        assert "row 1 has" in score.details["unread"][0]
    free = FAMILY.score(task, "I do not know").details
    assert free["by_unit"]["given"] == 0 and (free["cr"], free["right"]) == (0, 0)
    # Half the letter cells wrong: PM-0.5 as LR²Bench counts cells, not rows.
    letters = [(i, j) for i, row in enumerate(rows) for j, ch in enumerate(row) if ch != "#"]
    grid = [list(row) for row in rows]
    for i, j in letters[: len(letters) // 2]:
        grid[i][j] = "Q" if grid[i][j] != "Q" else "Z"
    half = FAMILY.score(task, json.dumps(grid)).details
    assert half["right"] == len(letters) - len(letters) // 2 and half["pm05"] == 1
