"""The board of the task families (docs/task-families.md): models and people side by side.

One row per family, kind, difficulty level and player (a model's name, or "People" for the
study's analysis sample): attempts, success rate with its 95 % Wilson score interval, mean
score, parse-error rate and mean tokens; a figure per kind plots the success rate against
the level. The rows are stored (``FamilyBoardRow``), built by the scheduled and incremental
recompute (``leaderboard.family_recompute``, which also decides which attempts count); the
pages read them in one query.

Families scored by subtasks (the constraint puzzles) add LR²Bench's four figures per row:
Completion Ratio and Subtask Accuracy (means of per-attempt shares, with a normal 95 %
interval on the mean, clipped to [0, 1]), Exact Match (the success rate above) and Partial
Match at 0.5 (a rate, with its Wilson interval).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from engine.core.families.base import FamilyError, get_family
from leaderboard.models import FamilyBoardRow, Round

# The verified human row: study participants selected for analysis.
PEOPLE = "People"
# Every other person's own play, one unverified row per group, shown apart.
PRACTICE = "Practice (unverified)"
# The runner's built-in players (benchmark.family_runner): baselines, not models.
BUILT_IN_PLAYERS = ("reference", "random", "blank")
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


def family_rows(round_name: str = "", *, verified: bool = True) -> list[FamilyBoardRow]:
    """The board's stored rows (``leaderboard.family_recompute`` builds them; one query):
    across rounds, or with ``round_name`` a closed round's own; the verified rows, or with
    ``verified=False`` the unverified practice rows. Ordered by family, kind, level (in the
    kind's declared order), best success rate first."""
    rows = FamilyBoardRow.objects.filter(verified=verified)
    if round_name:
        rows = rows.filter(round__name=round_name, round__status=Round.Status.CLOSED)
    else:
        rows = rows.filter(round__isnull=True)
    found = list(rows)
    found.sort(
        key=lambda r: (
            r.family,
            r.kind,
            level_rank(r.family, r.kind, r.level),
            r.level,
            -r.success_rate,
            r.player,
        )
    )
    return found


def level_figures(rows: list[FamilyBoardRow]) -> list[dict]:
    """Per family and kind, success rate (with its interval) against the level, one line
    per player."""
    import plotly.graph_objects as go

    from leaderboard.plots import figure_json, plot_text

    by_kind: dict[tuple[str, str], list[FamilyBoardRow]] = defaultdict(list)
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
