"""Rebuild the cached board (``BoardRow``, ``CorrelationRow``) from trajectories, and the
task families' rows (``FamilyBoardRow``, ``leaderboard.family_recompute``) from attempts.

Run by a Celery beat job and after every scored submission. Idempotent: it claims the
stale groups it saw, recomputes them and deletes only those marks, so a submission that
lands mid-run is picked up next time and running twice changes nothing.

Every (model, setting) recomputed gets its rows across rounds (``round`` null: every
trajectory) and, for each public round (active or closed), its rows over that round's
pinned instances only. The trajectories are read once; a round's rows come from the same
columns masked to its instances.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, F, OuterRef, Q
from django.utils import timezone

from engine.core.lazy import lazy_module
from engine.models import PlaySession
from humanstudy.models import TaskSetItem
from leaderboard.access import PUBLIC_ROUNDS
from leaderboard.family_recompute import recompute_families
from leaderboard.models import (
    BoardRow,
    CorrelationRow,
    ExternalScore,
    ModelEntry,
    RankedGame,
    RoundInstance,
    StaleGroup,
    Trajectory,
)
from leaderboard.names import HUMANS, ModelNameError, claim_model_name

# Imported on first use (engine.core.lazy): commands that never recompute start faster.
pd = lazy_module("pandas")
np = lazy_module("numpy")
logger = logging.getLogger(__name__)

BOOTSTRAP_SAMPLES = 1000
# A board group is one model on one domain in one setting, verified or self-reported:
# the two kinds of trajectory never share a row.
GROUP_KEYS = ["model_id", "verified", "domain_id", "n_truths", "n_actions"]
# The trajectory values a recompute reads (two of them summed or compared in SQL).
LOADED = [
    *GROUP_KEYS,
    "instance_id",
    "correct",
    "relative_action_count",
    "disagrees",
    "parse_failed",
    "tokens",
    "optimal",
]
# Bootstrap work is batched by total resampled instances and shared among a few threads.
BOOTSTRAP_BATCH_WEIGHT = 20_000
BOOTSTRAP_THREADS = max(1, min(4, os.cpu_count() or 1))
CORRELATED_METRICS = ("success_rate", "relative_action_count")


@dataclass(frozen=True)
class RecomputeReport:
    groups: int
    board_rows: int
    correlations: int
    family_groups: int = 0
    family_rows: int = 0


# Key of the PostgreSQL advisory lock that serialises recomputes (any constant of our own).
RECOMPUTE_LOCK = 0x4B554D4F


def recompute(*, full: bool = False) -> RecomputeReport:
    """Recompute stale groups (or everything with ``full``), then the correlations.

    Runs one at a time: two at once (two workers, or jobs queued by many games ending
    together) would both delete and insert the same rows. PostgreSQL serialises them with
    an advisory lock; SQLite serialises every write transaction anyway.
    """
    if connection.vendor != "postgresql":
        # One transaction here would hold SQLite's write lock (and stop every move) for the
        # whole computation; its write transactions serialise the recomputes' writes.
        return _recompute(full=full)
    with transaction.atomic():
        # Released with the transaction, whatever happens: a pooled connection must never
        # keep it.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RECOMPUTE_LOCK])
        return _recompute(full=full)


def _recompute(*, full: bool) -> RecomputeReport:
    if full:
        sync_human_trajectories()
    marks = list(StaleGroup.objects.all())
    if full:
        pairs = set(
            Trajectory.objects.filter(active=True)
            .values_list("model_id", "n_truths", "n_actions")
            .distinct()
        )
    else:
        pairs = {(m.model_id, m.n_truths, m.n_actions) for m in marks}
    rows = _board_rows(pairs, everything=full) if pairs else []
    with transaction.atomic():
        if full:
            BoardRow.objects.all().delete()
        elif pairs:
            condition = Q()
            for model_id, n_truths, n_actions in pairs:
                condition |= Q(model_id=model_id, n_truths=n_truths, n_actions=n_actions)
            BoardRow.objects.filter(condition).delete()
        BoardRow.objects.bulk_create(rows, batch_size=2000)
        for mark in marks:
            # Only the marks seen at the start: a newer mark stays for the next run.
            StaleGroup.objects.filter(pk=mark.pk, marked_at=mark.marked_at).delete()
        correlations = recompute_correlations()
    # The task families' rows: the same job, schedule and lock (leaderboard.family_recompute).
    families = recompute_families(full=full)
    return RecomputeReport(
        groups=len(pairs),
        board_rows=len(rows),
        correlations=correlations,
        family_groups=families.groups,
        family_rows=families.rows,
    )


def _load(pairs: list[tuple[int, int, int]], *, everything: bool) -> dict[str, np.ndarray]:
    """The active trajectories of ``pairs`` (or all of them) as numpy columns, in id order.

    Streams raw rows through a cursor in chunks: the ORM's per-value converters and a
    pandas frame of every column cost more than the statistics themselves on a large board.
    The id order makes every sum below run in the same order on every database.
    """
    if everything:
        conditions = [Q()]
    else:
        conditions = []
        # Chunk the OR of (model, setting) pairs so very large recomputes keep queries sane.
        for start in range(0, len(pairs), 200):
            condition = Q()
            for model_id, n_truths, n_actions in pairs[start : start + 200]:
                condition |= Q(model_id=model_id, n_truths=n_truths, n_actions=n_actions)
            conditions.append(condition)
    chunks = []
    for condition in conditions:
        query = (
            Trajectory.objects.filter(condition, active=True)
            .annotate(
                parse_failed=ExpressionWrapper(Q(parse_errors__gt=0), BooleanField()),
                tokens=F("prompt_tokens") + F("completion_tokens"),
                optimal=F("instance__expected_actions"),
            )
            .order_by("pk")
            .values_list(*LOADED)
        )
        sql, params = query.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            # Map by name: the SQL lists plain columns before annotations.
            names = [column[0] for column in cursor.description]
            while rows := cursor.fetchmany(50_000):
                # None (an instance without an optimal value) becomes NaN.
                chunks.append(np.array(rows, dtype=np.float64))
    if not chunks:
        return {name: np.empty(0) for name in LOADED}
    table = np.concatenate(chunks)
    return {name: table[:, names.index(name)] for name in LOADED}


def _bounds(ordered: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of equal keys in already sorted key columns: their keys, starts and ends."""
    table = np.stack(ordered, axis=1)
    first = np.ones(len(table), dtype=bool)
    first[1:] = (table[1:] != table[:-1]).any(axis=1)
    starts = np.flatnonzero(first)
    return table[starts].astype(np.int64), starts, np.append(starts[1:], len(table))


def _per_instance_means(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Mean success and relative action count of every (model, setting, instance).

    One pandas groupby over every row: its per-group sums run in row order, exactly as a
    groupby over one board group's rows would, so the means are the same to the last bit.
    """
    frame = pd.DataFrame({name: data[name] for name in (*GROUP_KEYS, "instance_id")})
    frame = frame.astype(np.int64)
    frame["correct"] = data["correct"]
    frame["relative"] = data["relative_action_count"]
    frame["optimal"] = data["optimal"]
    means = frame.groupby([*GROUP_KEYS, "instance_id"], sort=True).mean()
    result = {name: means.index.get_level_values(name).to_numpy() for name in means.index.names}
    result["correct"] = means["correct"].to_numpy(np.float64)
    result["relative"] = means["relative"].to_numpy(np.float64)
    result["optimal"] = means["optimal"].to_numpy(np.float64)
    return result


def _bootstrap_cis(samples: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """95% percentile intervals of the mean, one per (per-instance values, seed) sample.

    Each sample resamples its instances with replacement ``BOOTSTRAP_SAMPLES`` times from
    ``default_rng(seed)``, so a group's interval does not depend on which other groups are
    recomputed with it. Samples are processed in batches on a few threads (numpy releases
    the GIL while drawing, gathering and summing), and the percentiles of a batch are taken
    in one call. Returns an array of (low, high) rows.
    """
    intervals = np.empty((len(samples), 2))
    batches: list[list[int]] = []
    batch: list[int] = []
    weight = 0
    for index, (values, _seed) in enumerate(samples):
        batch.append(index)
        weight += max(len(values), 1)
        if weight >= BOOTSTRAP_BATCH_WEIGHT:
            batches.append(batch)
            batch, weight = [], 0
    if batch:
        batches.append(batch)

    def run(batch: list[int]) -> None:
        means = np.empty((len(batch), BOOTSTRAP_SAMPLES))
        resampled = []
        for row, index in enumerate(batch):
            values, seed = samples[index]
            if len(values) < 2:
                value = float(values.mean()) if len(values) else 0.0
                intervals[index] = value
                continue
            rng = np.random.default_rng(seed)
            picks = rng.integers(0, len(values), size=(BOOTSTRAP_SAMPLES, len(values)))
            means[row] = values[picks].mean(axis=1)
            resampled.append(row)
        if resampled:
            chosen = np.array(resampled)
            bounds = np.percentile(means[chosen], [2.5, 97.5], axis=1)
            intervals[np.array(batch)[chosen]] = bounds.T

    if len(batches) > 1 and BOOTSTRAP_THREADS > 1:
        with ThreadPoolExecutor(BOOTSTRAP_THREADS) as pool:
            list(pool.map(run, batches))
    else:
        for each in batches:
            run(each)
    return intervals


def _summary(rows: dict[str, np.ndarray], optimal: np.ndarray) -> dict:
    """Every board metric of one group except the intervals (``rows``: its trajectories;
    ``optimal``: the optimal expected actions of its instances, one value each)."""
    correct = rows["correct"]
    successful = rows["relative_action_count"][correct > 0]
    known = optimal[~np.isnan(optimal)]
    return {
        "trajectories": len(correct),
        "instances": len(optimal),
        "mean_optimal_actions": float(known.mean()) if len(known) else None,
        "success_rate": float(correct.mean()),
        "relative_action_count": float(rows["relative_action_count"].mean()),
        "relative_action_count_successful": float(successful.mean()) if len(successful) else None,
        "parse_error_rate": float(rows["parse_failed"].mean()),
        "mean_tokens": float(rows["tokens"].mean()),
        "disagreements": int(rows["disagrees"].sum()),
    }


def _round_instances() -> dict[int, np.ndarray]:
    """The instance ids of every public round, sorted (two queries): its pinned instances
    and the fresh instances of its ranked games."""
    pinned = RoundInstance.objects.filter(round__status__in=PUBLIC_ROUNDS).values_list(
        "round_id", "instance_id"
    )
    ranked = RankedGame.objects.filter(round__status__in=PUBLIC_ROUNDS).values_list(
        "round_id", "instance_id"
    )
    pins = np.array(sorted([*pinned, *ranked]), dtype=np.int64).reshape(-1, 2)
    groups, starts, ends = _bounds([pins[:, 0]]) if len(pins) else ([], [], [])
    return {
        int(key[0]): pins[start:end, 1]
        for key, start, end in zip(groups, starts, ends, strict=True)
    }


def _board_rows(pairs: set[tuple[int, int, int]], *, everything: bool = False) -> list[BoardRow]:
    """Board rows of the (model, setting) ``pairs``, across rounds and per public round.

    1. Load the trajectories (id order) and the mean of every (model, setting, instance).
    2. Across rounds, then per round (the same columns masked to the round's instances,
       which keeps their order): collect every group's summary and bootstrap samples.
    3. Bootstrap every interval in one batched pass, then build the rows.
    """
    data = _load(sorted(pairs), everything=everything)
    if not len(data["model_id"]):
        return []
    per_instance = _per_instance_means(data)
    specs: list[tuple] = []
    samples: list[tuple[np.ndarray, int]] = []
    _collect_groups(data, per_instance, None, specs, samples)
    for round_id, instance_ids in _round_instances().items():
        played = np.isin(data["instance_id"], instance_ids)
        if not played.any():
            continue
        means = np.isin(per_instance["instance_id"], instance_ids)
        _collect_groups(
            {name: column[played] for name, column in data.items()},
            {name: column[means] for name, column in per_instance.items()},
            round_id,
            specs,
            samples,
        )
    intervals = _bootstrap_cis(samples)
    now = timezone.now()
    return [
        BoardRow(
            model_id=model_id,
            domain_id=domain_id,
            round_id=round_id,
            verified=verified,
            n_truths=n_truths,
            n_actions=n_actions,
            computed_at=now,
            success_ci_low=float(intervals[2 * i, 0]),
            success_ci_high=float(intervals[2 * i, 1]),
            relative_ci_low=float(intervals[2 * i + 1, 0]),
            relative_ci_high=float(intervals[2 * i + 1, 1]),
            **summary,
        )
        for i, (round_id, model_id, verified, domain_id, n_truths, n_actions, summary) in (
            enumerate(specs)
        )
    ]


def _collect_groups(
    data: dict[str, np.ndarray],
    per_instance: dict[str, np.ndarray],
    round_id: int | None,
    specs: list[tuple],
    samples: list[tuple[np.ndarray, int]],
) -> None:
    """Per domain, then over all domains: summarise each group's trajectories and add its
    per-instance values (instances ordered by id) with the group's bootstrap seed.

    The seed depends only on the group (and round), so a group's interval does not depend
    on which other groups are recomputed with it.
    """
    round_salt = 0 if round_id is None else round_id * 7_919
    for by_domain in (True, False):
        names = GROUP_KEYS if by_domain else [k for k in GROUP_KEYS if k != "domain_id"]
        # Stable sorts: a group's trajectories keep their id order, its instances are in
        # id order (over all domains too), as a groupby of the group alone would have them.
        order = np.lexsort([data[name] for name in reversed(names)])
        ordered = {name: column[order] for name, column in data.items()}
        groups, starts, ends = _bounds([ordered[name] for name in names])
        instance_order = np.lexsort(
            [per_instance["instance_id"], *(per_instance[name] for name in reversed(names))]
        )
        _, instance_starts, instance_ends = _bounds(
            [per_instance[name][instance_order] for name in names]
        )
        success = per_instance["correct"][instance_order]
        relative = per_instance["relative"][instance_order]
        optimal = per_instance["optimal"][instance_order]
        for key, start, end, i_start, i_end in zip(
            groups, starts, ends, instance_starts, instance_ends, strict=True
        ):
            if by_domain:
                model_id, verified, domain_id, n_truths, n_actions = (int(k) for k in key)
                seed = model_id * 1_000_003 + domain_id * 101 + n_truths * 17 + n_actions
            else:
                model_id, verified, n_truths, n_actions = (int(k) for k in key)
                domain_id = None
                seed = model_id * 1_000_003 + n_truths * 17 + n_actions
            # Self-reported groups keep the seeds they always had.
            seed += round_salt + verified * 500_009
            rows = {name: column[start:end] for name, column in ordered.items()}
            summary = _summary(rows, optimal[i_start:i_end])
            specs.append(
                (round_id, model_id, bool(verified), domain_id, n_truths, n_actions, summary)
            )
            samples.append((success[i_start:i_end], seed))
            samples.append((relative[i_start:i_end], seed + 1))


def recompute_correlations() -> int:
    """Pearson r (and p) across models, per setting, for every external benchmark."""
    scores = pd.DataFrame.from_records(
        list(ExternalScore.objects.values_list("benchmark_id", "model_id", "score")),
        columns=["benchmark_id", "model_id", "score"],
    )
    board = one_row_per_model(
        pd.DataFrame.from_records(
            list(
                BoardRow.objects.filter(domain__isnull=True, round__isnull=True).values_list(
                    "model_id", "verified", "n_truths", "n_actions", *CORRELATED_METRICS
                )
            ),
            columns=["model_id", "verified", "n_truths", "n_actions", *CORRELATED_METRICS],
        ),
        ["model_id", "n_truths", "n_actions"],
    )
    now = timezone.now()
    rows = []
    # Imported here: scipy.stats takes about half a second to import, which every command
    # and process start would pay for a function few of them run.
    from scipy.stats import pearsonr

    if not scores.empty and not board.empty:
        merged = board.merge(scores, on="model_id")
        for (benchmark_id, n_truths, n_actions), group in merged.groupby(
            ["benchmark_id", "n_truths", "n_actions"]
        ):
            for metric in CORRELATED_METRICS:
                r = p = None
                if len(group) >= 3 and group[metric].nunique() > 1 and group["score"].nunique() > 1:
                    result = pearsonr(group[metric], group["score"])
                    r, p = float(result.statistic), float(result.pvalue)
                rows.append(
                    CorrelationRow(
                        benchmark_id=benchmark_id,
                        n_truths=n_truths,
                        n_actions=n_actions,
                        metric=metric,
                        models_count=len(group),
                        r=r,
                        p_value=p,
                        computed_at=now,
                    )
                )
    CorrelationRow.objects.all().delete()
    CorrelationRow.objects.bulk_create(rows)
    return len(rows)


def one_row_per_model(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per ``keys`` where a model has both kinds: the verified one.

    Views across models (correlations, the heat map) show each model once; a verified row,
    when there is one, is the better evidence of the two.
    """
    if frame.empty:
        return frame
    ordered = frame.sort_values("verified", ascending=False, kind="stable")
    return ordered.drop_duplicates(keys, keep="first").sort_index()


def sync_human_trajectories() -> int:
    """Rebuild the human baseline from the study's analysis sample.

    Humans are scored exactly like models: one trajectory per finished task of every
    participant chosen for analysis (passing the quality filter, one per task set).
    """
    from engine.core.families.kumo.metrics import relative_action_count

    try:
        humans = claim_model_name(HUMANS, user=None, kind=ModelEntry.Kind.HUMAN)
    except ModelNameError as error:
        # Never write the study into an entry that is not the platform's human row; the
        # rest of the board is recomputed all the same.
        logger.error("the human baseline was not refreshed: %s", error)
        return 0
    if not humans.provider:
        humans.provider = "human study"
        humans.save(update_fields=["provider"])
    # Only the study's own tasks: a selected participant's other sessions (had they any)
    # never enter the baseline.
    in_task_set = TaskSetItem.objects.filter(
        task_set_id=OuterRef("player__participant__task_set_id"),
        instance_id=OuterRef("instance_id"),
    )
    sessions = (
        PlaySession.objects.filter(
            Exists(in_task_set),
            player__participant__selected_for_analysis=True,
            player__participant__flagged=False,
            finished_at__isnull=False,
            instance__oracle_actions__isnull=False,
        )
        .select_related("instance")
        .order_by("pk")
    )
    rows = [
        Trajectory(
            model=humans,
            instance=s.instance,
            domain_id=s.instance.domain_id,
            n_truths=s.instance.n_truths,
            n_actions=s.instance.n_actions,
            run=0,
            actions=[],
            answer=s.answer,
            correct=bool(s.correct),
            information_actions=s.actions_taken,
            invalid_moves=s.invalid_moves,
            relative_action_count=relative_action_count(s.actions_taken, s.instance.oracle_actions),
            verified=True,
        )
        for s in sessions
    ]
    with transaction.atomic():
        old = set(
            Trajectory.objects.filter(model=humans).values_list(
                "domain_id", "n_truths", "n_actions"
            )
        )
        Trajectory.objects.filter(model=humans).delete()
        Trajectory.objects.bulk_create(rows)
        new = {(r.domain_id, r.n_truths, r.n_actions) for r in rows}
        for domain_id, n_truths, n_actions in old | new:
            StaleGroup.objects.update_or_create(
                model=humans, domain_id=domain_id, n_truths=n_truths, n_actions=n_actions
            )
    return len(rows)
