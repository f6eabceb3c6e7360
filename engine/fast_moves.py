"""The lean route of a KUMO game over HTTP: ``POST /api/v1/sessions/`` (start),
``/api/v1/sessions/<id>/actions/`` and ``.../answer/`` with an API token, answered without
Django's request path.

A move is the site's hottest request, and most of its server time went to the framework
around it, not to the move: Django's middleware chain, DRF's request, authentication,
content negotiation and serializer, and the response's way back through them (profiled
under ``benchmarks/production_load.py saturate``: the move service was about a fifth of the
web worker's busy time). Here an ASGI layer in front of Django answers the plain case of a
move itself and hands everything else to Django unchanged:

* it answers only a ``POST`` to one of the three addresses, with ``Authorization: Token
  <key>``, a JSON body of at most 64 kB that DRF's serializer would accept as it is (an
  object whose ``action`` or ``truth`` is a non-empty string of at most 500 characters,
  without NUL or unpaired surrogates; whose ``instance`` is a positive integer), no query
  string, an ``Accept`` that DRF answers with JSON, a host in ``ALLOWED_HOSTS`` (read from
  the Host header: not on a site that sets ``USE_X_FORWARDED_HOST`` or
  ``SECURE_PROXY_SSL_HEADER``), and no HTTPS redirect due;
* the token is read with the API's own query (``benchmark.authentication``); a token that
  does not name an active researcher (unknown, inactive, a visitor's guest, a study
  participant) goes to Django, which refuses it with its usual answer;
* the answer itself is the API's (``engine.api.move_reply`` and ``start_reply``: the
  session service, its rules and its answer; an instance the caller may not play goes to
  Django, whose serializer words the refusal), run in the event loop's bounded thread pool
  with stale connections closed (``benchmark.handlers.in_pool``) and once more on a fresh
  connection if the first was lost before committing (``benchmark.retry.retried``), as the
  middleware does;
* the body is DRF's rendering of the same answer and the headers are those Django's stack
  adds to it (``tests/play/test_fast_moves.py`` compares the two routes on every answer).

Anything else, including every malformed request, reaches Django with its body intact, so
its errors keep their one shape.
"""

from __future__ import annotations

import json
import logging
import re
from http import HTTPStatus

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from rest_framework.renderers import JSONRenderer

from benchmark.handlers import in_pool
from benchmark.retry import retried

logger = logging.getLogger("django.request")

MOVE_PATH = re.compile(r"^/api/v1/sessions/(?:([0-9]{1,18})/(actions|answer)/)?$")
# The lean route reads bodies up to this size; a larger one goes to Django unread.
MAX_BODY = 64 * 1024
# The body's field and the kind of request, by the address's last part.
FIELDS = {
    None: ("instance", "start"),
    "actions": ("action", "action"),
    "answer": ("truth", "answer"),
}
# Accept headers DRF answers with its JSON renderer (the first of its renderers).
JSON_ACCEPTS = {"", "*/*", "application/json"}
SURROGATES = re.compile("[\ud800-\udfff]")
_render = JSONRenderer().render


class FastMoves:
    """The ASGI layer (see the module): ``FastMoves(django_application)``."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send) -> None:
        plan = _plan(scope) if scope["type"] == "http" else None
        if plan is None:
            await self.application(scope, receive, send)
            return
        body, complete = await _read_body(receive, plan["length"])
        if complete:
            value = _value(body, plan["field"])
            if value is not None:
                try:
                    reply = await _reply(plan["key"], plan["kind"], plan["session"], value)
                except Exception:
                    # As Django's handler does: logged, and a JSON 500 under /api/.
                    logger.exception("Internal Server Error: %s", scope["path"])
                    reply = (500, _SERVER_ERROR)
                else:
                    if reply is not None and reply[0] >= 400:  # as Django logs a refusal
                        phrase = HTTPStatus(reply[0]).phrase
                        logger.warning("%s: %s", phrase, scope["path"])
                if reply is not None:
                    await _respond(send, scope, *reply)
                    return
        await self.application(scope, _replay(body, complete, receive), send)


_SERVER_ERROR = {"error": "the server failed to answer this request; the error has been logged"}


def _plan(scope) -> dict | None:
    """What the lean route needs of a request it may answer; None for any other."""
    if scope["method"] != "POST" or scope.get("query_string") or scope.get("root_path"):
        return None
    if settings.USE_X_FORWARDED_HOST or settings.SECURE_PROXY_SSL_HEADER:
        return None  # Django reads the host and scheme from other headers: its call
    match = MOVE_PATH.match(scope["path"])
    if match is None:
        return None
    headers: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        if name in headers:  # a repeated header: Django's reading decides
            return None
        headers[name] = value
    try:
        length = int(headers.get(b"content-length", b""))
        scheme, key = headers[b"authorization"].decode("latin-1").split()
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        accept = headers.get(b"accept", b"").decode("latin-1").strip()
        host = headers[b"host"].decode("latin-1")
    except (KeyError, ValueError):
        return None
    if scheme.lower() != "token" or not 0 < length <= MAX_BODY or accept not in JSON_ACCEPTS:
        return None
    if content_type.replace(" ", "") not in ("application/json", "application/json;charset=utf-8"):
        return None
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    if settings.SECURE_SSL_REDIRECT and scope.get("scheme") != "https":
        return None
    field, kind = FIELDS[match.group(2)]
    return {
        "session": int(match.group(1)) if match.group(1) else None,
        "field": field,
        "kind": kind,
        "key": key,
        "length": length,
    }


async def _read_body(receive, length: int) -> tuple[bytes, bool]:
    """The request's body (at most ``length`` bytes are expected), and whether it was read
    whole (False: the client went away, or sent more than it said)."""
    chunks = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > length:
            return b"".join(chunks), False
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, complete: bool, receive):
    """``receive`` for Django, starting with the body already read."""
    pending = [{"type": "http.request", "body": body, "more_body": not complete}]

    async def replayed():
        return pending.pop() if pending else await receive()

    return replayed


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _value(body: bytes, field: str) -> str | int | None:
    """The move's name (the instance's id for a start) if DRF's serializer would take the
    body as it is; None otherwise (Django then answers, with DRF's own error if it is one)."""
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    name = data.get(field)
    if field == "instance":
        return name if type(name) is int and 0 < name < 2**63 else None
    if not isinstance(name, str) or not name or len(name) > 500:
        return None
    if "\x00" in name or SURROGATES.search(name):
        return None
    return name


@in_pool
@retried
def _reply(key: str, kind: str, session_id: int | None, value) -> tuple[int, dict] | None:
    from benchmark.authentication import _token
    from benchmark.permissions import is_study_participant, is_visitor
    from engine.api import move_reply, start_reply

    token = _token(key)
    if token is None:
        return None
    user = token.user
    if not user.is_active or is_visitor(user) or is_study_participant(user):
        return None
    if kind == "start":
        return start_reply(user, value)
    return move_reply(kind, session_id, user, value)


def _headers(scope, length: int) -> list[tuple[bytes, bytes]]:
    """The headers Django's stack gives a DRF JSON answer of this view (security, frame,
    DRF's own), in the same order."""
    headers = [
        (b"content-type", b"application/json"),
        (b"vary", b"Accept"),
        (b"allow", b"POST, OPTIONS"),
    ]
    if settings.X_FRAME_OPTIONS:
        headers.append((b"x-frame-options", settings.X_FRAME_OPTIONS.encode()))
    headers.append((b"content-length", str(length).encode()))
    if settings.SECURE_HSTS_SECONDS and scope.get("scheme") == "https":
        value = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            value += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            value += "; preload"
        headers.append((b"strict-transport-security", value.encode()))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"x-content-type-options", b"nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        policy = settings.SECURE_REFERRER_POLICY
        if not isinstance(policy, str):
            policy = ",".join(policy)
        headers.append((b"referrer-policy", policy.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(
            (b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode())
        )
    return headers


async def _respond(send, scope, status: int, payload: dict) -> None:
    body = _render(payload)
    await send(
        {"type": "http.response.start", "status": status, "headers": _headers(scope, len(body))}
    )
    await send({"type": "http.response.body", "body": body})
