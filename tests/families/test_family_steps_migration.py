"""The migration that turns a game's list of moves into steps keeps what the list held:
the moves in order, the game's time and the page's reports in total; and it can be undone."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from engine.models import FamilyAttempt, FamilyStep

BEFORE = [("engine", "0020_session_watchers")]
REPORT = {"pastes": 2, "copies": 0, "hidden_ms": 900, "keys": 14, "first_input_ms": 700}


def _migrate(target) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor


def test_a_games_moves_become_steps_with_their_time_and_reports(transactional_db):
    executor = _migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="ann")
    task = old.get_model("engine", "FamilyTask").objects.create(
        family="games", kind="mastermind", level="easy", params={}, params_key="{}", seed=7,
        public={}, hidden={"code": "RGB"},
    )  # fmt: skip
    OldAttempt = old.get_model("engine", "FamilyAttempt")
    finished = OldAttempt.objects.create(
        player=user, task=task, model_name="", moves=["RRR", "GGB", "RGB"], elapsed_ms=9000,
        finished_at=timezone.now(), client=REPORT, correct=True,
    )  # fmt: skip
    unreported = OldAttempt.objects.create(
        player=user, task=task, model_name="m", moves=["BBB"], client=None
    )
    answered = OldAttempt.objects.create(
        player=user, task=task, model_name="n", moves=[], answer="RGB", client=REPORT
    )

    _migrate(executor.loader.graph.leaf_nodes())

    steps = list(FamilyStep.objects.filter(attempt_id=finished.pk).order_by("index"))
    assert [(s.index, s.move, s.accepted, s.error) for s in steps] == [
        (0, "RRR", True, ""), (1, "GGB", True, ""), (2, "RGB", True, "")
    ]  # fmt: skip
    assert [s.elapsed_ms for s in steps] == [3000, 3000, 3000]
    assert steps[-1].created_at == finished.started_at + timedelta(milliseconds=9000)
    # The summed report is on the last move; the earlier ones were reported, empty.
    assert steps[-1].client == REPORT
    assert steps[0].client == {"pastes": 0, "copies": 0, "hidden_ms": 0, "keys": 0}
    assert FamilyAttempt.objects.get(pk=finished.pk).client is None
    assert FamilyAttempt.objects.get(pk=finished.pk).played_moves() == ["RRR", "GGB", "RGB"]
    (lone,) = FamilyStep.objects.filter(attempt_id=unreported.pk)
    assert lone.move == "BBB" and lone.client is None and lone.elapsed_ms == 0
    assert not FamilyStep.objects.filter(attempt_id=answered.pk).exists()
    assert FamilyAttempt.objects.get(pk=answered.pk).client == REPORT  # an answer keeps its own

    executor = _migrate(BEFORE)  # and back: the lists return
    old = executor.loader.project_state(BEFORE).apps
    moves = dict(old.get_model("engine", "FamilyAttempt").objects.values_list("pk", "moves"))
    assert moves == {finished.pk: ["RRR", "GGB", "RGB"], unreported.pk: ["BBB"], answered.pk: []}
    _migrate(executor.loader.graph.leaf_nodes())
