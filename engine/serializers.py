"""API input validation and output shapes for playing sessions."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.core.families.kumo.game import display_order
from engine.models import Instance


class InstanceSerializer(serializers.ModelSerializer):
    """What anyone may know about an instance before playing: no observations, no answer."""

    domain = serializers.SlugRelatedField(slug_field="name", read_only=True)
    family = serializers.SerializerMethodField(help_text='the task family: always "kumo" here')
    kind = serializers.SerializerMethodField(help_text="the family's kind: the domain")
    params = serializers.SerializerMethodField(help_text="the family's parameters")
    seed = serializers.SerializerMethodField(
        help_text="the seed that regenerates the instance; null while its answer must stay "
        "hidden (a round's instance until the round is published)"
    )
    truths = serializers.SerializerMethodField()
    actions = serializers.SerializerMethodField()

    class Meta:
        model = Instance
        fields = [
            "id",
            "family",
            "kind",
            "params",
            "domain",
            "n_truths",
            "n_actions",
            "seed",
            "truths",
            "actions",
        ]

    def get_family(self, obj: Instance) -> str:
        return "kumo"

    def get_kind(self, obj: Instance) -> str:
        return obj.domain.name

    def get_params(self, obj: Instance) -> dict[str, int]:
        return {"truths": obj.n_truths, "actions": obj.n_actions}

    def get_seed(self, obj: Instance) -> int | None:
        from leaderboard.access import shown_seed

        return shown_seed(obj)

    # Display order, never the stored order: the generator's order must not hint at anything.
    def get_truths(self, obj: Instance) -> list[str]:
        return list(display_order(obj.truths))

    def get_actions(self, obj: Instance) -> list[str]:
        return list(display_order(obj.actions))


@extend_schema_field(OpenApiTypes.INT)
class PlayableInstanceField(serializers.PrimaryKeyRelatedField):
    """An instance the caller may play: not a ranked game's, not in a round not live yet.
    Any other id gets the same answer as one that does not exist."""

    def get_queryset(self):
        from leaderboard.access import playable_instances

        return playable_instances()


class StartSessionSerializer(serializers.Serializer):
    instance = PlayableInstanceField()


class SessionStartedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    truths = serializers.ListField(child=serializers.CharField())
    actions = serializers.ListField(child=serializers.CharField())
    knowledge_book = serializers.CharField()


class ActionSerializer(serializers.Serializer):
    action = serializers.CharField(max_length=500, trim_whitespace=False)


class AnswerSerializer(serializers.Serializer):
    truth = serializers.CharField(max_length=500, trim_whitespace=False)


class ObservationSerializer(serializers.Serializer):
    action = serializers.CharField()
    observation = serializers.JSONField(
        help_text="the raw observation: a label, or the exact number (what the book's outcomes "
        "are written in)"
    )
    shown = serializers.CharField(
        help_text="the observation as a person reads it: a number rounded (never into another "
        "outcome's range) with the action's unit, e.g. \"37.81 °C\"; a label in words "
        '("elevated white cells" for elevated_white_cells)'
    )
    actions_taken = serializers.IntegerField()
    remaining_actions = serializers.ListField(child=serializers.CharField())


class ResultSerializer(serializers.Serializer):
    correct = serializers.BooleanField()
    answer = serializers.CharField()
    valid_truth = serializers.JSONField(
        required=False,
        help_text="the valid truth; absent while the instance's round keeps it secret "
        "(a ranked game until the round closes, a pinned instance until it is published)",
    )
    answer_secret = serializers.BooleanField(
        help_text="true while the valid truth and the unplayed observations are withheld"
    )
    ranked = serializers.BooleanField(help_text="a ranked game of a live round")
    expected_optimal_actions = serializers.FloatField(
        allow_null=True,
        help_text="the optimal policy's expected number of information actions on this "
        "instance (an expectation over outcomes, not one path)",
    )
    actions_taken = serializers.IntegerField(help_text="information actions before the answer")
    invalid_moves = serializers.IntegerField()
    action_count = serializers.IntegerField(help_text="canonical count: actions_taken + 1")
    optimal_actions = serializers.IntegerField(
        allow_null=True, help_text="information actions the oracle takes on this instance"
    )
    relative_action_count = serializers.FloatField(
        allow_null=True,
        help_text="(action_count - (optimal_actions + 1)) / (optimal_actions + 1)",
    )


class ErrorSerializer(serializers.Serializer):
    """Every error answer of the API (benchmark/api_conventions.py)."""

    error = serializers.CharField(help_text="what went wrong, as a sentence")
    fields = serializers.DictField(
        required=False, help_text="invalid input: each field's messages, by field name"
    )
    invalid_moves = serializers.IntegerField(
        required=False, help_text="a refused move: the session's refused moves so far"
    )
    finished = serializers.BooleanField(
        required=False,
        help_text="a refused move that ended the game (the cap of refused moves, or its "
        "time run out): always true when present",
    )
