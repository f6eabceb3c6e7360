"""Reading LR²Bench's published items from a checkout (its ``data/`` folder) into tasks.

LR²Bench's layout (github.com/ZNLP/LR2Bench): ``data/answer.json`` maps each type to its
gold answers (``{"tag", "level", "answer"}``, the answer a JSON text), and
``data/<n>-<type>/<level>/data.jsonl`` holds the items, one JSON object a line with its
``tag`` and ``example_text`` (the puzzle as the prompt shows it), beside ``prompt.json``
(the chat prompts; ``zero_shot``'s last message has an ``<example>`` slot for the puzzle).
Nothing of it is shipped: ``read_release`` reads the files a user points at.

A task's public view is the puzzle in LR²Bench's own words (the zero-shot prompt with the
puzzle in its slot, or the bare puzzle when the folder has no ``prompt.json``); fields that
give the solution away (a cryptogram's ``mapping``, a drop quote's ``answer``) stay hidden.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.families.base import FamilyError
from engine.core.families.lr2bench.scoring import LEVELS, TYPES, count

# Fields of an item that a player may see (the rest, answers included, stay hidden).
PUBLIC_FIELDS = ("example_text",)

# LR²Bench's subtasks of each type, for reports ("9 of 10 empty cells").
UNITS = {
    "crossword": "entries",
    "acrostic": "squares",
    "logic": "person attributes",
    "cryptogram": "cipher letters",
    "sudoku": "empty cells",
    "drop": "letter cells",
}

# How to write the answer, in our words, when a folder has no prompt.json to say it.
FORMATS = {
    "crossword": 'every entry\'s word as a JSON object, like {"1-Across": "WORD", '
    '"1-Down": "WORD"}, between <Answer> and </Answer>',
    "acrostic": "the letter of every numbered square as a Python dictionary, like "
    "{'1': 'A', '2': 'B'}, between <Answer> and </Answer>",
    "logic": "a JSON list with one object per person, every category as a key, between "
    "<Answer> and </Answer>",
    "cryptogram": "a Python dictionary from every cipher letter to its plain letter between "
    "<Mapping> and </Mapping> (and the decoded quote between <Answer> and </Answer>)",
    "sudoku": "the completed grid in the same JSON format as the puzzle, between <Answer> "
    "and </Answer>",
    "drop": "the completed grid in the same JSON format as the puzzle, between <Answer> and "
    "</Answer>",
}


@dataclass(frozen=True)
class Item:
    """One published item: its type, level, LR²Bench's tag, public view and hidden part."""

    task_type: str
    level: str
    tag: str
    public: dict[str, Any]
    hidden: dict[str, Any]


@dataclass
class Release:
    items: list[Item] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def data_folder(path: str | Path) -> Path:
    """``path`` itself when it holds ``answer.json``, else its ``data/`` folder."""
    root = Path(path)
    if (root / "answer.json").is_file():
        return root
    if (root / "data" / "answer.json").is_file():
        return root / "data"
    raise FamilyError(
        f"{path} is neither an LR²Bench checkout nor its data folder (no answer.json found)"
    )


def _type_folder(data: Path, task_type: str) -> Path | None:
    found = sorted(p for p in data.glob(f"*-{task_type}") if p.is_dir())
    return found[0] if found else None


def _prompt(folder: Path, example: str, task_type: str) -> tuple[str, str]:
    """(system, user) texts of the item's zero-shot prompt, or the bare puzzle with our
    one-line format note when the folder has no usable ``prompt.json``."""
    try:
        prompts = json.loads((folder / "prompt.json").read_text(encoding="utf-8"))
        messages = prompts["zero_shot"]
        system = next((m["content"] for m in messages if m.get("role") == "system"), "")
        user = messages[-1]["content"]
        if isinstance(user, str) and "<example>" in user:
            return str(system), user.replace("<example>", example)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        pass
    return "", f"{example}\n\nGive your final answer as {FORMATS[task_type]}."


def read_release(path: str | Path) -> Release:
    """Every item of the six types at every level of an LR²Bench checkout, with its gold
    answer; what cannot be used is named in ``problems`` and left out."""
    data = data_folder(path)
    try:
        answers = json.loads((data / "answer.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise FamilyError(f"cannot read {data / 'answer.json'}: {error}") from None
    if not isinstance(answers, dict):
        raise FamilyError("answer.json must map each type to its list of answers")
    release = Release()
    for task_type in TYPES:
        golds: dict[tuple[str, str], Any] = {}
        for entry in answers.get(task_type) or []:
            try:
                golds[(str(entry["level"]), str(entry["tag"]))] = json.loads(entry["answer"])
            except (KeyError, TypeError, ValueError):
                release.problems.append(f"{task_type}: an answer.json entry is unreadable")
        folder = _type_folder(data, task_type)
        if folder is None:
            release.problems.append(f"{task_type}: no folder data/<n>-{task_type}")
            continue
        for level in LEVELS[task_type]:
            items_file = folder / level / "data.jsonl"
            if not items_file.is_file():
                release.problems.append(f"{task_type}/{level}: no data.jsonl")
                continue
            lines = items_file.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                where = f"{task_type}/{level} line {number}"
                item = _item(task_type, level, folder / level, line, golds, where)
                if isinstance(item, str):
                    release.problems.append(f"{where}: {item}")
                else:
                    release.items.append(item)
    return release


def _item(task_type, level, folder: Path, line: str, golds, where: str) -> Item | str:
    """The item of one line of data.jsonl, or what is wrong with it."""
    try:
        raw = json.loads(line)
    except ValueError:
        return "not JSON"
    if (
        not isinstance(raw, dict)
        or "tag" not in raw
        or not isinstance(raw.get("example_text"), str)
    ):
        return "no tag or example_text"
    tag = str(raw["tag"])
    gold = golds.get((level, tag))
    if gold is None:
        return f"item {tag} has no answer in answer.json"
    try:
        _, subtasks = count(task_type, gold, None)
    except (KeyError, TypeError, AttributeError, IndexError, StopIteration):
        subtasks = 0
    if subtasks == 0:
        return f"item {tag}: its answer has no subtask LR²Bench could score"
    system, text = _prompt(folder, raw["example_text"], task_type)
    public = {
        "kind": task_type,
        "level": level,
        "item": tag,
        "text": text,
        "system": system,
        "answer_format": FORMATS[task_type],
        "lr2_subtasks": subtasks,
        "subtasks": UNITS[task_type],
    }
    source = {key: value for key, value in raw.items() if key not in ("tag", *PUBLIC_FIELDS)}
    hidden = {"gold": gold, "source": source}
    if task_type == "logic":
        # LR²Bench finds a person by the first (category, value) of the gold's entry; a
        # stored JSON object may not keep its keys' order (PostgreSQL's jsonb sorts them).
        hidden["key_order"] = [list(person) for person in gold]
    return Item(task_type, level, tag, public, hidden)
