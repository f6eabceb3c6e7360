"""``python -m benchmark.fake_llm``: a model anyone can run the runners against without an
API. Started as a user starts it (a separate process on a port), it serves the runner's
KUMO games through to stored, scored runs and answers family tasks in their forms."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from benchmark.fake_llm import FakeRequest, GuessingScript
from benchmark.llm import ChatClient
from benchmark.models import EvaluationGame, EvaluationRun

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli_server() -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmark.fake_llm", "--port", "0", "--seed", "7"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert "listening at http://127.0.0.1:" in line, line
        yield line.split("listening at ", 1)[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_command_line_model_plays_kumo_games_through_the_runner(cli_server, evaluate):
    out, _ = evaluate("--model", "guesser", "--base-url", cli_server, "--runs", "2")
    run = EvaluationRun.objects.get(model="guesser")
    games = EvaluationGame.objects.filter(run=run)
    assert games.count() == run.finished_games > 0
    # It guesses: some actions, then a truth; never a parse error.
    assert all(game.parse_errors == 0 for game in games)
    assert "guesser" in out


def test_the_command_line_model_answers_family_tasks_in_their_forms(cli_server):
    reply = ChatClient(cli_server, "any").chat([{"role": "user", "content": "What is 2+2?"}])
    assert "\nMove: " in reply.content and "\nAnswer: " in reply.content
    assert reply.total_tokens > 0


def test_guesses_repeat_for_the_same_conversation_and_seed():
    request = FakeRequest(
        0, "/v1/chat/completions", {}, b"", {"messages": [{"role": "user", "content": "x"}]}
    )
    assert GuessingScript(3)(request).content == GuessingScript(3)(request).content
