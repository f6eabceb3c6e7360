"""KORGym's games on the platform: every game played by the runner behind the local fake
server as KORGym plays it (each turn a new conversation holding the current board), by the
reference player, and on its own page in the browser's form, with no secret in the page."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils.html import escape

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine import families
from engine.core.families.base import get_family
from engine.models import FamilyAttempt

KORGYM = get_family("korgym")
KINDS = sorted(KORGYM.kinds)


@pytest.mark.parametrize("kind", KINDS)
def test_the_reference_wins_every_game(kind):
    for seed in (0, 1, 2):
        instance = KORGYM.generate(kind, seed, level="korgym")
        plan = KORGYM.reference_answer(instance).splitlines()
        history: list[str] = []
        for action in plan:
            over = KORGYM.step(instance, history, action)["over"]
            history.append(action)
            if over:
                break
        score = KORGYM.finish(instance, history)
        assert score.correct and score.value == 1.0, (kind, seed, score)


# Every game through the runner: the games' logic over every kind; the runner's storage on
# PostgreSQL is checked by the runner's own tests.
@pytest.mark.backend_neutral
@pytest.mark.django_db(transaction=True)
def test_chat_models_play_every_game_turn_by_turn_as_korgym_does():
    """A model that plays the reference's actions, reading only the board it is sent, wins
    every game; one that never writes "Answer:" wins none and every reply is a parse error.
    Every request holds one message: the current board alone."""
    plans: dict[str, list[str]] = {}
    for kind in KINDS:
        task = families.do_generate_family_tasks("korgym", kind, count=1, level="korgym").tasks[0]
        plans[task.public["text"]] = KORGYM.reference_answer(task.to_core()).splitlines()
    playing = {"plan": [], "turn": 0}

    def script(request):
        assert len(request.messages) == 1 and request.messages[0]["role"] == "user"
        if request.body.get("model") == "fumbler":
            return FakeResponse(content="I would rather not say.")
        board = request.messages[0]["content"]
        if board in plans:
            playing["plan"], playing["turn"] = plans[board], 0
        else:
            playing["turn"] += 1
        return FakeResponse(content=f"Thinking.\nAnswer: {playing['plan'][playing['turn']]}")

    with FakeChatServer(script) as server:
        for model in ("replayer", "fumbler"):
            out = StringIO()
            call_command(
                "run_family_tasks", "--family", "korgym", "--kind", "all", "--level", "korgym",
                "--model", model, "--base-url", server.base_url, "--count", "1",
                "--concurrency", "1", stdout=out,
            )  # fmt: skip
    for kind in KINDS:
        won = FamilyAttempt.objects.get(model_name="replayer", task__kind=kind)
        assert won.correct and won.value == 1.0, kind
        assert [t["read"] for t in won.turns] == won.played_moves(), kind  # every reply kept
        lost = FamilyAttempt.objects.get(model_name="fumbler", task__kind=kind)
        assert not lost.correct and lost.parse_error, kind
        assert lost.turns and all(t["error"] and not t["read"] for t in lost.turns), kind


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", KINDS)
def test_every_game_has_a_page_with_its_board_and_no_secret(make_user, play_family, kind):
    client = Client()
    client.force_login(make_user("player"))
    page_url = play_family(client, "korgym", kind, level="korgym")
    page = client.get(page_url).content.decode()
    attempt = FamilyAttempt.objects.get(pk=int(page_url.rstrip("/").rsplit("/", 1)[1]))
    first_line = next(line for line in attempt.task.public["text"].splitlines() if line.strip())
    assert escape(first_line) in page
    assert 'name="move"' in page
    secret = attempt.task.hidden["item"].get("correct_answer")
    if isinstance(secret, str) and len(secret) > 3:
        assert secret not in page
