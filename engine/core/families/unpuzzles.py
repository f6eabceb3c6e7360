"""Unpuzzles: famous puzzles made trivial by a small change, to catch reasoning recalled
from memory instead of done ("Frontier LLMs still struggle with simple reasoning tasks").

The published set is human-written, so it is never generated nor shipped: ``read_unpuzzles``
reads a file a user points at (the release's ``unpuzzles.json`` or ``shifted_unpuzzles.json``)
into tasks of three *variants* (kinds): ``original`` (the famous puzzle), ``unpuzzle`` (the
trivialised one) and ``shifted`` (the unpuzzle retold in another setting, where the file has
it). A task is keyed by its file and its item (``{"file": "shifted_unpuzzles", "item": 3}``),
so the two files, whose items are numbered independently, never overwrite each other. An
item whose answer is blank is open-ended (it needs a judge, not an exact scorer) and is left
out, with the count reported.

Answers are read under one of two *readings*, each a level of every variant (so the board
never pools results scored by different rules):

* ``deepmind`` (the default): DeepMind's published answer extraction and scoring, exactly
  (``answer_extraction.extract_unpuzzle_eval`` then ``answer_scoring.score_unpuzzle_eval``,
  reimplemented here and checked against figures recorded by running DeepMind's code,
  ``tests/families/fixtures/deepmind_unpuzzle_scoring.json``). Its known flaw is kept: the
  patterns ``answer is:? (.+).`` and ``Answer: (.+).`` end with an unescaped ``.`` that
  matches any character, so a reply whose answer is not followed by a period loses its last
  character ("Answer: 42" reads "4"). The comparison is the whole string without case and
  surrounding spaces: "no." or "n" is not "no", "0.0" is not "0", "**Indigo**" is not
  "Indigo" (though "Answer: **Indigo**" is read as "Indigo" by the extraction).
* ``ours-corrected`` (ours, not DeepMind's): the same cues, in the same order, without the
  flaw (a final period is dropped, never another character), then our "Answer: …" line and
  a one-line reply; both the answer read and the reference lose Markdown emphasis, code
  marks, ``\\boxed{}`` and ``$…$`` and one final period before the same comparison.
  "**Indigo**" and "no." are right; "n", "y" and "0.0" stay wrong, as under DeepMind's rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.families.base import (
    ANSWER_LINE,
    Family,
    FamilyError,
    FamilyInstance,
    Kind,
    ParsedReply,
    Score,
    register,
)
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


READINGS = ("deepmind", "ours-corrected")
FILE_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,59}$")

# DeepMind's answer cues for unpuzzles, in its order (case-sensitive, first match of the
# first cue that has one; the placeholders "answer" and "your answer" are skipped). The
# fourth and sixth end with an unescaped "." (any character): the published flaw.
DEEPMIND_CUES = (
    re.compile(r"boxed\{(.+?)\}"),
    re.compile(r"Answer.*\*{2}(.+)\*{2}"),
    re.compile(r"\*{2}Answer:? (.+)\*{2}"),
    re.compile(r"answer is:? (.+)."),
    re.compile(r"\*{2}answer is:? (.+)\*{2}"),
    re.compile(r"Answer: (.+)."),
    re.compile(r"/$(.+?)/$"),
)
# Ours: the same cues without the flaw (a final period is dropped, nothing else), and the
# last cue as it was evidently meant (an answer between dollar signs).
CORRECTED_CUES = (
    *DEEPMIND_CUES[:3],
    re.compile(r"answer is:? (.+?)\.?[ \t]*$", re.M),
    DEEPMIND_CUES[4],
    re.compile(r"Answer: (.+?)\.?[ \t]*$", re.M),
    re.compile(r"\$(.+?)\$"),
)
PLACEHOLDERS = ("your answer", "answer")


def _first_cue(cues: tuple[re.Pattern, ...], reply: str) -> str:
    for cue in cues:
        for found in cue.findall(reply):
            if found not in PLACEHOLDERS:
                return found
    return ""


def deepmind_extract(reply: str) -> str:
    """DeepMind's extraction of an unpuzzle's answer: "" when no cue matches."""
    return _first_cue(DEEPMIND_CUES, reply)


def deepmind_correct(expected: str, answer: str) -> bool:
    """DeepMind's comparison: equal without case and surrounding spaces (spaces only)."""
    return expected.lower().strip(" ") == answer.lower().strip(" ")


MARKDOWN_WRAPPERS = (
    re.compile(r"^\\boxed\{(.*)\}$", re.S),
    re.compile(r"^\\text(?:bf)?\{(.*)\}$", re.S),
    re.compile(r"^\$+(.*?)\$+$", re.S),
    re.compile(r"^\*+(.*?)\*+$", re.S),
    re.compile(r"^_+(.*?)_+$", re.S),
    re.compile(r"^`+(.*?)`+$", re.S),
)


def plain_answer(text: str) -> str:
    """Ours: an answer without Markdown or LaTeX wrappers, one final period, case and
    extra spaces ("**Indigo.**" and " indigo " are "indigo")."""
    value = " ".join(str(text).split())
    changed = True
    while changed and value:
        changed = False
        for wrapper in MARKDOWN_WRAPPERS:
            match = wrapper.match(value)
            if match and match.group(1).strip() != value:
                value, changed = match.group(1).strip(), True
        if value.endswith(".") and not value.endswith(".."):
            value, changed = value[:-1].rstrip(), True
    return value.lower()


def corrected_extract(reply: str) -> str:
    """Ours: DeepMind's cues without the flaw, then the last "Answer: …" line, then a reply
    of one short line; "" when none gives an answer."""
    found = _first_cue(CORRECTED_CUES, reply)
    if found:
        return found
    lines = ANSWER_LINE.findall(reply)
    if lines:
        return lines[-1]
    stripped = reply.strip()
    return stripped if "\n" not in stripped and len(stripped) <= 200 else ""


@dataclass
class ReadReport:
    tasks: list[tuple[str, int, dict, dict]] = field(default_factory=list)
    items: int = 0
    open_ended: int = 0
    problems: list[str] = field(default_factory=list)


def check_file_key(key: str) -> str:
    if not isinstance(key, str) or not FILE_KEY.match(key):
        raise FamilyError(
            f"the file's key must be 1-60 lower-case letters, digits, - or _, got {key!r}"
        )
    return key


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
        report.items += 1
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
            if domain["type"] in ("choice", "yesno"):
                public["options"] = domain.get("options", ["yes", "no"])
            hidden = {
                # As published: DeepMind's rule compares with it as it is (no stripping
                # beyond spaces), so neither reading may normalise it at import.
                "answer": answer,
                "domain": domain,
                "name": item["puzzle_name"],
                "solution": str(item.get(solution_field) or ""),
                "source": str(item.get("source") or "").strip(),
            }
            report.tasks.append((variant, index, public, hidden))
    return report


def reading_of(instance: FamilyInstance) -> str:
    """The task's reading (tasks imported before readings existed read DeepMind's way)."""
    reading = instance.params.get("reading", "deepmind")
    return reading if reading in READINGS else "deepmind"


class Unpuzzles(Family):
    name = "unpuzzles"
    title = "Unpuzzles (imported: famous puzzles made trivial)"
    kinds = {
        variant: Kind(
            variant,
            title,
            "as the puzzle asks",
            (),
            {reading: {} for reading in READINGS},
        )
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

    def prompt(self, instance: FamilyInstance) -> str:
        # DeepMind's cue "Answer: (.+)." needs a character after the answer: the example
        # ends with a period so that a reply following it is read whole under its rule.
        answer_format = instance.public["answer_format"]
        return (
            f"{instance.public['text']}\n\n"
            f"End your reply with your final answer as a sentence: Answer: <{answer_format}>."
        )

    def reply_with(self, instance: FamilyInstance, answer: str) -> str:
        return f"Answer: {answer}."

    def parse_reply(self, instance: FamilyInstance, text: str) -> ParsedReply:
        if not isinstance(text, str) or not text.strip():
            return ParsedReply(None, "the reply is empty")
        if reading_of(instance) == "deepmind":
            found = deepmind_extract(text)
            error = "DeepMind's answer extraction finds no answer in the reply"
        else:
            found = corrected_extract(text)
            error = 'no answer cue ("Answer: …", "the answer is …", \\boxed{…}) in the reply'
        return ParsedReply(found) if found else ParsedReply(None, error)

    def score(self, instance: FamilyInstance, answer: str) -> Score:
        if not isinstance(answer, str) or not answer.strip():
            return Score(False, 0.0, {"error": "no answer"})
        expected, reading = instance.hidden["answer"], reading_of(instance)
        if reading == "deepmind":
            correct = deepmind_correct(expected, answer)
            read = answer
        else:
            read = plain_answer(answer)
            correct = read == plain_answer(expected)
        return Score(correct, float(correct), {"read": read, "reading": reading})


UNPUZZLES = register(Unpuzzles())
