"""The board of the task families (docs/task-families.md): models and people side by side.

One row per family, kind, difficulty level and player (a model's name, or "People" for
everyone who played in the browser or over the API as themselves): attempts, success rate
with its 95 % Wilson score interval, mean score, parse-error rate and mean tokens. Read from
the finished attempts in a fixed number of queries; a figure per kind plots the success
rate against the level.

Families scored by subtasks (the constraint puzzles) add LR²Bench's four figures per row:
Completion Ratio and Subtask Accuracy (means of per-attempt shares, with a normal 95 %
interval on the mean, clipped to [0, 1]), Exact Match (the success rate above) and Partial
Match at 0.5 (a rate, with its Wilson interval).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Avg, Count, Q, Sum

from engine.core.families.base import FamilyError, get_family
from engine.models import FamilyAttempt
from leaderboard.names import PEOPLE, owner_labels

LEVEL_ORDER = {"easy": 0, "medium": 1, "hard": 2, "": 3}
SUBTASK_FAMILIES = {"puzzles"}


def level_rank(family: str, kind: str, level: str) -> int:
    """A level's place in its kind's declared order (easy first); custom levels last."""
    try:
        levels = list(get_family(family).kind(kind).levels)
    except FamilyError:
        return LEVEL_ORDER.get(level, 9)
    return levels.index(level) if level in levels else len(levels)


def mean_interval(values: list[float], z: float = 1.959964) -> tuple[float, float, float]:
    """Mean of per-attempt shares with a normal 95 % interval, clipped to [0, 1]."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, mean, mean
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


@dataclass(frozen=True)
class SubtaskFigures:
    """LR²Bench's figures for one board row."""

    cr: float
    cr_low: float
    cr_high: float
    s_acc: float
    s_acc_low: float
    s_acc_high: float
    em: float
    pm05: float
    pm05_low: float
    pm05_high: float


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval of a success rate (sound for small n and rates
    near 0 or 1, where the normal approximation is not)."""
    if n == 0:
        return 0.0, 0.0
    rate = successes / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class FamilyRow:
    family: str
    kind: str
    level: str
    player: str
    attempts: int
    correct: int
    success_rate: float
    ci_low: float
    ci_high: float
    mean_value: float
    parse_error_rate: float
    mean_tokens: float
    subtasks: SubtaskFigures | None = field(default=None)
    # The account owning the player's name ("platform" for baselines and People).
    owner: str = ""


def counted_attempts(round_name: str = ""):
    """Finished attempts the board counts: every model's, and every person's except
    those of study participants the quality filter flagged (careless or assisted play);
    with ``round_name``, only the attempts at that round's tasks."""
    from leaderboard.models import RoundFamilyTask

    counted = FamilyAttempt.objects.filter(finished_at__isnull=False).exclude(
        model_name="", player__participant__flagged=True
    )
    if round_name:
        pins = RoundFamilyTask.objects.filter(round__name=round_name).values("task_id")
        counted = counted.filter(task_id__in=pins)
    return counted


def family_rows(round_name: str = "") -> list[FamilyRow]:
    """The board's rows; with ``round_name`` (a public round), that round's tasks only.
    Every attempt here was recorded by the server (the runner, the API or the browser), so
    every row is verified."""
    grouped = (
        counted_attempts(round_name)
        .values("task__family", "task__kind", "task__level", "model_name")
        .annotate(
            n=Count("id"),
            right=Count("id", filter=Q(correct=True)),
            mean_value=Avg("value"),
            parse_errors=Count("id", filter=~Q(parse_error="")),
            tokens=Sum("tokens"),
        )
    )
    grouped = list(grouped)
    figures = _subtask_figures(round_name)
    owners = owner_labels(g["model_name"] or PEOPLE for g in grouped)
    rows = []
    for g in grouped:
        low, high = wilson(g["right"], g["n"])
        key = (g["task__family"], g["task__kind"], g["task__level"], g["model_name"])
        rows.append(
            FamilyRow(
                family=g["task__family"],
                kind=g["task__kind"],
                level=g["task__level"],
                player=g["model_name"] or PEOPLE,
                attempts=g["n"],
                correct=g["right"],
                success_rate=g["right"] / g["n"],
                ci_low=low,
                ci_high=high,
                mean_value=g["mean_value"] or 0.0,
                parse_error_rate=g["parse_errors"] / g["n"],
                mean_tokens=(g["tokens"] or 0) / g["n"],
                subtasks=figures.get(key),
                owner=owners.get(g["model_name"] or PEOPLE, ""),
            )
        )
    rows.sort(
        key=lambda r: (
            r.family,
            r.kind,
            level_rank(r.family, r.kind, r.level),
            r.level,
            -r.success_rate,
            r.player,
        )
    )
    return rows


def _subtask_figures(round_name: str = "") -> dict[tuple, SubtaskFigures]:
    """CR, S-Acc, EM and PM-0.5 per (family, kind, level, model) of the subtask families,
    from each finished attempt's stored figures (one query). An attempt with no figures (a
    parse error: nothing read) counts as nothing completed and nothing right."""
    shares: dict[tuple, list[tuple[float, float, int, int]]] = defaultdict(list)
    attempts = (
        counted_attempts(round_name)
        .filter(task__family__in=SUBTASK_FAMILIES)
        .values_list("task__family", "task__kind", "task__level", "model_name", "details")
    )
    for family, kind, level, model, details in attempts.iterator():
        details = details or {}
        shares[(family, kind, level, model)].append(
            (
                float(details.get("cr", 0.0)),
                float(details.get("s_acc", 0.0)),
                int(details.get("em", 0)),
                int(details.get("pm05", 0)),
            )
        )
    figures = {}
    for key, values in shares.items():
        n = len(values)
        cr = mean_interval([v[0] for v in values])
        s_acc = mean_interval([v[1] for v in values])
        pm = sum(v[3] for v in values)
        pm_low, pm_high = wilson(pm, n)
        figures[key] = SubtaskFigures(
            cr=cr[0],
            cr_low=cr[1],
            cr_high=cr[2],
            s_acc=s_acc[0],
            s_acc_low=s_acc[1],
            s_acc_high=s_acc[2],
            em=sum(v[2] for v in values) / n,
            pm05=pm / n,
            pm05_low=pm_low,
            pm05_high=pm_high,
        )
    return figures


def level_figures(rows: list[FamilyRow]) -> list[dict]:
    """Per family and kind, success rate (with its interval) against the level, one line
    per player."""
    import plotly.graph_objects as go

    from leaderboard.plots import figure_json, plot_text

    by_kind: dict[tuple[str, str], list[FamilyRow]] = defaultdict(list)
    for row in rows:
        by_kind[(row.family, row.kind)].append(row)
    figures = []
    for (family, kind), kind_rows in by_kind.items():
        fig = go.Figure()
        for player in sorted({r.player for r in kind_rows}):
            mine = sorted(
                (r for r in kind_rows if r.player == player),
                key=lambda r: level_rank(r.family, r.kind, r.level),
            )
            fig.add_trace(
                go.Scatter(
                    x=[plot_text(r.level or "custom") for r in mine],
                    y=[r.success_rate for r in mine],
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [r.ci_high - r.success_rate for r in mine],
                        "arrayminus": [r.success_rate - r.ci_low for r in mine],
                    },
                    mode="lines+markers",
                    name=plot_text(player),
                )
            )
        fig.update_layout(
            title={"text": plot_text(f"{family} / {kind}: success rate by level")},
            yaxis={"range": [0, 1.05], "title": {"text": "success rate (95% interval)"}},
            xaxis={"title": {"text": "level"}},
        )
        figures.append({"id": f"family-{family}-{kind}", "figure": figure_json(fig)})
    return figures
