"""A renamed level keeps its old name as an alias (a sudoku's ``easy`` is ``4x4``), and
one level is stored and counted under one name: tasks generated, rounds declared, ranked
attempts, practice requests and the task list all take the old name for the level it
stands for, so the board never splits a level into two rows; the migration renames what
was stored before."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.management import CommandError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from rest_framework.test import APIClient

from engine import families, family_practice
from engine.models import FamilyAttempt, FamilyTask
from leaderboard.family_board import family_rows
from leaderboard.models import FamilyBoardRow, FamilyStaleGroup, RankedFamilyAttempt, Round
from tests.rounds.helpers import run

# transaction=True: the runner answers from its own threads, on connections of their own.
pytestmark = pytest.mark.django_db(transaction=True)


def test_the_old_name_of_a_level_is_stored_as_the_level_it_names(make_user, rebuild_board):
    old = families.do_generate_family_tasks("puzzles", "sudoku", count=2, level="easy")
    new = families.do_generate_family_tasks("puzzles", "sudoku", count=2, seed=5, level="4x4")
    assert {task.level for task in old.tasks + new.tasks} == {"4x4"}
    assert families.canonical_level("puzzles", "sudoku", "easy") == "4x4"
    assert families.canonical_level("puzzles", "sudoku", "4x4") == "4x4"
    assert families.canonical_level("nope", "sudoku", "easy") == "easy"
    assert families.canonical_level("puzzles", "sudoku", "") == ""
    # The list finds them by either name.
    user = make_user("lister")
    api = APIClient()
    api.force_authenticate(user)
    for name in ("easy", "4x4"):
        listed = api.get(f"/api/v1/family-tasks/?family=puzzles&kind=sudoku&level={name}")
        assert listed.json()["count"] == 4
    # Practice asked by the old name looks for the level's stored tasks.
    wanted = family_practice.check_family_practice("puzzles", "sudoku", "easy")
    assert wanted.level == "4x4"
    assert family_practice.unseen_task(user, wanted) is not None
    # Played, one row.
    for task in old.tasks + new.tasks:
        attempt, _ = families.start_attempt(user, task)
        families.answer_attempt(attempt.pk, user, task.hidden["solution"])
    rebuild_board(full=True)
    rows = [r for r in family_rows(verified=False, family="puzzles") if r.kind == "sudoku"]
    assert [(r.level, r.attempts) for r in rows] == [("4x4", 4)]
    # The board's API finds that row by either name too.
    for name in ("easy", "4x4"):
        board = api.get(f"/api/v1/family-leaderboard/?family=puzzles&kind=sudoku&level={name}")
        assert [(r["level"], r["attempts"]) for r in board.json()] == [("4x4", 4)]


def test_a_round_declared_by_the_old_name_keeps_it_and_stores_the_level(grove_round_tools):
    prepare, rotate = grove_round_tools
    # Both names of one level: refused as a level listed twice.
    refused = prepare("puzzles/sudoku/easy:1", "puzzles/sudoku/4x4:1")
    assert "'puzzles/sudoku/4x4:1' is listed twice" in refused
    assert not Round.objects.exists()
    prepare("puzzles/sudoku/easy:1")
    live = Round.objects.get(name="2025-01")
    # The spec keeps the name given (the round's secret seeds derive from it).
    assert live.family_specs == [
        {"family": "puzzles", "kind": "sudoku", "level": "easy", "count": 1}
    ]
    assert {t.level for t in FamilyTask.objects.filter(origin="round")} == {"4x4"}
    rotate()
    # The runner finds the round's tasks by either name (the second run: already played).
    for name, said in (("easy", "1 played"), ("4x4", "1 already stored")):
        out = run(
            "run_family_tasks", "--model", "reference", "--family", "puzzles", "--kind",
            "sudoku", "--level", name, "--round", "2025-01",
        )  # fmt: skip
        assert said in out


@pytest.fixture
def grove_round_tools(grove, clock):
    from leaderboard import rounds
    from tests.rounds.helpers import prepare as run_prepare

    def prepare(*family_tasks: str) -> str:
        extra = [arg for spec in family_tasks for arg in ("--family-task", spec)]
        try:
            return run_prepare("2025-01", "grove", "4x6", 1, 500, "--ranked-games", "2", *extra)
        except CommandError as error:
            return str(error)

    def rotate() -> None:
        rounds.do_rotate(target=Round.objects.get(name="2025-01"))

    return prepare, rotate


def test_a_ranked_request_by_either_name_counts_against_one_quota(grove_round_tools, make_user):
    from leaderboard.ranked_families import do_start_ranked_family_attempt

    prepare, rotate = grove_round_tools
    prepare("puzzles/sudoku/easy:1")  # declared by the old name
    rotate()
    user = make_user("ranker")
    first = do_start_ranked_family_attempt(
        user, model="m-1", family="puzzles", kind="sudoku", level="easy"
    )
    second = do_start_ranked_family_attempt(
        user, model="m-1", family="puzzles", kind="sudoku", level="4x4"
    )
    assert (first.level, second.level) == ("4x4", "4x4") and second.number == 2
    from leaderboard.ranked import NoMoreGames

    with pytest.raises(NoMoreGames):
        do_start_ranked_family_attempt(
            user, model="m-1", family="puzzles", kind="sudoku", level="easy"
        )


BEFORE = [("leaderboard", "0017_family_results_files"), ("engine", "0022_attempt_turns")]


def test_the_migration_renames_what_was_stored_under_an_old_name(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="ann")
    Task = old.get_model("engine", "FamilyTask")
    made = {
        level: Task.objects.create(
            family="puzzles", kind="sudoku", level=level, params={}, params_key=level, seed=1,
            public={}, hidden={},
        )
        for level in ("easy", "4x4", "")
    }  # fmt: skip
    other = Task.objects.create(
        family="games", kind="wordle", level="easy", params={}, params_key="w", seed=1,
        public={}, hidden={},
    )  # fmt: skip
    OldRound = old.get_model("leaderboard", "Round")
    target = OldRound.objects.create(
        name="2025-01", task_settings=[[4, 6]], instances_per_setting=1, seed=1,
        starts_on=date(2025, 1, 1),
        ends_on=date(2025, 3, 1), status="closed",
        family_specs=[
            {"family": "puzzles", "kind": "sudoku", "level": "easy", "count": 2},
            {"family": "puzzles", "kind": "sudoku", "level": "4x4", "count": 3},
            {"family": "games", "kind": "wordle", "level": "easy", "count": 1},
        ],
    )  # fmt: skip
    entry = old.get_model("leaderboard", "ModelEntry").objects.create(name="m", name_key="m")
    Attempt = old.get_model("engine", "FamilyAttempt")
    Ranked = old.get_model("leaderboard", "RankedFamilyAttempt")
    for number, level in ((1, "easy"), (2, "4x4"), (3, "easy")):
        task = Task.objects.create(
            family="puzzles", kind="sudoku", level=level, params={}, params_key=f"r{number}",
            seed=number, public={}, hidden={}, origin="ranked",
        )  # fmt: skip
        Ranked.objects.create(
            round=target, model=entry, family="puzzles", kind="sudoku", level=level,
            number=number, task=task,
            attempt=Attempt.objects.create(player=user, task=task, model_name="m"),
        )  # fmt: skip
    # A round that ranked under both names keeps a clashing number under the old one.
    clash = Task.objects.create(
        family="puzzles", kind="sudoku", level="easy", params={}, params_key="c", seed=9,
        public={}, hidden={}, origin="ranked",
    )  # fmt: skip
    Ranked.objects.create(
        round=target, model=entry, family="puzzles", kind="sudoku", level="easy", number=2,
        task=clash, attempt=Attempt.objects.create(player=user, task=clash, model_name="m"),
    )  # fmt: skip
    Row = old.get_model("leaderboard", "FamilyBoardRow")
    Row.objects.create(
        family="puzzles", kind="sudoku", level="easy", player="p", player_kind="practice",
        verified=False, attempts=1, correct=1, success_rate=1, ci_low=0, ci_high=1,
        mean_value=1, parse_error_rate=0, mean_tokens=0, computed_at=timezone.now(),
    )  # fmt: skip

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    levels = dict(FamilyTask.objects.filter(pk__in=[t.pk for t in made.values()]).values_list(
        "params_key", "level"))  # fmt: skip
    assert levels == {"easy": "4x4", "4x4": "4x4", "": ""}
    assert FamilyTask.objects.get(pk=other.pk).level == "easy"  # no alias there
    assert Round.objects.get(pk=target.pk).family_specs[0]["level"] == "easy"  # seeds' name
    ranked = dict(RankedFamilyAttempt.objects.values_list("task__params_key", "level"))
    assert ranked == {"r1": "4x4", "r2": "4x4", "r3": "4x4", "c": "easy"}
    assert not FamilyBoardRow.objects.filter(level="easy").exists()
    assert FamilyStaleGroup.objects.filter(family="puzzles", kind="sudoku", level="4x4").exists()
    assert FamilyAttempt.objects.count() == 4


def test_the_migrations_frozen_renames_are_the_families_aliases():
    """Migration 0018 keeps its own table of renamed levels (a migration must not change
    with the code); it holds every former name the families declare. A level renamed later
    needs a migration of its own, and this test says so."""
    import importlib

    from engine.core.families.base import all_families

    migration = importlib.import_module("leaderboard.migrations.0018_canonical_family_levels")
    declared = {
        (family.name, kind.name, old, current)
        for family in all_families().values()
        for kind in family.kinds.values()
        for old, current in getattr(kind.levels, "aliases", {}).items()
    }
    assert declared == set(migration.ALIASES)
