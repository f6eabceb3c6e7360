from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from rest_framework import serializers

from leaderboard.models import (
    MODEL_NAME_MAX,
    MODEL_NAME_PATTERN,
    MODEL_NAME_RULE,
    BoardRow,
    RankedGame,
    Submission,
)


class ModelNameField(serializers.CharField):
    """A model's name as the board accepts it (leaderboard.models.validate_model_name),
    with the rule stated in the schema as a pattern."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("max_length", MODEL_NAME_MAX)
        kwargs.setdefault("error_messages", {}).setdefault(
            "max_length", f"the model name is longer than {MODEL_NAME_MAX} characters"
        )
        super().__init__(**kwargs)
        self.validators.append(
            RegexValidator(MODEL_NAME_PATTERN, message=f"the model name {MODEL_NAME_RULE}")
        )


class SubmissionCreateSerializer(serializers.Serializer):
    model = ModelNameField()
    domain = serializers.CharField(max_length=100)
    truths = serializers.IntegerField(min_value=1, max_value=1000)
    actions = serializers.IntegerField(min_value=1, max_value=1000)
    format = serializers.ChoiceField(choices=Submission.Format.choices)
    file = serializers.FileField()
    provider = serializers.CharField(max_length=200, required=False, allow_blank=True)
    parameter_count = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)
    reasoning = serializers.BooleanField(required=False, allow_null=True, default=None)
    release_date = serializers.DateField(required=False)

    def validate_file(self, value):
        limit = settings.SUBMISSION_MAX_BYTES
        if value.size > limit:
            raise serializers.ValidationError(
                f"the file is {value.size:,} bytes; the limit is {limit:,} bytes "
                "(SUBMISSION_MAX_BYTES): split it by domain and setting"
            )
        return value


class SubmissionSerializer(serializers.ModelSerializer):
    model = serializers.CharField(source="model.name")
    domain = serializers.CharField(source="domain.name")
    truths = serializers.IntegerField(source="n_truths")
    actions = serializers.IntegerField(source="n_actions")

    class Meta:
        model = Submission
        fields = [
            "id",
            "model",
            "domain",
            "truths",
            "actions",
            "format",
            "verified",
            "status",
            "errors",
            "trajectory_count",
            "disagreements",
            "attempts",
            "sha256",
            "size",
            "created_at",
            "started_at",
            "finished_at",
            "withdrawn_at",
        ]


class SubmissionRefusedSerializer(serializers.Serializer):
    error = serializers.CharField()
    errors = serializers.ListField(child=serializers.CharField(), help_text="every problem")
    submission = SubmissionSerializer()


class RankedGameRequestSerializer(serializers.Serializer):
    model = ModelNameField(help_text="your model's name")
    domain = serializers.CharField(max_length=100)
    truths = serializers.IntegerField(min_value=1, max_value=1000)
    actions = serializers.IntegerField(min_value=1, max_value=1000)


class RankedGameStartedSerializer(serializers.Serializer):
    session = serializers.IntegerField(help_text="play it at /api/v1/sessions/{session}/")
    number = serializers.IntegerField(help_text="this game's number, 1 … of")
    of = serializers.IntegerField(help_text="ranked games per model, domain and setting")
    round = serializers.CharField()
    model = serializers.CharField()
    domain = serializers.CharField()
    n_truths = serializers.IntegerField()
    n_actions = serializers.IntegerField()
    truths = serializers.ListField(child=serializers.CharField())
    actions = serializers.ListField(child=serializers.CharField())
    knowledge_book = serializers.CharField()


class RankedGameSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.name")
    model = serializers.CharField(source="model.name")
    domain = serializers.CharField(source="domain.name")
    session = serializers.IntegerField(source="session_id")
    finished = serializers.SerializerMethodField()
    correct = serializers.SerializerMethodField()

    class Meta:
        model = RankedGame
        fields = [
            "session",
            "number",
            "round",
            "model",
            "domain",
            "n_truths",
            "n_actions",
            "finished",
            "correct",
            "created_at",
        ]

    def get_finished(self, obj: RankedGame) -> bool:
        return obj.session.finished

    def get_correct(self, obj: RankedGame) -> bool | None:
        return obj.session.correct if obj.session.finished else None


class RankedFamilyAttemptRequestSerializer(serializers.Serializer):
    model = ModelNameField(help_text="your model's name")
    family = serializers.SlugField(max_length=50, help_text="a family the live round declares")
    kind = serializers.SlugField(max_length=50)
    level = serializers.SlugField(max_length=20, help_text="one of the kind's levels")


class RankedFamilyAttemptSerializer(serializers.Serializer):
    """A ranked attempt as its player sees it (``leaderboard.ranked_families``)."""

    number = serializers.IntegerField(help_text="this attempt's number, 1 … of")
    of = serializers.IntegerField(help_text="ranked attempts per model, family, kind and level")
    round = serializers.CharField()
    model = serializers.CharField()
    attempt = serializers.DictField(
        help_text="the family attempt (as /api/v1/family-attempts/{id}/ shows it): answer it "
        "at /api/v1/family-attempts/{id}/answer/, or play a game's moves at .../moves/; until "
        "the round closes its result gives right or wrong and the score, not the reference"
    )


class BoardRowSerializer(serializers.ModelSerializer):
    model = serializers.CharField(source="model.name")
    kind = serializers.CharField(source="model.kind")
    owner = serializers.CharField(
        source="model.owner_label",
        help_text='the account that owns the model\'s name; "platform" for the built-in '
        "baselines and the human study",
    )
    verified = serializers.BooleanField(
        help_text="true: built from play the server recorded itself (ranked games, the "
        "runner, the human study); false: re-scored from uploaded files (self-reported)"
    )
    domain = serializers.SerializerMethodField()
    round = serializers.SerializerMethodField()
    truths = serializers.IntegerField(source="n_truths")
    actions = serializers.IntegerField(source="n_actions")
    success_rate_ci = serializers.SerializerMethodField()
    relative_action_count_ci = serializers.SerializerMethodField()

    class Meta:
        model = BoardRow
        fields = [
            "model",
            "kind",
            "owner",
            "verified",
            "domain",
            "round",
            "truths",
            "actions",
            "success_rate",
            "success_rate_ci",
            "relative_action_count",
            "relative_action_count_ci",
            "relative_action_count_successful",
            "mean_optimal_actions",
            "parse_error_rate",
            "mean_tokens",
            "trajectories",
            "instances",
            "disagreements",
            "computed_at",
        ]

    def get_domain(self, obj: BoardRow) -> str | None:
        return obj.domain.name if obj.domain_id else None

    def get_round(self, obj: BoardRow) -> str | None:
        return obj.round.name if obj.round_id else None

    def get_success_rate_ci(self, obj: BoardRow) -> list[float]:
        return [obj.success_ci_low, obj.success_ci_high]

    def get_relative_action_count_ci(self, obj: BoardRow) -> list[float]:
        return [obj.relative_ci_low, obj.relative_ci_high]
