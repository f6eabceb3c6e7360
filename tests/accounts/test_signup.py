"""Accounts for every kind of user: sign-up with a confirmed address, the rate limit per
address, password reset, the organisation as a model's owner, visitors playing families
as guests, and operator-made accounts setting their password."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from benchmark.checks import mail_is_sent
from benchmark.models import Account
from engine.families import do_generate_family_tasks
from engine.models import FamilyAttempt, Visitor
from leaderboard import names
from leaderboard.models import ModelEntry

pytestmark = pytest.mark.django_db

PASSWORD = "a long and unusual passphrase"
ADDRESS = "198.51.100.7"


def sign_up(client: Client, username: str = "ada", ip: str = ADDRESS, **fields):
    data = {
        "username": username,
        "email": f"{username}@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "organisation": "",
        **fields,
    }
    return client.post("/accounts/signup/", data, REMOTE_ADDR=ip)


def link_in(message, pattern: str) -> str:
    found = re.search(rf"https?://[^/\s]+({pattern})", message.body)
    assert found, message.body
    return found.group(1)


def log_in(username: str, password: str = PASSWORD) -> Client:
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, response.content.decode()[:300]
    return client


def test_sign_up_mails_a_link_that_confirms_the_address_and_the_account_logs_in():
    client = Client()
    response = sign_up(client, organisation="  Analytical   Engines ")
    assert response.status_code == 302 and response["Location"] == "/account/"
    user = User.objects.get(username="ada")
    assert user.email == "ada@example.org" and user.check_password(PASSWORD)
    assert user.account.organisation == "Analytical Engines"
    assert user.account.email_confirmed_at is None

    # One mail, to the address given, with the confirmation link and nothing else secret.
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.org"] and "Confirm" in message.subject
    confirm = link_in(message, r"/accounts/confirm/[^/\s]+/[^/\s]+/")

    # Signed in at once: it may play, but gets no token and no model name before confirming.
    page = client.get("/account/").content.decode()
    assert "not confirmed yet" in page and "confirm your e-mail address to create one" in page
    refused = client.post("/account/token/", {"action": "create"})
    assert refused.status_code == 403 and not Token.objects.exists()
    with pytest.raises(names.NotConfirmed):
        names.claim_model_name("ada-model", user=user)
    assert not ModelEntry.objects.exists()

    confirmed = Client().get(confirm)
    assert confirmed.status_code == 200 and "Address confirmed" in confirmed.content.decode()
    user.account.refresh_from_db()
    assert user.account.email_confirmed_at is not None
    # A link works once, and an altered one never.
    assert Client().get(confirm).status_code == 400
    assert Client().get(confirm[:-3] + "xyz/").status_code == 400

    again = log_in("ada")
    assert again.post("/account/token/", {"action": "create"}).status_code == 302
    assert Token.objects.filter(user=user).exists()
    assert names.claim_model_name("ada-model", user=user).owner == user


def test_the_confirmation_mail_can_be_sent_again_until_the_address_is_confirmed():
    client = Client()
    sign_up(client)
    assert client.post("/account/confirmation/").status_code == 302
    assert len(mail.outbox) == 2
    # Every link sent is valid until one of them confirms the address.
    first = link_in(mail.outbox[0], r"/accounts/confirm/\S+/")
    assert Client().get(first).status_code == 200
    second = link_in(mail.outbox[1], r"/accounts/confirm/\S+/")
    assert Client().get(second).status_code == 400  # the address is confirmed already
    client.post("/account/confirmation/")
    assert len(mail.outbox) == 2  # nothing more to confirm, nothing sent
    assert client.get("/account/confirmation/").status_code == 405


def test_bad_sign_ups_are_refused_with_the_reason_and_make_no_account():
    User.objects.create_user("grace", email="grace@example.org", password=PASSWORD)
    cases = [
        ({"username": "GRACE"}, "already exists"),
        ({"username": "hopper", "email": "Grace@Example.org"}, "already uses this address"),
        ({"username": "platform"}, "reserved"),
        ({"username": "visitor-0123"}, "reserved"),
        ({"username": "hopper", "password2": "something else entirely"}, "didn’t match"),
        ({"username": "hopper", "password1": "short", "password2": "short"}, "too short"),
        ({"username": "hopper", "email": "not an address"}, "valid email"),
        ({"username": "hopper<script>"}, "Enter a valid username"),
    ]
    for fields, reason in cases:
        response = sign_up(Client(), **fields)
        assert response.status_code == 400, fields
        assert reason in response.content.decode(), (fields, reason)
    assert User.objects.count() == 1 and not mail.outbox


def test_sign_ups_are_limited_per_client_address(settings):
    settings.SIGNUPS_PER_HOUR_PER_IP = 2
    assert sign_up(Client(), "one").status_code == 302
    assert sign_up(Client(), "two").status_code == 302
    refused = sign_up(Client(), "three")
    assert refused.status_code == 429
    assert "2 accounts have been made from your network" in refused.content.decode()
    assert not User.objects.filter(username="three").exists()
    # Another address is counted apart, and the address may sign up again an hour later.
    assert sign_up(Client(), "four", ip="198.51.100.8").status_code == 302
    with time_machine.travel(timezone.now() + timedelta(minutes=61)):
        assert sign_up(Client(), "three").status_code == 302
    settings.SIGNUPS_PER_HOUR_PER_IP = 0
    closed = sign_up(Client(), "five", ip="192.0.2.1")
    assert closed.status_code == 429 and "sign-up is closed" in closed.content.decode()


def test_a_signed_in_account_is_sent_from_the_sign_up_page_to_its_account():
    User.objects.create_user("grace", password=PASSWORD)
    client = log_in("grace")
    assert client.get("/accounts/signup/")["Location"] == "/account/"
    assert sign_up(client, "another")["Location"] == "/account/"
    assert not User.objects.filter(username="another").exists()


def test_the_password_reset_flow_sets_a_new_password_with_a_link_that_works_once():
    User.objects.create_user("grace", email="grace@example.org", password=PASSWORD)
    client = Client()
    page = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password_reset/"' in page and 'href="/accounts/signup/"' in page
    response = client.post("/accounts/password_reset/", {"email": "GRACE@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password_reset/done/"
    # An unknown address gets the same answer and no mail: the page reveals no account.
    unknown = client.post("/accounts/password_reset/", {"email": "nobody@example.org"})
    assert unknown["Location"] == "/accounts/password_reset/done/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["grace@example.org"]
    link = link_in(mail.outbox[0], r"/accounts/reset/\S+/")

    _set_password_through(link, "a brand new passphrase")
    log_in("grace", "a brand new passphrase")
    assert (
        Client().post("/accounts/login/", {"username": "grace", "password": PASSWORD}).status_code
        == 200
    )
    again = Client().get(link, follow=True)
    assert "This link does not work" in again.content.decode()


def test_repeated_reset_requests_mail_an_address_once_in_the_limit(settings):
    settings.PASSWORD_RESET_MINUTES = 5
    User.objects.create_user("grace", email="grace@example.org", password=PASSWORD)
    for _ in range(4):
        response = Client().post("/accounts/password_reset/", {"email": "grace@example.org"})
        assert response["Location"] == "/accounts/password_reset/done/"  # the same answer
    assert len(mail.outbox) == 1
    # Once the limit has passed, the next request mails again.
    Account.objects.filter(user__username="grace").update(
        reset_mailed_at=timezone.now() - timedelta(minutes=6)
    )
    Client().post("/accounts/password_reset/", {"email": "grace@example.org"})
    assert len(mail.outbox) == 2


def _set_password_through(link: str, password: str) -> None:
    client = Client()
    form = client.get(link, follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": password, "new_password2": password},
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"


def test_an_operator_made_account_sets_its_password_and_opens_its_account_page():
    out, err = StringIO(), StringIO()
    call_command(
        "create_api_token",
        "lab-bot",
        "--email",
        "ops@lab.example",
        "--organisation",
        "Lab",
        "--base-url",
        "https://kumo.example.org/",
        stdout=out,
        stderr=err,
    )
    key = out.getvalue().strip()
    assert re.fullmatch(r"[0-9a-f]{40}", key)  # stdout holds the token alone, as before
    user = User.objects.get(username="lab-bot")
    assert not user.has_usable_password() and user.email == "ops@lab.example"
    found = re.search(r"https://kumo\.example\.org(/accounts/reset/\S+/)", err.getvalue())
    assert found, err.getvalue()

    _set_password_through(found.group(1), "the lab's own passphrase")
    client = log_in("lab-bot", "the lab's own passphrase")
    page = client.get("/account/")
    assert page.status_code == 200
    body = page.content.decode()
    assert f"<code>{key[:6]}…</code>" in body and "not confirmed" not in body
    # Operator-made accounts need no confirmation: they may own model names at once.
    assert names.claim_model_name("lab-model", user=user).owner == user
    # The link worked once; run again, the command keeps the token and prints no link.
    out2, err2 = StringIO(), StringIO()
    call_command("create_api_token", "lab-bot", stdout=out2, stderr=err2)
    assert out2.getvalue().strip() == key and "/accounts/reset/" not in err2.getvalue()
    assert "does not work" in Client().get(found.group(1), follow=True).content.decode()


def test_an_account_without_a_password_can_use_the_reset_page():
    call_command(
        "create_api_token",
        "harness",
        "--email",
        "h@lab.example",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    Client().post("/accounts/password_reset/", {"email": "h@lab.example"})
    assert len(mail.outbox) == 1
    _set_password_through(link_in(mail.outbox[0], r"/accounts/reset/\S+/"), "harness passphrase!")
    log_in("harness", "harness passphrase!")


def test_the_organisation_is_shown_with_the_username_as_the_owner_of_a_model():
    user = User.objects.create_user("ada", password=PASSWORD)
    entry = names.claim_model_name("engine-7", user=user)
    client = log_in("ada")
    assert names.owner_labels(["engine-7"]) == {"engine-7": "ada"}

    saved = client.post("/account/organisation/", {"organisation": " Analytical  Engines <Ltd> "})
    assert saved.status_code == 302
    assert names.owner_labels(["engine-7"]) == {"engine-7": "ada (Analytical Engines <Ltd>)"}
    page = Client().get(f"/leaderboard/models/{entry.pk}/").content.decode()
    assert "ada (Analytical Engines &lt;Ltd&gt;)" in page and "<Ltd>" not in page
    assert "Analytical Engines &lt;Ltd&gt;" in client.get("/account/").content.decode()
    too_long = client.post("/account/organisation/", {"organisation": "x" * 101})
    assert too_long.status_code == 400
    assert client.get("/account/organisation/").status_code == 405


def test_a_visitor_plays_a_family_task_without_logging_in_and_keeps_it_on_signing_up(
    play_family,
):
    (task,) = do_generate_family_tasks("simple", "math", count=1, seed=3, level="easy").tasks
    visitor = Client()
    listing = visitor.get("/families/").content.decode()
    assert "Log in to play" not in listing and 'value="easy"' in listing
    location = play_family(visitor, "simple", "math", REMOTE_ADDR=ADDRESS)
    attempt = FamilyAttempt.objects.select_related("player").get()
    guest = attempt.player
    assert attempt.task == task and Visitor.objects.filter(user=guest).exists()
    assert not guest.has_usable_password()
    page = visitor.get(location).content.decode()
    assert "Playing as a visitor" in page and 'href="/accounts/signup/"' in page
    visitor.post(location, {"answer": str(task.hidden["answer"])})
    attempt.refresh_from_db()
    assert attempt.finished and attempt.correct

    # A KUMO-style guest account it is: the account page sends it to sign up, which keeps
    # the play (the guest account itself becomes the account).
    assert visitor.get("/account/")["Location"] == "/accounts/signup/"
    assert (
        "your games and tasks so far come with you"
        in visitor.get("/accounts/signup/").content.decode()
    )
    assert sign_up(visitor, "kept").status_code == 302
    kept = User.objects.get(username="kept")
    assert kept.pk == guest.pk and not Visitor.objects.filter(user=kept).exists()
    assert FamilyAttempt.objects.get().player == kept
    assert visitor.get(location).status_code == 200  # still signed in, still theirs


def test_guest_accounts_made_from_one_address_are_bounded(settings):
    settings.VISITOR_GAMES_PER_HOUR_PER_IP = 2
    do_generate_family_tasks("simple", "math", count=3, seed=4, level="easy")
    for _ in range(2):
        response = Client().post(
            "/families/play/",
            {"family": "simple", "kind": "math", "level": "easy"},
            REMOTE_ADDR=ADDRESS,
        )
        assert response.status_code == 302
    refused = Client().post(
        "/families/play/",
        {"family": "simple", "kind": "math", "level": "easy"},
        REMOTE_ADDR=ADDRESS,
    )
    assert refused.status_code == 429 and "guest sessions" in refused.content.decode()
    assert Visitor.objects.count() == 2


def test_deploy_checks_warn_when_mail_would_only_be_printed(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    assert [warning.id for warning in mail_is_sent(None)] == ["kumo.W001"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert mail_is_sent(None) == []


def test_the_practice_purge_keeps_a_guest_who_played_family_tasks(play_family):
    from engine.practice import do_make_guest, purge_practice

    do_generate_family_tasks("simple", "math", count=1, seed=5, level="easy")
    play_family(Client(), "simple", "math", REMOTE_ADDR=ADDRESS)
    idle = do_make_guest(ADDRESS)
    with time_machine.travel(timezone.now() + timedelta(days=31)):
        assert purge_practice()["guests"] == 1
    assert not User.objects.filter(pk=idle.pk).exists()
    assert FamilyAttempt.objects.get().player.visitor is not None
