from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from rest_framework import serializers

from leaderboard.models import (
    MODEL_NAME_MAX,
    MODEL_NAME_PATTERN,
    MODEL_NAME_RULE,
    PLATFORM_OWNER,
    BoardRow,
    FamilyBoardRow,
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


class ResultsFileFields(serializers.Serializer):
    """What every results-file upload takes: the model's name, the file (within
    ``SUBMISSION_MAX_BYTES``) and the model's optional metadata."""

    model = ModelNameField()
    file = serializers.FileField()
    provider = serializers.CharField(max_length=200, required=False, allow_blank=True)
    parameter_count = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)
    reasoning = serializers.BooleanField(required=False, allow_null=True, default=None)
    release_date = serializers.DateField(required=False)

    split_hint = "split it"

    def validate_file(self, value):
        limit = settings.SUBMISSION_MAX_BYTES
        if value.size > limit:
            raise serializers.ValidationError(
                f"the file is {value.size:,} bytes; the limit is {limit:,} bytes "
                f"(SUBMISSION_MAX_BYTES): {self.split_hint}"
            )
        return value


class SubmissionCreateSerializer(ResultsFileFields):
    domain = serializers.CharField(max_length=100)
    truths = serializers.IntegerField(min_value=1, max_value=1000)
    actions = serializers.IntegerField(min_value=1, max_value=1000)
    format = serializers.ChoiceField(
        choices=[(f.value, f.label) for f in (Submission.Format.NATIVE, Submission.Format.KUMO)]
    )

    split_hint = "split it by domain and setting"


class FamilySubmissionCreateSerializer(ResultsFileFields):
    family = serializers.SlugField(max_length=50, help_text="a family of /api/v1/families/")
    format = serializers.ChoiceField(
        choices=[
            (f.value, f.label) for f in (Submission.Format.FAMILY, Submission.Format.LR2BENCH)
        ],
        default=Submission.Format.FAMILY,
        help_text="family: our JSONL of replies; lr2bench: one of LR²Bench's own files "
        "(response.jsonl, answer.json or submission.json), as its scripts write them",
    )
    kind = serializers.SlugField(
        max_length=50,
        required=False,
        default="",
        allow_blank=True,
        help_text="the kind of every line that names none (LR²Bench: the puzzle type of a "
        "response.jsonl or answer.json)",
    )
    level = serializers.RegexField(
        r"^[A-Za-z0-9_.-]*$",
        max_length=20,
        required=False,
        default="",
        allow_blank=True,
        help_text="the level of every line that names none (LR²Bench: the level of a "
        "response.jsonl, e.g. 9_9_hard)",
    )

    split_hint = "split it by kind and level"


class SubmissionSerializer(serializers.ModelSerializer):
    model = serializers.CharField(source="model.name")
    family = serializers.CharField(help_text='"kumo" for KUMO\'s games, else a task family')
    domain = serializers.CharField(
        source="domain.name", allow_null=True, help_text="KUMO's games only"
    )
    truths = serializers.IntegerField(source="n_truths", allow_null=True)
    actions = serializers.IntegerField(source="n_actions", allow_null=True)
    kind = serializers.CharField(help_text="a family file's kind, if the upload named one")
    level = serializers.CharField(help_text="a family file's level, if the upload named one")

    class Meta:
        model = Submission
        fields = [
            "id",
            "model",
            "family",
            "domain",
            "truths",
            "actions",
            "kind",
            "level",
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


class RankedKumoGameStartedSerializer(RankedGameStartedSerializer):
    """A ranked KUMO game started through every family's ranked endpoint."""

    family = serializers.ChoiceField(choices=["kumo"])


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


class FamilyBoardRowSerializer(serializers.ModelSerializer):
    """One row of the task families' board (``FamilyBoardRow``)."""

    round = serializers.SerializerMethodField()
    owner = serializers.SerializerMethodField(
        help_text='the account owning the model\'s name; "platform" for baselines and '
        "People; empty for the practice row"
    )
    self_reported = serializers.SerializerMethodField(
        help_text="true: re-scored from a results file the model's owner uploaded (never "
        "verified, never ranked)"
    )
    label = serializers.SerializerMethodField(
        help_text='"verified", "self-reported" or "practice (unverified)"'
    )
    success_rate_ci = serializers.SerializerMethodField()

    class Meta:
        model = FamilyBoardRow
        fields = [
            "family",
            "kind",
            "level",
            "round",
            "player",
            "player_kind",
            "owner",
            "verified",
            "self_reported",
            "label",
            "attempts",
            "correct",
            "success_rate",
            "success_rate_ci",
            "mean_value",
            "parse_error_rate",
            "mean_tokens",
            "cr",
            "s_acc",
            "em",
            "pm05",
            "computed_at",
        ]

    def get_round(self, obj: FamilyBoardRow) -> str | None:
        return obj.round.name if obj.round_id else None

    def get_owner(self, obj: FamilyBoardRow) -> str:
        if obj.model_id is not None:
            return obj.model.owner_label
        return PLATFORM_OWNER if obj.verified else ""

    def get_self_reported(self, obj: FamilyBoardRow) -> bool:
        return obj.player_kind == FamilyBoardRow.PlayerKind.SELF_REPORTED

    def get_label(self, obj: FamilyBoardRow) -> str:
        if obj.verified:
            return "verified"
        if self.get_self_reported(obj):
            return "self-reported"
        return "practice (unverified)"

    def get_success_rate_ci(self, obj: FamilyBoardRow) -> list[float]:
        return [obj.ci_low, obj.ci_high]
