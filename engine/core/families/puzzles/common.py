"""What every constraint-puzzle kind shares: the LR²Bench metrics and the kind contract.

LR²Bench (Chen et al., 2025) scores an answer by its *subtasks* (for a Sudoku its rows, for a
crossword its words, …) with four figures:

* **Completion Ratio (CR)**: the share of subtasks the answer gives (a value of the right
  shape, right or wrong);
* **Subtask Accuracy (S-Acc)**: the share of subtasks answered correctly;
* **Exact Match (EM)**: 1 when every subtask is right;
* **Partial Match (PM-0.5)**: 1 when at least half the subtasks are right (S-Acc ≥ 0.5).

Each kind says what its subtasks are (``PuzzleKind.expected``) and reads an answer into the
same list of subtasks (``PuzzleKind.read``), ``None`` where the answer gives nothing it can
read; the reader is lenient about form (spaces, case, quotes, JSON or plain lines) but never
guesses, and names what it could not read.
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
    subtasks: int
    answered: int
    right: int

    @property
    def cr(self) -> float:
        return self.answered / self.subtasks if self.subtasks else 0.0

    @property
    def s_acc(self) -> float:
        return self.right / self.subtasks if self.subtasks else 0.0

    @property
    def em(self) -> int:
        return int(self.subtasks > 0 and self.right == self.subtasks)

    @property
    def pm05(self) -> int:
        return int(self.subtasks > 0 and self.s_acc >= 0.5)

    def as_dict(self) -> dict[str, Any]:
        return {
            "subtasks": self.subtasks,
            "answered": self.answered,
            "right": self.right,
            "cr": self.cr,
            "s_acc": self.s_acc,
            "em": self.em,
            "pm05": self.pm05,
        }


def lr2_metrics(expected: Sequence[Any], given: Sequence[Any | None]) -> Metrics:
    """The four figures for one answer: ``given[i]`` is the answer's subtask ``i`` (``None``
    when it gives none); a subtask is right when it equals ``expected[i]``."""
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
    subtask_name: str  # "row", "word", "letter", … for reports
    subtask_plural: str = ""  # when not subtask_name + "s"

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
    def render(self, hidden: Mapping[str, Any]) -> str:
        """The reference solution as an answer text (``read`` gives it back exactly)."""

    def random_answer(self, public: Mapping[str, Any], rng) -> str:
        """A random answer of the right shape (the runner's ``random`` baseline); kinds
        override it, the default answers nothing."""
        return "[]"

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
