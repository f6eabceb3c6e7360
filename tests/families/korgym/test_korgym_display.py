"""KORGym's boards drawn for people (``KorgymGame.display``): every game's drawing is one
the page can draw (``check_display``) at the start, after every move of the recorded
fixtures and at the end; nothing hidden is drawn before the end; the keyboard keys play
moves the game takes."""

from __future__ import annotations

import importlib
import json
from functools import cache
from pathlib import Path

import pytest

from engine.core.families.base import get_family
from engine.core.families.display import check_display

FIXTURES = Path(__file__).parent / "fixtures"
FAMILY = get_family("korgym")
GAMES = sorted(FAMILY.games)

# Word and number questions: KORGym's text is all there is to them (docs/task-families.md
# says why for each), so they are shown as text.
TEXT_ONLY = {
    "alien",
    "anagramania",
    "city",
    "city_path",
    "construction_company",
    "datecount",
    "diagram_coloring",
    "one_touch_drawing",
    "party_time",
    "word_encryption",
    "word_puzzle",
}


def cases(kind):
    return json.loads((FIXTURES / f"{kind}.json").read_text())["cases"]


@cache
def generated(kind, seed):
    # Some generators take a minute (play_lines): each board is made once per test run.
    return FAMILY.generate(kind, seed, level="korgym")


def played(kind):
    """(instance, moves so far, over) at the start and after each recorded move."""
    for case in cases(kind):
        instance = generated(kind, case["seed"])
        history: list[str] = []
        yield instance, [], False
        for step in case["steps"]:
            over = FAMILY.step(instance, history, step["action"])["over"]
            history.append(step["action"])
            yield instance, list(history), over
            if over:
                break


def texts(display):
    """Every text a display shows or reads out (cells, labels, captions, card faces)."""
    found = [display.get("caption", "")]
    for part in display.get("parts", ()):
        found += texts(part)
    for row in display.get("rows", ()):
        items = row.get("items", ()) if isinstance(row, dict) else row
        found += [c["text"] for c in items] + [c["label"] for c in items]
        if isinstance(row, dict):
            found.append(row.get("label", ""))
    for pile in display.get("piles", ()):
        found.append(pile["label"])
        found += [c["rank"] + c["suit"] for c in pile["cards"]]
    return found


@pytest.mark.parametrize("kind", GAMES)
def test_every_board_of_the_fixtures_is_drawable(kind):
    for instance, history, over in played(kind):
        shown = FAMILY.display(instance, history)
        if kind in TEXT_ONLY:
            assert shown is None
            continue
        assert shown is not None, f"{kind} after {len(history)} moves"
        check_display(shown)
        if over:
            check_display(FAMILY.display(instance, history, finished=True))


def test_the_text_only_games_are_the_ones_documented():
    docs = (Path(__file__).resolve().parents[3] / "docs" / "task-families.md").read_text()
    section = docs.split("**Boards drawn for people.**", 1)[1].split("\n\n", 1)[0]
    for kind in GAMES:
        assert (f"`{kind}`" in section) == (kind in TEXT_ONLY), kind


def _cells(display):
    if display["type"] == "stack":
        return [c for part in display["parts"] for c in _cells(part)]
    if display["type"] == "grid":
        return [c for row in display["rows"] for c in row]
    return [c for row in display.get("rows", ()) for c in row["items"]]


def _minesweeper(item, display):
    shown = display["rows"]
    for i, line in enumerate(item["mask"]):
        for j, value in enumerate(line):
            if value == "?":
                assert shown[i][j]["text"] == "" and shown[i][j]["tone"] == "hidden"


def _wordle(item, display):
    assert not any(item["secret_word"] in text for text in texts(display))


def _guessword(item, display):
    assert not any(word in text for word in item["current_valid_words"] for text in texts(display))


def _sudoku(item, display):
    for shown, value in zip(_cells(display), sum(item["current_board"], []), strict=True):
        assert shown["text"] == (str(value) if value else "")


def _numeral_bricks(item, display):
    for shown, letter in zip(_cells(display), sum(item["puzzle_board"], []), strict=True):
        assert (shown["text"] == "") == (letter == "0")


def _jiafa(item, display):
    assert len(display["rows"]) == len(item["grid"])
    assert not any("column sum" in text for text in texts(display))


def _npointplus(item, display):
    hands = display["parts"][0] if display["type"] == "stack" else display
    theirs = hands["piles"][1]["cards"]
    assert [card["face_down"] for card in theirs] == [k > 0 for k in range(len(theirs))]
    assert all(card["rank"] == "" for card in theirs[1:])


def _cryptoword(item, display):
    said = " ".join(entry["guess"] for entry in item["history"]) + item["hint"]
    for emoji, letter in item["answer"].items():
        if f"{emoji}={letter}" not in said:
            assert not any(f"{emoji}={letter}" in text for text in texts(display))


def _trustrovolution(item, display):
    assert not any(item["opponent_type"] in text for text in texts(display))


HIDDEN = {
    "minesweeper": _minesweeper,
    "wordle": _wordle,
    "guessword": _guessword,
    "sudoku": _sudoku,
    "numeral_bricks": _numeral_bricks,
    "jiafa": _jiafa,
    "npointplus": _npointplus,
    "cryptoword": _cryptoword,
    "trustrovolution": _trustrovolution,
}


@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_no_board_before_the_end_shows_what_is_hidden(kind):
    checked = 0
    for instance, history, over in played(kind):
        if over:
            continue
        _, item, _ = FAMILY._replay(instance, history)
        HIDDEN[kind](item, FAMILY.display(instance, history))
        checked += 1
    assert checked


def test_the_end_may_show_what_was_hidden():
    instance = generated("minesweeper", 0)
    mines = sum(row.count(-1) for row in instance.hidden["item"]["actual"])
    shown = FAMILY.display(instance, [], finished=True)
    assert sum(c["tone"] == "mine" for c in _cells(shown)) == mines
    assert not any(c["tone"] == "mine" for c in _cells(FAMILY.display(instance, [])))
    instance = generated("wordle", 0)
    word = instance.hidden["item"]["secret_word"]
    assert any(word in text for text in texts(FAMILY.display(instance, [], finished=True)))
    instance = generated("npointplus", 0)
    hands = FAMILY.display(instance, [], finished=True)
    assert not any(card["face_down"] for pile in hands["piles"] for card in pile["cards"])


def _module(kind):
    return importlib.import_module(f"engine.core.families.korgym.games.{kind}")


# What each game with keys takes as a move (its own list), so a key never plays a move
# the game would replace (2048), ignore or count as a crash.
LEGAL = {
    "2048": lambda move: move.strip().lower() in _module("2048").MOVES,
    "snake": lambda move: move.strip().upper() in _module("snake").STEPS,
    "npointplus": lambda move: move.strip().lower() in ("hit", "stand"),
    "trustrovolution": lambda move: move.strip().lower() in _module("trustrovolution").ACTIONS,
}


def test_the_games_with_keys_are_the_turn_by_turn_ones_with_one_word_moves():
    assert {kind for kind in GAMES if FAMILY.keys(kind)} == set(LEGAL)


@pytest.mark.parametrize("kind", sorted(LEGAL))
def test_keys_play_legal_moves(kind):
    instance = generated(kind, cases(kind)[0]["seed"])
    keys = FAMILY.keys(kind)
    assert keys
    for key, move in keys.items():
        assert LEGAL[kind](move), f"{key} plays {move!r}"
        shown = FAMILY.step(instance, [], move)
        assert shown["observation"]["view"] != instance.public["text"] or kind == "2048"
