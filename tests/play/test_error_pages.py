"""The error pages (400, 403, a failed CSRF check, 404, 500) in the site's look: each says
what happened and what to do, with styled buttons; a study participant sees them inside the
study's frame, with the way back to their study."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from humanstudy.models import Participant, TaskSet

pytestmark = pytest.mark.django_db

SITE_NAV = ('href="/families/"', 'href="/leaderboard/"', "KUMO platform</a>")


def in_site_look(html: str) -> None:
    assert '<link rel="stylesheet" href="/static/css/site.css">' in html
    assert 'id="error-page"' in html and 'class="button primary"' in html


def in_study_frame(html: str) -> None:
    assert 'id="study-header"' in html
    for mark in SITE_NAV:
        assert mark not in html, mark
    assert 'class="button primary" href="/study/"' in html


@pytest.fixture
def participant_client() -> Client:
    user = User.objects.create_user("p-0001", password="a long password here")
    Participant.objects.create(user=user, task_set=TaskSet.objects.create(name="empty"))
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def test_an_unknown_page_is_a_404_in_the_site_look_with_the_way_on():
    response = Client().get("/no/such/<page>/")
    html = response.content.decode()
    assert response.status_code == 404
    in_site_look(html)
    assert "Page not found" in html and 'href="/families/"' in html
    assert "<page>" not in html  # the address is shown escaped
    # Under /api/ the API's own JSON error, not the page.
    api = Client().get("/api/v1/no-such-thing/")
    assert api.status_code == 404 and api.json()["error"].startswith("no such API address")


def test_a_participant_gets_the_404_inside_the_study_frame(participant_client):
    response = participant_client.get("/no/such/page/")
    assert response.status_code == 404
    html = response.content.decode()
    in_study_frame(html)
    assert "Back to your study page" in html


def test_a_page_the_account_may_not_open_is_a_403_saying_why_and_what_to_do():
    staff = User.objects.create_user("helper", password="a long password here", is_staff=True)
    client = Client()
    client.force_login(staff)
    response = client.get("/admin/auth/user/")  # staff, but without the permission
    html = response.content.decode()
    assert response.status_code == 403
    in_site_look(html)
    assert "You may not open this page" in html
    assert "Your account, helper, does not have the permission" in html
    assert "log out and log in with that one" in html


def test_a_form_without_its_csrf_token_is_a_403_saying_to_reload():
    response = Client(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "x", "password": "y"}
    )
    html = response.content.decode()
    assert response.status_code == 403
    in_site_look(html)
    assert "This form could not be sent" in html and "reload the page" in html
    assert "CSRF verification failed" not in html  # not Django's bare page


def test_a_participant_s_stale_form_is_refused_inside_the_study_frame(participant_client):
    response = participant_client.post("/study/consent/", {"choice": "agree"})
    assert response.status_code == 403
    html = response.content.decode()
    in_study_frame(html)
    assert "This form could not be sent" in html
    assert Participant.objects.get().stage != "instructions"


def test_a_request_for_another_host_is_a_400_in_the_site_look():
    response = Client().get("/", HTTP_HOST="elsewhere.example")
    html = response.content.decode()
    assert response.status_code == 400
    in_site_look(html)
    assert "could not read this request" in html


def test_a_server_error_page_needs_nothing_but_itself():
    """Django renders 500.html without a request or context (what failed may be what
    would fill them); it still has the site's look and a way on."""
    from django.urls import get_resolver

    server_error = get_resolver().resolve_error_handler(500)
    response = server_error(RequestFactory().get("/leaderboard/"))
    html = response.content.decode()
    assert response.status_code == 500
    in_site_look(html)
    assert "Something went wrong on our side" in html and 'href="/"' in html
    # Under /api/ the API's error shape.
    api = server_error(RequestFactory().get("/api/v1/sessions/"))
    assert api.status_code == 500 and "has been logged" in api.content.decode()
    assert api["Content-Type"] == "application/json"
