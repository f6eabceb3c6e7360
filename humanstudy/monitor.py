"""The live monitor of the study for staff: who is where, who dropped out, who is flagged.

``snapshot()`` reads everything in a fixed number of queries (whatever the number of
participants) and returns plain data: the page (/study/monitor/) draws it and refreshes it
from /study/monitor.json every few seconds.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.db.models import Max
from django.utils import timezone

from engine.models import PlaySession
from humanstudy import actions
from humanstudy.models import Participant, StudySettings, TaskSetItem

# A participant who did nothing for this long, without completing or declining, is shown
# as a probable dropout; "active" means a move or page step in the last ACTIVE_MINUTES.
DROPOUT_MINUTES = 15
ACTIVE_MINUTES = 5
FINAL = (Participant.Stage.COMPLETE, Participant.Stage.DECLINED)


def snapshot(now=None) -> dict:
    now = now or timezone.now()
    config = StudySettings.current()
    participants = list(
        Participant.objects.select_related("user", "task_set").order_by("user__username")
    )
    items_by_set: dict[int, list[TaskSetItem]] = defaultdict(list)
    for item in TaskSetItem.objects.select_related("instance", "family_task").order_by("position"):
        items_by_set[item.task_set_id].append(item)
    attempts = actions.participants_attempts()
    reports = actions.client_reports()
    sessions: dict[int, dict[int, PlaySession]] = defaultdict(dict)
    last_move: dict[int, object] = {}
    for session in PlaySession.objects.filter(player__participant__isnull=False).annotate(
        last_step=Max("steps__created_at")
    ):
        sessions[session.player_id][session.instance_id] = session
        for moment in (session.last_step, session.started_at):
            if moment and (
                session.player_id not in last_move or moment > last_move[session.player_id]
            ):
                last_move[session.player_id] = moment
    rows = []
    for participant in participants:
        items = items_by_set.get(participant.task_set_id, [])
        mine = sessions[participant.user_id]
        answering = attempts[participant.user_id]
        for attempt in answering.values():
            for moment in (attempt.finished_at, attempt.started_at):
                if moment and (
                    participant.user_id not in last_move or moment > last_move[participant.user_id]
                ):
                    last_move[participant.user_id] = moment
        state = actions.progress_from(items, mine, config, answering)
        current = next(
            (row.position for row in state.tasks if row.played is not None and not row.finished),
            None,
        )
        moments = [
            participant.created_at,
            participant.consented_at,
            participant.declined_at,
            participant.instructions_passed_at,
            participant.practice_done_at,
            participant.completed_at,
            last_move.get(participant.user_id),
        ]
        last = max(moment for moment in moments if moment is not None)
        idle = (now - last).total_seconds()
        rows.append(
            {
                "participant": participant.user.username,
                "label": participant.label,
                "task_set": participant.task_set.name if participant.task_set else "",
                "stage": participant.get_stage_display(),
                "current_task": current,
                "done": state.done,
                "total": state.total,
                "pay": str(state.pay_so_far),
                "pay_shown": config.money(state.pay_so_far),
                "last_activity": last.isoformat(),
                "idle_seconds": round(idle),
                "dropped_out": participant.stage not in FINAL and idle > DROPOUT_MINUTES * 60,
                # Moves of the set so far that came with no report from the page (a script
                # sends none): seen live, before the quality filter judges the whole set.
                "moves": reports[participant.user_id].moves,
                "moves_unreported": reports[participant.user_id].unreported,
                "flagged": participant.flagged,
                "flag_reasons": list(participant.flag_reasons),
            }
        )
    active = timedelta(minutes=ACTIVE_MINUTES).total_seconds()
    summary = {
        "participants": len(rows),
        "active": sum(
            1
            for r, p in zip(rows, participants, strict=True)
            if p.stage not in FINAL and r["idle_seconds"] <= active
        ),
        "completed": sum(1 for p in participants if p.stage == Participant.Stage.COMPLETE),
        "declined": sum(1 for p in participants if p.stage == Participant.Stage.DECLINED),
        "dropped_out": sum(1 for r in rows if r["dropped_out"]),
        "flagged": sum(1 for r in rows if r["flagged"]),
    }
    by_stage: dict[str, int] = defaultdict(int)
    for participant in participants:
        by_stage[participant.get_stage_display()] += 1
    return {
        "generated_at": now.isoformat(),
        "dropout_minutes": DROPOUT_MINUTES,
        "active_minutes": ACTIVE_MINUTES,
        "summary": summary,
        "by_stage": dict(by_stage),
        "participants": rows,
    }
