"""Parse results files of the task families: model replies to stored family tasks.

Plain Python (no Django), like ``leaderboard.scoring`` for KUMO's games: the text of a file
in, one ``UploadedReply`` per reply out, or ``ResultsError`` naming every bad line. Which
stored task a reply answers, and its score, are decided by ``leaderboard.family_uploads``
on the server; nothing the file says about correctness is read. Formats:
docs/results-format.md.

1. ``family`` (our JSONL): one reply a line, naming its task by id (``task``) or, for an
   imported task, by its item key (``kind``, ``level``, ``item``).
2. ``lr2bench``: LR²Bench's own files as its scripts write them (github.com/ZNLP/LR2Bench):
   ``response.jsonl`` from ``0-generate.py`` (one record a line with the item's ``tag`` and
   the model's raw ``response``; the type and level are in its directory's name, so the
   upload names them), ``answer.json`` from ``1-extract_answer.py`` (a list of
   ``{"level", "tag", "answer"}``; the type from the upload) and ``submission.json`` from
   ``2-merge_answer.py`` (``{"config", "results": {type: [{"level", "tag", "answer"}]}}``).
   The last two hold answers LR²Bench's extractor already took out of the replies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from leaderboard.scoring import (
    MAX_LINE_BYTES,
    ResultsError,
    _load_line,
    _non_negative_int,
    storable_text,
)

# A reply as long as a reasoning model's (LR²Bench allows 32,768 tokens) fits; the line cap
# of ``leaderboard.scoring`` bounds it anyway.
MAX_REPLY = MAX_LINE_BYTES
MAX_KEY = 200
# What LR²Bench's extractor writes when a reply has no answer block (1-extract_answer.py's
# default_answer_dict): read as a parse error, as LR²Bench's Completion Ratio counts it.
LR2BENCH_NO_ANSWER = ("", "{}", "[]", "[[]]")


@dataclass
class UploadedReply:
    """One reply of a results file, as the file gives it."""

    line: int
    run: int
    # The task: by id, or (imported tasks) by kind, level and item key.
    task: int | None = None
    kind: str = ""
    level: str = ""
    item: str | None = None
    # The raw reply, parsed by the family on the server; or, for a file of answers
    # already extracted (LR²Bench's answer.json, submission.json), the answer itself.
    reply: str = ""
    answer_only: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # What the line or record is called in messages ("line 3", "record 3").
    where: str = ""

    @property
    def names(self) -> str:
        """How the reply names its task, for messages."""
        if self.task is not None:
            return f"task {self.task}"
        return f"{self.kind}/{self.level or '-'} item {self.item!r}"

    @property
    def task_key(self) -> tuple:
        return ("id", self.task) if self.task is not None else (self.kind, self.level, self.item)


def _text(value: object, what: str, limit: int) -> str:
    """A string storable in any database (no NUL, no unpaired surrogate), bounded."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    return storable_text(value, what, limit)


def _key(value: object, what: str) -> str:
    """An item key as LR²Bench writes its tags (strings, some of digits) or Unpuzzles its
    indices (integers): compared as text."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"{what} must be a string or an integer")
    return _text(str(value), what, MAX_KEY).strip()


def parse_family_native(
    lines: Iterable[str],
    *,
    family: str,
    kind: str = "",
    level: str = "",
    same_model: Callable[[str], bool] = lambda name: True,
) -> list[UploadedReply]:
    """Parse our JSONL of family replies; every problem is reported with its line.

    A line: ``{"task": ID, "reply": "…", "run": 0, "model": "…", "tokens": {"prompt": n,
    "completion": n}}``, or for an imported task ``"kind"``, ``"level"``, ``"item"`` instead
    of ``"task"`` (kind and level default to the upload's). ``family`` and ``model``, when a
    line gives them, must be the upload's (``same_model`` compares names as the board does).
    """
    parsed: list[UploadedReply] = []
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = _load_line(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            parsed.append(_native_record(number, data, family, kind, level, same_model))
        except (ValueError, TypeError) as error:
            problems.append(f"line {number}: {error}")
    return _finish(parsed, problems)


def _native_record(
    number: int,
    data: Mapping,
    family: str,
    kind: str,
    level: str,
    same_model: Callable[[str], bool],
) -> UploadedReply:
    if "family" in data and data["family"] != family:
        raise ValueError(
            f"'family' is {data['family']!r}, but this upload is of family {family!r} "
            "(send one file per family)"
        )
    if "model" in data:
        model = _text(data["model"], "'model'", MAX_KEY)
        if not same_model(model):
            raise ValueError(
                f"'model' is {model!r}, not the upload's model (send one file per model)"
            )
    reply = UploadedReply(line=number, run=0, where=f"line {number}")
    if "task" in data:
        reply.task = _non_negative_int(data["task"], "'task'")
    elif "item" in data:
        reply.item = _key(data["item"], "'item'")
        reply.kind = _key(data.get("kind", kind), "'kind'")
        reply.level = _key(data.get("level", level), "'level'")
        if not reply.kind:
            raise ValueError("'item' needs a 'kind' (or the upload's kind)")
    else:
        raise ValueError(
            "missing 'task' (an id from /api/v1/family-tasks/) or, for an imported task, "
            "'item' (with 'kind' and 'level')"
        )
    if "reply" not in data:
        raise ValueError("missing 'reply' (the model's reply as it was written)")
    reply.reply = _text(data["reply"], "'reply'", MAX_REPLY)
    reply.run = _non_negative_int(data.get("run", 0), "'run'")
    tokens = data.get("tokens") or {}
    if not isinstance(tokens, Mapping):
        raise ValueError("'tokens' must be an object")
    reply.prompt_tokens = _non_negative_int(tokens.get("prompt", 0), "'tokens.prompt'")
    reply.completion_tokens = _non_negative_int(tokens.get("completion", 0), "'tokens.completion'")
    return reply


def parse_lr2bench(text: str, *, kind: str = "", level: str = "") -> list[UploadedReply]:
    """Parse one of LR²Bench's files (see the module's docstring), telling them apart by
    their shape: a JSON object with ``results`` (submission.json), a JSON list
    (answer.json), else JSON lines (response.jsonl). A record's item is its ``tag`` (or
    ``date``); the same item twice in one file (LR²Bench's seed runs, concatenated) are
    its runs 0, 1, … in the order given."""
    stripped = text.lstrip("\ufeff \t\r\n")
    whole = None
    if stripped[:1] in ("{", "["):
        try:
            whole = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError):
            whole = None  # JSON lines, or broken: read line by line for per-line errors
    if isinstance(whole, dict) and "results" in whole:
        return _lr2bench_submission(whole)
    if isinstance(whole, list):
        if not kind:
            raise ResultsError(
                ["an answer.json of LR²Bench names no puzzle type: give the upload's 'kind'"]
            )
        return _lr2bench_answers(whole, kind, level)
    if not kind or not level:
        raise ResultsError(
            [
                "a response.jsonl of LR²Bench names neither its puzzle type nor its level "
                "(they are its directory's names): give the upload's 'kind' and 'level'"
            ]
        )
    return _lr2bench_responses(text.split("\n"), kind, level)


def _lr2bench_responses(lines: list[str], kind: str, level: str) -> list[UploadedReply]:
    parsed: list[UploadedReply] = []
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = _load_line(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            item = _lr2bench_item(data)
            if "response" not in data:
                raise ValueError("missing 'response' (the model's reply)")
            parsed.append(
                UploadedReply(
                    line=number,
                    run=0,
                    kind=kind,
                    level=level,
                    item=item,
                    # A request that failed for good is written with an empty response
                    # (and an 'error'): a reply without an answer, as LR²Bench scores it.
                    reply=_text(data["response"], "'response'", MAX_REPLY),
                    prompt_tokens=_optional_count(data, "prompt_length"),
                    completion_tokens=_optional_count(data, "response_length"),
                    where=f"line {number}",
                )
            )
        except (ValueError, TypeError) as error:
            problems.append(f"line {number}: {error}")
    return _finish(_number_runs(parsed), problems)


def _lr2bench_answers(records: list, kind: str, level: str) -> list[UploadedReply]:
    parsed: list[UploadedReply] = []
    problems: list[str] = []
    for number, data in enumerate(records, start=1):
        try:
            parsed.append(_lr2bench_answer(number, data, kind, level))
        except (ValueError, TypeError) as error:
            problems.append(f"record {number}: {error}")
    return _finish(_number_runs(parsed), problems)


def _lr2bench_submission(whole: dict) -> list[UploadedReply]:
    results = whole["results"]
    if not isinstance(results, dict):
        return _finish([], ["'results' must be an object of puzzle types"])
    parsed: list[UploadedReply] = []
    problems: list[str] = []
    number = 0
    for kind, records in results.items():
        try:
            kind = _key(kind, "a puzzle type")
        except ValueError as error:
            problems.append(f"results: {error}")
            continue
        if not isinstance(records, list):
            problems.append(f"results.{kind}: expected a list of records")
            continue
        for data in records:
            number += 1
            try:
                parsed.append(_lr2bench_answer(number, data, kind, ""))
            except (ValueError, TypeError) as error:
                problems.append(f"record {number} ({kind}): {error}")
    return _finish(_number_runs(parsed), problems)


def _lr2bench_answer(number: int, data: object, kind: str, level: str) -> UploadedReply:
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    if "answer" not in data:
        raise ValueError("missing 'answer'")
    answer = data["answer"]
    if not isinstance(answer, str):
        # LR²Bench writes the extracted answer as text; a structure is taken as JSON.
        answer = json.dumps(answer)
    record_level = _key(data.get("level", level), "'level'")
    if not record_level:
        raise ValueError("missing 'level'")
    return UploadedReply(
        line=number,
        run=0,
        kind=kind,
        level=record_level,
        item=_lr2bench_item(data),
        reply=_text(answer, "'answer'", MAX_REPLY),
        answer_only=True,
        where=f"record {number}",
    )


def _lr2bench_item(data: Mapping) -> str:
    # 0-generate.py keys its records by "tag", or by "date" where there is no tag.
    for field in ("tag", "date"):
        if field in data:
            item = _key(data[field], f"'{field}'")
            if item:
                return item
    raise ValueError("missing 'tag' (the LR²Bench item)")


def _optional_count(data: Mapping, field: str) -> int:
    value = data.get(field)
    return 0 if value is None else _non_negative_int(value, f"'{field}'")


def _number_runs(parsed: list[UploadedReply]) -> list[UploadedReply]:
    """Number the repeats of an item in file order (LR²Bench writes each seed's samples
    to its own file; several may be sent concatenated)."""
    seen: dict[tuple, int] = {}
    for reply in parsed:
        reply.run = seen.get(reply.task_key, 0)
        seen[reply.task_key] = reply.run + 1
    return parsed


def _finish(parsed: list[UploadedReply], problems: list[str]) -> list[UploadedReply]:
    seen: dict[tuple, str] = {}
    for reply in parsed:
        key = (reply.task_key, reply.run)
        if key in seen:
            problems.append(
                f"{reply.where}: {reply.names} run {reply.run} already appears on {seen[key]}"
            )
        seen.setdefault(key, reply.where)
    if problems:
        raise ResultsError(sorted(problems, key=_place))
    if not parsed:
        raise ResultsError(["the file holds no replies"])
    return parsed


def _place(problem: str) -> int:
    """A problem's line or record number, to list the problems in file order."""
    found = re.match(r"(?:line|record) (\d+)", problem)
    return int(found.group(1)) if found else 0
