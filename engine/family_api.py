"""Task families over HTTP (token auth). Thin views around ``engine.families``."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmark.permissions import PublicButNotParticipant
from engine import families, limits
from engine.models import FamilyAttempt, FamilyTask
from engine.serializers import ErrorSerializer


class FamilyTaskSerializer(serializers.ModelSerializer):
    """A task's public view; its hidden part never leaves the server here, nor does the
    seed that regenerates it while the answer must stay hidden."""

    seed = serializers.SerializerMethodField(
        help_text="the seed that regenerates the task; null while its answer must stay "
        "hidden (a round's task until the round is published, a ranked task until its round "
        "closes)"
    )

    class Meta:
        model = FamilyTask
        fields = ["id", "family", "kind", "level", "params", "seed", "public"]

    def get_seed(self, obj: FamilyTask) -> int | None:
        from leaderboard.access import shown_seed

        return shown_seed(obj)


class StartAttemptSerializer(serializers.Serializer):
    task = serializers.PrimaryKeyRelatedField(queryset=FamilyTask.objects.all())

    def validate_task(self, task: FamilyTask) -> FamilyTask:
        from leaderboard.access import visible_family_tasks

        # A task of a round not live yet answers like one that does not exist.
        if not visible_family_tasks().filter(pk=task.pk).exists():
            raise serializers.ValidationError(f'Invalid pk "{task.pk}" - object does not exist.')
        return task


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "maxLength": families.ANSWER_MAX},
            {"type": "array", "items": {}},
            {"type": "object", "additionalProperties": True},
        ],
        "description": "text; for the constraint puzzles also the structured answer "
        "(a grid as a list of rows, a list of people, a mapping of letters or words)",
    }
)
class AnswerField(serializers.Field):
    """Text, or a JSON list or object for families that take structured answers (the
    family decides; ``engine.families.answer_text``)."""

    default_error_messages = {
        "invalid": "an answer is text, or for the constraint puzzles a JSON list or object",
        "max_length": f"an answer may be at most {families.ANSWER_MAX} characters",
    }

    def to_internal_value(self, data):
        if isinstance(data, str):
            if len(data) > families.ANSWER_MAX:
                self.fail("max_length")
            return data
        if isinstance(data, (list, dict)):
            return data
        self.fail("invalid")

    def to_representation(self, value):
        return value


class AnswerAttemptSerializer(serializers.Serializer):
    answer = AnswerField()


class MoveSerializer(serializers.Serializer):
    move = serializers.CharField(
        max_length=families.MOVE_MAX, help_text="one move, as the game's format says"
    )


class AttemptResultSerializer(serializers.Serializer):
    answer = serializers.CharField()
    correct = serializers.BooleanField(required=False)
    value = serializers.FloatField(required=False, help_text="the family's score in [0, 1]")
    details = serializers.DictField(
        required=False, help_text="what was read, why it is wrong, optimality…"
    )
    reference_answer = serializers.CharField(required=False)
    solution = serializers.CharField(
        required=False,
        help_text="the right answer as a player reads it (a Wordle's word, not its guesses)",
    )
    display = serializers.JSONField(
        required=False,
        help_text="the answer drawn as the task's board, each cell right, wrong or missing "
        "(docs/task-families.md, 'Boards drawn for people')",
    )
    solution_display = serializers.JSONField(
        required=False, help_text="the reference solution drawn as the task's board"
    )
    reference_secret = serializers.BooleanField(
        required=False,
        help_text="true for a ranked attempt of a live round: right or wrong and the score "
        "are given, the reference answer and the details only once the round closes",
    )
    secret = serializers.BooleanField(
        required=False,
        help_text="true for a task of a round not closed yet: the score and the reference "
        "answer stay on the server until the round's tasks are published",
    )


class GameMoveSerializer(serializers.Serializer):
    move = serializers.CharField()
    observation = serializers.JSONField(help_text="what the move showed")


class AttemptSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.IntegerField()
    family = serializers.CharField()
    kind = serializers.CharField()
    level = serializers.CharField()
    public = serializers.DictField(help_text="the task as the player sees it")
    finished = serializers.BooleanField()
    result = AttemptResultSerializer(required=False, help_text="only once the attempt ended")
    interactive = serializers.BooleanField(required=False, help_text="a game played by moves")
    moves = GameMoveSerializer(many=True, required=False, help_text="a game's moves so far")
    invalid_moves = serializers.IntegerField(required=False)
    steps = serializers.IntegerField(
        required=False, help_text="a game's moves sent so far, refused ones included"
    )
    view = serializers.CharField(
        required=False, help_text="a game's board now, as text (games with a board)"
    )
    display = serializers.JSONField(
        required=False,
        help_text="a game's board now, drawn for people (grid, cards or rows of cells with "
        "tones; docs/task-families.md): the final board, secrets shown, once the answer is",
    )
    keys = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="keyboard keys that play a move (key name → move), for games played by keys",
    )


class ParameterSerializer(serializers.Serializer):
    name = serializers.CharField()
    default = serializers.IntegerField()
    min = serializers.IntegerField()
    max = serializers.IntegerField()
    description = serializers.CharField()


class KindSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    answer_format = serializers.CharField()
    parameters = ParameterSerializer(many=True)
    levels = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text="each level's parameter values, e.g. {'hard': {'words': 3000}}",
    )
    metrics = serializers.ListField(child=serializers.CharField())


class FamilySerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    play = serializers.CharField(
        help_text="the endpoint that starts an attempt: /api/v1/family-attempts/, or for "
        "KUMO's games (a kind per domain) /api/v1/sessions/"
    )
    kinds = KindSerializer(many=True)


class FamilyList(APIView):
    """Every task family with its kinds, parameters, levels, answer formats and metrics."""

    permission_classes = [PublicButNotParticipant]

    @extend_schema(responses={200: FamilySerializer(many=True)})
    def get(self, request):
        return Response(families.families_catalogue())


@extend_schema(
    parameters=[
        OpenApiParameter(
            "family",
            str,
            description="family name, e.g. simple; kumo is refused with 400 naming "
            "/api/v1/instances/, where KUMO's games are listed",
        ),
        OpenApiParameter("kind", str, description="kind name, e.g. counting"),
        OpenApiParameter("level", str, description="difficulty level, e.g. hard"),
    ]
)
class FamilyTaskList(generics.ListAPIView):
    """Stored family tasks (public views only)."""

    serializer_class = FamilyTaskSerializer

    def get_queryset(self):
        from leaderboard.access import visible_family_tasks, with_seed_shown

        queryset = with_seed_shown(
            visible_family_tasks(FamilyTask.objects.defer("hidden"))
        ).order_by("family", "kind", "id")
        wanted = {
            name: self.request.query_params.get(name, "") for name in ("family", "kind", "level")
        }
        if wanted["family"] == families.KUMO:
            # Not an empty list: KUMO's games are stored as instances, listed there.
            raise ValidationError(
                {
                    "family": "KUMO's games are listed on /api/v1/instances/ (?domain=NAME) "
                    "and played through /api/v1/sessions/"
                }
            )
        if wanted["level"] and wanted["family"] and wanted["kind"]:
            wanted["level"] = families.canonical_level(**wanted)  # a former name: its level
        for name, value in wanted.items():
            if value:
                queryset = queryset.filter(**{name: value})
        return queryset


def _own_attempt(request, attempt_id: int) -> FamilyAttempt:
    return get_object_or_404(
        FamilyAttempt.objects.select_related("task"), pk=attempt_id, player=request.user
    )


def _played(play, attempt_id: int, user, sent) -> Response:
    """An answer or a move through ``play`` (``families.answer_attempt`` or
    ``move_attempt``): the attempt's state, or the reason it was refused, answered as every
    family's play is (``engine.limits.error_reply``)."""
    try:
        attempt = play(attempt_id, user, sent)
    except families.AttemptError as error:
        code, body = limits.error_reply(error)
        return Response(body, status=code)
    return Response(families.attempt_state(attempt))


class AttemptList(APIView):
    @extend_schema(
        request=StartAttemptSerializer,
        responses={201: AttemptSerializer, 200: AttemptSerializer},
        description="Start an attempt at a task (or get back the one you already have).",
    )
    def post(self, request):
        serializer = StartAttemptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        attempt, created = families.start_attempt(request.user, serializer.validated_data["task"])
        return Response(
            families.attempt_state(attempt),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class AttemptDetail(APIView):
    @extend_schema(responses={200: AttemptSerializer})
    def get(self, request, attempt_id: int):
        return Response(families.attempt_state(_own_attempt(request, attempt_id)))


class AttemptAnswer(APIView):
    @extend_schema(
        request=AnswerAttemptSerializer,
        responses={200: AttemptSerializer, 400: ErrorSerializer, 409: ErrorSerializer},
        description="Answer once: the attempt ends and its result (with the reference "
        "answer) is returned.",
    )
    def post(self, request, attempt_id: int):
        serializer = AnswerAttemptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _played(
            families.answer_attempt,
            attempt_id,
            request.user,
            serializer.validated_data["answer"],
        )


class AttemptMove(APIView):
    @extend_schema(
        request=MoveSerializer,
        responses={200: AttemptSerializer, 400: ErrorSerializer, 409: ErrorSerializer},
        description="Play one move of a game (an interactive family's task). A move the "
        "game refuses is counted and answered 400 with the reason; the state stays on the "
        "server and is rebuilt from the accepted moves.",
    )
    def post(self, request, attempt_id: int):
        serializer = MoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _played(
            families.move_attempt, attempt_id, request.user, serializer.validated_data["move"]
        )
