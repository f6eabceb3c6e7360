"""The benchmark runner's core: play games against a player, many at a time. No Django.

:func:`play_game` plays one game through :class:`engine.core.families.kumo.game.Game` (so the
rules, the
name matching and the invalid-move count are the Game's) and returns the trajectory as a
line of our native results format (docs/results-format.md). :func:`iter_games` plays many
games on a thread pool and yields each result in the calling thread, which alone touches the
database, the output file and the progress bar (``benchmark.actions`` does that part).

The player only ever receives a :class:`~benchmark.protocol.TaskView` and the feedback on
its own moves; the instance, with its valid truth and unplayed observations, stays inside
the Game.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from benchmark.llm import LLMError, LLMStatusError
from benchmark.players import Player
from benchmark.protocol import Feedback, TaskView, classify_move, parse_answer
from engine.core.families.kumo.game import Game, InvalidMove
from engine.core.families.kumo.types import Domain, Instance


@dataclass(frozen=True)
class Limits:
    """When a game ends without an answer: after ``max_turns`` replies, or after
    ``max_parse_errors`` replies that could not be read."""

    max_turns: int = 30
    max_parse_errors: int = 3


@dataclass(frozen=True)
class Job:
    """One game to play: run ``run`` of an instance of ``domain_name``."""

    domain_name: str
    domain: Domain
    instance: Instance
    book: str
    run: int

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.domain_name, self.instance.seed, self.run)

    @property
    def game_key(self) -> str:
        return f"{self.domain_name}:{self.instance.seed}:{self.run}"


@dataclass
class Outcome:
    """A finished job: the results-file record, or the error that stopped the game."""

    job: Job
    record: dict[str, Any] | None = None
    error: LLMError | None = None
    turns: list[dict[str, Any]] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        return bool(self.record and self.record["claimed"]["correct"])


# Statuses with which an API refuses a request it could not take (typically a conversation
# grown past the model's context window). After at least one turn went through, the game
# ends there without an answer, as the model's failure; on the first turn the request
# itself is at fault, and the game fails like any other API error.
GAME_ENDING_STATUSES = frozenset({400, 413, 422})


class Cancelled(Exception):
    """The run was stopped while this game was being played."""


class GameFailed(Exception):
    """A request to the player's API failed for good; ``turns`` holds what was played."""

    def __init__(self, error: LLMError, turns: list[dict[str, Any]]) -> None:
        super().__init__(str(error))
        self.error = error
        self.turns = turns


# Makes the game a job is played on: by default the engine's Game, in memory; the ranked
# mode passes one that sends every move through the session service first.
GameFactory = Callable[[Job], Game]


def play_game(
    job: Job,
    player: Player,
    limits: Limits,
    stop: threading.Event | None = None,
    new_game: GameFactory | None = None,
) -> dict[str, Any]:
    """Play one game and return its native results record.

    1. Each turn the player gets the feedback on its previous move and replies.
    2. The reply's ``<ANSWER>`` is read; an unreadable reply is a parse error (the game
       ends without an answer after ``limits.max_parse_errors`` of them).
    3. A name that fits a truth ends the game (the answer); anything else is played as an
       action, which the Game refuses and counts if it is unknown or already taken.
    4. After ``limits.max_turns`` replies the game ends without an answer, and so it does
       when the API refuses a later turn's request (see ``GAME_ENDING_STATUSES``).

    Raises :class:`GameFailed` when the player's API fails for good and :class:`Cancelled`
    when ``stop`` is set between turns.
    """
    game = new_game(job) if new_game is not None else Game(job.domain, job.instance)
    try:
        return _play_on(game, job, player, limits, stop)
    finally:
        close = getattr(game, "close", None)
        if close is not None:
            close()


def _play_on(
    game: Game, job: Job, player: Player, limits: Limits, stop: threading.Event | None
) -> dict[str, Any]:
    task = TaskView.of(job.domain, job.instance, job.book)
    session = player.new_game(task, job.game_key)
    turns: list[dict[str, Any]] = []
    sent_actions: list[str] = []
    feedback: Feedback | None = None
    parse_errors = 0
    ended = "max_turns"
    for number in range(1, limits.max_turns + 1):
        if stop is not None and stop.is_set():
            raise Cancelled(job.game_key)
        try:
            reply = session.move(feedback)
        except LLMStatusError as error:
            if not turns or error.status_code not in GAME_ENDING_STATUSES:
                raise GameFailed(error, turns) from error
            turns.append(_refused_turn(number, str(error)))
            ended = "api_refused"
            break
        except LLMError as error:
            raise GameFailed(error, turns) from error
        turn: dict[str, Any] = {
            "turn": number,
            "reply": reply.content,
            "reasoning": reply.reasoning,
            "parsed": None,
            "move": None,
            "name": None,
            "observation": None,
            "error": None,
            "tokens": {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens},
        }
        turns.append(turn)
        name = parse_answer(reply.content)
        if name is None:
            parse_errors += 1
            turn["error"] = "parse error: no <ANSWER> name </ANSWER> in the reply"
            if parse_errors >= limits.max_parse_errors:
                ended = "parse_errors"
                break
            feedback = Feedback("unreadable")
            continue
        turn["parsed"] = name
        if classify_move(name, game.actions, game.truths) == "answer":
            result = game.answer(name)
            turn.update(move="answer", name=result.answer)
            ended = "answer"
            break
        turn["move"] = "action"
        try:
            observation = game.take_action(name)
        except InvalidMove as error:
            # Counted by the Game; results files list invalid actions as sent.
            sent_actions.append(name)
            turn.update(name=name, error=f"invalid move: {error}")
            feedback = Feedback("invalid", message=str(error))
            continue
        canonical = game.history[-1].name
        sent_actions.append(canonical)
        turn.update(name=canonical, observation=observation)
        feedback = Feedback("observation", action=canonical, observation=observation)

    result = game.result
    return {
        "seed": job.instance.seed,
        "run": job.run,
        "domain": job.domain_name,
        "actions": sent_actions,
        "answer": result.answer if result else None,
        "tokens": {
            "prompt": sum(turn["tokens"]["prompt"] for turn in turns),
            "completion": sum(turn["tokens"]["completion"] for turn in turns),
        },
        "parse_errors": parse_errors,
        "claimed": {
            "correct": bool(result and result.correct),
            "actions_taken": game.actions_taken,
        },
        "invalid_moves": game.invalid_moves,
        "ended": ended,
        "turns": turns,
    }


def _refused_turn(number: int, error: str) -> dict[str, Any]:
    return {
        "turn": number,
        "reply": None,
        "reasoning": None,
        "parsed": None,
        "move": None,
        "name": None,
        "observation": None,
        "error": f"the API refused the request: {error}",
        "tokens": {"prompt": 0, "completion": 0},
    }


def iter_games(
    jobs: Iterable[Job],
    player: Player,
    limits: Limits,
    *,
    concurrency: int = 1,
    stop: threading.Event | None = None,
    new_game: GameFactory | None = None,
) -> Iterator[Outcome]:
    """Play ``jobs`` on ``concurrency`` threads, yielding each outcome as it finishes.

    Jobs are taken from ``jobs`` only as threads free up (a few ahead), so a generator may
    make each one when it is needed. Outcomes are yielded in the calling thread, and the
    next job is taken after the consumer is done with an outcome. Closing the generator (or
    setting ``stop``)
    cancels the games not started and makes running ones stop before their next turn; it
    returns once the worker threads are done, so nothing outlives the call.
    """
    stop = stop or threading.Event()
    executor = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="game")
    running: dict[Future, Job] = {}
    try:
        # Submit lazily (a few more than there are threads): cancelling is then cheap and the
        # queue holds no thousands of futures.
        backlog = iter(jobs)
        for job in _take(backlog, 2 * max(1, concurrency)):
            running[executor.submit(_play, job, player, limits, stop, new_game)] = job
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for finished in done:
                job = running.pop(finished)
                outcome = _outcome(job, finished)
                if outcome is not None:
                    yield outcome
                if not stop.is_set():
                    for next_job in _take(backlog, 1):
                        future = executor.submit(_play, next_job, player, limits, stop, new_game)
                        running[future] = next_job
    finally:
        stop.set()
        executor.shutdown(wait=True, cancel_futures=True)


def _play(
    job: Job,
    player: Player,
    limits: Limits,
    stop: threading.Event,
    new_game: GameFactory | None = None,
) -> dict[str, Any]:
    try:
        return play_game(job, player, limits, stop, new_game)
    except GameFailed as failure:
        if failure.error.fatal:
            # Every other game would fail the same way: stop them before their next request,
            # without waiting for the calling thread to notice.
            stop.set()
        raise


def _outcome(job: Job, future: Future) -> Outcome | None:
    try:
        return Outcome(job, record=future.result())
    except Cancelled:
        return None
    except GameFailed as failure:
        return Outcome(job, error=failure.error, turns=failure.turns)


def _take(iterator: Iterator[Job], count: int) -> list[Job]:
    taken = []
    for job in iterator:
        taken.append(job)
        if len(taken) == count:
            break
    return taken
