"""KUMO's games named as a family wherever the operator names tasks as FAMILY/KIND/LEVEL: a
round's ``kumo/DOMAIN/LEVEL:COUNT`` entry is prepared, pinned, kept secret and ranked as the
round's own domains and settings are; a study's ``kumo/DOMAIN/LEVEL`` adds one more secret
KUMO game to every task set. Refusals name the reason."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.models import Instance
from leaderboard import rounds
from leaderboard.models import RankedGame, Round
from tests.rounds.helpers import prepare, run

pytestmark = pytest.mark.django_db(transaction=True)


def _refused(*extra: str) -> str:
    with pytest.raises(CommandError) as error:
        prepare("2025-02", "grove", "4x6", 1, 800, *extra)
    return str(error.value)


def test_a_round_takes_kumo_games_as_family_tasks(clock, grove, researcher):
    # Refused, each with its reason, and nothing is stored.
    assert "already in the round's domains and settings" in _refused(
        "--family-task", "kumo/grove/easy:2"
    )
    assert "domain orchard is too small for level hard" in _refused(
        "--family-task", "kumo/orchard/hard:1"
    )
    assert "no domain 'nowhere'" in _refused("--family-task", "kumo/nowhere/easy:1")
    assert "one of easy, hard" in _refused("--family-task", "kumo/orchard/giant:1")
    assert "count must be 1 to" in _refused("--family-task", "kumo/orchard/easy:0")
    assert not Round.objects.exists()

    prepare("2025-01", "grove", "4x6", 1, 500, "--family-task", "kumo/orchard/easy:2",
            "--ranked-games", "1")  # fmt: skip
    target = Round.objects.get(name="2025-01")
    assert target.status == Round.Status.PREPARED and target.total_instances == 3
    assert target.family_specs == [
        {"family": "kumo", "kind": "orchard", "level": "easy", "count": 2, "truths": 4,
         "actions": 6}
    ]  # fmt: skip
    assert target.kumo_cells() == [("grove", 4, 6), ("orchard", 4, 6)]
    pinned = Instance.objects.filter(rounds=target, domain__name="orchard")
    # The round's secret seeds, as its own domains' instances get them.
    assert sorted(pinned.values_list("seed", flat=True)) == sorted(
        rounds.round_seeds(target, "orchard", "4x6", "", 2)
    )
    assert {(i.n_truths, i.n_actions) for i in pinned} == {(4, 6)}

    # Not live: hidden; live: listed without their seeds.
    listed = {row["id"]: row for row in researcher.get("/api/v1/instances/").json()["results"]}
    assert not set(pinned.values_list("pk", flat=True)) & set(listed)
    rounds.do_rotate(target=target)
    listed = {row["id"]: row for row in researcher.get("/api/v1/instances/").json()["results"]}
    assert all(listed[pk]["seed"] is None for pk in pinned.values_list("pk", flat=True))
    assert "kumo/orchard/easy: 2" in run("round_status")

    # Ranked games of the entry, through either ranked endpoint; its level only.
    ask = {"model": "climber", "family": "kumo", "kind": "orchard", "level": "easy"}
    started = researcher.post("/api/v1/ranked-family-attempts/", ask, format="json")
    assert started.status_code == 201, started.json()
    game = RankedGame.objects.get(session_id=started.json()["session"])
    assert (game.domain.name, game.round) == ("orchard", target)
    other = {"model": "climber", "domain": "orchard", "truths": 5, "actions": 4}
    refused = researcher.post("/api/v1/ranked-games/", other)
    assert refused.status_code == 400 and "no setting 5x4 for orchard" in refused.json()["error"]

    # The board of the round offers the entry's domain; the rounds page lists the entry.
    page = APIClient().get("/leaderboard/?round=2025-01").content.decode()
    assert 'value="orchard"' in page
    page = APIClient().get("/leaderboard/rounds/").content.decode()
    assert '<td class="family-tasks">kumo/orchard/easy × 2</td>' in page


def test_the_runner_plays_a_rounds_kumo_entry_as_ranked_games(clock, grove, admin_user):
    prepare("2025-01", "grove", "5x4", 1, 500, "--family-task", "kumo/orchard/easy:1",
            "--ranked-games", "1")  # fmt: skip
    target = Round.objects.get(name="2025-01")
    assert target.kumo_settings() == [(5, 4), (4, 6)]
    rounds.do_rotate(target=target)
    out = StringIO()
    call_command(
        "evaluate", "--model", "oracle", "--domains", "orchard", "--truths", "4", "--actions",
        "6", "--ranked", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    game = RankedGame.objects.get()
    assert game.domain.name == "orchard" and game.session.finished and game.session.correct
    # The round has 5x4 games of grove only, and 4x6 games of orchard only.
    with pytest.raises(CommandError, match="has no 5x4 games of orchard"):
        call_command(
            "evaluate", "--model", "oracle", "--domains", "orchard", "--truths", "5",
            "--actions", "4", "--ranked", stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    with pytest.raises(CommandError, match=r"has no setting 6x6 \(its settings: 5/4, 4/6\)"):
        call_command(
            "evaluate", "--model", "oracle", "--domains", "grove", "--truths", "6",
            "--actions", "6", "--ranked", stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    page = APIClient().get("/leaderboard/?round=2025-01&setting=4x6").content.decode()
    assert page.count('value="orchard"') == 1 and 'value="grove"' in page


def test_a_study_set_takes_one_more_kumo_game(orchard):
    from humanstudy.actions import build_task_sets
    from humanstudy.models import StudySettings

    config = StudySettings.current()
    config.domains = ["orchard"]
    config.hard_truths, config.hard_actions = 6, 7
    config.save()
    with pytest.raises(CommandError, match="domain orchard is too small for level hard"):
        call_command("build_task_sets", "--count", "1", "--family-task", "kumo/orchard/hard")
    (made,) = build_task_sets(1, seed=4, family_tasks=["kumo/orchard/easy"])
    instances = [item.instance for item in made.items.select_related("instance")]
    assert sorted((i.n_truths, i.n_actions) for i in instances) == [(4, 6), (4, 6), (6, 7)]
    assert {i.source for i in instances} == {Instance.Source.STUDY}
    assert len({i.seed for i in instances}) == 3
    user = make_token_user()
    listed = {row["id"] for row in user.get("/api/v1/instances/").json()["results"]}
    assert not listed & {i.pk for i in instances}


def make_token_user() -> APIClient:
    from django.contrib.auth.models import User

    api = APIClient()
    user = User.objects.create_user("someone", password="a long password here")
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api
