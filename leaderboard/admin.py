"""Leaderboard admin: models and their external scores, submissions, the cached board.

External scores are entered per model (an inline on the model's page) or per benchmark
(an inline on the benchmark's page). Saving either refreshes the correlations at once by
calling ``recompute.recompute_correlations()`` inside the admin's save: it reads only the
cached all-domain board rows and the scores (a few hundred rows), so it is cheap enough to
run in the request, and the correlations page is right as soon as the admin returns to
it, rather than after the next beat run. Deleting a model does the same, since its scores
and board rows go with it.

Submissions, board rows and correlations are read-only here: they are written only by
``leaderboard.actions`` and ``leaderboard.recompute``. "Recompute now" (an action on the
model and board-row lists, and a button on the board-row list) queues a full recompute.

Rounds (docs/rounds.md): the round list shows the current round, the next rotation date
and the rotation check's latest notices; "Prepare next round" (a form) queues the
preparation job, "Rotate now" activates the prepared round. Every write goes through
``leaderboard.rounds``.
"""

from __future__ import annotations

import json
import secrets

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from engine.admin import ReadOnlyAdmin
from engine.models import Domain
from leaderboard import actions, recompute, rounds
from leaderboard.models import (
    BoardRow,
    CorrelationRow,
    ExternalBenchmark,
    ExternalScore,
    FamilyBoardRow,
    FamilyReply,
    FamilyStaleGroup,
    ModelEntry,
    ModelNameAllowance,
    RotationNotice,
    Round,
    StaleGroup,
    Submission,
)
from leaderboard.rounds import RoundError, RoundSpec
from leaderboard.tasks import recompute_task


def start_full_recompute(request: HttpRequest) -> None:
    """Queue a full recompute and tell the admin what happened."""
    result = recompute_task.delay(full=True)
    if result.ready():
        # Embedded default (no broker): the task already ran in this process.
        report = result.get()
        messages.success(
            request,
            f"Recomputed the whole board: {report['groups']} model × setting pairs, "
            f"{report['board_rows']} rows.",
        )
    else:
        messages.info(
            request, "A full recompute is queued; the board updates when the worker finishes it."
        )


@admin.action(description="Recompute the whole board now (any selection)")
def recompute_now(modeladmin, request, queryset) -> None:
    start_full_recompute(request)


def _setting(obj: BoardRow | CorrelationRow | Submission) -> str:
    return f"{obj.n_truths}/{obj.n_actions}"


class ExternalScoreInline(admin.TabularInline):
    """Scores of one model on the external benchmarks."""

    model = ExternalScore
    fields = ("benchmark", "score")
    extra = 3


class BenchmarkScoreInline(admin.TabularInline):
    """Scores of every model on one external benchmark."""

    model = ExternalScore
    fields = ("model", "score")
    autocomplete_fields = ("model",)
    extra = 3


class RefreshCorrelationsOnSave:
    """Refresh the cached correlations after external scores were added, changed or deleted."""

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        if any(formset.model is ExternalScore and formset.has_changed() for formset in formsets):
            count = recompute.recompute_correlations()
            self.message_user(request, f"Correlations refreshed ({count} rows).", messages.INFO)


@admin.register(ModelNameAllowance)
class ModelNameAllowanceAdmin(admin.ModelAdmin):
    """Raise (or lower) how many model names one account may own
    (``MODEL_NAMES_PER_ACCOUNT`` otherwise; staff accounts have no cap)."""

    list_display = ("user", "names", "note", "updated_at")
    search_fields = ("user__username", "note")
    raw_id_fields = ("user",)


@admin.register(ModelEntry)
class ModelEntryAdmin(RefreshCorrelationsOnSave, admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "owner_label",
        "provider",
        "parameter_count",
        "reasoning",
        "release_date",
        "n_scores",
        "public_page",
    )
    list_filter = ("kind", "reasoning", "provider")
    search_fields = ("name", "provider", "owner__username")
    fields = (
        "name",
        "kind",
        "owner",
        "provider",
        "parameter_count",
        "reasoning",
        "release_date",
    )
    raw_id_fields = ("owner",)
    inlines = [ExternalScoreInline]
    actions = [recompute_now]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("owner__account")
            .annotate(n_scores=Count("external_scores"))
        )

    @admin.display(ordering="owner__username", description="owner")
    def owner_label(self, obj: ModelEntry) -> str:
        return obj.owner_label

    @admin.display(ordering="n_scores", description="external scores")
    def n_scores(self, obj: ModelEntry) -> int:
        return obj.n_scores

    @admin.display(description="page")
    def public_page(self, obj: ModelEntry) -> str:
        return format_html('<a href="{}">view</a>', reverse("leaderboard:model", args=[obj.pk]))

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        recompute.recompute_correlations()

    def delete_queryset(self, request, queryset) -> None:
        super().delete_queryset(request, queryset)
        recompute.recompute_correlations()


@admin.register(ExternalBenchmark)
class ExternalBenchmarkAdmin(RefreshCorrelationsOnSave, admin.ModelAdmin):
    list_display = ("name", "description", "n_scores")
    search_fields = ("name",)
    inlines = [BenchmarkScoreInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_scores=Count("scores"))

    @admin.display(ordering="n_scores", description="models scored")
    def n_scores(self, obj: ExternalBenchmark) -> int:
        return obj.n_scores


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    """Submissions are immutable records; a newer file for the same group replaces one."""

    list_display = (
        "id",
        "model",
        "family",
        "scope",
        "format",
        "verified",
        "status",
        "attempts",
        "trajectory_count",
        "disagreements",
        "error_count",
        "size",
        "created_at",
        "finished_at",
    )
    list_filter = (
        "status",
        "verified",
        "format",
        "model__kind",
        "family",
        "domain",
        "n_truths",
        "n_actions",
    )
    actions = ["retry_failed"]
    search_fields = ("model__name", "sha256", "submitter__username")
    list_select_related = ("model", "domain")
    date_hierarchy = "created_at"
    fieldsets = [
        (
            None,
            {
                "fields": (
                    "submitter",
                    "model",
                    "family",
                    "domain",
                    "n_truths",
                    "n_actions",
                    "kind",
                    "level",
                )
            },
        ),
        ("File", {"fields": ("format", "file", "size", "sha256", "metadata_pretty")}),
        (
            "Scoring",
            {
                "fields": (
                    "verified",
                    "status",
                    "attempts",
                    "trajectory_count",
                    "disagreements",
                    "errors_pretty",
                    "created_at",
                    "started_at",
                    "lease_expires_at",
                    "finished_at",
                    "withdrawn_at",
                )
            },
        ),
    ]
    readonly_fields = ("metadata_pretty", "errors_pretty")

    @admin.display(description="domain and setting, or kind and level")
    def scope(self, obj: Submission) -> str:
        return obj.scope

    @admin.action(description="Score the selected failed submissions again")
    def retry_failed(self, request, queryset):
        retried = 0
        for submission in queryset:
            try:
                actions.do_retry(submission.pk, request.user)
                retried += 1
            except actions.SubmissionError as error:
                self.message_user(request, f"{submission}: {error}", messages.WARNING)
        if retried:
            self.message_user(request, f"{retried} submission(s) queued again.", messages.INFO)

    @admin.display(description="errors")
    def error_count(self, obj: Submission) -> int:
        return len(obj.errors)

    @admin.display(description="metadata")
    def metadata_pretty(self, obj: Submission) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.metadata, indent=2))

    @admin.display(description="errors")
    def errors_pretty(self, obj: Submission) -> str:
        if not obj.errors:
            return "—"
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", "\n".join(obj.errors))


@admin.register(FamilyReply)
class FamilyReplyAdmin(ReadOnlyAdmin):
    """Replies of the families' results files, as the server re-scored them."""

    list_display = (
        "id",
        "submission_id",
        "model",
        "family",
        "kind",
        "level",
        "task_id",
        "run",
        "line",
        "correct",
        "value",
        "parse_error",
        "active",
    )
    list_filter = ("family", "kind", "level", "correct", "active")
    search_fields = ("model__name",)
    list_select_related = ("model",)
    raw_id_fields = ("submission", "task", "model")


class ScopeFilter(admin.SimpleListFilter):
    title = "scope"
    parameter_name = "scope"

    def lookups(self, request, model_admin):
        return [("all", "all domains (aggregate rows)"), ("domain", "one domain")]

    def queryset(self, request, queryset):
        if self.value() == "all":
            return queryset.filter(domain__isnull=True)
        if self.value() == "domain":
            return queryset.filter(domain__isnull=False)
        return queryset


def _with_ci(value: float, low: float, high: float) -> str:
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


@admin.register(StaleGroup)
class StaleGroupAdmin(ReadOnlyAdmin):
    """The recompute job's queue: each (model, domain, setting) whose board rows wait to be
    recomputed, since when. Rows leave it only inside the recompute's committed
    transaction, so a recompute whose worker died leaves them here for the next one."""

    list_display = ("model", "domain", "setting", "marked_at")
    list_filter = ("n_truths", "n_actions")
    list_select_related = ("model", "domain")
    ordering = ("marked_at",)

    @admin.display(description="setting")
    def setting(self, row: StaleGroup) -> str:
        return f"{row.n_truths}/{row.n_actions}"


@admin.register(FamilyStaleGroup)
class FamilyStaleGroupAdmin(ReadOnlyAdmin):
    """The same queue for the task families' board: each (family, kind, level) whose rows
    wait to be recomputed (``leaderboard.family_recompute``), since when."""

    list_display = ("family", "kind", "level", "marked_at")
    list_filter = ("family",)
    ordering = ("marked_at",)


@admin.register(FamilyBoardRow)
class FamilyBoardRowAdmin(ReadOnlyAdmin):
    list_display = (
        "family", "kind", "level", "round", "player", "player_kind", "verified", "attempts",
        "success_rate", "computed_at",
    )  # fmt: skip
    list_filter = ("verified", "player_kind", "family")
    list_select_related = ("round",)
    search_fields = ("player", "kind")


@admin.register(BoardRow)
class BoardRowAdmin(ReadOnlyAdmin):
    list_display = (
        "model",
        "domain_or_all",
        "round",
        "setting",
        "success",
        "relative",
        "trajectories",
        "instances",
        "disagreements",
        "computed_at",
    )
    list_filter = (ScopeFilter, "round", "n_truths", "n_actions", "model__kind", "domain")
    search_fields = ("model__name", "domain__name")
    list_select_related = ("model", "domain", "round")
    actions = [recompute_now]
    change_list_template = "leaderboard/admin/boardrow_change_list.html"

    @admin.display(description="domain", ordering="domain__name")
    def domain_or_all(self, obj: BoardRow) -> str:
        return obj.domain.name if obj.domain_id else "(all domains)"

    @admin.display(description="setting")
    def setting(self, obj: BoardRow) -> str:
        return _setting(obj)

    @admin.display(description="success rate [95% CI]", ordering="success_rate")
    def success(self, obj: BoardRow) -> str:
        return _with_ci(obj.success_rate, obj.success_ci_low, obj.success_ci_high)

    @admin.display(description="relative action count [95% CI]", ordering="relative_action_count")
    def relative(self, obj: BoardRow) -> str:
        return _with_ci(obj.relative_action_count, obj.relative_ci_low, obj.relative_ci_high)

    def get_urls(self):
        view = self.admin_site.admin_view(require_POST(self.recompute_view))
        return [
            path("recompute/", view, name="leaderboard_boardrow_recompute"),
            *super().get_urls(),
        ]

    def recompute_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        start_full_recompute(request)
        return HttpResponseRedirect(reverse("admin:leaderboard_boardrow_changelist"))


@admin.register(CorrelationRow)
class CorrelationRowAdmin(ReadOnlyAdmin):
    list_display = (
        "benchmark",
        "setting",
        "metric",
        "r",
        "p_value",
        "models_count",
        "computed_at",
    )
    list_filter = ("benchmark", "metric", "n_truths", "n_actions")
    list_select_related = ("benchmark",)

    @admin.display(description="setting")
    def setting(self, obj: CorrelationRow) -> str:
        return _setting(obj)


# -- rounds ----------------------------------------------------------------------------------


def _random_seed() -> int:
    return secrets.randbelow(2**31)


class PrepareRoundForm(forms.Form):
    """What the next round holds; checked by ``rounds.check_round_spec`` like the command."""

    domains = forms.ModelMultipleChoiceField(
        queryset=Domain.objects.order_by("name"),
        widget=forms.CheckboxSelectMultiple,
        help_text="The domains of the round, chosen from the pool.",
    )
    task_settings = forms.CharField(
        label="settings",
        initial="4x6,12x16",
        help_text="TRUTHSxACTIONS, comma-separated: Easy 4x6, Hard 12x16, or any other.",
    )
    instances = forms.IntegerField(
        label="instances per domain and setting",
        min_value=1,
        max_value=rounds.MAX_INSTANCES_PER_SETTING,
        initial=50,
    )
    ranked_games = forms.IntegerField(
        label="ranked games per model, domain and setting",
        min_value=1,
        max_value=rounds.MAX_RANKED_GAMES,
        initial=20,
        required=False,
        help_text="While the round is live each model plays this many ranked games per "
        "domain and setting, each on an instance generated for that game alone.",
    )
    seed = forms.IntegerField(
        min_value=0,
        max_value=rounds.MAX_SEED,
        initial=_random_seed,
        help_text="Each task's seed is a keyed hash of this seed and the task's place under "
        "the server's secret (TASK_SEED_SECRET): the same seed gives the same tasks on this "
        "server, and no one can compute them from it. A seed is used by one round only.",
    )
    starts_on = forms.DateField(
        label="starts on",
        required=False,
        help_text="Default: when the current round ends (today if none is active).",
    )
    ends_on = forms.DateField(
        label="ends on", required=False, help_text="Default: two calendar months after the start."
    )
    name = forms.SlugField(
        required=False, help_text="Default: the start's year and month, e.g. 2025-03."
    )
    family_tasks = forms.CharField(
        label="tasks of other families",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One FAMILY/KIND/LEVEL:COUNT a line, e.g. puzzles/sudoku/hard:50, or "
        "kumo/music/hard:20 for KUMO games of one more domain and level — generated from "
        "the round's seed and kept secret like its instances.",
    )

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            pairs = rounds.parse_settings(cleaned["task_settings"])
        except RoundError as error:
            self.add_error("task_settings", str(error))
            return cleaned
        self.spec = RoundSpec(
            domains=[domain.name for domain in cleaned["domains"]],
            settings=pairs,
            instances=cleaned["instances"],
            seed=cleaned["seed"],
            ranked_games=cleaned.get("ranked_games") or 20,
            starts_on=cleaned.get("starts_on"),
            ends_on=cleaned.get("ends_on"),
            name=cleaned.get("name") or "",
            family_tasks=[
                line.strip()
                for line in (cleaned.get("family_tasks") or "").splitlines()
                if line.strip()
            ],
        )
        try:
            rounds.check_round_spec(self.spec)
        except RoundError as error:
            raise forms.ValidationError(str(error).splitlines()) from None
        return cleaned


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "status",
        "starts_on",
        "ends_on",
        "domain_names",
        "settings_label",
        "progress_cell",
        "published_cell",
    )
    list_filter = ("status",)
    search_fields = ("name",)
    ordering = ("-starts_on", "-id")
    actions = ["rotate_in", "publish_instances", "prepare_again"]
    change_list_template = "leaderboard/admin/round_change_list.html"
    change_form_template = "leaderboard/admin/round_change_form.html"
    fields = (
        "name",
        "status",
        "starts_on",
        "ends_on",
        "domain_names",
        "settings_label",
        "instances_per_setting",
        "ranked_games",
        "seed",
        "progress_cell",
        "error",
        "attempts",
        "lease_expires_at",
        "created_by",
        "created_at",
        "preparation_started_at",
        "prepared_at",
        "activated_at",
        "closed_at",
        "published_at",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("domains")

    def get_readonly_fields(self, request, obj=None):
        # Only the dates may be edited (e.g. to move the next rotation); the start only
        # before the round goes live, nothing once it is closed.
        editable = set()
        if obj is not None and obj.status != Round.Status.CLOSED:
            editable.add("ends_on")
            if obj.status != Round.Status.ACTIVE:
                editable.add("starts_on")
        return [name for name in self.fields if name not in editable]

    def has_add_permission(self, request) -> bool:
        return False  # rounds are made by "Prepare next round"

    def has_delete_permission(self, request, obj=None) -> bool:
        # A live or past round is history (its board and maybe its download): keep it.
        if obj is not None and obj.status not in (
            Round.Status.DRAFT,
            Round.Status.PREPARED,
            Round.Status.FAILED,
        ):
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request):
        actions = super().get_actions(request)
        # Bulk deletion would skip the per-round check above.
        actions.pop("delete_selected", None)
        return actions

    @admin.display(description="domains")
    def domain_names(self, obj: Round) -> str:
        return ", ".join(domain.name for domain in obj.domains.all())

    @admin.display(description="settings")
    def settings_label(self, obj: Round) -> str:
        return obj.settings_label

    @admin.display(description="instances")
    def progress_cell(self, obj: Round) -> str:
        if obj.status in (Round.Status.DRAFT, Round.Status.PREPARING, Round.Status.FAILED):
            return f"{obj.prepared_instances}/{obj.total_instances} ({obj.progress:.0%})"
        return str(obj.prepared_instances)

    @admin.display(description="instances published")
    def published_cell(self, obj: Round) -> str:
        if obj.published:
            url = reverse("leaderboard:round-instances", args=[obj.name])
            return format_html('<a href="{}">download</a>', url)
        return "—"

    def changelist_view(self, request, extra_context=None):
        extra = {
            "rotation": rounds.rotation_status(),
            "notices": RotationNotice.objects.select_related("round")[:5],
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context=extra)

    def get_urls(self):
        site = self.admin_site
        return [
            path(
                "prepare/",
                site.admin_view(self.prepare_view),
                name="leaderboard_round_prepare",
            ),
            path(
                "rotate/",
                site.admin_view(require_POST(self.rotate_view)),
                name="leaderboard_round_rotate",
            ),
            *super().get_urls(),
        ]

    def prepare_view(self, request):
        """Choose the next round's domains and settings; the preparation runs as a job."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        form = PrepareRoundForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                target, created = rounds.do_create_round(form.spec, created_by=request.user)
            except RoundError as error:
                form.add_error(None, str(error).splitlines())
            else:
                if created:
                    rounds.do_queue_preparation(target)
                    self.message_user(
                        request,
                        f"Round {target.name}: preparing {target.total_instances} instances "
                        "in the background; this page shows the progress.",
                        messages.SUCCESS,
                    )
                else:
                    self.message_user(
                        request,
                        f"Round {target.name} already exists with these settings "
                        f"({target.get_status_display()}); nothing new was queued.",
                        messages.INFO,
                    )
                return HttpResponseRedirect(
                    reverse("admin:leaderboard_round_change", args=[target.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Prepare the next round",
            "form": form,
            "rotation": rounds.rotation_status(),
        }
        return render(request, "leaderboard/admin/prepare_round.html", context)

    def rotate_view(self, request):
        """Activate the prepared round, close the current one (publishing it if asked)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        self._rotate(request, publish=request.POST.get("publish") == "on")
        return HttpResponseRedirect(reverse("admin:leaderboard_round_changelist"))

    def _rotate(self, request, *, publish: bool, target: Round | None = None) -> None:
        try:
            rotation = rounds.do_rotate(publish=publish, target=target)
        except RoundError as error:
            self.message_user(request, str(error), messages.ERROR)
            return
        text = f"Round {rotation.activated.name} is now active, until {rotation.activated.ends_on}."
        if rotation.closed is not None:
            text += f" Round {rotation.closed.name} is closed"
            text += " and its instances are published." if rotation.published else "."
        self.message_user(request, text, messages.SUCCESS)

    @admin.action(description="Rotate the selected (prepared) round in now")
    def rotate_in(self, request, queryset) -> None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one round to rotate in.", messages.ERROR)
            return
        self._rotate(request, publish=False, target=queryset.get())

    @admin.action(description="Publish the instances of the selected closed rounds")
    def publish_instances(self, request, queryset) -> None:
        for target in queryset:
            try:
                changed = rounds.do_publish(target)
            except RoundError as error:
                self.message_user(request, str(error), messages.ERROR)
                continue
            state = "published" if changed else "was already published"
            self.message_user(request, f"Round {target.name} {state}.", messages.SUCCESS)

    @admin.action(description="Prepare the selected failed rounds again")
    def prepare_again(self, request, queryset) -> None:
        for target in queryset:
            try:
                queued = rounds.do_retry_preparation(target)
            except RoundError as error:
                self.message_user(request, str(error), messages.ERROR)
                continue
            if queued:
                self.message_user(request, f"Round {target.name} queued again.", messages.INFO)
            else:
                self.message_user(
                    request,
                    f"Round {target.name} is {target.get_status_display()}, not failed: "
                    "nothing to retry.",
                    messages.WARNING,
                )


@admin.register(RotationNotice)
class RotationNoticeAdmin(ReadOnlyAdmin):
    """What the daily rotation check found (also mailed to ADMINS)."""

    list_display = ("day", "kind", "round", "mailed", "message")
    list_filter = ("kind", "mailed")
    list_select_related = ("round",)
    date_hierarchy = "day"
