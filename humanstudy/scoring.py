"""Pay and quality formulas of the human study (docs/domain-model.md, "Human study").

Plain functions over plain data, so they are easy to test and reuse in analysis.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


def pay(
    success_rate: float,
    total_actions: int,
    *,
    base: Decimal = Decimal(25),
    success_bonus: Decimal = Decimal(15),
    per_action: Decimal = Decimal("0.1"),
) -> Decimal:
    """Pay per task set = base + success rate × bonus − total actions × per-action cost.

    Computed in decimal and rounded to cents, never below zero.
    """
    amount = (
        Decimal(base)
        + Decimal(str(success_rate)) * Decimal(success_bonus)
        - Decimal(total_actions) * Decimal(per_action)
    )
    return max(Decimal(0), amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class StudyMove:
    kind: str  # "action" or "answer" (KUMO), "move" (another family's game), "answer"
    elapsed_ms: int
    # What the page reported since the previous move (engine.sessions.CLIENT_SIGNALS), or
    # None when the move came with no report: not the same as "no paste, never away".
    client: dict | None = None

    @property
    def reported(self) -> bool:
        return self.client is not None


@dataclass(frozen=True)
class StudyTask:
    n_truths: int
    correct: bool
    actions_taken: int
    moves: list[StudyMove]
    # A task of another family (answered once, or a game played by moves): its chance of
    # being right by a random answer (0.5 for true/false, 0 for a number, a grid or a
    # game), and no "blind" answers, since it has no actions to take before an answer.
    interactive: bool = True
    random_chance: float | None = None

    @property
    def chance(self) -> float:
        """The probability that a random answer is right (KUMO: 1 / its truths)."""
        return self.random_chance if self.random_chance is not None else 1 / self.n_truths


@dataclass(frozen=True)
class QualityThresholds:
    min_median_seconds_per_move: float = 2.0
    max_blind_answers: int = 4
    success_margin_below_chance: float = 0.0
    max_pastes: int = 0
    max_away_seconds: float = 0
    max_failed_attention_checks: int = 0
    chance_test_alpha: float = 0.0
    max_unreported_share: float = 0.0


def chance_p_value(tasks: list[StudyTask]) -> float:
    """P(at least this many successes) when every task is answered at random without any
    action: the exact one-sided test against chance, with each task's own chance
    (``StudyTask.chance``), i.e. a Poisson-binomial tail. 1.0 with no tasks."""
    if not tasks:
        return 1.0
    # dist[k] = probability of exactly k successes among the tasks so far.
    dist = [1.0]
    for task in tasks:
        p = task.chance
        dist = [
            (dist[k] if k < len(dist) else 0.0) * (1 - p) + (dist[k - 1] * p if k else 0.0)
            for k in range(len(dist) + 1)
        ]
    successes = sum(task.correct for task in tasks)
    return min(1.0, sum(dist[successes:]))


def chance_rate(tasks: list[StudyTask]) -> float:
    """Expected success rate of naming a truth at random without any action."""
    return sum(task.chance for task in tasks) / len(tasks) if tasks else 0.0


def quality_problems(
    tasks: list[StudyTask], limits: QualityThresholds, attention: list[dict] | None = None
) -> list[str]:
    """Reasons to exclude a participant's data (empty list = passes).

    A rule whose threshold is 0 (or negative, for the success margin) is switched off.
    ``attention`` holds the attention checks met (``{"check", "passed"}`` each).
    """
    reasons = []
    seconds = [move.elapsed_ms / 1000 for task in tasks for move in task.moves]
    if seconds and limits.min_median_seconds_per_move > 0:
        median = statistics.median(seconds)
        if median < limits.min_median_seconds_per_move:
            reasons.append(
                f"median time per move {median:.1f} s is below "
                f"{limits.min_median_seconds_per_move:.1f} s"
            )
    blind = sum(1 for task in tasks if task.interactive and task.actions_taken == 0)
    if limits.max_blind_answers > 0 and blind > limits.max_blind_answers:
        reasons.append(
            f"{blind} of {len(tasks)} tasks answered before any action "
            f"(more than {limits.max_blind_answers})"
        )
    if tasks and limits.success_margin_below_chance >= 0:
        rate = sum(task.correct for task in tasks) / len(tasks)
        chance = chance_rate(tasks)
        if rate < chance - limits.success_margin_below_chance:
            reasons.append(
                f"success rate {rate:.0%} is below the {chance:.0%} expected from random answers"
            )
    if tasks and limits.chance_test_alpha > 0:
        p_value = chance_p_value(tasks)
        if p_value >= limits.chance_test_alpha:
            solved = sum(task.correct for task in tasks)
            reasons.append(
                f"{solved} of {len(tasks)} solved is no better than answering at random "
                f"(exact test against chance: p = {p_value:.2f} ≥ {limits.chance_test_alpha})"
            )
    moves = [move for task in tasks for move in task.moves]
    unreported = sum(1 for move in moves if not move.reported)
    if (
        moves
        and limits.max_unreported_share > 0
        and unreported / len(moves) > limits.max_unreported_share
    ):
        reasons.append(
            f"{unreported} of {len(moves)} moves came with no report from the task page "
            f"(more than {limits.max_unreported_share:.0%})"
        )
    # The signals below count what the reports say; the unreported moves are counted above.
    reports = [move.client for move in moves if move.reported]
    pastes = sum(report.get("pastes", 0) for report in reports)
    if limits.max_pastes > 0 and pastes > limits.max_pastes:
        reasons.append(f"pasted {pastes} times during the tasks (more than {limits.max_pastes})")
    away = sum(max(report.get("hidden_ms", 0), report.get("blur_ms", 0)) for report in reports)
    if limits.max_away_seconds > 0 and away / 1000 > limits.max_away_seconds:
        reasons.append(
            f"the task page was hidden or out of focus for {away / 1000:.0f} s in total "
            f"(more than {limits.max_away_seconds:.0f} s)"
        )
    failed = sum(1 for check in attention or [] if not check.get("passed"))
    if limits.max_failed_attention_checks > 0 and failed >= limits.max_failed_attention_checks:
        reasons.append(
            f"failed {failed} of {len(attention or [])} attention check(s) "
            f"(limit {limits.max_failed_attention_checks})"
        )
    return reasons
