"""Rebuild the task families' board (``FamilyBoardRow``) from the finished attempts.

Run by ``leaderboard.recompute.recompute`` beside KUMO's rows, so the same Celery job, the
same beat schedule (every ten minutes: the stale groups; nightly: everything) and the same
lock serve both. Idempotent: it claims the (family, kind, level) marks it saw, rebuilds
those groups' rows and deletes only those marks, so an attempt that finishes mid-run is
picked up next time and running twice changes nothing.

Who counts (docs/verified-evaluation.md), decided here once for every page and API:

1. An attempt at a task pinned to a round counts only once the round has closed and
   published its tasks (``leaderboard.access.family_answer_is_secret``'s rule); a ranked
   attempt only once its round has closed. Before that it is in no row at all, so no page
   can tell whether a live round's answer was right.
2. Verified rows: the runner's model attempts (``model_name`` set, no ranked link), ranked
   attempts (under their model's name), and "People": the attempts of study participants
   selected for analysis and not flagged, at their own task set's tasks.
3. Everything else people played (visitors' guest accounts, ordinary accounts, study
   participants outside the analysis sample) is one unverified practice row per group,
   shown apart and never in a figure, the dimension table or the profile.
4. A model's uploaded replies (``FamilyReply``: results files, re-scored by the server,
   the newest file per model and group) are one unverified **self-reported** row per
   model and group, across rounds only, shown apart like the practice rows.

Each group gets its rows across rounds (``round`` null) and, for every closed round with
counted attempts in it, the round's own rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from django.db import transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, F, OuterRef, Q, Subquery
from django.db.models.fields.json import KT, KeyTextTransform
from django.utils import timezone

from engine.core.families.base import FamilyError, get_family
from engine.core.families.lr2bench.scoring import ratio_interval
from engine.models import FamilyAttempt
from humanstudy.models import TaskSetItem
from leaderboard.family_board import (
    BUILT_IN_PLAYERS,
    PEOPLE,
    PRACTICE,
    wilson,
)
from leaderboard.models import (
    FamilyBoardRow,
    FamilyReply,
    FamilyStaleGroup,
    ModelEntry,
    Round,
    RoundFamilyTask,
)

Group = tuple[str, str, str]  # (family, kind, level)
Kind = FamilyBoardRow.PlayerKind


def mark_families_stale(groups: Iterable[Group]) -> int:
    """Mark (family, kind, level) groups stale in one upsert; a newer ``marked_at`` keeps a
    recompute already running from deleting the mark."""
    now = timezone.now()
    marks = [
        FamilyStaleGroup(family=family, kind=kind, level=level or "", marked_at=now)
        for family, kind, level in set(groups)
    ]
    if marks:
        FamilyStaleGroup.objects.bulk_create(
            marks,
            update_conflicts=True,
            unique_fields=["family", "kind", "level"],
            update_fields=["marked_at"],
        )
    return len(marks)


def mark_task_stale(task) -> None:
    """Mark the group of a task whose attempt just finished (call inside its transaction,
    so the mark commits with the attempt)."""
    mark_families_stale([(task.family, task.kind, task.level)])


def mark_attempts_stale(attempts) -> int:
    """Mark every group with an attempt in the ``attempts`` queryset stale (one query to
    find, one to write)."""
    groups = attempts.values_list("task__family", "task__kind", "task__level").distinct()
    return mark_families_stale(list(groups))


def mark_round_stale(target: Round) -> int:
    """A round closed or published its tasks: its ranked attempts and the attempts at its
    pinned tasks may now count, so their groups are rebuilt."""
    pinned = RoundFamilyTask.objects.filter(round=target).values("task_id")
    return mark_attempts_stale(
        FamilyAttempt.objects.filter(Q(task_id__in=pinned) | Q(ranked__round=target))
    )


@dataclass(frozen=True)
class FamilyReport:
    groups: int
    rows: int


def recompute_families(*, full: bool = False) -> FamilyReport:
    """Rebuild the stale groups' rows (every group with ``full``), then drop the marks seen
    at the start (only if unchanged since: a newer mark stays for the next run)."""
    marks = list(FamilyStaleGroup.objects.all())
    groups = None if full else sorted({(m.family, m.kind, m.level) for m in marks})
    if groups == []:
        return FamilyReport(groups=0, rows=0)
    rows = family_board_rows(groups)
    with transaction.atomic():
        if full:
            FamilyBoardRow.objects.all().delete()
        else:
            for condition in _group_conditions(groups, prefix=""):
                FamilyBoardRow.objects.filter(condition).delete()
        FamilyBoardRow.objects.bulk_create(rows, batch_size=2000)
        for mark in marks:
            FamilyStaleGroup.objects.filter(pk=mark.pk, marked_at=mark.marked_at).delete()
    counted = len({(r.family, r.kind, r.level) for r in rows}) if full else len(groups)
    return FamilyReport(groups=counted, rows=len(rows))


def _group_conditions(groups: list[Group], *, prefix: str) -> list[Q]:
    """OR-conditions over ``groups``, 200 to a query so large recomputes keep queries sane."""
    conditions = []
    for start in range(0, len(groups), 200):
        condition = Q()
        for family, kind, level in groups[start : start + 200]:
            condition |= Q(
                **{f"{prefix}family": family, f"{prefix}kind": kind, f"{prefix}level": level}
            )
        conditions.append(condition)
    return conditions


@dataclass
class _Tally:
    """Running sums of one row's attempts."""

    n: int = 0
    right: int = 0
    value_sum: float = 0.0
    valued: int = 0
    parse_errors: int = 0
    tokens: int = 0
    points_sum: float = 0.0
    points_n: int = 0
    # Subtask families: (answered, subtasks right, subtasks, exact, half) per attempt.
    items: list[tuple[int, int, int, int, int]] = field(default_factory=list)


# The attempt's columns the recompute reads, in the order of ``_attempts``' values_list.
COLUMNS = (
    "task__family",
    "task__kind",
    "task__level",
    "model_name",
    "correct",
    "value",
    "parse_failed",
    "tokens",
    "ranked__round_id",
    "ranked__model_id",
    "ranked__model__name",
    "pin_round",
    "in_sample",
    "d_cr",
    "d_s_acc",
    "d_em",
    "d_pm05",
    "d_points",
    "d_subtasks",
    "d_right",
    "t_subtasks",
)


def _attempts(groups: list[Group] | None):
    """The finished attempts of ``groups`` (or all) with what classifying them needs, in
    one query per 200 groups: ranked link, pinned round, study sample, stored figures."""
    in_task_set = TaskSetItem.objects.filter(
        task_set_id=OuterRef("player__participant__task_set_id"), family_task_id=OuterRef("task_id")
    )
    pin = RoundFamilyTask.objects.filter(task_id=OuterRef("task_id")).values("round_id")[:1]
    base = FamilyAttempt.objects.filter(finished_at__isnull=False).annotate(
        parse_failed=ExpressionWrapper(~Q(parse_error=""), BooleanField()),
        pin_round=Subquery(pin),
        in_sample=ExpressionWrapper(
            Q(model_name="")
            & Q(player__participant__selected_for_analysis=True)
            & Q(player__participant__flagged=False)
            & Exists(in_task_set),
            BooleanField(),
        ),
        d_cr=KT("details__cr"),
        d_s_acc=KT("details__s_acc"),
        d_em=KT("details__em"),
        d_pm05=KT("details__pm05"),
        d_points=KT("details__points"),
        d_subtasks=KT("details__subtasks"),
        d_right=KT("details__right"),
        # KT() cannot cross a relation: name the key and the related field apart.
        t_subtasks=KeyTextTransform("lr2_subtasks", "task__public"),
    )
    conditions = [Q()] if groups is None else _group_conditions(groups, prefix="task__")
    for condition in conditions:
        yield from (
            base.filter(condition).order_by("pk").values_list(*COLUMNS).iterator(chunk_size=5000)
        )


def _replies(groups: list[Group] | None):
    """The counted uploaded replies of ``groups`` (or all), as rows in ``COLUMNS``' order
    (no ranked link, not in the study's sample), one query per 200 groups."""
    pin = RoundFamilyTask.objects.filter(task_id=OuterRef("task_id")).values("round_id")[:1]
    base = FamilyReply.objects.filter(active=True).annotate(
        parse_failed=ExpressionWrapper(~Q(parse_error=""), BooleanField()),
        total_tokens=F("prompt_tokens") + F("completion_tokens"),
        pin_round=Subquery(pin),
        d_cr=KT("details__cr"),
        d_s_acc=KT("details__s_acc"),
        d_em=KT("details__em"),
        d_pm05=KT("details__pm05"),
        d_points=KT("details__points"),
        d_subtasks=KT("details__subtasks"),
        d_right=KT("details__right"),
        t_subtasks=KeyTextTransform("lr2_subtasks", "task__public"),
    )
    # Read in the order of COLUMNS' figures (13 onwards), as ``_tally`` reads an attempt's:
    # a subtask family's reply needs its subtasks and those right, like an attempt.
    columns = (
        "family", "kind", "level", "model__name", "correct", "value", "parse_failed",
        "total_tokens", "model_id", "pin_round", "d_cr", "d_s_acc", "d_em", "d_pm05", "d_points",
        "d_subtasks", "d_right", "t_subtasks",
    )  # fmt: skip
    conditions = [Q()] if groups is None else _group_conditions(groups, prefix="")
    for condition in conditions:
        for row in base.filter(condition).order_by("pk").values_list(*columns).iterator(5000):
            name, model_id, pin_round = row[3], row[8], row[9]
            yield (*row[:8], None, model_id, name, pin_round, False, *row[10:])


def _number(value) -> float:
    """A figure read from an attempt's JSON details (text on PostgreSQL); missing is 0."""
    if value is None:
        return 0.0
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            return 1.0 if lowered == "true" else 0.0
        return float(lowered)
    return float(value)


def family_board_rows(groups: list[Group] | None) -> list[FamilyBoardRow]:
    """The rows of ``groups`` (every group when None), across rounds and per closed round.

    1. Read the rounds' states (one query) and the model entries' ids (one query).
    2. Stream the attempts; leave out a live round's (see the module's rules), and tally
       each counted attempt under its player, across rounds and in its closed round; then
       the uploaded replies, each under its model's self-reported row across rounds.
    3. Turn each tally into a row: Wilson interval on the success rate, means, LR²Bench's
       figures for the subtask families, the mean game score for the games.
    """
    rounds = {
        pk: (status == Round.Status.CLOSED, published is not None)
        for pk, status, published in Round.objects.values_list("pk", "status", "published_at")
    }
    tallies: dict[tuple, _Tally] = defaultdict(_Tally)
    model_names: set[str] = set()
    for row in _attempts(groups):
        (family, kind, level, model_name, correct, value, parse_failed, tokens) = row[:8]
        ranked_round, ranked_model, ranked_name, pin_round, in_sample = row[8:13]
        if ranked_round is not None:
            if not rounds[ranked_round][0]:
                continue  # a ranked attempt of a round still open
            player = (ranked_name, _model_kind(ranked_name), ranked_model, True)
            round_id = ranked_round
        else:
            if pin_round is not None and rounds[pin_round] != (True, True):
                continue  # a pinned task of a round not closed, or not published yet
            round_id = pin_round
            if model_name:
                player = (model_name, _model_kind(model_name), None, True)
                model_names.add(model_name)
            elif in_sample:
                player = (PEOPLE, Kind.PEOPLE, None, True)
            else:
                player = (PRACTICE, Kind.PRACTICE, None, False)
        for where in (None, round_id) if round_id is not None else (None,):
            _tally(tallies[(family, kind, level, where, *player)], family, kind, row)
    for row in _replies(groups):
        family, kind, level = row[:3]
        pin_round = row[11]
        if pin_round is not None and rounds[pin_round] != (True, True):
            continue  # never answerable before publication (family_uploads); kept so anyway
        player = (row[10], Kind.SELF_REPORTED, row[9], False)
        _tally(tallies[(family, kind, level, None, *player)], family, kind, row)
    ids = dict(ModelEntry.objects.filter(name__in=model_names).values_list("name", "pk"))
    now = timezone.now()
    return [
        _row(key, tally, ids, now)
        for key, tally in sorted(tallies.items(), key=lambda item: str(item[0]))
    ]


def _model_kind(name: str) -> str:
    return Kind.BASELINE if name in BUILT_IN_PLAYERS else Kind.MODEL


_LOG_SCALED: dict[tuple[str, str], bool | None] = {}


def _log_scaled(family: str, kind: str) -> bool | None:
    """Whether a kind's points are an unbounded count (the family says, ``Family.log_scaled``);
    None for a kind with no points (or one no longer served)."""
    key = (family, kind)
    if key not in _LOG_SCALED:
        try:
            _LOG_SCALED[key] = get_family(family).log_scaled(kind)
        except FamilyError:
            _LOG_SCALED[key] = None
    return _LOG_SCALED[key]


def _tally(tally: _Tally, family: str, kind: str, row: tuple) -> None:
    correct, value, parse_failed, tokens = row[4:8]
    cr, s_acc, em, pm05, points = row[13:18]
    tally.n += 1
    tally.right += bool(correct)
    if value is not None:
        tally.value_sum += value
        tally.valued += 1
    tally.parse_errors += bool(parse_failed)
    tally.tokens += tokens or 0
    if _scored_by_subtasks(family):
        # An attempt with no figures (a parse error: nothing read) completed nothing, and
        # still counts its task's subtasks (LR²Bench scores every item of a level).
        subtasks, right, task_subtasks = row[18:21]
        total = int(_number(subtasks if subtasks is not None else task_subtasks))
        tally.items.append(
            (int(_number(cr)), int(_number(right)), total, int(_number(em)), int(_number(pm05)))
        )
    else:
        scaled = _log_scaled(family, kind)
        if scaled is not None:
            score = float(value or 0.0)
            tally.points_sum += _number(points) if scaled and points is not None else score
            tally.points_n += 1


def _row(key: tuple, tally: _Tally, ids: dict[str, int], now) -> FamilyBoardRow:
    family, kind, level, round_id, player, player_kind, model_id, verified = key
    n = tally.n
    low, high = wilson(tally.right, n)
    figures = {}
    if tally.items:
        # Pooled per level as LR²Bench's evaluation pools them: CR, EM and PM-0.5 are
        # shares of attempts (items), S-Acc is subtasks right over all their subtasks.
        answered = sum(i[0] for i in tally.items)
        cr_low, cr_high = wilson(answered, n)
        s_acc = ratio_interval([(i[1], i[2]) for i in tally.items])
        pm = sum(i[4] for i in tally.items)
        pm_low, pm_high = wilson(pm, n)
        figures = {
            "cr": answered / n,
            "cr_low": cr_low,
            "cr_high": cr_high,
            "s_acc": s_acc[0],
            "s_acc_low": s_acc[1],
            "s_acc_high": s_acc[2],
            "em": sum(i[3] for i in tally.items) / n,
            "pm05": pm / n,
            "pm05_low": pm_low,
            "pm05_high": pm_high,
        }
    return FamilyBoardRow(
        family=family,
        kind=kind,
        level=level,
        round_id=round_id,
        player=player,
        player_kind=player_kind,
        model_id=model_id if model_id is not None else ids.get(player),
        verified=verified,
        attempts=n,
        correct=tally.right,
        success_rate=tally.right / n,
        ci_low=low,
        ci_high=high,
        mean_value=tally.value_sum / tally.valued if tally.valued else 0.0,
        parse_error_rate=tally.parse_errors / n,
        mean_tokens=tally.tokens / n,
        mean_points=tally.points_sum / tally.points_n if tally.points_n else None,
        computed_at=now,
        **figures,
    )


@lru_cache(maxsize=64)
def _scored_by_subtasks(family: str) -> bool:
    """Whether the family reports LR²Bench's subtask figures with each score (it declares
    them among its metrics), so its rows carry CR, S-Acc, EM and PM-0.5."""
    try:
        return "cr" in get_family(family).metrics
    except FamilyError:
        return False
