"""A board people can trust: verified rows, ranked games on fresh instances, owned names.

These tests play the attacks a motivated cheater would try, end to end through HTTP.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from engine.models import Instance, PlaySession
from leaderboard.models import BoardRow, ModelEntry, RankedGame, Round, Submission, Trajectory
from leaderboard.rounds import do_publish
from tests.rounds.helpers import prepare, run

pytestmark = pytest.mark.django_db(transaction=True)

RANKED = {"domain": "orchard", "truths": 5, "actions": 4}


def token_client(username: str) -> APIClient:
    out = StringIO()
    call_command("create_api_token", username, stdout=out, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    return client


@pytest.fixture
def live_round(orchard):
    """Round "live" on orchard 5x4: three pinned instances (secret seeds from 100) and
    three ranked games per model."""
    prepare("live", "orchard", "5x4", 3, 100, "--ranked-games", "3")
    run("rotate_round")
    return Round.objects.get(name="live", status=Round.Status.ACTIVE)


def upload(client: APIClient, model: str, lines: list[dict], **extra):
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    return client.post(
        "/api/v1/submissions/",
        {
            "model": model,
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("results.jsonl", content),
            **extra,
        },
        format="multipart",
    )


def perfect_lines(seeds) -> list[dict]:
    """A file claiming the valid truth of every instance with no action at all."""
    return [
        {"seed": row.seed, "run": 0, "actions": [], "answer": row.valid_truths[0]}
        for row in Instance.objects.filter(domain__name="orchard", seed__in=seeds)
    ]


def play_blind(client: APIClient, session_id: int, truths: list[str]) -> dict:
    response = client.post(
        f"/api/v1/sessions/{session_id}/answer/", {"truth": truths[0]}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_the_harvesting_attack_learns_no_answer_and_ranks_nowhere(live_round, researcher):
    attacker = researcher
    pinned = set(live_round.instances.values_list("pk", flat=True))

    # 1. List the live round's instances, open a session on each and answer blindly.
    listed = attacker.get("/api/v1/instances/", {"domain": "orchard"}).json()["results"]
    assert pinned <= {row["id"] for row in listed}
    learned = {}
    for row in listed:
        started = attacker.post("/api/v1/sessions/", {"instance": row["id"]}, format="json")
        assert started.status_code == 201
        session = started.json()
        result = play_blind(attacker, session["id"], session["truths"])
        state = attacker.get(f"/api/v1/sessions/{session['id']}/").json()
        if "valid_truth" in result:
            learned[row["id"]] = result["valid_truth"]
        if row["id"] in pinned:
            assert result["answer_secret"] is True and "valid_truth" not in result
            assert "observations" not in state and "valid_truth" not in state["result"]
            # What the end of a game may say: right or wrong, the actions, the count.
            assert {"correct", "actions_taken", "relative_action_count"} <= set(result)
    assert not pinned & set(learned), "a live round's answer leaked"

    # 2. Ranked games: fresh instances, never listed, answers kept until the round closes.
    ranked_sessions = []
    for number in (1, 2, 3):
        response = attacker.post("/api/v1/ranked-games/", {"model": "harvester", **RANKED})
        assert response.status_code == 201, response.content
        game = response.json()
        assert (game["number"], game["of"], game["round"]) == (number, 3, "live")
        result = play_blind(attacker, game["session"], game["truths"])
        assert result["ranked"] is True and result["answer_secret"] is True
        assert "valid_truth" not in result
        assert result["expected_optimal_actions"] is not None
        ranked_sessions.append(game["session"])
    # A model has exactly the declared number of ranked games: no retry, no fourth.
    again = attacker.post("/api/v1/ranked-games/", {"model": "harvester", **RANKED})
    assert again.status_code == 409 and "never replayed" in again.json()["error"]
    ranked_ids = set(RankedGame.objects.values_list("instance_id", flat=True))
    assert len(ranked_ids) == 3 and not ranked_ids & pinned
    relisted = attacker.get("/api/v1/instances/", {"limit": 1000}).json()["results"]
    assert not ranked_ids & {row["id"] for row in relisted}
    # No instance's seed is known outside the server, and no one else can open them.
    for instance_id in ranked_ids:
        opened = attacker.post("/api/v1/sessions/", {"instance": instance_id}, format="json")
        assert opened.status_code == 400

    # 3. Upload a perfect file under the same name, as if the answers had been learned.
    # (A live round's instances have secret seeds: a file names them by their listed id.)
    perfect = [
        {"instance": row.pk, "run": 0, "actions": [], "answer": row.valid_truths[0]}
        for row in Instance.objects.filter(rounds=live_round)
    ]
    assert len(perfect) == 3
    uploaded = upload(attacker, "harvester", perfect)
    assert uploaded.status_code == 201 and uploaded.json()["status"] == "done"
    assert uploaded.json()["verified"] is False

    # The board ranks the ranked games' result; the perfect file is listed apart, unranked.
    rows = Client().get("/api/v1/leaderboard/", {"truths": 5, "actions": 4}).json()
    by_kind = {row["verified"]: row for row in rows if row["model"] == "harvester"}
    assert by_kind[False]["success_rate"] == 1.0 and by_kind[False]["round"] == "live"
    assert by_kind[True]["trajectories"] == 3
    assert (
        by_kind[True]["success_rate"]
        == Trajectory.objects.filter(verified=True, correct=True).count() / 3
    )
    verified_only = (
        Client().get("/api/v1/leaderboard/", {"truths": 5, "actions": 4, "verified": "1"}).json()
    )
    assert [(row["model"], row["verified"]) for row in verified_only] == [("harvester", True)]
    records = Client().get("/leaderboard/board.json", {"setting": "5x4"}).json()
    ranks = {(r["model"], r["verified"]): r["rank"] for r in records}
    assert ranks == {("harvester", True): 1, ("harvester", False): None}
    html = Client().get("/leaderboard/", {"setting": "5x4"}).content.decode()
    verified_table, self_reported_table = html.split('id="self-reported"')
    assert verified_table.count('data-model="harvester"') == 1
    assert self_reported_table.count('data-model="harvester"') == 1

    # 4. When the round closes, each player sees its own ranked games' answers.
    prepare("next", "orchard", "5x4", 2, 200)
    run("rotate_round")
    for session_id in ranked_sessions:
        state = attacker.get(f"/api/v1/sessions/{session_id}/").json()
        instance = PlaySession.objects.get(pk=session_id).instance
        assert state["result"]["valid_truth"] == instance.valid_truths[0]
        assert state["observations"] == instance.observations
    # The pinned pool stays secret until the round is published.
    pinned_session = PlaySession.objects.filter(instance_id__in=pinned).first()
    assert (
        "valid_truth" not in attacker.get(f"/api/v1/sessions/{pinned_session.pk}/").json()["result"]
    )
    do_publish(Round.objects.get(name="live"))
    assert "valid_truth" in attacker.get(f"/api/v1/sessions/{pinned_session.pk}/").json()["result"]


def test_an_open_ranked_game_counts_as_unsolved_when_the_round_closes(live_round, researcher):
    games = [
        researcher.post("/api/v1/ranked-games/", {"model": "quitter", **RANKED}).json()
        for _ in range(2)
    ]
    instance = RankedGame.objects.get(session_id=games[0]["session"]).instance
    researcher.post(
        f"/api/v1/sessions/{games[0]['session']}/answer/",
        {"truth": instance.valid_truths[0]},
        format="json",
    )
    # The second game looked hard and was dropped: it still counts once the round closes.
    row = BoardRow.objects.get(model__name="quitter", round=live_round, domain=None)
    assert (row.trajectories, row.success_rate, row.verified) == (1, 1.0, True)
    assert row.mean_optimal_actions == instance.expected_actions
    prepare("next", "orchard", "5x4", 2, 200)
    run("rotate_round")
    dropped = PlaySession.objects.get(pk=games[1]["session"])
    assert dropped.finished and dropped.correct is False
    row = BoardRow.objects.get(model__name="quitter", round=live_round, domain=None)
    assert (row.trajectories, row.success_rate) == (2, 0.5)
    # The next round is live now: its ranked games are numbered afresh.
    fresh = researcher.post("/api/v1/ranked-games/", {"model": "quitter", **RANKED}).json()
    assert (fresh["round"], fresh["number"]) == ("next", 1)


def test_ranked_games_are_bounded_and_checked(live_round, researcher, settings):
    settings.RANKED_MAX_OPEN_GAMES = 2
    for _ in range(2):
        assert researcher.post("/api/v1/ranked-games/", {"model": "m", **RANKED}).status_code == 201
    too_many = researcher.post("/api/v1/ranked-games/", {"model": "m", **RANKED})
    assert too_many.status_code == 409 and "finish one first" in too_many.json()["error"]
    assert Instance.objects.filter(source=Instance.Source.RANKED).count() == 2
    for query, problem in (
        ({"domain": "grove"}, "has no domain 'grove'"),
        ({"truths": 4, "actions": 6}, "has no setting 4x6"),
        ({"model": "<b>x</b>"}, "may hold only ASCII letters"),
    ):
        response = researcher.post("/api/v1/ranked-games/", {"model": "m", **RANKED, **query})
        assert response.status_code == 400 and problem in response.json()["error"]
    listed = researcher.get("/api/v1/ranked-games/").json()
    assert [(g["number"], g["finished"], g["correct"]) for g in listed] == [
        (2, False, None),
        (1, False, None),
    ]
    assert researcher.delete("/api/v1/ranked-games/").status_code == 405


def test_no_round_live_means_no_ranked_game(orchard, researcher):
    response = researcher.post("/api/v1/ranked-games/", {"model": "m", **RANKED})
    assert response.status_code == 409 and "no round is live" in response.json()["error"]
    assert not ModelEntry.objects.exists() and not Instance.objects.filter(source="ranked")


def test_a_model_name_belongs_to_its_owner(orchard, researcher):
    seeds = list(Instance.objects.filter(domain__name="orchard").values_list("seed", flat=True))
    first = upload(researcher, "alpha", perfect_lines(seeds[:2]))
    assert first.status_code == 201
    owner = User.objects.get(username="researcher")
    assert ModelEntry.objects.get(name="alpha").owner == owner
    before = list(BoardRow.objects.filter(model__name="alpha").values_list("success_rate"))

    # Another account cannot upload (or play) under the name, and changes nothing.
    rival = token_client("rival")
    takeover = upload(rival, "alpha", [{**perfect_lines(seeds[:1])[0], "answer": "Aphid"}])
    assert takeover.status_code == 403 and "belongs to another account" in takeover.json()["error"]
    assert Submission.objects.filter(model__name="alpha").count() == 1
    assert list(BoardRow.objects.filter(model__name="alpha").values_list("success_rate")) == before

    # Staff transfer it in the admin; then the new owner may, and the old one may not.
    User.objects.create_superuser("boss", "boss@example.org", "a long admin password")
    staff = Client()
    staff.force_login(User.objects.get(username="boss"))
    entry = ModelEntry.objects.get(name="alpha")
    page = staff.get(f"/admin/leaderboard/modelentry/{entry.pk}/change/")
    assert page.status_code == 200 and 'name="owner"' in page.content.decode()
    ModelEntry.objects.filter(pk=entry.pk).update(owner=User.objects.get(username="rival"))
    assert upload(rival, "alpha", perfect_lines(seeds[2:])).status_code == 201
    assert upload(researcher, "alpha", perfect_lines(seeds[:1])).status_code == 403


@pytest.mark.parametrize(
    "name",
    ['<a href="http://evil.example/phish">x</a>', "=HYPERLINK(1)", "+1", "a" * 101, "gpt‑4o"],
)
def test_bad_model_names_are_refused_with_a_clear_message(orchard, researcher, name):
    seeds = list(Instance.objects.filter(domain__name="orchard").values_list("seed", flat=True))
    response = upload(researcher, name, perfect_lines(seeds[:1]))
    assert response.status_code == 400
    assert "model name" in response.json()["error"]
    assert not ModelEntry.objects.exists() and not Submission.objects.exists()


def test_a_researcher_lists_and_withdraws_their_own_submissions(orchard, researcher):
    seeds = sorted(Instance.objects.filter(domain__name="orchard").values_list("seed", flat=True))
    older = upload(researcher, "alpha", perfect_lines(seeds)).json()
    wrong = [{**line, "answer": "Aphid"} for line in perfect_lines(seeds)]
    newer = upload(researcher, "alpha", wrong).json()
    rival = token_client("rival")
    upload(rival, "beta", perfect_lines(seeds))

    listed = researcher.get("/api/v1/submissions/").json()
    assert [item["id"] for item in listed] == [newer["id"], older["id"]]
    assert rival.post(f"/api/v1/submissions/{newer['id']}/withdraw/").status_code == 404
    assert researcher.get(f"/api/v1/submissions/{newer['id']}/withdraw/").status_code == 405

    row = BoardRow.objects.get(model__name="alpha", domain=None)
    withdrawn = researcher.post(f"/api/v1/submissions/{newer['id']}/withdraw/")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    # The newer file's rows left the board; the older file counts again; both are kept.
    row = BoardRow.objects.get(model__name="alpha", domain=None)
    assert row.success_rate == 1.0
    assert Submission.objects.filter(model__name="alpha").count() == 2
    assert not Trajectory.objects.filter(submission_id=newer["id"], active=True).exists()
    assert researcher.post(f"/api/v1/submissions/{newer['id']}/withdraw/").status_code == 200
    researcher.post(f"/api/v1/submissions/{older['id']}/withdraw/")
    assert not BoardRow.objects.filter(model__name="alpha").exists()
    # Sending a withdrawn file again does not bring it back.
    again = upload(researcher, "alpha", perfect_lines(seeds))
    assert again.status_code == 400 and "withdrawn" in again.json()["error"]


def test_a_prepared_rounds_instances_are_invisible_and_unplayable(orchard, researcher):
    prepare("soon", "orchard", "5x4", 2, 300)
    hidden = list(Round.objects.get(name="soon").instances.values_list("pk", flat=True))
    assert len(hidden) == 2
    listed = researcher.get("/api/v1/instances/", {"limit": 1000}).json()["results"]
    assert not set(hidden) & {row["id"] for row in listed}
    for instance_id in hidden:
        response = researcher.post("/api/v1/sessions/", {"instance": instance_id}, format="json")
        assert response.status_code == 400
    assert not PlaySession.objects.exists()
    run("rotate_round")
    listed = researcher.get("/api/v1/instances/", {"limit": 1000}).json()["results"]
    assert set(hidden) <= {row["id"] for row in listed}


def test_the_board_links_a_readable_page_on_verified_evaluation(orchard):
    board = Client().get("/leaderboard/").content.decode()
    assert 'href="/docs/verified-evaluation/"' in board
    page = Client().get("/docs/verified-evaluation/")
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(r"<h1[^>]*>Verified and self-reported results</h1>", html)
    assert 'href="../api/"' in html
    assert Client().get("/docs/api/").status_code == 200
    assert Client().get("/docs/nothing-here/").status_code == 404
    assert Client().get("/docs/..%2Fsettings/").status_code == 404
    # Sections can be linked: the family board's "how" goes to the games' dimensions.
    families = Client().get("/docs/task-families/").content.decode()
    assert '<h3 id="games">' in families and "{#games}" not in families
    # A fenced code block is code, its comments never headings; wide tables scroll apart.
    assert re.search(r"<pre><code[^>]*>from engine.core.families.base", families)
    assert "<h1" not in families.split("A worked example", 1)[1]
    assert '<div class="table-scroll"><table>' in families
