"""Thin Celery tasks: take ids, call ``leaderboard.actions`` / ``recompute`` / ``rounds``."""

from __future__ import annotations

from celery import shared_task

from leaderboard import actions, recompute, rounds


@shared_task(name="leaderboard.process_submission")
def process_submission_task(submission_id: int) -> str:
    submission = actions.process_submission(submission_id)
    return submission.status if submission else "already claimed"


@shared_task(name="leaderboard.requeue_stalled_submissions", ignore_result=True)
def requeue_stalled_submissions_task() -> list[int]:
    """Beat, every 10 s: queue again the submissions whose worker died or whose job was
    lost (leaderboard.actions.requeue_stalled_submissions)."""
    return actions.requeue_stalled_submissions()


@shared_task(name="leaderboard.recompute")
def recompute_task(full: bool = False) -> dict:
    report = recompute.recompute(full=full)
    return {
        "groups": report.groups,
        "board_rows": report.board_rows,
        "family_groups": report.family_groups,
        "family_rows": report.family_rows,
    }


@shared_task(name="leaderboard.prepare_round")
def prepare_round_task(round_id: int) -> str:
    """Prepare a draft round; a round already claimed (delivered twice) is left alone."""
    prepared = rounds.do_prepare_round(round_id)
    return prepared.status if prepared else "already claimed"


@shared_task(name="leaderboard.requeue_stalled_preparations", ignore_result=True)
def requeue_stalled_preparations_task() -> list[int]:
    """Beat, every 10 s: round preparations whose worker died are queued again."""
    return rounds.requeue_stalled_preparations()


@shared_task(name="leaderboard.check_rotation")
def check_rotation_task() -> dict:
    result = rounds.do_check_rotation()
    return {
        "notices": [notice.kind for notice in result.notices],
        "rotated": result.rotation.activated.name if result.rotation else None,
    }
