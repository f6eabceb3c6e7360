"""Which instances a player may see and play, and when an answer may be revealed.

The rounds decide both (docs/rounds.md, docs/verified-evaluation.md):

- an instance pinned to a round that is not public yet (draft, preparing, prepared, failed)
  is invisible and unplayable until the round goes live;
- an instance generated for a ranked game, or for a practice game (``engine.practice``), is
  never listed nor offered to anyone: its one session is opened by ``leaderboard.ranked``
  or ``engine.practice``;
- a study task set's instance or family task (source / origin ``study``) is never listed
  nor offered outside the study: its participants open it through ``humanstudy.path``;
- the valid truth and the unplayed observations of a round's instance stay on the server
  while the round is live: a ranked game's until the round closes, a pinned instance's
  until the round's instances are published; a ranked family attempt's reference likewise
  until its round closes;
- a seed that regenerates such a hidden part is never served before then (``shown_seed``);
- a results file may answer only family tasks whose answers are no secret
  (``answerable_family_tasks``).
"""

from __future__ import annotations

from django.db import connection
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, QuerySet

from benchmark.compiled_sql import Prepared
from engine.models import UNLISTED_SOURCES, Instance
from leaderboard.models import RankedGame, Round, RoundInstance

# Rounds whose instances are visible and whose board is public (and so computed).
PUBLIC_ROUNDS = (Round.Status.ACTIVE, Round.Status.CLOSED)


def playable_instances(queryset: QuerySet[Instance] | None = None) -> QuerySet[Instance]:
    """``queryset`` (default: every instance) without ranked, practice and study instances
    and without the instances of rounds that are not public yet."""
    queryset = Instance.objects.all() if queryset is None else queryset
    hidden_pins = RoundInstance.objects.filter(instance=OuterRef("pk")).exclude(
        round__status__in=PUBLIC_ROUNDS
    )
    return queryset.exclude(source__in=UNLISTED_SOURCES).exclude(Exists(hidden_pins))


def _ranked_open(instance_id):
    return (
        RankedGame.objects.filter(instance_id=instance_id)
        .exclude(round__status=Round.Status.CLOSED)
        .order_by()
        .values_list("pk")[:1]
    )


def _pinned_unpublished(instance_id):
    return (
        RoundInstance.objects.filter(instance_id=instance_id)
        .filter(~Q(round__status=Round.Status.CLOSED) | Q(round__published_at__isnull=True))
        .order_by()
        .values_list("pk")[:1]
    )


# Asked at the end of every game: compiled once per process (benchmark.compiled_sql).
_RANKED_OPEN = Prepared(_ranked_open)
_PINNED_UNPUBLISHED = Prepared(_pinned_unpublished)


def answer_is_secret(instance_id: int, source: str | None = None) -> bool:
    """Whether a finished game on this instance must still keep its answer to itself.

    True for an instance of a ranked game whose round has not closed, and for an instance
    pinned to a round whose instances are not published yet (two small indexed queries).
    ``source``, the instance's ``Instance.source`` where the caller has it: a ranked game is
    only ever played on an instance generated for it (``leaderboard.ranked``), so any other
    instance needs the second query only.
    """
    if source is None or source == Instance.Source.RANKED:
        if _RANKED_OPEN.rows(connection, instance_id):
            return True
    return bool(_PINNED_UNPUBLISHED.rows(connection, instance_id))


def visible_family_tasks(queryset=None):
    """Family tasks anyone may list and play: not those pinned to a round that is not
    public yet, never a study task set's (its participants open it through the study), and
    never a ranked attempt's own task (its one attempt is opened by
    ``leaderboard.ranked_families``)."""
    from engine.models import FamilyTask
    from leaderboard.models import RoundFamilyTask

    queryset = FamilyTask.objects.all() if queryset is None else queryset
    hidden = RoundFamilyTask.objects.filter(task=OuterRef("pk")).exclude(
        round__status__in=PUBLIC_ROUNDS
    )
    unlisted = (FamilyTask.Origin.STUDY, FamilyTask.Origin.RANKED)
    return queryset.exclude(origin__in=unlisted).exclude(Exists(hidden))


def answerable_family_tasks(queryset=None):
    """Family tasks a results file may answer (``leaderboard.family_uploads``): the visible
    ones (``visible_family_tasks``) whose answers are no secret, so never a task pinned to
    a round whose tasks are not published yet, live or closed. An upload is scored at once
    and shown on the board, so answering a hidden task would make it an answer oracle."""
    from leaderboard.models import RoundFamilyTask

    secret = RoundFamilyTask.objects.filter(task=OuterRef("pk")).filter(_unpublished())
    return visible_family_tasks(queryset).exclude(Exists(secret))


def family_answer_is_secret(task_id: int) -> bool:
    """Whether a family task's reference answer (and an attempt's score) must stay on the
    server: the task is pinned to a round that has not closed, or whose tasks are not
    published yet."""
    from leaderboard.models import RoundFamilyTask

    return (
        RoundFamilyTask.objects.filter(task_id=task_id)
        .filter(~Q(round__status=Round.Status.CLOSED) | Q(round__published_at__isnull=True))
        .exists()
    )


def ranked_family_result_is_secret(task_id: int) -> bool:
    """Whether a ranked attempt's task keeps its reference answer (and the details of the
    score, which may show it) to itself: its round has not closed yet. Its player is told
    right or wrong and the score at once."""
    from leaderboard.models import RankedFamilyAttempt

    return (
        RankedFamilyAttempt.objects.filter(task_id=task_id)
        .exclude(round__status=Round.Status.CLOSED)
        .exists()
    )


# -- seeds: when a task's seed may be served ------------------------------------------------
#
# Our generators are open source and deterministic, so a seed regenerates its task's hidden
# part (engine.seeds). One rule decides, for every API, page and export, whether a seed may
# be shown: a practice or imported task's always (its answer is shown anyway), a round's
# pinned task's or instance's once the round's answers are published, a ranked task's or
# instance's once its round has closed, a study task's never. A hidden seed is served as
# null (``shown_seed``).


def _unpublished(prefix: str = "round__") -> Q:
    return ~Q(**{f"{prefix}status": Round.Status.CLOSED}) | Q(
        **{f"{prefix}published_at__isnull": True}
    )


def instance_seed_shown() -> Q:
    """A filter on ``Instance``: its seed may be served (not a study task set's, neither
    pinned to a round whose instances are unpublished nor a ranked game's of a round still
    open)."""
    pinned = RoundInstance.objects.filter(instance=OuterRef("pk")).filter(_unpublished())
    ranked_open = RankedGame.objects.filter(instance=OuterRef("pk")).exclude(
        round__status=Round.Status.CLOSED
    )
    return ~Q(source=Instance.Source.STUDY) & ~Exists(pinned) & ~Exists(ranked_open)


def family_seed_shown() -> Q:
    """A filter on ``FamilyTask``: its seed may be served (the rule above, by origin)."""
    from engine.models import FamilyTask
    from leaderboard.models import RankedFamilyAttempt, RoundFamilyTask

    origin = FamilyTask.Origin
    pins = RoundFamilyTask.objects.filter(task=OuterRef("pk"))
    ranked_closed = RankedFamilyAttempt.objects.filter(
        task=OuterRef("pk"), round__status=Round.Status.CLOSED
    )
    return (
        (Q(origin__in=(origin.PUBLIC, origin.IMPORTED)) & ~Exists(pins.filter(_unpublished())))
        | (Q(origin=origin.ROUND) & Exists(pins.exclude(_unpublished())))
        | (Q(origin=origin.RANKED) & Exists(ranked_closed))
    )


def with_seed_shown(queryset: QuerySet) -> QuerySet:
    """``queryset`` (of ``Instance`` or ``FamilyTask``) with ``seed_shown`` annotated, for
    ``shown_seed`` to read without a query per row."""
    from engine.models import FamilyTask

    rule = family_seed_shown() if queryset.model is FamilyTask else instance_seed_shown()
    return queryset.annotate(seed_shown=ExpressionWrapper(rule, output_field=BooleanField()))


def shown_seed(row) -> int | None:
    """The seed of an ``Instance`` or ``FamilyTask`` if it may be served, else None."""
    shown = getattr(row, "seed_shown", None)
    if shown is None:
        shown = (
            with_seed_shown(type(row).objects.filter(pk=row.pk))
            .values_list("seed_shown", flat=True)
            .first()
        )
    return row.seed if shown else None
