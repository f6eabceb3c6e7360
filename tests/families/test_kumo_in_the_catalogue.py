"""KUMO's games are one family among the others in the catalogue (the API's and the
/families/ page's): a kind per domain a practice game may use, at the levels the domain is
big enough for, each with the endpoint that starts an attempt; the page's buttons start a
KUMO game at KUMO's own Play entry."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from engine.models import Domain, PlaySession
from engine.practice import LEVELS

pytestmark = pytest.mark.django_db

MEDICAL = Path(__file__).resolve().parents[2] / "engine" / "domains" / "medical.json"


def test_kumos_games_are_a_family_of_the_catalogue(orchard):
    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    body = Client().get("/api/v1/families/").json()
    names = [family["name"] for family in body]
    assert names == sorted(names) and "kumo" in names and "simple" in names
    kumo = next(family for family in body if family["name"] == "kumo")
    assert kumo["play"] == "/api/v1/sessions/"
    assert {f["play"] for f in body if f["name"] != "kumo"} == {"/api/v1/family-attempts/"}
    kinds = {kind["name"]: kind for kind in kumo["kinds"]}
    both = {level: {"truths": t, "actions": a} for level, (t, a) in LEVELS.items()}
    assert kinds["medical"]["levels"] == both
    assert kinds["medical"]["answer_format"] == "the name of one truth"
    assert {p["name"] for p in kinds["medical"]["parameters"]} == {"truths", "actions"}
    # The small domain has only the levels it is big enough for (none: it is not listed).
    small = Domain.objects.get(name="orchard")
    fits = {
        level: setting
        for level, setting in both.items()
        if small.truth_count >= setting["truths"] and small.action_count >= setting["actions"]
    }
    assert kinds.get("orchard", {}).get("levels", {}) == fits
    # The task generator's list holds the families it generates, not KUMO's.
    listed = StringIO()
    call_command("generate_family_tasks", "--list", stdout=listed)
    assert '"name": "kumo"' not in listed.getvalue()


def test_the_families_page_starts_a_kumo_game_at_its_play_entry():
    call_command("import_domain", str(MEDICAL), stdout=StringIO())
    visitor = Client()
    page = visitor.get("/families/").content.decode()
    row = re.search(r'<tr data-family="kumo" data-kind="medical">.*?</tr>', page, re.S).group(0)
    assert 'action="/play/"' in row and 'name="domain" value="medical"' in row
    assert 'value="easy"' in row and 'value="hard"' in row
    started = visitor.post("/play/", {"domain": "medical", "level": "hard"})
    assert started.status_code == 302 and re.fullmatch(r"/play/\d+/", started["Location"])
    session = PlaySession.objects.select_related("instance__domain").get()
    assert (session.instance.domain.name, session.instance.n_truths) == ("medical", 12)
