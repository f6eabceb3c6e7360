"""Domain analysis for stored domains: the cached graph analysis of the domain page and the
one write path of the split (``python manage.py split_domain``).

The computations live in :mod:`engine.core.families.kumo.analysis` (plain Python); this module
caches
them per domain version and stores split halves through ``engine.actions``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from engine.actions import EngineError, do_import_domain
from engine.core.families.kumo.analysis import (
    DomainAnalysis,
    DomainSplit,
    analyse_domain,
    split_domain,
)
from engine.core.families.kumo.domain_io import domain_to_json
from engine.models import Domain
from engine.plots import truth_network


@dataclass(frozen=True)
class AnalysisPage:
    analysis: DomainAnalysis
    # The plotly figure of the truth graph (JSON-ready dict).
    network: dict


# Analyses by (pk, updated_at), like engine.models._CORE_DOMAINS: a stored domain only
# changes through do_import_domain, which bumps updated_at, so a stale entry is never hit.
_ANALYSES: dict[tuple[int, object], AnalysisPage] = {}
_MAX_CACHED = 64


def domain_analysis(domain: Domain) -> AnalysisPage:
    """The truth graph, communities, split plan and network figure of ``domain``.

    Louvain and the spring layout take tens of milliseconds on a 50-truth domain with a
    thousand edges, so the result is kept per process and domain version.
    """
    key = (domain.pk, domain.updated_at)
    cached = _ANALYSES.get(key)
    if cached is None:
        analysis = analyse_domain(domain.to_core())
        cached = AnalysisPage(
            analysis=analysis,
            network=truth_network(analysis, domain.truth_noun, domain.action_noun),
        )
        if len(_ANALYSES) >= _MAX_CACHED:
            _ANALYSES.clear()
        _ANALYSES[key] = cached
    return cached


@dataclass(frozen=True)
class SplitOutcome:
    split: DomainSplit
    # (stored row, created) for the in-distribution then the out-of-distribution half.
    stored: tuple[tuple[Domain, bool], tuple[Domain, bool]]


def do_split_domain(domain: Domain) -> SplitOutcome:
    """Split ``domain`` by connection and store both halves (source "split").

    1. Build both halves (:func:`engine.core.families.kumo.analysis.split_domain`); a connected
       graph or
       an invalid half raises ``SplitError`` and nothing is stored.
    2. In one transaction (both halves or neither): if a domain with a half's name already
       exists with other rules, refuse (never overwrite a stored domain); the same rules
       mean the split was already stored, and running again changes nothing. Otherwise
       store both halves.
    """
    split = split_domain(domain.to_core())
    halves = (split.ind.domain, split.ood.domain)
    with transaction.atomic():
        # Locked, so a concurrent import cannot slip in between the check and the write.
        names = [half.name for half in halves]
        existing = {
            row.name: row for row in Domain.objects.select_for_update().filter(name__in=names)
        }
        for half in halves:
            row = existing.get(half.name)
            if row is not None and row.data != domain_to_json(half):
                raise EngineError(
                    f"domain {half.name!r} already exists with different rules (source: "
                    f"{row.get_source_display()}); delete or rename it before splitting "
                    f"{domain.name!r} again"
                )
        stored = tuple(do_import_domain(half, source=Domain.Source.SPLIT) for half in halves)
    return SplitOutcome(split=split, stored=stored)  # type: ignore[arg-type]
