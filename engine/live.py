"""The live channel of the game pages: telling a websocket group that its game changed.

Both play services use it (``engine.sessions.notify`` for a KUMO session,
``engine.families.notify`` for another family's attempt), after the change has committed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def tell_group(group: str, event: dict) -> None:
    """Send ``event`` to a websocket group (a game's watching pages), after the change it
    announces has committed.

    Best effort: the change is committed by now and is the truth; if the channel layer
    (Redis) is unreachable, the mover still gets its answer and a watching page catches
    up when its socket reconnects (it is sent the state on connect).

    Inside the ASGI server (a view run from the event loop's thread pool) the message is
    handed to the event loop and not waited for: the mover's response does not wait for
    the loop to get round to Redis, which under load was most of a move's time. States
    carry their steps, so a page drops one that arrives after a newer one.
    Elsewhere (commands, Celery, tests without a loop) it is sent before returning.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        loop = _server_loop()
        if loop is None:
            async_to_sync(layer.group_send)(group, event)
        else:
            sent = asyncio.run_coroutine_threadsafe(layer.group_send(group, event), loop)
            sent.add_done_callback(functools.partial(_log_unsent, group))
    except Exception:
        logger.warning("live update of %s not sent", group, exc_info=True)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop of the ASGI server this thread serves, if it serves one
    (asgiref records it for the threads its ``sync_to_async`` runs code in)."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() and not loop.is_closed() else None


def _log_unsent(group: str, sent) -> None:
    if not sent.cancelled() and sent.exception() is not None:
        logger.warning("live update of %s not sent", group, exc_info=sent.exception())
