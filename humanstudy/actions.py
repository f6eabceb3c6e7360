"""Every write of the human study goes through here: task sets, participants, completion,
quality flags and the analysis sample. Pure formulas live in ``humanstudy.scoring``."""

from __future__ import annotations

import random
import secrets
import string
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from engine import sessions
from engine.models import Domain, Instance, PlaySession
from humanstudy.models import Participant, StudySettings, TaskSet, TaskSetItem
from humanstudy.scoring import QualityThresholds, StudyMove, StudyTask, pay, quality_problems
from leaderboard.access import playable_instances

STUDY_DOMAINS = ("chemical", "education", "fantasy", "medical", "music")


class StudyError(Exception):
    """A request the study refuses, with a message for the admin or participant."""


def study_domains(config: StudySettings) -> list[str]:
    return list(config.domains) if config.domains else list(STUDY_DOMAINS)


def build_task_sets(count: int, *, seed: int | None = None) -> list[TaskSet]:
    """Create ``count`` complete task sets: per study domain one Easy and one Hard task.

    Instances are drawn at random, preferring instances no existing set uses yet, so sets
    overlap as little as the stored instances allow.
    """
    if count < 1:
        raise StudyError("count must be at least 1")
    config = StudySettings.current()
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    settings = (
        (config.easy_truths, config.easy_actions),
        (config.hard_truths, config.hard_actions),
    )
    names = study_domains(config)
    pools: dict[tuple[str, int, int], list[int]] = {}
    known = set(Domain.objects.filter(name__in=names).values_list("name", flat=True))
    missing = [name for name in names if name not in known]
    if missing:
        raise StudyError(f"study domain(s) not loaded: {', '.join(missing)}")
    used = set(TaskSetItem.objects.values_list("instance_id", flat=True))
    for name in names:
        for n_truths, n_actions in settings:
            # Never a ranked game's instance, nor a round's: a round keeps its answers
            # secret, and a study task must show its answer when it ends.
            ids = list(
                playable_instances()
                .filter(
                    domain__name=name,
                    n_truths=n_truths,
                    n_actions=n_actions,
                    n_valid=1,
                    rounds__isnull=True,
                )
                .values_list("id", flat=True)
            )
            if not ids:
                raise StudyError(
                    f"domain {name!r} has no {n_truths}-truth / {n_actions}-action instances; "
                    "generate some with generate_tasks"
                )
            pools[(name, n_truths, n_actions)] = ids
    created = []
    with transaction.atomic():
        start = TaskSet.objects.count() + 1
        for offset in range(count):
            task_set = TaskSet.objects.create(name=f"set-{start + offset:04d}")
            chosen = []
            for key in sorted(pools):
                fresh = [pk for pk in pools[key] if pk not in used]
                pick = rng.choice(fresh or pools[key])
                used.add(pick)
                chosen.append(pick)
            rng.shuffle(chosen)
            TaskSetItem.objects.bulk_create(
                TaskSetItem(task_set=task_set, instance_id=pk, position=position)
                for position, pk in enumerate(chosen, start=1)
            )
            created.append(task_set)
    return created


def _new_credentials(existing: set[str]) -> tuple[str, str]:
    alphabet = string.ascii_uppercase + string.digits
    while True:
        username = "P" + "".join(secrets.choice(alphabet) for _ in range(7))
        if username not in existing:
            existing.add(username)
            # Readable but long enough: 12 characters from 54 symbols (~69 bits).
            symbols = "abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789"
            return username, "".join(secrets.choice(symbols) for _ in range(12))


def create_participants(count: int) -> list[tuple[Participant, str]]:
    """Create participants with fresh IDs and passwords, each given a task set at random.

    Builds as many task sets as participants when none exist yet. Returns each participant
    with their password (shown once: only its hash is stored).
    """
    if count < 1:
        raise StudyError("count must be at least 1")
    user_model = get_user_model()
    with transaction.atomic():
        task_sets = list(TaskSet.objects.all())
        if not task_sets:
            task_sets = build_task_sets(count)
        rng = random.SystemRandom()
        taken = set(user_model.objects.values_list("username", flat=True))
        made = []
        for _ in range(count):
            username, password = _new_credentials(taken)
            user = user_model.objects.create_user(username=username, password=password)
            participant = Participant.objects.create(user=user, task_set=rng.choice(task_sets))
            made.append((participant, password))
    return made


@dataclass(frozen=True)
class TaskRow:
    position: int
    instance: Instance
    session: PlaySession | None

    @property
    def difficulty(self) -> str:
        return f"{self.instance.n_truths} truths / {self.instance.n_actions} actions"

    @property
    def status(self) -> str:
        if self.session is None:
            return "not started"
        return "done" if self.session.finished else "in progress"


@dataclass(frozen=True)
class Progress:
    tasks: list[TaskRow]
    done: int
    successes: int
    actions: int
    pay_so_far: Decimal
    complete: bool

    @property
    def total(self) -> int:
        return len(self.tasks)


def progress(participant: Participant) -> Progress:
    """Tasks done and pay so far (unfinished tasks count as not solved, with no actions).
    Tasks whose time limit has passed are ended first (unsolved)."""
    sessions.expire_overdue(participant.user)
    items = (
        list(participant.task_set.items.select_related("instance__domain").order_by("position"))
        if participant.task_set
        else []
    )
    by_instance = {
        s.instance_id: s
        for s in PlaySession.objects.filter(
            player=participant.user, instance_id__in=[i.instance_id for i in items]
        )
    }
    return progress_from(items, by_instance, StudySettings.current())


def progress_from(
    items: list[TaskSetItem], sessions_by_instance: dict[int, PlaySession], config: StudySettings
) -> Progress:
    """``progress`` from preloaded rows (lets list pages load everything in a few queries)."""
    rows = [TaskRow(i.position, i.instance, sessions_by_instance.get(i.instance_id)) for i in items]
    finished = [row.session for row in rows if row.session and row.session.finished]
    successes = sum(1 for s in finished if s.correct)
    actions = sum(s.actions_taken for s in finished)
    total = len(rows) or 1
    return Progress(
        tasks=rows,
        done=len(finished),
        successes=successes,
        actions=actions,
        pay_so_far=pay(
            successes / total,
            actions,
            base=config.base_pay,
            success_bonus=config.success_bonus,
            per_action=config.per_action_cost,
        ),
        complete=bool(rows) and len(finished) == len(rows),
    )


def open_task(participant: Participant, position: int) -> PlaySession:
    """The participant's session for one task of their set (created on first open)."""
    if participant.task_set is None:
        raise StudyError("you have no task set yet; please contact the study team")
    item = participant.task_set.items.filter(position=position).select_related("instance").first()
    if item is None:
        raise StudyError(f"there is no task {position} in your set")
    session, _ = sessions.start_session(participant.user, item.instance)
    return session


def study_tasks(participant: Participant) -> list[StudyTask]:
    """The participant's finished tasks with their moves, for the quality filter."""
    items = participant.task_set.items.select_related("instance") if participant.task_set else []
    ids = [item.instance_id for item in items]
    finished = (
        PlaySession.objects.filter(player=participant.user, instance_id__in=ids)
        .exclude(finished_at=None)
        .select_related("instance")
        .prefetch_related("steps")
    )
    return [
        StudyTask(
            n_truths=session.instance.n_truths,
            correct=bool(session.correct),
            actions_taken=session.actions_taken,
            moves=[
                StudyMove(step.kind, step.elapsed_ms, step.client or {})
                for step in session.steps.all()
            ],
        )
        for session in finished
    ]


def evaluate_participant(participant: Participant) -> Participant:
    """Record completion and run the quality filter (idempotent; safe to run again).

    The filter only judges complete sets: partial play says too little about a person.
    """
    state = progress(participant)
    if not state.complete:
        return participant
    config = StudySettings.current()
    reasons = quality_problems(
        study_tasks(participant),
        QualityThresholds(
            min_median_seconds_per_move=config.min_median_seconds_per_move,
            max_blind_answers=config.max_blind_answers,
            success_margin_below_chance=config.success_margin_below_chance,
            max_pastes=config.max_pastes,
            max_away_seconds=config.max_away_seconds,
            max_failed_attention_checks=config.max_failed_attention_checks,
            chance_test_alpha=config.chance_test_alpha,
        ),
        participant.attention,
    )
    fields = ["flagged", "flag_reasons"]
    participant.flagged = bool(reasons)
    participant.flag_reasons = reasons
    if participant.completed_at is None:
        last = PlaySession.objects.filter(player=participant.user).aggregate(
            last=Max("finished_at")
        )["last"]
        participant.completed_at = last or timezone.now()
        fields.append("completed_at")
    deselected = participant.flagged and participant.selected_for_analysis
    if deselected:
        participant.selected_for_analysis = False
        fields.append("selected_for_analysis")
    participant.save(update_fields=fields)
    if deselected:
        refresh_human_baseline()
    return participant


def refresh_human_baseline() -> None:
    """Once the analysis sample changed (and the change is committed), rebuild the human
    baseline's trajectories and queue the board's incremental recompute, so the board
    shows the new sample at once rather than after the nightly full recompute. In the
    embedded default the recompute runs in-process."""

    def refresh() -> None:
        from leaderboard.recompute import sync_human_trajectories
        from leaderboard.tasks import recompute_task

        sync_human_trajectories()
        recompute_task.delay()

    transaction.on_commit(refresh, robust=True)


def select_for_analysis(*, seed: int | None = None) -> dict[str, str | None]:
    """For every task set, choose one passing complete participant at random.

    Returns ``{task set name: chosen participant ID or None}``. Re-running with the same
    seed makes the same choice; flagged participants are never chosen.
    """
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    chosen: dict[str, str | None] = {}
    with transaction.atomic():
        Participant.objects.filter(selected_for_analysis=True).update(selected_for_analysis=False)
        for task_set in TaskSet.objects.order_by("name"):
            passing = list(
                Participant.objects.filter(
                    task_set=task_set, flagged=False, completed_at__isnull=False
                )
                .select_related("user")
                .order_by("user__username")
            )
            if not passing:
                chosen[task_set.name] = None
                continue
            pick = rng.choice(passing)
            Participant.objects.filter(pk=pick.pk).update(selected_for_analysis=True)
            chosen[task_set.name] = pick.user.username
        refresh_human_baseline()
    return chosen
