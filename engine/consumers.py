"""Browser play over websockets, with the same moves as the HTTP API.

Messages from the browser: ``{"type": "action", "action": NAME}``,
``{"type": "answer", "truth": NAME}`` and ``{"type": "sync"}``.
Messages to the browser: ``{"type": "state", "state": {...}}`` (sent on connect and after
every change, from the database, so a reconnecting or second tab never misses anything)
and ``{"type": "error", "message": ...}`` for a refused move.
"""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from channels.generic.websocket import JsonWebsocketConsumer

from engine import sessions
from engine.models import PlaySession
from humanstudy.access import may_play

# The largest message the page ever sends is a name of at most 500 characters.
MAX_FRAME = 64 * 1024


class PlayConsumer(JsonWebsocketConsumer):
    # Steps in the latest state sent to this socket.
    steps_sent = 0

    def connect(self) -> None:
        user = self.scope.get("user")
        self.session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        if user is None or not user.is_authenticated:
            self.close(code=4401)
            return
        session = PlaySession.objects.filter(pk=self.session_id, player=user).first()
        if session is None or not may_play(user, session.instance_id):
            # Same answer for "not yours", "not in your task set" and "does not exist".
            self.close(code=4404)
            return
        self.group = sessions.group_name(self.session_id)
        async_to_sync(self.channel_layer.group_add)(self.group, self.channel_name)
        self.accept()
        self.send_state()

    def disconnect(self, code: int) -> None:
        group = getattr(self, "group", None)
        if group:
            async_to_sync(self.channel_layer.group_discard)(group, self.channel_name)

    def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """Decode one frame; anything malformed is answered with an error, and the socket
        stays open (the HTTP API answers the same input with a 400)."""
        if text_data is None:
            self.send_error("send text frames holding JSON; binary frames are not understood")
            return
        if len(text_data) > MAX_FRAME:
            self.send_error(f"a message may be at most {MAX_FRAME:,} characters")
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            self.send_error("messages must be JSON")
            return
        except RecursionError:
            self.send_error("the message is nested too deeply")
            return
        self.receive_json(content, **kwargs)

    def send_error(self, message: str) -> None:
        self.send_json({"type": "error", "message": message})

    def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict):
            self.send_json({"type": "error", "message": "messages must be JSON objects"})
            return
        kind = content.get("type")
        user = self.scope["user"]
        try:
            if kind == "action":
                outcome = sessions.take_action(self.session_id, user, content.get("action", ""))
            elif kind == "answer":
                outcome = sessions.answer(self.session_id, user, content.get("truth", ""))
            elif kind == "sync":
                self.send_state()
                return
            else:
                self.send_error(f"unknown message type {str(kind)[:50]!r}")
                return
        except sessions.SessionError as error:
            self.send_json({"type": "error", "message": str(error)})
            return
        if not outcome.accepted:
            self.send_json({"type": "error", "message": outcome.error})
        # Accepted or not, the session changed (invalid moves are counted); the group
        # event sent after commit delivers the new state to this and every other tab.

    def session_changed(self, event: dict) -> None:
        state = event.get("state")
        if state is None:
            self.send_state()
        elif len(state["steps"]) > self.steps_sent:
            # Events from several processes may arrive out of order; a state with fewer
            # steps than one already sent is older and is dropped (steps only grow).
            self.forward(state)

    def send_state(self) -> None:
        session = (
            PlaySession.objects.select_related("instance__domain")
            .defer("instance__domain__data")
            .get(pk=self.session_id)
        )
        self.forward(sessions.session_state(session))

    def forward(self, state: dict) -> None:
        self.steps_sent = max(self.steps_sent, len(state["steps"]))
        self.send_json({"type": "state", "state": state})
