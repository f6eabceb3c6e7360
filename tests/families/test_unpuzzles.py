"""The Unpuzzles import: a file in the published shape (written here, never the published
text) becomes the fixed family "unpuzzles"; answers are scored within each item's domain;
models play it and the import command reports the original-vs-trivial comparison."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from engine.core.families.base import FamilyError, get_family
from engine.models import FamilyAttempt, FamilyTask

pytestmark = pytest.mark.django_db(transaction=True)

ITEMS = [
    {
        "puzzle_name": "Two Jars",
        "original_puzzle": "A hard riddle about two jars. How many pours are needed?",
        "original_solution": "Three pours.",
        "original_answer": "3",
        "original_domain": "int",
        "unpuzzle": "The same jars, but the big one is already full. How many pours?",
        "unpuzzle_solution": "None.",
        "unpuzzle_answer": "0",
        "unpuzzle_domain": "int",
        "shifted_unpuzzle": "Two buckets at a well, one already full. How many pours?",
        "shifted_unpuzzle_answer": "0",
        "shifted_unpuzzle_domain": "int",
        "source": "made up for this test",
    },
    {
        "puzzle_name": "Labelled Boxes",
        "original_puzzle": "Every label is wrong. Can one draw tell all the labels?",
        "original_answer": "Yes",
        "unpuzzle": "The labels may or may not be wrong. Can one draw tell all the labels?",
        "unpuzzle_answer": "No",
        "source": " ",
    },
    {
        "puzzle_name": "Hats",
        "original_puzzle": "Three hats, red blue white; which hat is left?",
        "original_answer": "Blue",
        "original_domain": "red, blue, white",
        "unpuzzle": "Everyone wears the hat of their name; which hat does Red wear?",
        "unpuzzle_answer": "Red",
        "unpuzzle_domain": ["red", "blue", "white"],
    },
    {
        "puzzle_name": "Open Question",
        "original_puzzle": "Why did the man say thank you?",
        "original_answer": " ",
        "unpuzzle": "Why did the man run?",
        "unpuzzle_answer": " ",
    },
    {"not": "a puzzle"},
]


@pytest.fixture
def unpuzzles_file(tmp_path):
    path = tmp_path / "unpuzzles.json"
    path.write_text(json.dumps(ITEMS), encoding="utf-8")
    return path


def command(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_unpuzzles", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_file_becomes_the_fixed_family_once(unpuzzles_file):
    out, err = command(str(unpuzzles_file))
    assert "7 new, 0 updated, 0 unchanged; 2 open-ended question(s) left out" in out
    assert "item 4: not a puzzle" in err and "No answers yet" in out
    assert sorted(FamilyTask.objects.values_list("kind", flat=True)) == (
        ["original"] * 3 + ["shifted"] + ["unpuzzle"] * 3
    )
    assert "0 new, 0 updated, 7 unchanged" in command(str(unpuzzles_file))[0]
    ITEMS[0]["unpuzzle_answer"] = "zero"  # a corrected file updates its task
    try:
        unpuzzles_file.write_text(json.dumps(ITEMS), encoding="utf-8")
        assert "0 new, 1 updated, 6 unchanged" in command(str(unpuzzles_file))[0]
    finally:
        ITEMS[0]["unpuzzle_answer"] = "0"
    with pytest.raises(FamilyError, match="never generated"):
        get_family("unpuzzles").generate("original", 1)


@pytest.mark.parametrize("bad", ["{}", "not json", "[1, 2]"])
def test_a_file_that_is_not_unpuzzles_is_refused_or_yields_nothing(tmp_path, bad):
    path = tmp_path / "bad.json"
    path.write_text(bad, encoding="utf-8")
    if bad == "[1, 2]":
        out, err = command(str(path))
        assert "0 new" in out and "item 0: not a puzzle" in err
    else:
        with pytest.raises(CommandError):
            command(str(path))
    with pytest.raises(CommandError, match="cannot read"):
        command(str(tmp_path / "missing.json"))


def test_answers_are_scored_within_each_items_domain(unpuzzles_file):
    command(str(unpuzzles_file))
    family = get_family("unpuzzles")

    def task(name, variant):
        return FamilyTask.objects.get(hidden__name=name, kind=variant).to_core()

    jars = task("Two Jars", "original")
    assert jars.public["answer_format"] == "a whole number"
    assert family.score(jars, "3.").correct and not family.score(jars, "4").correct
    boxes = task("Labelled Boxes", "unpuzzle")
    assert boxes.public["answer_format"] == "yes or no"
    assert family.score(boxes, "no").correct and family.score(boxes, "NO.").correct
    assert not family.score(boxes, "yes").correct
    hats = task("Hats", "unpuzzle")
    assert hats.public["options"] == ["red", "blue", "white"]
    assert family.score(hats, " RED ").correct and not family.score(hats, "blue").correct
    assert "answer" not in hats.public and "Red" not in json.dumps(hats.public["options"][1:])


def test_models_play_it_and_the_comparison_is_reported(unpuzzles_file):
    command(str(unpuzzles_file))
    for variant in ("original", "unpuzzle", "shifted"):
        call_command(
            "run_family_tasks",
            "--family",
            "unpuzzles",
            "--kind",
            variant,
            "--model",
            "reference",
            stdout=StringIO(),
        )
    # A model that answers the famous puzzles from memory: right on the originals, and the
    # originals' answers on the trivial versions too (wrong there).
    originals = {t.seed: t for t in FamilyTask.objects.filter(kind="original")}
    from django.contrib.auth.models import User

    runner = User.objects.get(username="runner")
    for task in FamilyTask.objects.filter(family="unpuzzles"):
        answer = originals[task.seed].hidden["answer"]
        correct = get_family("unpuzzles").score(task.to_core(), answer).correct
        FamilyAttempt.objects.create(
            player=runner,
            task=task,
            model_name="parrot",
            answer=answer,
            correct=correct,
            value=float(correct),
            finished_at=task.created_at,
        )
    out, _ = command("--report-only")
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert lines["reference"][1:4] == ["1.000", "1.000", "1.000"]
    assert lines["reference"][4:] == ["3", "0", "0", "3"]
    # parrot: 3 of 3 originals, 0 of 3 unpuzzles, 0 of 1 shifted; all 3 pairs original-only.
    assert lines["parrot"][1:4] == ["1.000", "0.000", "0.000"]
    assert lines["parrot"][4:] == ["3", "3", "0", "0"]


def test_playing_unpuzzles_before_the_import_says_to_import_them():
    with pytest.raises(CommandError, match="import them first"):
        call_command(
            "run_family_tasks",
            "--family",
            "unpuzzles",
            "--kind",
            "original",
            "--model",
            "reference",
        )
    with pytest.raises(CommandError, match="no kind 'nope'"):
        call_command(
            "run_family_tasks", "--family", "unpuzzles", "--kind", "nope", "--model", "reference"
        )
