"""What every ``/api/`` answer looks like, and how the schema says so.

One error shape everywhere: ``{"error": "<a sentence>"}``, plus ``fields`` (each invalid
field's messages) when the request body or query was invalid, and whatever else an operation
adds (``invalid_moves``, ``errors``…). DRF's own errors (validation, authentication,
permission, not found, throttling, method not allowed) are reshaped into it by
:func:`exception_handler`; an address under ``/api/`` that matches no route answers the
same JSON 404 (:func:`not_found`), and a server error there a JSON 500 (:func:`server_error`),
instead of the site's HTML pages.

:class:`benchmark.api_schema.AutoSchema` documents those answers on every operation (400
for invalid input, 401/403 where a login is needed, 404 where the path names an object), so a
client and the
bounded schemathesis run of the production pass (tests/production/test_schema.py) see a
schema that matches the server.
"""

from __future__ import annotations

from django.http import HttpResponseBadRequest, JsonResponse
from rest_framework import exceptions, pagination
from rest_framework.views import exception_handler as drf_exception_handler


def _flatten(detail, prefix: str = "") -> list[str]:
    """Every message of a DRF error detail, each prefixed with its field's path."""
    if isinstance(detail, dict):
        messages = []
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            messages += _flatten(value, "" if key == "non_field_errors" else path)
        return messages
    if isinstance(detail, list):
        return [message for item in detail for message in _flatten(item, prefix)]
    return [f"{prefix}: {detail}" if prefix else str(detail)]


def exception_handler(exc, context):
    """DRF's handler, with every error body in the one documented shape."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(exc, exceptions.ValidationError) and not (
        isinstance(data, dict) and isinstance(data.get("error"), str)
    ):
        messages = _flatten(data)
        body = {"error": "; ".join(messages) or "invalid input"}
        if isinstance(data, dict):
            body["fields"] = data
        response.data = body
    elif isinstance(data, dict) and "detail" in data and "error" not in data:
        response.data = {"error": str(data["detail"])}
    return response


def int_query_param(request, name: str) -> int | None:
    """An integer query parameter, or None when it is absent; given but not an integer
    (an empty value too) it is a 400, never silently ignored."""
    value = request.query_params.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise exceptions.ValidationError({name: [f"must be an integer, got {value!r}"]}) from None


def not_found(request, exception=None):
    """``handler404``: JSON under ``/api/``, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": f"no such API address: {request.path}"}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def server_error(request):
    """``handler500``: JSON under ``/api/`` (a client reads one error shape everywhere), the
    site's page (templates/500.html) elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": "the server failed to answer this request; the error has been logged"},
            status=500,
        )
    from django.views.defaults import server_error as page

    return page(request)


class StrictLimitOffsetPagination(pagination.LimitOffsetPagination):
    """``limit`` and ``offset`` as documented (integers ≥ 0, limit ≤ max_limit): anything
    else is a 400, where DRF's pagination quietly ignores it."""

    max_limit = 1000

    def _strict(self, request, name: str, upper: int | None = None) -> None:
        raw = request.query_params.get(name)
        if raw is None:
            return
        try:
            value = int(raw)
        except ValueError:
            value = -1
        if value < 0 or (upper is not None and value > upper) or (name == "limit" and not value):
            bound = f"from 1 to {upper}" if upper is not None else "0 or more"
            raise exceptions.ValidationError({name: [f"must be an integer {bound}, got {raw!r}"]})

    def paginate_queryset(self, queryset, request, view=None):
        self._strict(request, self.limit_query_param, self.max_limit)
        self._strict(request, self.offset_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_limit)
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"].update(minimum=0)
        return parameters


class RefuseNulMiddleware:
    """A request whose address or query holds a NUL character (``%00``) is refused with
    400 and the reason, on every page and every API operation alike. No name on the
    platform holds one, and PostgreSQL cannot compare text with it: every lookup by such
    a value (a domain, a level, a model's name…) was a server error there, one list at a
    time. A body's fields are checked by their forms and serializers, which refuse NUL."""

    MESSAGE = "the address holds a NUL character (%00), which no name on this site holds"

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or any(
            "\x00" in key or any("\x00" in value for value in values)
            for key, values in request.GET.lists()
        ):
            if request.path.startswith("/api/"):
                return JsonResponse({"error": self.MESSAGE}, status=400)
            return HttpResponseBadRequest(self.MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
