"""Submission and leaderboard API (token auth). Thin views around ``leaderboard.actions``."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmark.permissions import PublicButNotParticipant
from engine.core.families.kumo.game import display_order
from engine.families import canonical_level
from engine.serializers import ErrorSerializer
from leaderboard import actions, ranked, ranked_families
from leaderboard.models import (
    KUMO_FAMILY,
    BoardRow,
    FamilyBoardRow,
    RankedFamilyAttempt,
    RankedGame,
    Round,
    Submission,
    model_name_key,
)
from leaderboard.serializers import (
    BoardRowSerializer,
    FamilyBoardRowSerializer,
    FamilySubmissionCreateSerializer,
    RankedFamilyAttemptRequestSerializer,
    RankedFamilyAttemptSerializer,
    RankedGameRequestSerializer,
    RankedGameSerializer,
    RankedGameStartedSerializer,
    RankedKumoGameStartedSerializer,
    SubmissionCreateSerializer,
    SubmissionRefusedSerializer,
    SubmissionSerializer,
)


class SubmissionList(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses={200: SubmissionSerializer(many=True)},
        description="Your own submissions, newest first.",
    )
    def get(self, request):
        submissions = (
            Submission.objects.filter(submitter=request.user)
            .select_related("model", "domain")
            .order_by("-created_at", "-pk")
        )
        return Response(SubmissionSerializer(submissions, many=True).data)

    @extend_schema(
        request={"multipart/form-data": SubmissionCreateSerializer},
        responses={
            201: SubmissionSerializer,
            200: SubmissionSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            413: ErrorSerializer,
            422: SubmissionRefusedSerializer,
        },
        description="Upload one results file (one domain, one setting). It is re-scored "
        "against the stored instances and shown as self-reported, never ranked among "
        "verified rows. A file refused on validation answers 422 with every problem, by "
        "line (the refused file is kept for audit; send a corrected one). Files of 25,000 "
        "trajectories or more are scored in the background: poll the submission.",
    )
    def post(self, request):
        return _submit(
            request,
            SubmissionCreateSerializer,
            lambda data: actions.submit_results(
                request.user,
                model=data["model"],
                domain=data["domain"],
                n_truths=data["truths"],
                n_actions=data["actions"],
                fmt=data["format"],
                content=data["file"].read(),
                metadata=_metadata(data),
            ),
        )


def _submit(request, form_class, submit) -> Response:
    """One upload's request, whatever the family: 413 before reading an oversized body,
    the form checked (400), then ``submit(validated data)``, its refusals as 403 or 400."""
    too_large = _too_large(request)
    if too_large is not None:
        return too_large
    form = form_class(data=request.data)
    form.is_valid(raise_exception=True)
    try:
        accepted = submit(form.validated_data)
    except actions.ModelNotYours as error:
        return Response({"error": str(error)}, status=status.HTTP_403_FORBIDDEN)
    except actions.SubmissionError as error:
        return Response({"error": str(error)}, status=status.HTTP_400_BAD_REQUEST)
    return _accepted_response(accepted)


def _too_large(request) -> Response | None:
    """A 413 for an upload declared over the limit, refused before it is read (a proxy
    should cap it too)."""
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if declared.isdigit() and int(declared) > settings.SUBMISSION_MAX_BYTES + 1_000_000:
        return Response(
            {
                "error": f"the upload is {int(declared):,} bytes; the limit is "
                f"{settings.SUBMISSION_MAX_BYTES:,} bytes (SUBMISSION_MAX_BYTES)"
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    return None


def _metadata(data: dict) -> dict:
    return {key: data[key] for key in actions.METADATA_FIELDS if data.get(key) not in (None, "")}


def _accepted_response(accepted: actions.Accepted) -> Response:
    """201 for a new submission, 200 for the same file sent again, 422 with every problem
    by line for a refused one (nothing of it is on the board; the file is kept for audit)."""
    submission = accepted.submission
    body = SubmissionSerializer(submission).data
    if submission.status == Submission.Status.FAILED:
        return Response(
            {
                "error": "the file was refused: "
                + (submission.errors[0] if submission.errors else "see errors"),
                "errors": submission.errors,
                "submission": body,
            },
            status=status.HTTP_422_UNPROCESSABLE_ENTITY,
        )
    return Response(
        body, status=status.HTTP_201_CREATED if accepted.created else status.HTTP_200_OK
    )


class FamilySubmissionList(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses={200: SubmissionSerializer(many=True)},
        description="Your own results files of the task families, newest first.",
    )
    def get(self, request):
        submissions = (
            Submission.objects.filter(submitter=request.user)
            .exclude(family=KUMO_FAMILY)
            .select_related("model", "domain")
            .order_by("-created_at", "-pk")
        )
        return Response(SubmissionSerializer(submissions, many=True).data)

    @extend_schema(
        request={"multipart/form-data": FamilySubmissionCreateSerializer},
        responses={
            201: SubmissionSerializer,
            200: SubmissionSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            413: ErrorSerializer,
            422: SubmissionRefusedSerializer,
        },
        description="Upload one results file of a task family: a model's replies to "
        "stored family tasks (format family), or one of LR²Bench's own output files "
        "(format lr2bench). The server finds each reply's task and scores it with the "
        "family's own rules (no score in the file is read); the result is a self-reported "
        "row of the family board, never verified nor ranked. Only tasks whose answers are "
        "public can be answered. A file refused on validation answers 422 with every "
        "problem, by line, and nothing of it counts. Poll /api/v1/submissions/{id}/.",
    )
    def post(self, request):
        return _submit(
            request,
            FamilySubmissionCreateSerializer,
            lambda data: actions.submit_family_results(
                request.user,
                model=data["model"],
                family=data["family"],
                fmt=data["format"],
                kind=data["kind"],
                level=data["level"],
                content=data["file"].read(),
                metadata=_metadata(data),
            ),
        )


class SubmissionDetail(APIView):
    @extend_schema(responses={200: SubmissionSerializer, 404: ErrorSerializer})
    def get(self, request, submission_id: int):
        submission = get_object_or_404(
            Submission.objects.select_related("model", "domain"),
            pk=submission_id,
            submitter=request.user,
        )
        return Response(SubmissionSerializer(submission).data)


class SubmissionWithdraw(APIView):
    @extend_schema(
        request=None,
        responses={200: SubmissionSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
        description="Withdraw your submission: its rows leave the board (the group's newest "
        "other scored file counts again) and the file is kept for audit. Withdrawing twice "
        "changes nothing.",
    )
    def post(self, request, submission_id: int):
        try:
            submission = actions.do_withdraw(submission_id, request.user)
        except Submission.DoesNotExist:
            return Response({"error": "no such submission of yours"}, status=404)
        except actions.SubmissionError as error:
            return Response({"error": str(error)}, status=status.HTTP_409_CONFLICT)
        submission = Submission.objects.select_related("model", "domain").get(pk=submission.pk)
        return Response(SubmissionSerializer(submission).data)


class SubmissionRetry(APIView):
    @extend_schema(
        request=None,
        responses={200: SubmissionSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
        description="Score your failed submission again from its stored file (a new try).",
    )
    def post(self, request, submission_id: int):
        try:
            actions.do_retry(submission_id, request.user)
        except Submission.DoesNotExist:
            return Response({"error": "no such submission of yours"}, status=404)
        except actions.SubmissionError as error:
            return Response({"error": str(error)}, status=status.HTTP_409_CONFLICT)
        submission = Submission.objects.select_related("model", "domain").get(pk=submission_id)
        return Response(SubmissionSerializer(submission).data)


class RankedGameList(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("model", str, description="only this model's games")],
        responses={200: RankedGameSerializer(many=True)},
        description="Your ranked games (every round), newest first.",
    )
    def get(self, request):
        games = (
            RankedGame.objects.filter(session__player=request.user)
            .select_related("round", "model", "domain", "session")
            .order_by("-created_at", "-pk")
        )
        return Response(RankedGameSerializer(_of_model(games, request), many=True).data)

    @extend_schema(
        request=RankedGameRequestSerializer,
        responses={
            201: RankedGameStartedSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            409: ErrorSerializer,
            503: ErrorSerializer,
        },
        description="Start your model's next ranked game of the live round, on an instance "
        "generated for this game alone. Play it with the session endpoints; its result "
        "enters the board as verified. Until the round closes the end of the game tells "
        "whether the answer was right, never the valid truth.",
    )
    def post(self, request):
        form = RankedGameRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            game = ranked.do_start_ranked_game(
                request.user,
                model=data["model"],
                domain=data["domain"],
                n_truths=data["truths"],
                n_actions=data["actions"],
            )
        except ranked.RankedError as error:
            return Response({"error": str(error)}, status=error.status)
        return Response(_ranked_game_started(game), status=status.HTTP_201_CREATED)


def _ranked_game_started(game) -> dict:
    """A ranked KUMO game just started, as its player is told: which one, and what to play."""
    session = game.session
    instance = game.instance
    return {
        "session": session.pk,
        "number": game.number,
        "of": game.round.ranked_games,
        "round": game.round.name,
        "model": game.model.name,
        "domain": game.domain.name,
        "n_truths": game.n_truths,
        "n_actions": game.n_actions,
        "truths": list(display_order(instance.truths)),
        "actions": list(display_order(instance.actions)),
        "knowledge_book": session.book_text(),
    }


def _of_model(rows, request):
    """Ranked rows (games or attempts) of the ``model`` the query names, if it names one
    (matched as names are: after NFKC and case folding)."""
    model = request.query_params.get("model", "").strip()
    return rows.filter(model__name_key=model_name_key(model)) if model else rows


class RankedFamilyAttemptList(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("model", str, description="only this model's attempts")],
        responses={200: RankedFamilyAttemptSerializer(many=True)},
        description="Your ranked attempts of the task families (every round), newest first.",
    )
    def get(self, request):
        attempts = (
            RankedFamilyAttempt.objects.filter(attempt__player=request.user)
            .select_related("round", "model", "task", "attempt__task")
            .order_by("-created_at", "-pk")
        )
        return Response(
            [ranked_families.ranked_attempt_view(row) for row in _of_model(attempts, request)]
        )

    @extend_schema(
        request=RankedFamilyAttemptRequestSerializer,
        responses={
            201: PolymorphicProxySerializer(
                component_name="RankedAttemptStarted",
                serializers=[RankedFamilyAttemptSerializer, RankedKumoGameStartedSerializer],
                resource_type_field_name=None,
            ),
            400: ErrorSerializer,
            403: ErrorSerializer,
            409: ErrorSerializer,
            503: ErrorSerializer,
        },
        description="Start your model's next ranked attempt of a (family, kind, level) the "
        "live round declares, on a task generated for this attempt alone. Answer it (or play "
        "a game's moves) with the family attempt endpoints. Until the round closes the "
        "result tells right or wrong and the score, never the reference answer; an attempt "
        "not finished when the round closes counts as failed. KUMO's games are the family "
        "kumo (kind: a domain; level: easy or hard): the reply is then the ranked game's, as "
        "/api/v1/ranked-games/ answers it, played at /api/v1/sessions/{session}/.",
    )
    def post(self, request):
        form = RankedFamilyAttemptRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        if data["family"] == KUMO_FAMILY:
            return _start_ranked_kumo_game(request.user, data)
        try:
            ranked = ranked_families.do_start_ranked_family_attempt(
                request.user,
                model=data["model"],
                family=data["family"],
                kind=data["kind"],
                level=data["level"],
            )
        except ranked_families.RankedError as error:
            return Response({"error": str(error)}, status=error.status)
        return Response(ranked_families.ranked_attempt_view(ranked), status=status.HTTP_201_CREATED)


def _start_ranked_kumo_game(user, data: dict) -> Response:
    """A ranked KUMO game asked for as every family's ranked attempt is: the kind is the
    domain, the level one of KUMO's settings (the same flow as /api/v1/ranked-games/)."""
    from engine.practice import PracticeError, kumo_setting

    try:
        truths, actions_ = kumo_setting(data["level"])
    except PracticeError as error:
        return Response({"error": str(error)}, status=status.HTTP_400_BAD_REQUEST)
    try:
        game = ranked.do_start_ranked_game(
            user, model=data["model"], domain=data["kind"], n_truths=truths, n_actions=actions_
        )
    except ranked.RankedError as error:
        return Response({"error": str(error)}, status=error.status)
    return Response(
        {"family": KUMO_FAMILY, **_ranked_game_started(game)}, status=status.HTTP_201_CREATED
    )


@extend_schema(
    parameters=[
        OpenApiParameter("truths", int, description="truths per task, e.g. 4"),
        OpenApiParameter("actions", int, description="actions per task, e.g. 6"),
        OpenApiParameter("domain", str, description="a domain name; omit for all domains"),
        OpenApiParameter(
            "round",
            str,
            description="a public round's name, or all for every result across rounds; "
            "omit for the current round (every result if no round is active)",
        ),
        OpenApiParameter(
            "verified",
            bool,
            description="1: only verified rows (play the server recorded itself); 0: only "
            "self-reported rows (re-scored uploads); omit for both",
        ),
    ]
)
class LeaderboardList(generics.ListAPIView):
    """The public board as JSON (read from the cached rows, never computed on request)."""

    serializer_class = BoardRowSerializer
    permission_classes = [PublicButNotParticipant]
    pagination_class = None

    def get_queryset(self):
        from benchmark.api_conventions import int_query_param
        from leaderboard.views import BadFilter, pick_round, public_rounds

        try:
            chosen = pick_round(public_rounds(), self.request.query_params.get("round", ""))
        except BadFilter as error:
            raise ValidationError({"round": str(error)}) from None
        rows = BoardRow.objects.filter(round=chosen).select_related(
            "model__owner__account", "domain", "round"
        )
        truths, actions_ = (
            int_query_param(self.request, "truths"),
            int_query_param(self.request, "actions"),
        )
        if truths is not None:
            rows = rows.filter(n_truths=truths)
        if actions_ is not None:
            rows = rows.filter(n_actions=actions_)
        domain = self.request.query_params.get("domain")
        rows = rows.filter(domain__name=domain) if domain else rows.filter(domain__isnull=True)
        verified = self.request.query_params.get("verified", "").strip().lower()
        if verified in ("1", "true", "yes"):
            rows = rows.filter(verified=True)
        elif verified in ("0", "false", "no"):
            rows = rows.filter(verified=False)
        elif verified:
            raise ValidationError({"verified": "must be 1 or 0"})
        return rows.order_by("n_truths", "n_actions", "-verified", "-success_rate", "model__name")


@extend_schema(
    parameters=[
        OpenApiParameter("family", str, description="one family's rows; omit for every family"),
        OpenApiParameter("kind", str, description="one kind's rows"),
        OpenApiParameter("level", str, description="one level's rows"),
        OpenApiParameter(
            "round", str, description="a closed round's own rows; omit for every task"
        ),
        OpenApiParameter(
            "verified",
            bool,
            description="1: only verified rows (the runner, ranked attempts, the study); 0: "
            "only unverified rows (self-reported uploads, practice); omit for both",
        ),
    ]
)
class FamilyLeaderboardList(generics.ListAPIView):
    """The task families' board as JSON, read from the stored rows. Each row is labelled:
    verified, self-reported (an uploaded results file, re-scored) or practice."""

    serializer_class = FamilyBoardRowSerializer
    permission_classes = [PublicButNotParticipant]
    pagination_class = None

    def get_queryset(self):
        params = self.request.query_params
        for field in ("family", "kind", "level", "round"):
            value = params.get(field, "")
            if "\x00" in value or len(value) > 100:
                # A NUL cannot be stored or looked up (PostgreSQL refuses it): no such rows.
                raise ValidationError({field: "must be a name of at most 100 characters"})
        if params.get("family") == KUMO_FAMILY:
            raise ValidationError(
                {
                    "family": "KUMO's games are ranked on /api/v1/leaderboard/ (by domain "
                    "and setting, with their relative action counts)"
                }
            )
        rows = FamilyBoardRow.objects.select_related("model__owner", "round")
        round_name = params.get("round", "").strip()
        if round_name:
            if not Round.objects.filter(name=round_name, status=Round.Status.CLOSED).exists():
                raise ValidationError({"round": f"no closed round is called {round_name!r}"})
            rows = rows.filter(round__name=round_name)
        else:
            rows = rows.filter(round__isnull=True)
        wanted = {field: params.get(field) for field in ("family", "kind", "level")}
        if wanted["family"] and wanted["kind"] and wanted["level"]:
            # A level's former name (a sudoku's "easy" for "4x4") reads its rows.
            wanted["level"] = canonical_level(**wanted)
        for field, value in wanted.items():
            if value is not None:
                rows = rows.filter(**{field: value})
        verified = params.get("verified", "").strip().lower()
        if verified in ("1", "true", "yes"):
            rows = rows.filter(verified=True)
        elif verified in ("0", "false", "no"):
            rows = rows.filter(verified=False)
        elif verified:
            raise ValidationError({"verified": "must be 1 or 0"})
        return rows.order_by("family", "kind", "level", "-verified", "-success_rate", "player")
