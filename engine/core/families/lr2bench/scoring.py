"""LR²Bench's answer extraction and metrics, as its evaluation code defines them.

Written from the definitions in LR²Bench's ``1-extract_answer.py`` and ``2-merge_answer.py``
(github.com/ZNLP/LR2Bench), checked against that code run on the same replies by
``benchmarks/lr2bench_fidelity.py``; no line of it is copied. Plain Python, no Django.

**Extraction** (per reply): the last ``<Answer>…</Answer>`` block (a cryptogram's last
``<Mapping>…</Mapping>`` block; tags in any case), then inside it the last match of the
type's pattern (a ``{…}`` for crossword, acrostic and cryptogram, a ``[…]`` for logic, a
``[[…]]`` for Sudoku and drop quote; each non-greedy, as LR²Bench's). When either step finds
nothing the answer is the type's *default* (``{}``, ``[]`` or ``[[]]``).

**One item** (``score_item``): the extracted text is read as a Python literal (LR²Bench
calls ``eval``; here ``ast.literal_eval``, so text that is not a literal, which ``eval``
would run, reads as nothing) and compared with the gold answer:

* crossword, acrostic, cryptogram: a subtask per key of the gold mapping (a crossword's
  entries, an acrostic's numbered squares, a cryptogram's cipher letters); keys compared
  lower-cased, values lower-cased with spaces removed, exactly (``A`` and ``A-`` differ);
* logic: a subtask per person and attribute other than the gold's first category; the
  answer's person is the first entry holding the gold person's first (category, value)
  pair, values compared lower-cased;
* Sudoku: a subtask per empty cell of the puzzle, right when the answer's cell at the same
  place equals the solution's;
* drop quote: a subtask per cell of the solution that is not ``#`` (letters and the
  punctuation shown in the grid), right when the answer's cell equals it.

Per item: EM when every subtask is right, PM-0.5 when at least half are.

**Pooled per level** (``pool``): CR is the share of items whose extracted answer is not the
default; S-Acc is the subtasks right over the subtasks of all the items (pooled, not a mean
of shares); EM and PM-0.5 are shares of items.

Where LR²Bench's code would raise (a Sudoku row that is a number, say) the item here reads
as nothing right; its code stops there instead.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

TYPES = ("crossword", "acrostic", "logic", "cryptogram", "sudoku", "drop")

# LR²Bench's levels per type, in its order (its folder names).
LEVELS: dict[str, tuple[str, ...]] = {
    "crossword": ("5_5", "10_10", "15_15"),
    "acrostic": ("easy", "hard"),
    "logic": ("4_4", "4_5", "4_6", "4_7"),
    "cryptogram": ("easy", "hard"),
    "sudoku": ("4_4_easy", "4_4_hard", "9_9_easy", "9_9_hard"),
    "drop": ("easy", "hard"),
}

DEFAULT = {
    "crossword": "{}",
    "acrostic": "{}",
    "logic": "[]",
    "cryptogram": "{}",
    "sudoku": "[[]]",
    "drop": "[[]]",
}

_DICT = re.compile(r"\{.*?\}", re.I | re.S)
_LIST = re.compile(r"\[.*?\]", re.I | re.S)
_GRID = re.compile(r"\[\s*\[.*?\]\s*\]", re.I | re.S)
PATTERN = {
    "crossword": _DICT,
    "acrostic": _DICT,
    "logic": _LIST,
    "cryptogram": _DICT,
    "sudoku": _GRID,
    "drop": _GRID,
}
ANSWER_TAG = re.compile(r"<Answer>(.*?)</Answer>", re.I | re.S)
MAPPING_TAG = re.compile(r"<Mapping>(.*?)</Mapping>", re.I | re.S)


def tag_name(task_type: str) -> str:
    """The tag a reply wraps its final answer in, as the type's prompt asks."""
    return "Mapping" if task_type == "cryptogram" else "Answer"


def tagged(task_type: str, text: str) -> str | None:
    """The last tagged block of ``text`` (stripped), or None when it has none."""
    found = (MAPPING_TAG if task_type == "cryptogram" else ANSWER_TAG).findall(text)
    return found[-1].strip() if found else None


def extract(task_type: str, reply: str) -> str:
    """LR²Bench's extracted answer of a whole reply (its default when nothing is found)."""
    block = tagged(task_type, reply)
    return DEFAULT[task_type] if block is None else from_block(task_type, block)


def from_block(task_type: str, block: str) -> str:
    """The type's pattern applied to a tagged block's inside: its last match, else the
    default."""
    found = PATTERN[task_type].findall(block)
    return found[-1].strip() if found else DEFAULT[task_type]


def answered(task_type: str, extracted: str) -> bool:
    """Whether an extracted answer counts toward LR²Bench's Completion Ratio."""
    return extracted != DEFAULT[task_type]


@dataclass(frozen=True)
class ItemScore:
    """One item's figures: whether an answer was extracted, subtasks right of all."""

    answered: bool
    right: int
    subtasks: int

    @property
    def s_acc(self) -> float:
        return self.right / self.subtasks if self.subtasks else 0.0

    @property
    def em(self) -> bool:
        return bool(self.subtasks) and self.right == self.subtasks

    @property
    def pm05(self) -> bool:
        return bool(self.subtasks) and self.right / self.subtasks >= 0.5

    def as_details(self) -> dict[str, Any]:
        """The figures an attempt stores (``details``), under LR²Bench's names."""
        return {
            "cr": int(self.answered),
            "s_acc": self.s_acc,
            "em": int(self.em),
            "pm05": int(self.pm05),
            "subtasks": self.subtasks,
            "right": self.right,
        }


_NOTHING = object()
NOTHING = _NOTHING  # an answer with nothing readable in it (for ``count``)


def literal(text: str) -> Any:
    """The Python value a text writes, or ``_NOTHING`` when it is not a literal."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING


def score_item(task_type: str, gold: Any, extracted: str) -> ItemScore:
    """One item scored as LR²Bench scores it; ``extracted`` is what ``extract`` gave."""
    prediction = literal(extracted)
    right, subtasks = count(task_type, gold, prediction)
    return ItemScore(answered(task_type, extracted), right, subtasks)


def count(task_type: str, gold: Any, prediction: Any) -> tuple[int, int]:
    """(subtasks right, subtasks) of a prediction already read into Python values
    (``_NOTHING``, or anything of the wrong shape, gets nothing right)."""
    if task_type in ("crossword", "acrostic", "cryptogram"):
        return _count_mapping(gold, prediction)
    if task_type == "logic":
        return _count_logic(gold, prediction)
    if task_type == "sudoku":
        return _count_sudoku(gold["grid"], gold["answer"], prediction)
    if task_type == "drop":
        return _count_drop(gold, prediction)
    raise ValueError(f"not an LR²Bench type: {task_type!r}")


def _mapping_key(value: Any) -> str:
    return str(value).lower()


def _mapping_value(value: Any) -> str:
    return str(value).replace(" ", "").lower()


def _count_mapping(gold: Mapping[str, Any], prediction: Any) -> tuple[int, int]:
    normal_gold = {_mapping_key(k): _mapping_value(v) for k, v in gold.items()}
    subtasks = len(normal_gold)
    if prediction is _NOTHING or not subtasks:
        return 0, subtasks
    if not prediction:  # an empty value of any kind reads as an empty mapping
        return 0, subtasks
    if not isinstance(prediction, Mapping):
        return 0, subtasks
    given = {_mapping_key(k): _mapping_value(v) for k, v in prediction.items()}
    right = sum(given.get(key, _NOTHING) == value for key, value in normal_gold.items())
    return right, subtasks


def _lower_people(people: Any) -> list[dict[str, str]] | None:
    if not isinstance(people, (list, tuple)):
        return None
    rows = []
    for person in people:
        if not isinstance(person, Mapping):
            return None
        rows.append({str(k).lower(): str(v).lower() for k, v in person.items()})
    return rows


def _count_logic(gold: list[Mapping[str, Any]], prediction: Any) -> tuple[int, int]:
    people = _lower_people(gold) or []
    given = _lower_people(prediction) if prediction is not _NOTHING else None
    given = given or []
    right = subtasks = 0
    for person in people:
        first = next(iter(person.items()))
        match = next((row for row in given if row.get(first[0], _NOTHING) == first[1]), {})
        for key, value in person.items():
            if key == first[0]:
                continue
            subtasks += 1
            right += match.get(key, "") == value
    return right, subtasks


def _cells(row: Any) -> Any:
    """A row's cells as LR²Bench indexes them (a list, tuple or string), else nothing."""
    return row if isinstance(row, (list, tuple, str)) else ()


def _count_sudoku(grid: list[list[int]], solution: list[list[int]], prediction: Any):
    subtasks = sum(row.count(0) for row in grid)
    rows = prediction if isinstance(prediction, (list, tuple)) else ()
    right = 0
    for i in range(min(len(solution), len(rows))):
        cells = _cells(rows[i])
        for j in range(min(len(solution[i]), len(cells))):
            if grid[i][j] == 0 and solution[i][j] == cells[j]:
                right += 1
    return min(right, subtasks), subtasks


def _count_drop(solution: list[list[str]], prediction: Any) -> tuple[int, int]:
    subtasks = sum(cell != "#" for row in solution for cell in row)
    rows = prediction if isinstance(prediction, (list, tuple)) else ()
    right = 0
    for i in range(min(len(solution), len(rows))):
        cells = _cells(rows[i])
        for j in range(min(len(solution[i]), len(cells))):
            if solution[i][j] != "#" and solution[i][j] == cells[j]:
                right += 1
    return min(right, subtasks), subtasks


# -- pooling per level ------------------------------------------------------------------------


@dataclass(frozen=True)
class Pooled:
    """LR²Bench's four figures of one level (or any set of items), pooled as its code does."""

    items: int
    answered: int
    right: int
    subtasks: int
    exact: int
    half: int

    @property
    def cr(self) -> float:
        return self.answered / self.items if self.items else 0.0

    @property
    def s_acc(self) -> float:
        return self.right / self.subtasks if self.subtasks else 0.0

    @property
    def em(self) -> float:
        return self.exact / self.items if self.items else 0.0

    @property
    def pm05(self) -> float:
        return self.half / self.items if self.items else 0.0

    def figures(self) -> dict[str, float]:
        return {"CR": self.cr, "S-Acc": self.s_acc, "EM": self.em, "PM-0.5": self.pm05}


def pool(items: Iterable[ItemScore]) -> Pooled:
    answered = right = subtasks = exact = half = n = 0
    for item in items:
        n += 1
        answered += item.answered
        right += item.right
        subtasks += item.subtasks
        exact += item.em
        half += item.pm05
    return Pooled(n, answered, right, subtasks, exact, half)


def ratio_interval(
    pairs: list[tuple[float, float]], z: float = 1.959964
) -> tuple[float, float, float]:
    """A pooled share Σright / Σsubtasks over items ``(right, subtasks)`` with its normal
    95 % interval for a ratio of sums (items are the sampled units, their subtasks are not
    independent), clipped to [0, 1]."""
    total = sum(n for _, n in pairs)
    if not total:
        return 0.0, 0.0, 0.0
    share = sum(r for r, _ in pairs) / total
    k = len(pairs)
    if k < 2:
        return share, share, share
    mean_n = total / k
    spread = sum((r - share * n) ** 2 for r, n in pairs) / (k - 1)
    half = z * math.sqrt(spread / k) / mean_n
    return share, max(0.0, share - half), min(1.0, share + half)
