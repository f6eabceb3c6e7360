"""LR²Bench's four figures (CR, S-Acc, EM, PM-0.5) on small examples computed by hand, and
the family's reply parsing."""

from __future__ import annotations

import pytest

from engine.core.families.base import get_family
from engine.core.families.puzzles.common import answer_body, lr2_metrics

FAMILY = get_family("puzzles")


@pytest.mark.parametrize(
    ("given", "figures"),
    [
        # 4 subtasks: all right
        (["a", "b", "c", "d"], (1.0, 1.0, 1, 1)),
        # two right, one wrong, one not answered: CR 3/4, S-Acc 2/4, PM at exactly one half
        (["a", "x", None, "d"], (0.75, 0.5, 0, 1)),
        # one right of four: below one half
        (["a", None, None, "z"], (0.5, 0.25, 0, 0)),
        # nothing answered
        ([None, None, None, None], (0.0, 0.0, 0, 0)),
        # everything answered, everything wrong
        (["w", "x", "y", "z"], (1.0, 0.0, 0, 0)),
    ],
)
def test_the_four_figures_by_hand(given, figures):
    metrics = lr2_metrics(["a", "b", "c", "d"], given)
    assert (metrics.cr, metrics.s_acc, metrics.em, metrics.pm05) == figures


def test_subtask_lists_must_match():
    with pytest.raises(ValueError):
        lr2_metrics(["a"], ["a", "b"])


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
