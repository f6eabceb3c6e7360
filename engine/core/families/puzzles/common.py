"""What every constraint-puzzle kind shares: its own reading of answers, and the kind
contract.

Two views of an answer:

* **LR²Bench's figures** (CR, S-Acc, EM, PM-0.5; ``engine.core.families.lr2bench.scoring``)
  with LR²Bench's subtasks: a kind gives its solution in LR²Bench's gold form
  (``PuzzleKind.lr2_gold``) and the answer, read leniently, in LR²Bench's answer form
  (``PuzzleKind.lr2_prediction``, None when nothing can be read: the item's CR is then 0);
  LR²Bench's own counting then scores it.
* **Our own units** (``by_unit`` in a score's details: a Sudoku's or drop quote's rows, a
  logic grid's people, a crossword's or acrostic's words, a cryptogram's letters): each
  kind says what they are (``PuzzleKind.expected``) and reads an answer into the same list
  (``PuzzleKind.read``), ``None`` where the answer gives nothing it can read. These are not
  LR²Bench's units, and are never reported under its names.

The readers are lenient about form (spaces, case, quotes, JSON or plain lines) but never
guess, and name what they could not read.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.families.base import Kind


@dataclass(frozen=True)
class Metrics:
    """Our own per-unit view of one answer (rows, people, words…): how many units the
    answer gives in a readable form and how many it gets right."""

    subtasks: int
    answered: int
    right: int

    def as_dict(self, unit: str) -> dict[str, Any]:
        return {"unit": unit, "of": self.subtasks, "given": self.answered, "right": self.right}


def unit_metrics(expected: Sequence[Any], given: Sequence[Any | None]) -> Metrics:
    """Our own units for one answer: ``given[i]`` is the answer's unit ``i`` (``None``
    when it gives none); a unit is right when it equals ``expected[i]``."""
    if len(given) != len(expected):
        raise ValueError("given and expected must list the same subtasks")
    answered = sum(value is not None for value in given)
    right = sum(
        value is not None and value == want for value, want in zip(given, expected, strict=True)
    )
    return Metrics(len(expected), answered, right)


@dataclass
class Reading:
    """An answer read into subtasks, with what could not be read (for the parse report)."""

    subtasks: list[Any | None]
    problems: list[str] = field(default_factory=list)


class PuzzleKind(ABC):
    """One puzzle type. Deterministic: ``generate`` uses only the ``rng`` it is given."""

    kind: Kind
    subtask_name: str  # our own unit: "row", "word", "letter", … for reports
    subtask_plural: str = ""  # when not subtask_name + "s"
    lr2_type: str  # LR²Bench's name of the type ("sudoku", "drop", "logic", …)
    lr2_units: str  # LR²Bench's subtasks, for reports ("empty cells", "squares", …)

    @abstractmethod
    def generate(self, rng, params: Mapping[str, int]) -> tuple[dict, dict]:
        """(public, hidden): ``public`` holds ``text`` (the whole task for a reader) and
        what a form needs; ``hidden`` holds ``solution`` (the reference answer, structured)."""

    @abstractmethod
    def expected(self, hidden: Mapping[str, Any]) -> list[Any]:
        """The reference solution's subtasks, in order."""

    @abstractmethod
    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        """The answer (text, or the structured form the API takes) read into subtasks."""

    @abstractmethod
    def lr2_gold(self, public: Mapping[str, Any], hidden: Mapping[str, Any]) -> Any:
        """The solution as LR²Bench's ``answer.json`` writes a gold answer of the type."""

    @abstractmethod
    def lr2_prediction(self, public: Mapping[str, Any], answer: Any) -> Any | None:
        """The answer (read as leniently as ``read``) in LR²Bench's answer form, or None
        when nothing in it can be read."""

    @abstractmethod
    def render(self, hidden: Mapping[str, Any]) -> str:
        """The reference solution as an answer text (``read`` gives it back exactly)."""

    def random_answer(self, public: Mapping[str, Any], rng) -> str:
        """A random answer of the right shape (the runner's ``random`` baseline); kinds
        override it, the default answers nothing."""
        return "[]"

    def answer_display(
        self, public: Mapping[str, Any], hidden: Mapping[str, Any], answer: Any, *, marked: bool
    ) -> dict | None:
        """The answer drawn on the puzzle's grid (``puzzles.drawing``), or None (text)."""
        return None

    def solution_display(self, public: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict | None:
        """The solution drawn on the puzzle's grid, or None (text)."""
        return None

    def answer_help(self, public: Mapping[str, Any]) -> str:
        """How to write the answer, for the prompt."""
        return self.kind.answer_format


# -- reading helpers -------------------------------------------------------------------------

ANSWER_BLOCK = re.compile(r"<answer>(.*?)</answer>", re.I | re.S)


def answer_body(answer: Any) -> Any:
    """The part of a text answer that holds the solution: the last <Answer>…</Answer> block
    if there is one, else the whole text; a structured answer is returned as it is."""
    if not isinstance(answer, str):
        return answer
    blocks = ANSWER_BLOCK.findall(answer)
    return blocks[-1].strip() if blocks else answer.strip()


def maybe_json(text: Any) -> Any:
    """``text`` parsed as JSON when it is JSON (also Python-style single quotes), else as is."""
    if not isinstance(text, str):
        return text
    stripped = text.strip()
    if stripped[:1] not in "[{":
        return text
    for candidate in (stripped, stripped.replace("'", '"')):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return text


def letters_only(value: Any) -> str | None:
    """A word as capital letters (spaces, hyphens and quotes dropped), or None."""
    if not isinstance(value, str):
        return None
    word = re.sub(r"[\s\-'\"`.*_]", "", value).upper()
    return word if word.isalpha() and word.isascii() else None
