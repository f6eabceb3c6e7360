"""Crossword clues written by the authoring LLM (the local fake server): asked in batches,
every clue checked (none gives its word away), fair ones stored, every request kept; a
crossword asked with clues=1 uses them; without an LLM the command says what to set and
crosswords keep their definitions."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from benchmark.fake_llm import FakeResponse
from engine import families
from engine.core.families.puzzles.crossword import enumeration
from engine.core.families.puzzles.words import clue_problem, fill_entries
from engine.models import LLMCall, WordClue

pytestmark = pytest.mark.django_db


def test_the_clue_check():
    assert clue_problem("GUITAR", "A stringed instrument played by strumming") == ""
    assert clue_problem("GUITAR", "Play the guitar") == "gives the word away"
    assert clue_problem("GUITAR", "Guitarist's tool") == "gives the word away"
    assert clue_problem("GUITAR", "G _ _ T A R") == "spells out letters"
    assert clue_problem("GUITAR", "Short").startswith("5 characters")
    assert (
        clue_problem("GUITAR", "<b>strings</b> instrument") == "holds markup or control characters"
    )
    assert clue_problem("GUITAR", None) == "not text"


def test_clues_are_asked_checked_and_stored(llm):
    asked: list[list[str]] = []

    def script(request):
        words = re.findall(r"^[A-Z]{3,12}$", request.messages[-1]["content"], re.M)
        asked.append(words)
        clues = {word: f"Fair clue for entry {len(asked)}-{i}" for i, word in enumerate(words)}
        clues[words[0]] = f"Contains {words[0].lower()} itself"  # refused
        clues.pop(words[1])  # missing: refused
        return FakeResponse(content="Here you are:\n" + json.dumps(clues))

    llm(script)
    out, err = StringIO(), StringIO()
    call_command("write_word_clues", "--count", "6", "--batch", "3", stdout=out, stderr=err)
    assert "6 word(s) asked, 2 clue(s) stored, 4 refused, 0 failed request(s)" in out.getvalue()
    assert "gives the word away" in err.getvalue() and "no clue in the reply" in err.getvalue()
    first_six = [word for word, *_ in fill_entries()[:6]]
    assert [w for batch in asked for w in batch] == first_six
    stored = list(WordClue.objects.order_by("word"))
    assert len(stored) == 2 and all(c.model == "fake-author" and c.call_id for c in stored)
    calls = LLMCall.objects.filter(kind=LLMCall.Kind.CLUES)
    assert calls.count() == 2 and any("gives the word away" in " ".join(c.problems) for c in calls)
    # Asked again: only words without a clue are asked about.
    call_command(
        "write_word_clues", "--count", "2", "--batch", "5", stdout=StringIO(), stderr=StringIO()
    )
    assert not set(asked[-1]) & {c.word for c in stored}


def test_a_crossword_with_clues_1_uses_the_written_clues():
    WordClue.objects.bulk_create(
        WordClue(word=word, clue=f"Written riddle number {index}", model="fake-author")
        for index, (word, *_) in enumerate(fill_entries())
    )
    task = families.do_generate_family_tasks(
        "puzzles", "crossword", count=1, level="medium", params={"clues": 1}
    ).tasks[0]
    assert task.params["clues"] == 1
    assert all(clue.startswith("Written riddle number") for clue in task.public["clues"].values())
    plain = families.do_generate_family_tasks("puzzles", "crossword", count=1, level="medium")
    definitions = {word: clue for word, clue, *_ in fill_entries()}
    for key, word in plain.tasks[0].hidden["solution"].items():
        assert plain.tasks[0].public["clues"][key] == f"{definitions[word]} ({enumeration(word)})"


def test_without_an_llm_the_command_says_what_to_set(no_llm):
    with pytest.raises(CommandError, match="no authoring LLM configured"):
        call_command("write_word_clues", "--count", "3", stdout=StringIO())
    assert not WordClue.objects.exists()
