"""Task families in the browser: pick a kind and level, read the task, answer once."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from engine import families
from engine.core.families.base import FamilyError
from engine.models import FamilyAttempt, FamilyTask


def family_list(request):
    return render(request, "engine/families.html", {"families": families.families_catalogue()})


def _not_a_participant(user) -> None:
    if hasattr(user, "participant"):
        raise PermissionDenied("study participants play their own task set only")


@login_required
@require_POST
def play(request):
    """Start an attempt at a stored task of the chosen kind and level the player has not
    tried yet, or at a freshly generated one when every stored task was tried."""
    _not_a_participant(request.user)
    family, kind, level = (request.POST.get(k, "") for k in ("family", "kind", "level"))
    tried = FamilyAttempt.objects.filter(player=request.user).values("task_id")
    task = (
        FamilyTask.objects.filter(family=family, kind=kind, level=level)
        .exclude(pk__in=tried)
        .order_by("?")
        .first()
    )
    if task is None:
        try:
            report = families.do_generate_family_tasks(
                family, kind, count=1, seed=secrets.randbits(40), level=level or None
            )
        except FamilyError as error:
            messages.error(request, str(error))
            return redirect("families")
        task = report.tasks[0]
    attempt, _ = families.start_attempt(request.user, task)
    return redirect("family-attempt", attempt_id=attempt.pk)


@login_required
def attempt(request, attempt_id: int):
    _not_a_participant(request.user)
    current = get_object_or_404(
        FamilyAttempt.objects.select_related("task"), pk=attempt_id, player=request.user
    )
    if request.method == "POST":
        try:
            families.answer_attempt(current.pk, request.user, request.POST.get("answer", ""))
        except families.AttemptError as error:
            messages.error(request, str(error))
        return redirect("family-attempt", attempt_id=current.pk)
    return render(request, "engine/family_attempt.html", {"state": families.attempt_state(current)})
