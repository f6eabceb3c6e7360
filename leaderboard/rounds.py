"""Every write of the public rounds: creating, preparing, rotating and publishing a round,
and the daily rotation check (docs/rounds.md).

The admin, the management commands and the Celery tasks all go through here: ``check_*``
validates a request, ``do_*`` writes. Jobs claim their work with a conditional
``update()``, so a job delivered twice, or a rotation asked for twice, does no harm.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import mail_admins
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify

from benchmark.jobs import LeaseKeeper, lease_until, requeue_stalled, worker_stopped
from engine.actions import EngineError, do_generate_instances
from engine.core.families.kumo.generate import GenerationError
from engine.families import KUMO, canonical_level
from engine.models import Domain
from leaderboard.actions import queue_recompute
from leaderboard.family_recompute import mark_round_stale as mark_family_round_stale
from leaderboard.models import (
    RotationNotice,
    Round,
    RoundFamilyTask,
    RoundInstance,
    StaleGroup,
    Trajectory,
    two_months_after,
)
from leaderboard.ranked import close_open_ranked

logger = logging.getLogger(__name__)

# The statuses of "the next round": at most one round is in them at a time.
UPCOMING = (Round.Status.DRAFT, Round.Status.PREPARING, Round.Status.PREPARED)
MAX_INSTANCES_PER_SETTING = 10_000
MAX_SEED = 2**62
MAX_RANKED_GAMES = 1_000


class RoundError(Exception):
    """A round request refused; the message is for the user."""


@dataclass(frozen=True)
class RoundSpec:
    """What to prepare, as requested (by the admin form or ``prepare_round``)."""

    domains: Sequence[str]
    settings: Sequence[tuple[int, int]]
    instances: int
    seed: int
    starts_on: date | None = None
    ends_on: date | None = None
    name: str = ""
    ranked_games: int = 20
    # Tasks of the other families: "FAMILY/KIND/LEVEL:COUNT" each (docs/rounds.md).
    family_tasks: Sequence[str] = ()


@dataclass(frozen=True)
class CheckedSpec:
    name: str
    domains: list[Domain]
    settings: list[tuple[int, int]]
    instances: int
    seed: int
    starts_on: date
    ends_on: date
    ranked_games: int
    family_tasks: tuple[dict, ...] = ()


@dataclass(frozen=True)
class Rotation:
    activated: Round
    closed: Round | None
    published: bool


@dataclass(frozen=True)
class RotationStatus:
    """Where the rotation stands on ``today``: the active round and the next one."""

    today: date
    current: Round | None
    upcoming: Round | None
    failed: Round | None

    @property
    def prepared(self) -> bool:
        return self.upcoming is not None and self.upcoming.status == Round.Status.PREPARED

    @property
    def next_rotation(self) -> date | None:
        if self.current is not None:
            return self.current.ends_on
        if self.prepared:
            return self.upcoming.starts_on
        return None

    @property
    def days_left(self) -> int | None:
        when = self.next_rotation
        return None if when is None else (when - self.today).days

    @property
    def due(self) -> bool:
        return self.days_left is not None and self.days_left <= 0

    def describe_upcoming(self) -> str:
        """One sentence on the next round, for messages, the admin and ``round_status``."""
        upcoming = self.upcoming
        if upcoming is None:
            text = "No next round is prepared"
            if self.failed is not None:
                text += f" (round {self.failed.name} failed: {self.failed.error})"
            return text + "."
        if upcoming.status == Round.Status.PREPARED:
            return (
                f"Round {upcoming.name} is prepared ({upcoming.prepared_instances} instances, "
                f"{upcoming.starts_on} to {upcoming.ends_on})."
            )
        return (
            f"Round {upcoming.name} is {upcoming.get_status_display()} "
            f"({upcoming.prepared_instances}/{upcoming.total_instances} instances), not "
            "prepared yet."
        )


# -- checks ----------------------------------------------------------------------------------


def parse_settings(text: str) -> list[tuple[int, int]]:
    """``"4x6,12x16"`` → ``[(4, 6), (12, 16)]``; every bad part is named."""
    pairs: list[tuple[int, int]] = []
    problems: list[str] = []
    for part in (item.strip() for item in text.split(",")):
        if not part:
            continue
        truths, sep, actions = part.lower().partition("x")
        if not sep or not truths.isdigit() or not actions.isdigit():
            problems.append(f"{part!r} is not a setting: write TRUTHSxACTIONS, e.g. 4x6")
            continue
        pairs.append((int(truths), int(actions)))
    if problems:
        raise RoundError("; ".join(problems))
    if not pairs:
        raise RoundError("give at least one setting, e.g. 4x6,12x16")
    return pairs


def parse_names(text: str) -> list[str]:
    """``"medical, music"`` → ``["medical", "music"]``."""
    return [name.strip() for name in text.split(",") if name.strip()]


def check_round_spec(spec: RoundSpec, *, today: date | None = None) -> CheckedSpec:
    """Validate a request to prepare a round; raises ``RoundError`` listing every problem.

    Without a start date the round starts when the active round ends (or today if no
    round is active); without an end date it ends two calendar months after its start.
    Its name defaults to the start's year and month (``2025-03``).
    """
    today = today or timezone.localdate()
    problems: list[str] = []
    names = list(dict.fromkeys(spec.domains))
    if len(names) != len(spec.domains):
        problems.append("a domain is listed twice")
    if not names:
        problems.append("choose at least one domain")
    by_name = {row.name: row for row in Domain.objects.filter(name__in=names)}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        known = ", ".join(Domain.objects.order_by("name").values_list("name", flat=True))
        problems.append(
            f"unknown domain(s): {', '.join(unknown)} (known domains: {known or 'none yet'})"
        )
    pairs = list(spec.settings)
    if not pairs:
        problems.append("choose at least one setting, e.g. 4x6")
    if len(set(pairs)) != len(pairs):
        problems.append("a setting is listed twice")
    for n_truths, n_actions in pairs:
        if n_truths < 2 or n_actions < 1:
            problems.append(f"setting {n_truths}x{n_actions}: need at least 2 truths and 1 action")
            continue
        for name in names:
            row = by_name.get(name)
            if row is not None and (n_truths > row.truth_count or n_actions > row.action_count):
                problems.append(
                    f"setting {n_truths}x{n_actions} does not fit domain {name} "
                    f"({row.truth_count} truths, {row.action_count} actions)"
                )
    if not 1 <= spec.instances <= MAX_INSTANCES_PER_SETTING:
        problems.append(
            f"instances per setting must be between 1 and {MAX_INSTANCES_PER_SETTING}, "
            f"got {spec.instances}"
        )
    if not 1 <= spec.ranked_games <= MAX_RANKED_GAMES:
        problems.append(
            f"ranked games per domain and setting must be between 1 and {MAX_RANKED_GAMES}, "
            f"got {spec.ranked_games}"
        )
    if not 0 <= spec.seed <= MAX_SEED:
        problems.append(f"the seed must be between 0 and {MAX_SEED}, got {spec.seed}")
    current = Round.objects.filter(status=Round.Status.ACTIVE).first()
    starts_on = spec.starts_on or (current.ends_on if current else today)
    ends_on = spec.ends_on or two_months_after(starts_on)
    if ends_on <= starts_on:
        problems.append(f"the round must end after it starts ({starts_on}), got {ends_on}")
    name = spec.name.strip() or f"{starts_on:%Y-%m}"
    if slugify(name) != name.lower() or not name:
        problems.append(f"the name {name!r} may use only letters, digits and hyphens")
    family_tasks = _check_family_tasks(spec.family_tasks, problems)
    problems += _check_kumo_overlap(names, pairs, family_tasks)
    if problems:
        raise RoundError("\n".join(problems))
    checked = CheckedSpec(
        name=name,
        domains=[by_name[name] for name in names],
        settings=pairs,
        instances=spec.instances,
        seed=spec.seed,
        starts_on=starts_on,
        ends_on=ends_on,
        ranked_games=spec.ranked_games,
        family_tasks=family_tasks,
    )
    _check_seeds_unused(checked)
    return checked


MAX_FAMILY_TASKS = 500


def _check_family_tasks(specs: Sequence[str], problems: list[str]) -> tuple[dict, ...]:
    """Parse "FAMILY/KIND/LEVEL:COUNT" requests, noting every problem. KUMO's games are the
    family ``kumo`` (kind a domain, level easy or hard): such an entry stores the level's
    truths and actions with it, so the round keeps its meaning if the levels change."""
    from engine.core.families.base import FamilyError
    from engine.families import check_task_spec, kumo_task_setting

    found = []
    for text in specs:
        head, _, count = text.strip().partition(":")
        parts = head.split("/")
        if len(parts) != 3 or not count.strip().isdigit():
            problems.append(f"family task {text!r}: write FAMILY/KIND/LEVEL:COUNT")
            continue
        family, kind, level = parts
        try:
            spec = check_task_spec(family, kind, level)
            setting = kumo_task_setting(spec)[1] if spec.is_kumo else None
        except FamilyError as error:
            problems.append(f"family task {text!r}: {error}")
            continue
        number = int(count)
        most = MAX_INSTANCES_PER_SETTING if spec.is_kumo else MAX_FAMILY_TASKS
        if not 1 <= number <= most:
            problems.append(f"family task {text!r}: count must be 1 to {most}")
            continue
        # Kept as given: the round's secret seeds derive from the name. A level named twice,
        # by its name and a former one, is one level (engine.families.canonical_level).
        entry = {"family": family, "kind": kind, "level": level, "count": number}
        if setting is not None:
            entry["truths"], entry["actions"] = setting
        same = canonical_level(family, kind, level)
        if any(
            (e["family"], e["kind"], canonical_level(e["family"], e["kind"], e["level"]))
            == (family, kind, same)
            for e in found
        ):
            problems.append(f"family task {text!r} is listed twice")
            continue
        found.append(entry)
    return tuple(found)


def _check_kumo_overlap(
    names: Sequence[str], pairs: Sequence[tuple[int, int]], entries: Sequence[dict]
) -> list[str]:
    """A ``kumo`` family task whose domain and setting the round's domains and settings
    already hold would ask for the same games twice (their seeds are the same)."""
    return [
        f"family task kumo/{e['kind']}/{e['level']}: domain {e['kind']} at "
        f"{e['truths']}x{e['actions']} is already in the round's domains and settings"
        for e in entries
        if e["family"] == KUMO and e["kind"] in names and (e["truths"], e["actions"]) in pairs
    ]


def _check_seeds_unused(checked: CheckedSpec) -> None:
    """Refuse a round seed another round already has: a round's tasks follow from its seed
    (and the server's secret, ``round_seeds``), and a published (or merely played) task must
    never come back. The round's seed is no secret; the seeds derived from it are."""
    taken = Round.objects.filter(seed=checked.seed).exclude(name=checked.name).first()
    if taken is not None:
        raise RoundError(
            f"seed {checked.seed} is already the seed of round {taken.name}: a round's tasks "
            "follow from its seed, and a task is used by one round only; choose another seed"
        )


def round_seeds(target: Round, source: str, kind: str, level: str, count: int) -> list[int]:
    """The secret seeds of a round's pinned tasks of one source (a KUMO domain, or a
    family) and kind (a setting such as ``4x6``, or the family's kind) and level: a keyed
    hash of the round's seed and the task's place (``engine.seeds.secret_seed``). The
    same round prepared again on this server gets the same tasks, so a preparation can
    resume; under another ``TASK_SEED_SECRET`` it gets others, and no one without the
    secret can compute them from the round's seed."""
    from engine.seeds import secret_seed

    return [secret_seed("round", target.seed, source, kind, level, i) for i in range(count)]


def _same_spec(existing: Round, checked: CheckedSpec) -> bool:
    return (
        set(existing.domains.values_list("pk", flat=True)) == {row.pk for row in checked.domains}
        and existing.setting_pairs == checked.settings
        and existing.instances_per_setting == checked.instances
        and existing.seed == checked.seed
        and existing.starts_on == checked.starts_on
        and existing.ends_on == checked.ends_on
        and existing.ranked_games == checked.ranked_games
        and list(existing.family_specs) == list(checked.family_tasks)
    )


# -- preparing -------------------------------------------------------------------------------


def do_create_round(spec: RoundSpec, *, created_by: User | None = None) -> tuple[Round, bool]:
    """Store a new round in ``draft``; returns ``(round, created)``.

    The same request again returns the existing round (``created`` False). Only one
    round may be on its way (draft, preparing or prepared) at a time.
    """
    checked = check_round_spec(spec)
    with transaction.atomic():
        existing = Round.objects.select_for_update().filter(name=checked.name).first()
        if existing is not None:
            if _same_spec(existing, checked):
                return existing, False
            raise RoundError(
                f"a round named {checked.name} already exists ({existing.get_status_display()}) "
                "with other settings; choose another name"
            )
        upcoming = Round.objects.filter(status__in=UPCOMING).first()
        if upcoming is not None:
            raise RoundError(
                f"round {upcoming.name} is already the next round "
                f"({upcoming.get_status_display()}): rotate it in, or delete it in the admin, "
                "before preparing another"
            )
        try:
            with transaction.atomic():
                target = Round.objects.create(
                    name=checked.name,
                    task_settings=[list(pair) for pair in checked.settings],
                    instances_per_setting=checked.instances,
                    ranked_games=checked.ranked_games,
                    seed=checked.seed,
                    starts_on=checked.starts_on,
                    ends_on=checked.ends_on,
                    total_instances=len(checked.domains) * len(checked.settings) * checked.instances
                    + sum(entry["count"] for entry in checked.family_tasks),
                    family_specs=list(checked.family_tasks),
                    created_by=created_by,
                )
        except IntegrityError:
            raise RoundError(f"a round named {checked.name} was created meanwhile") from None
        target.domains.set(checked.domains)
    return target, True


def do_queue_preparation(target: Round) -> None:
    """Queue the preparation job once the current transaction commits."""
    from leaderboard.tasks import prepare_round_task

    transaction.on_commit(lambda: prepare_round_task.delay(target.pk))


def do_retry_preparation(target: Round) -> bool:
    """Put a failed round back to ``draft`` and queue its preparation again.

    Instances already stored and pinned are kept (storing them again is a no-op).
    """
    with transaction.atomic():
        upcoming = Round.objects.filter(status__in=UPCOMING).exclude(pk=target.pk).first()
        if upcoming is not None:
            raise RoundError(
                f"round {upcoming.name} is already the next round; delete it before retrying "
                f"round {target.name}"
            )
        changed = Round.objects.filter(pk=target.pk, status=Round.Status.FAILED).update(
            status=Round.Status.DRAFT, error="", attempts=0, lease_expires_at=None
        )
        if changed:
            do_queue_preparation(target)
    return bool(changed)


ProgressCallback = Callable[[Round, Domain, int, int], None]


def do_prepare_round(round_id: int, *, progress: ProgressCallback | None = None) -> Round | None:
    """Generate, solve and pin every instance of a draft round; it ends prepared or failed.

    1. Claim the round (draft → preparing) with a conditional update; if another job got
       it first, return ``None`` and do nothing.
    2. Per domain and setting, ``engine.actions.do_generate_instances`` stores the
       instances (secret seeds derived from the round's seed, ``round_seeds``) with
       oracle values and a checked book; instances already stored with the same content
       are reused. They are pinned to the round and the progress counter moves on.
    3. With every instance pinned, the round is prepared; a generation problem marks it
       failed with the reason (it may be queued again), and an interruption does too.
    """
    claimed = Round.objects.filter(pk=round_id, status=Round.Status.DRAFT).update(
        status=Round.Status.PREPARING,
        preparation_started_at=timezone.now(),
        prepared_instances=0,
        error="",
        attempts=F("attempts") + 1,
        lease_expires_at=lease_until(settings.ROUND_LEASE_SECONDS),
    )
    if not claimed:
        return None
    target = Round.objects.get(pk=round_id)
    with LeaseKeeper(Round, round_id, settings.ROUND_LEASE_SECONDS, status=Round.Status.PREPARING):
        try:
            _generate(target, progress)
        except (GenerationError, EngineError, RoundError) as error:
            _fail(target, str(error))
        except BaseException as error:
            _fail(target, f"interrupted: {error!r}")
            raise
    target.refresh_from_db()
    return target


def requeue_stalled_preparations() -> list[int]:
    """Beat, every 10 s (``benchmark.jobs.requeue_stalled``): a round preparing past its
    lease lost its worker; queue it again (stored instances are reused, so it goes on where
    it stopped), or after ROUND_MAX_ATTEMPTS tries fail it with the reason (staff may retry
    it). A draft round whose queued job was lost (a broker restart) is queued again after a
    grace period. Either is queued at most once per grace period, and claims are conditional
    updates, so two beats at once queue a round once."""
    from leaderboard.tasks import prepare_round_task

    return requeue_stalled(
        Round,
        queued_field="created_at",
        grace_seconds=settings.SUBMISSION_PENDING_GRACE_SECONDS,
        max_attempts=settings.ROUND_MAX_ATTEMPTS,
        failed=lambda tries: {
            "error": worker_stopped(
                tries, "retry the preparation to go on (instances stored so far are kept)"
            )
        },
        queue=prepare_round_task.delay,
        pending=Round.Status.DRAFT,
        running=Round.Status.PREPARING,
        finished_field=None,
    )


def _generate(target: Round, progress: ProgressCallback | None) -> None:
    done = 0
    for domain in target.domains.order_by("name"):
        for n_truths, n_actions in target.setting_pairs:
            count = target.instances_per_setting
            done = _pin_kumo(target, domain, n_truths, n_actions, count, done, progress)
    done = _generate_family_tasks(target, done, progress)
    pinned = target.pins.count() + target.family_pins.count()
    if pinned != target.total_instances:
        # Only possible if another round pinned some of these instances meanwhile.
        raise RoundError(
            f"{pinned} of {target.total_instances} instances could be pinned to the round"
        )
    Round.objects.filter(pk=target.pk, status=Round.Status.PREPARING).update(
        status=Round.Status.PREPARED, prepared_at=timezone.now(), lease_expires_at=None
    )


def _pin_kumo(
    target: Round,
    domain: Domain,
    n_truths: int,
    n_actions: int,
    count: int,
    done: int,
    progress: ProgressCallback | None,
) -> int:
    """Generate (or find, when a preparation resumes) and pin ``count`` KUMO instances of
    one domain and setting, with the round's secret seeds; returns the count pinned so far.
    One path for the round's domains × settings and its ``kumo`` family tasks: the same
    domain and setting get the same seeds either way (``round_seeds``)."""
    seeds = round_seeds(target, domain.name, f"{n_truths}x{n_actions}", "", count)
    _cores, report = do_generate_instances(
        domain, n_truths=n_truths, n_actions=n_actions, seeds=seeds
    )
    rows = report.instances
    taken = (
        RoundInstance.objects.filter(instance__in=rows)
        .exclude(round=target)
        .select_related("round")
        .first()
    )
    if taken is not None:
        # No seed in the message: it is secret, and the error is shown in the admin.
        raise RoundError(
            f"an instance of {domain.name} {n_truths}x{n_actions} already belongs to "
            f"round {taken.round.name}"
        )
    RoundInstance.objects.bulk_create(
        [RoundInstance(round=target, instance=row) for row in rows], ignore_conflicts=True
    )
    done += len(rows)
    Round.objects.filter(pk=target.pk).update(prepared_instances=done)
    target.prepared_instances = done
    if progress is not None:
        progress(target, domain, n_truths, n_actions)
    return done


def _generate_family_tasks(target: Round, done: int, progress: ProgressCallback | None) -> int:
    """Generate and pin the round's tasks of the other families (secret seeds from the
    round's seed, ``round_seeds``), and its ``kumo`` entries as its domains' instances are
    (``_pin_kumo``). A task that existed before (generated in public, or another round's)
    is refused: a round's tasks are new to everyone."""
    from engine.families import do_generate_family_tasks
    from engine.models import FamilyTask

    for entry in target.family_specs:
        family, kind, level = entry["family"], entry["kind"], entry["level"]
        if family == KUMO:
            domain = Domain.objects.filter(name=kind).first()
            if domain is None:
                raise RoundError(f"domain {kind} is no longer stored")
            done = _pin_kumo(
                target, domain, entry["truths"], entry["actions"], entry["count"], done, progress
            )
            continue
        seeds = round_seeds(target, family, kind, level, entry["count"])
        before = set(
            FamilyTask.objects.filter(family=family, kind=kind, seed__in=seeds).values_list(
                "pk", flat=True
            )
        )
        report = do_generate_family_tasks(
            family, kind, seeds=seeds, level=level, for_round=True, origin=FamilyTask.Origin.ROUND
        )
        mine = set(target.family_pins.values_list("task_id", flat=True))
        seen = [task for task in report.tasks if task.pk not in mine and task.pk in before]
        taken = (
            RoundFamilyTask.objects.filter(task__in=report.tasks)
            .exclude(round=target)
            .select_related("round")
            .first()
        )
        if taken is not None or seen:
            owner = f"round {taken.round.name}" if taken is not None else "the public tasks"
            # No seed in the message: the round's seeds are secret until it is published.
            raise RoundError(
                f"a task of {family}/{kind}/{level} generated for this round already belongs "
                f"to {owner}: a round's tasks are new to everyone, choose another seed"
            )
        RoundFamilyTask.objects.bulk_create(
            [RoundFamilyTask(round=target, task=task) for task in report.tasks],
            ignore_conflicts=True,
        )
        done += len(report.tasks)
        Round.objects.filter(pk=target.pk).update(prepared_instances=done)
        target.prepared_instances = done
    return done


def _fail(target: Round, message: str) -> None:
    Round.objects.filter(pk=target.pk, status=Round.Status.PREPARING).update(
        status=Round.Status.FAILED, error=message[:5000], lease_expires_at=None
    )


# -- rotating and publishing -----------------------------------------------------------------


def _not_prepared(upcoming: Round | None, failed: Round | None) -> str:
    status = RotationStatus(timezone.localdate(), None, upcoming, failed)
    hint = (
        ""
        if upcoming is not None
        else (
            " Prepare one first (python manage.py prepare_round, or 'Prepare next round' in the "
            "admin)."
        )
    )
    return f"Nothing to rotate in: {status.describe_upcoming()}{hint}"


def do_rotate(
    *,
    publish: bool = False,
    target: Round | None = None,
    if_current: int | None | Literal["any"] = "any",
) -> Rotation:
    """Activate the prepared round and close the active one (publishing it if asked).

    ``target``: rotate in exactly this round (refused unless it is prepared).
    ``if_current``: rotate only if the active round is still this one (its pk, or None
    for no active round): the daily check passes what it saw, so two checks running at
    once rotate once. Every refusal raises ``RoundError`` and changes nothing.
    """
    now = timezone.now()
    with transaction.atomic():
        upcoming = (
            Round.objects.select_for_update()
            .filter(status__in=UPCOMING)
            .order_by("starts_on", "pk")
            .first()
        )
        if target is not None:
            target.refresh_from_db()
            if target.status != Round.Status.PREPARED:
                raise RoundError(
                    f"round {target.name} is {target.get_status_display()}, not prepared: "
                    "only a prepared round can be rotated in"
                )
            upcoming = target
        if upcoming is None or upcoming.status != Round.Status.PREPARED:
            failed = Round.objects.filter(status=Round.Status.FAILED).order_by("-pk").first()
            raise RoundError(_not_prepared(upcoming, failed))
        current = Round.objects.select_for_update().filter(status=Round.Status.ACTIVE).first()
        if if_current != "any" and (current.pk if current else None) != if_current:
            raise RoundError("the active round changed meanwhile; nothing was rotated")
        if current is not None:
            Round.objects.filter(pk=current.pk, status=Round.Status.ACTIVE).update(
                status=Round.Status.CLOSED, closed_at=now, published_at=now if publish else None
            )
            # Ranked games and attempts left open count as unsolved: dropping a hard one
            # cannot help.
            close_open_ranked(current)
            # Its ranked family attempts (and, published, its pinned tasks' attempts) now
            # count on the family board.
            mark_family_round_stale(current)
        activated = Round.objects.filter(pk=upcoming.pk, status=Round.Status.PREPARED).update(
            status=Round.Status.ACTIVE, activated_at=now
        )
        if not activated:
            raise RoundError(f"round {upcoming.name} changed meanwhile; nothing was rotated")
        _mark_round_stale(upcoming)
        queue_recompute()
    upcoming.refresh_from_db()
    if current is not None:
        current.refresh_from_db()
    return Rotation(activated=upcoming, closed=current, published=publish and current is not None)


def _mark_round_stale(target: Round) -> int:
    """Mark every (model, domain, setting) with results on the round's instances stale, so
    the next recompute builds the round's board rows. One query to find, one to write."""
    groups = (
        Trajectory.objects.filter(
            active=True,
            instance_id__in=RoundInstance.objects.filter(round=target).values("instance_id"),
        )
        .values_list("model_id", "domain_id", "n_truths", "n_actions")
        .distinct()
    )
    marks = [
        StaleGroup(model_id=model_id, domain_id=domain_id, n_truths=t, n_actions=a)
        for model_id, domain_id, t, a in groups
    ]
    # A newer ``marked_at`` keeps a recompute already running from deleting the mark.
    StaleGroup.objects.bulk_create(
        marks,
        update_conflicts=True,
        unique_fields=["model", "domain", "n_truths", "n_actions"],
        update_fields=["marked_at"],
    )
    return len(marks)


def do_publish(target: Round) -> bool:
    """Publish a closed round's instances (with their valid truths); False if already."""
    target.refresh_from_db()
    if target.status != Round.Status.CLOSED:
        raise RoundError(
            f"round {target.name} is {target.get_status_display()}: only a closed round's "
            "instances can be published, never the active round's"
        )
    with transaction.atomic():
        changed = Round.objects.filter(
            pk=target.pk, status=Round.Status.CLOSED, published_at__isnull=True
        ).update(published_at=timezone.now())
        if changed:
            # The attempts at its pinned family tasks now count on the family board.
            mark_family_round_stale(target)
            queue_recompute()
    target.refresh_from_db()
    return bool(changed)


# -- the daily check -------------------------------------------------------------------------


def rotation_status(today: date | None = None) -> RotationStatus:
    """The active round and the next one (two queries, three if none is on its way)."""
    today = today or timezone.localdate()
    rounds = list(
        Round.objects.filter(status__in=(Round.Status.ACTIVE, *UPCOMING)).order_by(
            "starts_on", "pk"
        )
    )
    current = next((r for r in rounds if r.status == Round.Status.ACTIVE), None)
    upcoming = next((r for r in rounds if r.status != Round.Status.ACTIVE), None)
    failed = None
    if upcoming is None:
        # A failed preparation matters only if it is newer than the active round.
        failures = Round.objects.filter(status=Round.Status.FAILED)
        if current is not None and current.activated_at is not None:
            failures = failures.filter(created_at__gte=current.activated_at)
        failed = failures.order_by("-pk").first()
    return RotationStatus(today=today, current=current, upcoming=upcoming, failed=failed)


@dataclass(frozen=True)
class CheckResult:
    status: RotationStatus
    notices: list[RotationNotice]
    rotation: Rotation | None


def do_check_rotation(today: date | None = None) -> CheckResult:
    """The daily check: warn the admins, and rotate a prepared round in when it is due.

    - Due (the active round's end date reached) with a prepared round: rotate it in if
      ``ROUNDS_AUTO_ROTATE`` (the old round is closed, not published), else warn.
    - Due with no prepared round: warn; nothing is rotated, ever.
    - Due within ``ROUNDS_WARN_DAYS`` days with no prepared round: warn.
    - No active round: a prepared round whose start date is reached is rotated in (or
      announced, without auto-rotation).

    Each warning is recorded once per round, kind and day (a ``RotationNotice``, shown in
    the admin) and mailed to ``ADMINS`` when first recorded, so running the check twice
    sends nothing new. The rotation is guarded by ``if_current``.
    """
    status = rotation_status(today)
    today = status.today
    current, upcoming = status.current, status.upcoming
    notices: list[RotationNotice] = []
    rotation = None
    days_left = status.days_left
    if days_left is None:
        return CheckResult(status, notices, None)
    if current is None:
        # Only reached with a prepared round (otherwise there is no rotation date).
        if days_left > 0:
            return CheckResult(status, notices, None)
        if settings.ROUNDS_AUTO_ROTATE:
            rotation = _auto_rotate(None, today, notices)
        else:
            notices.append(
                _notify(
                    upcoming,
                    RotationNotice.Kind.WAITING,
                    today,
                    f"Round {upcoming.name} is prepared and was due to start on "
                    f"{upcoming.starts_on}; no round is active. Rotate it in (admin: Rounds → "
                    "Rotate now, or python manage.py rotate_round).",
                )
            )
        return CheckResult(status, notices, rotation)
    ending = f"Round {current.name} ends on {current.ends_on}"
    if days_left <= 0:
        ending = f"Round {current.name} ended on {current.ends_on}" + (
            f" ({-days_left} days overdue)" if days_left < 0 else " (today)"
        )
        if status.prepared and settings.ROUNDS_AUTO_ROTATE:
            rotation = _auto_rotate(current, today, notices)
        elif status.prepared:
            notices.append(
                _notify(
                    current,
                    RotationNotice.Kind.WAITING,
                    today,
                    f"{ending}. {status.describe_upcoming()} Automatic rotation is off "
                    "(ROUNDS_AUTO_ROTATE=0): rotate it in (admin: Rounds → Rotate now, or "
                    "python manage.py rotate_round).",
                )
            )
        else:
            notices.append(
                _notify(
                    current,
                    RotationNotice.Kind.OVERDUE,
                    today,
                    f"{ending}. {status.describe_upcoming()} Nothing was rotated: prepare "
                    "the next round (admin: Rounds → Prepare next round, or python manage.py "
                    "prepare_round); it is rotated in once prepared.",
                )
            )
    elif days_left <= settings.ROUNDS_WARN_DAYS and not status.prepared:
        notices.append(
            _notify(
                current,
                RotationNotice.Kind.DUE_SOON,
                today,
                f"{ending} (in {days_left} days). {status.describe_upcoming()} Prepare the "
                "next round (admin: Rounds → Prepare next round, or python manage.py "
                "prepare_round).",
            )
        )
    return CheckResult(status, notices, rotation)


def _auto_rotate(
    current: Round | None, today: date, notices: list[RotationNotice]
) -> Rotation | None:
    try:
        rotation = do_rotate(if_current=current.pk if current else None)
    except RoundError as error:
        # Another check (or an admin) rotated meanwhile: nothing to do.
        logger.info("rotation check: %s", error)
        return None
    closed = f"; round {rotation.closed.name} is closed (not published)" if rotation.closed else ""
    notices.append(
        _notify(
            rotation.activated,
            RotationNotice.Kind.ROTATED,
            today,
            f"Rotated automatically: round {rotation.activated.name} is active until "
            f"{rotation.activated.ends_on}{closed}. Publish the old round's instances from "
            "the admin when you are ready.",
        )
    )
    return rotation


def _notify(target: Round, kind: str, day: date, message: str) -> RotationNotice:
    """Record a notice once per (round, kind, day) and mail it the first time."""
    notice, created = RotationNotice.objects.get_or_create(
        round=target, kind=kind, day=day, defaults={"message": message}
    )
    if created and settings.ADMINS:
        subject = f"KUMO rounds: {notice.get_kind_display()} ({target.name})"
        try:
            mail_admins(subject, message)
        except (OSError, smtplib.SMTPException) as error:
            # The notice stays visible in the admin; mail is a courtesy.
            logger.warning("rotation check: could not mail the admins: %s", error)
        else:
            notice.mailed = True
            notice.save(update_fields=["mailed"])
    return notice
