"""Browser play over websockets, with the same moves as the HTTP API, for every family.

A KUMO game's page (``/ws/play/{session}/``, ``PlayConsumer``) sends
``{"type": "action", "action": NAME}``, ``{"type": "answer", "truth": NAME}`` and
``{"type": "sync"}``, and is sent ``{"type": "state", "state": {...}}``.
Another family's game (``/ws/family-attempts/{attempt}/``, ``FamilyAttemptConsumer``)
sends ``{"type": "move", "move": TEXT, "client": {...}}`` and ``{"type": "sync"}``, and is
sent ``{"type": "state", "steps": N, "finished": BOOL, "html": ...}``: the game as its page
draws it (``templates/engine/_family_game.html``, rendered on the server, escaped as every
page is); once it has ended the page loads itself again to show the result.
Both are sent their state on connect and after every change, read from the database, so a
reconnecting or second tab never misses anything, and ``{"type": "error", "message": ...}``
for a refused move. The transport (frames, the live channel, its group) is one class,
``LiveSocket``; each game's service stays the one write path of its moves
(``engine.sessions``, ``engine.families``).

The live channel (Redis) is best-effort: the socket that made a move is sent its new state
directly, and a socket whose channel layer is unreachable stays open and keeps playing
(only other tabs' moves wait until Redis answers again).

Database work that loses its connection before committing is run once more on a fresh one
(``benchmark.retry.retried``), so a restarted or terminated PostgreSQL backend costs a player
neither a move nor the socket.

The consumer is asynchronous and does its database work in the event loop's bounded thread
pool: a synchronous consumer would run every socket of a process in one shared thread, so a
move waiting on PostgreSQL or Redis held up every other player's move in that process.
"""

from __future__ import annotations

import asyncio
import json
import logging

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import DatabaseError, connection
from django.db.models import F
from django.template.loader import render_to_string
from django.utils import timezone

from benchmark.compiled_sql import Prepared
from benchmark.handlers import in_pool
from benchmark.retry import retried
from engine import families, move_sql, sessions
from engine.models import FamilyAttempt, PlaySession
from humanstudy.access import may_play

logger = logging.getLogger(__name__)

# The largest message the page ever sends is a name of at most 500 characters.
MAX_FRAME = 64 * 1024
# Seconds between tries to reach an unreachable channel layer.
LAYER_RETRY_SECONDS = 2.0


# Whether the session is the user's, and its instance (compiled once per process).
_SESSION_INSTANCE = Prepared(
    lambda pk, player: (
        PlaySession.objects.filter(pk=pk, player_id=player).order_by().values_list("instance_id")
    ),
    markers=2,
)


@in_pool
@retried
def _open(user, session_id: int) -> bool:
    """Whether the user may watch the session; if so, the socket is counted in its
    ``watchers`` (moves made elsewhere tell the session's group only while one watches)."""
    found = _SESSION_INSTANCE.rows(connection, session_id, user.pk)
    if not found or not may_play(user, found[0][0]):
        return False
    PlaySession.objects.filter(pk=session_id).update(watchers=F("watchers") + 1)
    return True


@in_pool
@retried
def _close(session_id: int) -> None:
    PlaySession.objects.filter(pk=session_id, watchers__gt=0).update(watchers=F("watchers") - 1)


@in_pool
@retried
def _play(kind: str, session_id: int, user, name, client) -> tuple[sessions.MoveOutcome, dict]:
    move = sessions.take_action if kind == "action" else sessions.answer
    outcome = move(session_id, user, name, client, watching=True)
    return outcome, outcome.state()


@in_pool
@retried
def _state(session_id: int) -> dict:
    session = move_sql.session(session_id)
    if session is None:
        raise PlaySession.DoesNotExist(f"no session {session_id}")
    # A task whose time limit passed ends now (the page asks when its countdown ends).
    return sessions.session_state(sessions.expire_if_overdue(session))


class LiveSocket(AsyncJsonWebsocketConsumer):
    """What every game's socket shares: frames checked and decoded, the game's group on
    the channel layer joined (and joined again when Redis returns), errors sent as
    messages with the socket left open, and the count of steps already sent."""

    # Steps in the latest state sent to this socket.
    steps_sent = 0
    # The game's group (set once the socket is allowed in), and whether this socket is
    # in it (it is not while Redis is unreachable).
    group = ""
    grouped = False
    # What the socket plays, for the log ("session 12").
    label = ""
    # The route's key of the game's id, and what a game is called in the log.
    url_key = ""
    noun = ""

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.game_id = int(self.scope["url_route"]["kwargs"][self.url_key])
        self.label = f"{self.noun} {self.game_id}"
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        if not await self.admit(user):
            # Same answer for "not yours", "not in your task set" and "does not exist".
            await self.close(code=4404)
            return
        self.group = self.group_name(self.game_id)
        await self.join_group()
        await self.accept()
        await self.greet()

    async def admit(self, user) -> bool:
        """Whether ``user`` may watch the game (its page's rule)."""
        raise NotImplementedError

    def group_name(self, game_id: int) -> str:
        raise NotImplementedError

    async def greet(self) -> None:
        """The first state, sent once the socket is accepted."""
        await self.send_state_if_reachable()

    # Channels assigns ``channel_receive`` (the channel layer's receive) and awaits it for
    # as long as the socket is open; one failure would close the socket with 1011. Here a
    # failure is logged and the receive tried again after a pause.
    @property
    def channel_receive(self):
        return self._receive_resiliently

    @channel_receive.setter
    def channel_receive(self, receive) -> None:
        self._layer_receive = receive

    async def _receive_resiliently(self) -> dict:
        while True:
            try:
                return await self._layer_receive()
            except Exception:
                logger.warning("channel layer unreachable; retrying", exc_info=True)
                self.grouped = False
                await asyncio.sleep(LAYER_RETRY_SECONDS)
                await self.join_group()

    async def join_group(self) -> None:
        if self.grouped or not self.group:
            return
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
            self.grouped = True
        except Exception:
            logger.warning("%s: live updates unavailable", self.label, exc_info=True)

    async def leave_group(self) -> None:
        if self.grouped:
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # the group's entry expires on its own
                logger.warning("%s: group not left", self.label, exc_info=True)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """Decode one frame; anything malformed is answered with an error, and the socket
        stays open (the HTTP API answers the same input with a 400)."""
        if text_data is None:
            await self.send_error("send text frames holding JSON; binary frames are not understood")
            return
        if len(text_data) > MAX_FRAME:
            await self.send_error(f"a message may be at most {MAX_FRAME:,} characters")
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            await self.send_error("messages must be JSON")
            return
        except RecursionError:
            await self.send_error("the message is nested too deeply")
            return
        await self.receive_json(content, **kwargs)

    async def send_error(self, message: str) -> None:
        await self.send_json({"type": "error", "message": message})

    # The moves a page sends (besides "sync", which asks for the state again).
    moves: tuple[str, ...] = ()

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict):
            await self.send_error("messages must be JSON objects")
            return
        kind = content.get("type")
        await self.join_group()  # again, if Redis was unreachable until now
        if kind == "sync":
            await self.send_state_if_reachable()
            return
        if kind not in self.moves:
            await self.send_error(f"unknown message type {str(kind)[:50]!r}")
            return
        await self.play(kind, content)

    async def play(self, kind: str, content: dict) -> None:
        raise NotImplementedError

    async def send_state_if_reachable(self) -> None:
        raise NotImplementedError


class PlayConsumer(LiveSocket):
    """A KUMO game's page."""

    url_key, noun = "session_id", "session"
    # Whether this socket is counted in its session's ``watchers``.
    counted = False

    @property
    def session_id(self) -> int:
        return self.game_id

    async def admit(self, user) -> bool:
        self.counted = await _open(user, self.session_id)
        return self.counted

    def group_name(self, game_id: int) -> str:
        return sessions.group_name(game_id)

    async def greet(self) -> None:
        await self.send_state()

    async def disconnect(self, code: int) -> None:
        if self.counted:
            self.counted = False
            try:
                await _close(self.session_id)
            except DatabaseError:  # counted in for good: only unneeded events follow
                logger.warning("session %s: socket not counted out", self.session_id)
        await self.leave_group()

    moves = ("action", "answer")

    async def play(self, kind: str, content: dict) -> None:
        name = content.get("action" if kind == "action" else "truth", "")
        try:
            outcome, state = await _play(
                kind, self.session_id, self.scope["user"], name, content.get("client")
            )
        except sessions.TimeUp as error:
            await self.send_error(str(error))
            await self.send_state()  # the ended game, with its result
            return
        except sessions.SessionError as error:
            await self.send_error(str(error))
            return
        except DatabaseError:
            # Lost twice in a row, or at a COMMIT whose outcome could not be learnt: the
            # socket stays open and the page is shown what the database holds.
            logger.warning(
                "session %s: move failed on the database", self.session_id, exc_info=True
            )
            await self.settle_failed_move(name)
            return
        if not outcome.accepted:
            await self.send_error(outcome.error)
        # Accepted or not, the session changed (invalid moves are counted). This socket is
        # sent the new state itself; the group event after commit brings it to the other
        # tabs (and is dropped here as already sent).
        await self.forward(state)

    async def session_changed(self, event: dict) -> None:
        # Events from several processes may arrive out of order; one about no more steps
        # than this socket was already sent is old news (the mover's own socket, or an
        # event overtaken by a newer one) and is dropped (steps only grow).
        state = event.get("state")
        if state is not None:
            if len(state["steps"]) > self.steps_sent:
                await self.forward(state)
        elif event.get("steps") is None or event["steps"] > self.steps_sent:
            await self.send_state_if_reachable()

    async def send_state(self) -> None:
        await self.forward(await _state(self.session_id))

    async def settle_failed_move(self, name) -> None:
        """After a move failed on the database: the state, and an error unless the state
        shows the move stored after all (its commit went through, its answer was lost)."""
        try:
            state = await _state(self.session_id)
        except DatabaseError:
            logger.warning("session %s: state not read", self.session_id, exc_info=True)
            await self.send_error("The server could not reach its database; try again.")
            return
        steps = state["steps"]
        if not (len(steps) > self.steps_sent and steps[-1].get("name") == name):
            await self.send_error("The server could not reach its database; try the move again.")
        await self.forward(state)

    async def send_state_if_reachable(self) -> None:
        """The current state, or (when the database cannot be reached even on a second try)
        a message saying so: the socket stays open, and the page's next message or the next
        update brings the state."""
        try:
            await self.send_state()
        except DatabaseError:
            logger.warning("session %s: state not read", self.session_id, exc_info=True)
            await self.send_error("The server could not reach its database; try again.")

    async def forward(self, state: dict) -> None:
        self.steps_sent = max(self.steps_sent, len(state["steps"]))
        await self.send_json({"type": "state", "state": state})


# -- every other family's games ------------------------------------------------------------


@in_pool
@retried
def _open_attempt(user, attempt_id: int) -> bool:
    """Whether the user may watch the attempt: the rule of its page."""
    from engine.family_views import may_open

    current = FamilyAttempt.objects.select_related("task").filter(pk=attempt_id).first()
    return current is not None and may_open(user, current)


@in_pool
@retried
def _move_attempt(attempt_id: int, user, move, client) -> None:
    families.move_attempt(attempt_id, user, move, client)


@in_pool
@retried
def _attempt_page(attempt_id: int, user) -> dict:
    """The game as its page draws it; an attempt whose time ran out is ended first."""
    from engine.family_views import page_state

    current = FamilyAttempt.objects.select_related("task").get(pk=attempt_id)
    if (
        current.deadline_at is not None
        and not current.finished
        and timezone.now() > current.deadline_at
    ):
        families.expire_overdue_attempts(user)
        current.refresh_from_db()
    state = page_state(current)
    html = ""
    if not current.finished:  # an ended game's page is loaded again, with its result
        html = render_to_string("engine/_family_game.html", {"state": state})
    return {"steps": state.get("steps", 0), "finished": current.finished, "html": html}


class FamilyAttemptConsumer(LiveSocket):
    """A game of another family (Wordle, Mastermind…): its moves through the same service
    as the page's form and the API (``engine.families.move_attempt``); after each change
    (here, in another tab, or over the API) every open page is sent the game again."""

    url_key, noun = "attempt_id", "attempt"

    @property
    def attempt_id(self) -> int:
        return self.game_id

    async def admit(self, user) -> bool:
        return await _open_attempt(user, self.attempt_id)

    def group_name(self, game_id: int) -> str:
        return families.group_name(game_id)

    async def disconnect(self, code: int) -> None:
        await self.leave_group()

    moves = ("move",)

    async def play(self, kind: str, content: dict) -> None:
        try:
            await _move_attempt(
                self.attempt_id, self.scope["user"], content.get("move"), content.get("client")
            )
        except families.AttemptError as error:
            # Refused (counted), or time ran out (the game ended): said, then shown.
            await self.send_error(str(error))
        except DatabaseError:
            logger.warning("%s: move failed on the database", self.label, exc_info=True)
            await self.send_error("The server could not reach its database; try the move again.")
        await self.send_state_if_reachable()

    async def attempt_changed(self, event: dict) -> None:
        # A move this socket already shows (its own) is old news; an end is always read.
        steps = event.get("steps")
        if steps is None or steps > self.steps_sent:
            await self.send_state_if_reachable()

    async def send_state_if_reachable(self) -> None:
        try:
            page = await _attempt_page(self.attempt_id, self.scope["user"])
        except DatabaseError:
            logger.warning("%s: state not read", self.label, exc_info=True)
            await self.send_error("The server could not reach its database; try again.")
            return
        self.steps_sent = max(self.steps_sent, page["steps"])
        await self.send_json({"type": "state", **page})
