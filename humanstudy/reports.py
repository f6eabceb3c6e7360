"""Read-only views of the study for admins: overview figures and exports."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal

from engine import families
from engine.models import FamilyAttempt, PlaySession, PlayStep
from engine.sessions import CLIENT_SIGNALS
from humanstudy import actions
from humanstudy.models import Participant, StudySettings, TaskSetItem
from humanstudy.path import practice_instance

STEP_COLUMNS = [
    "participant",
    "task_set",
    "position",
    "domain",
    "n_truths",
    "n_actions",
    "seed",
    "session",
    "step",
    "kind",
    "accepted",
    "sent",
    "name",
    "observation",
    "error",
    "created_at",
    "elapsed_ms",
    # Whether the page sent a report with the move, and what it reported since the
    # previous move (engine.sessions.CLIENT_SIGNALS); the signals are empty when it sent
    # none (which is not "0 pastes, never away").
    "client_reported",
    *(f"client_{name}" for name in CLIENT_SIGNALS),
    "session_deadline",
    "session_correct",
    "flagged",
    "selected_for_analysis",
    # A task of another family is one row, its answer: "family" names it (KUMO's rows say
    # "kumo"), "domain" holds its kind and level, "score" the family's score (for the
    # constraint puzzles, subtask accuracy) and "details" the score's figures.
    "family",
    "score",
    "details",
]

PARTICIPANT_COLUMNS = [
    "participant",
    "task_set",
    "tasks_done",
    "tasks_total",
    "successes",
    "actions",
    # Moves and answers in the task set, and how many of them came with no client report.
    "moves",
    "moves_unreported",
    "completed_at",
    "pay",
    "pay_due",
    "flagged",
    "flag_reasons",
    "selected_for_analysis",
    "label",
    "stage",
    "consented_at",
    "declined_at",
    "instructions_passed_at",
    "comprehension_attempts",
    "practice_done_at",
    "attention_checks",
    "attention_failed",
    "questionnaire",
    "completion_code",
]


def _time(value) -> str:
    return value.isoformat() if value else ""


def _participants():
    return Participant.objects.select_related("user", "task_set").order_by("user__username")


def participant_rows() -> list[dict]:
    participants = list(_participants())
    items_by_set: dict[int, list[TaskSetItem]] = defaultdict(list)
    for item in TaskSetItem.objects.select_related("instance", "family_task").order_by("position"):
        items_by_set[item.task_set_id].append(item)
    sessions: dict[int, dict[int, PlaySession]] = defaultdict(dict)
    for session in PlaySession.objects.filter(player__participant__isnull=False):
        sessions[session.player_id][session.instance_id] = session
    attempts = actions.participants_attempts()
    reports = actions.client_reports()
    config = StudySettings.current()
    rows = []
    for participant in participants:
        state = actions.progress_from(
            items_by_set.get(participant.task_set_id, []),
            sessions[participant.user_id],
            config,
            attempts[participant.user_id],
        )
        rows.append(
            {
                "participant": participant.user.username,
                "task_set": participant.task_set.name if participant.task_set else "",
                "tasks_done": state.done,
                "tasks_total": state.total,
                "successes": state.successes,
                "actions": state.actions,
                "moves": reports[participant.user_id].moves,
                "moves_unreported": reports[participant.user_id].unreported,
                "completed_at": participant.completed_at.isoformat()
                if participant.completed_at
                else "",
                "pay": state.pay_so_far if state.complete else "",
                # Flagged participants forfeit pay.
                "pay_due": state.pay_so_far if state.complete and not participant.flagged else 0,
                "flagged": participant.flagged,
                "flag_reasons": "; ".join(participant.flag_reasons),
                "selected_for_analysis": participant.selected_for_analysis,
                "label": participant.label,
                "stage": participant.stage,
                "consented_at": _time(participant.consented_at),
                "declined_at": _time(participant.declined_at),
                "instructions_passed_at": _time(participant.instructions_passed_at),
                "comprehension_attempts": participant.comprehension_attempts,
                "practice_done_at": _time(participant.practice_done_at),
                "attention_checks": json.dumps(participant.attention, ensure_ascii=False),
                "attention_failed": sum(not c.get("passed") for c in participant.attention),
                "questionnaire": json.dumps(participant.answers, ensure_ascii=False),
                "completion_code": participant.completion_code,
            }
        )
    return rows


def overview() -> dict:
    rows = participant_rows()
    return {
        "rows": rows,
        "participants": len(rows),
        "completed": sum(1 for row in rows if row["completed_at"]),
        "flagged": sum(1 for row in rows if row["flagged"]),
        "pay_due": sum((Decimal(row["pay_due"]) for row in rows), Decimal(0)),
        "config": StudySettings.current(),
    }


def step_rows() -> Iterator[dict]:
    """Every step of every participant's sessions in their task set and of their practice
    task (position "practice": not paid, not analysed), oldest first."""
    positions = {
        (item.task_set_id, item.instance_id): item.position for item in TaskSetItem.objects.all()
    }
    practice = practice_instance()
    steps = (
        PlayStep.objects.filter(session__player__participant__isnull=False)
        .select_related(
            "session__instance__domain",
            "session__player__participant__task_set",
        )
        .order_by("session__player__username", "session_id", "index")
    )
    for step in steps.iterator(chunk_size=2000):
        session = step.session
        participant = session.player.participant
        position = positions.get((participant.task_set_id, session.instance_id))
        if position is None and practice is not None and session.instance_id == practice.pk:
            position = "practice"
        if position is None:
            continue  # Not part of the participant's path (e.g. a staff test game).
        client = step.client or {}
        yield {
            "client_reported": step.client is not None,
            "participant": session.player.username,
            "task_set": participant.task_set.name,
            "position": position,
            "domain": session.instance.domain.name,
            "n_truths": session.instance.n_truths,
            "n_actions": session.instance.n_actions,
            "seed": session.instance.seed,
            "session": session.pk,
            "step": step.index,
            "kind": step.kind,
            "accepted": step.accepted,
            "sent": step.sent,
            "name": step.name,
            "observation": step.observation,
            "error": step.error,
            "created_at": step.created_at.isoformat(),
            "elapsed_ms": step.elapsed_ms,
            **{f"client_{name}": client.get(name, "") for name in CLIENT_SIGNALS},
            "session_deadline": _time(session.deadline_at),
            "session_correct": session.correct,
            "flagged": participant.flagged,
            "selected_for_analysis": participant.selected_for_analysis,
            "family": "kumo",
            "score": "",
            "details": "",
        }
    yield from _attempt_rows()


def _attempt_rows() -> Iterator[dict]:
    """One row per answered (or timed-out) family task of a participant's set; a game of
    another family, one row per move sent (with what an accepted move showed)."""
    positions = {
        (item.task_set_id, item.family_task_id): item.position
        for item in TaskSetItem.objects.exclude(family_task=None)
    }
    games = families.interactive_families()
    attempts = (
        FamilyAttempt.objects.filter(player__participant__isnull=False, model_name="")
        .exclude(finished_at=None)
        .select_related("task", "player__participant__task_set")
        .order_by("player__username", "id")
    )
    for attempt in attempts.iterator(chunk_size=2000):
        participant = attempt.player.participant
        position = positions.get((participant.task_set_id, attempt.task_id))
        if position is None:
            continue
        task = attempt.task
        common = {
            "participant": attempt.player.username,
            "task_set": participant.task_set.name,
            "position": position,
            "domain": f"{task.kind}/{task.level or task.params_key}",
            "n_truths": "",
            "n_actions": "",
            "seed": task.seed,
            "session": f"attempt-{attempt.pk}",
            "name": "",
            "session_deadline": _time(attempt.deadline_at),
            "session_correct": attempt.correct,
            "flagged": participant.flagged,
            "selected_for_analysis": participant.selected_for_analysis,
            "family": task.family,
            "score": attempt.value,
            "details": json.dumps(attempt.details or {}, ensure_ascii=False),
        }
        if task.family in games:
            yield from _game_rows(attempt, common)
            continue
        client = attempt.client or {}
        yield {
            **common,
            "client_reported": bool(attempt.client),
            "step": 0,
            "kind": "answer",
            "accepted": bool(attempt.answer),
            "sent": attempt.answer,
            "observation": "",
            "error": (attempt.details or {}).get("error", ""),
            "created_at": attempt.finished_at.isoformat(),
            "elapsed_ms": attempt.elapsed_ms,
            **{f"client_{name}": client.get(name, "") for name in CLIENT_SIGNALS},
        }


def _game_rows(attempt: FamilyAttempt, common: dict) -> Iterator[dict]:
    """The rows of one finished game: every move sent, in order."""
    steps = list(attempt.steps.order_by("index"))
    played = [step.move for step in steps if step.accepted]
    shown = iter(families.game_log(attempt, played))
    for step in steps:
        client = step.client or {}
        yield {
            **common,
            "client_reported": step.client is not None,
            "step": step.index,
            "kind": "move",
            "accepted": step.accepted,
            "sent": step.move,
            "observation": next(shown)["observation"] if step.accepted else "",
            "error": step.error,
            "created_at": step.created_at.isoformat(),
            "elapsed_ms": step.elapsed_ms,
            **{f"client_{name}": client.get(name, "") for name in CLIENT_SIGNALS},
        }
