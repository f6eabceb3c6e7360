"""Plotly figures of a domain's structure, built server-side (drawn by ``static/js/plots.js``).

Like ``leaderboard.plots``, each function returns the figure as a JSON-ready dict with
plain lists, so the page embeds it with ``json_script``.
"""

from __future__ import annotations

import plotly.graph_objects as go

from engine.core.families.kumo.analysis import DomainAnalysis
from engine.core.lazy import lazy_module
from leaderboard.plots import BASE_LAYOUT, figure_json, plot_text

nx = lazy_module("networkx")

# spring_layout is randomised; a fixed seed gives the same picture on every request.
LAYOUT_SEED = 7
# Qualitative colours (plotly's D3 palette), cycled when there are more communities.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def truth_network(
    analysis: DomainAnalysis, truth_noun: str = "truth", action_noun: str = "action"
) -> dict:
    """The truth graph as a network, one trace (colour, legend entry) per community.

    Positions come from ``networkx.spring_layout`` with a fixed seed on the weighted graph
    (edges shared by more actions pull harder); edges are one grey trace. Hovering a node
    shows its name, community and number of neighbours; clicking a legend entry hides or
    isolates a community.
    """
    # Names come from domain files (some written by an LLM): plotly renders markup in them.
    truth_noun, action_noun = plot_text(truth_noun), plot_text(action_noun)
    graph = analysis.graph.to_networkx()
    positions = nx.spring_layout(graph, seed=LAYOUT_SEED, weight="weight")
    xy = {node: (round(float(x), 4), round(float(y), 4)) for node, (x, y) in positions.items()}

    edge_x: list[float | None] = []
    edge_y: list[float | None] = []
    for edge in analysis.graph.edges:
        (x0, y0), (x1, y1) = xy[edge.a], xy[edge.b]
        edge_x += [x0, x1, None]
        edge_y += [y0, y1, None]
    traces = [
        go.Scatter(
            x=edge_x,
            y=edge_y,
            mode="lines",
            line={"width": 0.6, "color": "rgba(110, 110, 110, 0.25)"},
            hoverinfo="skip",
            name="shared actions",
            showlegend=False,
        )
    ]
    for index, group in enumerate(analysis.communities.groups):
        degrees = [graph.degree(truth) for truth in group]
        traces.append(
            go.Scatter(
                x=[xy[truth][0] for truth in group],
                y=[xy[truth][1] for truth in group],
                mode="markers",
                name=f"community {index + 1} ({len(group)})",
                text=[plot_text(truth) for truth in group],
                customdata=degrees,
                marker={
                    "size": [8 + min(degree, 40) / 4 for degree in degrees],
                    "color": PALETTE[index % len(PALETTE)],
                    "line": {"width": 1, "color": "#ffffff"},
                },
                hovertemplate=(
                    f"%{{text}}<br>community {index + 1}<br>%{{customdata}} neighbouring "
                    f"{truth_noun}s<extra></extra>"
                ),
            )
        )

    modularity = analysis.communities.modularity
    stats = (
        f"{len(analysis.graph.truths)} {truth_noun}s, {len(analysis.graph.edges)} edges, "
        f"{len(analysis.communities.groups)} communities"
        + (f", modularity {modularity:.3f}" if modularity is not None else "")
    )
    fig = go.Figure(traces)
    fig.update_layout(
        **BASE_LAYOUT,
        title={
            "text": f"{truth_noun.capitalize()} graph and its Louvain communities<br>"
            f"<sup>{stats}. Joined: mentioned by one {action_noun}'s outcomes.</sup>"
        },
        height=620,
        hovermode="closest",
        legend={"title": {"text": "community (size)"}},
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
    )
    return figure_json(fig)
