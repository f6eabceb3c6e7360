"""Every KORGym game against KORGym's own code: the boards, scores and ends its code gave
(recorded by record_korgym.py into fixtures/) for the same seeds and actions, replayed
through the korgym family exactly as the platform plays it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.families.base import get_family

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.json"))
# Item fields that carry the transcript rather than the game.
TRANSCRIPT = {"prompt", "response", "seed", "action"}


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_the_game_shows_and_scores_what_korgym_does(path):
    fixture = json.loads(path.read_text())
    family = get_family("korgym")
    game = family.games[path.stem]
    assert game.folder == fixture["folder"] and game.multi_turn == fixture["multi_turn"]
    assert len(fixture["cases"]) >= 3
    for case in fixture["cases"]:
        instance = family.generate(path.stem, case["seed"], level="korgym")
        where = f"{path.stem} seed {case['seed']} ({case['note']})"
        assert instance.public["text"] == case["board"], where
        item = instance.hidden["item"]
        for key, value in case["start"].items():
            if key not in TRANSCRIPT and key not in game.unseeded:
                assert item.get(key) == value, f"{where}: starting item's {key}"
        history: list[str] = []
        for turn, step in enumerate(case["steps"]):
            shown = family.step(instance, history, step["action"])
            history.append(step["action"])
            assert shown["observation"]["view"] == step["board"], f"{where}, turn {turn}"
            score = family.finish(instance, history)
            assert score.details["points"] == float(step["score"] or 0), f"{where}, turn {turn}"
            if game.multi_turn:
                assert shown["over"] == bool(step["is_end"]) or turn + 1 >= 100, where
        assert history or not case["steps"]
