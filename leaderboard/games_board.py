"""KORGym's Capability Dimension Aggregated Mean for the games family, per player and level.

KORGym scores each game its own way (a win, a share solved, or an unbounded count such as
2048's merged points) and compares models across games in three steps, which this module
follows for every level that has games played:

1. **Per-game score.** A player's score on a game is the mean, over its counted attempts,
   of the game's own score: ``details["points"]`` for games whose score is an unbounded
   count (``Game.log_scaled``), else the attempt's value in [0, 1]. The recompute stores
   it with the board row (``FamilyBoardRow.mean_points``); the steps below run on read.
2. **Per-game normalisation.** Counts are log-transformed, ``ln(1 + s)``, so one long run
   cannot dominate; then each game's scores are min–max normalised across the players who
   played it, ``(s − min) / (max − min)``. When the players cannot be told apart on a game
   (one player, or all equal) there is no spread to normalise by: a bounded score is kept
   as it is (it is already on [0, 1]) and a count falls back to the game's [0, 1] value.
3. **Dimension mean.** A player's figure for a dimension is the mean of its normalised
   scores over the dimension's games it played; the overall figure is the mean of its
   dimension figures (as KORGym's overall average over its five text dimensions).

Rows say how many of the family's games each player played: figures over fewer games are
not comparable with figures over all of them, and the board marks them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from engine.core.families.base import get_family
from engine.core.families.games.common import DIMENSIONS
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
        """The dimension figures in DIMENSIONS order (for templates)."""
        return [self.dimensions.get(name) for name in DIMENSIONS]


def dimension_rows(round_name: str = "", rows: list[FamilyRow] | None = None) -> list[DimensionRow]:
    """Every (level, player) with games played, with its dimension figures (see above),
    from the board's stored verified rows (``rows`` when the caller has them already)."""
    games = get_family("games").games
    if rows is None:
        rows = family_rows(round_name)
    per_game: dict[tuple[str, str], dict[str, tuple[float, float, int]]] = defaultdict(dict)
    for row in rows:
        if row.family != "games" or row.kind not in games or row.mean_points is None:
            continue  # a game no longer served: not in the dimensions
        level, kind, player = row.level, row.kind, row.player
        raw, value = row.mean_points, row.mean_value
        if games[kind].log_scaled:
            raw = math.log1p(max(raw, 0.0))
        per_game[(level, kind)][player] = (raw, value, row.attempts)

    scores: dict[tuple[str, str], list[GameScore]] = defaultdict(list)
    for (level, kind), players in per_game.items():
        game = games[kind]
        low = min(raw for raw, _, _ in players.values())
        high = max(raw for raw, _, _ in players.values())
        for player, (raw, value, n) in players.items():
            if high > low:
                normalised = (raw - low) / (high - low)
            else:  # nothing to tell the players apart by on this game
                normalised = value if game.log_scaled else min(max(raw, 0.0), 1.0)
            scores[(level, player)].append(GameScore(kind, game.dimension, n, raw, normalised))

    rows = []
    for (level, player), mine in scores.items():
        by_dimension: dict[str, list[float]] = defaultdict(list)
        for score in mine:
            by_dimension[score.dimension].append(score.normalised)
        dimensions = {
            name: (sum(by_dimension[name]) / len(by_dimension[name]))
            if by_dimension.get(name)
            else None
            for name in DIMENSIONS
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
    rows.sort(
        key=lambda r: (level_rank("games", "nim", r.level), r.level, -(r.overall or 0), r.player)
    )
    return rows


def games_served() -> int:
    return len(get_family("games").games)
