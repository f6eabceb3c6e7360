"""The runner's ranked mode: a model's ranked games of the live round, played through the
session service, as verified board entries."""

from __future__ import annotations

import pytest

from benchmark.fake_llm import FakeRequest, FakeResponse
from benchmark.models import EvaluationGame, EvaluationRun
from benchmark.protocol import answer_message, read_task_lists
from engine.models import Instance, PlaySession, PlayStep
from leaderboard.models import BoardRow, RankedGame, Round, Submission, Trajectory
from tests.rounds.helpers import prepare, run

# The runner's threads use their own database connections: real transactions.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def live_round(orchard):
    prepare("live", "orchard", "5x4", 2, 100, "--ranked-games", "4")
    run("rotate_round")
    return Round.objects.get(name="live")


def test_the_oracle_plays_its_ranked_games_through_the_session_service(
    evaluate, live_round, admin_user
):
    stdout, _ = evaluate("--model", "oracle", "--ranked", "--concurrency", "2")
    evaluation = EvaluationRun.objects.get()
    assert evaluation.ranked and evaluation.status == "done", evaluation.error
    assert (evaluation.total_games, evaluation.finished_games) == (4, 4)
    games = list(RankedGame.objects.select_related("session", "instance").order_by("number"))
    assert [game.number for game in games] == [1, 2, 3, 4]
    pinned = set(live_round.instances.values_list("pk", flat=True))
    for game in games:
        # A fresh instance each, played in the admin's name; every move is recorded.
        assert game.instance.source == Instance.Source.RANKED and game.instance_id not in pinned
        assert game.session.player == admin_user and game.session.correct is True
        steps = PlayStep.objects.filter(session=game.session)
        assert steps.filter(kind="answer").count() == 1
        assert steps.filter(kind="action").count() == game.session.actions_taken
    assert EvaluationGame.objects.filter(run=evaluation).count() == 4
    assert set(Trajectory.objects.values_list("verified", "relative_action_count")) == {(True, 0.0)}
    row = BoardRow.objects.get(round=live_round, model__name="oracle", domain=None)
    assert (row.verified, row.trajectories, row.success_rate) == (True, 4, 1.0)
    assert row.model.kind == "baseline"
    assert "orchard: 4 games, success 100.0%" in stdout
    # Nothing was submitted: the games entered the board as they ended.
    assert evaluation.submissions == [] and not Submission.objects.exists()


def test_a_chat_model_ranked_run_records_tokens_and_counts_unanswered_games(
    evaluate, fake_server, live_round
):
    def script(request: FakeRequest) -> FakeResponse:
        # Names a truth at once, with known token counts.
        truths, _ = read_task_lists(request.messages[0]["content"])
        return FakeResponse(
            content=answer_message(sorted(truths)[0]),
            usage={"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
        )

    server = fake_server(script)
    evaluate("--model", "chatty", "--base-url", server.base_url, "--ranked")
    evaluation = EvaluationRun.objects.get()
    assert evaluation.status == "done", evaluation.error
    trajectories = Trajectory.objects.filter(model__name="chatty")
    assert trajectories.count() == 4 and set(trajectories.values_list("verified", flat=True)) == {
        True
    }
    assert set(trajectories.values_list("prompt_tokens", "completion_tokens")) == {(50, 7)}
    row = BoardRow.objects.get(round=live_round, model__name="chatty", domain=None)
    assert row.mean_tokens == 57.0
    # The ranked games are used up: a second run finds nothing left to play.
    evaluate("--model", "chatty", "--base-url", server.base_url, "--ranked")
    assert RankedGame.objects.filter(model__name="chatty").count() == 4


def test_a_game_that_ends_without_an_answer_counts_as_unsolved(evaluate, fake_server, live_round):
    server = fake_server(lambda request: FakeResponse(content="I am not sure."))
    evaluate("--model", "mumbler", "--base-url", server.base_url, "--ranked")
    sessions = PlaySession.objects.filter(ranked_game__model__name="mumbler")
    assert sessions.count() == 4
    assert all(s.finished and s.correct is False and s.answer == "" for s in sessions)
    trajectories = Trajectory.objects.filter(model__name="mumbler")
    assert {(t.answer, t.correct, t.parse_errors) for t in trajectories} == {(None, False, 3)}
    row = BoardRow.objects.get(round=live_round, model__name="mumbler", domain=None)
    assert (row.success_rate, row.parse_error_rate) == (0.0, 1.0)


def test_ranked_runs_need_a_live_round_with_the_domain_and_setting(evaluate, orchard):
    _, error = evaluate("--model", "oracle", "--ranked", expect_error=True)
    assert "no round is live" in error
    prepare("live", "orchard", "4x3", 1, 100)
    run("rotate_round")
    _, error = evaluate("--model", "oracle", "--ranked", expect_error=True)
    assert "has no setting 5x4" in error
    assert not EvaluationRun.objects.exists()
