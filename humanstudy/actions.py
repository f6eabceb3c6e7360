"""Every write of the human study goes through here: task sets, participants, completion,
quality flags and the analysis sample. Pure formulas live in ``humanstudy.scoring``."""

from __future__ import annotations

import random
import secrets
import string
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.utils import timezone

from engine import families, sessions
from engine.models import (
    Domain,
    FamilyAttempt,
    FamilyStep,
    FamilyTask,
    Instance,
    PlaySession,
    PlayStep,
)
from engine.seeds import fresh_seed, secret_seed
from humanstudy.models import Participant, StudySettings, TaskSet, TaskSetItem
from humanstudy.scoring import QualityThresholds, StudyMove, StudyTask, pay, quality_problems

STUDY_DOMAINS = ("chemical", "education", "fantasy", "medical", "music")


class StudyError(Exception):
    """A request the study refuses, with a message for the admin or participant."""


def study_domains(config: StudySettings) -> list[str]:
    return list(config.domains) if config.domains else list(STUDY_DOMAINS)


def parse_family_spec(spec: str):
    """ "FAMILY/KIND/LEVEL" (e.g. "puzzles/sudoku/easy", or "kumo/medical/hard" for one more
    KUMO game), checked as every entry point checks it (``engine.families.parse_task_spec``)."""
    from engine.core.families.base import FamilyError
    from engine.families import parse_task_spec

    try:
        return parse_task_spec(spec)
    except FamilyError as error:
        raise StudyError(str(error)) from None


def build_task_sets(
    count: int, *, seed: int | None = None, family_tasks: list[str] = ()
) -> list[TaskSet]:
    """Create ``count`` complete task sets: per study domain one Easy and one Hard task,
    and one task of each ``family_tasks`` entry ("FAMILY/KIND/LEVEL", e.g.
    "puzzles/sudoku/easy", or "kumo/music/hard" for one more KUMO game), in a shuffled
    order.

    Every task is generated for its set alone, with a seed that stays on the server
    (``engine.seeds``): the generators are open source, so a public seed would be the
    answer. The instances are stored with source ``study`` and the family tasks with
    origin ``study``, which keeps them out of every public list and of play outside the
    study (``leaderboard.access``). With ``seed``, the seeds are keyed hashes of it and of
    the set's name and item (the same build on the same server gives the same sets, which
    no one without the server's secret can regenerate); without, they are fresh random.

    Generating and solving ten instances per set takes a moment (a Hard one up to seconds):
    this is an operator's command, run before recruiting.
    """
    from engine.actions import EngineError, do_generate_secret_instance
    from engine.core.families.kumo.generate import GenerationError

    if count < 1:
        raise StudyError("count must be at least 1")
    specs = [parse_family_spec(spec) for spec in family_tasks]
    config = StudySettings.current()
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    levels = (
        (config.easy_truths, config.easy_actions),
        (config.hard_truths, config.hard_actions),
    )
    names = study_domains(config)
    domains = {row.name: row for row in Domain.objects.filter(name__in=names)}
    missing = [name for name in names if name not in domains]
    if missing:
        raise StudyError(f"study domain(s) not loaded: {', '.join(missing)}")

    def item_seed(set_name: str, *parts: object) -> int | None:
        return secret_seed("study", seed, set_name, *parts) if seed is not None else None

    created = []
    for _ in range(count):
        # One transaction per set: a failure keeps the sets already built, and no long
        # transaction holds the database while dozens of instances are solved.
        with transaction.atomic():
            task_set = TaskSet.objects.create(name=f"set-{TaskSet.objects.count() + 1:04d}")
            items = []
            for name in names:
                for n_truths, n_actions in levels:
                    try:
                        instance = do_generate_secret_instance(
                            domains[name],
                            n_truths,
                            n_actions,
                            source=Instance.Source.STUDY,
                            seed=item_seed(task_set.name, name, n_truths, n_actions),
                        )
                    except (GenerationError, EngineError) as error:
                        raise StudyError(
                            f"domain {name!r} cannot make a {n_truths}-truth / "
                            f"{n_actions}-action task: {error}"
                        ) from None
                    items.append({"instance_id": instance.pk})
            for spec in specs:
                spec_seed = item_seed(task_set.name, spec.family, spec.kind, spec.level)
                if spec.is_kumo:  # one more KUMO game, as the study's own are made
                    instance = _fresh_kumo_instance(spec, spec_seed)
                    items.append({"instance_id": instance.pk})
                    continue
                task = _fresh_family_task(spec.family, spec.kind, spec.level, spec_seed)
                items.append({"family_task_id": task.pk})
            rng.shuffle(items)
            TaskSetItem.objects.bulk_create(
                TaskSetItem(task_set=task_set, position=position, **item)
                for position, item in enumerate(items, start=1)
            )
        created.append(task_set)
    return created


def _fresh_kumo_instance(spec, seed: int | None) -> Instance:
    """A KUMO instance of source ``study`` for a ``kumo/DOMAIN/LEVEL`` entry, with a secret
    seed, as the study's own games are generated."""
    from engine.actions import EngineError, do_generate_secret_instance
    from engine.core.families.base import FamilyError
    from engine.core.families.kumo.generate import GenerationError
    from engine.families import kumo_task_setting

    try:
        domain, (n_truths, n_actions) = kumo_task_setting(spec)
        return do_generate_secret_instance(
            domain, n_truths, n_actions, source=Instance.Source.STUDY, seed=seed
        )
    except (FamilyError, GenerationError, EngineError) as error:
        raise StudyError(f"{spec}: {error}") from None


def _fresh_family_task(family: str, kind: str, level: str, seed: int | None) -> FamilyTask:
    """A new task of origin ``study`` with a secret seed (``seed``, or a fresh one; a
    task that already exists under the seed is never taken: another fresh seed is drawn)."""
    from engine.core.families.base import FamilyError, SeedRefused
    from engine.families import do_generate_family_tasks

    for attempt in range(5):
        drawn = seed if seed is not None and attempt == 0 else fresh_seed()
        try:
            report = do_generate_family_tasks(
                family, kind, count=1, seed=drawn, level=level, origin=FamilyTask.Origin.STUDY
            )
        except SeedRefused:
            continue  # a seed with no task: draw another
        except FamilyError as error:
            raise StudyError(str(error)) from None
        if report.created:
            return report.tasks[0]
    raise StudyError(f"could not generate a fresh {family}/{kind}/{level} task")


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


def kind_title(task: FamilyTask) -> str:
    """A family task's kind in words (its family's title for the kind)."""
    from engine.core.families.base import FamilyError, get_family

    try:
        return get_family(task.family).kind(task.kind).title
    except (FamilyError, KeyError):
        return task.kind.replace("_", " ")


def how_played(task: FamilyTask) -> str:
    from engine.core.families.base import FamilyError, get_family

    try:
        interactive = get_family(task.family).interactive
    except (FamilyError, KeyError):
        interactive = False
    if interactive:
        return "a game: play it move by move on its page until it ends"
    return "answer it once, on its page"


@dataclass(frozen=True)
class TaskRow:
    """One task of a participant's set with its play: a KUMO game (``session``) or an
    attempt at another family's task (``attempt``)."""

    position: int
    instance: Instance | None
    session: PlaySession | None
    family_task: FamilyTask | None = None
    attempt: FamilyAttempt | None = None

    @property
    def title(self) -> str:
        if self.family_task is not None:
            return self.family_task.kind.replace("_", " ")
        return self.instance.domain.name

    @property
    def difficulty(self) -> str:
        if self.family_task is not None:
            return f"{self.family_task.level or 'custom'} level"
        return f"{self.instance.n_truths} truths / {self.instance.n_actions} actions"

    @property
    def how(self) -> str:
        """How the task is played, in words."""
        if self.family_task is None:
            return "KUMO game: take actions, then name the one true candidate"
        return f"{kind_title(self.family_task)}: {how_played(self.family_task)}"

    @property
    def played(self):
        return self.attempt if self.family_task is not None else self.session

    @property
    def finished(self) -> bool:
        return self.played is not None and self.played.finished_at is not None

    @property
    def correct(self) -> bool:
        return self.finished and bool(self.played.correct)

    @property
    def actions(self) -> int:
        """Actions charged by the pay formula: a KUMO game's information actions. Another
        family's task has none: a puzzle is answered once, and a game's moves are the game
        itself (docs/human-study.md), recorded as steps for the quality filter."""
        return self.session.actions_taken if self.finished and self.session is not None else 0

    @property
    def status(self) -> str:
        if self.played is None:
            return "not started"
        return "done" if self.finished else "in progress"


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
    families.expire_overdue_attempts(participant.user)
    items = (
        list(
            participant.task_set.items.select_related("instance__domain", "family_task").order_by(
                "position"
            )
        )
        if participant.task_set
        else []
    )
    by_instance = {
        s.instance_id: s
        for s in PlaySession.objects.filter(
            player=participant.user, instance_id__in=[i.instance_id for i in items if i.instance_id]
        )
    }
    by_task = {
        a.task_id: a
        for a in FamilyAttempt.objects.filter(
            player=participant.user,
            model_name="",
            task_id__in=[i.family_task_id for i in items if i.family_task_id],
        )
    }
    return progress_from(items, by_instance, StudySettings.current(), by_task)


def progress_from(
    items: list[TaskSetItem],
    sessions_by_instance: dict[int, PlaySession],
    config: StudySettings,
    attempts_by_task: dict[int, FamilyAttempt] | None = None,
) -> Progress:
    """``progress`` from preloaded rows (lets list pages load everything in a few queries)."""
    attempts_by_task = attempts_by_task or {}
    rows = [
        TaskRow(
            i.position,
            i.instance,
            sessions_by_instance.get(i.instance_id) if i.instance_id else None,
            i.family_task,
            attempts_by_task.get(i.family_task_id) if i.family_task_id else None,
        )
        for i in items
    ]
    finished = [row for row in rows if row.finished]
    successes = sum(1 for row in finished if row.correct)
    actions = sum(row.actions for row in finished)
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


def open_task(participant: Participant, position: int) -> PlaySession | FamilyAttempt:
    """The participant's play of one task of their set (created on first open): a
    session for a KUMO game, an attempt for another family's task."""
    if participant.task_set is None:
        raise StudyError("you have no task set yet; please contact the study team")
    item = (
        participant.task_set.items.filter(position=position)
        .select_related("instance", "family_task")
        .first()
    )
    if item is None:
        raise StudyError(f"there is no task {position} in your set")
    if item.family_task_id:
        attempt, _ = families.start_attempt(participant.user, item.family_task)
        return attempt
    session, _ = sessions.start_session(participant.user, item.instance)
    return session


def participants_attempts() -> dict[int, dict[int, FamilyAttempt]]:
    """Every participant's attempts at family tasks: {user id: {task id: attempt}}."""
    found: dict[int, dict[int, FamilyAttempt]] = defaultdict(dict)
    for attempt in FamilyAttempt.objects.filter(player__participant__isnull=False, model_name=""):
        found[attempt.player_id][attempt.task_id] = attempt
    return found


@dataclass
class ClientReports:
    """A participant's moves and answers in their task set, and how many of them came with
    no report from the task page."""

    moves: int = 0
    unreported: int = 0


def client_reports() -> dict[int, ClientReports]:
    """Every participant's :class:`ClientReports`, by user id (two queries)."""
    found: dict[int, ClientReports] = defaultdict(ClientReports)
    in_set = TaskSetItem.objects.filter(
        task_set_id=OuterRef("session__player__participant__task_set_id"),
        instance_id=OuterRef("session__instance_id"),
    )
    steps = (
        PlayStep.objects.filter(Exists(in_set))
        .values("session__player_id")
        .annotate(moves=Count("pk"), unreported=Count("pk", filter=Q(client__isnull=True)))
    )
    for row in steps:
        found[row["session__player_id"]].moves += row["moves"]
        found[row["session__player_id"]].unreported += row["unreported"]
    # A game of another family: its steps; any other family task: its one answer.
    games = families.interactive_families()
    game_in_set = TaskSetItem.objects.filter(
        task_set_id=OuterRef("attempt__player__participant__task_set_id"),
        family_task_id=OuterRef("attempt__task_id"),
    )
    game_steps = (
        FamilyStep.objects.filter(Exists(game_in_set), attempt__model_name="")
        .values("attempt__player_id")
        .annotate(moves=Count("pk"), unreported=Count("pk", filter=Q(client__isnull=True)))
    )
    for row in game_steps:
        found[row["attempt__player_id"]].moves += row["moves"]
        found[row["attempt__player_id"]].unreported += row["unreported"]
    task_in_set = TaskSetItem.objects.filter(
        task_set_id=OuterRef("player__participant__task_set_id"), family_task_id=OuterRef("task_id")
    )
    answers = (
        FamilyAttempt.objects.filter(Exists(task_in_set), model_name="")
        .exclude(finished_at=None)
        .exclude(task__family__in=games)
        .values("player_id")
        .annotate(moves=Count("pk"), unreported=Count("pk", filter=Q(client__isnull=True)))
    )
    for row in answers:
        found[row["player_id"]].moves += row["moves"]
        found[row["player_id"]].unreported += row["unreported"]
    return found


def in_task_set(participant: Participant, task_id: int) -> bool:
    """Whether the family task is one of the participant's set."""
    return (
        participant.task_set_id is not None
        and TaskSetItem.objects.filter(
            task_set_id=participant.task_set_id, family_task_id=task_id
        ).exists()
    )


def study_tasks(participant: Participant) -> list[StudyTask]:
    """The participant's finished tasks with their moves, for the quality filter. A game of
    another family has its steps as moves; any other family task is one move (its answer),
    with its chance of being right at random."""
    items = list(participant.task_set.items.all()) if participant.task_set else []
    ids = [item.instance_id for item in items if item.instance_id]
    finished = (
        PlaySession.objects.filter(player=participant.user, instance_id__in=ids)
        .exclude(finished_at=None)
        .select_related("instance")
        .prefetch_related("steps")
    )
    tasks = [
        StudyTask(
            n_truths=session.instance.n_truths,
            correct=bool(session.correct),
            actions_taken=session.actions_taken,
            moves=[
                StudyMove(step.kind, step.elapsed_ms, step.client) for step in session.steps.all()
            ],
        )
        for session in finished
    ]
    attempts = (
        FamilyAttempt.objects.filter(
            player=participant.user,
            model_name="",
            task_id__in=[item.family_task_id for item in items if item.family_task_id],
        )
        .exclude(finished_at=None)
        .select_related("task")
        .prefetch_related("steps")
    )
    games = families.interactive_families()
    for attempt in attempts:
        if attempt.task.family in games:
            moves = [
                StudyMove("move", step.elapsed_ms, step.client) for step in attempt.steps.all()
            ]
        else:
            # (An empty report is none: a page's report always holds its signals.)
            moves = [StudyMove("answer", attempt.elapsed_ms or 0, attempt.client or None)]
        tasks.append(
            StudyTask(
                n_truths=0,
                correct=bool(attempt.correct),
                actions_taken=0,
                moves=moves,
                interactive=False,
                random_chance=0.5
                if attempt.task.public.get("answer_format") == "true or false"
                else 0.0,
            )
        )
    return tasks


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
            max_unreported_share=config.max_unreported_share,
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
        last_answer = FamilyAttempt.objects.filter(
            player=participant.user, model_name=""
        ).aggregate(last=Max("finished_at"))["last"]
        ends = [moment for moment in (last, last_answer) if moment is not None]
        participant.completed_at = max(ends) if ends else timezone.now()
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
        from leaderboard.family_recompute import mark_attempts_stale
        from leaderboard.recompute import sync_human_trajectories
        from leaderboard.tasks import recompute_task

        sync_human_trajectories()
        # The families' "People" rows follow the same sample.
        mark_attempts_stale(
            FamilyAttempt.objects.filter(player__participant__isnull=False, model_name="")
        )
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
