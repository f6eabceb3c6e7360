"""The cross-family profile: every model's results on every task family side by side, and
how the families (and external benchmarks) correlate across models.

Families: KUMO's games ("kumo", from the board's verified all-domain rows, every setting
pooled by trajectories) and each task family ("simple", "puzzles", "unpuzzles"…, from the
family board's stored verified rows). A player is matched across families by name;
"People" pools the study's human baseline on KUMO's board and the study's analysis sample
on the families' (never visitors' or accounts' own play). The built-in baselines
(reference, random, blank) and People are shown but never enter a correlation.

Read from stored rows only (a few queries), which the scheduled recompute rebuilds for KUMO
and the families alike.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from leaderboard.family_board import BUILT_IN_PLAYERS, PEOPLE, wilson
from leaderboard.models import BoardRow, ExternalScore, FamilyBoardRow, ModelEntry

KUMO = "kumo"
BASELINES = BUILT_IN_PLAYERS


@dataclass(frozen=True)
class Cell:
    rate: float
    low: float
    high: float
    n: int


@dataclass
class ProfileRow:
    player: str
    model_id: int | None = None
    cells: dict[str, Cell] = field(default_factory=dict)

    columns: list[tuple[str, Cell | None]] = field(default_factory=list)

    @property
    def in_correlations(self) -> bool:
        return self.player != PEOPLE and self.player not in BASELINES


@dataclass(frozen=True)
class Correlation:
    first: str
    second: str
    n: int
    pearson: float | None
    pearson_p: float | None
    spearman: float | None
    spearman_p: float | None


@dataclass
class Profile:
    families: list[str]
    rows: list[ProfileRow]
    correlations: list[Correlation]
    external: list[Correlation]


def _kumo_cells() -> dict[str, tuple[Cell, int | None]]:
    pooled: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for model_id, rate, trajectories in BoardRow.objects.filter(
        verified=True, round__isnull=True, domain__isnull=True
    ).values_list("model_id", "success_rate", "trajectories"):
        pooled[model_id][0] += rate * trajectories
        pooled[model_id][1] += trajectories
    names = dict(ModelEntry.objects.filter(pk__in=pooled).values_list("pk", "name"))
    kinds = dict(ModelEntry.objects.filter(pk__in=pooled).values_list("pk", "kind"))
    found = {}
    for model_id, (solved, total) in pooled.items():
        if not total:
            continue
        n = int(total)
        successes = int(round(solved))
        low, high = wilson(successes, n)
        player = PEOPLE if kinds[model_id] == ModelEntry.Kind.HUMAN else names[model_id]
        found[player] = (Cell(successes / n, low, high, n), model_id)
    return found


def _family_cells() -> dict[tuple[str, str], Cell]:
    """Per (player, family): the stored verified rows across rounds pooled over kinds and
    levels (one query), with the Wilson interval of the pooled rate."""
    pooled: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for player, family, right, n in FamilyBoardRow.objects.filter(
        verified=True, round__isnull=True
    ).values_list("player", "family", "correct", "attempts"):
        pooled[(player, family)][0] += right
        pooled[(player, family)][1] += n
    cells = {}
    for key, (right, n) in pooled.items():
        low, high = wilson(right, n)
        cells[key] = Cell(right / n, low, high, n)
    return cells


def build_profile(only: str | None = None) -> Profile:
    """Every player's cells per family (or one player's, ``only``) and the correlations."""
    rows: dict[str, ProfileRow] = {}
    families: set[str] = set()
    for player, (cell, model_id) in _kumo_cells().items():
        rows.setdefault(player, ProfileRow(player, model_id)).cells[KUMO] = cell
        families.add(KUMO)
    for (player, family), cell in _family_cells().items():
        rows.setdefault(player, ProfileRow(player)).cells[family] = cell
        families.add(family)
    ids = dict(ModelEntry.objects.filter(name__in=rows).values_list("name", "pk"))
    for row in rows.values():
        row.model_id = row.model_id or ids.get(row.player)
    ordered = sorted(families, key=lambda f: (f != KUMO, f))
    players = sorted(
        rows.values(), key=lambda r: (r.player == PEOPLE, r.player in BASELINES, r.player)
    )
    correlations = [
        _correlate(a, b, _rates(players, a), _rates(players, b))
        for a, b in combinations(ordered, 2)
    ]
    for row in players:
        row.columns = [(family, row.cells.get(family)) for family in ordered]
    external = _external(ordered, players)
    if only is not None:
        players = [row for row in players if row.player == only]
    return Profile(ordered, players, correlations, external)


def _external(families: list[str], players: list[ProfileRow]) -> list[Correlation]:
    by_benchmark: dict[str, dict[str, float]] = defaultdict(dict)
    for name, benchmark, score in ExternalScore.objects.values_list(
        "model__name", "benchmark__name", "score"
    ):
        by_benchmark[benchmark][name] = score
    found = []
    for family in families:
        rates = {
            r.player: r.cells[family].rate
            for r in players
            if r.in_correlations and family in r.cells
        }
        for benchmark in sorted(by_benchmark):
            found.append(_correlate(family, benchmark, rates, by_benchmark[benchmark]))
    return found


def _rates(players: list[ProfileRow], family: str) -> dict[str, float]:
    """The success rates on ``family`` of the players that enter correlations."""
    return {
        row.player: row.cells[family].rate
        for row in players
        if row.in_correlations and family in row.cells
    }


def _correlate(first: str, second: str, a: dict[str, float], b: dict[str, float]) -> Correlation:
    """Pearson and Spearman over the players with both figures (p-values two-sided);
    None where fewer than three players have both or one side does not vary."""
    common = sorted(set(a) & set(b))
    xs = [a[name] for name in common]
    ys = [b[name] for name in common]
    if len(common) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return Correlation(first, second, len(common), None, None, None, None)
    from scipy import stats

    pearson = stats.pearsonr(xs, ys)
    spearman = stats.spearmanr(xs, ys)

    def clean(value) -> float | None:
        value = float(value)
        return None if math.isnan(value) else value

    return Correlation(
        first,
        second,
        len(common),
        clean(pearson.statistic),
        clean(pearson.pvalue),
        clean(spearman.statistic),
        clean(spearman.pvalue),
    )


def profile_figure(profile: Profile) -> dict:
    """A grouped bar chart: per family, each player's success rate with its interval."""
    import plotly.graph_objects as go

    from leaderboard.plots import figure_json, plot_text

    fig = go.Figure()
    for row in profile.rows:
        fams = [f for f in profile.families if f in row.cells]
        fig.add_trace(
            go.Bar(
                x=[plot_text(f) for f in fams],
                y=[row.cells[f].rate for f in fams],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [row.cells[f].high - row.cells[f].rate for f in fams],
                    "arrayminus": [row.cells[f].rate - row.cells[f].low for f in fams],
                },
                name=plot_text(row.player),
            )
        )
    fig.update_layout(
        barmode="group",
        title={"text": "Success rate per task family (95% Wilson interval)"},
        yaxis={"range": [0, 1.05], "title": {"text": "success rate"}},
        xaxis={"title": {"text": "family"}},
    )
    return {"id": "family-profile", "figure": figure_json(fig)}
