"""Unpuzzles: famous puzzles made trivial by a small change, to catch reasoning recalled
from memory instead of done ("Frontier LLMs still struggle with simple reasoning tasks").

The published set is human-written, so it is never generated nor shipped: ``read_unpuzzles``
reads the file a user points at (the release's ``unpuzzles.json`` or
``shifted_unpuzzles.json``) into tasks of three *variants* (kinds): ``original`` (the famous
puzzle), ``unpuzzle`` (the trivialised one) and ``shifted`` (the unpuzzle retold in another
setting, where the file has it). An item whose answer is blank is open-ended (it needs a
judge, not an exact scorer) and is left out, with the count reported.

Answers are scored exactly within the item's answer domain: a whole number, yes/no, one of
a listed set of options (in any case), or else the reference text itself, compared without
case, spacing and trailing punctuation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.families.base import Family, FamilyError, FamilyInstance, Kind, Score, register
from engine.core.families.simple import read_integer, read_truth

VARIANTS = ("original", "unpuzzle", "shifted")
FIELDS = {
    "original": ("original_puzzle", "original_answer", "original_domain", "original_solution"),
    "unpuzzle": ("unpuzzle", "unpuzzle_answer", "unpuzzle_domain", "unpuzzle_solution"),
    "shifted": ("shifted_unpuzzle", "shifted_unpuzzle_answer", "shifted_unpuzzle_domain", ""),
}


def _plain(text: str) -> str:
    return re.sub(r"[\s.!?\"'`*]+$", "", " ".join(str(text).split())).casefold()


def answer_domain(answer: str, domain: object) -> dict[str, Any]:
    """How answers to an item are read: ``{"type": "int"|"yesno"|"choice"|"text", …}``."""
    if isinstance(domain, str) and domain.strip().casefold() == "int":
        return {"type": "int"}
    options = (
        [part.strip() for part in domain.split(",") if part.strip()]
        if isinstance(domain, str)
        else [str(part) for part in domain]
        if isinstance(domain, list)
        else []
    )
    if {_plain(o) for o in options} == {"yes", "no"}:
        return {"type": "yesno"}
    if options:
        return {"type": "choice", "options": options}
    if read_integer(answer) is not None:
        return {"type": "int"}
    if read_truth(answer) is not None and _plain(answer) in ("yes", "no"):
        return {"type": "yesno"}
    return {"type": "text"}


def format_for(domain: Mapping[str, Any]) -> str:
    kind = domain["type"]
    if kind == "int":
        return "a whole number"
    if kind == "yesno":
        return "yes or no"
    if kind == "choice":
        return "one of: " + ", ".join(domain["options"])
    return "a short answer"


@dataclass
class ReadReport:
    tasks: list[tuple[str, int, dict, dict]] = field(default_factory=list)
    open_ended: int = 0
    problems: list[str] = field(default_factory=list)


def read_unpuzzles(text: str) -> ReadReport:
    """The tasks of a published unpuzzles file: (variant, item index, public, hidden) each.
    Raises ``FamilyError`` when the file is not such a list; skips what it cannot use."""
    try:
        items = json.loads(text)
    except ValueError as error:
        raise FamilyError(f"the file is not JSON: {error}") from None
    if not isinstance(items, list):
        raise FamilyError("the file must hold a JSON list of puzzles")
    report = ReadReport()
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("puzzle_name"), str):
            report.problems.append(f"item {index}: not a puzzle (no puzzle_name)")
            continue
        for variant in VARIANTS:
            text_field, answer_field, domain_field, solution_field = FIELDS[variant]
            question = item.get(text_field)
            if not isinstance(question, str) or not question.strip():
                continue
            answer = item.get(answer_field)
            if not isinstance(answer, str) or not answer.strip():
                report.open_ended += 1
                continue
            domain = answer_domain(answer, item.get(domain_field))
            public = {"text": question.strip(), "answer_format": format_for(domain)}
            if domain["type"] == "choice":
                public["options"] = domain["options"]
            hidden = {
                "answer": answer.strip(),
                "domain": domain,
                "name": item["puzzle_name"],
                "solution": str(item.get(solution_field) or ""),
                "source": str(item.get("source") or "").strip(),
            }
            report.tasks.append((variant, index, public, hidden))
    return report


class Unpuzzles(Family):
    name = "unpuzzles"
    title = "Unpuzzles (imported: famous puzzles made trivial)"
    kinds = {
        variant: Kind(variant, title, "as the puzzle asks", (), {})
        for variant, title in (
            ("original", "The famous puzzle"),
            ("unpuzzle", "The puzzle made trivial"),
            ("shifted", "The trivial puzzle retold in another setting"),
        )
    }
    imported = True

    def _generate(self, kind, params, seed):
        raise FamilyError(
            "unpuzzles are human-written: import them with import_unpuzzles, never generated"
        )

    def reference_answer(self, instance: FamilyInstance) -> str:
        return instance.hidden["answer"]

    def score(self, instance: FamilyInstance, answer: str) -> Score:
        if not isinstance(answer, str) or not answer.strip():
            return Score(False, 0.0, {"error": "no answer"})
        domain, expected = instance.hidden["domain"], instance.hidden["answer"]
        if domain["type"] == "int":
            read, want = read_integer(answer), read_integer(expected)
        elif domain["type"] == "yesno":
            read, want = read_truth(answer), read_truth(expected)
        else:
            read, want = _plain(answer), _plain(expected)
        if read is None:
            return Score(False, 0.0, {"error": f"not {instance.public['answer_format']}"})
        correct = read == want
        return Score(correct, float(correct), {"read": read})


UNPUZZLES = register(Unpuzzles())
