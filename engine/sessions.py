"""The game-session service: the one write path for every player.

The browser (websocket consumer), the HTTP API, the benchmark runner and tests all call
``start_session``, ``take_action`` and ``answer`` here. Each move:

1. locks the session row (``select_for_update``; on SQLite the IMMEDIATE transaction mode
   takes the write lock at BEGIN), so concurrent moves on one session are serialised;
2. rebuilds the game from the stored steps with the engine's ``Game.replay``;
3. applies the move, stores the step (invalid moves too, with their reason) and the
   session's counters;
4. when the move ends the game, sends ``session_finished`` inside the same transaction
   (the leaderboard records a ranked game's trajectory there, so a finished ranked game
   and its board entry are committed together or not at all);
5. after commit, tells the session's websocket group that its state changed, when a socket
   other than the mover's own watches it (``PlaySession.watchers``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from benchmark.compiled_sql import Prepared
from engine import limits, move_sql
from engine.core.families.kumo.game import Game, GameOver, GameResult, InvalidMove
from engine.core.families.kumo.metrics import canonical_action_count, relative_action_count
from engine.core.families.kumo.types import Observation
from engine.live import tell_group
from engine.models import Instance, KnowledgeBook, PlaySession, PlayStep, passed_books

logger = logging.getLogger(__name__)

# Sent inside the finishing transaction with ``session`` (a locked, updated PlaySession)
# and ``actions`` (the names of its accepted information actions, in order).
session_finished = Signal()


class SessionError(limits.PlayError):
    """A move the service refuses; ``str()`` is a message for the player."""


class SessionFinished(SessionError, limits.PlayFinished):
    pass


class SessionNotFound(SessionError, limits.PlayNotFound):
    """No such session, or it belongs to another player (the two are not told apart)."""


@dataclass(frozen=True)
class MoveOutcome:
    session: PlaySession
    step: PlayStep
    accepted: bool
    error: str = ""
    observation: Observation | None = None
    # The observation as people read it (``Action.shown``): rounded, with its unit, in words.
    shown: str | None = None
    result: GameResult | None = None
    remaining_actions: tuple[str, ...] = ()
    # Builds the session's state after this move (see ``session_state``); call it outside
    # any event loop (it may query the database once the game has ended).
    state: Callable[[], dict] | None = None


def group_name(session_id: int) -> str:
    return f"play-session-{session_id}"


def start_session(player: User, instance: Instance) -> tuple[PlaySession, bool]:
    """Open the player's session on an instance, or return the one they already have
    (``open_session``, for a caller that wants the session itself)."""
    session_id, _book, created = open_session(player, instance.pk)
    session = PlaySession.objects.get(pk=session_id)
    session.instance = instance
    return session, created


# A start's queries, compiled once per process (benchmark.compiled_sql.Prepared).
_OWN_SESSION = Prepared(
    lambda player, instance: (
        PlaySession.objects.filter(player_id=player, instance_id=instance)
        .order_by()
        .values_list("id", "book_id")
    ),
    markers=2,
)
_CURRENT_BOOK = Prepared(lambda instance: passed_books(instance).values_list("id", "text")[:1])
_BOOK_TEXT = Prepared(
    lambda book: KnowledgeBook.objects.filter(pk=book).order_by().values_list("text")
)


def open_session(player: User, instance_id: int) -> tuple[int, str, bool]:
    """``start_session`` for a caller that holds only the instance's id (the API's start):
    the session's id, the text of the book it plays with, and whether it was made now.
    The caller has checked that the player may play the instance."""
    found = _OWN_SESSION.rows(connection, player.pk, instance_id)
    if not found:
        current = _CURRENT_BOOK.rows(connection, instance_id)
        book_id, text = current[0] if current else (None, "")
        try:
            with transaction.atomic():
                made = PlaySession.objects.create(
                    player=player, instance_id=instance_id, book_id=book_id
                )
            return made.pk, text, True
        except IntegrityError:  # a start of the same game at the same moment made it
            found = _OWN_SESSION.rows(connection, player.pk, instance_id)
    session_id, book_id = found[0]
    if book_id is None:  # as PlaySession.book_text: the instance's current book
        current = _CURRENT_BOOK.rows(connection, instance_id)
        return session_id, current[0][1] if current else "", False
    return session_id, _BOOK_TEXT.rows(connection, book_id)[0][0], False


# Session queries never load the domain's JSON (tens of kB): Domain.to_core() parses it
# once per process and version and fetches it only then.
def replay_game(session: PlaySession, steps: list[PlayStep] | None = None) -> Game:
    instance = session.instance
    if steps is None:
        steps = list(session.steps.order_by("index"))
    moves = [(step.kind, step.sent) for step in steps]
    return Game.replay(instance.domain.to_core(), instance.to_core(), moves)


# What a browser may report with each move about the time since the previous one, with the
# largest value kept (docs/human-study.md lists them): paste events, copy events, times and
# milliseconds the page was hidden or lost focus, key presses, and the milliseconds from
# the page showing the move's state to the first input.
CLIENT_SIGNALS = {
    "pastes": 10_000,
    "copies": 10_000,
    "hidden_count": 10_000,
    "hidden_ms": 86_400_000,
    "blur_count": 10_000,
    "blur_ms": 86_400_000,
    "keys": 1_000_000,
    "first_input_ms": 86_400_000,
}


def clean_client_signals(raw) -> dict | None:
    """The known signals of a client report as integers in range; anything else dropped.

    A report is the client's word, never trusted for the game: it only feeds the quality
    filter, so a malformed one loses nothing but itself (the move still counts).
    """
    if not isinstance(raw, dict):
        return None
    cleaned = {}
    for name, top in CLIENT_SIGNALS.items():
        value = raw.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if value != value:  # NaN
            continue
        cleaned[name] = int(min(max(value, 0), top))
    return cleaned or None


def take_action(
    session_id: int, player: User, action: str, client=None, *, watching: bool = False
) -> MoveOutcome:
    """Play an information action. ``watching``: the move comes from a websocket open on
    this session (counted in ``PlaySession.watchers``), which is sent the new state itself."""
    return _move(session_id, player, PlayStep.Kind.ACTION, action, client, watching)


def answer(
    session_id: int, player: User, truth: str, client=None, *, watching: bool = False
) -> MoveOutcome:
    return _move(session_id, player, PlayStep.Kind.ANSWER, truth, client, watching)


class TimeUp(SessionFinished, limits.PlayTimeUp):
    """The session's time limit passed: it has ended, unsolved."""


def _move(
    session_id: int, player: User, kind: str, sent: str, client=None, watching: bool = False
) -> MoveOutcome:
    if not isinstance(sent, str) or not sent.strip():
        raise SessionError(f"name the {'action' if kind == 'action' else 'truth'} to play")
    if len(sent) > 500:
        raise SessionError("that name is too long")
    if "\x00" in sent:
        raise SessionError("a name cannot hold a NUL character")
    try:
        sent.encode("utf-8")
    except UnicodeEncodeError:
        raise SessionError(
            "a name must be valid Unicode (it holds an unpaired surrogate)"
        ) from None
    with transaction.atomic():
        # The session's row locked, with its instance and domain (move_sql: the move's
        # statements are compiled once per process).
        session = move_sql.locked_session(session_id, player.pk)
        if session is None:
            raise SessionNotFound("no such session")
        if session.finished:
            raise SessionFinished("this session has ended; its record is now readable")
        now = timezone.now()
        if session.deadline_at is not None and now > session.deadline_at:
            _finish_unanswered(session, at=session.deadline_at)
            outcome = None
        else:
            outcome = _apply_move(session, kind, sent, client, now, watching)
    if outcome is None:  # raised after the commit: the ended session is kept
        raise TimeUp("time is up for this task: it has ended, unsolved")
    return outcome


def _apply_move(
    session: PlaySession, kind: str, sent: str, client, now, watching: bool
) -> MoveOutcome:
    """Steps 2–5 of a move on a locked, unfinished session (inside ``_move``'s transaction)."""
    steps = move_sql.steps(session)
    game = replay_game(session, steps)
    previous = session.last_move_at or session.started_at
    step = PlayStep(
        session=session,
        index=len(steps),
        kind=kind,
        sent=sent,
        created_at=now,
        elapsed_ms=max(0, int((now - previous).total_seconds() * 1000)),
        client=clean_client_signals(client),
    )
    outcome_kwargs: dict = {}
    try:
        if kind == PlayStep.Kind.ACTION:
            observation = game.take_action(sent)
            step.observation = observation
            outcome_kwargs["observation"] = observation
        else:
            result = game.answer(sent)
            outcome_kwargs["result"] = result
        step.accepted = True
        step.name = game.history[-1].name
        if kind == PlayStep.Kind.ACTION:
            outcome_kwargs["shown"] = shown_observation(game, step.name, step.observation)
    except GameOver as error:  # finished sessions are refused above; kept for safety
        raise SessionFinished(str(error)) from error
    except InvalidMove as error:
        step.accepted = False
        step.error = str(error)[:500]
    # Too many refused moves end the game, unsolved (engine.limits: one rule for every
    # family's games).
    refusals_end = not step.accepted and limits.ends_the_game(game.invalid_moves)
    if refusals_end:
        step.error = limits.ending_reason(step.error[:300])[:500]
    session.last_move_at = now
    session.actions_taken = game.actions_taken
    session.invalid_moves = game.invalid_moves
    fields = ["last_move_at", "actions_taken", "invalid_moves"]
    if game.finished or refusals_end:
        session.finished_at = now
        session.answer = step.name if game.finished else ""
        session.correct = game.result.correct if game.finished else False
        fields += ["finished_at", "answer", "correct"]
    move_sql.store_move(step, session, fields)
    if session.finished:
        session_finished.send(PlaySession, session=session, actions=_action_names(game))
    steps.append(step)

    def state() -> dict:
        return _state(session, steps, game)

    # The session's group is told only when a socket other than the mover's own watches
    # (``PlaySession.watchers``, read with the locked row): the mover's socket is sent the
    # state by its consumer, and a group event nobody else reads cost every move a Redis
    # round trip and the event loop's time (benchmarks/production_load.py). A socket that
    # opens after the row was read counts itself in behind this move's lock and reads the
    # state after it, so it misses nothing. The event carries the step count only: a
    # socket that already has that state drops it; another reads the state afresh.
    if session.watchers > (1 if watching else 0):
        step_count = len(steps)
        transaction.on_commit(lambda: notify(session.pk, steps=step_count), robust=True)
    return MoveOutcome(
        session=session,
        step=step,
        accepted=step.accepted,
        error=step.error,
        remaining_actions=tuple(game.remaining_actions),
        state=state,
        **outcome_kwargs,
    )


def _action_names(game: Game) -> list[str]:
    return [step.name for step in game.history if step.kind == "action"]


def abandon(session_id: int) -> PlaySession | None:
    """End an unfinished session without an answer (it counts as not solved).

    Used when a ranked game's round closes with the game still open. Returns the session,
    or None if it had already ended.
    """
    with transaction.atomic():
        session = (
            PlaySession.objects.select_for_update(of=("self",))
            .select_related("instance__domain")
            .defer("instance__domain__data")
            .filter(pk=session_id, finished_at__isnull=True)
            .first()
        )
        if session is None:
            return None
        _finish_unanswered(session, at=timezone.now())
    return session


def expire_overdue(player: User) -> int:
    """End the player's sessions whose time limit has passed (unsolved, at the deadline),
    so that pages listing them need not wait for a move. Returns how many ended."""
    overdue = PlaySession.objects.filter(
        player=player, finished_at__isnull=True, deadline_at__lt=timezone.now()
    ).values_list("pk", flat=True)
    return sum(_expire(session_id) for session_id in list(overdue))


def expire_if_overdue(session: PlaySession) -> PlaySession:
    """The session, ended first if its time limit has passed (for the state a page shows)."""
    if session.finished or session.deadline_at is None or timezone.now() <= session.deadline_at:
        return session
    _expire(session.pk)
    session.refresh_from_db()
    return session


def _expire(session_id: int) -> bool:
    with transaction.atomic():
        session = (
            PlaySession.objects.select_for_update(of=("self",))
            .select_related("instance__domain")
            .defer("instance__domain__data")
            .filter(pk=session_id, finished_at__isnull=True, deadline_at__lt=timezone.now())
            .first()
        )
        if session is None:
            return False
        _finish_unanswered(session, at=session.deadline_at)
    return True


def _finish_unanswered(session: PlaySession, *, at) -> None:
    """Inside a transaction holding the session's lock: end it with no answer."""
    game = replay_game(session)
    session.finished_at = at
    session.answer = ""
    session.correct = False
    session.actions_taken = game.actions_taken
    session.save(update_fields=["finished_at", "answer", "correct", "actions_taken"])
    session_finished.send(PlaySession, session=session, actions=_action_names(game))
    transaction.on_commit(lambda: notify(session.pk), robust=True)


def notify(session_id: int, steps: int | None = None) -> None:
    """Tell every websocket watching this session that its state changed.

    ``steps``, the session's step count after the change, lets a socket that already has
    that state (the mover's own) drop the event; every other socket reads the state afresh.
    Sent as ``engine.live.tell_group`` sends it (best effort, after commit)."""
    event: dict = {"type": "session.changed", "session": session_id}
    if steps is not None:
        event["steps"] = steps
    tell_group(group_name(session_id), event)


def answer_is_secret(session: PlaySession) -> bool:
    """Whether the instance's round still keeps its answer (see ``leaderboard.access``)."""
    from leaderboard.access import answer_is_secret as secret

    return secret(session.instance_id, session.instance.source)


def is_ranked(session: PlaySession) -> bool:
    return session.instance.source == Instance.Source.RANKED


def result_payload(session: PlaySession, *, secret: bool | None = None) -> dict:
    """What the player learns when the game ends (answer endpoint and end-of-game event).

    Right or wrong, the actions and the relative action count, always; the valid truth
    only once the instance's round no longer keeps it secret.
    """
    if secret is None:
        secret = answer_is_secret(session)
    instance = session.instance
    oracle = instance.oracle_actions
    payload = {
        "correct": bool(session.correct),
        "answer": session.answer,
        "answer_secret": secret,
        "ranked": is_ranked(session),
        "actions_taken": session.actions_taken,
        "invalid_moves": session.invalid_moves,
        "action_count": canonical_action_count(session.actions_taken),
        "optimal_actions": oracle,
        "relative_action_count": (
            relative_action_count(session.actions_taken, oracle) if oracle is not None else None
        ),
        "expected_optimal_actions": instance.expected_actions,
    }
    if not secret:
        valid = instance.valid_truths
        payload["valid_truth"] = valid[0] if len(valid) == 1 else valid
    return payload


def session_state(session: PlaySession, *, include_book: bool = False) -> dict:
    """Everything a player may see now. Secrets appear only once the session has ended."""
    steps = move_sql.steps(session)
    payload = _state(session, steps, replay_game(session, steps))
    if include_book:
        payload["knowledge_book"] = session.book_text()
    return payload


def _state(session: PlaySession, steps: list[PlayStep], game: Game) -> dict:
    state = game.public_state()
    payload: dict = {
        "id": session.pk,
        "instance": session.instance_id,
        "domain": session.instance.domain.name,
        # Display order (sorted), never the generator's order, which could leak the answer.
        "truths": state["truths"],
        "actions": state["actions"],
        "finished": session.finished,
        "steps": [
            {
                "index": step.index,
                "kind": step.kind,
                "sent": step.sent,
                "accepted": step.accepted,
                "name": step.name,
                "observation": step.observation,
                # The observation as a person reads it (rounded, with its unit, in words).
                "shown": shown_observation(game, step.name, step.observation),
                "error": step.error,
                "elapsed_ms": step.elapsed_ms,
            }
            for step in steps
        ],
        "remaining_actions": state["remaining_actions"],
        "actions_taken": session.actions_taken,
        "invalid_moves": session.invalid_moves,
    }
    if session.deadline_at is not None and not session.finished:
        payload["deadline"] = session.deadline_at.isoformat()
        payload["seconds_left"] = max(
            0, round((session.deadline_at - timezone.now()).total_seconds())
        )
    if session.finished:
        secret = answer_is_secret(session)
        payload["result"] = result_payload(session, secret=secret)
        if not secret:
            payload["observations"] = dict(session.instance.observations)
            payload["observations_shown"] = {
                name: shown_observation(game, name, value)
                for name, value in session.instance.observations.items()
            }
    return payload


def shown_observation(game: Game, action: str, observation: Observation | None) -> str | None:
    """An observation of the game's action as people read it (``Action.shown``), or None
    for a step that showed nothing (an answer, a refused move)."""
    if observation is None or action not in game.domain.actions_by_name:
        return None
    return game.domain.action(action).shown(observation)
