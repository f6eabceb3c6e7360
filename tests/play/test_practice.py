"""The Play entry: practice games for anyone, visitors included (engine.practice).

Real database, real HTTP through Django's client, real websockets through the ASGI stack.
"""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from channels.db import database_sync_to_async as sync_to_async
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.utils import timezone

from engine.models import FamilyPracticeRequest, Instance, PlaySession, PracticeGame, Visitor
from humanstudy.models import Participant, StudySettings, TaskSetItem
from leaderboard.access import playable_instances
from leaderboard.models import BoardRow, ModelEntry, RankedGame, RoundInstance, Trajectory
from leaderboard.recompute import recompute, sync_human_trajectories
from tests.play.test_websocket import connect, receive_state
from tests.rounds.helpers import prepare, run

pytestmark = pytest.mark.django_db(transaction=True)

PLAY_URL = "/play/"


def start(client: Client, ip: str = "203.0.113.7", **data):
    return client.post(PLAY_URL, {"level": "easy", **data}, REMOTE_ADDR=ip)


def started_session(response) -> PlaySession:
    assert response.status_code == 302, response.content.decode()[:500]
    match = re.fullmatch(r"/play/(\d+)/", response["Location"])
    assert match, response["Location"]
    return PlaySession.objects.select_related("instance", "player").get(pk=int(match[1]))


def test_the_home_page_and_each_domain_page_offer_play_to_anyone(orchard):
    client = Client()
    for url in ("/", "/domains/orchard/"):
        page = client.get(url)
        assert page.status_code == 200
        body = page.content.decode()
        assert f'action="{PLAY_URL}"' in body
        assert 'name="level" value="easy"' in body and 'name="level" value="hard"' in body
    assert 'name="domain" value="orchard"' in client.get("/domains/orchard/").content.decode()
    assert Client().get(PLAY_URL).status_code == 405


def test_an_anonymous_visitor_gets_a_guest_account_and_a_fresh_easy_task(orchard):
    stored = set(Instance.objects.values_list("pk", flat=True))
    client = Client()
    session = started_session(start(client))

    guest = session.player
    assert Visitor.objects.filter(user=guest).exists()
    assert not guest.has_usable_password() and not guest.is_staff
    instance = session.instance
    assert instance.pk not in stored, "a fresh instance, generated for this game"
    assert instance.source == Instance.Source.PRACTICE
    assert (instance.n_truths, instance.n_actions) == (4, 6)
    assert instance.domain.name == "orchard"  # the only domain loaded
    assert instance.expected_actions is not None and instance.oracle_actions is not None
    assert session.book is not None
    game = PracticeGame.objects.get(session=session)
    assert game.ip_address == "203.0.113.7"

    # The visitor is signed in as the guest: the play page opens, with no secret in it.
    page = client.get(f"/play/{session.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Playing as a visitor" in html and "Account" not in html
    for observation in instance.observations.values():
        assert f'"{observation}"' not in html and f">{observation}<" not in html
    # Their next game reuses the same guest account.
    second = started_session(start(client))
    assert second.player == guest and second.instance != instance
    assert Visitor.objects.count() == 1


def test_a_signed_in_user_plays_as_themselves(orchard, make_user):
    user = make_user("ada")
    client = Client()
    client.force_login(user)
    session = started_session(start(client, domain="orchard"))
    assert session.player == user
    assert not Visitor.objects.exists()
    assert client.get(f"/play/{session.pk}/").status_code == 200


def test_a_domain_too_small_for_the_level_is_refused_with_a_message(orchard):
    response = start(Client(), domain="orchard", level="hard")
    assert response.status_code == 400
    assert "has no hard practice tasks" in response.content.decode()
    response = start(Client(), domain="nowhere")
    assert response.status_code == 400
    assert "there is no domain" in response.content.decode()
    response = start(Client(), level="extreme")
    assert response.status_code == 400
    assert not PlaySession.objects.exists() and not User.objects.exists()


def test_a_domain_with_the_longest_name_is_played(orchard, small_domain_data):
    from engine.actions import do_import_domain
    from engine.core.families.kumo.domain_io import domain_from_json

    name = "long-" + "x" * 95  # a domain's name may have 100 characters
    do_import_domain(domain_from_json(small_domain_data), source="json", name=name)
    session = started_session(start(Client(), domain=name))
    assert session.instance.domain.name == name
    assert FamilyPracticeRequest.objects.get(session=session).kind == name


def test_a_game_that_cannot_be_generated_is_reported_on_the_waiting_page(orchard, monkeypatch):
    from engine import practice
    from engine.core.families.kumo.generate import GenerationError

    def refuse(*args, **kwargs):
        raise GenerationError("the solver found no outcomes that rule out the others")

    monkeypatch.setattr(practice, "do_generate_secret_instance", refuse)
    client = Client()
    response = start(client, domain="orchard")
    assert response.status_code == 302
    assert re.fullmatch(r"/families/practice/\d+/", response["Location"])
    page = client.get(response["Location"])
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="family-practice-error"' in text
    assert "no practice task could be generated in orchard" in text
    assert "no outcomes that rule out the others" in text
    assert not PlaySession.objects.exists()
    assert not Instance.objects.filter(source=Instance.Source.PRACTICE).exists()
    assert FamilyPracticeRequest.objects.get().status == FamilyPracticeRequest.Status.FAILED


def test_a_visitor_is_limited_per_session_with_a_clear_message(orchard, settings):
    settings.VISITOR_GAMES_PER_HOUR = 2
    client = Client()
    started_session(start(client))
    started_session(start(client, ip="198.51.100.1"))  # another address: same visitor
    instances = Instance.objects.count()

    refused = start(client, ip="198.51.100.2")
    assert refused.status_code == 429
    text = refused.content.decode()
    assert "You have started 2 practice games in the last hour" in text
    assert "You can start another in about 60 minutes" in text
    assert PlaySession.objects.count() == 2 and Instance.objects.count() == instances

    # An hour later the oldest game (the generation it asked for) no longer counts.
    oldest = FamilyPracticeRequest.objects.order_by("created_at").first()
    oldest.created_at = timezone.now() - timedelta(hours=1, seconds=1)
    oldest.save(update_fields=["created_at"])
    started_session(start(client))


def test_visitors_of_one_address_are_limited_together(orchard, settings):
    settings.VISITOR_GAMES_PER_HOUR_PER_IP = 2
    # Each fresh client is a new visitor (as if cookies were cleared): the address counts.
    started_session(start(Client()))
    started_session(start(Client()))
    refused = start(Client())
    assert refused.status_code == 429
    assert "Visitors from your address have started 2 practice games" in refused.content.decode()
    assert Visitor.objects.count() == 2, "no guest account is made for a refused game"
    started_session(start(Client(), ip="192.0.2.55"))
    # A signed-in user is counted by their account, not by the address they share.
    user = User.objects.create_user("lab-member", password="x" * 12)
    member = Client()
    member.force_login(user)
    started_session(start(member))


def test_study_participants_cannot_practise_outside_their_task_set(orchard):
    StudySettings.objects.create(
        domains=["orchard"], easy_truths=4, easy_actions=3, hard_truths=5, hard_actions=4
    )
    call_command(
        "generate_tasks", *"orchard --truths 4 --actions 3 --count 2".split(), stdout=StringIO()
    )
    out = StringIO()
    call_command("create_participants", "--count", "1", stdout=out, stderr=StringIO())
    participant = Participant.objects.get()
    client = Client()
    client.force_login(participant.user)
    refused = start(client)
    assert refused.status_code == 403
    assert "study participants play the tasks of their own task set only" in (
        refused.content.decode()
    )
    assert not PlaySession.objects.filter(player=participant.user).exists()


def test_practice_instances_are_never_round_ranked_or_study_instances(orchard, make_user):
    # A live round with pinned instances and a study task set on the same domain.
    prepare("live", "orchard", "4x6,5x4", 2, 300, "--ranked-games", "2")
    run("rotate_round")
    StudySettings.objects.create(
        domains=["orchard"], easy_truths=5, easy_actions=4, hard_truths=5, hard_actions=4
    )
    reserved = set(RoundInstance.objects.values_list("instance_id", flat=True))
    reserved |= set(RankedGame.objects.values_list("instance_id", flat=True))
    reserved |= set(TaskSetItem.objects.values_list("instance_id", flat=True))
    reserved |= set(
        Instance.objects.filter(source=Instance.Source.RANKED).values_list("pk", flat=True)
    )
    assert RoundInstance.objects.filter(instance__n_truths=4, instance__n_actions=6).exists()

    games = [started_session(start(Client(), ip=f"192.0.2.{n}")) for n in range(4)]
    for session in games:
        assert session.instance_id not in reserved
        assert session.instance.source == Instance.Source.PRACTICE
        assert not RoundInstance.objects.filter(instance=session.instance).exists()
        assert not TaskSetItem.objects.filter(instance=session.instance).exists()
    # And no one else is ever offered them: not listed, not in a task set, round or run.
    assert not playable_instances().filter(source=Instance.Source.PRACTICE).exists()
    user = make_user("researcher")
    api = Client()
    api.force_login(user)
    listed = api.get("/api/v1/instances/", {"domain": "orchard", "truths": 4, "actions": 6})
    assert listed.status_code == 200
    listed_ids = {row["id"] for row in listed.json()["results"]}
    assert listed_ids.isdisjoint(session.instance_id for session in games)
    call_command("build_task_sets", "--count", "1", stdout=StringIO(), stderr=StringIO())
    assert not TaskSetItem.objects.filter(instance__source=Instance.Source.PRACTICE).exists()
    # Nor are they (or the study's own instances) counted as the domain's tasks on the
    # home page.
    assert Instance.objects.filter(source=Instance.Source.STUDY).exists()
    (domain,) = Client().get("/").context["domains"]
    assert (
        domain.total
        == Instance.objects.exclude(
            source__in=[Instance.Source.PRACTICE, Instance.Source.RANKED, Instance.Source.STUDY]
        ).count()
    )


def board_snapshot() -> dict:
    return {
        "models": sorted(ModelEntry.objects.values_list("name", flat=True)),
        "trajectories": sorted(
            Trajectory.objects.values_list("model__name", "instance_id", "correct", "verified")
        ),
        "rows": sorted(
            BoardRow.objects.values_list(
                "model__name", "verified", "domain_id", "n_truths", "n_actions", "trajectories"
            ),
            key=repr,
        ),
    }


def test_a_visitor_game_leaves_the_board_unchanged(orchard, admin_user):
    # A verified board: the built-in oracle played through the runner, on orchard 5x4 and
    # on the Easy setting a practice game uses.
    call_command(
        "generate_tasks", *"orchard --truths 4 --actions 6 --count 2".split(), stdout=StringIO()
    )
    for truths, actions in (("5", "4"), ("4", "6")):
        call_command(
            "evaluate", "--model", "oracle", "--domains", "orchard", "--truths", truths,
            "--actions", actions, "--runs", "1", stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    recompute(full=True)
    before = board_snapshot()
    assert before["rows"], "the runner's games are on the board"

    client = Client()
    session = started_session(start(client))
    from engine import sessions

    sessions.take_action(session.pk, session.player, session.instance.actions[0])
    outcome = sessions.answer(session.pk, session.player, session.instance.valid_truths[0])
    assert outcome.session.correct is True

    sync_human_trajectories()
    recompute(full=True)
    assert board_snapshot() == before


@pytest.mark.asyncio
async def test_a_visitor_plays_to_the_end_over_the_websocket_and_nobody_elses(orchard, make_user):
    client = Client()
    response = await sync_to_async(start)(client)
    session = await sync_to_async(started_session)(response)
    instance = session.instance
    cookie = client.cookies["sessionid"].value

    ws = connect(session.pk, cookie)
    assert (await ws.connect())[0]
    state = await receive_state(ws)
    assert sorted(state["truths"]) == sorted(instance.truths) and "result" not in state
    await ws.send_json_to({"type": "action", "action": instance.actions[0]})
    state = await receive_state(ws)
    assert state["steps"][0]["observation"] == instance.observations[instance.actions[0]]
    assert "result" not in state and "valid_truth" not in repr(state)
    await ws.send_json_to({"type": "answer", "truth": instance.valid_truths[0]})
    state = await receive_state(ws)
    await ws.disconnect()
    assert state["finished"] and state["result"]["correct"] is True
    assert state["result"]["valid_truth"] == instance.valid_truths[0]

    # Another player's session stays closed to the visitor: page, socket and API.
    other = await sync_to_async(make_user)("someone")
    from engine import sessions

    theirs, _ = await sync_to_async(sessions.start_session)(
        other, await sync_to_async(Instance.objects.exclude(pk=instance.pk).first)()
    )
    page = await sync_to_async(client.get)(f"/play/{theirs.pk}/")
    assert page.status_code == 404
    stranger = connect(theirs.pk, cookie)
    assert not (await stranger.connect())[0]
    # To the API a visitor is anonymous: nothing to list, nothing to start.
    listed = await sync_to_async(client.get)("/api/v1/instances/")
    assert listed.status_code in (401, 403)
    opened = await sync_to_async(client.post)(
        "/api/v1/sessions/", {"instance": instance.pk}, content_type="application/json"
    )
    assert opened.status_code in (401, 403)
    assert (await sync_to_async(client.get)("/account/")).status_code == 302
    await sync_to_async(connections.close_all)()


def test_old_practice_games_their_instances_and_idle_guests_are_purged(orchard, make_user):
    from engine.practice import purge_practice

    old_client, new_client = Client(), Client()
    old = started_session(start(old_client, ip="203.0.113.1"))
    new = started_session(start(new_client, ip="203.0.113.2"))
    member = make_user("member")
    member_client = Client()
    member_client.force_login(member)
    kept_member_game = started_session(start(member_client, ip="203.0.113.3"))
    long_ago = timezone.now() - timedelta(days=31)
    PracticeGame.objects.filter(session__in=[old, kept_member_game]).update(started_at=long_ago)
    Visitor.objects.filter(user=old.player).update(created_at=long_ago)
    stored = Instance.objects.exclude(source=Instance.Source.PRACTICE).count()

    assert purge_practice() == {"sessions": 2, "instances": 2, "guests": 1}
    assert not PlaySession.objects.filter(pk__in=[old.pk, kept_member_game.pk]).exists()
    assert not User.objects.filter(pk=old.player_id).exists()
    # The recent game, its guest, a signed-in member and every other instance stay.
    assert PlaySession.objects.filter(pk=new.pk).exists()
    assert User.objects.filter(pk__in=[new.player_id, member.pk]).count() == 2
    assert Instance.objects.exclude(source=Instance.Source.PRACTICE).count() == stored
    assert purge_practice() == {"sessions": 0, "instances": 0, "guests": 0}
