"""Crossword clues written by the authoring LLM: asked for in batches, every clue checked,
the fair ones stored (``WordClue``), every request kept (``LLMCall``). Without an LLM the
crosswords keep their WordNet definitions (docs/task-families.md)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from engine import authoring
from engine.core import authoring as core
from engine.core.families.puzzles.words import clue_problem, fill_entries
from engine.models import LLMCall, WordClue

PROMPT = (
    "Write one crossword clue for each word below: a short, fair clue in plain English that "
    "a careful solver could answer, never containing the word itself or a form of it, and "
    "never spelling out its letters. Reply with only a JSON object from each word to its "
    "clue.\n\nWords:\n{words}"
)


@dataclass
class ClueReport:
    asked: int = 0
    stored: int = 0
    refused: list[str] = field(default_factory=list)  # "WORD: why"
    failed_calls: int = 0


def written_clues() -> dict[str, str]:
    return dict(WordClue.objects.values_list("word", "clue"))


def do_write_clues(count: int, *, batch: int = 25, client=None) -> ClueReport:
    """Ask the authoring LLM for clues of ``count`` words of the list that have none yet
    (in the list's order), ``batch`` words a request."""
    if count < 1 or batch < 1:
        raise authoring.AuthoringError("count and batch must be at least 1")
    client = client or authoring.authoring_client()
    have = set(WordClue.objects.values_list("word", flat=True))
    # Every word a crossword may use (the fill list, which holds the common words).
    todo = [word for word, *_ in fill_entries() if word not in have][:count]
    report = ClueReport()
    for start in range(0, len(todo), batch):
        words = todo[start : start + batch]
        report.asked += len(words)
        chat = authoring._Recorder(client, subject=f"clues for {words[0]}…{words[-1]}")
        messages = [{"role": "user", "content": PROMPT.format(words="\n".join(words))}]
        try:
            reply = chat(LLMCall.Kind.CLUES, messages)
        except core.ChatFailed:
            report.failed_calls += 1
            if chat.fatal:
                break
            continue
        clues = _read(reply.content)
        if clues is None:
            reply.problems.append("the reply is not a JSON object of clues")
            report.refused += [f"{word}: no clue in the reply" for word in words]
            chat.flush()
            continue
        for word in words:
            clue = clues.get(word) or clues.get(word.lower()) or clues.get(word.title())
            if clue is None:
                report.refused.append(f"{word}: no clue in the reply")
                continue
            why = clue_problem(word, clue)
            if why:
                report.refused.append(f"{word}: {why}")
                reply.problems.append(f"{word}: {why}")
                continue
            WordClue.objects.update_or_create(
                word=word,
                defaults={
                    "clue": " ".join(clue.split()),
                    "model": client.model,
                    "call_id": reply.ref,
                },
            )
            report.stored += 1
        chat.flush()
    return report


def _read(text: str) -> dict[str, str] | None:
    match = re.search(r"\{.*\}", text or "", re.S)
    if not match:
        return None
    try:
        found = json.loads(match.group(0))
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    return {str(k).strip(): v for k, v in found.items()}
