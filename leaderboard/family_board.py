"""The board of the task families (docs/task-families.md): models and people side by side.

One row per family, kind, difficulty level and player (a model's name, or "People" for
everyone who played in the browser or over the API as themselves): attempts, success rate
with its 95 % Wilson score interval, mean score, parse-error rate and mean tokens. Read from
the finished attempts in a fixed number of queries; a figure per kind plots the success
rate against the level.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Avg, Count, Q, Sum

from engine.models import FamilyAttempt

PEOPLE = "People"
LEVEL_ORDER = {"easy": 0, "medium": 1, "hard": 2, "": 3}


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


def family_rows() -> list[FamilyRow]:
    grouped = (
        FamilyAttempt.objects.filter(finished_at__isnull=False)
        .values("task__family", "task__kind", "task__level", "model_name")
        .annotate(
            n=Count("id"),
            right=Count("id", filter=Q(correct=True)),
            mean_value=Avg("value"),
            parse_errors=Count("id", filter=~Q(parse_error="")),
            tokens=Sum("tokens"),
        )
    )
    rows = []
    for g in grouped:
        low, high = wilson(g["right"], g["n"])
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
            )
        )
    rows.sort(
        key=lambda r: (
            r.family,
            r.kind,
            LEVEL_ORDER.get(r.level, 9),
            r.level,
            -r.success_rate,
            r.player,
        )
    )
    return rows


def _order(row: FamilyRow) -> tuple:
    level = LEVEL_ORDER.get(row.level, 9)
    return (row.family, row.kind, level, row.level, -row.success_rate, row.player)


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
                key=lambda r: LEVEL_ORDER.get(r.level, 9),
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
