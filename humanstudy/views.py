from __future__ import annotations

import csv
import json

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from benchmark.spreadsheet import safe_row
from humanstudy import actions, reports
from humanstudy.models import Participant


def _participant(request) -> Participant:
    participant = (
        Participant.objects.select_related("task_set", "user").filter(user=request.user).first()
    )
    if participant is None:
        raise Http404("only study participants have a progress page")
    return participant


@login_required
def progress(request):
    participant = _participant(request)
    state = actions.progress(participant)
    if state.complete and participant.completed_at is None:
        participant = actions.evaluate_participant(participant)
    return render(
        request, "humanstudy/progress.html", {"participant": participant, "progress": state}
    )


@login_required
@require_POST
def open_task(request, position: int):
    try:
        session = actions.open_task(_participant(request), position)
    except actions.StudyError as error:
        messages.error(request, str(error))
        return redirect("humanstudy:progress")
    return redirect("play", session_id=session.pk)


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
