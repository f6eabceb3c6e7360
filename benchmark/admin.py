from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from benchmark import actions
from benchmark.actions import RunError, RunSpec
from benchmark.models import Account, EvaluationGame, EvaluationRun

SPEC_FIELDS = (
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
)


class EvaluationRunForm(forms.ModelForm):
    """The add form: validated by ``actions.check_run_spec``, like the command and the API."""

    class Meta:
        model = EvaluationRun
        fields = SPEC_FIELDS

    def __init__(self, *args, user=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def spec(self) -> RunSpec:
        data = self.cleaned_data
        return RunSpec(
            model=data.get("model") or "",
            domains=[domain.name for domain in data.get("domains") or []],
            base_url=data.get("base_url") or "",
            api_key_env=data.get("api_key_env") or "",
            n_truths=data.get("n_truths") or 0,
            n_actions=data.get("n_actions") or 0,
            runs=data.get("runs") or 0,
            concurrency=data.get("concurrency") or 0,
            max_turns=data.get("max_turns") or 0,
            max_parse_errors=data.get("max_parse_errors") or 0,
            timeout=data.get("timeout") or 0,
            seed=data.get("seed") or 0,
            params=data.get("params") if data.get("params") is not None else {},
            submit=bool(data.get("submit")),
            ranked=bool(data.get("ranked")),
        )

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            try:
                actions.check_run_spec(self.spec(), created_by=self.user)
            except RunError as error:
                raise forms.ValidationError(str(error).splitlines()) from None
        return cleaned


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "model",
        "setting",
        "status",
        "attempts",
        "progress_cell",
        "success_cell",
        "created_by",
        "created_at",
        "progress_page",
    )
    list_filter = ("status", "n_truths", "n_actions")
    search_fields = ("model",)
    list_select_related = ("created_by",)
    filter_horizontal = ("domains",)
    actions = ["resume_runs", "mark_failed"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            return super().get_form(request, obj, change=change, **kwargs)
        form = super().get_form(request, obj, change=change, form=EvaluationRunForm, **kwargs)

        class WithUser(form):
            def __init__(self, *args, **inner):
                super().__init__(*args, user=request.user, **inner)

        return WithUser

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # A run is a record of what was played: nothing about it is edited afterwards.
        return [field.name for field in EvaluationRun._meta.get_fields() if field.concrete]

    def get_fields(self, request, obj=None):
        if obj is None:
            return SPEC_FIELDS
        return [name for name in self.get_readonly_fields(request, obj) if name != "id"]

    def save_model(self, request, obj, form, change) -> None:
        if change:
            return
        run = actions.do_create_run(form.spec(), created_by=request.user, launch=True)
        # The admin goes on with ``obj`` (messages, redirect): make it the stored row.
        obj.pk = run.pk
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change) -> None:
        pass  # do_create_run stored the domains; a run's fields are never changed

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(request, f"Run {obj.pk} queued.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("runs:detail", args=[obj.pk]))

    @admin.display(description="setting")
    def setting(self, obj: EvaluationRun) -> str:
        return f"{obj.n_truths}/{obj.n_actions} × {obj.runs}"

    @admin.display(description="progress")
    def progress_cell(self, obj: EvaluationRun) -> str:
        failed = f", {obj.failed_games} failed" if obj.failed_games else ""
        return f"{obj.finished_games}/{obj.total_games}{failed}"

    @admin.display(description="success")
    def success_cell(self, obj: EvaluationRun) -> str:
        if not obj.finished_games:
            return "—"
        return f"{obj.correct_games / obj.finished_games:.0%}"

    @admin.display(description="")
    def progress_page(self, obj: EvaluationRun) -> str:
        return format_html('<a href="{}">progress</a>', reverse("runs:detail", args=[obj.pk]))

    @admin.action(description="Resume the selected failed runs (play the missing games)")
    def resume_runs(self, request, queryset) -> None:
        resumed = sum(actions.do_requeue_run(run) for run in queryset)
        self.message_user(request, f"{resumed} run(s) queued again.", messages.INFO)

    @admin.action(description="Mark the selected runs failed (their worker is gone)")
    def mark_failed(self, request, queryset) -> None:
        marked = sum(
            actions.do_mark_failed(run, "marked failed from the admin") for run in queryset
        )
        self.message_user(request, f"{marked} run(s) marked failed.", messages.INFO)


@admin.register(EvaluationGame)
class EvaluationGameAdmin(admin.ModelAdmin):
    list_display = ("__str__", "correct", "actions_taken", "parse_errors", "prompt_tokens")
    list_filter = ("correct",)
    search_fields = ("=run__id", "=instance__seed")
    list_select_related = ("instance__domain",)
    raw_id_fields = ("run", "instance")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    """Accounts' organisations and e-mail confirmation (benchmark.accounts)."""

    list_display = ("user", "email", "organisation", "signed_up_at", "email_confirmed_at")
    list_filter = ("email_confirmed_at", "signed_up_at")
    search_fields = ("user__username", "user__email", "organisation")
    raw_id_fields = ("user",)
    readonly_fields = ("signed_up_at", "signed_up_from")
    list_select_related = ("user",)

    @admin.display(ordering="user__email", description="e-mail")
    def email(self, obj: Account) -> str:
        return obj.user.email
