"""KORGym's Capability Dimension Aggregated Mean, for every family that groups its kinds by
dimension (``Family.dimensions``): KORGym's own games with the paper's grouping (family
``korgym``), and our games with our own (family ``games``), each in a table of its own and
never mixed. Per player and level, as the paper (arXiv 2505.14552, section 4.1) does:

1. **Per-game score.** A player's score on a game is the mean, over its counted attempts,
   of the game's own score: ``details["points"]`` (KORGym's raw score, a count for games
   such as 2048), stored with the board row (``FamilyBoardRow.mean_points``); the steps
   below run on read.
2. **Per-game normalisation.** A game on which some player's raw score exceeds 1 is
   log-transformed, ``ln(1 + s)``, so one long run cannot dominate; then each game's
   scores are min–max normalised across the players who played it,
   ``(s − min) / (max − min)``. When the players cannot be told apart on a game (one
   player, or all equal) there is no spread to normalise by: a score on [0, 1] is kept as
   it is and a count falls back to the game's [0, 1] value.
3. **Dimension mean.** A player's figure for a dimension is the mean of its normalised
   scores over the dimension's games it played; the overall figure is the mean of its
   dimension figures.

Rows say how many of the family's games each player played: figures over fewer games are
not comparable with figures over all of them, and the board marks them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from engine.core.families.base import get_family
from leaderboard.family_board import FamilyRow, family_rows, level_rank


@dataclass(frozen=True)
class GameScore:
    """One player's score on one game at one level: raw (the game's own), normalised."""

    kind: str
    dimension: str
    attempts: int
    raw: float
    normalised: float


@dataclass(frozen=True)
class DimensionRow:
    level: str
    player: str
    games: int
    dimensions: dict[str, float | None]
    overall: float | None
    scores: tuple[GameScore, ...]

    @property
    def figures(self) -> list[float | None]:
        """The dimension figures in the family's order of dimensions (for templates)."""
        return list(self.dimensions.values())


def dimension_rows(
    round_name: str = "", rows: list[FamilyRow] | None = None, family: str = "games"
) -> list[DimensionRow]:
    """Every (level, player) with ``family``'s games played, with its dimension figures (see
    above), from the board's stored verified rows (``rows`` when the caller has them)."""
    source = get_family(family)
    if not source.dimensions:
        return []
    if rows is None:
        rows = family_rows(round_name, family=family)
    per_game: dict[tuple[str, str], dict[str, tuple[float, float, int]]] = defaultdict(dict)
    for row in rows:
        if row.family != family or row.mean_points is None:
            continue
        if source.dimension(row.kind) is None:
            continue  # a game no longer served: not in the dimensions
        per_game[(row.level, row.kind)][row.player] = (
            row.mean_points,
            row.mean_value,
            row.attempts,
        )
    counted = {
        key: max(raw for raw, _, _ in players.values()) > 1 for key, players in per_game.items()
    }
    for key, players in per_game.items():
        if counted[key]:
            players.update(
                {p: (math.log1p(max(raw, 0.0)), value, n) for p, (raw, value, n) in players.items()}
            )

    scores: dict[tuple[str, str], list[GameScore]] = defaultdict(list)
    for (level, kind), players in per_game.items():
        low = min(raw for raw, _, _ in players.values())
        high = max(raw for raw, _, _ in players.values())
        for player, (raw, value, n) in players.items():
            if high > low:
                normalised = (raw - low) / (high - low)
            else:  # nothing to tell the players apart by on this game
                normalised = value if counted[(level, kind)] else min(max(raw, 0.0), 1.0)
            scores[(level, player)].append(
                GameScore(kind, source.dimension(kind), n, raw, normalised)
            )

    rows = []
    for (level, player), mine in scores.items():
        by_dimension: dict[str, list[float]] = defaultdict(list)
        for score in mine:
            by_dimension[score.dimension].append(score.normalised)
        dimensions = {
            name: (sum(by_dimension[name]) / len(by_dimension[name]))
            if by_dimension.get(name)
            else None
            for name in source.dimensions
        }
        present = [v for v in dimensions.values() if v is not None]
        rows.append(
            DimensionRow(
                level=level,
                player=player,
                games=len(mine),
                dimensions=dimensions,
                overall=sum(present) / len(present) if present else None,
                scores=tuple(sorted(mine, key=lambda s: (s.dimension, s.kind))),
            )
        )
    first_kind = next(iter(source.kinds), "")
    rows.sort(
        key=lambda r: (
            level_rank(family, first_kind, r.level),
            r.level,
            -(r.overall or 0),
            r.player,
        )
    )
    return rows


def games_served(family: str = "games") -> int:
    source = get_family(family)
    return sum(1 for kind in source.kinds if source.dimension(kind) is not None)
