"""Domains, instances and books are browsable and searchable in the Django admin."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.models import Instance, KnowledgeBook

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(small_domain_file: Path) -> None:
    call_command("import_domain", str(small_domain_file), stdout=StringIO())
    call_command(
        "generate_tasks",
        "orchard",
        "--truths",
        "4",
        "--actions",
        "3",
        "--count",
        "3",
        stdout=StringIO(),
    )


def test_admin_lists_and_searches_domains(admin_client, stored):
    response = admin_client.get("/admin/engine/domain/?q=orchard")
    assert response.status_code == 200
    assert "Orchard pests" in response.content.decode()
    response = admin_client.get("/admin/engine/domain/?q=volcano")
    assert "Orchard pests" not in response.content.decode()


def test_admin_shows_an_instance_with_its_book(admin_client, stored):
    instance = Instance.objects.order_by("seed").first()
    response = admin_client.get(f"/admin/engine/instance/{instance.pk}/change/")
    body = response.content.decode()
    assert response.status_code == 200
    assert instance.truths[0] in body
    assert "deterministic writer" in body
    listing = admin_client.get(f"/admin/engine/instance/?domain__id__exact={instance.domain_id}")
    assert listing.status_code == 200 and "seed=2" in listing.content.decode()


def test_admin_searches_book_text(admin_client, stored):
    book = KnowledgeBook.objects.first()
    response = admin_client.get("/admin/engine/knowledgebook/", {"q": book.instance.actions[0]})
    assert response.status_code == 200
    assert str(book.instance) in response.content.decode()


def test_admin_shows_books_but_never_edits_or_adds_one(admin_client, stored):
    # Sessions keep the book they started with; an edit in place would change their rules.
    book = KnowledgeBook.objects.first()
    text = book.text

    page = admin_client.get(f"/admin/engine/knowledgebook/{book.pk}/change/")
    edit = admin_client.post(f"/admin/engine/knowledgebook/{book.pk}/change/", {"text": "x"})
    add = admin_client.get("/admin/engine/knowledgebook/add/")
    instance_page = admin_client.get(f"/admin/engine/instance/{book.instance_id}/change/")

    assert page.status_code == 200 and "Save" not in page.content.decode()
    assert edit.status_code == 403
    assert add.status_code == 403
    # The instance page lists its books but offers no form for a new one.
    assert 'name="books-MAX_NUM_FORMS" value="0"' in instance_page.content.decode()
    book.refresh_from_db()
    assert book.text == text


def test_admin_requires_staff(client, stored):
    response = client.get("/admin/engine/instance/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_public_domain_pages_render(client, stored):
    assert "Orchard pests" in client.get("/").content.decode()
    response = client.get("/domains/orchard/")
    assert response.status_code == 200
    assert "Sticky Trap Count" in response.content.decode()
    assert client.get("/domains/nope/").status_code == 404


def test_play_sessions_are_browsable_and_read_only(admin_client, orchard, make_user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from engine import sessions
    from engine.models import PlaySession

    for index, instance in enumerate(Instance.objects.filter(domain=orchard)):
        player = make_user(f"player{index}")
        session, _ = sessions.start_session(player, instance)
        sessions.take_action(session.pk, player, instance.actions[0], {"pastes": 1})
        sessions.answer(session.pk, player, "<b>nobody</b>")  # refused, and stored
    with CaptureQueriesContext(connection) as few:
        listing = admin_client.get("/admin/engine/playsession/")
    assert listing.status_code == 200
    body = listing.content.decode()
    assert "player0" in body and "orchard" in body and "5/4" in body
    session = PlaySession.objects.order_by("pk").first()
    # One more session must not add queries: no query per row.
    player = make_user("player-extra")
    sessions.start_session(player, session.instance)
    with CaptureQueriesContext(connection) as more:
        admin_client.get("/admin/engine/playsession/")
    assert len(more) == len(few)

    detail = admin_client.get(f"/admin/engine/playsession/{session.pk}/change/")
    page = detail.content.decode()
    assert detail.status_code == 200 and "&lt;b&gt;nobody&lt;/b&gt;" in page
    assert "pastes" in page and 'name="_save"' not in page
    assert admin_client.get("/admin/engine/playsession/add/").status_code == 403
    assert admin_client.post(f"/admin/engine/playsession/{session.pk}/delete/").status_code == 403
    assert PlaySession.objects.filter(pk=session.pk).exists()
    assert (
        admin_client.get(f"/admin/engine/playsession/?q={session.player.username}").status_code
        == 200
    )
