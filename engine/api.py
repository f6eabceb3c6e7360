"""Programmatic play over HTTP (token auth). Thin views around ``engine.sessions``."""

from __future__ import annotations

from django.db import connection
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.relations import PrimaryKeyRelatedField
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmark.api_conventions import int_query_param
from benchmark.compiled_sql import Prepared
from engine import limits, sessions
from engine.core.families.kumo.game import display_order
from engine.families import KUMO
from engine.models import Instance, PlaySession
from engine.serializers import (
    ActionSerializer,
    AnswerSerializer,
    ErrorSerializer,
    InstanceSerializer,
    ObservationSerializer,
    ResultSerializer,
    SessionStartedSerializer,
    StartSessionSerializer,
)


@extend_schema(
    parameters=[
        OpenApiParameter(
            "family",
            str,
            enum=["kumo"],
            description='task family: "kumo" (the instances listed here); the other '
            "families' tasks are listed at /api/v1/family-tasks/?family=NAME",
        ),
        OpenApiParameter("domain", str, description="domain name"),
        OpenApiParameter("truths", int, description="truths per task"),
        OpenApiParameter("actions", int, description="actions per task"),
    ]
)
class InstanceList(generics.ListAPIView):
    """Instances you may play. Observations and answers are never listed, nor are ranked
    games' instances or those of a round that is not live yet."""

    serializer_class = InstanceSerializer

    def get_queryset(self):
        from leaderboard.access import playable_instances, with_seed_shown

        queryset = with_seed_shown(
            playable_instances(Instance.objects.select_related("domain"))
        ).order_by("domain__name", "id")
        family = self.request.query_params.get("family")
        if family and family != KUMO:
            from engine.core.families.base import all_families

            if family in all_families():
                raise ValidationError(
                    {
                        "family": f"the tasks of family {family!r} are listed at "
                        f"/api/v1/family-tasks/?family={family}"
                    }
                )
            raise ValidationError(
                {"family": f"no task family {family!r}; the families are "
                 f"{', '.join(['kumo', *sorted(all_families())])}"}
            )  # fmt: skip
        domain = self.request.query_params.get("domain")
        if domain:
            queryset = queryset.filter(domain__name=domain)
        truths = int_query_param(self.request, "truths")
        if truths is not None:
            queryset = queryset.filter(n_truths=truths)
        actions = int_query_param(self.request, "actions")
        if actions is not None:
            queryset = queryset.filter(n_actions=actions)
        return queryset


def _own_session(request, session_id: int) -> PlaySession:
    return get_object_or_404(
        PlaySession.objects.select_related("instance__domain").defer("instance__domain__data"),
        pk=session_id,
        player=request.user,
    )


# The start's check that the caller may play the instance, with what its answer shows:
# ``playable_instances`` (the rule, written once), compiled once per process.
def _playable(pk):
    from leaderboard.access import playable_instances

    return playable_instances().filter(pk=pk).order_by().values_list("truths", "actions")


_PLAYABLE = Prepared(_playable)


def start_reply(user, instance_id: int) -> tuple[int, dict] | None:
    """The API's answer to starting a session, as (status, body); None when the instance
    is not one the caller may play (the view's serializer words that answer). The view
    below and the lean route of a token-authenticated start (``engine.fast_moves``) both
    answer with it."""
    found = _PLAYABLE.rows(connection, instance_id)
    if not found:
        return None
    truths, actions = found[0]
    session_id, book, created = sessions.open_session(user, instance_id)
    body = {
        "id": session_id,
        "truths": list(display_order(truths)),
        "actions": list(display_order(actions)),
        "knowledge_book": book,
    }
    return (status.HTTP_201_CREATED if created else status.HTTP_200_OK), body


class SessionList(APIView):
    @extend_schema(
        request=StartSessionSerializer,
        responses={201: SessionStartedSerializer, 200: SessionStartedSerializer},
        description="Start a session on an instance (or get back the one you already have).",
    )
    def post(self, request):
        serializer = StartSessionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        instance_id = serializer.validated_data["instance"].pk
        reply = start_reply(request.user, instance_id)
        if reply is None:  # no longer playable since the serializer's check
            message = PrimaryKeyRelatedField.default_error_messages["does_not_exist"]
            raise ValidationError({"instance": [message.format(pk_value=instance_id)]})
        code, body = reply
        return Response(body, status=code)


class SessionDetail(APIView):
    @extend_schema(
        responses={200: dict},
        description="The session's steps so far; once it has ended, the full record "
        "including the valid truth and every observation.",
    )
    def get(self, request, session_id: int):
        return Response(sessions.session_state(_own_session(request, session_id)))


def move_reply(kind: str, session_id: int, user, name: str) -> tuple[int, dict]:
    """The API's answer to a move, as (status, body): a ``kind`` of ``"action"`` plays an
    information action, ``"answer"`` names the truth.

    The views below answer with it, and so does the lean route of a token-authenticated
    move (``engine.fast_moves``), so the two can never say different things.
    """
    move = sessions.take_action if kind == "action" else sessions.answer
    try:
        # The move itself checks that the session is the caller's (one query, locked).
        outcome = move(session_id, user, name)
    except sessions.SessionError as error:
        return limits.error_reply(error)  # as every family's play is answered
    if not outcome.accepted:
        # Refused as every family's move is refused (stored, counted, and perhaps the end).
        refused = limits.PlayRefused(outcome.error, ended=outcome.session.finished)
        code, body = limits.error_reply(refused)
        return code, {**body, "invalid_moves": outcome.session.invalid_moves}
    if kind != "action":
        return status.HTTP_200_OK, sessions.result_payload(outcome.session)
    return status.HTTP_200_OK, {
        "action": outcome.step.name,
        "observation": outcome.observation,
        "shown": outcome.shown,
        "actions_taken": outcome.session.actions_taken,
        "remaining_actions": list(outcome.remaining_actions),
    }


class SessionActions(APIView):
    @extend_schema(
        request=ActionSerializer,
        responses={200: ObservationSerializer, 400: ErrorSerializer, 409: ErrorSerializer},
    )
    def post(self, request, session_id: int):
        serializer = ActionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        code, body = move_reply(
            "action", session_id, request.user, serializer.validated_data["action"]
        )
        return Response(body, status=code)


class SessionAnswer(APIView):
    @extend_schema(
        request=AnswerSerializer,
        responses={200: ResultSerializer, 400: ErrorSerializer, 409: ErrorSerializer},
    )
    def post(self, request, session_id: int):
        serializer = AnswerSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        code, body = move_reply(
            "answer", session_id, request.user, serializer.validated_data["truth"]
        )
        return Response(body, status=code)
