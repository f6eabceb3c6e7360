from __future__ import annotations

import csv
import json

from axes.helpers import get_client_ip_address
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from benchmark.spreadsheet import safe_row
from engine.models import FamilyAttempt
from humanstudy import actions, path, reports
from humanstudy import monitor as live
from humanstudy.actions import StudyError
from humanstudy.models import Participant, StudySettings


def _participant(request) -> Participant:
    participant = (
        Participant.objects.select_related("task_set", "user").filter(user=request.user).first()
    )
    if participant is None:
        raise Http404("only study participants have a study page")
    return participant


Stage = Participant.Stage
STAGE_PAGES = {
    Stage.CONSENT: "humanstudy:consent",
    Stage.INSTRUCTIONS: "humanstudy:instructions",
    Stage.PRACTICE: "humanstudy:practice",
    Stage.TASKS: "humanstudy:tasks",
    Stage.QUESTIONNAIRE: "humanstudy:questionnaire",
    Stage.COMPLETE: "humanstudy:complete",
    Stage.DECLINED: "humanstudy:declined",
}


def _at(request, *stages) -> Participant | HttpResponse:
    """The participant if they are at one of ``stages``; else a redirect to their page."""
    participant = _participant(request)
    if participant.stage not in stages:
        return redirect(STAGE_PAGES[participant.stage])
    return participant


@login_required
def progress(request):
    """/study/: wherever the participant is on their path."""
    return redirect(STAGE_PAGES[_participant(request).stage])


def _sign_in(request, participant: Participant) -> None:
    login(request, participant.user, backend="django.contrib.auth.backends.ModelBackend")


def join(request, key: str):
    """The study link a recruitment platform sends participants to."""
    raw = request.GET.get(StudySettings.current().label_parameter, "")
    current = getattr(request.user, "participant", None) if request.user.is_authenticated else None
    if current is not None and current.label and current.label == path.normalise_label(raw):
        return redirect("humanstudy:progress")  # the same person opening the link again
    try:
        participant = path.join_by_label(key, raw, get_client_ip_address(request))
    except StudyError as error:
        return render(
            request,
            "humanstudy/link_error.html",
            {"message": str(error), "title": getattr(error, "title", ""), "study_frame": True},
            status=getattr(error, "status", 403),
        )
    _sign_in(request, participant)
    return redirect("humanstudy:progress")


def personal_link(request, key: str):
    """A participant's own link: signs them in, no password."""
    try:
        participant = path.participant_for_link(key)
    except StudyError as error:
        return render(
            request,
            "humanstudy/link_error.html",
            {"message": str(error), "study_frame": True},
            status=404,
        )
    _sign_in(request, participant)
    return redirect("humanstudy:progress")


@login_required
def consent(request):
    participant = _at(request, Stage.CONSENT)
    if isinstance(participant, HttpResponse):
        return participant
    if request.method == "POST":
        choice = request.POST.get("choice")
        if choice not in ("agree", "decline"):
            messages.error(request, "please choose whether you agree to take part")
        else:
            path.do_consent(participant, choice == "agree")
            return redirect("humanstudy:progress")
    from engine.views import render_book

    config = StudySettings.current()
    return render(
        request,
        "humanstudy/consent.html",
        {
            "consent_html": render_book(config.consent_text),
            "signals": RECORDED,
            "time_limit_minutes": config.task_time_limit_seconds // 60,
        },
    )


# What the study records, listed on the consent page (and in docs/human-study.md).
RECORDED = (
    "every action and answer you send in a task, with the time it took",
    "how many times you paste or copy on a task page (never what you paste or copy)",
    "how often and how long a task page is hidden (another tab or window) or loses focus",
    "how many keys you press on a task page and how long you take to start after a "
    "task's state is shown (never which keys)",
    "your answers to the instructions' questions and to the end questionnaire",
    "your participant ID from the recruitment site (if you came from one), and the times "
    "you agreed, finished the practice and completed",
    "if you came by the study link, a keyed hash of your network address (never the address "
    "itself), only to limit how many people join from one address",
)


def logged_out(request):
    """Where a participant's "Log out" lands: the study's page, not the admin's."""
    return render(request, "humanstudy/logged_out.html", {"study_frame": True})


def not_your_task(request, participant: Participant) -> HttpResponse:
    """A participant opened a task outside their set (another family task, the site's
    task lists…): a page in the study's frame saying how to go on, with status 403."""
    return render(
        request, "humanstudy/not_your_task.html", {"participant": participant}, status=403
    )


@login_required
def declined(request):
    participant = _at(request, Stage.DECLINED)
    if isinstance(participant, HttpResponse):
        return participant
    return render(request, "humanstudy/declined.html")


@login_required
def instructions(request):
    participant = _at(request, Stage.INSTRUCTIONS)
    if isinstance(participant, HttpResponse):
        return participant
    wrong: list[str] = []
    answers: dict[str, str] = {}
    if request.method == "POST":
        answers = {q.name: request.POST.get(q.name, "") for q in path.COMPREHENSION}
        wrong = path.check_comprehension(participant, answers)
        if not wrong:
            return redirect("humanstudy:progress")
    config = StudySettings.current()
    return render(
        request,
        "humanstudy/instructions.html",
        {
            "questions": path.COMPREHENSION,
            "wrong": wrong,
            # The right answers stay chosen; only the wrong ones are cleared and marked.
            "given": answers,
            "wrong_names": [q.name for q in path.COMPREHENSION if q.text in wrong],
            "tasks": path.set_description(participant),
            "has_family_tasks": participant.task_set_id is not None
            and participant.task_set.items.filter(family_task__isnull=False).exists(),
            "config": config,
            "time_limit_minutes": config.task_time_limit_seconds // 60,
        },
    )


@login_required
def practice(request):
    participant = _at(request, Stage.PRACTICE)
    if isinstance(participant, HttpResponse):
        return participant
    if request.method == "POST":
        try:
            if request.POST.get("do") == "start":
                return redirect("play", session_id=path.open_practice(participant).pk)
            path.finish_practice(participant)
            return redirect("humanstudy:progress")
        except StudyError as error:
            messages.error(request, str(error))
    return render(
        request,
        "humanstudy/practice.html",
        {"session": path.practice_session(participant), "available": path.practice_instance()},
    )


@login_required
def tasks(request):
    participant = _at(request, Stage.TASKS, Stage.QUESTIONNAIRE, Stage.COMPLETE)
    if isinstance(participant, HttpResponse):
        return participant
    state = actions.progress(participant)
    if state.complete and participant.stage == Stage.TASKS:
        path.tasks_done(participant)
        return redirect("humanstudy:progress")
    config = StudySettings.current()
    return render(
        request,
        "humanstudy/progress.html",
        {
            "participant": participant,
            "progress": state,
            "config": config,
            "has_family_tasks": any(row.family_task is not None for row in state.tasks),
            "time_limit_minutes": config.task_time_limit_seconds // 60,
        },
    )


@login_required
@require_POST
def open_task(request, position: int):
    try:
        played = path.open_task(_participant(request), position)
    except actions.StudyError as error:
        messages.error(request, str(error))
        return redirect("humanstudy:progress")
    if isinstance(played, FamilyAttempt):
        return redirect("family-attempt", attempt_id=played.pk)
    return redirect("play", session_id=played.pk)


@login_required
def questionnaire(request):
    participant = _at(request, Stage.QUESTIONNAIRE)
    if isinstance(participant, HttpResponse):
        return participant
    problems: list[str] = []
    answers: dict[str, str] = {}
    if request.method == "POST":
        answers = {q.name: request.POST.get(q.name, "") for q in path.QUESTIONNAIRE}
        answers["comment"] = request.POST.get("comment", "")
        problems = path.answer_questionnaire(participant, answers)
        if not problems:
            return redirect("humanstudy:progress")
    return render(
        request,
        "humanstudy/questionnaire.html",
        {
            "questions": path.QUESTIONNAIRE,
            "problems": problems,
            "comment_max": path.COMMENT_MAX,
            "given": answers if problems else {},
        },
    )


@login_required
def complete(request):
    participant = _at(request, Stage.COMPLETE)
    if isinstance(participant, HttpResponse):
        return participant
    return render(
        request,
        "humanstudy/complete.html",
        {
            "participant": participant,
            "progress": actions.progress(participant),
            "return_link": path.return_link(participant),
            "config": StudySettings.current(),
        },
    )


@staff_member_required
def monitor(request):
    """Who is where, live (monitor.js refreshes it from monitor_data)."""
    return render(request, "humanstudy/monitor.html", {"snapshot": live.snapshot()})


@staff_member_required
def monitor_data(request):
    return JsonResponse(live.snapshot())


@staff_member_required
def overview(request):
    return render(request, "humanstudy/overview.html", reports.overview())


@staff_member_required
def export_steps(request, fmt: str):
    if fmt not in ("csv", "json"):
        raise Http404("exports are csv or json")
    rows = reports.step_rows()
    if fmt == "json":
        response = HttpResponse(
            json.dumps(list(rows), default=str, indent=1), content_type="application/json"
        )
        response["Content-Disposition"] = 'attachment; filename="study-steps.json"'
        return response

    class Echo:
        def write(self, value: str) -> str:
            return value

    writer = csv.DictWriter(Echo(), fieldnames=reports.STEP_COLUMNS)

    def stream():
        yield writer.writeheader()
        for row in rows:
            yield writer.writerow(safe_row(row))

    response = StreamingHttpResponse(stream(), content_type="text/csv")
    response["Content-Disposition"] = 'attachment; filename="study-steps.csv"'
    return response


@staff_member_required
def export_participants(request):
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = 'attachment; filename="study-participants.csv"'
    writer = csv.DictWriter(response, fieldnames=reports.PARTICIPANT_COLUMNS)
    writer.writeheader()
    writer.writerows(safe_row(row) for row in reports.participant_rows())
    return response
