"""Programmatic play over HTTP: token auth, sessions, moves, results, privacy."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

from engine.core.families.kumo.metrics import relative_action_count
from engine.models import Instance, PlaySession, PlayStep

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_client(orchard):
    def make(username: str = "harness") -> APIClient:
        out = StringIO()
        call_command("create_api_token", username, stdout=out, stderr=StringIO())
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
        return client

    return make


def test_create_api_token_creates_the_account_once_and_prints_the_same_key(db):
    first, second = StringIO(), StringIO()
    call_command("create_api_token", "lab", stdout=first, stderr=StringIO())
    call_command("create_api_token", "lab", stdout=second, stderr=StringIO())
    assert first.getvalue() == second.getvalue() and len(first.getvalue().strip()) == 40


def test_the_api_needs_a_token(orchard):
    assert APIClient().get("/api/v1/instances/").status_code == 401
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get("/api/v1/instances/").status_code == 401


def test_instances_are_listed_without_observations_or_answers(token_client):
    client = token_client()
    response = client.get("/api/v1/instances/", {"domain": "orchard", "truths": 5, "actions": 4})
    assert response.status_code == 200
    rows = response.json()["results"]
    assert len(rows) == 3
    assert set(rows[0]) == {
        "id", "family", "kind", "params", "domain", "n_truths", "n_actions", "seed", "truths",
        "actions",
    }  # fmt: skip
    assert (rows[0]["family"], rows[0]["kind"]) == ("kumo", "orchard")
    assert rows[0]["params"] == {"truths": 5, "actions": 4}
    assert len(client.get("/api/v1/instances/", {"family": "kumo"}).json()["results"]) == 3
    elsewhere = client.get("/api/v1/instances/", {"family": "puzzles"})
    assert elsewhere.status_code == 400
    assert "/api/v1/family-tasks/?family=puzzles" in elsewhere.json()["error"]
    unknown = client.get("/api/v1/instances/", {"family": "chess"})
    assert unknown.status_code == 400 and "no task family 'chess'" in unknown.json()["error"]
    assert client.get("/api/v1/instances/", {"truths": 12}).json()["results"] == []
    bad = client.get("/api/v1/instances/", {"truths": "many"})
    assert bad.status_code == 400 and "truths" in bad.json()["fields"]


def play_to_the_end(client, instance: Instance, actions: list[str], truth: str) -> list[str]:
    """Play, returning the raw text of every response (for leak scans)."""
    texts = []
    started = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    texts.append(started.content.decode())
    session_id = started.json()["id"]
    for action in actions:
        texts.append(
            client.post(
                f"/api/v1/sessions/{session_id}/actions/", {"action": action}, format="json"
            ).content.decode()
        )
        texts.append(client.get(f"/api/v1/sessions/{session_id}/").content.decode())
    final = client.post(f"/api/v1/sessions/{session_id}/answer/", {"truth": truth}, format="json")
    texts.append(final.content.decode())
    return texts


def test_a_full_game_over_http(token_client):
    client = token_client()
    instance = Instance.objects.order_by("seed").first()
    started = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert started.status_code == 201
    body = started.json()
    assert sorted(body["truths"]) == sorted(instance.truths)
    assert "rule out" in body["knowledge_book"].lower()
    again = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert again.status_code == 200 and again.json()["id"] == body["id"]

    action = instance.actions[0]
    url = f"/api/v1/sessions/{body['id']}"
    response = client.post(f"{url}/actions/", {"action": action}, format="json")
    assert response.status_code == 200
    assert response.json()["observation"] == instance.observations[action]
    assert action not in response.json()["remaining_actions"]

    repeated = client.post(f"{url}/actions/", {"action": action}, format="json")
    assert repeated.status_code == 400
    assert "already taken" in repeated.json()["error"] and repeated.json()["invalid_moves"] == 1
    unknown = client.post(f"{url}/actions/", {"action": "Ask The Farmer"}, format="json")
    assert unknown.status_code == 400 and "Ask The Farmer" in unknown.json()["error"]
    missing = client.post(f"{url}/actions/", {}, format="json")
    assert missing.status_code == 400 and "action" in missing.json()["fields"]

    wrong_name = client.post(f"{url}/answer/", {"truth": "Woolly Bear"}, format="json")
    assert wrong_name.status_code == 400
    result = client.post(f"{url}/answer/", {"truth": instance.valid_truths[0]}, format="json")
    assert result.status_code == 200
    outcome = result.json()
    assert outcome["correct"] is True and outcome["actions_taken"] == 1
    assert outcome["optimal_actions"] == instance.oracle_actions
    assert outcome["relative_action_count"] == pytest.approx(
        relative_action_count(1, instance.oracle_actions)
    )
    session = PlaySession.objects.get(pk=body["id"])
    # The empty request is malformed input (a 400 from validation), not a move.
    assert session.finished and session.correct and session.invalid_moves == 3
    assert list(session.steps.values_list("kind", "accepted")) == [
        ("action", True),
        ("action", False),
        ("action", False),
        ("answer", False),
        ("answer", True),
    ]

    after = client.post(f"{url}/actions/", {"action": instance.actions[1]}, format="json")
    assert after.status_code == 409
    record = client.get(f"{url}/").json()
    assert record["result"]["valid_truth"] == instance.valid_truths[0]
    assert record["observations"] == instance.observations
    assert PlayStep.objects.filter(session=session).count() == 5


def test_nothing_secret_is_sent_before_the_end(token_client):
    client = token_client()
    for instance in Instance.objects.all():
        played = instance.actions[:2]
        wrong = next(t for t in instance.truths if t not in instance.valid_truths)
        texts = play_to_the_end(client, instance, played, wrong)
        before_end = texts[:-1]
        for text in before_end:
            assert "valid_truth" not in text
            for action, observation in instance.observations.items():
                if action in played or not isinstance(observation, float):
                    continue
                # A drawn number is unique to this task: it must never appear unplayed.
                assert json.dumps(observation) not in text
        assert json.loads(texts[-1])["valid_truth"] == instance.valid_truths[0]


def test_a_session_belongs_to_its_caller(token_client):
    owner, other = token_client("owner"), token_client("other")
    instance = Instance.objects.first()
    session_id = owner.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()[
        "id"
    ]
    url = f"/api/v1/sessions/{session_id}"
    assert other.get(f"{url}/").status_code == 404
    assert (
        other.post(f"{url}/actions/", {"action": instance.actions[0]}, format="json").status_code
        == 404
    )
    assert (
        other.post(f"{url}/answer/", {"truth": instance.truths[0]}, format="json").status_code
        == 404
    )
    assert PlayStep.objects.count() == 0


def test_get_on_a_post_only_endpoint_is_405(token_client):
    client = token_client()
    instance = Instance.objects.first()
    session_id = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()[
        "id"
    ]
    assert client.get(f"/api/v1/sessions/{session_id}/actions/").status_code == 405
    assert client.get(f"/api/v1/sessions/{session_id}/answer/").status_code == 405


def test_starting_on_a_missing_instance_is_a_clear_400(token_client):
    response = token_client().post("/api/v1/sessions/", {"instance": 999999}, format="json")
    assert response.status_code == 400 and "instance" in response.json()["fields"]


def test_the_openapi_schema_and_docs_are_served(client):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    text = schema.content.decode()
    for path in (
        "/api/v1/instances/",
        "/api/v1/sessions/{session_id}/actions/",
        "/api/v1/sessions/{session_id}/answer/",
    ):
        assert path in text
    assert client.get("/api/docs/").status_code == 200


def test_a_session_keeps_the_book_it_started_with_when_a_newer_one_passes(token_client):
    from engine.models import KnowledgeBook

    client = token_client()
    instance = Instance.objects.filter(domain__name="orchard").first()
    first = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()
    original = instance.current_book().text
    assert first["knowledge_book"] == original

    # A newer book passes the checker (as an accepted LLM book would) while the game goes on.
    newer = KnowledgeBook.objects.create(
        instance=instance,
        text=original + "\n\nA newer edition.",
        author="llm",
        passed_check=True,
    )
    again = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert again.status_code == 200 and again.json()["knowledge_book"] == original
    state = client.get(f"/api/v1/sessions/{first['id']}/").json()
    assert "knowledge_book" not in state or state["knowledge_book"] == original
    assert PlaySession.objects.get(pk=first["id"]).book.text == original

    # A player who starts afterwards reads the newer book.
    other = token_client("second-harness")
    started = other.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()
    assert started["knowledge_book"] == newer.text


def test_a_move_costs_the_token_check_and_one_locked_transaction(
    token_client, django_assert_num_queries
):
    """A move's queries are pinned: the token with its user (one query), then one
    transaction that locks the session with its instance and domain, reads its steps, and
    stores the step with the session's counters (on PostgreSQL in one statement, which the
    lock's statement also gave the transaction's id for the retry of a dropped connection).
    Nothing else (no replay of other rows, no second read of the session, no query per
    step)."""
    client = token_client()
    instance = Instance.objects.filter(n_truths=5).order_by("seed").first()
    session_id = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()[
        "id"
    ]
    actions = list(instance.actions)
    client.post(f"/api/v1/sessions/{session_id}/actions/", {"action": actions[0]}, format="json")
    postgresql = connection.vendor == "postgresql"
    # token, BEGIN, lock, steps, step and counters (SQLite: two statements), COMMIT
    count = 6 if postgresql else 7
    # The same count with one step stored as with three: steps are read in one query.
    for action in actions[1:3]:
        with django_assert_num_queries(count) as captured:
            response = client.post(
                f"/api/v1/sessions/{session_id}/actions/", {"action": action}, format="json"
            )
        assert response.status_code == 200
        sqls = [query["sql"] for query in captured.captured_queries]
        if postgresql:
            assert "FOR UPDATE" in sqls[2] and "txid_current()" in sqls[2]
            assert sqls[4].startswith("WITH") and "UPDATE" in sqls[4] and "INSERT" in sqls[4]
        else:
            statements = [sql.split()[0].upper() for sql in sqls]
            assert statements.count("INSERT") == 1 and statements.count("UPDATE") == 1
    assert PlayStep.objects.filter(session_id=session_id, accepted=True).count() == 3
    # A refused move costs the same: it is stored and counted too.
    with django_assert_num_queries(count):
        refused = client.post(
            f"/api/v1/sessions/{session_id}/actions/", {"action": actions[0]}, format="json"
        )
    assert refused.status_code == 400
    assert refused.json()["invalid_moves"] == 1


def test_observations_keep_their_raw_value_and_add_how_people_read_them(token_client, tmp_path):
    """A number: exact in ``observation``, rounded with its unit in ``shown``; a label:
    as stored in ``observation``, in words in ``shown`` (here a snake_case one)."""
    from engine.models import Domain
    from tests.conftest import SMALL_DOMAIN

    data = json.loads(json.dumps(SMALL_DOMAIN))
    larva = next(action for action in data["actions"] if action["name"] == "Larva Search")
    for state in larva["states"]:
        state["label"] += "_on_shoots"
    data["name"] = "snake-orchard"
    path = tmp_path / "snake-orchard.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    call_command("import_domain", str(path), stdout=StringIO())
    call_command(
        "generate_tasks", *"snake-orchard --truths 5 --actions 4 --count 3".split(),
        stdout=StringIO(),
    )  # fmt: skip
    domain = Domain.objects.get(name="snake-orchard").to_core()
    instance = next(
        row
        for row in Instance.objects.filter(domain__name="snake-orchard").order_by("seed")
        if {"Leaf Temperature", "Larva Search"} <= set(row.actions)
    )
    client = token_client()
    session = client.post("/api/v1/sessions/", {"instance": instance.pk}, format="json").json()
    url = f"/api/v1/sessions/{session['id']}"
    response = client.post(f"{url}/actions/", {"action": "Leaf Temperature"}, format="json")
    body = response.json()
    raw = instance.observations["Leaf Temperature"]
    assert body["observation"] == raw and isinstance(raw, float)
    number, unit = body["shown"].split(" ", 1)
    assert unit == "°C"
    assert abs(float(number) - raw) < 0.01
    action = domain.action("Leaf Temperature")
    assert action.state_for(float(number)) is action.state_for(raw)

    record = client.get(f"{url}/").json()
    assert record["steps"][0]["observation"] == raw and record["steps"][0]["shown"] == body["shown"]
    client.post(f"{url}/answer/", {"truth": instance.valid_truths[0]}, format="json")
    finished = client.get(f"{url}/").json()
    assert finished["observations"] == instance.observations  # raw values kept
    shown = finished["observations_shown"]
    assert set(shown) == set(instance.observations)
    for action, value in instance.observations.items():
        assert shown[action] == domain.action(action).shown(value)
    label = instance.observations["Larva Search"]
    assert label.endswith("_on_shoots")
    assert shown["Larva Search"] == label.replace("_", " ")
