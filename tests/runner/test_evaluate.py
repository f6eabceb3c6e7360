"""``manage.py evaluate`` end to end: the real client against a scripted local chat server,
through the Game, to stored runs, results files and leaderboard submissions."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter

import pytest
from rest_framework.test import APIClient

from benchmark.fake_llm import FakeRequest, FakeResponse
from benchmark.models import EvaluationGame, EvaluationRun
from benchmark.protocol import answer_message
from engine.core.families.kumo.book import format_number
from engine.models import Instance
from leaderboard.models import BoardRow, Submission, Trajectory
from leaderboard.recompute import recompute
from tests.runner.helpers import display_order_player, first_turn, read_jsonl, task_lists

pytestmark = pytest.mark.django_db


def api(server, model: str = "fake-model") -> list[str]:
    return ["--model", model, "--base-url", server.base_url]


def stored(orchard) -> dict[int, Instance]:
    return {row.seed: row for row in orchard.instances.all()}


def about(request: FakeRequest, instance: Instance) -> bool:
    truths, actions = task_lists(request)
    return set(truths) == set(instance.truths) and set(actions) == set(instance.actions)


def test_a_model_that_plays_well_matches_the_oracle_and_is_submitted(
    evaluate, fake_server, oracle_script, orchard, tmp_path, capsys
):
    server = fake_server(oracle_script)
    out_file = tmp_path / "results.jsonl"
    stdout, _ = evaluate(*api(server), "--runs", "2", "--concurrency", "4", "--out", str(out_file))

    run = EvaluationRun.objects.get()
    assert (run.status, run.total_games, run.finished_games, run.correct_games) == ("done", 6, 6, 6)
    records = read_jsonl(out_file)
    assert sorted((r["seed"], r["run"]) for r in records) == [
        (s, r) for s in range(3) for r in range(2)
    ]
    instances = stored(orchard)
    for record in records:
        assert record["claimed"] == {
            "correct": True,
            "actions_taken": instances[record["seed"]].oracle_actions,
        }
        assert record["answer"] == instances[record["seed"]].valid_truths[0]
        assert record["parse_errors"] == 0 and record["domain"] == "orchard"
        turns = record["turns"]
        assert len(turns) == len(record["actions"]) + 1
        assert all(t["tokens"]["prompt"] > 0 and t["tokens"]["completion"] > 0 for t in turns)
        assert record["tokens"] == {
            "prompt": sum(t["tokens"]["prompt"] for t in turns),
            "completion": sum(t["tokens"]["completion"] for t in turns),
        }
        assert turns[0]["reply"] == answer_message(turns[0]["parsed"])
        assert [t["name"] for t in turns[:-1]] == record["actions"]
    assert run.prompt_tokens == sum(r["tokens"]["prompt"] for r in records)
    assert EvaluationGame.objects.filter(run=run).count() == 6

    submission = Submission.objects.get(model__name="fake-model")
    assert (submission.status, submission.trajectory_count, submission.disagreements) == (
        "done",
        6,
        0,
    )
    assert submission.model.kind == "model" and submission.domain == orchard
    assert submission.metadata["evaluation_run"] == str(run.pk)
    assert set(Trajectory.objects.values_list("relative_action_count", flat=True)) == {0.0}
    assert run.submissions == [
        {"domain": "orchard", "submission": submission.pk, "status": "done", "errors": []}
    ]
    assert "success 100.0%" in stdout and f"submission {submission.pk} (done)" in stdout
    assert "6/6" in capsys.readouterr().err  # the progress bar


def test_requests_never_show_an_unplayed_float_observation(
    evaluate, fake_server, oracle_script, orchard
):
    server = fake_server(oracle_script)
    evaluate(*api(server), "--runs", "1", "--no-submit")
    instances = list(orchard.instances.all())
    checked = 0
    for request in server.requests:
        instance = next(row for row in instances if about(request, row))
        played = {
            m["content"].split("<ANSWER>")[-1].split("</ANSWER>")[0].strip()
            for m in request.messages
            if m["role"] == "assistant"
        }
        body = request.raw.decode("utf-8")
        for action, observation in instance.observations.items():
            if action in played or isinstance(observation, str):
                continue
            checked += 1
            for written in {
                repr(observation),
                format_number(observation),
                f"{observation:.2f}",
                f"{observation:.3f}",
            }:
                assert written not in body, (action, written)
    assert checked >= 3  # the orchard tasks have float actions left unplayed


def _bodies(server) -> list[bytes]:
    return sorted(request.raw for request in server.requests)


def test_what_is_sent_does_not_depend_on_which_truth_is_valid(evaluate, fake_server, orchard):
    """Twin tasks that differ only in their valid truth must produce byte-identical
    requests: then nothing sent can single the valid truth out."""
    first = fake_server(display_order_player)
    evaluate(*api(first), "--runs", "1", "--no-submit")
    for row in orchard.instances.all():
        decoy = next(truth for truth in row.truths if truth not in row.valid_truths)
        row.valid_truths = [decoy]
        row.save(update_fields=["valid_truths"])
    twin = fake_server(display_order_player)
    evaluate(*api(twin), "--runs", "1", "--no-submit")
    assert len(first.requests) == len(twin.requests) > 3
    assert _bodies(first) == _bodies(twin)


def test_what_is_sent_does_not_depend_on_unplayed_observations(evaluate, fake_server, orchard):
    def one_action_then_answer(request: FakeRequest) -> FakeResponse:
        truths, actions = task_lists(request)
        taken = sum(1 for m in request.messages if m["role"] == "assistant")
        return FakeResponse(content=answer_message(actions[0] if not taken else truths[0]))

    first = fake_server(one_action_then_answer)
    evaluate(*api(first), "--runs", "1", "--no-submit")
    domain = orchard.to_core()
    changed = 0
    for row in orchard.instances.all():
        played = sorted(row.actions, key=str.casefold)[0]
        for name in row.actions:
            if name == played:
                continue
            action = domain.action(name)
            current = action.state_for(row.observations[name])
            other = next(state for state in action.states if state is not current)
            row.observations[name] = (
                other.label
                if other.label is not None
                else ((other.range[0] + other.range[1]) / 3 + other.range[0] * 2 / 3)
            )
            changed += 1
        row.save(update_fields=["observations"])
    twin = fake_server(one_action_then_answer)
    evaluate(*api(twin), "--runs", "1", "--no-submit")
    assert changed >= 6 and _bodies(first) == _bodies(twin)


def test_a_model_that_plays_badly_has_its_invalid_moves_counted(
    evaluate, fake_server, orchard, tmp_path
):
    def bad(request: FakeRequest) -> FakeResponse:
        truths, actions = task_lists(request)
        turn = sum(1 for m in request.messages if m["role"] == "assistant")
        moves = ["X-Ray Vision", actions[0], actions[0].upper(), "  " + truths[0].lower()]
        return FakeResponse(content=f"Let me think.\n<ANSWER> {moves[turn]} </ANSWER>")

    server = fake_server(bad)
    out_file = tmp_path / "bad.jsonl"
    evaluate(*api(server, "bad-model"), "--runs", "1", "--out", str(out_file))
    for record in read_jsonl(out_file):
        first_action = record["turns"][1]["name"]
        assert record["actions"] == ["X-Ray Vision", first_action, first_action.upper()]
        assert record["invalid_moves"] == 2 and record["claimed"]["actions_taken"] == 1
        assert "not one of this task's actions" in record["turns"][0]["error"]
        assert "already taken" in record["turns"][2]["error"]
        assert record["answer"] in stored(orchard)[record["seed"]].truths  # matched forgivingly
    follow_ups = [r for r in server.requests if len(r.messages) == 4]
    assert all(r.messages[-1]["content"].startswith("Invalid move: ") for r in follow_ups)
    submission = Submission.objects.get(model__name="bad-model")
    assert submission.status == "done" and submission.disagreements == 0
    assert set(Trajectory.objects.values_list("invalid_moves", flat=True)) == {2}


def test_unreadable_replies_are_parse_errors_and_end_the_game_at_the_limit(
    evaluate, fake_server, tmp_path
):
    server = fake_server(lambda request: FakeResponse(content="It is probably the Aphid."))
    out_file = tmp_path / "mute.jsonl"
    evaluate(*api(server, "mute"), "--runs", "1", "--max-parse-errors", "2", "--out", str(out_file))
    for record in read_jsonl(out_file):
        assert (record["answer"], record["parse_errors"], record["ended"]) == (
            None,
            2,
            "parse_errors",
        )
        assert [t["error"] for t in record["turns"]] == [
            "parse error: no <ANSWER> name </ANSWER> in the reply"
        ] * 2
        assert record["claimed"] == {"correct": False, "actions_taken": 0}
    seconds = [r for r in server.requests if len(r.messages) == 4]
    assert len(seconds) == 3
    assert all("could not be read" in r.messages[-1]["content"] for r in seconds)
    assert set(Trajectory.objects.values_list("parse_errors", "correct")) == {(2, False)}


def test_a_game_ends_without_an_answer_after_the_turn_limit(evaluate, fake_server, tmp_path):
    server = fake_server(lambda request: FakeResponse(content="<ANSWER> Wait </ANSWER>"))
    out_file = tmp_path / "stuck.jsonl"
    evaluate(
        *api(server, "stuck"),
        "--runs",
        "1",
        "--max-turns",
        "4",
        "--no-submit",
        "--out",
        str(out_file),
    )
    for record in read_jsonl(out_file):
        assert (record["answer"], record["ended"], len(record["turns"])) == (None, "max_turns", 4)
        assert record["invalid_moves"] == 4 and record["actions"] == ["Wait"] * 4


def test_a_reasoning_models_reasoning_is_recorded_but_never_parsed_or_sent_back(
    evaluate, fake_server, oracle_script, tmp_path
):
    def reasoning_model(request: FakeRequest) -> FakeResponse:
        move = oracle_script.next_move(request.messages)
        return FakeResponse(
            content=answer_message(move),
            reasoning="Tempting: <ANSWER> Not A Real Move </ANSWER>. Better think again.",
        )

    server = fake_server(reasoning_model)
    out_file = tmp_path / "reasoning.jsonl"
    evaluate(*api(server, "thinker"), "--runs", "1", "--out", str(out_file))
    records = read_jsonl(out_file)
    assert all(r["claimed"]["correct"] and r["invalid_moves"] == 0 for r in records)
    assert all(t["reasoning"].startswith("Tempting") for r in records for t in r["turns"])
    assert not any(b"Tempting" in request.raw for request in server.requests)
    submission = Submission.objects.get(model__name="thinker")
    assert submission.model.reasoning is True


def test_a_conversation_grown_past_the_context_ends_the_game_as_a_failure(
    evaluate, fake_server, tmp_path
):
    def small_context(request: FakeRequest) -> FakeResponse:
        if len(request.messages) > 4:
            return FakeResponse(status=400, content="maximum context length exceeded")
        _, actions = task_lists(request)
        return FakeResponse(content=answer_message(actions[len(request.messages) // 2 - 1]))

    server = fake_server(small_context)
    out_file = tmp_path / "short.jsonl"
    evaluate(*api(server, "tiny"), "--runs", "1", "--out", str(out_file))
    for record in read_jsonl(out_file):
        assert (record["answer"], record["ended"], len(record["actions"])) == (
            None,
            "api_refused",
            2,
        )
        assert "maximum context length" in record["turns"][-1]["error"]
    assert Submission.objects.get(model__name="tiny").trajectory_count == 3


def test_a_request_refused_on_the_first_turn_fails_the_game(evaluate, fake_server):
    server = fake_server(lambda request: FakeResponse(status=400, content="unknown parameter"))
    _, error = evaluate(*api(server), "--runs", "1", expect_error=True)
    assert "3 game(s) failed" in error and "unknown parameter" in error
    assert not Submission.objects.exists()


def _flaky(good, failures: list[FakeResponse]):
    """Fail each distinct request with ``failures`` in turn before answering it well."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def script(request: FakeRequest) -> FakeResponse:
        with lock:
            attempt = seen[request.attempt_key]
            seen[request.attempt_key] += 1
        return failures[attempt] if attempt < len(failures) else good(request)

    return script


def test_server_errors_and_rate_limits_are_retried_until_the_game_is_played(
    evaluate, fake_server, oracle_script
):
    failures = [
        FakeResponse(status=500, content="boom"),
        FakeResponse(status=429, headers={"Retry-After": "0"}),
        FakeResponse(drop=True),
    ]
    server = fake_server(_flaky(oracle_script, failures))
    evaluate(*api(server), "--runs", "1")
    run = EvaluationRun.objects.get()
    assert (run.status, run.correct_games, run.failed_games) == ("done", 3, 0)
    attempts = Counter(request.attempt_key for request in server.requests)
    assert set(attempts.values()) == {4}
    assert Submission.objects.get().trajectory_count == 3


def test_a_slow_server_is_retried_after_the_timeout(evaluate, fake_server, oracle_script):
    server = fake_server(_flaky(oracle_script, [FakeResponse(content="zzz", delay=30)]))
    evaluate(*api(server), "--runs", "1", "--timeout", "0.3", "--no-submit")
    run = EvaluationRun.objects.get()
    assert (run.status, run.correct_games) == ("done", 3)
    assert set(Counter(r.attempt_key for r in server.requests).values()) == {2}


def test_games_that_keep_failing_are_left_out_and_played_again_on_resume(
    evaluate, fake_server, oracle_script, orchard, tmp_path
):
    doomed = orchard.instances.get(seed=1)

    def failing_on_one_task(request: FakeRequest) -> FakeResponse:
        if about(request, doomed):
            return FakeResponse(status=503, content="overloaded")
        return oracle_script(request)

    server = fake_server(failing_on_one_task)
    out_file = tmp_path / "partial.jsonl"
    _, error = evaluate(*api(server), "--runs", "2", "--out", str(out_file), expect_error=True)
    run = EvaluationRun.objects.get()
    assert run.status == "failed" and (run.finished_games, run.failed_games) == (4, 2)
    assert "2 game(s) failed on API errors" in error and "HTTP 503" in error
    assert "orchard:1:0" in run.error
    assert not Submission.objects.exists()
    assert len(read_jsonl(out_file)) == 4

    server.script = oracle_script
    before = len(server.requests)
    evaluate(*api(server), "--runs", "2", "--out", str(out_file), "--resume")
    run.refresh_from_db()
    assert (run.status, run.finished_games, run.correct_games) == ("done", 6, 6)
    assert EvaluationRun.objects.count() == 1
    replayed = [r for r in server.requests[before:] if first_turn(r)]
    assert len(replayed) == 2 and all(about(r, doomed) for r in replayed)
    records = read_jsonl(out_file)
    assert sorted((r["seed"], r["run"]) for r in records) == [
        (s, r) for s in range(3) for r in range(2)
    ]
    assert Submission.objects.get().trajectory_count == 6


def test_resume_skips_the_games_already_in_the_output_file(
    evaluate, fake_server, oracle_script, tmp_path
):
    server = fake_server(oracle_script)
    out_file = tmp_path / "kept.jsonl"
    evaluate(*api(server), "--runs", "2", "--out", str(out_file), "--no-submit")
    lines = out_file.read_text().splitlines(keepends=True)
    # A fresh database (the run is gone) and a file cut short, its last line half-written.
    EvaluationRun.objects.all().delete()
    out_file.write_text("".join(lines[:4]) + lines[4][:25])
    before = len(server.requests)
    _, err = evaluate(*api(server), "--runs", "2", "--out", str(out_file), "--resume")
    assert "starting a new one" in err
    assert sum(first_turn(r) for r in server.requests[before:]) == 2
    records = read_jsonl(out_file)
    assert len(records) == len({(r["seed"], r["run"]) for r in records}) == 6
    run = EvaluationRun.objects.get()
    assert (run.status, run.finished_games) == ("done", 6)


def test_an_existing_output_file_is_never_overwritten_without_resume(evaluate, tmp_path):
    out_file = tmp_path / "precious.jsonl"
    out_file.write_text('{"seed": 0}\n')
    _, error = evaluate("--model", "oracle", "--out", str(out_file), expect_error=True)
    assert "already exists: pass --resume" in error
    assert out_file.read_text() == '{"seed": 0}\n' and not EvaluationRun.objects.exists()


def test_a_wrong_key_stops_the_run_at_once(evaluate, fake_server, oracle_script, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "wrong")
    server = fake_server(oracle_script, api_key="right")
    _, error = evaluate(
        *api(server), "--api-key-env", "FAKE_API_KEY", "--concurrency", "1", expect_error=True
    )
    assert "HTTP 401" in error and "check the key in FAKE_API_KEY" in error
    assert len(server.requests) == 1
    assert EvaluationRun.objects.get().status == "failed"


def test_a_key_variable_that_is_not_set_is_refused_before_anything_runs(
    evaluate, fake_server, oracle_script, monkeypatch
):
    monkeypatch.delenv("MISSING_API_KEY", raising=False)
    server = fake_server(oracle_script)
    _, error = evaluate(*api(server), "--api-key-env", "MISSING_API_KEY", expect_error=True)
    assert "MISSING_API_KEY is not set" in error
    assert not EvaluationRun.objects.exists() and not server.requests


def test_only_variables_named_like_api_keys_may_carry_the_key(evaluate, fake_server):
    server = fake_server(lambda request: FakeResponse(content="x"))
    _, error = evaluate(*api(server), "--api-key-env", "SECRET_KEY", expect_error=True)
    assert "must be an upper-case name ending in API_KEY" in error


@pytest.mark.parametrize(
    "args, problem",
    [
        (["--model", "gpt-7"], "a base URL is required for model 'gpt-7'"),
        (["--model", "oracle", "--domains", "orchard,nowhere"], "unknown domain(s): nowhere"),
        (["--model", "oracle", "--truths", "9"], "no stored instances with 9 truths"),
        (["--model", "oracle", "--runs", "0"], "runs must be between 1 and 100"),
        (["--model", "m", "--base-url", "localhost:8000"], "must be an http:// or https:// URL"),
    ],
)
def test_bad_requests_are_refused_with_a_clear_message(evaluate, args, problem):
    _, error = evaluate(*args, expect_error=True)
    assert problem in error and not EvaluationRun.objects.exists()


@pytest.mark.parametrize("player", ["oracle", "random", "greedy"])
def test_built_in_players_are_submitted_like_models(evaluate, player, orchard):
    stdout, _ = evaluate("--model", player, "--runs", "2", "--seed", "5")
    run = EvaluationRun.objects.get()
    assert run.status == "done" and run.finished_games == 6
    submission = Submission.objects.get(model__name=player)
    assert (submission.status, submission.trajectory_count, submission.model.kind) == (
        "done",
        6,
        "baseline",
    )
    assert submission.disagreements == 0
    # The server played these games itself: verified trajectories and verified board rows.
    assert submission.verified
    assert set(Trajectory.objects.values_list("verified", flat=True)) == {True}
    recompute()  # after commit in production; this test runs inside one transaction
    rows = BoardRow.objects.filter(model__name=player)
    assert rows.exists() and set(rows.values_list("verified", flat=True)) == {True}
    if player == "oracle":
        assert set(Trajectory.objects.values_list("relative_action_count", flat=True)) == {0.0}
    if player != "random":
        assert run.correct_games == 6
    assert re.search(rf"submitted orchard: submission {submission.pk} \(done\)", stdout)
    # Listed with the verified rows of the API (a baseline: shown, never ranked).
    listed = APIClient().get("/api/v1/leaderboard/", {"verified": "1", "round": "all"}).json()
    assert [(row["model"], row["verified"]) for row in listed] == [(player, True)]


def test_the_random_player_replays_identically_from_its_seed(evaluate, tmp_path):
    def play(name: str, seed: str) -> list[dict]:
        path = tmp_path / name
        evaluate(
            "--model", "random", "--runs", "3", "--seed", seed, "--no-submit", "--out", str(path)
        )
        return sorted(read_jsonl(path), key=lambda r: (r["seed"], r["run"]))

    first, again, other = play("a.jsonl", "11"), play("b.jsonl", "11"), play("c.jsonl", "12")
    assert first == again and first != other


def test_parameters_are_passed_through_to_the_api(evaluate, fake_server, oracle_script):
    server = fake_server(oracle_script)
    evaluate(
        *api(server),
        "--runs",
        "1",
        "--no-submit",
        "--param",
        "temperature=0",
        "--param",
        "max_tokens=512",
        "--param",
        "stop=none",
    )
    body = server.requests[0].body
    assert (body["temperature"], body["max_tokens"], body["stop"]) == (0, 512, "none")
    assert EvaluationRun.objects.get().params == {
        "temperature": 0,
        "max_tokens": 512,
        "stop": "none",
    }


def test_the_submitted_file_is_the_native_format_sorted_by_seed_and_run(
    evaluate, fake_server, oracle_script
):
    server = fake_server(oracle_script)
    evaluate(*api(server), "--runs", "2", "--concurrency", "8")
    submission = Submission.objects.get()
    with submission.file.open("rb") as handle:
        lines = [json.loads(line) for line in handle.read().decode().splitlines()]
    assert [(r["seed"], r["run"]) for r in lines] == sorted((r["seed"], r["run"]) for r in lines)
    assert all(
        {"seed", "run", "actions", "answer", "tokens", "parse_errors", "claimed", "turns"} <= set(r)
        for r in lines
    )


def test_a_stopped_run_keeps_its_games_and_a_resume_finishes_it(
    orchard, admin_user, fake_server, oracle_script, fast_retries
):
    from benchmark import actions
    from benchmark.actions import RunSpec

    stop = threading.Event()

    def stopping(request: FakeRequest) -> FakeResponse:
        if request.index == 5:
            stop.set()  # as a worker shutting down would
        return oracle_script(request)

    server = fake_server(stopping)
    spec = RunSpec(
        model="fake",
        base_url=server.base_url,
        domains=["orchard"],
        n_truths=5,
        n_actions=4,
        runs=3,
        concurrency=1,
    )
    run = actions.do_create_run(spec, created_by=admin_user)
    actions.do_run_evaluation(run.pk, stop=stop)
    run.refresh_from_db()
    assert run.status == "failed" and "left to play" in run.error
    kept = run.finished_games
    assert 0 < kept < 9 and run.games.count() == kept

    assert actions.do_requeue_run(run, launch=False)
    actions.do_run_evaluation(run.pk)
    run.refresh_from_db()
    assert (run.status, run.finished_games, run.correct_games) == ("done", 9, 9)
    # Only the game cut short by the stop (if one was) is played twice.
    assert 9 <= sum(first_turn(r) for r in server.requests) <= 10


def test_a_damaged_results_file_is_refused_and_the_run_not_left_running(
    evaluate, fake_server, oracle_script, tmp_path
):
    server = fake_server(oracle_script)
    out_file = tmp_path / "damaged.jsonl"
    evaluate(*api(server), "--runs", "1", "--out", str(out_file), "--no-submit")
    lines = out_file.read_text().splitlines(keepends=True)
    out_file.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
    EvaluationRun.objects.all().delete()
    _, error = evaluate(
        *api(server), "--runs", "1", "--out", str(out_file), "--resume", expect_error=True
    )
    assert "line 2 is not a results record" in error
    assert EvaluationRun.objects.get().status == "failed"
