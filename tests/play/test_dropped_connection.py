"""A move whose database connection drops before anything was committed is run again on a
fresh connection (benchmark/retry.py): the player gets the move's answer, stored once, over
HTTP and over the websocket; work that had committed something is never run twice.

Here one statement fails as a statement on a dropped connection fails; the production pass
terminates real PostgreSQL backends too (tests/production/test_resilience.py).
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as sync_to_async
from django.contrib.auth.models import User
from django.db import OperationalError, connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper

from benchmark.retry import retried
from engine.models import Instance, PlaySession, PlayStep
from tests.play.test_websocket import (  # the autouse fixture closes the sync thread's DB
    _close_the_sync_threads_connection,  # noqa: F401
    connect,
    logged_in_session,
    receive_state,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def lose_connection(monkeypatch):
    """``lose_connection(fragment, times=1)``: the next ``times`` statements whose SQL holds
    ``fragment`` fail in every thread as on a dropped connection, below every
    ``execute_wrapper`` (where psycopg raises). Returns the list of statements failed."""

    def arrange(fragment: str, times: int = 1) -> list[str]:
        failed: list[str] = []
        real = CursorWrapper._execute

        def execute(self, sql, params, *rest):
            if fragment in sql and len(failed) < times:
                failed.append(sql)
                raise OperationalError("server closed the connection unexpectedly")
            return real(self, sql, params, *rest)

        monkeypatch.setattr(CursorWrapper, "_execute", execute)
        return failed

    return arrange


def start(researcher) -> tuple[int, Instance]:
    instance = Instance.objects.filter(domain__name="orchard").order_by("seed").first()
    started = researcher.post("/api/v1/sessions/", {"instance": instance.pk}, format="json")
    assert started.status_code == 201
    return started.json()["id"], instance


def test_an_http_move_that_lost_its_connection_mid_transaction_is_answered_once(
    researcher, lose_connection
):
    session_id, instance = start(researcher)
    action = instance.actions[0]
    # The step's insert: inside the move's transaction, after the session row was locked.
    failed = lose_connection('INSERT INTO "engine_playstep"')
    moved = researcher.post(
        f"/api/v1/sessions/{session_id}/actions/", {"action": action}, format="json"
    )
    assert len(failed) == 1
    assert moved.status_code == 200, moved.content
    assert moved.json()["observation"] == instance.observations[action]
    assert moved.json()["actions_taken"] == 1
    assert list(PlayStep.objects.filter(session_id=session_id).values_list("name", flat=True)) == [
        action
    ]
    assert PlaySession.objects.get(pk=session_id).actions_taken == 1


def test_a_form_post_is_read_again_on_the_retry(client, make_user, lose_connection):
    # The sign-in form: its CSRF token and fields come from the body, which the retry must
    # read a second time. The lookup of the account is the statement that fails.
    make_user("player", password="correct horse battery")
    client.enforce_csrf_checks = True
    page = client.get("/accounts/login/")
    token = page.cookies["csrftoken"].value
    failed = lose_connection('FROM "auth_user"')
    response = client.post(
        "/accounts/login/",
        {"username": "player", "password": "correct horse battery", "csrfmiddlewaretoken": token},
    )
    assert len(failed) == 1
    assert response.status_code == 302, response.content
    assert client.get("/account/").status_code == 200  # signed in


def test_a_connection_lost_twice_gives_the_usual_500_and_stores_nothing(
    researcher, lose_connection
):
    session_id, instance = start(researcher)
    researcher.raise_request_exception = False
    failed = lose_connection('INSERT INTO "engine_playstep"', times=2)
    moved = researcher.post(
        f"/api/v1/sessions/{session_id}/actions/", {"action": instance.actions[0]}, format="json"
    )
    assert len(failed) == 2  # one retry, not more
    assert moved.status_code == 500
    assert not PlayStep.objects.filter(session_id=session_id).exists()


def test_work_that_committed_something_is_not_run_again(db, lose_connection):
    calls = []

    @retried
    def sign_up_then_read():
        calls.append(1)
        User.objects.create(username=f"once-{len(calls)}")  # committed at once (autocommit)
        return list(PlaySession.objects.all())

    lose_connection('FROM "engine_playsession"')
    with pytest.raises(OperationalError):
        sign_up_then_read()
    assert len(calls) == 1 and User.objects.filter(username__startswith="once-").count() == 1


def test_a_transaction_lost_before_its_commit_is_run_again_once(db, lose_connection):
    calls = []

    @retried
    def two_writes():
        calls.append(1)
        with transaction.atomic():
            User.objects.create(username=f"first-{len(calls)}")
            return User.objects.create(username=f"second-{len(calls)}")

    lose_connection('INSERT INTO "auth_user"', times=1)
    two_writes()
    # The first try's insert failed in its transaction, which the server rolled back.
    assert len(calls) == 2
    assert sorted(User.objects.values_list("username", flat=True)) == ["first-2", "second-2"]


def test_a_later_statement_of_a_transaction_with_writes_is_retried(db, monkeypatch):
    # The second insert fails: the first one's transaction is lost with the connection.
    calls = []
    real = CursorWrapper._execute

    def execute(self, sql, params, *rest):
        if "second-1" in str(params):
            raise OperationalError("terminating connection due to administrator command")
        return real(self, sql, params, *rest)

    monkeypatch.setattr(CursorWrapper, "_execute", execute)

    @retried
    def two_writes():
        calls.append(1)
        with transaction.atomic():
            User.objects.create(username=f"first-{len(calls)}")
            User.objects.create(username=f"second-{len(calls)}")

    two_writes()
    assert len(calls) == 2
    assert sorted(User.objects.values_list("username", flat=True)) == ["first-2", "second-2"]


@pytest.mark.asyncio
async def test_a_websocket_move_that_lost_its_connection_is_answered_and_the_socket_stays(
    orchard, make_user, lose_connection
):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected
    assert (await receive_state(ws))["steps"] == []
    failed = lose_connection('INSERT INTO "engine_playstep"')
    action = instance.actions[0]
    await ws.send_json_to({"type": "action", "action": action})
    state = await receive_state(ws)
    assert len(failed) == 1
    assert [step["name"] for step in state["steps"]] == [action]
    # Still open: the next move is played on the same socket.
    second = instance.actions[1]
    await ws.send_json_to({"type": "action", "action": second})
    state = await receive_state(ws)
    assert [step["name"] for step in state["steps"]] == [action, second]
    await ws.disconnect()
    count = await sync_to_async(PlayStep.objects.filter(session=session).count)()
    assert count == 2


@pytest.mark.asyncio
async def test_a_websocket_move_lost_twice_is_refused_with_a_message_on_an_open_socket(
    orchard, make_user, lose_connection
):
    user, session, instance, cookie = await logged_in_session(make_user)
    ws = connect(session.pk, cookie)
    connected, _ = await ws.connect()
    assert connected
    await receive_state(ws)
    lose_connection('INSERT INTO "engine_playstep"', times=2)
    await ws.send_json_to({"type": "action", "action": instance.actions[0]})
    error = await ws.receive_json_from(timeout=5)
    assert error["type"] == "error" and "database" in error["message"]
    assert (await receive_state(ws))["steps"] == []  # what the database holds
    await ws.send_json_to({"type": "action", "action": instance.actions[0]})
    assert len((await receive_state(ws))["steps"]) == 1
    await ws.disconnect()


@pytest.fixture
def lose_commit_answer(monkeypatch):
    """``lose_commit_answer(applied)``: the next COMMIT fails as on a dropped connection,
    after the server applied it (``applied``) or before."""

    def arrange(applied: bool) -> None:
        real = BaseDatabaseWrapper._commit
        done = []

        def commit(self):
            if done:
                return real(self)
            done.append(1)
            if applied:
                real(self)
            raise OperationalError("server closed the connection unexpectedly")

        monkeypatch.setattr(BaseDatabaseWrapper, "_commit", commit)

    return arrange


def counted_signup(calls: list):
    @retried
    def sign_up():
        calls.append(1)
        with transaction.atomic():
            User.objects.create(username=f"signed-{len(calls)}")

    return sign_up


def test_a_commit_applied_but_unanswered_is_not_run_again(db, lose_commit_answer):
    calls: list = []
    lose_commit_answer(applied=True)
    with pytest.raises(OperationalError):
        counted_signup(calls)()
    assert len(calls) == 1
    assert list(User.objects.values_list("username", flat=True)) == ["signed-1"]


def test_a_commit_never_applied_is_run_again_where_the_database_can_tell(db, lose_commit_answer):
    calls: list = []
    lose_commit_answer(applied=False)
    if connection.vendor == "postgresql":
        # txid_status says the transaction aborted: safe to run again.
        counted_signup(calls)()
        assert len(calls) == 2
        assert list(User.objects.values_list("username", flat=True)) == ["signed-2"]
    else:
        # No way to ask: the outcome counts as unknown, and nothing is run twice.
        with pytest.raises(OperationalError):
            counted_signup(calls)()
        assert len(calls) == 1 and not User.objects.exists()


@pytest.mark.parametrize("applied", [True, False])
def test_a_moves_lost_commit_is_settled_by_the_transaction_id_its_lock_read(
    db, orchard, lose_commit_answer, applied
):
    """A move learns its transaction's id with the statement that locks the session
    (engine/move_sql.py), not with a round trip of its own; the retry asks PostgreSQL about
    that id. A commit the server applied is never run again (one step, not two); one it
    never applied is run again where the database can tell, and stored once."""
    from engine import sessions

    player = User.objects.create_user("mover")
    instance = Instance.objects.filter(domain__name="orchard").order_by("seed").first()
    session, _ = sessions.start_session(player, instance)
    calls: list = []

    @retried
    def move():
        calls.append(1)
        return sessions.take_action(session.pk, player, instance.actions[0])

    lose_commit_answer(applied=applied)
    if applied or connection.vendor != "postgresql":
        with pytest.raises(OperationalError):
            move()
        assert len(calls) == 1
    else:
        assert move().accepted
        assert len(calls) == 2
    stored = PlayStep.objects.filter(session=session)
    assert stored.count() == (1 if applied or connection.vendor == "postgresql" else 0)
    assert PlaySession.objects.get(pk=session.pk).actions_taken == stored.count()
