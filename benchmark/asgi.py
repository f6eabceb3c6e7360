"""ASGI entry point: HTTP through Django (a KUMO move with an API token by its lean route,
engine/fast_moves.py), websockets through Channels."""

from __future__ import annotations

import gc
import logging
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmark.settings")

# Django must be set up before anything imports models (the websocket routes do).
django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402

if not settings.ACCESS_LOG:
    # uvicorn writes access lines only while its access logger has a handler (it checks on
    # each new connection); without one no line is even formatted. "uvicorn.error" stays.
    logging.getLogger("uvicorn.access").handlers = []
    logging.getLogger("uvicorn.access").propagate = False

from benchmark.handlers import SyncChainASGIHandler, auth_middleware_stack  # noqa: E402

django_asgi_app = SyncChainASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from benchmark.routing import websocket_urlpatterns  # noqa: E402
from engine.fast_moves import FastMoves  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": FastMoves(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            auth_middleware_stack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# Everything made so far (Django, the apps, the routes) lives as long as the process: it
# is moved out of the cyclic collector's view (``gc.freeze``), so a collection scans only
# what requests made since. Measured with benchmarks/production_load.py saturate: about a
# tenth less web CPU per move.
gc.collect()
gc.freeze()
