"""Public leaderboard pages.

They only read the cached tables (``BoardRow``, ``CorrelationRow``) and stored data:
``leaderboard.recompute`` builds the board, never a request. The board shows one public
round (by default the active one) or every result across rounds (``?round=all``). Figures
are built by ``leaderboard.plots`` and drawn by plotly.js, which is served from the
installed ``plotly`` package (offline-first: no CDN).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from urllib.parse import urlencode

import plotly
from django.db.models import Count, F
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import require_safe
from plotly.offline import get_plotlyjs_version

from benchmark.spreadsheet import safe_row
from engine.core.families.kumo.metrics import relative_action_count
from engine.core.lazy import lazy_module
from engine.models import Instance
from leaderboard import plots
from leaderboard.access import PUBLIC_ROUNDS
from leaderboard.models import (
    KUMO_FAMILY,
    BoardRow,
    CorrelationRow,
    ExternalScore,
    ModelEntry,
    Round,
)
from leaderboard.recompute import one_row_per_model

pd = lazy_module("pandas")

NAMED_SETTINGS = {(4, 6): "Easy", (12, 16): "Hard"}
DEFAULT_SETTING = (4, 6)
PLOTLY_JS_VERSION = get_plotlyjs_version()
# Columns of the CSV and JSON downloads, in order.
RECORD_FIELDS = [
    "rank",
    "model",
    "kind",
    "owner",
    "verified",
    "provider",
    "domain",
    "round",
    "truths",
    "actions",
    "success_rate",
    "success_ci_low",
    "success_ci_high",
    "relative_action_count",
    "relative_ci_low",
    "relative_ci_high",
    "relative_action_count_successful",
    "mean_optimal_actions",
    "parse_error_rate",
    "mean_tokens",
    "trajectories",
    "instances",
    "disagreements",
    "computed_at",
]


@dataclass(frozen=True)
class Setting:
    n_truths: int
    n_actions: int

    @property
    def key(self) -> str:
        return f"{self.n_truths}x{self.n_actions}"

    @property
    def label(self) -> str:
        counts = f"{self.n_truths} truths / {self.n_actions} actions"
        name = NAMED_SETTINGS.get((self.n_truths, self.n_actions))
        return f"{name} ({counts})" if name else counts

    @classmethod
    def parse(cls, value: str) -> Setting | None:
        """``"4x6"`` → 4 truths / 6 actions; None for anything else."""
        truths, sep, actions = value.partition("x")
        if not sep or not truths.isdigit() or not actions.isdigit():
            return None
        return cls(int(truths), int(actions))


@dataclass(frozen=True)
class Filters:
    settings: list[Setting]
    setting: Setting
    domain: str
    # The round shown (None: every result, across rounds) and the public rounds to choose
    # from; ``domains`` lists the domains of the board shown (None where not offered).
    round: Round | None = None
    rounds: list[Round] = field(default_factory=list)
    domains: list[str] | None = None

    @property
    def round_key(self) -> str:
        """``?round=`` of these filters: a round's name, ``all``, or empty without rounds."""
        if self.round is not None:
            return self.round.name
        return "all" if self.rounds else ""

    def query(self, **extra: str) -> str:
        params = {"setting": self.setting.key, **({"domain": self.domain} if self.domain else {})}
        if self.round_key:
            params["round"] = self.round_key
        return urlencode({**params, **extra})


class BadFilter(ValueError):
    pass


def _settings(stored: set[tuple[int, int]]) -> list[Setting]:
    """Easy and Hard always, then every other stored setting."""
    return [Setting(*pair) for pair in sorted(set(NAMED_SETTINGS) | stored)]


def _filters(request, *, with_domain: bool = False, with_round: bool = False) -> Filters:
    """The setting (``?setting=4x6``), domain (``?domain=name``) and round (``?round=name``
    or ``all``) asked for, checked.

    Without ``with_round`` (or with ``?round=all``) the rows across rounds are meant;
    without ``?round`` the active round, if there is one. Without a setting: Easy if the
    board (or the round) has it, else the first stored setting. At most two queries.
    """
    chosen, rounds = _round_filter(request) if with_round else (None, [])
    domains: list[str] | None = None
    if chosen is not None:
        # Its domains × settings and its kumo/DOMAIN/LEVEL family tasks (one query).
        cells = chosen.kumo_cells()
        pairs = chosen.kumo_settings(cells)
        stored = set(pairs)
        domains = sorted({name for name, _t, _a in cells})
        settings = [Setting(*pair) for pair in pairs]
    elif with_domain:
        # Settings and domains in one query: a few hundred (setting, domain) pairs at most.
        cells = set(
            BoardRow.objects.filter(round__isnull=True)
            .order_by("n_truths", "n_actions", "domain__name")
            .values_list("n_truths", "n_actions", "domain__name")
            .distinct()
        )
        stored = {(t, a) for t, a, _ in cells}
        domains = sorted({name for _, _, name in cells if name is not None})
        settings = _settings(stored)
    else:
        stored = set(
            BoardRow.objects.filter(round__isnull=True)
            .order_by("n_truths", "n_actions")
            .values_list("n_truths", "n_actions")
            .distinct()
        )
        settings = _settings(stored)
    value = request.GET.get("setting", "").strip()
    if value:
        setting = Setting.parse(value)
        if setting is None:
            raise BadFilter("setting must look like 4x6 (truths x actions)")
        if setting not in settings:
            settings = sorted([*settings, setting], key=lambda s: (s.n_truths, s.n_actions))
    elif DEFAULT_SETTING in stored or not stored:
        setting = Setting(*DEFAULT_SETTING)
    else:
        setting = Setting(*min(stored))
    domain = request.GET.get("domain", "").strip() if with_domain else ""
    return Filters(
        settings=settings,
        setting=setting,
        domain=domain,
        round=chosen,
        rounds=rounds,
        domains=domains if with_domain else None,
    )


def public_rounds() -> list[Round]:
    """Active and closed rounds, newest first (one query)."""
    return list(Round.objects.filter(status__in=PUBLIC_ROUNDS).order_by("-starts_on", "-pk"))


def pick_round(rounds: list[Round], value: str) -> Round | None:
    """The round ``value`` names among ``rounds``: ``all`` → None (across rounds), empty →
    the active round (None if none is active). Raises ``BadFilter`` for an unknown name."""
    value = value.strip()
    if value == "all":
        return None
    if not value:
        return next((r for r in rounds if r.status == Round.Status.ACTIVE), None)
    for candidate in rounds:
        if candidate.name == value:
            return candidate
    known = ", ".join(r.name for r in rounds)
    raise BadFilter(f"no public round named {value!r}; use all, or one of: {known or 'none yet'}")


def _round_filter(request) -> tuple[Round | None, list[Round]]:
    rounds = public_rounds()
    return pick_round(rounds, request.GET.get("round", "")), rounds


def board_rows(filters: Filters) -> list[BoardRow]:
    """The rows the board shows for ``filters``: verified rows best first, then the
    self-reported ones best first, with ``rank`` set on verified language models.

    Only verified rows (play the server recorded itself) are ranked. Self-reported rows
    (re-scored uploads) are listed apart and never ranked; humans and built-in baselines
    are reference rows, shown in place and never ranked either.
    """
    rows = BoardRow.objects.filter(
        n_truths=filters.setting.n_truths, n_actions=filters.setting.n_actions, round=filters.round
    ).select_related("model__owner__account")
    if filters.domain:
        rows = rows.filter(domain__name=filters.domain)
    else:
        rows = rows.filter(domain__isnull=True)
    rows = list(rows.order_by("-verified", "-success_rate", "relative_action_count", "model__name"))
    rank = 0
    for row in rows:
        row.is_reference = row.model.kind != ModelEntry.Kind.MODEL
        ranked = row.verified and not row.is_reference
        if ranked:
            rank += 1
        row.rank = rank if ranked else None
    return rows


def board_records(rows: list[BoardRow], filters: Filters) -> list[dict]:
    """The board rows as flat records: what the CSV and JSON downloads hold."""
    return [
        {
            "rank": row.rank,
            "model": row.model.name,
            "kind": row.model.kind,
            "owner": row.model.owner_label,
            "verified": row.verified,
            "provider": row.model.provider,
            "domain": filters.domain or None,
            "round": filters.round.name if filters.round else None,
            "truths": row.n_truths,
            "actions": row.n_actions,
            "success_rate": row.success_rate,
            "success_ci_low": row.success_ci_low,
            "success_ci_high": row.success_ci_high,
            "relative_action_count": row.relative_action_count,
            "relative_ci_low": row.relative_ci_low,
            "relative_ci_high": row.relative_ci_high,
            "relative_action_count_successful": row.relative_action_count_successful,
            "mean_optimal_actions": row.mean_optimal_actions,
            "parse_error_rate": row.parse_error_rate,
            "mean_tokens": row.mean_tokens,
            "trajectories": row.trajectories,
            "instances": row.instances,
            "disagreements": row.disagreements,
            "computed_at": row.computed_at.isoformat(),
        }
        for row in rows
    ]


def _bad_filter(error: BadFilter) -> HttpResponse:
    return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")


@require_safe
def board(request):
    """The public board: one setting, all domains (the aggregate rows) or one domain."""
    try:
        filters = _filters(request, with_domain=True, with_round=True)
    except BadFilter as error:
        return _bad_filter(error)
    rows = board_rows(filters)
    return render(
        request,
        "leaderboard/board.html",
        {
            "live_round": any(r.status == Round.Status.ACTIVE for r in filters.rounds),
            "outside_rows": _verified_outside(filters, rows),
            "filters": filters,
            "domains": filters.domains,
            "rows": rows,
            "verified_rows": [row for row in rows if row.verified],
            "self_reported_rows": [row for row in rows if not row.verified],
            "computed_at": max((row.computed_at for row in rows), default=None),
            "download_query": filters.query(),
            "all_rounds_query": filters.query(round="all"),
            "section": "board",
        },
    )


def _verified_outside(filters: Filters, rows: list[BoardRow]) -> list[BoardRow]:
    """On a round's board: the verified rows of models with no row in the round (the
    runner on stored tasks, the study; one query), so a row made outside the round is
    never out of sight. Empty when every round's rows are shown already."""
    if filters.round is None:
        return []
    outside = BoardRow.objects.filter(
        n_truths=filters.setting.n_truths,
        n_actions=filters.setting.n_actions,
        round__isnull=True,
        verified=True,
    ).exclude(model_id__in=[row.model_id for row in rows])
    if filters.domain:
        outside = outside.filter(domain__name=filters.domain)
    else:
        outside = outside.filter(domain__isnull=True)
    found = list(
        outside.select_related("model__owner__account").order_by(
            "-success_rate", "relative_action_count", "model__name"
        )
    )
    for row in found:
        row.is_reference = row.model.kind != ModelEntry.Kind.MODEL
        row.rank = None
    return found


@require_safe
def board_download(request, fmt: str):
    """Exactly the rows the board shows for the same filters, as CSV or JSON."""
    try:
        filters = _filters(request, with_domain=True, with_round=True)
    except BadFilter as error:
        return _bad_filter(error)
    records = board_records(board_rows(filters), filters)
    scope = f"round-{filters.round.name}-" if filters.round else ""
    stem = f"kumo-board-{scope}{filters.setting.key}-{filters.domain or 'all-domains'}"
    if fmt == "json":
        response = JsonResponse(records, safe=False, json_dumps_params={"indent": 1})
    else:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=RECORD_FIELDS)
        writer.writeheader()
        writer.writerows(safe_row(record) for record in records)
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{stem}.{fmt}"'
    return response


@require_safe
def model_detail(request, model_id: int):
    """One model: its rows per setting and domain, its submissions, its external scores."""
    model = get_object_or_404(ModelEntry.objects.select_related("owner"), pk=model_id)
    rows = list(
        BoardRow.objects.filter(model=model, round__isnull=True)
        .select_related("domain")
        .order_by("n_truths", "n_actions", "-verified", F("domain__name").asc(nulls_first=True))
    )
    for row in rows:
        row.setting = Setting(row.n_truths, row.n_actions)
    submissions = list(model.submissions.select_related("domain").order_by("-created_at", "-pk"))
    scores = list(model.external_scores.select_related("benchmark").order_by("benchmark__name"))
    from leaderboard.profile import build_profile

    across = build_profile(only=model.name)
    return render(
        request,
        "leaderboard/model.html",
        {
            "model": model,
            "across": across.rows[0] if across.rows else None,
            "rows": rows,
            "submissions": submissions,
            "scores": scores,
            "section": "board",
        },
    )


@require_safe
def heatmap(request):
    """Success rate per domain and model, for one setting."""
    try:
        filters = _filters(request)
    except BadFilter as error:
        return _bad_filter(error)
    setting = filters.setting
    # One cell per model and domain: the verified row where the model has both kinds.
    cells = one_row_per_model(
        pd.DataFrame.from_records(
            list(
                BoardRow.objects.filter(
                    n_truths=setting.n_truths,
                    n_actions=setting.n_actions,
                    domain__isnull=False,
                    round__isnull=True,
                ).values_list(
                    "model__name",
                    "verified",
                    "domain__name",
                    "success_rate",
                    "success_ci_low",
                    "success_ci_high",
                    "trajectories",
                )
            ),
            columns=[
                "model",
                "verified",
                "domain",
                "success_rate",
                "ci_low",
                "ci_high",
                "trajectories",
            ],
        ),
        ["model", "domain"],
    )
    order = list(
        dict.fromkeys(
            BoardRow.objects.filter(
                n_truths=setting.n_truths,
                n_actions=setting.n_actions,
                domain__isnull=True,
                round__isnull=True,
            )
            .order_by("-verified", "-success_rate", "model__name")
            .values_list("model__name", flat=True)
        )
    )
    figures = []
    if not cells.empty:
        figures.append(
            {"id": "figure-heatmap", "figure": plots.heatmap(cells, order, setting.label)}
        )
    return render(
        request,
        "leaderboard/heatmap.html",
        {
            "filters": filters,
            "figures": figures,
            "section": "heatmap",
            "plotly_version": PLOTLY_JS_VERSION,
        },
    )


@dataclass
class PaperRow:
    """One model in the paper's tables: figures over every domain of a setting, with the
    coverage behind them (a model run on 5 domains never passes for one run on 100)."""

    model: str
    verified: bool
    domains: int
    trajectories: int
    success_rate: float
    relative_action_count: float
    relative_published: float | None = None
    published_trajectories: int = 0
    repaired_domains: list[str] = field(default_factory=list)


def paper_rows(setting: Setting, *, published_oracle: bool = False) -> list[PaperRow]:
    """Per model and kind, the trajectory-weighted means of its per-domain board rows.

    With ``published_oracle`` the relative action count is also computed against the
    oracle path published with the KUMO release, for the instances that carry one
    (``Instance.kumo["published_oracle_actions"]``); it reads the trajectories, so it is
    only done when asked for.
    """
    from leaderboard.models import Submission, Trajectory

    frame = pd.DataFrame.from_records(
        list(
            BoardRow.objects.filter(
                n_truths=setting.n_truths,
                n_actions=setting.n_actions,
                domain__isnull=False,
                round__isnull=True,
            ).values_list(
                "model_id",
                "model__name",
                "verified",
                "domain__name",
                "trajectories",
                "success_rate",
                "relative_action_count",
            )  # fmt: skip
        ),
        columns=["model_id", "model", "verified", "domain", "n", "success", "relative"],
    )
    if frame.empty:
        return []
    repaired: dict[tuple[int, bool], set[str]] = {}
    for model_id, verified, domain in (
        Submission.objects.filter(
            n_truths=setting.n_truths,
            n_actions=setting.n_actions,
            status=Submission.Status.DONE,
            repair=True,
        )
        .exclude(repairs=[])
        .filter(trajectories__active=True)
        .values_list("model_id", "verified", "domain__name")
        .distinct()
    ):
        repaired.setdefault((model_id, verified), set()).add(domain)
    published: dict[tuple[int, bool], tuple[float, int]] = {}
    if published_oracle:
        counts = dict(
            Instance.objects.filter(
                n_truths=setting.n_truths, n_actions=setting.n_actions, kumo__isnull=False
            ).values_list("pk", "kumo__published_oracle_actions")
        )
        # Only the trajectories on the release's instances that carry a published count.
        played = pd.DataFrame.from_records(
            list(
                Trajectory.objects.filter(
                    n_truths=setting.n_truths,
                    n_actions=setting.n_actions,
                    active=True,
                    instance__kumo__has_key="published_oracle_actions",
                ).values_list("model_id", "verified", "instance_id", "information_actions")
            ),
            columns=["model_id", "verified", "instance", "information"],
        )
        played["oracle"] = played["instance"].map(counts)
        played = played.dropna(subset=["oracle"])
        played["relative"] = [
            relative_action_count(int(information), int(oracle))
            for information, oracle in zip(played["information"], played["oracle"], strict=True)
        ]
        for (model_id, verified), group in played.groupby(["model_id", "verified"]):
            published[(int(model_id), bool(verified))] = (
                float(group["relative"].mean()),
                len(group),
            )
    rows = []
    for (model_id, name, verified), group in frame.groupby(["model_id", "model", "verified"]):
        weights = group["n"]
        key = (int(model_id), bool(verified))
        relative, count = published.get(key, (None, 0))
        rows.append(
            PaperRow(
                model=name,
                verified=bool(verified),
                domains=int(group["domain"].nunique()),
                trajectories=int(weights.sum()),
                success_rate=float((group["success"] * weights).sum() / weights.sum()),
                relative_action_count=float((group["relative"] * weights).sum() / weights.sum()),
                relative_published=relative,
                published_trajectories=count,
                repaired_domains=sorted(repaired.get(key, ())),
            )
        )
    return sorted(rows, key=lambda row: (-row.domains, -row.success_rate, row.model))


@require_safe
def paper_tables(request):
    """The KUMO paper's tables as board views: per model over every domain of a setting,
    with coverage beside each figure, and the per-domain heat map with numbers."""
    try:
        filters = _filters(request)
    except BadFilter as error:
        return _bad_filter(error)
    published = request.GET.get("oracle") == "published"
    rows = paper_rows(filters.setting, published_oracle=published)
    cells = BoardRow.objects.filter(
        n_truths=filters.setting.n_truths,
        n_actions=filters.setting.n_actions,
        domain__isnull=False,
        round__isnull=True,
    ).values_list("model__name", "verified", "domain__name", "success_rate")
    grid: dict[tuple[str, bool], dict[str, float]] = {}
    domains: set[str] = set()
    for model, verified, domain, rate in cells:
        grid.setdefault((model, verified), {})[domain] = rate
        domains.add(domain)
    ordered = sorted(domains)
    heat = [
        {
            "row": row,
            "cells": [
                # The shade is a number computed here, never user text.
                {"value": value, "shade": round(100 - 55 * value)} if value is not None else None
                for value in (grid.get((row.model, row.verified), {}).get(d) for d in ordered)
            ],
        }
        for row in rows
    ]
    return render(
        request,
        "leaderboard/paper.html",
        {
            "filters": filters,
            "rows": rows,
            "most_domains": max((row.domains for row in rows), default=0),
            "heat_domains": ordered,
            "heat": heat,
            "published": published,
            "section": "paper",
        },
    )


@require_safe
def correlations(request):
    """Pearson r across models between KUMO metrics and external benchmarks, one setting."""
    try:
        filters = _filters(request)
    except BadFilter as error:
        return _bad_filter(error)
    setting = filters.setting
    metric_order = {metric: i for i, metric in enumerate(plots.METRIC_LABELS)}
    cached = sorted(
        CorrelationRow.objects.filter(
            n_truths=setting.n_truths, n_actions=setting.n_actions
        ).select_related("benchmark"),
        key=lambda row: (row.benchmark.name, metric_order.get(row.metric, len(metric_order))),
    )
    board = one_row_per_model(
        pd.DataFrame.from_records(
            list(
                BoardRow.objects.filter(
                    n_truths=setting.n_truths,
                    n_actions=setting.n_actions,
                    domain__isnull=True,
                    round__isnull=True,
                ).values_list("model_id", "verified", "model__name", *plots.METRIC_LABELS)
            ),
            columns=["model_id", "verified", "model", *plots.METRIC_LABELS],
        ),
        ["model_id"],
    )
    scores = pd.DataFrame.from_records(
        list(ExternalScore.objects.values_list("benchmark_id", "model_id", "score")),
        columns=["benchmark_id", "model_id", "score"],
    )
    # The same pairing as recompute_correlations: models with a board row and a score.
    merged = board.merge(scores, on="model_id").sort_values("model")
    table: dict[str, dict] = {}
    figures = []
    for row in cached:
        entry = table.setdefault(
            row.benchmark.name,
            {"benchmark": row.benchmark, "cells": dict.fromkeys(plots.METRIC_LABELS)},
        )
        entry["cells"][row.metric] = row
        points = merged[merged["benchmark_id"] == row.benchmark_id]
        figure = plots.scatter(
            points.rename(columns={row.metric: "value"})[["model", "score", "value"]],
            benchmark=row.benchmark.name,
            metric=row.metric,
            setting_label=setting.label,
            r=row.r,
            p_value=row.p_value,
            models_count=row.models_count,
        )
        figures.append({"id": f"figure-{row.benchmark_id}-{row.metric}", "figure": figure})
    return render(
        request,
        "leaderboard/correlations.html",
        {
            "filters": filters,
            "table": list(table.values()),
            "metrics": plots.METRIC_LABELS,
            "figures": figures,
            "section": "correlations",
            "plotly_version": PLOTLY_JS_VERSION,
        },
    )


@require_safe
def optimal_actions(request):
    """How many actions the optimal policy needs, per domain, one figure per setting.

    Reads stored instances, counted by the database in one aggregate query.
    """
    counts = pd.DataFrame.from_records(
        list(
            Instance.objects.filter(oracle_actions__isnull=False)
            .values_list("n_truths", "n_actions", "domain__name", "oracle_actions")
            .annotate(instances=Count("id"))
            .order_by()
        ),
        columns=["n_truths", "n_actions", "domain", "oracle_actions", "instances"],
    )
    figures = []
    for (n_truths, n_actions), group in counts.groupby(["n_truths", "n_actions"], sort=True):
        setting = Setting(int(n_truths), int(n_actions))
        figures.append(
            {
                "id": f"figure-optimal-{setting.key}",
                "figure": plots.optimal_actions(group, setting.label),
            }
        )
    return render(
        request,
        "leaderboard/optimal_actions.html",
        {"figures": figures, "section": "optimal", "plotly_version": PLOTLY_JS_VERSION},
    )


@require_safe
def rounds(request):
    """Every public round: dates, domains, settings, and the download of a published one."""
    listed = list(
        Round.objects.filter(status__in=PUBLIC_ROUNDS)
        .prefetch_related("domains")
        .order_by("-starts_on", "-pk")
    )
    current = next((r for r in listed if r.status == Round.Status.ACTIVE), None)
    return render(
        request,
        "leaderboard/rounds.html",
        {"rounds": listed, "current": current, "section": "rounds"},
    )


@require_safe
def round_instances(request, name: str):
    """A closed, published round's instances as KUMO-compatible JSONL, valid truths included.

    One line per instance: the KUMO task object (``truths``, ``actions``, ``observations``,
    ``valid_truth``, ``seed``) plus ``domain``, ``expected_actions`` and
    ``oracle_actions``. ``?domain=`` and ``?setting=4x6`` narrow it to one task file that
    ``import_tasks`` reads as it is. Any other round (active above all) is a 404.
    """
    target = Round.objects.filter(
        name=name, status=Round.Status.CLOSED, published_at__isnull=False
    ).first()
    if target is None:
        raise Http404(f"no published round named {name}")
    instances = Instance.objects.filter(rounds=target).select_related("domain")
    stem = f"kumo-round-{target.name}"
    domain = request.GET.get("domain", "").strip()
    if domain:
        instances = instances.filter(domain__name=domain)
        stem += f"-{domain}"
    value = request.GET.get("setting", "").strip()
    if value:
        setting = Setting.parse(value)
        if setting is None:
            return _bad_filter(BadFilter("setting must look like 4x6 (truths x actions)"))
        instances = instances.filter(n_truths=setting.n_truths, n_actions=setting.n_actions)
        stem += f"-{setting.key}"
    ordered = instances.order_by("domain__name", "n_truths", "n_actions", "seed")

    def lines():
        for instance in ordered.iterator(chunk_size=500):
            record = {
                **instance.to_core().to_kumo(),
                "domain": instance.domain.name,
                "expected_actions": instance.expected_actions,
                "oracle_actions": instance.oracle_actions,
            }
            yield json.dumps(record) + "\n"

    response = StreamingHttpResponse(lines(), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{stem}.jsonl"'
    return response


@cache
def _plotly_js() -> tuple[bytes, bytes]:
    """plotly.min.js from the installed package, plain and gzipped (read once per process)."""
    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    data = source.read_bytes()
    return data, gzip.compress(data, compresslevel=6)


@require_safe
def plotly_js(request, version: str):
    """Serve the plotly.js bundled with the ``plotly`` package, cached for a year.

    The version is part of the URL, so upgrading the package changes the address and a
    browser never keeps an old copy; an outdated address redirects to the current one.
    """
    if version != PLOTLY_JS_VERSION:
        return redirect("leaderboard:plotly-js", version=PLOTLY_JS_VERSION)
    plain, packed = _plotly_js()
    compressed = "gzip" in request.headers.get("Accept-Encoding", "")
    response = HttpResponse(
        packed if compressed else plain, content_type="text/javascript; charset=utf-8"
    )
    if compressed:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ["Accept-Encoding"])
    patch_cache_control(response, public=True, max_age=365 * 24 * 3600, immutable=True)
    return response


def family_profile(request):
    """Every model across the task families, with the correlations between families."""
    from leaderboard.profile import build_profile, profile_figure

    profile = build_profile()
    return render(
        request,
        "leaderboard/profile.html",
        {
            "profile": profile,
            "figures": [profile_figure(profile)] if profile.rows else [],
            "plotly_version": PLOTLY_JS_VERSION,
            "section": "profile",
        },
    )


def family_board(request):
    """The task families' board: models and people per kind and level, from the stored
    rows (``leaderboard.family_board.board_page``), one family at a time; with ``?round=``
    a closed round's own rows, and for a live round only a notice."""
    from leaderboard.family_board import NoSuchChoice, board_page

    if request.GET.get("family") == KUMO_FAMILY:
        return redirect("leaderboard:board")  # KUMO's rows are the KUMO board's
    try:
        page = board_page(request.GET.get("round", ""), request.GET.get("family", ""))
    except NoSuchChoice as error:
        raise Http404(str(error)) from error
    return render(
        request,
        "leaderboard/families.html",
        {**page, "plotly_version": PLOTLY_JS_VERSION, "section": "families"},
    )
