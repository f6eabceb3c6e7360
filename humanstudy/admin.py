from __future__ import annotations

from contextvars import ContextVar

from django.conf import settings
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from humanstudy import actions
from humanstudy.models import Participant, StudySettings, TaskSet, TaskSetItem


def absolute(path: str) -> str:
    """``path`` as a whole URL: on the address the admin page was opened at, else on
    ``SITE_URL``."""
    request = _request.get()
    return request.build_absolute_uri(path) if request is not None else settings.SITE_URL + path


# The request of the admin page being drawn: a read-only field's method gets only the row.
_request: ContextVar = ContextVar("humanstudy_admin_request", default=None)


class RequestAware:
    """Draws the change form while ``absolute`` knows the request (the response is rendered
    here, inside the request's context, rather than later by the handler)."""

    def changeform_view(self, request, *args, **kwargs):
        token = _request.set(request)
        try:
            response = super().changeform_view(request, *args, **kwargs)
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            return response
        finally:
            _request.reset(token)


@admin.register(StudySettings)
class StudySettingsAdmin(RequestAware, admin.ModelAdmin):
    readonly_fields = ("study_link",)

    @admin.display(description="study link")
    def study_link(self, obj: StudySettings) -> str:
        """The whole link to give the recruitment platform; it appends the label."""
        if not obj.pk:
            return "saved settings show the link here"
        return format_html(
            '<code id="study-link">{}?{}=…</code><br>The platform fills in the '
            "participant's ID; change the link key to close the link.",
            absolute(reverse("humanstudy:join", args=[obj.link_key])),
            obj.label_parameter,
        )

    list_display = (
        "__str__",
        "base_pay",
        "success_bonus",
        "per_action_cost",
        "currency",
        "min_median_seconds_per_move",
        "max_blind_answers",
        "success_margin_below_chance",
    )

    def has_add_permission(self, request) -> bool:
        return not StudySettings.objects.exists()


class TaskSetItemInline(admin.TabularInline):
    model = TaskSetItem
    extra = 0
    raw_id_fields = ("instance",)


@admin.register(TaskSet)
class TaskSetAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = [TaskSetItemInline]


@admin.register(Participant)
class ParticipantAdmin(RequestAware, admin.ModelAdmin):
    list_display = (
        "user",
        "label",
        "task_set",
        "stage",
        "completed_at",
        "quality",
        "selected_for_analysis",
    )
    list_filter = ("stage", "flagged", "selected_for_analysis", "task_set")
    search_fields = ("user__username", "label")
    list_select_related = ("user", "task_set")
    readonly_fields = (
        "flag_reasons",
        "completed_at",
        "selected_for_analysis",
        "label",
        "stage",
        "personal_link",
        "consented_at",
        "declined_at",
        "instructions_passed_at",
        "comprehension_attempts",
        "practice_done_at",
        "attention",
        "answers",
        "completion_code",
        "joined_from",
    )
    exclude = ("link_key",)

    @admin.display(description="quality", ordering="flagged")
    def quality(self, obj: Participant) -> str:
        """Words, not a tick: a green tick for "flagged" read as "all good"."""
        if obj.completed_at is None and not obj.flagged:
            return "not judged yet (set not complete)"
        return ("flagged: " + "; ".join(obj.flag_reasons)) if obj.flagged else "passes"

    @admin.display(description="personal link")
    def personal_link(self, obj: Participant) -> str:
        if not obj.pk:
            return "-"
        return format_html(
            "<code>{}</code> (signs this participant in; share it with them only)",
            absolute(reverse("humanstudy:personal-link", args=[obj.link_key])),
        )

    actions = ["run_quality_filter"]

    @admin.action(description="Run the quality filter on the selected participants")
    def run_quality_filter(self, request, queryset) -> None:
        flagged = 0
        for participant in queryset.select_related("user", "task_set"):
            flagged += actions.evaluate_participant(participant).flagged
        self.message_user(request, f"{flagged} of {queryset.count()} flagged", messages.INFO)

    def changelist_view(self, request, extra_context=None):
        extra_context = extra_context or {}
        extra_context["title"] = format_html(
            'Participants — <a href="{}">study overview and exports</a>',
            reverse("humanstudy:overview"),
        )
        return super().changelist_view(request, extra_context)
