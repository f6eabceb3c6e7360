"""Plotly figures of the leaderboard, built server-side from pandas frames.

Each function takes a frame the view read from the cached tables and returns the figure
as a plain JSON-ready dict (``fig.to_json()`` parsed back), which the page embeds with
``json_script`` for ``static/js/plots.js`` to draw with plotly.js. Data arrays are passed
as lists, so the embedded JSON holds plain numbers rather than plotly's base64 arrays.
"""

from __future__ import annotations

import html
import json
import math

import plotly.graph_objects as go

from engine.core.lazy import lazy_module

# Imported on first use (engine.core.lazy).
pd = lazy_module("pandas")
np = lazy_module("numpy")

METRIC_LABELS = {
    "success_rate": "success rate",
    "relative_action_count": "relative action count",
}
# The named templates weigh several kilobytes per figure; "none" keeps the JSON small.
BASE_LAYOUT = {
    "template": "none",
    "font": {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 13},
    "margin": {"l": 70, "r": 30, "t": 70, "b": 70},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
}


def plot_text(value: object) -> str:
    """A user's string (a model, benchmark, domain or truth name) as plotly text.

    Plotly renders a subset of HTML in labels, hover text and titles (links among them),
    so ``<``, ``>`` and ``&`` are escaped: markup in a name shows as the characters it is.
    A ``%{`` would start one of plotly's hover fields: it is broken up too.
    """
    return html.escape(str(value), quote=False).replace("%{", "%\u200b{")


def figure_json(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


def _optional(value: object) -> object:
    """NaN (a missing cell) as JSON null."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


def heatmap(frame: pd.DataFrame, model_order: list[str], setting_label: str) -> dict:
    """Success rate per model (rows) and domain (columns) for one setting.

    ``frame``: one row per board row with columns model, domain, success_rate, ci_low,
    ci_high and trajectories. Models follow ``model_order`` (best first, on top); domains
    are alphabetical. Cells without results stay empty.
    """
    models = [name for name in model_order if name in set(frame["model"])]
    domains = sorted(frame["domain"].unique())

    def grid(column: str) -> pd.DataFrame:
        return frame.pivot(index="model", columns="domain", values=column).reindex(
            index=models, columns=domains
        )

    rates, lows, highs, counts = (
        grid(c) for c in ("success_rate", "ci_low", "ci_high", "trajectories")
    )
    z = [[_optional(v) for v in row] for row in rates.to_numpy(dtype=float).tolist()]
    custom = [
        [
            [_optional(lo), _optional(hi), _optional(n)]
            for lo, hi, n in zip(low_row, high_row, count_row, strict=True)
        ]
        for low_row, high_row, count_row in zip(
            lows.to_numpy(dtype=float).tolist(),
            highs.to_numpy(dtype=float).tolist(),
            counts.to_numpy(dtype=float).tolist(),
            strict=True,
        )
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[plot_text(domain) for domain in domains],
            y=[plot_text(model) for model in models],
            customdata=custom,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": {"text": "success"}},
            # The number in every cell, as in the paper's heat map.
            texttemplate="%{z:.2f}",
            textfont={"size": 9},
            hoverongaps=False,
            hovertemplate=(
                "%{y} on %{x}<br>success rate %{z:.2f} "
                "[%{customdata[0]:.2f}, %{customdata[1]:.2f}]"
                "<br>%{customdata[2]} trajectories<extra></extra>"
            ),
        )
    )
    fig.update_layout(
        **BASE_LAYOUT,
        title={"text": f"Success rate by domain and model — {plot_text(setting_label)}"},
        height=max(320, 140 + 26 * len(models)),
        xaxis={"title": {"text": "domain"}, "tickangle": -40, "type": "category"},
        yaxis={"autorange": "reversed", "type": "category", "automargin": True},
    )
    return figure_json(fig)


def scatter(
    frame: pd.DataFrame,
    *,
    benchmark: str,
    metric: str,
    setting_label: str,
    r: float | None,
    p_value: float | None,
    models_count: int,
) -> dict:
    """A KUMO metric (y) against an external benchmark's score (x), one point per model.

    ``frame``: columns model, score and value. The least-squares line is fitted to the
    same points; r and p come from the cached ``CorrelationRow``.
    """
    label = plot_text(METRIC_LABELS.get(metric, metric))
    benchmark = plot_text(benchmark)
    x = frame["score"].astype(float).tolist()
    y = frame["value"].astype(float).tolist()
    traces = [
        go.Scatter(
            x=x,
            y=y,
            mode="markers+text",
            text=[plot_text(model) for model in frame["model"].tolist()],
            textposition="top center",
            name="models",
            marker={"size": 10, "color": "#2456c7"},
            hovertemplate=f"%{{text}}<br>{benchmark} %{{x:.3g}}<br>{label} %{{y:.3f}}"
            "<extra></extra>",
        )
    ]
    if len(set(x)) >= 2:
        slope, intercept = np.polyfit(x, y, 1)
        ends = [min(x), max(x)]
        traces.append(
            go.Scatter(
                x=ends,
                y=[float(slope * end + intercept) for end in ends],
                mode="lines",
                name="least-squares fit",
                line={"color": "#a4161a", "dash": "dash"},
                hoverinfo="skip",
            )
        )
    if r is None or p_value is None:
        stats = f"r not available: {models_count} models (needs 3 with distinct values)"
    else:
        stats = f"Pearson r = {r:.3f}, p = {p_value:.3g}, n = {models_count}"
    fig = go.Figure(traces)
    fig.update_layout(
        **BASE_LAYOUT,
        title={
            "text": f"{label.capitalize()} vs {benchmark}<br>"
            f"<sup>{plot_text(setting_label)}. {stats}</sup>"
        },
        height=420,
        showlegend=False,
        xaxis={"title": {"text": f"{benchmark} score"}, "zeroline": False},
        yaxis={"title": {"text": label}, "zeroline": False},
    )
    return figure_json(fig)


def optimal_actions(frame: pd.DataFrame, setting_label: str) -> dict:
    """Histogram of the oracle's information actions per instance, one bar group per domain.

    ``frame``: already counted, with columns domain, oracle_actions and instances.
    """
    steps = sorted(int(v) for v in frame["oracle_actions"].unique())
    traces = []
    for name, group in frame.groupby("domain", sort=True):
        domain = plot_text(name)
        counts = group.set_index("oracle_actions")["instances"].reindex(steps, fill_value=0)
        total = int(counts.sum())
        traces.append(
            go.Bar(
                name=domain,
                x=steps,
                y=[int(c) for c in counts.tolist()],
                customdata=[round(100 * c / total, 1) if total else 0 for c in counts.tolist()],
                hovertemplate=f"{domain}: %{{y}} instances (%{{customdata}}%) need %{{x}} "
                "actions<extra></extra>",
            )
        )
    fig = go.Figure(traces)
    fig.update_layout(
        **BASE_LAYOUT,
        title={"text": f"Optimal number of actions per instance — {plot_text(setting_label)}"},
        barmode="group",
        height=400,
        xaxis={"title": {"text": "information actions the optimal policy takes"}, "dtick": 1},
        yaxis={"title": {"text": "instances"}},
        legend={"title": {"text": "domain"}},
    )
    return figure_json(fig)
