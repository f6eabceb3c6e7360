"""LR²Bench itself: its 850 published puzzles, imported, read and scored as it does.

The ``puzzles`` family generates new constraint puzzles of the same six types; this family
is the published benchmark (github.com/ZNLP/LR2Bench), imported from a checkout with
``manage.py import_lr2bench PATH`` (``release.read_release``): kinds are LR²Bench's types
(``crossword``, ``acrostic``, ``logic``, ``cryptogram``, ``sudoku``, ``drop``), levels its
folder names (``5_5``, ``easy``, ``4_4_hard``…), each task's ``params`` ``{"item": tag,
"level": level}`` (a drop quote's tags repeat across levels). Replies are read as LR²Bench
reads them (``scoring.extract``: the ``<Answer>`` block, a cryptogram's ``<Mapping>``
block) and each item is scored with LR²Bench's own subtasks (``scoring.score_item``); the
board pools them per level as LR²Bench's evaluation does.
"""

from __future__ import annotations

import json
from typing import Any

from engine.core.families.base import (
    Family,
    FamilyError,
    FamilyInstance,
    Kind,
    ParsedReply,
    Score,
    register,
)
from engine.core.families.display import cell
from engine.core.families.lr2bench import scoring
from engine.core.families.lr2bench.release import FORMATS
from engine.core.families.puzzles.drawing import answer_grid, solution_grid

TITLES = {
    "crossword": "Crossword (LR²Bench's published grids)",
    "acrostic": "Acrostic (LR²Bench's published puzzles)",
    "logic": "Logic puzzle (LR²Bench's published grids)",
    "cryptogram": "Cryptogram (LR²Bench's published quotes)",
    "sudoku": "Sudoku (LR²Bench's published grids)",
    "drop": "Drop quote (LR²Bench's published puzzles)",
}


class LR2Bench(Family):
    name = "lr2bench"
    title = "LR²Bench (imported: its published puzzles, scored as it scores them)"
    structured_answers = True
    metrics = ("cr", "s_acc", "em", "pm05")
    imported = True
    kinds = {
        task_type: Kind(
            task_type,
            TITLES[task_type],
            FORMATS[task_type],
            (),
            {level: {} for level in scoring.LEVELS[task_type]},
        )
        for task_type in scoring.TYPES
    }

    def _generate(self, kind, params, seed):
        raise FamilyError(
            "LR²Bench's puzzles are published, never generated: import them with "
            "import_lr2bench (the puzzles family generates new ones)"
        )

    def reference_answer(self, instance: FamilyInstance) -> str:
        gold = gold_answer(instance.hidden)
        if instance.kind == "sudoku":
            gold = gold["answer"]
        return json.dumps(gold, ensure_ascii=False)

    def prompt(self, instance: FamilyInstance) -> str:
        return instance.public["text"]

    def reply_with(self, instance: FamilyInstance, answer: str) -> str:
        tag = scoring.tag_name(instance.kind)
        return f"<{tag}>\n{answer}\n</{tag}>"

    def random_answer(self, instance: FamilyInstance, rng) -> str:
        return scoring.DEFAULT[instance.kind]

    def parse_reply(self, instance: FamilyInstance, text: str) -> ParsedReply:
        """LR²Bench's extracted answer. It scores every reply: one it cannot read is scored
        as the type's default answer (its subtasks count, none right), and is also
        reported here as a parse error."""
        kind = instance.kind
        if not isinstance(text, str) or not text.strip():
            return ParsedReply(scoring.DEFAULT[kind], "the reply is empty")
        extracted = scoring.extract(kind, text)
        if not scoring.answered(kind, extracted):
            tag = scoring.tag_name(kind)
            return ParsedReply(
                extracted,
                f"no answer in a <{tag}>…</{tag}> block (scored as LR²Bench's default {extracted})",
            )
        return ParsedReply(extracted)

    def _prediction(self, instance: FamilyInstance, answer: Any) -> Any:
        """The answer as LR²Bench reads it (``score``'s reading), a Python value or None."""
        kind = instance.kind
        if isinstance(answer, str):
            block = scoring.tagged(kind, answer)
            text = answer.strip() if block is None else block
            found = scoring.literal(scoring.from_block(kind, text))
            return None if found is scoring.NOTHING else found
        return answer

    def _grid(self, instance: FamilyInstance, prediction: Any):
        """(height, width, square) of a Sudoku's or a drop quote's grid, or None."""
        gold = gold_answer(instance.hidden)
        rows = prediction if isinstance(prediction, (list, tuple)) else ()

        def given(r: int, c: int) -> Any:
            row = rows[r] if r < len(rows) and isinstance(rows[r], (list, tuple, str)) else ()
            value = row[c] if c < len(row) else ""
            return "" if value in (0, "0", None, " ", "#") else value

        if instance.kind == "sudoku":
            puzzle, solution = gold["grid"], gold["answer"]

            def square(r: int, c: int):
                if puzzle[r][c]:
                    return "fixed", cell(puzzle[r][c], "given", f"given {puzzle[r][c]}"), None
                return "open", given(r, c), solution[r][c]

            return len(solution), len(solution[0]), square
        if instance.kind == "drop":

            def square(r: int, c: int):
                if c >= len(gold[r]) or gold[r][c] == "#":
                    return "fixed", cell("", "wall", "space between words"), None
                return "open", given(r, c), gold[r][c]

            return len(gold), max(len(row) for row in gold), square
        return None

    def answer_display(self, instance: FamilyInstance, answer: str, *, marked: bool):
        """A Sudoku's or a drop quote's answer on its grid, read as LR²Bench reads it."""
        found = self._grid(instance, self._prediction(instance, answer))
        if found is None:
            return None
        height, width, square = found
        return answer_grid(height, width, square, marked=marked, caption="Your grid")

    def solution_display(self, instance: FamilyInstance):
        found = self._grid(instance, None)
        if found is None:
            return None
        height, width, square = found
        return solution_grid(height, width, square, caption="The solution")

    def score(self, instance: FamilyInstance, answer: Any) -> Score:
        """``answer``: a reply (its tagged block is used), the inside of a block, or a
        structured answer (a JSON list or object) as the API takes it."""
        kind = instance.kind
        if isinstance(answer, (list, dict)):
            text = repr(answer)  # a Python literal of the same value
        elif isinstance(answer, str):
            block = scoring.tagged(kind, answer)
            text = answer.strip() if block is None else block
        else:
            text = ""
        extracted = scoring.from_block(kind, text)
        item = scoring.score_item(kind, gold_answer(instance.hidden), extracted)
        return Score(item.em, item.s_acc, item.as_details())


def gold_answer(hidden) -> Any:
    """The gold answer as LR²Bench's file wrote it (a logic grid's entries in their keys'
    order, which a stored JSON object may not keep)."""
    answer = hidden["gold"]
    orders = hidden.get("key_order")
    if orders:
        answer = [
            {key: person[key] for key in order if key in person}
            for person, order in zip(answer, orders, strict=False)
        ]
    return answer


LR2BENCH = register(LR2Bench())
