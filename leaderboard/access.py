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
  until the round's instances are published.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

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


def answer_is_secret(instance_id: int) -> bool:
    """Whether a finished game on this instance must still keep its answer to itself.

    True for an instance of a ranked game whose round has not closed, and for an instance
    pinned to a round whose instances are not published yet (two small indexed queries).
    """
    ranked_open = RankedGame.objects.filter(instance_id=instance_id).exclude(
        round__status=Round.Status.CLOSED
    )
    pinned_unpublished = RoundInstance.objects.filter(instance_id=instance_id).filter(
        ~Q(round__status=Round.Status.CLOSED) | Q(round__published_at__isnull=True)
    )
    return ranked_open.exists() or pinned_unpublished.exists()


def visible_family_tasks(queryset=None):
    """Family tasks anyone may list and play: not a study task set's, nor those pinned to
    a round that is not public yet."""
    from engine.models import FamilyTask
    from leaderboard.models import RoundFamilyTask

    queryset = FamilyTask.objects.all() if queryset is None else queryset
    hidden = RoundFamilyTask.objects.filter(task=OuterRef("pk")).exclude(
        round__status__in=PUBLIC_ROUNDS
    )
    return queryset.exclude(origin=FamilyTask.Origin.STUDY).exclude(Exists(hidden))


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
