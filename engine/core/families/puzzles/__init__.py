"""Constraint puzzles of LR²Bench's six types, generated afresh with unique solutions.

LR²Bench's release is 850 fixed puzzles with public answers (imported as the family
``lr2bench``); this family generates new ones from ``(size/difficulty, seed)``, each proven
to have exactly one solution by a SAT solver where the type has a solution to prove unique
(Sudoku, logic grids). Answers are read in our lenient formats and scored with LR²Bench's
four figures over LR²Bench's own subtasks (``PuzzleKind.lr2_gold`` / ``lr2_prediction``
counted by ``lr2bench.scoring.count``); our per-row/person/word view is kept beside them
under its own name, ``by_unit``. Each puzzle type is one module here; the family only
dispatches to them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core.families.base import (
    Family,
    FamilyInstance,
    ParsedReply,
    Score,
    register,
)
from engine.core.families.lr2bench import scoring as lr2
from engine.core.families.puzzles.common import (
    ANSWER_BLOCK,
    PuzzleKind,
    answer_body,
    unit_metrics,
)


def _kinds() -> dict[str, PuzzleKind]:
    found: dict[str, PuzzleKind] = {}
    for optional in ("sudoku", "logic_grid", "cryptogram", "dropquote", "crossword", "acrostic"):
        try:
            module = __import__(f"engine.core.families.puzzles.{optional}", fromlist=["KINDS"])
        except ModuleNotFoundError as error:
            if error.name != f"engine.core.families.puzzles.{optional}":
                raise
            continue
        for puzzle in module.KINDS:
            found[puzzle.kind.name] = puzzle
    return found


class ConstraintPuzzles(Family):
    name = "puzzles"
    title = "Constraint puzzles (LR²Bench's six types, generated)"
    structured_answers = True
    metrics = ("cr", "s_acc", "em", "pm05")

    def __init__(self) -> None:
        self.puzzles = _kinds()
        self.kinds = {name: puzzle.kind for name, puzzle in self.puzzles.items()}

    def answer_form(self, kind: str) -> str | None:
        from engine.core.families.puzzles.forms import FORMS

        return FORMS.get(kind)

    def read_form(self, kind, public, fields):
        from engine.core.families.puzzles.forms import read_form

        return read_form(self.answer_form(kind) or "", public, fields)

    def generation_context(self, kind, params, written_clues):
        """Crosswords asked with ``clues=1`` use the clues the authoring LLM wrote (checked
        and stored by the platform) instead of their words' definitions."""
        if kind != "crossword" or not (params or {}).get("clues"):
            return super().generation_context(kind, params, written_clues)
        from engine.core.families.puzzles.words import written_clues as use_clues

        return use_clues(written_clues())

    def _generate(self, kind: str, params: Mapping[str, int], seed: int):
        rng = random.Random(f"puzzles/{kind}/{sorted(params.items())}/{seed}")
        public, hidden = self.puzzles[kind].generate(rng, params)
        puzzle = self.puzzles[kind]
        public["subtasks"] = puzzle.lr2_units
        public["lr2_subtasks"] = lr2.count(puzzle.lr2_type, puzzle.lr2_gold(public, hidden), None)[
            1
        ]
        return public, hidden

    def reference_answer(self, instance: FamilyInstance) -> str:
        return self.puzzles[instance.kind].render(instance.hidden)

    def answer_display(self, instance: FamilyInstance, answer: str, *, marked: bool):
        puzzle = self.puzzles[instance.kind]
        return puzzle.answer_display(
            instance.public, instance.hidden, answer_body(answer), marked=marked
        )

    def solution_display(self, instance: FamilyInstance):
        return self.puzzles[instance.kind].solution_display(instance.public, instance.hidden)

    def score(self, instance: FamilyInstance, answer: Any) -> Score:
        """LR²Bench's figures over its subtasks (``correct`` is its EM, ``value`` its
        S-Acc for this item), with our own units under ``by_unit``."""
        puzzle = self.puzzles[instance.kind]
        public, hidden = instance.public, instance.hidden
        body = answer_body(answer)
        prediction = puzzle.lr2_prediction(public, body)
        right, subtasks = lr2.count(
            puzzle.lr2_type,
            puzzle.lr2_gold(public, hidden),
            lr2.NOTHING if prediction is None else prediction,
        )
        item = lr2.ItemScore(prediction is not None, right, subtasks)
        details = item.as_details()
        reading = puzzle.read(public, body)
        units = unit_metrics(puzzle.expected(hidden), reading.subtasks)
        details["by_unit"] = units.as_dict(puzzle.subtask_name)
        if reading.problems:
            details["unread"] = reading.problems[:50]
        return Score(item.em, item.s_acc, details)

    def prompt(self, instance: FamilyInstance) -> str:
        puzzle = self.puzzles[instance.kind]
        return (
            f"{instance.public['text']}\n\n"
            "Think it through, then give your final solution between <Answer> and </Answer>, "
            f"written as {puzzle.answer_help(instance.public)}."
        )

    def reply_with(self, instance: FamilyInstance, answer: str) -> str:
        return f"<Answer>\n{answer}\n</Answer>"

    def random_answer(self, instance: FamilyInstance, rng) -> str:
        return self.puzzles[instance.kind].random_answer(instance.public, rng)

    def parse_reply(self, instance: FamilyInstance, text: str) -> ParsedReply:
        """The last <Answer>…</Answer> block; a reply without one is a parse error (the
        reader then reports the subtasks it could not read inside a block)."""
        if not isinstance(text, str) or not text.strip():
            return ParsedReply(None, "the reply is empty")
        blocks = ANSWER_BLOCK.findall(text)
        if not blocks or not blocks[-1].strip():
            return ParsedReply(None, "no <Answer>…</Answer> block in the reply")
        return ParsedReply(blocks[-1].strip())


register(ConstraintPuzzles())
