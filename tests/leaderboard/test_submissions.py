"""Submissions through the API: re-scored by the server, idempotent, all or nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from engine.core.families.kumo.metrics import relative_action_count
from engine.models import Instance
from leaderboard import actions
from leaderboard.models import BoardRow, Submission, Trajectory

# Real transactions: scoring and recomputing run after commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


def native_lines(runs: int = 2, *, lie: bool = False) -> list[dict]:
    lines = []
    for instance in Instance.objects.filter(domain__name="orchard").order_by("seed"):
        for run in range(runs):
            wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
            good = run == 0
            lines.append(
                {
                    "seed": instance.seed,
                    "run": run,
                    "actions": list(instance.actions[: run + 1]),
                    "answer": instance.valid_truths[0] if good else wrong,
                    "tokens": {"prompt": 100, "completion": 10},
                    "parse_errors": 0 if good else 1,
                    "claimed": {"correct": True if lie else good, "actions_taken": run + 1},
                }
            )
    return lines


def upload(client, lines, *, fmt="native", model="tiny-model", **extra):
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    return client.post(
        "/api/v1/submissions/",
        {
            "model": model,
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": fmt,
            "file": SimpleUploadedFile("results.jsonl", content),
            **extra,
        },
        format="multipart",
    )


def test_a_native_upload_is_rescored_and_reaches_the_board(researcher):
    response = upload(researcher, native_lines(lie=True), provider="Lab", parameter_count=7)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "done" and body["trajectory_count"] == 6
    # Every run-1 line claimed success but named a wrong truth.
    assert body["disagreements"] == 3
    for row in Trajectory.objects.filter(submission_id=body["id"]).select_related("instance"):
        assert row.correct == (row.run == 0)
        assert row.relative_action_count == pytest.approx(
            relative_action_count(row.run + 1, row.instance.oracle_actions)
        )
    board = researcher.get("/api/v1/leaderboard/", {"truths": 5, "actions": 4}).json()
    assert [row["model"] for row in board] == ["tiny-model"]
    assert board[0]["success_rate"] == 0.5 and board[0]["trajectories"] == 6
    assert board[0]["parse_error_rate"] == 0.5 and board[0]["mean_tokens"] == 110
    low, high = board[0]["success_rate_ci"]
    assert low <= 0.5 <= high
    assert BoardRow.objects.filter(domain__name="orchard").count() == 1


def test_resubmitting_the_same_file_is_idempotent(researcher):
    first = upload(researcher, native_lines())
    second = upload(researcher, native_lines())
    assert first.status_code == 201 and second.status_code == 200
    assert second.json()["id"] == first.json()["id"]
    assert Trajectory.objects.count() == 6


def test_a_newer_file_replaces_the_older_one_on_the_board(researcher):
    upload(researcher, native_lines(runs=1))
    upload(researcher, native_lines(runs=2))
    assert Trajectory.objects.filter(active=True).count() == 6
    row = BoardRow.objects.get(domain__isnull=True)
    assert row.trajectories == 6


def test_a_malformed_line_is_reported_by_number_and_nothing_is_kept(researcher):
    lines = native_lines()
    content = [json.dumps(line) for line in lines]
    content[2] = "{broken"
    content[4] = json.dumps({**lines[4], "seed": 999})
    response = researcher.post(
        "/api/v1/submissions/",
        {
            "model": "m",
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("r.jsonl", ("\n".join(content) + "\n").encode()),
        },
        format="multipart",
    )
    # Refused on validation: 422 with every problem by line; the file is kept for audit.
    assert response.status_code == 422
    body = response.json()
    assert body["submission"]["status"] == "failed"
    assert any(error.startswith("line 3:") for error in body["errors"])
    assert not Trajectory.objects.exists() and not BoardRow.objects.exists()
    assert Submission.objects.get().status == Submission.Status.FAILED


def test_bad_requests_get_clear_errors(researcher):
    assert upload(researcher, native_lines(), fmt="csv").status_code == 400
    response = researcher.post(
        "/api/v1/submissions/",
        {
            "model": "m",
            "domain": "atlantis",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("r.jsonl", b"{}\n"),
        },
        format="multipart",
    )
    assert response.status_code == 400 and "unknown domain 'atlantis'" in response.json()["error"]
    no_setting = upload(researcher, native_lines(), truths=9)
    assert no_setting.status_code == 400
    assert APIClient().post("/api/v1/submissions/", {}).status_code == 401
    assert APIClient().get("/api/v1/submissions/").status_code == 401
    assert researcher.put("/api/v1/submissions/", {}).status_code == 405


def test_submissions_are_private_to_their_submitter(researcher, orchard):
    submission_id = upload(researcher, native_lines()).json()["id"]
    out = StringIO()
    call_command("create_api_token", "rival", stdout=out, stderr=StringIO())
    rival = APIClient()
    rival.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    assert rival.get(f"/api/v1/submissions/{submission_id}/").status_code == 404
    assert researcher.get(f"/api/v1/submissions/{submission_id}/").json()["status"] == "done"


def kumo_line(instance: Instance, outcomes: list[bool]) -> dict:
    runs = []
    for good in outcomes:
        wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        answer = instance.valid_truths[0] if good else wrong
        moves = list(instance.actions[:2])
        runs.append(
            {
                "actions": moves + [answer, {"predicted_truth": answer}],
                "generated_text": ["…"] * 3,
                "consumed_tokens": 1234,
                "observations": [None]
                + [{"action": a, "observation": instance.observations[a]} for a in moves],
                "successful": good,
                "parse_error": False,
            }
        )
    return {
        "trajectories": runs,
        "seed": instance.seed,
        "average_correct": sum(outcomes) / len(outcomes),
    }


def test_an_original_kumo_results_file_reproduces_its_success_rate(researcher):
    instances = list(Instance.objects.filter(domain__name="orchard").order_by("seed"))
    patterns = [[True, True, False, True, True], [False] * 5, [True] * 5]
    lines = [kumo_line(i, p) for i, p in zip(instances, patterns, strict=True)]
    response = upload(researcher, lines, fmt="kumo", model="kumo-model")
    body = response.json()
    assert body["status"] == "done" and body["trajectory_count"] == 15
    assert body["disagreements"] == 0
    implied = sum(run["successful"] for line in lines for run in line["trajectories"]) / 15
    row = BoardRow.objects.get(model__name="kumo-model", domain__isnull=True)
    assert row.success_rate == implied
    # An uploaded file, however exact, is self-reported.
    assert not row.verified and not Submission.objects.get().verified
    stored = Trajectory.objects.filter(model__name="kumo-model")
    assert {t.raw_action_count for t in stored} == {4}  # 2 actions + answer + record
    assert {t.information_actions for t in stored} == {2}


def test_kumo_runs_that_ended_on_a_parse_error_have_no_answer(researcher):
    instances = list(Instance.objects.filter(domain__name="orchard").order_by("seed"))
    lines = [kumo_line(i, [True] * 5) for i in instances]
    broken = lines[0]["trajectories"][1]
    # As published: the last entry is null and the run failed on a parse error.
    broken["actions"] = broken["actions"][:2] + [None]
    broken["successful"], broken["parse_error"] = False, True
    body = upload(researcher, lines, fmt="kumo", model="kumo-model").json()
    assert body["status"] == "done" and body["disagreements"] == 0
    row = Trajectory.objects.get(model__name="kumo-model", instance=instances[0], run=1)
    assert row.answer is None and not row.correct
    assert row.information_actions == 2 and row.parse_errors == 1 and row.raw_action_count == 3


def test_large_files_are_processed_by_a_background_job(researcher, monkeypatch):
    monkeypatch.setattr(actions, "LARGE_NATIVE_LINES", 3)
    response = upload(researcher, native_lines())
    assert response.status_code == 201
    # Embedded default: the job ran in-process (eager Celery) and scored the file.
    status = researcher.get(f"/api/v1/submissions/{response.json()['id']}/").json()
    assert status["status"] == "done" and status["trajectory_count"] == 6


def test_processing_twice_does_no_harm(researcher):
    submission_id = upload(researcher, native_lines()).json()["id"]
    assert actions.process_submission(submission_id) is None
    assert Trajectory.objects.count() == 6
    assert Submission.objects.get(pk=submission_id).status == "done"


def test_a_failed_recompute_does_not_fail_the_upload_and_sending_again_retries_it(
    researcher, monkeypatch
):
    from leaderboard import recompute
    from leaderboard.models import StaleGroup

    real = recompute.recompute

    def broken(**kwargs):
        raise RuntimeError("the board's tables are locked")

    monkeypatch.setattr(recompute, "recompute", broken)
    response = upload(researcher, native_lines())
    assert response.status_code == 201 and response.json()["status"] == "done"
    assert Trajectory.objects.count() == 6
    assert StaleGroup.objects.exists() and not BoardRow.objects.exists()

    monkeypatch.setattr(recompute, "recompute", real)
    again = upload(researcher, native_lines())
    assert again.status_code == 200 and again.json()["id"] == response.json()["id"]
    assert not StaleGroup.objects.exists()
    assert BoardRow.objects.get(model__name="tiny-model", domain=None, round=None).trajectories == 6
    # Once the board is up to date, sending the file again changes nothing.
    upload(researcher, native_lines())
    assert Trajectory.objects.count() == 6


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"run": 2**31}, "'run' must be at most"),
        ({"tokens": {"prompt": 2**31}}, "'tokens.prompt' must be at most"),
        ({"parse_errors": 2**40}, "'parse_errors' must be at most"),
        ({"claimed": {"actions_taken": 2**31}}, "'claimed.actions_taken' must be at most"),
        ({"answer": "x" * 501}, "'answer' is longer than 500 characters"),
        ({"answer": "Aphid\x00"}, "'answer' holds a NUL character"),
        ({"answer": "\ud800"}, "'answer' holds an unpaired surrogate"),
        ({"actions": ["\x00"]}, "'actions' entry 1 holds a NUL character"),
        ({"actions": ["a"] * 1001}, "'actions' holds more than 1000 moves"),
        ({"seed": 2**64}, "'seed' must fit in 64 bits"),
    ],
)
def test_values_that_fit_no_column_are_refused_by_line_and_nothing_is_stuck(
    researcher, change, problem
):
    lines = native_lines()
    lines[1] = {**lines[1], **change}
    response = upload(researcher, lines)
    assert response.status_code == 422, response.content
    assert any(e.startswith("line 2:") and problem in e for e in response.json()["errors"])
    assert not Submission.objects.exclude(status=Submission.Status.FAILED).exists()
    assert not Trajectory.objects.exists()
    # The corrected file is then scored (a resend is a new try).
    assert upload(researcher, native_lines()).status_code == 201


def test_deeply_nested_json_is_refused_not_crashed_on(researcher):
    lines = [json.dumps(line) for line in native_lines()]
    lines[2] = lines[2][:-1] + ', "turns": ' + _nested(100_000) + "}"
    content = ("\n".join(lines) + "\n").encode()
    response = researcher.post(
        "/api/v1/submissions/",
        {
            "model": "m",
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("r.jsonl", content),
        },
        format="multipart",
    )
    assert response.status_code == 422
    assert "line 3: the JSON is nested too deeply" in response.json()["errors"]
    assert Submission.objects.get().status == Submission.Status.FAILED


def test_a_huge_parameter_count_is_refused_before_anything_is_stored(researcher):
    response = upload(researcher, native_lines(), parameter_count=10**20)
    assert response.status_code == 400 and "parameter_count" in response.json()["fields"]
    assert not Submission.objects.exists()
    from leaderboard.models import ModelEntry

    assert not ModelEntry.objects.exists()


def test_an_oversized_file_is_refused(researcher, settings):
    settings.SUBMISSION_MAX_BYTES = 1_000
    response = upload(researcher, native_lines() * 10)
    assert response.status_code == 400
    assert "the limit is 1,000 bytes" in response.json()["fields"]["file"][0]
    assert not Submission.objects.exists()
