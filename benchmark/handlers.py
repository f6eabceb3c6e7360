"""Django's ASGI handler, made to hold up under hundreds of concurrent players.

Every view here is synchronous (the ORM is). Under the stock handler a request costs the
event loop far more than the view does:

1. Django's own middleware runs its ``process_request``/``process_response`` hooks in a
   worker thread when the chain is asynchronous, so a request switched between the loop and
   a thread about a dozen times;
2. each request gets a thread of its own (asgiref's ``ThreadSensitiveContext``), started on
   the event loop's thread and joined there when the response is sent. Starting and joining
   a thread waits for the GIL: under load the loop spent half its time there, every
   connection of the process stalled with it, and the CPU sat idle
   (benchmarks/production_load.py: p95 of a session start was 13 s at 500 players, with
   the web workers 0.7 cores busy of 2).

Here the middleware chain and the view run synchronously in one call, in the event loop's
bounded thread pool (threads are made once and reused), with stale database connections
closed before and after (``in_pool``: a pooled connection goes back to the pool after
every request). ``transaction.on_commit`` hooks and ``async_to_sync``
(the channel layer) behave as in any sync view. Websockets do not pass through here.
"""

from __future__ import annotations

import functools

from asgiref.sync import sync_to_async
from channels import auth
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections

from benchmark.retry import retried


def in_pool(function):
    """``function`` as a coroutine run in the event loop's bounded thread pool, closing
    stale database connections (returning pooled ones) before and after it.

    The closing happens inside the call, in its context: since asgiref 3.13 a thread's
    Django connections live in the context asgiref runs the function in, and Channels'
    ``database_sync_to_async``, which closes them outside it, left every connection open
    (a test saw psycopg's pool run dry after ten websocket games).
    """

    @functools.wraps(function)
    def closing(*args, **kwargs):
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(closing, thread_sensitive=False)


class SyncChainASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # No ThreadSensitiveContext (a new thread per request): see the module docstring.
        await self.handle(scope, receive, send)

    async def get_response_async(self, request):
        return await in_pool(self.get_response)(request)


class AuthMiddleware(auth.AuthMiddleware):
    """Channels' ``AuthMiddleware`` with the session and user read through ``in_pool``.

    Channels reads them with ``database_sync_to_async``, which (see ``in_pool``) left the
    pooled connection open: every websocket connect kept one, until the pool ran dry and
    connects waited 10 s and failed (``PoolTimeout``), as under the fault benchmark. The
    read is also run once more if its connection dropped (``benchmark.retry``).
    """

    async def resolve_scope(self, scope) -> None:
        scope["user"]._wrapped = await _user_of(scope)


_user_of = in_pool(retried(auth.get_user.func))


def auth_middleware_stack(inner):
    """Channels' ``AuthMiddlewareStack`` with the ``AuthMiddleware`` above."""
    return CookieMiddleware(SessionMiddleware(AuthMiddleware(inner)))
