"""Parse results files and re-score every trajectory by replaying it through the engine.

Django-free apart from nothing: it works on engine dataclasses, so the same code scores an
upload, a runner's output and a test's fixture. Formats: docs/results-format.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.core.families.kumo.game import Game, GameOver, InvalidMove
from engine.core.families.kumo.metrics import (
    kumo_record_to_information_actions,
    relative_action_count,
)
from engine.core.families.kumo.types import Domain, Instance


class ResultsError(ValueError):
    """A results file that cannot be accepted; ``problems`` name the lines."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = problems[:50]
        more = f"\n… and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__("\n".join(shown) + more)


@dataclass
class ParsedTrajectory:
    line: int
    seed: int | None
    run: int
    actions: list[str]
    answer: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    parse_errors: int = 0
    claimed_correct: bool | None = None
    claimed_actions: int | None = None
    raw_action_count: int | None = None
    # A native line may name its instance by id (``/api/v1/instances/``) instead of by seed:
    # a live round's instances have secret seeds, served only once the round is published.
    instance: int | None = None

    @property
    def names(self) -> str:
        """How the line names its instance, for messages."""
        return f"id {self.instance}" if self.instance is not None else f"seed {self.seed}"


@dataclass
class ScoredTrajectory:
    parsed: ParsedTrajectory
    correct: bool
    information_actions: int
    invalid_moves: int
    relative_action_count: float
    disagrees: bool
    extra: dict = field(default_factory=dict)


# Bounds of what a file may hold, so that every value fits its database column (a 32-bit
# integer, a 500-character name) and nothing can strand a submission half-scored.
MAX_COUNT = 2**31 - 1
MAX_SEED = 2**63 - 1
MAX_NAME = 500
MAX_MOVES = 1_000
MAX_LINE_BYTES = 1_000_000


def _non_negative_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer")
    if value > MAX_COUNT:
        raise ValueError(f"{what} must be at most {MAX_COUNT:,}, got {value}")
    return value


def _seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("'seed' must be an integer")
    if not -MAX_SEED <= value <= MAX_SEED:
        raise ValueError(f"'seed' must fit in 64 bits, got {value}")
    return value


def storable_text(value: str, what: str, limit: int) -> str:
    """Text from a results file, bounded and storable in any database (no NUL character,
    no unpaired surrogate, which PostgreSQL and UTF-8 refuse); ``ValueError`` naming
    ``what`` otherwise."""
    if len(value) > limit:
        raise ValueError(f"{what} is longer than {limit:,} characters")
    if "\x00" in value:
        raise ValueError(f"{what} holds a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} holds an unpaired surrogate (not valid Unicode)") from None
    return value


def _name(value: str, what: str) -> str:
    """A move's name as sent (see ``storable_text``)."""
    return storable_text(value, what, MAX_NAME)


def _moves(values: list, what: str) -> list[str]:
    if len(values) > MAX_MOVES:
        raise ValueError(f"{what} holds more than {MAX_MOVES} moves")
    return [_name(value, f"{what} entry {i + 1}") for i, value in enumerate(values)]


def _load_line(line: str) -> object:
    """One JSON line, or ``ValueError`` saying why not (too long, not JSON, too deep)."""
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"the line is longer than {MAX_LINE_BYTES:,} characters")
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


def parse_native(lines: Iterable[str]) -> list[ParsedTrajectory]:
    """Parse our JSONL; every problem is reported with its line number."""
    parsed: list[ParsedTrajectory] = []
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = _load_line(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            parsed.append(_native_record(number, data))
        except (ValueError, TypeError) as error:
            problems.append(f"line {number}: {error}")
    return _finish(parsed, problems)


def _native_record(number: int, data: Mapping) -> ParsedTrajectory:
    instance = None
    if "instance" in data:
        instance, seed = _non_negative_int(data["instance"], "'instance'"), None
    elif "seed" not in data:
        raise ValueError("missing 'seed' (or 'instance': an id from /api/v1/instances/)")
    else:
        seed = _seed(data["seed"])
    actions = data.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ValueError("'actions' must be a list of action names")
    if "answer" not in data:
        raise ValueError("missing 'answer' (use null when the game ended without one)")
    answer = data["answer"]
    if answer is not None and not isinstance(answer, str):
        raise ValueError("'answer' must be a truth name or null")
    if answer is not None:
        answer = _name(answer, "'answer'")
    tokens = data.get("tokens") or {}
    if not isinstance(tokens, Mapping):
        raise ValueError("'tokens' must be an object")
    claimed = data.get("claimed") or {}
    if not isinstance(claimed, Mapping):
        raise ValueError("'claimed' must be an object")
    claimed_correct = claimed.get("correct")
    if claimed_correct is not None and not isinstance(claimed_correct, bool):
        raise ValueError("'claimed.correct' must be true, false or absent")
    claimed_actions = claimed.get("actions_taken")
    if claimed_actions is not None:
        claimed_actions = _non_negative_int(claimed_actions, "'claimed.actions_taken'")
    return ParsedTrajectory(
        line=number,
        seed=seed,
        run=_non_negative_int(data.get("run", 0), "'run'"),
        actions=_moves(actions, "'actions'"),
        answer=answer,
        prompt_tokens=_non_negative_int(tokens.get("prompt", 0), "'tokens.prompt'"),
        completion_tokens=_non_negative_int(tokens.get("completion", 0), "'tokens.completion'"),
        parse_errors=_non_negative_int(data.get("parse_errors", 0), "'parse_errors'"),
        claimed_correct=claimed_correct,
        claimed_actions=claimed_actions,
        instance=instance,
    )


def parse_kumo(
    lines: Iterable[str], *, repairs: list[dict] | None = None
) -> list[ParsedTrajectory]:
    """Parse an original KUMO results file (one instance per line, its runs inside).

    Each run's ``actions`` list holds the information actions, then the answer, then a
    ``{"predicted_truth": …}`` record: its length is information actions + 2. A run that
    ended on parse errors has no answer and may end with a ``null`` instead.

    With ``repairs`` (a list, filled in; for files of a published release only, never for
    ordinary uploads) the file is repaired instead of refused: a line repeating an earlier
    line of the same seed word for word is kept once, a different record for a seed already
    seen is skipped (the first is kept), and an unreadable line (e.g. truncated) is skipped.
    Each repair is appended as ``{"line": n, "seed": s or None, "what": "..."}``.
    """
    parsed: list[ParsedTrajectory] = []
    problems: list[str] = []
    seen: dict[int, tuple[int, str]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = _load_line(line)
            if not isinstance(data, dict):
                raise ValueError("expected a JSON object")
            if "seed" not in data:
                raise ValueError("missing or non-integer 'seed'")
            seed = _seed(data["seed"])
            if repairs is not None and seed in seen:
                first, text = seen[seed]
                same = text == line.strip()
                repairs.append(
                    {
                        "line": number,
                        "seed": seed,
                        "what": (
                            f"identical repeat of line {first}: kept once"
                            if same
                            else f"a different record for seed {seed} than line {first}: "
                            "skipped (the first is kept)"
                        ),
                    }
                )
                continue
            runs = data.get("trajectories")
            if not isinstance(runs, list) or not runs:
                raise ValueError("'trajectories' must be a non-empty list")
            if len(runs) > MAX_MOVES:
                raise ValueError(f"'trajectories' holds more than {MAX_MOVES} runs")
            cut: list[str] = []
            records = [
                _kumo_run(number, seed, run, record, cut if repairs is not None else None)
                for run, record in enumerate(runs)
            ]
            if cut:
                repairs.append(  # type: ignore[union-attr]
                    {
                        "line": number,
                        "seed": seed,
                        "what": f"{len(cut)} move(s) longer than {MAX_NAME} characters cut "
                        f"to {MAX_NAME} (a reply that names no action or truth: an invalid "
                        f"move either way), in {', '.join(dict.fromkeys(cut))}",
                    }
                )
            parsed.extend(records)
            seen.setdefault(seed, (number, line.strip()))
        except (ValueError, TypeError) as error:
            if repairs is not None:
                repairs.append({"line": number, "seed": None, "what": f"skipped: {error}"})
                continue
            problems.append(f"line {number}: {error}")
    return _finish(parsed, problems)


def _kumo_run(
    number: int, seed: int, run: int, record: object, cut: list[str] | None = None
) -> ParsedTrajectory:
    """One run of a KUMO line. With ``cut`` (repair mode) an overlong move is cut to
    ``MAX_NAME`` characters instead of refused, and the run is noted in ``cut``."""
    if not isinstance(record, Mapping):
        raise ValueError(f"run {run}: expected an object")
    raw = record.get("actions")
    if not isinstance(raw, list):
        raise ValueError(f"run {run}: 'actions' must be a list")
    answer: str | None = None
    moves = list(raw)
    if moves and isinstance(moves[-1], Mapping) and "predicted_truth" in moves[-1]:
        answer = moves[-1]["predicted_truth"]
        # The answer as a move, then its record: information actions + 2 entries.
        information = kumo_record_to_information_actions(len(raw))
        moves = moves[:information]
    elif moves and moves[-1] is None:
        # A run that ended on a parse error records a trailing null and no answer.
        moves = moves[:-1]
    if not all(isinstance(move, str) for move in moves):
        raise ValueError(f"run {run}: 'actions' holds something other than action names")
    if answer is not None and not isinstance(answer, str):
        raise ValueError(f"run {run}: 'predicted_truth' must be a string")
    if answer is not None:
        answer = _name(answer, f"run {run}: 'predicted_truth'")
    if cut is not None and any(len(move) > MAX_NAME for move in moves):
        cut.append(f"run {run}")
        moves = [move[:MAX_NAME] for move in moves]
    moves = _moves(moves, f"run {run}: 'actions'")
    successful = record.get("successful")
    tokens = record.get("consumed_tokens", 0)
    return ParsedTrajectory(
        line=number,
        seed=seed,
        run=run,
        actions=moves,
        answer=answer,
        # The original files record only a total; keep it as prompt tokens.
        prompt_tokens=_non_negative_int(tokens, f"run {run}: 'consumed_tokens'"),
        parse_errors=1 if record.get("parse_error") else 0,
        claimed_correct=successful if isinstance(successful, bool) else None,
        raw_action_count=len(raw),
    )


def _finish(parsed: list[ParsedTrajectory], problems: list[str]) -> list[ParsedTrajectory]:
    seen: dict[tuple[int | None, int | None, int], int] = {}
    for item in parsed:
        key = (item.seed, item.instance, item.run)
        if key in seen:
            problems.append(
                f"line {item.line}: {item.names} run {item.run} already appears on line {seen[key]}"
            )
        seen[key] = item.line
    if problems:
        raise ResultsError(problems)
    if not parsed:
        raise ResultsError(["the file holds no trajectories"])
    return parsed


def score(
    domain: Domain, instance: Instance, oracle_actions: int, parsed: ParsedTrajectory
) -> ScoredTrajectory:
    """Replay one trajectory and decide everything from the stored instance.

    Invalid moves (unknown or repeated actions, an unknown truth as answer) are counted;
    a trajectory with no valid answer is a failure.
    """
    game = Game(domain, instance)
    for action in parsed.actions:
        try:
            game.take_action(action)
        except InvalidMove:
            pass  # counted by the game
    correct = False
    if parsed.answer is not None:
        try:
            correct = game.answer(parsed.answer).correct
        except GameOver:  # pragma: no cover - the game cannot be over before the answer
            pass
        except InvalidMove:
            pass
    information = game.actions_taken
    disagrees = (parsed.claimed_correct is not None and parsed.claimed_correct != correct) or (
        parsed.claimed_actions is not None and parsed.claimed_actions != information
    )
    return ScoredTrajectory(
        parsed=parsed,
        correct=correct,
        information_actions=information,
        invalid_moves=game.invalid_moves,
        relative_action_count=relative_action_count(information, oracle_actions),
        disagrees=disagrees,
    )
