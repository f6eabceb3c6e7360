"""Task families in the browser: pick a kind and level, read the task, answer once."""

from __future__ import annotations

from axes.helpers import get_client_ip_address
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from engine import families, family_practice
from engine.models import FamilyAttempt, FamilyPracticeRequest, FamilyTask
from engine.practice import PracticeError


def family_list(request):
    return render(request, "engine/families.html", {"families": families.families_catalogue()})


def _not_a_participant(user) -> None:
    if hasattr(user, "participant"):
        raise PermissionDenied("study participants play their own task set only")


@login_required
@require_POST
def play(request):
    """Start an attempt at a stored task of the chosen kind and level the player has not
    tried yet, or ask for a fresh one and wait for it on the request's page
    (``engine.family_practice``). Past the hourly limit: the list again, saying why (429)."""
    _not_a_participant(request.user)
    try:
        wanted = family_practice.check_family_practice(
            *(request.POST.get(k, "") for k in ("family", "kind", "level")),
            ip_address=get_client_ip_address(request),
        )
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


@login_required
def practice_request(request, request_id: int):
    """The page a player waits on while their fresh task is generated: it goes on to the
    attempt once the task is ready, or says why it could not be made. Without JavaScript
    it reloads itself; family_practice.js polls the status endpoint instead."""
    state = _own_request(request, request_id)
    if state["attempt"] is not None:
        return redirect("family-attempt", attempt_id=state["attempt"])
    return render(request, "engine/family_practice_request.html", {"state": state})


@login_required
def practice_request_status(request, request_id: int):
    """The request's state as JSON, with the attempt's address once it is ready."""
    state = _own_request(request, request_id)
    url = reverse("family-attempt", args=[state["attempt"]]) if state["attempt"] else None
    return JsonResponse({**state, "url": url})


@login_required
def attempt(request, attempt_id: int):
    current = get_object_or_404(
        FamilyAttempt.objects.select_related("task"), pk=attempt_id, player=request.user
    )
    participant = getattr(request.user, "participant", None)
    if participant is not None:
        _study_task_only(participant, current)
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
    state = families.attempt_state(current)
    if current.task.kind == "logic_grid":
        # The matrix's columns: every category but the people's names (the rows). Never
        # rely on the order of a JSON object's keys: PostgreSQL's jsonb reorders them.
        state["logic_columns"] = [
            (category, values)
            for category, values in current.task.public["variables"].items()
            if category != "names"
        ]
    for entry in state.get("moves", ()):  # what each move showed, the board apart
        shown = entry["observation"]
        entry["note"] = (
            "; ".join(f"{key}: {value}" for key, value in shown.items() if key != "view")
            if isinstance(shown, dict)
            else str(shown)
        )
    if current.deadline_at is not None and not current.finished:
        state["seconds_left"] = max(
            0, round((current.deadline_at - timezone.now()).total_seconds())
        )
    # The generated puzzles' own widgets (grid, matrix, cipher table); LR²Bench's imported
    # items share some kind names but are answered as text, in LR²Bench's format.
    widget = current.task.kind if current.task.family == "puzzles" else ""
    return render(
        request,
        "engine/family_attempt.html",
        {"state": state, "study": participant is not None, "widget": widget},
    )


def _letter(post, r: int, c: int) -> str:
    value = post.get(f"letter-{r}-{c}", "").strip().upper()[:1]
    return value if value.isascii() and value.isalpha() else ""


def _grid_answer(task: FamilyTask, post) -> object:
    """A crossword's entries or a drop quote's rows, read from the grid's squares
    (``letter-R-C``); an entry or row with an empty square is left unanswered."""
    shape = task.public["shape"]
    if task.kind == "dropquote":
        rows = []
        for r, line in enumerate(shape):
            letters = [_letter(post, r, c) if cell == "_" else cell for c, cell in enumerate(line)]
            rows.append("".join(letters) if all(letters) else None)
        if not any(rows):
            raise families.AttemptError("fill in at least one whole row first")
        return rows
    starts = {n: (r, c) for r, c, n in task.public["numbers"]}
    entries = {}
    for key in task.public["clues"]:
        number, direction = key.split("-")
        r, c = starts[int(number)]
        dr, dc = (0, 1) if direction == "Across" else (1, 0)
        word = []
        while r < len(shape) and c < len(shape[r]) and shape[r][c] != "#":
            word.append(_letter(post, r, c))
            r, c = r + dr, c + dc
        if all(word):
            entries[key] = "".join(word)
    if not entries:
        raise families.AttemptError("fill in at least one whole entry first")
    return entries


def _study_task_only(participant, current: FamilyAttempt) -> None:
    """A participant sees a family task only as a task of their own set, once they have
    reached the tasks (the rest of the site's play is not theirs)."""
    from humanstudy.actions import in_task_set
    from humanstudy.models import Participant

    stages = (Participant.Stage.TASKS, Participant.Stage.QUESTIONNAIRE, Participant.Stage.COMPLETE)
    if participant.stage not in stages or not in_task_set(participant, current.task_id):
        raise PermissionDenied("study participants play their own task set only")


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
    """The answer a page's form gives: the text box, or for a Sudoku the grid of cells
    (``cell-R-C``; an empty or non-number cell stays as typed, so its row is not read) and
    for a logic grid the people's rows (``pick-E-CATEGORY``), for a cryptogram the letter
    mapping (``map-X``). The server scores it; the
    page never knows the solution."""
    if task.family != "puzzles" or task.kind not in (
        "sudoku",
        "logic_grid",
        "cryptogram",
        "crossword",
        "dropquote",
    ):
        return post.get("answer", "")
    if task.kind in ("crossword", "dropquote"):
        return _grid_answer(task, post)
    if task.kind == "cryptogram":
        mapping = {
            letter: post.get(f"map-{letter}", "").strip()[:5] for letter in task.public["letters"]
        }
        mapping = {letter: plain for letter, plain in mapping.items() if plain}
        if not mapping:
            raise families.AttemptError("fill in at least one letter first")
        return mapping
    if task.kind == "sudoku":
        size = task.public["size"]
        grid = [
            [post.get(f"cell-{r}-{c}", "").strip()[:3] for c in range(size)] for r in range(size)
        ]
        if not any(value for row in grid for value in row if value):
            raise families.AttemptError("fill in the grid first")
        return [[int(v) if v.isdigit() else v for v in row] for row in grid]
    variables = task.public["variables"]
    people = []
    for e, name in enumerate(variables["names"]):
        row = {"names": name}
        for category in (c for c in variables if c != "names"):
            value = post.get(f"pick-{e}-{category}", "")
            if value:
                row[category] = value[:200]
        people.append(row)
    if not any(len(row) > 1 for row in people):
        raise families.AttemptError("choose at least one value first")
    return people
