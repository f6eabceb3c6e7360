"""The board of the task families (docs/task-families.md): models and people side by side.

One row per family, kind, difficulty level and player (a model's name, or "People" for the
study's analysis sample): attempts, success rate with its 95 % Wilson score interval, mean
score, parse-error rate and mean tokens; a figure per kind plots the success rate against
the level. The rows are stored (``FamilyBoardRow``), built by the scheduled and incremental
recompute (``leaderboard.family_recompute``, which also decides which attempts count); the
pages read them in one query.

Families scored by subtasks (``lr2bench`` and the generated ``puzzles``) add LR²Bench's four
figures per row, pooled over the row's attempts as LR²Bench's evaluation pools a level's
items: Completion Ratio (the share of attempts with an extractable answer, Wilson
interval), Subtask Accuracy (subtasks right over all the attempts' subtasks, with the
normal interval of a ratio of sums, ``lr2bench.scoring.ratio_interval``), Exact Match (the
success rate above) and Partial Match at 0.5 (a rate, with its Wilson interval).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from django.utils.html import escape
from django.utils.safestring import mark_safe

from engine.core.families.base import FamilyError, get_family
from leaderboard.models import PLATFORM_OWNER, FamilyBoardRow, Round

# The verified human row (study participants selected for analysis), the unverified row of
# everyone else's own play, and the runner's built-in players are names of the platform
# (kept in leaderboard.names, re-exported for the board's modules).
from leaderboard.names import FAMILY_BASELINES as BUILT_IN_PLAYERS  # noqa: F401
from leaderboard.names import PEOPLE, PRACTICE, owner_label  # noqa: F401

LEVEL_ORDER = {"easy": 0, "medium": 1, "hard": 2, "": 3}


@lru_cache(maxsize=4096)
def level_rank(family: str, kind: str, level: str) -> int:
    """A level's place in its kind's declared order (easy first); custom levels last.
    Cached: the registry does not change while the process runs, and a large board sorts
    thousands of rows by it."""
    try:
        levels = list(get_family(family).kind(kind).levels)
    except FamilyError:
        return LEVEL_ORDER.get(level, 9)
    return levels.index(level) if level in levels else len(levels)


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


def stored_rows(round_name: str = "", *, verified: bool | None = True):
    """The board's stored rows (``leaderboard.family_recompute`` builds them): across
    rounds, or with ``round_name`` a closed round's own; the verified rows, or with
    ``verified=False`` the unverified ones, practice and self-reported (None: all)."""
    rows = FamilyBoardRow.objects.all()
    if verified is not None:
        rows = rows.filter(verified=verified)
    if round_name:
        return rows.filter(round__name=round_name, round__status=Round.Status.CLOSED)
    return rows.filter(round__isnull=True)


@dataclass(frozen=True, slots=True)
class FamilyRow:
    """One stored board row as the pages read it (``FamilyBoardRow``'s figures): plain
    values, since building a model instance per row was most of a large page's time."""

    family: str
    kind: str
    level: str
    round_id: int | None
    player: str
    player_kind: str
    model_id: int | None
    verified: bool
    attempts: int
    correct: int
    success_rate: float
    ci_low: float
    ci_high: float
    mean_value: float
    parse_error_rate: float
    mean_tokens: float
    cr: float | None
    cr_low: float | None
    cr_high: float | None
    s_acc: float | None
    s_acc_low: float | None
    s_acc_high: float | None
    em: float | None
    pm05: float | None
    pm05_low: float | None
    pm05_high: float | None
    mean_points: float | None
    # The account owning the player's name; "platform" for baselines and People.
    owner: str

    @property
    def subtasks(self) -> SubtaskFigures | None:
        """LR²Bench's figures as one object, or None for a family not scored by subtasks."""
        if self.cr is None:
            return None
        return SubtaskFigures(
            self.cr, self.cr_low, self.cr_high, self.s_acc, self.s_acc_low, self.s_acc_high,
            self.em, self.pm05, self.pm05_low, self.pm05_high,
        )  # fmt: skip


ROW_FIELDS = [name for name in FamilyRow.__dataclass_fields__]
# The stored columns, read in one query: the owner through the row's model.
_COLUMNS = [("model__owner__username" if name == "owner" else name) for name in ROW_FIELDS]


def _owner(username: str | None, organisation: str | None, *, verified: bool) -> str:
    if username:
        return owner_label(username, organisation)
    return PLATFORM_OWNER if verified else ""


def family_rows(
    round_name: str = "", *, verified: bool = True, family: str | None = None
) -> list[FamilyRow]:
    """``stored_rows`` (of one ``family``, or every family) in one query, ordered by
    family, kind, level (in the kind's declared order), best success rate first."""
    rows = stored_rows(round_name, verified=verified)
    if family is not None:
        rows = rows.filter(family=family)
    # The owner's organisation rides in the same query (leaderboard.names.owner_label).
    columns = (*_COLUMNS, "model__owner__account__organisation")
    found = [
        FamilyRow(*values[:-2], owner=_owner(*values[-2:], verified=values[7]))
        for values in rows.order_by().values_list(*columns)
    ]
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


class NoSuchChoice(Exception):
    """A round or family the board has no results for; ``str()`` says which."""


def board_page(round_name: str = "", family: str = "") -> dict:
    """What ``/leaderboard/families/`` shows (four or five queries, whatever the size):

    1. the closed rounds with rows (``round_name`` must be one of them, or a round still
       live, which shows only a notice: its results stay secret until it closes);
    2. the families with rows (verified or practice): one is shown at a time, ``family``
       or the first by name, since every kind, level and player of all of them is
       thousands of rows;
    3. that family's verified rows with their tables and figures, and its unverified
       rows in one query: the practice row and the models' self-reported rows (uploaded
       results files), each shown apart and never ranked.
    """
    rounds_with_results = list(
        Round.objects.filter(family_board_rows__isnull=False, status=Round.Status.CLOSED)
        .distinct()
        .order_by("-starts_on")
        .values_list("name", flat=True)
    )
    live_round = ""
    if round_name and round_name not in rounds_with_results:
        status = Round.objects.filter(name=round_name).values_list("status", flat=True).first()
        if status == Round.Status.ACTIVE:
            live_round = round_name
        elif status != Round.Status.CLOSED:
            raise NoSuchChoice(f"no closed round with family results is called {round_name!r}")
    families = []
    if not live_round:
        families = list(
            stored_rows(round_name, verified=None)
            .order_by("family")
            .values_list("family", flat=True)
            .distinct()
        )
    if family and not live_round and family not in families:
        raise NoSuchChoice(f"no results of a family called {family!r}")
    family = family or (families[0] if families else "")
    rows = family_rows(round_name, family=family) if family else []
    unverified = family_rows(round_name, verified=False, family=family) if family else []
    reported = [r for r in unverified if r.player_kind == FamilyBoardRow.PlayerKind.SELF_REPORTED]
    return {
        "rows": rows,
        "practice_rows": [
            r for r in unverified if r.player_kind == FamilyBoardRow.PlayerKind.PRACTICE
        ],
        "reported_rows": reported,
        "board_body": board_body(rows),
        "subtask_body": subtask_body(rows),
        "reported_body": board_body(reported),
        "reported_subtask_body": subtask_body(reported),
        **_dimension_table(family, rows),
        "figures": level_figures(rows),
        "rounds_with_results": rounds_with_results,
        "families_shown": families,
        "chosen_family": family,
        "chosen_round": round_name,
        "live_round": live_round,
    }


# The two large tables' rows, written here rather than in the template: a board of a
# thousand rows took the template engine over a second (a variable lookup and a filter per
# cell). Every text is escaped with Django's ``escape``; the rest are formatted numbers.
BOARD_ROW = (
    '<tr data-player="{}" data-kind="{}" data-level="{}"><td>{}</td><td>{}</td><td>{}</td>'
    '<td>{}</td><td class="owner">{}</td><td class="num">{}</td><td class="num">{}</td>'
    '<td class="num">{}–{}</td><td class="num">{}</td><td class="num">{}</td>'
    '<td class="num">{}</td></tr>\n'
)
SUBTASK_ROW = (
    '<tr data-player="{}" data-kind="{}" data-level="{}"><td>{}</td><td>{}</td><td>{}</td>'
    '<td class="num">{}</td>'
    '<td class="num" data-metric="cr">{} <span class="muted">({}–{})</span></td>'
    '<td class="num" data-metric="s_acc">{} <span class="muted">({}–{})</span></td>'
    '<td class="num" data-metric="em">{} <span class="muted">({}–{})</span></td>'
    '<td class="num" data-metric="pm05">{} <span class="muted">({}–{})</span></td>'
    "</tr>\n"
)


def _3(value: float) -> str:
    return f"{value:.3f}"


def board_body(rows: list[FamilyRow]) -> str:
    """The main table's rows as HTML (every text escaped; the figures are numbers)."""
    lines = []
    for r in rows:
        player, kind, level = escape(r.player), escape(r.kind), escape(r.level)
        lines.append(
            BOARD_ROW.format(
                player,
                kind,
                level,
                escape(r.family),
                kind,
                level or "custom",
                player,
                escape(r.owner or "—"),
                r.attempts,
                _3(r.success_rate),
                _3(r.ci_low),
                _3(r.ci_high),
                _3(r.mean_value),
                _3(r.parse_error_rate),
                f"{r.mean_tokens:.0f}",
            )  # fmt: skip
        )
    return mark_safe("".join(lines))  # noqa: S308 - built from escaped text and numbers


def subtask_body(rows: list[FamilyRow]) -> str:
    """LR²Bench's table's rows as HTML (rows of subtask families only)."""
    lines = []
    for r in rows:
        if r.cr is None:
            continue
        player, kind, level = escape(r.player), escape(r.kind), escape(r.level)
        lines.append(
            SUBTASK_ROW.format(
                player,
                kind,
                level,
                kind,
                level or "custom",
                player,
                r.attempts,
                *map(_3, (r.cr, r.cr_low, r.cr_high, r.s_acc, r.s_acc_low, r.s_acc_high)),
                *map(_3, (r.em, r.ci_low, r.ci_high, r.pm05, r.pm05_low, r.pm05_high)),
            )  # fmt: skip
        )
    return mark_safe("".join(lines))  # noqa: S308 - built from escaped text and numbers


def level_figures(rows: list[FamilyRow]) -> list[dict]:
    """Per family and kind, success rate (with its interval) against the level, one line
    per player. The traces are written as plain plotly JSON: building them as plotly
    objects validates every property and cost seconds on a large board."""
    from leaderboard.plots import plot_text

    by_kind: dict[tuple[str, str], list[FamilyRow]] = defaultdict(list)
    for row in rows:
        by_kind[(row.family, row.kind)].append(row)
    figures = []
    for (family, kind), kind_rows in by_kind.items():
        by_player: dict[str, list[FamilyRow]] = defaultdict(list)
        for row in kind_rows:
            by_player[row.player].append(row)
        data = []
        for player in sorted(by_player):
            mine = sorted(by_player[player], key=lambda r: level_rank(r.family, r.kind, r.level))
            data.append(
                {
                    "type": "scatter",
                    "x": [plot_text(r.level or "custom") for r in mine],
                    "y": [r.success_rate for r in mine],
                    "error_y": {
                        "type": "data",
                        "symmetric": False,
                        "array": [r.ci_high - r.success_rate for r in mine],
                        "arrayminus": [r.success_rate - r.ci_low for r in mine],
                    },
                    "mode": "lines+markers",
                    "name": plot_text(player),
                }
            )
        layout = json.loads(_level_layout())
        layout["title"] = {"text": plot_text(f"{family} / {kind}: success rate by level")}
        figures.append(
            {"id": f"family-{family}-{kind}", "figure": {"data": data, "layout": layout}}
        )
    return figures


@lru_cache(maxsize=1)
def _level_layout() -> str:
    """The level figures' layout as plotly writes it (built once, as JSON text)."""
    import plotly.graph_objects as go

    from leaderboard.plots import BASE_LAYOUT, figure_json

    fig = go.Figure(
        layout={
            **BASE_LAYOUT,
            "yaxis": {"range": [0, 1.05], "title": {"text": "success rate (95% interval)"}},
            "xaxis": {"title": {"text": "level"}},
        }
    )
    return json.dumps(figure_json(fig)["layout"])


def _dimension_table(family: str, rows: list) -> dict:
    """The chosen family's dimension table, if it groups its kinds by dimension
    (``leaderboard.dimension_board``): its rows, dimensions, grouping and game count."""
    from leaderboard.dimension_board import dimension_rows, games_served

    source = get_family(family) if family else None
    if source is None or not source.dimensions:
        return {"dimension_rows": []}
    return {
        "dimension_rows": dimension_rows(rows=rows, family=family),
        "dimensions": dict(source.dimensions),
        "dimension_grouping": source.dimension_grouping,
        "dimension_title": source.title,
        "games_served": games_served(family),
    }
