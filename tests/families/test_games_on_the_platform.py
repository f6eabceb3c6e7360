"""Games on the platform: played move by move over the API (the state stays on the
server, refused moves counted with their reason, one move per request under a lock), the
runner playing a chat model behind the local fake server turn by turn and the reference
player through every game, and rows per game on the family board."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine import families
from engine.core.families.base import get_family
from engine.core.families.games.common import DIMENSIONS
from engine.models import FamilyAttempt
from leaderboard.dimension_board import dimension_rows
from leaderboard.family_board import family_rows

pytestmark = pytest.mark.django_db(transaction=True)
GAMES = get_family("games")


@pytest.fixture
def api(make_user):
    user = make_user("gamer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    client.user = user
    return client


def test_a_game_over_the_api_move_by_move(api):
    task = families.do_generate_family_tasks("games", "mastermind", count=1, level="easy").tasks[0]
    code = task.hidden["code"]
    started = api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    assert started["interactive"] and started["moves"] == []
    url = f"/api/v1/family-attempts/{started['id']}/moves/"
    bad = api.post(url, {"move": "XYZ"}, format="json")
    assert bad.status_code == 400 and "a guess is 3 letters" in bad.json()["error"]
    refused_answer = api.post(
        f"/api/v1/family-attempts/{started['id']}/answer/", {"answer": code}, format="json"
    )
    assert refused_answer.status_code == 400 and "move by move" in refused_answer.json()["error"]
    for move in GAMES.reference_answer(task.to_core()).splitlines():
        state = api.post(url, {"move": move}, format="json")
        assert state.status_code == 200
        body = state.json()
        if not body["finished"]:
            assert code not in json.dumps(body)  # the code never travels before the end
    assert body["finished"] and body["result"]["correct"] and body["invalid_moves"] == 1
    assert body["moves"][-1]["observation"]["black"] == 3
    assert api.post(url, {"move": code}, format="json").status_code == 409
    attempt = FamilyAttempt.objects.get(pk=started["id"])
    assert attempt.details["invalid_moves"] == 1
    assert attempt.played_moves() == body["result"]["answer"].split("\n")
    steps = list(attempt.steps.order_by("index"))
    assert [s.accepted for s in steps].count(False) == 1
    assert [s.move for s in steps if s.accepted] == attempt.played_moves()


@pytest.mark.parametrize("kind", sorted(GAMES.kinds))
def test_the_reference_player_through_every_game(kind):
    out = StringIO()
    call_command(
        "run_family_tasks", "--family", "games", "--kind", kind, "--model", "reference",
        "--count", "2", stdout=out,
    )  # fmt: skip
    assert "2 played, 2 correct, 0 parse error(s)" in out.getvalue()
    rows = [r for r in family_rows() if r.family == "games" and r.kind == kind]
    assert rows and rows[0].success_rate == 1.0


def test_a_chat_model_plays_turn_by_turn_behind_the_fake_server():
    tasks = families.do_generate_family_tasks("games", "hanoi", count=1, level="easy").tasks
    task = tasks[0]
    plan = GAMES.reference_answer(task.to_core()).splitlines()
    seen: list[list[dict]] = []

    def script(request):
        messages = request.messages
        seen.append(messages)
        played = sum(
            1 for m in messages if m["role"] == "user" and m["content"].startswith("Result:")
        )
        if len(messages) == 1:
            return FakeResponse(content="Thinking about the pegs.")  # no move: a parse error
        if len(seen) == 2:
            return FakeResponse(content="Move: A A")  # refused: two different pegs
        return FakeResponse(content=f"Next.\nMove: {plan[played]}")

    with FakeChatServer(script) as server:
        out = StringIO()
        call_command(
            "run_family_tasks", "--family", "games", "--kind", "hanoi", "--level", "easy",
            "--model", "turn-taker", "--base-url", server.base_url, "--count", "1",
            "--concurrency", "1", stdout=out,
        )  # fmt: skip
    attempt = FamilyAttempt.objects.get(model_name="turn-taker")
    assert attempt.correct and attempt.value == 1.0 and attempt.played_moves() == plan
    assert attempt.invalid_moves == 1 and attempt.details["parse_errors"] == 1
    assert attempt.tokens > 0
    # Every move it sent is a step: the refused one too, with its reason, in order.
    steps = list(attempt.steps.order_by("index"))
    assert [(s.move, s.accepted) for s in steps] == [("A A", False)] + [(m, True) for m in plan]
    assert steps[0].error and steps[0].client is None
    # Every reply is a turn: the one without a move, the refused move, then the plan.
    turns = attempt.turns
    assert len(turns) == 2 + len(plan) and turns[0]["read"] is None and turns[0]["error"]
    assert turns[0]["reply"] == "Thinking about the pegs."
    assert turns[1]["read"] == "A A" and turns[1]["error"].startswith("refused: ")
    assert [t["read"] for t in turns[2:]] == plan and not any(t["error"] for t in turns[2:])
    assert sum(t["tokens"]["prompt"] + t["tokens"]["completion"] for t in turns) == attempt.tokens
    assert [s.created_at for s in steps] == sorted(s.created_at for s in steps)
    # The model only ever saw the rules, its own replies and the observations.
    last = seen[-1]
    assert any("Not allowed" in m["content"] for m in last if m["role"] == "user")
    assert not any(re.search(r"optimum", m["content"]) for m in last)


@pytest.mark.parametrize("path", ["move", "expiry"])
def test_a_game_whose_time_ran_out_scores_the_moves_made(make_user, path):
    """Past its deadline a game ends with the moves made before it, scored as the game
    scores them, whether a late move or the sweep of overdue attempts ends it."""
    player = make_user(f"late-{path}")
    task = families.do_generate_family_tasks("games", "hanoi", count=1, level="easy").tasks[0]
    attempt, _ = families.start_attempt(player, task)
    moves = GAMES.reference_answer(task.to_core()).splitlines()
    families.move_attempt(attempt.pk, player, moves[0])
    attempt.refresh_from_db()
    attempt.deadline_at = attempt.started_at + timedelta(seconds=30)
    attempt.save(update_fields=["deadline_at"])
    with time_machine.travel(attempt.deadline_at + timedelta(seconds=1)):
        if path == "move":
            with pytest.raises(families.AttemptTimeUp):
                families.move_attempt(attempt.pk, player, moves[1])
        else:
            assert families.expire_overdue_attempts(player) == 1
    attempt.refresh_from_db()
    assert attempt.finished_at == attempt.deadline_at and attempt.played_moves() == moves[:1]
    assert attempt.answer == moves[0] and attempt.correct is False and attempt.value == 0.0
    assert attempt.details["moves"] == 1 and attempt.details["dimension"] == "mathematical_logical"


def test_chat_models_through_every_game_give_rows_per_game_and_dimension():
    """Two chat models behind the local fake server play every game (``--kind all``): one
    replays the reference moves, reading only the prompts it is sent; the other never
    names a move. Every game gets its rows, and both get KORGym dimension figures."""
    plans = {}
    for kind in sorted(GAMES.kinds):
        task = families.do_generate_family_tasks("games", kind, count=1, level="easy").tasks[0]
        plans[task.public["text"]] = GAMES.reference_answer(task.to_core()).splitlines()

    def script(request):
        messages = request.messages
        if request.body.get("model") == "fumbler":
            return FakeResponse(content="I am not sure what to do.")
        plan = next(p for text, p in plans.items() if messages[0]["content"].startswith(text))
        played = sum(
            1 for m in messages if m["role"] == "user" and m["content"].startswith("Result:")
        )
        return FakeResponse(content=f"Move: {plan[played]}")

    with FakeChatServer(script) as server:
        for model in ("replayer", "fumbler"):
            out = StringIO()
            call_command(
                "run_family_tasks", "--family", "games", "--kind", "all", "--level", "easy",
                "--model", model, "--base-url", server.base_url, "--count", "1",
                "--concurrency", "1", stdout=out,
            )  # fmt: skip
            assert out.getvalue().count("1 played") == len(GAMES.kinds)
    rows = {(r.player, r.kind): r for r in family_rows() if r.family == "games"}
    for kind in GAMES.kinds:
        assert rows[("replayer", kind)].success_rate == 1.0
        assert rows[("fumbler", kind)].success_rate == 0.0
        assert rows[("fumbler", kind)].parse_error_rate == 1.0
    dimensions = {row.player: row for row in dimension_rows()}
    assert dimensions["replayer"].games == dimensions["fumbler"].games == len(GAMES.kinds)
    assert dimensions["replayer"].overall == 1.0 and dimensions["fumbler"].overall == 0.0
    covered = {game.dimension for game in GAMES.games.values()}
    assert dimensions["replayer"].dimensions == {
        name: 1.0 if name in covered else None for name in DIMENSIONS
    }
    page = Client().get("/leaderboard/families/").content.decode()
    assert '<tr data-player="replayer" data-level="easy">' in page


@pytest.mark.parametrize("kind", sorted(GAMES.kinds))
def test_every_game_has_a_page_to_play_it_on(make_user, play_family, kind):
    """Each game's page: the rules, the board as the server draws it, a move box, and the
    keys the game takes; never a secret of the game (checked where it is a string)."""
    player = make_user(f"page-{kind}")
    client = Client()
    client.force_login(player)
    page = client.get(play_family(client, "games", kind)).content.decode()
    attempt = FamilyAttempt.objects.get(player=player)
    public, hidden = attempt.task.public, attempt.task.hidden
    assert 'id="move"' in page and 'id="family-submit"' in page
    assert ('id="game-view"' in page) == ("view" in public)
    assert ('id="game-keys"' in page) == bool(GAMES.keys(kind))
    # The page less what the task says in public: its rules may hold a short secret by
    # chance ("write a guess like RGB" when Mastermind's code is RGB).
    rest = page
    for text in public.values():
        if isinstance(text, str) and text:
            rest = rest.replace(escape(text), "")
    for secret in ("secret", "code", "solution"):
        if isinstance(hidden.get(secret), str):
            # As a word of its own, not inside a random token (the CSRF token's letters).
            shown = rf"(?<![A-Za-z0-9]){re.escape(hidden[secret])}(?![A-Za-z0-9])"
            assert re.search(shown, rest) is None, hidden[secret]


def test_staff_browse_every_attempt_read_only_with_its_moves_and_replies(api, make_user):
    """The admin shows a game's moves as sent (refused ones with their reason) and a model's
    every reply, escaped; nobody adds, edits or deletes an attempt there, and only staff
    see it."""
    task = families.do_generate_family_tasks("games", "mastermind", count=1, level="easy").tasks[0]
    started = api.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    url = f"/api/v1/family-attempts/{started['id']}/moves/"
    api.post(url, {"move": "<b>bold</b>"}, format="json")  # refused, and never markup
    api.post(url, {"move": task.hidden["code"]}, format="json")
    call_command(
        "run_family_tasks", "--family", "games", "--kind", "mastermind", "--level", "easy",
        "--model", "reference", "--count", "1", stdout=StringIO(),
    )  # fmt: skip
    staff = Client()
    staff.force_login(make_user("operator"))
    assert staff.get("/admin/engine/familyattempt/").status_code == 302  # not staff
    boss = Client()
    boss.force_login(
        type(api.user).objects.create_superuser("boss", "boss@example.org", "pw-boss-1")
    )
    listed = boss.get("/admin/engine/familyattempt/").content.decode()
    assert "gamer" in listed and "reference" in listed
    page = boss.get(f"/admin/engine/familyattempt/{started['id']}/change/").content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    assert task.hidden["code"] in page and 'name="_save"' not in page  # read-only
    assert boss.post(f"/admin/engine/familyattempt/{started['id']}/delete/").status_code == 403
    assert FamilyAttempt.objects.filter(pk=started["id"]).exists()
    task_page = boss.get(f"/admin/engine/familytask/{task.pk}/change/").content.decode()
    assert "hidden" in task_page
