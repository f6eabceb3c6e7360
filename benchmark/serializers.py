"""API input and output shapes for evaluation runs."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from benchmark.actions import RunSpec
from benchmark.models import EvaluationRun
from leaderboard.serializers import ModelNameField


class RunRequestSerializer(serializers.Serializer):
    """A run to start; the rules (known domains, a base URL unless built-in, ...) are
    checked by ``benchmark.actions.check_run_spec``."""

    model = ModelNameField(help_text="the model's name at the API, or a built-in player")
    base_url = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    api_key_env = serializers.CharField(
        max_length=100, required=False, allow_blank=True, default=""
    )
    domains = serializers.ListField(child=serializers.CharField(max_length=100), min_length=1)
    # The same bounds as check_run_spec, stated here so the schema carries them.
    n_truths = serializers.IntegerField(default=4, min_value=1, max_value=1000)
    n_actions = serializers.IntegerField(default=6, min_value=1, max_value=1000)
    runs = serializers.IntegerField(default=5, min_value=1, max_value=100)
    concurrency = serializers.IntegerField(default=8, min_value=1, max_value=256)
    max_turns = serializers.IntegerField(default=30, min_value=1, max_value=1000)
    max_parse_errors = serializers.IntegerField(default=3, min_value=1, max_value=1000)
    timeout = serializers.FloatField(default=120.0, min_value=0.001, max_value=86_400)
    seed = serializers.IntegerField(default=0, min_value=0, max_value=2**63 - 1)
    params = serializers.DictField(required=False, default=dict)
    submit = serializers.BooleanField(default=True)
    ranked = serializers.BooleanField(
        default=False,
        help_text="play the model's ranked games of the live round (verified entries)",
    )

    def to_spec(self) -> RunSpec:
        return RunSpec(**self.validated_data)


class RunRefusedSerializer(serializers.Serializer):
    """A run the rules refuse: every problem, one per line of ``problems``."""

    error = serializers.CharField(help_text="every problem, joined")
    problems = serializers.ListField(child=serializers.CharField(), required=False)
    fields = serializers.DictField(required=False, help_text="invalid fields' messages")


class EvaluationRunSerializer(serializers.ModelSerializer):
    domains = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    progress = serializers.FloatField(read_only=True)
    eta_seconds = serializers.FloatField(read_only=True, allow_null=True)
    page = serializers.SerializerMethodField()

    class Meta:
        model = EvaluationRun
        fields = [
            "id",
            "model",
            "base_url",
            "api_key_env",
            "domains",
            "n_truths",
            "n_actions",
            "runs",
            "concurrency",
            "max_turns",
            "max_parse_errors",
            "timeout",
            "seed",
            "params",
            "submit",
            "ranked",
            "created_by",
            "status",
            "total_games",
            "finished_games",
            "correct_games",
            "failed_games",
            "prompt_tokens",
            "completion_tokens",
            "progress",
            "eta_seconds",
            "submissions",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "attempts",
            "lease_expires_at",
            "page",
        ]
        read_only_fields = fields

    def get_page(self, obj: EvaluationRun) -> str:
        return reverse("runs:detail", args=[obj.pk])
