"""Scoring a submission is a job with a lease: a dead worker's try is taken over, a job that
fails for good says why and can be retried, and nothing stays "processing"."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.utils import timezone

from engine.models import Instance
from leaderboard import actions
from leaderboard.models import BoardRow, Submission, Trajectory
from tests.leaderboard.test_trust import token_client, upload

pytestmark = pytest.mark.django_db(transaction=True)


def lines() -> list[dict]:
    return [
        {"seed": row.seed, "run": run, "actions": [], "answer": row.valid_truths[0]}
        for row in Instance.objects.filter(domain__name="orchard").order_by("seed")
        for run in range(2)
    ]


def stranded(researcher) -> Submission:
    """A submission whose worker died mid-scoring: processing, lease expired, one try."""
    content = "".join(json.dumps(line) + "\n" for line in lines()).encode()
    user = User.objects.get(username="researcher")
    submission = Submission.objects.create(
        submitter=user,
        model=actions.get_or_create_model("slow-model", user=user),
        domain_id=Instance.objects.filter(domain__name="orchard").first().domain_id,
        n_truths=5,
        n_actions=4,
        format="native",
        sha256="0" * 64,
        size=len(content),
        status=Submission.Status.PROCESSING,
        attempts=1,
        started_at=timezone.now() - timedelta(hours=1),
        lease_expires_at=timezone.now() - timedelta(minutes=1),
    )
    submission.file.save("stranded.jsonl", ContentFile(content))
    return submission


def test_a_try_whose_worker_died_is_taken_over_once_its_lease_expires(researcher):
    submission = stranded(researcher)
    # A try still holding a live lease is left alone.
    Submission.objects.filter(pk=submission.pk).update(
        lease_expires_at=timezone.now() + timedelta(minutes=5)
    )
    assert actions.requeue_stalled_submissions() == []
    assert actions.process_submission(submission.pk) is None
    # Once the lease has expired, beat's sweep queues it again and a new try scores it.
    Submission.objects.filter(pk=submission.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert actions.requeue_stalled_submissions() == [submission.pk]
    submission.refresh_from_db()
    assert (submission.status, submission.attempts, submission.trajectory_count) == (
        "done",
        2,
        6,
    )
    assert submission.lease_expires_at is None
    assert Trajectory.objects.filter(submission=submission).count() == 6
    assert BoardRow.objects.get(model__name="slow-model", domain=None).success_rate == 1.0
    # Running the sweep again finds nothing: nothing is scored twice.
    assert actions.requeue_stalled_submissions() == []
    assert Trajectory.objects.count() == 6


def test_a_job_that_never_finishes_fails_for_good_saying_why_and_can_be_retried(researcher):
    submission = stranded(researcher)
    Submission.objects.filter(pk=submission.pk).update(attempts=3)
    actions.requeue_stalled_submissions()
    submission.refresh_from_db()
    assert submission.status == "failed" and submission.lease_expires_at is None
    assert "tried 3 times and never finished" in submission.errors[0]
    shown = researcher.get(f"/api/v1/submissions/{submission.pk}/").json()
    assert shown["status"] == "failed" and shown["attempts"] == 3
    assert "never finished" in shown["errors"][0]

    # Someone else cannot retry it; its owner can, and the new try scores it.
    assert (
        token_client("rival").post(f"/api/v1/submissions/{submission.pk}/retry/").status_code == 404
    )
    assert researcher.get(f"/api/v1/submissions/{submission.pk}/retry/").status_code == 405
    retried = researcher.post(f"/api/v1/submissions/{submission.pk}/retry/")
    assert retried.status_code == 200
    submission.refresh_from_db()
    assert (submission.status, submission.attempts, submission.errors) == ("done", 1, [])
    # Only a failed submission is retried.
    again = researcher.post(f"/api/v1/submissions/{submission.pk}/retry/")
    assert again.status_code == 409 and "only a failed submission" in again.json()["error"]


def test_resending_a_file_that_failed_starts_a_new_try(researcher):
    bad = [{**line, "answer": 7} for line in lines()]
    first = upload(researcher, "m", bad)
    assert first.status_code == 422
    good = upload(researcher, "m", lines())
    assert good.status_code == 201 and good.json()["status"] == "done"
    assert not Submission.objects.filter(status="processing").exists()


def test_a_line_holding_a_unicode_line_separator_is_one_line(researcher):
    line = {**lines()[0], "note": "a\u2028b\u0085c\u000bd"}
    raw = json.dumps(line, ensure_ascii=False)
    assert "\u2028" in raw
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = researcher.post(
        "/api/v1/submissions/",
        {
            "model": "m",
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("r.jsonl", (raw + "\r\n").encode()),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()["trajectory_count"] == 1


def test_a_stranded_try_is_queued_again_once_per_grace_behind_busy_workers(researcher, monkeypatch):
    from leaderboard.tasks import process_submission_task

    submission = stranded(researcher)
    queued = []
    # Queued only, not run: the workers are busy and the sweep runs every few seconds.
    monkeypatch.setattr(process_submission_task, "delay", queued.append)
    assert actions.requeue_stalled_submissions() == [submission.pk]
    submission.refresh_from_db()
    assert submission.status == "pending" and submission.lease_expires_at > timezone.now()
    assert actions.requeue_stalled_submissions() == []
    assert actions.requeue_stalled_submissions() == []
    assert queued == [submission.pk]
    # The queued job claims it as a second try and scores it.
    assert actions.process_submission(submission.pk).status == "done"
    submission.refresh_from_db()
    assert submission.attempts == 2


def test_a_pending_submission_whose_job_was_lost_is_queued_again_once_per_grace(
    researcher, monkeypatch
):
    from leaderboard.tasks import process_submission_task

    submission = stranded(researcher)
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.PENDING,
        attempts=0,
        lease_expires_at=None,
        created_at=timezone.now() - timedelta(hours=1),
    )
    queued = []
    # Queued only, not run (in-process jobs would score it at once): the broker's view.
    monkeypatch.setattr(process_submission_task, "delay", queued.append)
    assert actions.requeue_stalled_submissions() == [submission.pk]
    # The sweep runs every few seconds; the job just queued is not queued again at once.
    assert actions.requeue_stalled_submissions() == []
    Submission.objects.filter(pk=submission.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert actions.requeue_stalled_submissions() == [submission.pk]
    assert queued == [submission.pk, submission.pk]
    # The job, when it runs, claims the pending submission as ever.
    assert actions.process_submission(submission.pk).status == "done"


def test_the_scoring_worker_renews_its_lease_so_a_sweep_never_takes_over_a_live_try(
    researcher, settings
):
    """A lease far shorter than the scoring: the sweep runs all along on another thread
    (jobs in-process, so a take-over would claim it there at once and the first try would
    store nothing), yet the first try keeps its lease and stores the file."""
    import threading

    settings.SUBMISSION_LEASE_SECONDS = 1
    # Enough lines that scoring them takes well over the lease (about 2 s on an idle 2-core
    # machine), so the lease must be renewed for the first try to keep it.
    RUNS = 6000
    instances = list(Instance.objects.filter(domain__name="orchard").order_by("seed"))
    content = "".join(
        json.dumps({"seed": row.seed, "run": run, "actions": [], "answer": row.valid_truths[0]})
        + "\n"
        for row in instances
        for run in range(RUNS)
    ).encode()
    submission = stranded(researcher)
    submission.file.save("big.jsonl", ContentFile(content))
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.PENDING, attempts=0, lease_expires_at=None
    )
    stop = threading.Event()

    def sweep():
        from django.db import connection

        try:
            while not stop.wait(0.2):
                actions.requeue_stalled_submissions()
        finally:
            connection.close()

    sweeper = threading.Thread(target=sweep)
    sweeper.start()
    try:
        done = actions.process_submission(submission.pk)
    finally:
        stop.set()
        sweeper.join()
    assert done is not None and done.status == "done"
    # The scoring outlasted the lease, so renewal was needed.
    assert (done.finished_at - done.started_at).total_seconds() > settings.SUBMISSION_LEASE_SECONDS
    assert done.attempts == 1  # a take-over would have claimed it as a second try
    assert Trajectory.objects.filter(submission=submission).count() == 3 * RUNS
