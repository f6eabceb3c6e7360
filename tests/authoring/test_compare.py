"""The admin's side-by-side view of two versions of an instance's knowledge book."""

from __future__ import annotations

import pytest

from engine.models import KnowledgeBook

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions(orchard):
    instance = orchard.instances.order_by("seed").first()
    deterministic = instance.current_book()
    first = KnowledgeBook.objects.create(
        instance=instance,
        text=deterministic.text.replace("## How to reason", "## Reasoning <script>x()</script>"),
        author=KnowledgeBook.Author.LLM,
        author_detail="fake-author, version 1",
        problems=["truth 'Aphid' is never named"],
        review='{"approve": false, "problems": ["The intro is vague."]}',
        review_problems=["The intro is vague."],
    )
    second = KnowledgeBook.objects.create(
        instance=instance,
        text=deterministic.text + "\nA closing line.\n",
        author=KnowledgeBook.Author.LLM,
        author_detail="fake-author, version 2",
        passed_check=True,
        review='{"approve": true}',
        revision_of=first,
    )
    return deterministic, first, second


def test_the_compare_view_shows_both_versions_their_problems_and_reviews(admin_client, versions):
    _deterministic, first, second = versions
    response = admin_client.get(f"/admin/engine/knowledgebook/compare/{first.pk}/{second.pk}/")
    assert response.status_code == 200
    body = response.content.decode()
    assert f"book {first.pk}: LLM fake-author, version 1" in body
    assert f"book {second.pk}: LLM fake-author, version 2" in body
    assert 'class="diff"' in body and "A&nbsp;closing&nbsp;line." in body  # spaces kept
    # The LLM's text is escaped, never markup.
    assert "&lt;script&gt;x()&lt;/script&gt;" in body and "<script>x()" not in body
    assert "truth &#x27;Aphid&#x27; is never named" in body
    assert "The intro is vague." in body and "Did not pass" in body and "Passed" in body


def test_the_book_pages_link_to_the_comparison(admin_client, versions):
    deterministic, first, second = versions
    page = admin_client.get(f"/admin/engine/knowledgebook/{second.pk}/change/").content.decode()
    assert f"/admin/engine/knowledgebook/compare/{first.pk}/{second.pk}/" in page
    page = admin_client.get(f"/admin/engine/knowledgebook/{first.pk}/change/").content.decode()
    assert f"/admin/engine/knowledgebook/compare/{deterministic.pk}/{first.pk}/" in page
    page = admin_client.get(
        f"/admin/engine/instance/{deterministic.instance_id}/change/"
    ).content.decode()
    assert f"/admin/engine/knowledgebook/compare/{first.pk}/{second.pk}/" in page


def test_comparing_two_selected_books_redirects_to_the_view(admin_client, versions):
    deterministic, first, _second = versions
    response = admin_client.post(
        "/admin/engine/knowledgebook/",
        {"action": "compare_selected", "_selected_action": [str(first.pk), str(deterministic.pk)]},
    )
    assert response.status_code == 302
    assert response["Location"] == (
        f"/admin/engine/knowledgebook/compare/{deterministic.pk}/{first.pk}/"
    )
    response = admin_client.post(
        "/admin/engine/knowledgebook/",
        {"action": "compare_selected", "_selected_action": [str(first.pk)]},
        follow=True,
    )
    assert "Select exactly two books of the same instance." in response.content.decode()


def test_books_of_different_instances_are_not_compared(admin_client, orchard):
    first, second = (i.current_book() for i in orchard.instances.order_by("seed")[:2])
    response = admin_client.get(f"/admin/engine/knowledgebook/compare/{first.pk}/{second.pk}/")
    assert response.status_code == 400
    assert admin_client.get("/admin/engine/knowledgebook/compare/99999/1/").status_code == 404


def test_the_compare_view_is_for_staff_only(client, versions):
    _deterministic, first, second = versions
    response = client.get(f"/admin/engine/knowledgebook/compare/{first.pk}/{second.pk}/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_it_shows_markup_in_an_author_detail_as_text(admin_client, versions):
    _deterministic, first, second = versions
    KnowledgeBook.objects.filter(pk=first.pk).update(
        author_detail='<a href="http://evil.example/phish">model</a>'
    )
    response = admin_client.get(f"/admin/engine/knowledgebook/compare/{first.pk}/{second.pk}/")
    body = response.content.decode()
    assert response.status_code == 200
    assert '<a href="http://evil.example' not in body
    assert "&lt;a href=&quot;http://evil.example/phish&quot;&gt;model&lt;/a&gt;" in body
