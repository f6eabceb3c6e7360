"""Task families in the browser: pick a kind and level, read the task, answer once."""

from __future__ import annotations

from axes.helpers import get_client_ip_address
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from engine import families, family_practice, practice
from engine.core.families.base import FamilyError, get_family
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask
from engine.practice import PracticeError


def family_list(request):
    return render(request, "engine/families.html", {"families": families.families_catalogue()})


def _not_a_participant(request):
    """For a study participant, the study's page saying this task is not theirs (403);
    None for anyone else."""
    participant = getattr(request.user, "participant", None)
    if participant is None:
        return None
    from humanstudy.views import not_your_task

    return not_your_task(request, participant)


@require_POST
def play(request):
    """Start an attempt at a stored task of the chosen kind and level the player has not
    tried yet, or ask for a fresh one and wait for it on the request's page
    (``engine.family_practice``). Past the hourly limit: the list again, saying why (429).

    Anyone may, as on KUMO's Play entry: an anonymous visitor is signed in as a guest
    account (``engine.practice.do_make_guest``), the same kind KUMO practice makes, once
    their choice is valid. A KUMO game (``family=kumo``, its domain as the kind) starts as
    at KUMO's own Play entry (``engine.views.start_practice_game``), so one form starts a
    game of any family."""
    if request.POST.get("family", "") == families.KUMO:
        from engine.views import start_practice_game

        return start_practice_game(
            request,
            domain=request.POST.get("kind", "").strip(),
            level=request.POST.get("level", "").strip() or "easy",
        )
    refused = _not_a_participant(request)
    if refused is not None:
        return refused
    try:
        wanted = family_practice.check_family_practice(
            *(request.POST.get(k, "") for k in ("family", "kind", "level")),
            ip_address=get_client_ip_address(request),
        )
        if not request.user.is_authenticated:
            guest = practice.do_make_guest(wanted.ip_address)
            login(request, guest, backend="django.contrib.auth.backends.ModelBackend")
        outcome = family_practice.do_request_family_practice(request.user, wanted)
    except family_practice.FamilyPracticeError as error:
        messages.error(request, str(error))
        return redirect("families")
    except PracticeError as error:
        context = {"families": families.families_catalogue(), "refusal": str(error)}
        return render(request, "engine/families.html", context, status=error.status)
    if outcome.attempt is not None:
        return redirect("family-attempt", attempt_id=outcome.attempt.pk)
    return redirect("family-practice-request", request_id=outcome.request.pk)


def _own_request(request, request_id: int) -> dict:
    wanted = get_object_or_404(FamilyPracticeRequest, pk=request_id, player=request.user)
    return family_practice.request_state(wanted)


def _ready_url(state: dict) -> str | None:
    """Where a prepared request leads: its attempt, or its KUMO game; None until then."""
    if state["attempt"] is not None:
        return reverse("family-attempt", args=[state["attempt"]])
    if state["session"] is not None:
        return reverse("play", args=[state["session"]])
    return None


@login_required
def practice_request(request, request_id: int):
    """The page a player waits on while their fresh task (or KUMO game) is generated: it
    goes on to the attempt or the game once it is ready, or says why it could not be made.
    Without JavaScript it reloads itself; family_practice.js polls the status endpoint
    instead."""
    state = _own_request(request, request_id)
    ready = _ready_url(state)
    if ready is not None:
        return redirect(ready)
    return render(request, "engine/family_practice_request.html", {"state": state})


@login_required
def practice_request_status(request, request_id: int):
    """The request's state as JSON, with the address of the attempt (or KUMO game) once it
    is ready."""
    state = _own_request(request, request_id)
    return JsonResponse({**state, "url": _ready_url(state)})


@login_required
def attempt(request, attempt_id: int):
    current = get_object_or_404(
        FamilyAttempt.objects.select_related("task"), pk=attempt_id, player=request.user
    )
    participant = getattr(request.user, "participant", None)
    if not may_open(request.user, current):  # a participant's task outside their set
        from humanstudy.views import not_your_task

        return not_your_task(request, participant)
    if request.method == "POST":
        try:
            if "move" in request.POST:
                families.move_attempt(
                    current.pk,
                    request.user,
                    request.POST.get("move", ""),
                    client=_client_report(request.POST),
                )
            else:
                answer = form_answer(current.task, request.POST)
                families.answer_attempt(
                    current.pk, request.user, answer, client=_client_report(request.POST)
                )
        except families.AttemptError as error:
            messages.error(request, str(error))
        return redirect("family-attempt", attempt_id=current.pk)
    if (
        current.deadline_at is not None
        and not current.finished
        and (timezone.now() > current.deadline_at)
    ):
        families.expire_overdue_attempts(request.user)  # time is up: it ends, unsolved
        current.refresh_from_db()
    # The answer form is the family's (state["form"]): LR²Bench's imported items share
    # some kind names with the generated puzzles but are answered as text, in its format.
    return render(
        request,
        "engine/family_attempt.html",
        {"state": page_state(current), "study": participant is not None},
    )


def page_state(current: FamilyAttempt) -> dict:
    """The attempt's state as its page draws it (``families.attempt_state``, with what each
    move showed in words, the logic grid's columns and the time left); the page's socket
    draws the game from the same state (``engine.consumers.FamilyAttemptConsumer``)."""
    state = families.attempt_state(current)
    if state["form"] == "logic_grid":
        # The matrix's columns: every category but the people's names (the rows). Never
        # rely on the order of a JSON object's keys: PostgreSQL's jsonb reorders them.
        state["logic_columns"] = [
            (category, values)
            for category, values in current.task.public["variables"].items()
            if category != "names"
        ]
    family = get_family(current.task.family)
    for entry in state.get("moves", ()):  # what each move showed, in words, the board apart
        entry["note"] = family.describe(current.task.kind, entry["observation"])
    if current.deadline_at is not None and not current.finished:
        state["seconds_left"] = max(
            0, round((current.deadline_at - timezone.now()).total_seconds())
        )
    return state


def may_open(user, current: FamilyAttempt) -> bool:
    """Whether ``user`` may see the attempt's page (and open its socket): their own
    attempt, and for a study participant only a task of their own set."""
    if current.player_id != user.pk:
        return False
    participant = getattr(user, "participant", None)
    return participant is None or _in_study(participant, current)


def _in_study(participant, current: FamilyAttempt) -> bool:
    """A participant sees a family task only as a task of their own set, once they have
    reached the tasks (the rest of the site's play is not theirs)."""
    from humanstudy.actions import in_task_set
    from humanstudy.models import Participant

    stages = (Participant.Stage.TASKS, Participant.Stage.QUESTIONNAIRE, Participant.Stage.COMPLETE)
    return participant.stage in stages and in_task_set(participant, current.task_id)


def _client_report(post) -> dict | None:
    """The page's counts about writing the answer (play_signals.js), if it sent them."""
    import json

    raw = post.get("client", "")
    if not raw or len(raw) > 2000:
        return None
    try:
        report = json.loads(raw)
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def form_answer(task: FamilyTask, post) -> object:
    """The answer a page's form gives: the text box, or the fields of the answer form the
    task's family draws for its kind (``Family.read_form``). The server scores it; the page
    never knows the solution."""
    family = get_family(task.family)
    if family.answer_form(task.kind) is None:
        return post.get("answer", "")
    try:
        return family.read_form(task.kind, task.public, post)
    except FamilyError as error:
        raise families.AttemptError(str(error)) from None
