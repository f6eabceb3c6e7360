"""Cases for 48-map_position_simulation_text: the right position (as KORGym's simulation
gives it), the right one as a list, a wrong one, and text that is no Python literal."""

import importlib.util
from pathlib import Path

FOLDER = "48-map_position_simulation_text"
MULTI_TURN = False


def _simulate(item):
    # KORGym's own simulation, from the game's folder (the recorder has made it importable).
    spec = importlib.util.find_spec("game_lib")
    if spec is None:  # pragma: no cover - the recorder puts the folder on sys.path
        raise RuntimeError("run through record_korgym.py")
    import game_lib

    assert Path(game_lib.__file__).parent.name == FOLDER
    return game_lib.simulate(item["game_map"], item["task"])


def right(item, turn):
    if turn:
        return None
    row, col = _simulate(item)
    return f"({row}, {col})"


def as_list(item, turn):
    if turn:
        return None
    row, col = _simulate(item)
    return f"[{row},{col}]"


def wrong(item, turn):
    if turn:
        return None
    row, col = _simulate(item)
    return f"({row}, {col + 1})"


CASES = [
    {"seed": 0, "policy": right, "note": "the right position"},
    {"seed": 1, "policy": as_list, "note": "the right position as a list"},
    {"seed": 2, "policy": wrong, "note": "one column off"},
    {"seed": 3, "actions": ["row 4, column 5"], "note": "not a Python literal"},
    {"seed": 5, "actions": ["7"], "note": "a number, not a position"},
    {"seed": 29, "policy": right, "note": "a map KORGym gave up on, made again from seed 30"},
]
