"""KUMO's games are one family among the others in the catalogue (the API's and the
/families/ page's): a kind per domain a practice game may use, at the levels the domain is
big enough for, each with the endpoint that starts an attempt; the page starts a KUMO game
with the same form as every other family's (as KUMO's own Play entry starts it)."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from engine.family_practice import run_family_practice_request
from engine.models import Domain, Instance, PlaySession
from engine.practice import LEVELS

pytestmark = pytest.mark.django_db

RANKED_GAME_STARTED = {
    "session", "number", "of", "round", "model", "domain", "n_truths", "n_actions",
    "truths", "actions", "knowledge_book",
}  # fmt: skip
MEDICAL = Path(__file__).resolve().parents[2] / "engine" / "domains" / "medical.json"


def test_kumos_games_are_a_family_of_the_catalogue(researcher):
    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    body = Client().get("/api/v1/families/").json()
    names = [family["name"] for family in body]
    assert names == sorted(names) and "kumo" in names and "simple" in names
    kumo = next(family for family in body if family["name"] == "kumo")
    assert kumo["play"] == "/api/v1/sessions/"
    assert {f["play"] for f in body if f["name"] != "kumo"} == {"/api/v1/family-attempts/"}
    kinds = {kind["name"]: kind for kind in kumo["kinds"]}
    both = {level: {"truths": t, "actions": a} for level, (t, a) in LEVELS.items()}
    assert kinds["medical"]["levels"] == both
    assert kinds["medical"]["answer_format"] == "the name of one truth"
    assert {p["name"] for p in kinds["medical"]["parameters"]} == {"truths", "actions"}
    # The small domain has only the levels it is big enough for (none: it is not listed).
    small = Domain.objects.get(name="orchard")
    fits = {
        level: setting
        for level, setting in both.items()
        if small.truth_count >= setting["truths"] and small.action_count >= setting["actions"]
    }
    assert kinds.get("orchard", {}).get("levels", {}) == fits
    # Its games are listed where they are stored, and the family list says where.
    listed = researcher.get("/api/v1/family-tasks/?family=kumo")
    assert listed.status_code == 400 and "/api/v1/instances/" in listed.json()["error"]
    # The task generator's list holds the families it generates, not KUMO's.
    listed = StringIO()
    call_command("generate_family_tasks", "--list", stdout=listed)
    assert '"name": "kumo"' not in listed.getvalue()


def test_the_families_page_starts_a_kumo_game_with_the_form_of_every_family():
    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    visitor = Client()
    page = visitor.get("/families/").content.decode()
    row = re.search(r'<tr data-family="kumo" data-kind="medical">.*?</tr>', page, re.S).group(0)
    other = re.search(r'<tr data-family="games" data-kind="[^"]+">.*?</tr>', page, re.S).group(0)
    form = re.compile(r'<form method="post" action="([^"]+)">')
    assert form.search(row).group(1) == form.search(other).group(1) == "/families/play/"
    assert 'name="family" value="kumo"' in row and 'name="kind" value="medical"' in row
    assert 'value="easy"' in row and 'value="hard"' in row
    wanted = {"family": "kumo", "kind": "medical", "level": "hard"}
    stored = Instance.objects.count()
    started = visitor.post("/families/play/", wanted)
    # Nothing is generated in the web request: the game is asked of a background job
    # (here not run yet: its queueing waits for a commit the test's transaction never makes).
    assert started.status_code == 302
    waiting = re.fullmatch(r"/families/practice/(\d+)/", started["Location"])
    assert waiting and Instance.objects.count() == stored and not PlaySession.objects.exists()
    page = visitor.get(started["Location"]).content.decode()
    assert "KUMO game on medical (hard)" in page and 'id="family-practice-waiting"' in page
    assert visitor.get(f"{started['Location']}status/").json()["url"] is None
    assert run_family_practice_request(int(waiting[1])).startswith("game ")
    session = PlaySession.objects.select_related("instance__domain").get()
    assert (session.instance.domain.name, session.instance.n_truths) == ("medical", 12)
    assert session.instance.source == Instance.Source.PRACTICE and session.practice_game
    assert visitor.get(f"{started['Location']}status/").json()["url"] == f"/play/{session.pk}/"
    assert visitor.get(started["Location"])["Location"] == f"/play/{session.pk}/"


def test_a_kumo_start_from_the_families_form_keeps_the_play_entrys_rules(
    orchard, settings, django_capture_on_commit_callbacks
):
    """The same service as the Play entry: an unknown domain and the hourly limit are
    refused with the Play entry's own pages and statuses. (Jobs run at commit, in-process,
    as in the embedded default: the game is ready when the request ends.)"""
    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    visitor = Client()
    unknown = visitor.post("/families/play/", {"family": "kumo", "kind": "<b>no</b>"})
    assert unknown.status_code == 400 and "<b>no</b>" not in unknown.content.decode()
    settings.VISITOR_GAMES_PER_HOUR = 1
    with django_capture_on_commit_callbacks(execute=True):
        first = visitor.post("/families/play/", {"family": "kumo", "kind": "medical"})
    # The job ran as the request committed: its waiting page goes on to the game.
    first = visitor.get(first["Location"])
    assert first.status_code == 302 and re.fullmatch(r"/play/\d+/", first["Location"])
    session = PlaySession.objects.select_related("instance").get()
    assert (session.instance.n_truths, session.instance.n_actions) == LEVELS["easy"]
    again = visitor.post("/families/play/", {"family": "kumo", "kind": "medical"})
    assert again.status_code == 429 and PlaySession.objects.count() == 1


def test_the_family_runner_plays_kumos_games_as_evaluate_does(tmp_path):
    """run_family_tasks --family kumo: the KUMO runner on the stored instances of each
    domain at the level's setting, its run verified on the board and its results file."""
    from benchmark.models import EvaluationRun

    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    call_command(
        "generate_tasks", "medical", "--truths", "4", "--actions", "6", "--count", "2",
        stdout=StringIO(),
    )  # fmt: skip
    out = StringIO()
    results = tmp_path / "kumo.jsonl"
    call_command(
        "run_family_tasks", "--family", "kumo", "--kind", "medical", "--level", "easy",
        "--model", "oracle", "--runs", "2", "--out", str(results), stdout=out,
    )  # fmt: skip
    run = EvaluationRun.objects.get()
    assert (run.model, run.n_truths, run.n_actions, run.runs) == ("oracle", 4, 6, 2)
    assert run.status == EvaluationRun.Status.DONE and run.created_by.username == "runner"
    lines = results.read_text().splitlines()
    assert len(lines) == 4  # two instances, two runs each, in KUMO's own results format
    assert all(json.loads(line)["claimed"]["correct"] for line in lines)

    def refused(*argv: str) -> str:
        with pytest.raises(CommandError) as error:
            call_command(
                "run_family_tasks", "--family", "kumo", "--model", "random", *argv,
                stdout=StringIO(),
            )  # fmt: skip
        return str(error.value)

    assert "the domains are medical" in refused("--kind", "nowhere")
    assert "one of easy, hard" in refused("--kind", "medical", "--level", "5x4")
    assert "do not apply" in refused("--kind", "medical", "--count", "3")
    assert "do not apply" in refused("--kind", "medical", "--round", "r1")
    assert EvaluationRun.objects.count() == 1


def test_the_ranked_endpoint_of_every_family_starts_a_ranked_kumo_game(researcher):
    """/api/v1/ranked-family-attempts/ takes KUMO's games as family kumo (kind: a domain,
    level: easy or hard): the same flow, quota and secrecy as /api/v1/ranked-games/."""
    from leaderboard.models import RankedGame, Round
    from tests.rounds.helpers import prepare, run

    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    prepare("live", "medical", "4x6", 1, 100, "--ranked-games", "2")
    run("rotate_round")
    ask = {"model": "climber", "family": "kumo", "kind": "medical", "level": "easy"}
    for number in (1, 2):
        started = researcher.post("/api/v1/ranked-family-attempts/", ask, format="json")
        assert started.status_code == 201, started.json()
        body = started.json()
        assert (body["family"], body["number"], body["of"]) == ("kumo", number, 2)
        assert (body["domain"], body["n_truths"], body["n_actions"]) == ("medical", 4, 6)
        game = RankedGame.objects.get(session_id=body["session"])
        assert game.round == Round.objects.get(name="live") and game.model.name == "climber"
        # What the ranked games' own endpoint tells, and nothing that names the answer.
        assert set(body) == {"family", *RANKED_GAME_STARTED}
    # The same quota as the ranked games' own endpoint: both ask one flow.
    own = {"model": "climber", "domain": "medical", "truths": 4, "actions": 6}
    assert researcher.post("/api/v1/ranked-games/", own).status_code == 409
    assert researcher.post("/api/v1/ranked-family-attempts/", ask).status_code == 409
    hard = researcher.post("/api/v1/ranked-family-attempts/", {**ask, "level": "hard"})
    assert hard.status_code == 400 and "no setting 12x16" in hard.json()["error"]
    odd = researcher.post("/api/v1/ranked-family-attempts/", {**ask, "level": "huge"})
    assert odd.status_code == 400 and "one of easy, hard" in odd.json()["error"]
    assert RankedGame.objects.count() == 2
