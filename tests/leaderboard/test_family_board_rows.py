"""The family board's stored rows: built by the board's recompute job from the attempts
that count (the runner's, ranked attempts of closed rounds, the study's analysis sample),
never from visitors' or accounts' own play, never from a live round; read by every page in
a pinned number of queries."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from engine import families
from engine.models import FamilyAttempt, FamilyTask, Visitor
from humanstudy.models import Participant, TaskSet, TaskSetItem
from leaderboard import rounds
from leaderboard.family_board import family_rows
from leaderboard.models import (
    FamilyBoardRow,
    FamilyStaleGroup,
    ModelEntry,
    RankedFamilyAttempt,
    Round,
    RoundFamilyTask,
)
from tests.rounds.helpers import prepare

pytestmark = pytest.mark.django_db(transaction=True)

BOARD_PAGES = (
    "/leaderboard/families/",
    "/leaderboard/profile/",
    "/leaderboard/",
    "/leaderboard/board.json",
    "/leaderboard/rounds/",
    "/api/v1/leaderboard/",
)


def _runner(*args: str) -> str:
    out = StringIO()
    call_command("run_family_tasks", *args, stdout=out)
    return out.getvalue()


def _answered(user, task: FamilyTask, *, right: bool = True) -> FamilyAttempt:
    """``user``'s attempt at ``task``, answered through the attempt service."""
    attempt, _ = families.start_attempt(user, task)
    answer = task.hidden["answer"] if right else task.hidden["answer"] + 1
    return families.answer_attempt(attempt.pk, user, str(answer))


def _participant(user, tasks: list[FamilyTask], *, selected=True, flagged=False) -> Participant:
    task_set = TaskSet.objects.create(name=f"set-{user.username}")
    for position, task in enumerate(tasks):
        TaskSetItem.objects.create(task_set=task_set, family_task=task, position=position)
    return Participant.objects.create(
        user=user, task_set=task_set, selected_for_analysis=selected, flagged=flagged
    )


def _math(count: int, seed: int = 0) -> list[FamilyTask]:
    return families.do_generate_family_tasks(
        "simple", "math", count=count, seed=seed, level="easy"
    ).tasks


def test_a_finished_attempt_marks_its_group_and_the_job_writes_the_rows(make_user, rebuild_board):
    tasks = _math(2)
    _answered(make_user("walker"), tasks[0])
    # The answer marked its group; no row yet, the page shows nothing of it.
    assert list(FamilyStaleGroup.objects.values_list("family", "kind", "level")) == [
        ("simple", "math", "easy")
    ]
    assert not FamilyBoardRow.objects.exists()
    assert "Practice (unverified)" not in Client().get("/leaderboard/families/").content.decode()

    report = rebuild_board()
    assert report["family_groups"] == 1 and report["family_rows"] == 1
    assert not FamilyStaleGroup.objects.exists()
    row = FamilyBoardRow.objects.get()
    assert (row.player, row.player_kind, row.verified, row.attempts) == (
        "Practice (unverified)",
        "practice",
        False,
        1,
    )
    # Running the job again changes nothing; the nightly full run builds the same rows.
    assert rebuild_board()["family_rows"] == 0
    before = list(FamilyBoardRow.objects.values("player", "attempts", "correct", "ci_low"))
    rebuild_board(full=True)
    assert list(FamilyBoardRow.objects.values("player", "attempts", "correct", "ci_low")) == (
        before
    )
    # The runner's run recomputes at its end: its rows are there at once.
    _runner("--model", "reference", "--kind", "math", "--level", "easy", "--count", "2")
    reference = FamilyBoardRow.objects.get(player="reference")
    assert reference.verified and reference.player_kind == "baseline"
    assert reference.attempts == 2 and reference.success_rate == 1.0


def test_only_the_study_analysis_sample_is_people(make_user, rebuild_board):
    tasks = _math(4)
    chosen = make_user("chosen")
    _participant(chosen, tasks[:2])
    for task in tasks[:2]:
        _answered(chosen, task)
    _answered(chosen, tasks[2])  # not in the participant's set: practice
    flagged = make_user("flagged")
    _participant(flagged, tasks[:2], flagged=True)
    _answered(flagged, tasks[0])
    unselected = make_user("unselected")
    _participant(unselected, tasks[:2], selected=False)
    _answered(unselected, tasks[1], right=False)
    # A visitor's guest account and an ordinary account.
    guest = make_user("visitor-0123456789abcdef")
    Visitor.objects.create(user=guest)
    _answered(guest, tasks[3])
    _answered(make_user("account"), tasks[3])
    rebuild_board()

    people = FamilyBoardRow.objects.get(verified=True)
    assert (people.player, people.player_kind, people.attempts, people.correct) == (
        "People",
        "people",
        2,
        2,
    )
    practice = FamilyBoardRow.objects.get(verified=False)
    assert (practice.attempts, practice.correct) == (5, 4)
    profile = Client().get("/leaderboard/profile/").content.decode()
    assert re.search(r'data-player="People"', profile)

    # Deselected (the quality filter flags the participant): out of "People" at once.
    from humanstudy.actions import refresh_human_baseline

    Participant.objects.filter(user=chosen).update(selected_for_analysis=False)
    refresh_human_baseline()
    assert not FamilyBoardRow.objects.filter(verified=True).exists()
    assert FamilyBoardRow.objects.get(verified=False).attempts == 7


def test_guests_never_reach_a_verified_or_people_row(orchard, rebuild_board):
    tasks = _math(3)
    client = Client()
    assert client.post("/play/", {"level": "easy"}, REMOTE_ADDR="203.0.113.9").status_code == 302
    guest = Visitor.objects.get().user
    for _ in tasks:
        start = client.post(
            "/families/play/", {"family": "simple", "kind": "math", "level": "easy"}
        )
        attempt_id = int(re.fullmatch(r"/families/attempts/(\d+)/", start["Location"])[1])
        attempt = FamilyAttempt.objects.select_related("task").get(pk=attempt_id)
        client.post(start["Location"], {"answer": str(attempt.task.hidden["answer"])})
    assert FamilyAttempt.objects.filter(player=guest, correct=True).count() == 3
    rebuild_board(full=True)
    assert not FamilyBoardRow.objects.filter(verified=True).exists()
    assert FamilyBoardRow.objects.get().player == "Practice (unverified)"
    board = Client().get("/leaderboard/families/").content.decode()
    assert 'data-player="People"' not in board and 'id="family-board"' not in board
    assert 'id="practice-board"' in board
    profile = Client().get("/leaderboard/profile/").content.decode()
    assert 'data-player="People"' not in profile and "No results yet" in profile


def test_the_board_page_reads_stored_rows_in_a_fixed_number_of_queries(
    make_user, rebuild_board, django_assert_num_queries
):
    runner = make_user("runner")
    kinds = ("math", "counting", "logic")

    def played(models: list[str]) -> None:
        for kind in kinds:
            for task in families.do_generate_family_tasks(
                "simple", kind, count=3, level="easy"
            ).tasks:
                for model in models:
                    FamilyAttempt.objects.get_or_create(
                        player=runner,
                        task=task,
                        model_name=model,
                        defaults={"finished_at": timezone.now(), "correct": True, "value": 1.0},
                    )
        rebuild_board(full=True)

    played(["m1"])
    # The rounds with results, the families with rows, one family's rows, the practice rows.
    with django_assert_num_queries(4):
        assert Client().get("/leaderboard/families/").status_code == 200
    played(["m1", "m2", "m3", "m4", "m5"])
    assert FamilyBoardRow.objects.count() == 15
    with django_assert_num_queries(4):
        page = Client().get("/leaderboard/families/")
    assert page.content.decode().count('data-player="m5"') == 3
    # The profile: KUMO's rows and the family rows, the entries, external scores.
    with django_assert_num_queries(4):
        assert Client().get("/leaderboard/profile/").status_code == 200


@pytest.fixture
def clock(time_machine):
    time_machine.move_to(datetime(2025, 1, 1, 9, 0, tzinfo=UTC), tick=False)

    def move_to(year: int, month: int, day: int) -> None:
        time_machine.move_to(datetime(year, month, day, 9, 0, tzinfo=UTC), tick=False)

    return move_to


@pytest.fixture
def grove(orchard, small_domain_data):
    from engine.actions import do_import_domain
    from engine.core.families.kumo.domain_io import domain_from_json

    row, _ = do_import_domain(domain_from_json(small_domain_data), source="json", name="grove")
    return row


def _pages(client: Client, extra: list[str]) -> dict[str, str]:
    found = {}
    for url in [*BOARD_PAGES, *extra]:
        response = client.get(url)
        assert response.status_code == 200, url
        found[url] = response.content.decode()
    return found


def test_a_live_rounds_results_leave_no_trace_on_any_board(clock, grove, make_user, rebuild_board):
    """The attack: answer a live round's pinned task (as a guest, an account, the runner)
    and play a ranked attempt, then read every board page and API: nothing changed."""
    prepare("2025-01", "grove", "4x6", 1, 500, "--family-task", "simple/math/easy:2")
    target = Round.objects.get(name="2025-01")
    rounds.do_rotate(target=target)  # live
    model = ModelEntry.objects.create(name="ranked-one", provider="test")
    operator = make_user("operator")
    anonymous = Client()
    extra = [
        "/leaderboard/families/?round=2025-01",
        f"/leaderboard/models/{model.pk}/",
    ]
    before = _pages(anonymous, extra)
    assert 'id="live-round-note"' in before["/leaderboard/families/?round=2025-01"]

    pinned = list(
        FamilyTask.objects.filter(
            pk__in=RoundFamilyTask.objects.filter(round=target).values("task_id")
        )
    )
    # A visitor's guest account (made by a practice game) answers a pinned task rightly: a
    # live round's pinned tasks are playable by anyone (practice draws never offer them,
    # but a task listed by the API can be started), with their answers kept secret.
    guest_client = Client()
    guest_client.post("/play/", {"level": "easy"}, REMOTE_ADDR="203.0.113.9")
    guest = Visitor.objects.get().user
    attempt = _answered(guest, pinned[0], right=True)
    assert attempt.correct is True
    page = f"/families/attempts/{attempt.pk}/"
    _answered(make_user("account"), pinned[1], right=False)
    _runner("--model", "reference", "--family", "simple", "--kind", "math", "--round", "2025-01")
    ranked_task = families.do_generate_family_tasks(
        "simple", "math", count=1, seed=987_654, level="easy", origin=FamilyTask.Origin.RANKED
    ).tasks[0]
    ranked_attempt = FamilyAttempt.objects.create(
        player=operator,
        task=ranked_task,
        model_name=model.name,
        finished_at=timezone.now(),
        answer="1",
        correct=True,
        value=1.0,
    )
    RankedFamilyAttempt.objects.create(
        round=target, model=model, family="simple", kind="math", level="easy", number=1,
        task=ranked_task, attempt=ranked_attempt,
    )  # fmt: skip
    rebuild_board()
    rebuild_board(full=True)
    assert not FamilyBoardRow.objects.exists()
    after = _pages(anonymous, extra)
    for url, page in before.items():
        assert after[url] == page, f"{url} changed while the round is live"
    # Even to the one who answered, the attempt keeps its result to itself.
    shown = guest_client.get(page).content.decode()
    assert "A right answer" not in shown

    # Closed and published: everything counts, under its own label.
    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"), publish=True)
    verified = {row.player: row for row in family_rows()}
    assert set(verified) == {"reference", "ranked-one"}
    assert verified["ranked-one"].model_id == model.pk and verified["ranked-one"].attempts == 1
    assert verified["reference"].attempts == 2
    by_round = {row.player for row in family_rows("2025-01")}
    assert by_round == {"reference", "ranked-one"}
    practice = family_rows("2025-01", verified=False)
    assert [(r.attempts, r.correct) for r in practice] == [(2, 1)]
    page = anonymous.get("/leaderboard/families/?round=2025-01").content.decode()
    assert 'data-player="ranked-one"' in page and 'id="round-note"' in page
    model_page = anonymous.get(f"/leaderboard/models/{model.pk}/").content.decode()
    assert 'data-family="simple"' in model_page


def test_a_closed_rounds_ranked_attempts_count_before_its_tasks_are_published(
    clock, grove, make_user, rebuild_board
):
    prepare("2025-01", "grove", "4x6", 1, 500, "--family-task", "simple/math/easy:1")
    target = Round.objects.get(name="2025-01")
    rounds.do_rotate(target=target)
    model = ModelEntry.objects.create(name="ranked-two", provider="test")
    _runner("--model", "reference", "--family", "simple", "--kind", "math", "--round", "2025-01")
    task = families.do_generate_family_tasks(
        "simple", "math", count=1, seed=4_242, level="easy", origin=FamilyTask.Origin.RANKED
    ).tasks[0]
    attempt = FamilyAttempt.objects.create(
        player=make_user("operator"), task=task, model_name=model.name,
        finished_at=timezone.now(), correct=False, value=0.0,
    )  # fmt: skip
    RankedFamilyAttempt.objects.create(
        round=target, model=model, family="simple", kind="math", level="easy", number=1,
        task=task, attempt=attempt,
    )  # fmt: skip
    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"))  # closed, not published
    # The ranked attempt counts; the pinned task's answers stay secret until publication.
    assert {row.player for row in family_rows()} == {"ranked-two"}
    target.refresh_from_db()
    rounds.do_publish(target)
    assert {row.player for row in family_rows()} == {"ranked-two", "reference"}


def test_the_board_shows_one_family_at_a_time(rebuild_board):
    _runner("--model", "reference", "--kind", "math", "--level", "easy", "--count", "2")
    _runner("--model", "reference", "--family", "puzzles", "--kind", "sudoku", "--level",
            "easy", "--count", "1")  # fmt: skip
    first = Client().get("/leaderboard/families/").content.decode()
    # The first family by name unless chosen; the others one choice away.
    assert 'data-kind="sudoku"' in first and 'data-kind="math"' not in first
    assert 'id="lr2-board"' in first and '<option value="simple">' in first
    # KUMO's games, a family too, are one link away: their rows are the KUMO board's.
    assert '<a href="/leaderboard/" id="kumo-board-link">' in first
    kumo = Client().get("/leaderboard/families/?family=kumo")
    assert kumo.status_code == 302 and kumo["Location"] == "/leaderboard/"
    # The board's API says where KUMO's rows are instead of an empty list.
    api = Client().get("/api/v1/family-leaderboard/?family=kumo")
    assert api.status_code == 400 and "/api/v1/leaderboard/" in api.json()["fields"]["family"]
    simple = Client().get("/leaderboard/families/?family=simple").content.decode()
    assert 'data-kind="math"' in simple and 'id="lr2-board"' not in simple
    assert Client().get("/leaderboard/families/?family=nope").status_code == 404


def test_an_attempt_finishing_while_the_job_runs_keeps_its_mark(
    monkeypatch, make_user, rebuild_board
):
    from leaderboard import family_recompute

    tasks = _math(2)
    _answered(make_user("early"), tasks[0])
    build = family_recompute.family_board_rows

    def meanwhile(groups):
        rows = build(groups)
        _answered(make_user("late"), tasks[1])  # finishes after the job read the attempts
        return rows

    monkeypatch.setattr(family_recompute, "family_board_rows", meanwhile)
    rebuild_board()
    # The job claimed only the mark it saw: the newer one waits for the next run.
    assert FamilyBoardRow.objects.get().attempts == 1
    assert FamilyStaleGroup.objects.count() == 1
    monkeypatch.undo()
    rebuild_board()
    assert FamilyBoardRow.objects.get().attempts == 2
    assert not FamilyStaleGroup.objects.exists()
