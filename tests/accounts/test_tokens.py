"""A researcher creates, regenerates and revokes their API token on the account page."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token

from humanstudy.models import Participant

pytestmark = pytest.mark.django_db


def api_status(key: str) -> int:
    return Client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/v1/instances/").status_code


def shown_key(html: str) -> str | None:
    found = re.search(r'<code id="token-key">([0-9a-f]{40})</code>', html)
    return found.group(1) if found else None


@pytest.fixture
def signed_in(orchard):
    User.objects.create_user("ada", password="a long researcher password")
    client = Client()
    client.force_login(User.objects.get(username="ada"))
    return client


def test_a_researcher_creates_regenerates_and_revokes_a_token(signed_in):
    page = signed_in.get("/account/").content.decode()
    assert "You have no API token." in page
    assert 'href="/account/"' in page  # the top bar links the page

    created = signed_in.post("/account/token/", {"action": "create"}, follow=True)
    key = shown_key(created.content.decode())
    assert key and api_status(key) == 200
    # Shown once: the next visit shows only its first characters.
    again = signed_in.get("/account/").content.decode()
    assert shown_key(again) is None and f"<code>{key[:6]}…</code>" in again

    regenerated = signed_in.post("/account/token/", {"action": "regenerate"}, follow=True)
    new_key = shown_key(regenerated.content.decode())
    assert new_key and new_key != key
    assert api_status(key) == 401 and api_status(new_key) == 200

    signed_in.post("/account/token/", {"action": "revoke"})
    assert api_status(new_key) == 401 and not Token.objects.exists()
    assert signed_in.post("/account/token/", {"action": "steal"}).status_code == 400


def test_the_token_endpoint_takes_posts_only_and_the_page_needs_a_login(orchard):
    anonymous = Client()
    response = anonymous.get("/account/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert anonymous.post("/account/token/", {"action": "create"}).status_code == 302
    assert not Token.objects.exists()
    user = User.objects.create_user("ada", password="a long researcher password")
    client = Client()
    client.force_login(user)
    assert client.get("/account/token/").status_code == 405


def test_the_token_form_is_protected_against_cross_site_posts(orchard):
    user = User.objects.create_user("ada", password="a long researcher password")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/account/token/", {"action": "create"}).status_code == 403
    assert not Token.objects.exists()


def test_a_participant_is_sent_to_their_study_and_gets_no_token(orchard):
    user = User.objects.create_user("P001", password="a participant password")
    Participant.objects.create(user=user)
    client = Client()
    client.force_login(user)
    page = client.get("/account/")
    assert page.status_code == 302 and page["Location"] == "/study/"
    assert client.post("/account/token/", {"action": "create"}).status_code == 302
    assert not Token.objects.exists()
    assert 'href="/account/"' not in client.get("/").content.decode()
