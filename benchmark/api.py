"""Evaluation runs over HTTP (token auth, staff only). Thin views around
``benchmark.actions``."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response

from benchmark import actions
from benchmark.models import EvaluationRun
from benchmark.permissions import NotStudyParticipant
from benchmark.serializers import (
    EvaluationRunSerializer,
    RunRefusedSerializer,
    RunRequestSerializer,
)


class RunList(generics.ListAPIView):
    """Evaluation runs, newest first; POST starts one as a background job."""

    permission_classes = [NotStudyParticipant, IsAdminUser]
    serializer_class = EvaluationRunSerializer
    queryset = EvaluationRun.objects.select_related("created_by").prefetch_related("domains")

    @extend_schema(
        request=RunRequestSerializer,
        responses={201: EvaluationRunSerializer, 400: RunRefusedSerializer},
    )
    def post(self, request):
        serializer = RunRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            run = actions.do_create_run(serializer.to_spec(), created_by=request.user, launch=True)
        except actions.RunError as error:
            problems = str(error).splitlines()
            return Response({"error": "; ".join(problems), "problems": problems}, status=400)
        run.refresh_from_db()  # the job may already have run (in-process Celery)
        return Response(
            EvaluationRunSerializer(run).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("api-run", args=[run.pk])},
        )


class RunDetail(generics.RetrieveAPIView):
    """One run's settings, status and progress (the progress page polls this)."""

    permission_classes = [NotStudyParticipant, IsAdminUser]
    serializer_class = EvaluationRunSerializer
    queryset = EvaluationRun.objects.select_related("created_by").prefetch_related("domains")
