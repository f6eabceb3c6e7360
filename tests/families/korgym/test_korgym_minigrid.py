"""Minigrid's board drawn for people: the same cells the text shows (object types, the
agent where the text puts it, facing the way it says), and no more: no colours or door
states, and the cells numpy elides on a large board left out."""

from __future__ import annotations

import re

from engine.core.families.base import get_family
from engine.core.families.display import check_display

KORGYM = get_family("korgym")


def _text_cells(board: str) -> dict[tuple[int, int], int]:
    return {
        (int(x), int(y)): int(kind)
        for x, y, kind in re.findall(r"\[\s*(-?\d+),\s*(-?\d+),\s*(-?\d+)\]", board)
    }


def test_the_drawing_shows_the_cells_of_the_text_and_nothing_more():
    instance = KORGYM.generate("minigrid", 19, level="korgym")  # ObstructedMaze-1Dlhb, 11×6
    moves = ["turn_left", "turn_left", "pickup"]
    drawn = KORGYM.display(instance, moves)
    check_display(drawn)
    board = KORGYM.observations(instance, moves)[-1]["view"]
    cells = _text_cells(board)
    assert len(cells) == 66 and len(drawn["rows"]) == 6 and len(drawn["rows"][0]) == 11
    names = {-1: "empty", 2: "wall", 4: "door", 5: "key", 6: "ball", 7: "box"}
    for (x, y), kind in cells.items():
        label = drawn["rows"][y][x]["label"]
        if kind == 10:
            facing = re.search(r"Agent at \((\d+), (\d+)\), facing (\w+)", board)
            assert (x, y) == (int(facing[1]), int(facing[2]))
            assert label == f"you, facing {facing[3]}"
        else:
            assert label == names[kind], (x, y)
    # Colours and door states are not in the text, so not in the drawing either.
    texts = {c["text"] for row in drawn["rows"] for c in row}
    assert not texts & {"blue", "green", "grey", "locked", "open"}
    assert drawn["caption"] == "pick up the blue ball · 97 steps left"


def test_a_large_board_is_drawn_with_the_cells_numpy_elides_left_out():
    instance = KORGYM.generate("minigrid", 9, level="korgym")  # FourRooms, 19×19
    drawn = KORGYM.display(instance, [])
    check_display(drawn)
    shown = {
        (x, y)
        for y, row in enumerate(drawn["rows"])
        for x, cell in enumerate(row)
        if cell["tone"] != "hidden"
    }
    assert shown == set(_text_cells(instance.public["text"]))
    assert len(shown) == 36
