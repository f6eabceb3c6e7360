from __future__ import annotations

import difflib
import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.http import HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from engine import authoring
from engine.models import (
    AuthoringJob,
    Domain,
    DomainProposal,
    FamilyAttempt,
    FamilyStep,
    FamilyTask,
    Instance,
    KnowledgeBook,
    LLMCall,
    PlaySession,
    PlayStep,
    ProposalBrief,
    WordClue,
)


def _pretty(value: object) -> str:
    return format_html("<pre style='white-space:pre-wrap'>{}</pre>", json.dumps(value, indent=2))


class ReadOnlyAdmin(admin.ModelAdmin):
    """Lists and detail views only: these rows are records the site's own code writes
    (a game played, a score), so nobody adds, edits or deletes one here."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """A record's rows (a game's steps), shown with it and never edited."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Domain)
class DomainAdmin(admin.ModelAdmin):
    list_display = ("name", "title", "truth_count", "action_count", "source", "n_instances")
    list_filter = ("source",)
    search_fields = ("name", "title", "description")
    readonly_fields = ("data_pretty", "created_at", "updated_at", "truth_count", "action_count")
    exclude = ("data",)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_instances=Count("instances"))

    @admin.display(ordering="n_instances", description="instances")
    def n_instances(self, obj: Domain) -> int:
        return obj.n_instances

    @admin.display(description="domain (JSON)")
    def data_pretty(self, obj: Domain) -> str:
        return _pretty(obj.data)


class KnowledgeBookInline(admin.StackedInline):
    model = KnowledgeBook
    extra = 0
    fields = (
        "author",
        "author_detail",
        "passed_check",
        "problems",
        "review_problems",
        "compare_link",
        "created_at",
        "text",
    )
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # books come from the writers, checked (see KnowledgeBookAdmin)

    @admin.display(description="compare")
    def compare_link(self, obj: KnowledgeBook) -> str:
        return _compare_link(obj)


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "domain",
        "n_truths",
        "n_actions",
        "seed",
        "source",
        "expected_actions",
        "oracle_actions",
    )
    list_filter = ("domain", "n_truths", "n_actions", "source")
    search_fields = ("domain__name", "=seed")
    list_select_related = ("domain",)
    inlines = [KnowledgeBookInline]
    readonly_fields = (
        "domain",
        "n_truths",
        "n_actions",
        "n_valid",
        "seed",
        "source",
        "truths_pretty",
        "actions_pretty",
        "observations_pretty",
        "valid_truths",
        "expected_actions",
        "oracle_actions",
        "created_at",
    )
    exclude = ("truths", "actions", "observations")
    actions = ["write_llm_books"]

    @admin.action(description="Write LLM knowledge books for the selected instances")
    def write_llm_books(self, request, queryset) -> None:
        try:
            jobs = authoring.launch_llm_books(list(queryset.values_list("pk", flat=True)))
        except authoring.AuthoringError as error:
            self.message_user(request, str(error), messages.ERROR)
            return
        self.message_user(
            request,
            f"Writing LLM books for {queryset.count()} instance(s) in {jobs} background "
            "job(s); each version appears under the instance's books, and players keep the "
            "deterministic book unless a version passes the checker and the review.",
            messages.INFO,
        )

    @admin.display(description="truths")
    def truths_pretty(self, obj: Instance) -> str:
        return _pretty(obj.truths)

    @admin.display(description="actions")
    def actions_pretty(self, obj: Instance) -> str:
        return _pretty(obj.actions)

    @admin.display(description="observations")
    def observations_pretty(self, obj: Instance) -> str:
        return _pretty(obj.observations)


def _compare_link(book: KnowledgeBook) -> str:
    """A link comparing ``book`` with the version it revises, or else with the first book of
    its instance (the deterministic one); empty for that first book itself."""
    other_id = book.revision_of_id or (
        KnowledgeBook.objects.filter(instance_id=book.instance_id)
        .exclude(pk=book.pk)
        .order_by("created_at", "id")
        .values_list("pk", flat=True)
        .first()
    )
    if other_id is None or other_id == book.pk:
        return ""
    url = reverse("admin:engine_knowledgebook_compare", args=[other_id, book.pk])
    return format_html('<a href="{}">compare with book {}</a>', url, other_id)


def _problem_list(problems: list[str]) -> str:
    if not problems:
        return "none"
    return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((p,) for p in problems)))


@admin.register(KnowledgeBook)
class KnowledgeBookAdmin(admin.ModelAdmin):
    list_display = ("__str__", "author", "author_detail", "passed_check", "created_at")
    list_filter = ("author", "passed_check", "instance__domain")
    search_fields = ("text", "instance__domain__name", "=instance__seed")
    list_select_related = ("instance__domain",)
    readonly_fields = (
        "instance",
        "author",
        "author_detail",
        "passed_check",
        "problems",
        "review",
        "review_problems",
        "revision_of",
        "compare",
        "created_at",
    )
    actions = ["compare_selected"]

    # A book is what players of its instance read, and a session keeps the book it started
    # with, so a book is never edited in place: new versions come from the deterministic
    # writer or the authoring flow, which run the checker (docs/domain-authoring.md).
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="compare")
    def compare(self, obj: KnowledgeBook) -> str:
        return _compare_link(obj)

    @admin.action(description="Compare the two selected books (same instance)")
    def compare_selected(self, request, queryset):
        books = list(queryset.order_by("created_at", "id")[:3])
        if len(books) != 2 or books[0].instance_id != books[1].instance_id:
            self.message_user(
                request, "Select exactly two books of the same instance.", messages.ERROR
            )
            return None
        url = reverse("admin:engine_knowledgebook_compare", args=[books[0].pk, books[1].pk])
        return HttpResponseRedirect(url)

    def get_urls(self):
        view = self.admin_site.admin_view(self.compare_view)
        return [
            path("compare/<int:old_id>/<int:new_id>/", view, name="engine_knowledgebook_compare"),
            *super().get_urls(),
        ]

    def compare_view(self, request, old_id: int, new_id: int):
        """Two versions of an instance's book side by side (``difflib.HtmlDiff``), with
        each version's checker problems and review."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        queryset = KnowledgeBook.objects.select_related("instance__domain")
        old = get_object_or_404(queryset, pk=old_id)
        new = get_object_or_404(queryset, pk=new_id)
        if old.instance_id != new.instance_id:
            return HttpResponseBadRequest("the two books belong to different instances")
        # HtmlDiff escapes the texts itself (&, <, >): an LLM's book cannot inject markup.
        # It puts the two headers in as they are, so those are escaped here (author_detail
        # holds the authoring model's name, from the environment or an admin).
        table = difflib.HtmlDiff(wrapcolumn=70).make_table(
            old.text.splitlines(),
            new.text.splitlines(),
            fromdesc=escape(f"book {old.pk}: {old.get_author_display()} {old.author_detail}"),
            todesc=escape(f"book {new.pk}: {new.get_author_display()} {new.author_detail}"),
        )
        versions = [
            {
                "book": book,
                "problems": _problem_list(book.problems),
                "review_problems": _problem_list(book.review_problems),
                "url": reverse("admin:engine_knowledgebook_change", args=[book.pk]),
            }
            for book in (old, new)
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": f"Compare books of {new.instance}",
            "opts": self.model._meta,
            "instance": new.instance,
            "versions": versions,
            "diff_table": mark_safe(table),  # noqa: S308 - escaped, see above
        }
        return TemplateResponse(request, "engine/admin/book_compare.html", context)


# -- domain authoring with an LLM (docs/domain-authoring.md) ----------------------------------


class DomainProposalInline(admin.TabularInline):
    model = DomainProposal
    extra = 0
    fields = ("name", "title", "goal", "status", "decided_by", "domain")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ProposalBrief)
class ProposalBriefAdmin(admin.ModelAdmin):
    list_display = ("__str__", "count", "n_proposals", "last_asked_at", "last_error", "created_by")
    search_fields = ("topics", "notes")
    list_select_related = ("created_by",)
    fields = ("topics", "count", "notes", "created_by", "created_at", "last_asked_at", "last_error")
    readonly_fields = ("created_by", "created_at", "last_asked_at", "last_error")
    inlines = [DomainProposalInline]
    actions = ["ask_for_proposals"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_proposals=Count("proposals"))

    @admin.display(ordering="n_proposals", description="proposals")
    def n_proposals(self, obj: ProposalBrief) -> int:
        return obj.n_proposals

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)

        class CheckedForm(form):
            def clean(self):
                cleaned = super().clean()
                try:
                    authoring.check_brief(cleaned.get("topics") or "", cleaned.get("count") or 0)
                except authoring.AuthoringError as error:
                    raise ValidationError(str(error)) from None
                return cleaned

        return CheckedForm

    @admin.action(description="Ask the LLM for proposals")
    def ask_for_proposals(self, request, queryset) -> None:
        queued = 0
        for brief in queryset:
            try:
                authoring.launch_proposals(brief)
            except authoring.AuthoringError as error:
                self.message_user(request, str(error), messages.ERROR)
                return
            queued += 1
        self.message_user(
            request,
            f"Asked the LLM for proposals on {queued} brief(s) in the background; they appear "
            "under Domain proposals (a failure shows in the brief's last error).",
            messages.INFO,
        )


@admin.register(DomainProposal)
class DomainProposalAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "title",
        "status",
        "brief",
        "decided_by",
        "decided_at",
        "domain_link",
        "error_short",
    )
    list_filter = ("status",)
    search_fields = ("name", "title", "goal", "truths", "actions")
    list_select_related = ("brief", "decided_by", "domain")
    readonly_fields = (
        "status",
        "brief",
        "call",
        "decided_by",
        "decided_at",
        "domain",
        "error",
        "generation_started_at",
        "attempts",
        "lease_expires_at",
        "generated_at",
        "created_at",
    )
    actions = ["accept", "reject", "generate_config"]

    def has_add_permission(self, request) -> bool:
        return False  # proposals come from the LLM (a brief); see docs/domain-authoring.md

    def get_readonly_fields(self, request, obj=None):
        editable = (
            DomainProposal.Status.PROPOSED,
            DomainProposal.Status.ACCEPTED,
            DomainProposal.Status.REJECTED,
            DomainProposal.Status.FAILED,
        )
        if obj is not None and obj.status not in editable:
            return [f.name for f in DomainProposal._meta.get_fields() if f.concrete]
        return self.readonly_fields

    @admin.display(description="domain")
    def domain_link(self, obj: DomainProposal) -> str:
        if obj.domain_id is None:
            return "—"
        url = reverse("admin:engine_domain_change", args=[obj.domain_id])
        return format_html('<a href="{}">{}</a>', url, obj.domain.name)

    @admin.display(description="error")
    def error_short(self, obj: DomainProposal) -> str:
        return obj.error[:200] + ("…" if len(obj.error) > 200 else "")

    @admin.action(description="Accept the selected proposals")
    def accept(self, request, queryset) -> None:
        changed = authoring.do_decide_proposals(queryset, accept=True, user=request.user)
        self.message_user(request, f"{changed} proposal(s) accepted.", messages.SUCCESS)

    @admin.action(description="Reject the selected proposals")
    def reject(self, request, queryset) -> None:
        changed = authoring.do_decide_proposals(queryset, accept=False, user=request.user)
        self.message_user(request, f"{changed} proposal(s) rejected.", messages.SUCCESS)

    @admin.action(description="Generate the seed config (LLM) of the selected proposals")
    def generate_config(self, request, queryset) -> None:
        queued = []
        for proposal in queryset:
            try:
                authoring.launch_config_generation(proposal)
            except authoring.AuthoringError as error:
                self.message_user(request, str(error), messages.ERROR)
                if str(error) == authoring.NOT_CONFIGURED:
                    return
                continue
            queued.append(proposal.name)
        if queued:
            self.message_user(
                request,
                f"Generating the seed config of {', '.join(queued)} in the background; the "
                "proposal shows the stored domain, or why generation failed.",
                messages.INFO,
            )


@admin.register(AuthoringJob)
class AuthoringJobAdmin(admin.ModelAdmin):
    """The queued authoring jobs and how each went (read only: launched from the briefs,
    instances and calls, queued again by beat's sweep when a worker dies)."""

    list_display = ("id", "kind", "status", "attempts", "queued_at", "finished_at", "outcome")
    list_filter = ("kind", "status")
    date_hierarchy = "queued_at"
    readonly_fields = [field.name for field in AuthoringJob._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "subject",
        "model",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "outcome",
        "started_at",
        "rerun_of",
    )
    list_filter = ("kind", "model", "finish_reason")
    list_select_related = ("rerun_of",)
    search_fields = ("subject", "reply", "error")
    date_hierarchy = "started_at"
    fields = (
        "kind",
        "subject",
        "brief",
        "proposal",
        "instance",
        "book",
        "rerun_of",
        "model",
        "base_url",
        "params",
        "started_at",
        "finished_at",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "error",
        "problems_list",
        "messages_pretty",
        "reply_pretty",
        "reasoning",
    )
    readonly_fields = fields
    actions = ["rerun"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # a record of what was sent and received

    @admin.display(description="outcome")
    def outcome(self, obj: LLMCall) -> str:
        if obj.error:
            return f"error: {obj.error[:120]}"
        if obj.problems:
            return f"{len(obj.problems)} problem(s): {obj.problems[0][:100]}"
        return "ok"

    @admin.display(description="problems with the reply")
    def problems_list(self, obj: LLMCall) -> str:
        return _problem_list(obj.problems)

    @admin.display(description="messages sent")
    def messages_pretty(self, obj: LLMCall) -> str:
        return format_html_join(
            "",
            "<p><strong>{}</strong></p><pre style='white-space:pre-wrap'>{}</pre>",
            ((m.get("role", "?"), m.get("content", "")) for m in obj.messages or []),
        )

    @admin.display(description="reply")
    def reply_pretty(self, obj: LLMCall) -> str:
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", obj.reply)

    @admin.action(description="Re-run the selected calls (new records; the old are kept)")
    def rerun(self, request, queryset) -> None:
        try:
            authoring.launch_reruns(list(queryset.values_list("pk", flat=True)))
        except authoring.AuthoringError as error:
            self.message_user(request, str(error), messages.ERROR)
            return
        self.message_user(
            request,
            f"Re-running {queryset.count()} call(s) in the background; each re-run is a new "
            "record linked to the original.",
            messages.INFO,
        )


class PlayStepInline(ReadOnlyInline):
    model = PlayStep
    fields = (
        "index",
        "kind",
        "sent",
        "name",
        "accepted",
        "error",
        "observation",
        "elapsed_ms",
        "created_at",
        "client",
    )
    readonly_fields = fields
    ordering = ("index",)


@admin.register(PlaySession)
class PlaySessionAdmin(ReadOnlyAdmin):
    """Every game played, browsable and read-only: a session is the record of what a
    player did, so nobody edits or deletes one here (not even a superuser)."""

    list_display = (
        "pk",
        "player",
        "domain",
        "setting",
        "started_at",
        "finished_at",
        "actions_taken",
        "invalid_moves",
        "correct",
    )
    list_filter = ("correct", "instance__source", "instance__domain")
    search_fields = ("player__username", "=id")
    list_select_related = ("player", "instance__domain")
    date_hierarchy = "started_at"
    fields = (
        "player",
        "instance",
        "book",
        "started_at",
        "last_move_at",
        "finished_at",
        "deadline_at",
        "actions_taken",
        "invalid_moves",
        "answer",
        "correct",
    )
    readonly_fields = fields
    inlines = [PlayStepInline]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("instance__domain__data")

    @admin.display(description="domain", ordering="instance__domain__name")
    def domain(self, obj: PlaySession) -> str:
        return obj.instance.domain.name

    @admin.display(description="setting")
    def setting(self, obj: PlaySession) -> str:
        return f"{obj.instance.n_truths}/{obj.instance.n_actions}"


class FamilyStepInline(ReadOnlyInline):
    model = FamilyStep
    fields = ("index", "move", "accepted", "error", "elapsed_ms", "created_at", "client")
    readonly_fields = fields
    ordering = ("index",)


@admin.register(FamilyTask)
class FamilyTaskAdmin(ReadOnlyAdmin):
    """Every stored task of the other families, browsable and read-only (a task is what
    attempts were scored against; it changes only by importing its published item again)."""

    list_display = ("pk", "family", "kind", "level", "origin", "seed", "created_at")
    list_filter = ("family", "origin", "level")
    search_fields = ("=id", "kind", "=seed")
    fields = (
        "family", "kind", "level", "origin", "params", "seed", "public_pretty", "hidden_pretty",
        "created_at",
    )  # fmt: skip
    readonly_fields = fields

    @admin.display(description="public")
    def public_pretty(self, obj: FamilyTask) -> str:
        return _pretty(obj.public)

    @admin.display(description="hidden")
    def hidden_pretty(self, obj: FamilyTask) -> str:
        return _pretty(obj.hidden)


@admin.register(FamilyAttempt)
class FamilyAttemptAdmin(ReadOnlyAdmin):
    """Every attempt at another family's task, browsable and read-only as KUMO's sessions
    are: a game's moves as sent (refused ones too, with the page's reports), and a model's
    every reply (``turns``)."""

    list_display = (
        "pk", "player", "model_name", "family", "kind", "level", "started_at", "finished_at",
        "invalid_moves", "correct", "value",
    )  # fmt: skip
    list_filter = ("correct", "task__family", "task__origin")
    search_fields = ("player__username", "model_name", "=id")
    list_select_related = ("player", "task")
    date_hierarchy = "started_at"
    fields = (
        "player", "task", "model_name", "run", "started_at", "finished_at", "deadline_at",
        "elapsed_ms", "answer", "correct", "value", "details_pretty", "invalid_moves",
        "tokens", "parse_error", "client", "turns_pretty",
    )  # fmt: skip
    readonly_fields = fields
    inlines = [FamilyStepInline]

    @admin.display(description="family", ordering="task__family")
    def family(self, obj: FamilyAttempt) -> str:
        return obj.task.family

    @admin.display(description="kind", ordering="task__kind")
    def kind(self, obj: FamilyAttempt) -> str:
        return obj.task.kind

    @admin.display(description="level")
    def level(self, obj: FamilyAttempt) -> str:
        return obj.task.level

    @admin.display(description="details")
    def details_pretty(self, obj: FamilyAttempt) -> str:
        return _pretty(obj.details)

    @admin.display(description="turns (a model's replies)")
    def turns_pretty(self, obj: FamilyAttempt) -> str:
        return _pretty(obj.turns)


@admin.register(WordClue)
class WordClueAdmin(admin.ModelAdmin):
    """Crossword clues the authoring LLM wrote (write_word_clues); a bad one can be deleted
    or edited here (an edited clue is used as written)."""

    list_display = ["word", "clue", "model", "created_at"]
    search_fields = ["word", "clue"]
    readonly_fields = ["model", "call", "created_at"]
