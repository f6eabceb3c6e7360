"""A NUL character (%00) in an address or its query is refused with 400 and the reason on
every page and API operation (benchmark.api_conventions.RefuseNulMiddleware). On
PostgreSQL any lookup by such a value was a server error (it cannot compare text with
NUL): the lists of instances, family tasks, ranked plays and the boards, by a domain, a
level or a model's name."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

API = [
    "/api/v1/family-tasks/?level=%00",
    "/api/v1/family-tasks/?family=simple&kind=counting&level=%00",
    "/api/v1/family-tasks/?kind=%00",
    "/api/v1/instances/?domain=%00",
    "/api/v1/leaderboard/?domain=%00",
    "/api/v1/family-leaderboard/?family=%00",
    "/api/v1/ranked-games/?model=%00",
    "/api/v1/ranked-family-attempts/?model=%00",
    "/api/v1/families/?x%00=1",
]
PAGES = [
    "/leaderboard/?domain=%00",
    "/leaderboard/families/?family=puzzles&kind=%00",
    "/leaderboard/profile/?family=%00",
    "/leaderboard/board.csv?round=%00",
    "/families/?family=%00",
]


@pytest.mark.parametrize("url", API)
def test_an_api_address_with_a_nul_is_refused_with_the_reason(url, orchard, make_user):
    client = APIClient()
    client.force_authenticate(make_user("asker"))
    response = client.get(url)
    assert response.status_code == 400
    assert response.json() == {
        "error": "the address holds a NUL character (%00), which no name on this site holds"
    }


@pytest.mark.parametrize("url", PAGES)
def test_a_page_address_with_a_nul_is_refused_with_the_reason(url, orchard):
    response = Client().get(url)
    assert response.status_code == 400
    assert b"NUL character" in response.content


def test_a_nul_in_a_domains_address_is_refused(orchard):
    response = Client().get("/domains/orch%00ard/")
    assert response.status_code == 400
    # The same address without it is the domain's page.
    assert Client().get("/domains/orchard/").status_code == 200
