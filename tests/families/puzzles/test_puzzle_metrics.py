"""Our own per-unit view (rows, people, words: ``by_unit``, never under LR²Bench's names) on
small examples computed by hand, and the family's reply parsing."""

from __future__ import annotations

import pytest

from engine.core.families.base import get_family
from engine.core.families.puzzles.common import answer_body, unit_metrics

FAMILY = get_family("puzzles")


@pytest.mark.parametrize(
    ("given", "counts"),
    [
        (["a", "b", "c", "d"], (4, 4)),  # all given, all right
        (["a", "x", None, "d"], (3, 2)),  # one wrong, one not given
        (["a", None, None, "z"], (2, 1)),
        ([None, None, None, None], (0, 0)),
        (["w", "x", "y", "z"], (4, 0)),
    ],
)
def test_our_own_units_by_hand(given, counts):
    metrics = unit_metrics(["a", "b", "c", "d"], given)
    assert (metrics.answered, metrics.right) == counts
    assert metrics.as_dict("row") == {
        "unit": "row",
        "of": 4,
        "given": counts[0],
        "right": counts[1],
    }


def test_subtask_lists_must_match():
    with pytest.raises(ValueError):
        unit_metrics(["a"], ["a", "b"])


def test_answer_blocks_and_replies():
    assert answer_body("thinking <Answer>1</Answer> more <answer> 2 </answer>") == "2"
    instance = FAMILY.generate("sudoku", 1, level="easy")
    assert FAMILY.parse_reply(instance, "no block here").error
    assert FAMILY.parse_reply(instance, "").error
    assert FAMILY.parse_reply(instance, "<Answer>  </Answer>").error
    reply = f"Let me think.\n<Answer>\n{FAMILY.reference_answer(instance)}\n</Answer>"
    parsed = FAMILY.parse_reply(instance, reply)
    assert FAMILY.score(instance, parsed.answer).correct
    prompt = FAMILY.prompt(instance)
    assert "<Answer>" in prompt and instance.public["text"] in prompt


def test_every_kind_has_levels_and_metrics_in_the_catalogue():
    assert {"sudoku", "logic_grid"} <= set(FAMILY.kinds)
    for kind in FAMILY.kinds.values():
        # Levels are named by size; easy, medium and hard stay found as aliases.
        assert all(name in kind.levels for name in ("easy", "medium", "hard"))
