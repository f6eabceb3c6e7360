"""The Unpuzzles import: files in the published shape (written here, never the published
text) become the fixed family "unpuzzles", keyed by file and item; answers are read by
DeepMind's extraction and scoring (checked against figures recorded by running its code) or
by our corrected reading; models play it and the import command reports the
original-vs-trivial comparison per file."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

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
    assert (
        "unpuzzles: 4 items (3 original, 1 shifted, 3 unpuzzle); 7 new, 0 updated, "
        "0 unchanged (deepmind); 2 open-ended question(s) left out"
    ) in out
    assert "unpuzzles: item 4: not a puzzle" in err and "No answers yet" in out
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


def test_answers_are_scored_by_each_reading(unpuzzles_file):
    command(str(unpuzzles_file), "--reading", "both")
    family = get_family("unpuzzles")

    def task(name, variant, reading):
        return FamilyTask.objects.get(
            hidden__name=name, kind=variant, level=reading, params__reading=reading
        ).to_core()

    jars = task("Two Jars", "original", "deepmind")
    assert jars.public["answer_format"] == "a whole number"
    assert family.score(jars, "3").correct and not family.score(jars, "4").correct
    # DeepMind's rule compares the whole string: none of these is "3" (nor "no").
    assert not any(family.score(jars, a).correct for a in ("3.", "3.0", "**3**"))
    boxes = task("Labelled Boxes", "unpuzzle", "deepmind")
    assert boxes.public["answer_format"] == "yes or no" and boxes.public["options"] == [
        "yes",
        "no",
    ]
    assert family.score(boxes, "No").correct and family.score(boxes, " no ").correct
    assert not any(family.score(boxes, a).correct for a in ("no.", "n", "NO.", "yes"))
    ours = task("Labelled Boxes", "unpuzzle", "ours-corrected")
    assert family.score(ours, "no.").correct and family.score(ours, "**No**").correct
    assert not any(family.score(ours, a).correct for a in ("n", "y", "yes"))
    assert not family.score(task("Two Jars", "original", "ours-corrected"), "3.0").correct
    hats = task("Hats", "unpuzzle", "deepmind")
    assert hats.public["options"] == ["red", "blue", "white"]
    assert family.score(hats, " RED ").correct and not family.score(hats, "blue").correct
    assert not family.score(hats, "**Red**").correct
    assert family.score(task("Hats", "unpuzzle", "ours-corrected"), "**Red**").correct
    assert "answer" not in hats.public and "Red" not in json.dumps(hats.public["options"][1:])


def test_models_play_it_and_the_comparison_is_reported(unpuzzles_file):
    command(str(unpuzzles_file))
    for variant in ("original", "unpuzzle", "shifted"):
        call_command(  # the default level: the deepmind reading
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
    assert all(t.level == "deepmind" for t in originals.values())
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
    assert lines["reference"][1:3] == ["unpuzzles", "deepmind"]
    assert lines["reference"][3:6] == ["1.000", "1.000", "1.000"]
    assert lines["reference"][6:] == ["3", "0", "0", "3"]
    # parrot: 3 of 3 originals, 0 of 3 unpuzzles, 0 of 1 shifted; all 3 pairs original-only.
    assert lines["parrot"][3:6] == ["1.000", "0.000", "0.000"]
    assert lines["parrot"][6:] == ["3", "3", "0", "0"]


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


# -- two files side by side ---------------------------------------------------------------

SHIFTED = [
    {
        "puzzle_name": "Bridge at Night",
        "original_puzzle": "Four people, one torch, a bridge. Least minutes to cross?",
        "original_answer": "17",
        "original_domain": "int",
        "unpuzzle": "Four people, the bridge is wide and lit. Least minutes to cross?",
        "unpuzzle_answer": "10",
        "unpuzzle_domain": "int",
        "shifted_unpuzzle": "Four hikers, a wide lit tunnel. Least minutes to pass?",
        "shifted_unpuzzle_answer": "10",
        "shifted_unpuzzle_domain": "int",
    },
    {
        "puzzle_name": "Two Jars",
        "original_puzzle": "A hard riddle about two jars (retold). How many pours?",
        "original_answer": "3",
        "original_domain": "int",
        "unpuzzle": "The big jar is already full (retold). How many pours?",
        "unpuzzle_answer": "0",
        "unpuzzle_domain": "int",
        "shifted_unpuzzle": "Two pails, one full. How many pours?",
        "shifted_unpuzzle_answer": "0",
        "shifted_unpuzzle_domain": "int",
    },
]


def test_two_files_imported_together_overwrite_nothing(unpuzzles_file, tmp_path):
    shifted = tmp_path / "shifted_unpuzzles.json"
    shifted.write_text(json.dumps(SHIFTED), encoding="utf-8")
    out, _ = command(str(unpuzzles_file), str(shifted))
    assert "unpuzzles: 4 items" in out and "7 new" in out
    assert "shifted_unpuzzles: 2 items (2 original, 2 shifted, 2 unpuzzle); 6 new" in out
    assert FamilyTask.objects.count() == 13
    # Every task tells its own file's item: item 0 is "Two Jars" in one file and "Bridge
    # at Night" in the other, and both are stored.
    files = {"unpuzzles": ITEMS, "shifted_unpuzzles": SHIFTED}
    for task in FamilyTask.objects.all():
        item = files[task.params["file"]][task.params["item"]]
        assert task.hidden["name"] == item["puzzle_name"]
        assert task.seed == task.params["item"] and task.level == "deepmind"
    # Importing them again, in the other order, changes nothing.
    out, _ = command(str(shifted), str(unpuzzles_file))
    assert out.count("0 new, 0 updated") == 2 and FamilyTask.objects.count() == 13
    # The comparison pairs items within a file: a model right on one file's originals and
    # wrong on its unpuzzles is not paired with the other file's item of the same index.
    from django.contrib.auth.models import User

    runner = User.objects.create(username="runner-x")
    for task in FamilyTask.objects.filter(kind__in=("original", "unpuzzle")):
        correct = task.kind == "original" if task.params["file"] == "unpuzzles" else True
        FamilyAttempt.objects.create(
            player=runner,
            task=task,
            model_name="m",
            answer="x",
            correct=correct,
            value=float(correct),
            finished_at=task.created_at,
        )
    rows = {line.split()[1]: line.split() for line in command("--report-only")[0].splitlines()[1:]}
    assert rows["unpuzzles"][3:5] == ["1.000", "0.000"] and rows["unpuzzles"][6:] == [
        "3",
        "3",
        "0",
        "0",
    ]
    assert rows["shifted_unpuzzles"][3:5] == ["1.000", "1.000"]
    assert rows["shifted_unpuzzles"][6:] == ["2", "0", "0", "2"]


def test_a_bad_file_among_several_stores_nothing(unpuzzles_file, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(CommandError, match="broken: the file is not JSON"):
        command(str(unpuzzles_file), str(bad))
    assert not FamilyTask.objects.exists()


# -- DeepMind's extraction and scoring, as its code gives them ------------------------------

FIXTURE = json.loads(
    (Path(__file__).parent / "fixtures" / "deepmind_unpuzzle_scoring.json").read_text("utf-8")
)


def instance(answer: str, reading: str):
    from engine.core.families.base import FamilyInstance

    public = {"text": "?", "answer_format": "a short answer"}
    params = {"file": "f", "item": 0, "reading": reading}
    return FamilyInstance("unpuzzles", "unpuzzle", params, 0, public, {"answer": answer})


def test_the_deepmind_reading_extracts_as_deepmind_does():
    family = get_family("unpuzzles")
    for row in FIXTURE["extract"]:
        parsed = family.parse_reply(instance("x", "deepmind"), row["reply"])
        assert (parsed.answer or "") == row["extracted"], row
    # The flaw, as recorded: no final period costs the answer its last character.
    assert {r["reply"]: r["extracted"] for r in FIXTURE["extract"]}["Answer: 42"] == "4"


def test_the_deepmind_reading_scores_as_deepmind_does():
    family = get_family("unpuzzles")
    for row in FIXTURE["score"]:
        got = family.score(instance(row["expected"], "deepmind"), row["answer"]).correct
        assert got == row["correct"], row
    for row in FIXTURE["pipeline"]:
        task = instance(row["expected"], "deepmind")
        parsed = family.parse_reply(task, row["reply"])
        got = parsed.answer is not None and family.score(task, parsed.answer).correct
        assert got == row["correct"], row


def test_the_corrected_reading_fixes_the_flaw_and_reads_markdown():
    family = get_family("unpuzzles")
    cases = {
        "Answer: 42": ("42", True),
        "Answer: 42.": ("42", True),
        "Answer: 12\nBecause the jug is full.": ("12", True),
        "The answer is yes": ("yes", True),
        "**Indigo**": ("Indigo", True),
        "**Answer:** Indigo": ("Indigo", True),
        "Answer: **Indigo**": ("Indigo", True),
        "So the final answer is **yes**.": ("yes", True),
        "The result is $7$": ("7", True),
        "Answer: n.": ("no", False),
        "Answer: 0.0.": ("0", False),
    }
    for reply, (expected, right) in cases.items():
        task = instance(expected, "ours-corrected")
        parsed = family.parse_reply(task, reply)
        assert parsed.answer is not None, reply
        assert family.score(task, parsed.answer).correct is right, reply
    assert family.parse_reply(instance("x", "ours-corrected"), "line one\nline two").error
    # Under DeepMind's reading these replies read differently (its figures above).
    deepmind = instance("42", "deepmind")
    assert not family.score(deepmind, family.parse_reply(deepmind, "Answer: 42").answer).correct


def test_the_prompt_and_the_reference_reply_are_read_whole_by_both_readings():
    family = get_family("unpuzzles")
    for reading in ("deepmind", "ours-corrected"):
        task = instance("The red one", reading)
        assert family.prompt(task).endswith("Answer: <a short answer>.")
        reply = family.reply_with(task, family.reference_answer(task))
        assert family.score(task, family.parse_reply(task, reply).answer).correct


def test_tasks_stored_under_the_old_key_get_the_new_one_with_their_attempts(transactional_db):
    from django.contrib.auth.models import User
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from leaderboard.models import FamilyStaleGroup

    before = [("engine", "0015_merge_practice_requests_and_study")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    OldTask = old.get_model("engine", "FamilyTask")
    OldAttempt = old.get_model("engine", "FamilyAttempt")
    player = old.get_model("auth", "User").objects.create(username="old-player")

    def stored(kind, item, name):
        return OldTask.objects.create(
            family="unpuzzles",
            kind=kind,
            params={"item": item},
            params_key=json.dumps({"item": item}),
            seed=item,
            public={"text": name, "answer_format": "yes or no"},
            hidden={"answer": "no", "name": name},
            origin="imported",
        )

    # unpuzzles.json imported first (items 0 and 1), then shifted_unpuzzles.json (item 0
    # only) overwrote item 0's original and unpuzzle and added its shifted task.
    made = {
        "original-0": stored("original", 0, "Bridge"),
        "unpuzzle-0": stored("unpuzzle", 0, "Bridge"),
        "shifted-0": stored("shifted", 0, "Bridge"),
        "original-1": stored("original", 1, "Jars"),
        "unpuzzle-1": stored("unpuzzle", 1, "Jars"),
        "original-2": stored("original", 2, "Hats"),  # shifted sibling of another puzzle
        "shifted-2": stored("shifted", 2, "Coins"),
    }
    attempt = OldAttempt.objects.create(
        player=player, task=made["original-1"], answer="no", correct=True, value=1.0
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    files = {name: FamilyTask.objects.get(pk=task.pk).params["file"] for name, task in made.items()}
    assert files == {
        "original-0": "shifted_unpuzzles",
        "unpuzzle-0": "shifted_unpuzzles",
        "shifted-0": "shifted_unpuzzles",
        "original-1": "unpuzzles",
        "unpuzzle-1": "unpuzzles",
        "original-2": "unpuzzles",
        "shifted-2": "shifted_unpuzzles",
    }
    task = FamilyTask.objects.get(pk=made["original-1"].pk)
    assert task.params == {"file": "unpuzzles", "item": 1, "reading": "deepmind"}
    assert task.level == "deepmind" and task.params_key == (
        '{"file":"unpuzzles","item":1,"reading":"deepmind"}'
    )
    kept = FamilyAttempt.objects.get(pk=attempt.pk)
    assert kept.task_id == task.pk and kept.correct and kept.answer == "no"
    assert User.objects.filter(username="old-player").exists()
    assert FamilyStaleGroup.objects.filter(family="unpuzzles", kind="original", level="").exists()
    # Importing the files now adds beside them, overwriting nothing of another file.
    from engine.families import do_import_unpuzzles

    item = {"puzzle_name": "Jars", "original_puzzle": "Jars", "original_answer": "no"}
    reports = do_import_unpuzzles({"unpuzzles": json.dumps([{}, item])})
    assert (reports[0].created, reports[0].updated) == (0, 1)
