"""What the board says about the rows it shows: that no round is live (and how a verified
row is made meanwhile), and, once a round is live, the verified rows made outside it (the
runner on the stored tasks), which stay in sight instead of dropping to "all rounds"."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from tests.rounds.helpers import prepare, run

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_board_says_no_round_is_live_and_keeps_runner_rows_in_sight(clock, grove, admin_user):
    client = Client()
    empty = client.get("/leaderboard/", {"setting": "5x4"}).content.decode()
    assert 'id="no-live-round"' in empty and "manage.py evaluate" in empty
    call_command(
        "evaluate", "--model", "oracle", "--domains", "orchard", "--truths", "5",
        "--actions", "4", "--runs", "1", "--user", admin_user.username,
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    before = client.get("/leaderboard/", {"setting": "5x4"}).content.decode()
    assert 'data-model="oracle"' in before and 'id="outside-round"' not in before

    assert "is prepared" in prepare("2025-01", "orchard,grove", "4x6,5x4", 3, 100)
    run("rotate_round")
    live = client.get("/leaderboard/", {"setting": "5x4"}).content.decode()
    assert 'id="no-live-round"' not in live and "Round <strong>2025-01</strong>" in live
    outside = live.split('id="outside-round"', 1)
    assert len(outside) == 2, "the runner's verified row left the round's board"
    assert 'data-model="oracle"' in outside[1].split('id="self-reported"', 1)[0]
    # Across rounds it is one verified row like any other, and no section apart.
    everything = client.get("/leaderboard/", {"setting": "5x4", "round": "all"}).content.decode()
    assert 'data-model="oracle"' in everything and 'id="outside-round"' not in everything
