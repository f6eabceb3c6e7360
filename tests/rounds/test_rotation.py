"""A round's whole life on a frozen clock: prepared, rotated in, scored, rotated out two
months on and published, seen through the board, the API, the rounds page, the download
and the admin."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError
from django.test import Client
from django.utils.html import strip_tags

from engine.actions import parse_instances_jsonl
from engine.models import Instance
from leaderboard import rounds
from leaderboard.models import BoardRow, Round
from tests.rounds.helpers import prepare, run, submit

# Real transactions: scoring, preparing and recomputing run after commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


def page_rows(html: str) -> list[str]:
    return re.findall(r'<tr class="[^"]*" data-model="([^"]+)"', html)


def text(html: str) -> str:
    return " ".join(strip_tags(html).split())


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


@pytest.fixture
def first_round(clock, grove, researcher):
    """Round 2025-01 (orchard + grove, 4x6 and 5x4, 3 instances each) active from 1 Jan.

    alpha plays orchard 5x4 on the round's seeds 100-102 (all won) and on the three older
    orchard instances, seeds 0-2, that belong to no round (all lost), and orchard 4x6
    (won); beta plays grove 5x4 (2 of 3 won).
    """
    out = prepare("2025-01", "orchard,grove", "4x6,5x4", 3, 100)
    assert "is prepared" in out
    run("rotate_round")
    submit(
        researcher,
        "alpha",
        "orchard",
        (5, 4),
        {0: False, 1: False, 2: False} | dict.fromkeys((100, 101, 102), True),
    )
    submit(researcher, "alpha", "orchard", (4, 6), dict.fromkeys((100, 101, 102), True))
    submit(researcher, "beta", "grove", (5, 4), {100: True, 101: True, 102: False})
    return Round.objects.get(name="2025-01")


def test_a_prepared_round_goes_live_with_default_dates_and_pinned_instances(first_round):
    assert first_round.status == Round.Status.ACTIVE
    assert (first_round.starts_on, first_round.ends_on) == (date(2025, 1, 1), date(2025, 3, 1))
    pinned = Instance.objects.filter(rounds=first_round)
    assert pinned.count() == first_round.total_instances == 12
    assert sorted(pinned.values_list("domain__name", "n_truths", "n_actions")) == sorted(
        (domain, t, a)
        for domain in ("orchard", "grove")
        for t, a in ((4, 6), (5, 4))
        for _ in "abc"
    )
    # Their seeds are secret: a keyed hash of the round's seed, never 100 … 102.
    assert set(pinned.values_list("seed", flat=True)) == {
        seed
        for domain in ("orchard", "grove")
        for setting in ("4x6", "5x4")
        for seed in rounds.round_seeds(first_round, domain, setting, "", 3)
    }
    # Every pinned instance was stored by the engine with its oracle values and a book.
    for instance in pinned:
        assert instance.oracle_actions is not None and instance.expected_actions is not None
        assert instance.current_book() is not None


def test_the_board_shows_the_current_round_by_default_and_every_result_across_rounds(
    first_round,
):
    client = Client()
    html = client.get("/leaderboard/", {"setting": "5x4"}).content.decode()
    assert page_rows(html) == ["alpha", "beta"]
    assert "Round 2025-01" in text(html) and "only games on the round's instances" in text(html)
    assert '<option value="2025-01" selected>2025-01 (current)</option>' in html
    # Only the round's domains are offered.
    assert re.findall(r'<option value="(orchard|grove)"', html) == ["grove", "orchard"]

    in_round = BoardRow.objects.get(round=first_round, model__name="alpha", domain=None, n_truths=5)
    assert (in_round.success_rate, in_round.trajectories, in_round.instances) == (1.0, 3, 3)
    across = BoardRow.objects.get(round=None, model__name="alpha", domain=None, n_truths=5)
    assert (across.success_rate, across.trajectories, across.instances) == (0.5, 6, 6)
    beta = BoardRow.objects.get(round=first_round, model__name="beta", domain=None, n_truths=5)
    assert beta.success_rate == pytest.approx(2 / 3)

    everything = client.get("/leaderboard/", {"setting": "5x4", "round": "all"}).content.decode()
    assert page_rows(everything) == ["beta", "alpha"]  # 2/3 beats 1/2 across rounds
    assert '<option value="all" selected>' in everything
    assert "/leaderboard/board.csv?setting=5x4&amp;round=all" in everything
    # The default setting of a round is Easy when the round has it.
    assert page_rows(client.get("/leaderboard/").content.decode()) == ["alpha"]
    assert client.get("/leaderboard/", {"round": "2024-11"}).status_code == 400


def test_the_api_filters_by_round(first_round, researcher):
    client = Client()
    default = client.get("/api/v1/leaderboard/", {"truths": 5, "actions": 4}).json()
    assert [(row["model"], row["round"], row["trajectories"]) for row in default] == [
        ("alpha", "2025-01", 3),
        ("beta", "2025-01", 3),
    ]
    across = client.get("/api/v1/leaderboard/", {"truths": 5, "actions": 4, "round": "all"})
    assert [(row["model"], row["round"]) for row in across.json()] == [
        ("beta", None),
        ("alpha", None),
    ]
    per_domain = client.get(
        "/api/v1/leaderboard/", {"truths": 5, "actions": 4, "domain": "orchard"}
    ).json()
    assert [(row["model"], row["domain"], row["success_rate"]) for row in per_domain] == [
        ("alpha", "orchard", 1.0)
    ]
    unknown = client.get("/api/v1/leaderboard/", {"round": "1999-01"})
    assert unknown.status_code == 400
    assert "no public round named" in unknown.json()["fields"]["round"]


def test_the_board_downloads_pin_the_round_they_show(first_round):
    client = Client()
    records = client.get("/leaderboard/board.json", {"setting": "5x4"}).json()
    assert [(r["model"], r["round"], r["trajectories"]) for r in records] == [
        ("alpha", "2025-01", 3),
        ("beta", "2025-01", 3),
    ]
    csv_text = client.get("/leaderboard/board.csv", {"setting": "5x4", "round": "all"})
    assert "round" in csv_text.content.decode().splitlines()[0].split(",")


def test_the_board_and_rounds_pages_need_a_fixed_number_of_queries(
    first_round, django_assert_num_queries
):
    client = Client()
    # A round's board also reads the verified rows made outside the round (one query).
    for query, queries in (
        ({}, 4),
        ({"round": "all"}, 3),
        ({"round": "2025-01", "domain": "grove"}, 4),
    ):
        with django_assert_num_queries(queries):
            assert client.get("/leaderboard/", query).status_code == 200
    with django_assert_num_queries(2):  # the rounds, their domains
        assert client.get("/leaderboard/rounds/").status_code == 200


def test_rotating_two_months_on_closes_publishes_and_switches_the_board(
    first_round, researcher, staff, clock
):
    client = Client()
    # The next round is prepared through the admin form while the first one runs.
    response = staff.post(
        "/admin/leaderboard/round/prepare/",
        {
            "domains": [Instance.objects.filter(domain__name="grove").first().domain_id],
            "task_settings": "4x6",
            "instances": "2",
            "seed": "500",
        },
    )
    assert response.status_code == 302
    second = Round.objects.get(name="2025-03")
    assert response["Location"] == f"/admin/leaderboard/round/{second.pk}/change/"
    assert second.status == Round.Status.PREPARED
    assert (second.starts_on, second.ends_on) == (date(2025, 3, 1), date(2025, 5, 1))
    # The prepared round's instances are invisible until it goes live: a file naming them
    # is refused as naming no instance.
    refused = submit(researcher, "gamma", "grove", (4, 6), {500: True, 501: False}, expect=422)
    first = Instance.objects.filter(rounds=second).order_by("pk").first()
    assert f"no stored instance with id {first.pk}" in refused["errors"][0]
    listed = researcher.get("/api/v1/instances/", {"domain": "grove", "truths": 4}).json()
    assert first.pk not in [row["id"] for row in listed["results"]]
    assert not BoardRow.objects.filter(round=second).exists()
    assert 'data-round="2025-03"' not in client.get("/leaderboard/rounds/").content.decode()

    # Nothing of the active round is downloadable.
    assert client.get("/leaderboard/rounds/2025-01/instances.jsonl").status_code == 404
    changelist = text(staff.get("/admin/leaderboard/round/").content.decode())
    assert "Current round: 2025-01" in changelist
    assert "Next rotation: 2025-03-01 (in 59 days)" in changelist
    assert "Round 2025-03 is prepared" in changelist

    clock(2025, 3, 1)
    # Two months on, the admin's session has expired (two weeks): log in again.
    assert staff.get("/admin/leaderboard/round/").status_code == 302
    staff.force_login(User.objects.get(username="boss"))
    changelist = text(staff.get("/admin/leaderboard/round/").content.decode())
    assert "Next rotation: 2025-03-01 (due today)" in changelist
    response = staff.post("/admin/leaderboard/round/rotate/", {"publish": "on"}, follow=True)
    assert response.status_code == 200
    assert (
        "Round 2025-03 is now active, until 2025-05-01. Round 2025-01 is closed and its "
        "instances are published." in messages_of(response)
    )
    first_round.refresh_from_db()
    second.refresh_from_db()
    assert first_round.status == Round.Status.CLOSED and first_round.published
    assert second.status == Round.Status.ACTIVE

    # Once live, the same file is scored; the board opens on the new round and keeps the old.
    submit(researcher, "gamma", "grove", (4, 6), {500: True, 501: False})
    assert page_rows(client.get("/leaderboard/").content.decode()) == ["gamma"]
    old = client.get("/leaderboard/", {"round": "2025-01", "setting": "5x4"}).content.decode()
    assert page_rows(old) == ["alpha", "beta"]
    api = client.get("/api/v1/leaderboard/", {"truths": 4, "actions": 6}).json()
    assert [(row["model"], row["round"], row["success_rate"]) for row in api] == [
        ("gamma", "2025-03", 0.5)
    ]

    # The rounds page lists both, with dates and domains, and links only the closed one.
    page = client.get("/leaderboard/rounds/").content.decode()
    listed = re.findall(r'<tr data-round="([^"]+)">', page)
    assert listed == ["2025-03", "2025-01"]
    assert "2025-01-01" in page and "2025-03-01" in page and "2025-05-01" in page
    assert 'href="/leaderboard/rounds/2025-01/instances.jsonl"' in page
    assert "/leaderboard/rounds/2025-03/instances.jsonl" not in page

    # The published download holds every instance of the old round with its valid truth.
    download = client.get("/leaderboard/rounds/2025-01/instances.jsonl")
    assert download.status_code == 200
    assert "attachment" in download["Content-Disposition"]
    lines = [json.loads(line) for line in b"".join(download.streaming_content).splitlines()]
    stored = {
        (i.domain.name, i.n_truths, i.seed): i
        for i in Instance.objects.filter(rounds=first_round).select_related("domain")
    }
    assert len(lines) == len(stored) == 12
    for line in lines:
        instance = stored[(line["domain"], len(line["truths"]), line["seed"])]
        assert line["valid_truth"] == instance.valid_truths[0]
        assert line["observations"] == instance.observations
        assert line["oracle_actions"] == instance.oracle_actions
    # Narrowed to one domain and setting it is a task file the engine reads as it is.
    narrowed = client.get(
        "/leaderboard/rounds/2025-01/instances.jsonl", {"domain": "orchard", "setting": "4x6"}
    )
    cores = parse_instances_jsonl(b"".join(narrowed.streaming_content).decode().splitlines())
    secret = sorted(rounds.round_seeds(first_round, "orchard", "4x6", "", 3))
    assert [core.seed for core in cores] == secret  # published: the seeds are shown
    assert (
        cores[0]
        == Instance.objects.get(domain__name="orchard", n_truths=4, seed=secret[0]).to_core()
    )
    # Never the active round's, nor an unknown one's.
    assert client.get("/leaderboard/rounds/2025-03/instances.jsonl").status_code == 404
    assert client.get("/leaderboard/rounds/1999-01/instances.jsonl").status_code == 404


def test_rotating_twice_is_refused_the_second_time_and_changes_nothing(first_round, staff):
    prepare("next", "grove", "4x6", 2, 700)
    first = staff.post("/admin/leaderboard/round/rotate/", follow=True)
    assert "Round next is now active" in messages_of(first)[0]
    second = staff.post("/admin/leaderboard/round/rotate/", follow=True)
    assert messages_of(second) == [
        "Nothing to rotate in: No next round is prepared. Prepare one first (python manage.py "
        "prepare_round, or 'Prepare next round' in the admin)."
    ]
    assert list(Round.objects.order_by("pk").values_list("name", "status")) == [
        ("2025-01", "closed"),
        ("next", "active"),
    ]
    assert Round.objects.get(name="2025-01").published_at is None
    with pytest.raises(CommandError, match="Nothing to rotate in"):
        run("rotate_round")
    assert staff.get("/admin/leaderboard/round/rotate/").status_code == 405


def test_publishing_is_for_closed_rounds_only(first_round, staff):
    client = Client()
    action = {"action": "publish_instances", "_selected_action": [first_round.pk]}
    response = staff.post("/admin/leaderboard/round/", action, follow=True)
    assert messages_of(response) == [
        "round 2025-01 is active: only a closed round's instances can be published, never "
        "the active round's"
    ]
    assert client.get("/leaderboard/rounds/2025-01/instances.jsonl").status_code == 404

    prepare("next", "grove", "4x6", 2, 700)
    run("rotate_round")  # closes 2025-01 without publishing it
    assert client.get("/leaderboard/rounds/2025-01/instances.jsonl").status_code == 404
    response = staff.post("/admin/leaderboard/round/", action, follow=True)
    assert messages_of(response) == ["Round 2025-01 published."]
    assert client.get("/leaderboard/rounds/2025-01/instances.jsonl").status_code == 200
    again = staff.post("/admin/leaderboard/round/", action, follow=True)
    assert messages_of(again) == ["Round 2025-01 was already published."]


def test_the_admin_index_shows_the_current_round_and_the_next_rotation(first_round, staff):
    page = text(staff.get("/admin/").content.decode())
    assert "Current round: 2025-01 (2025-01-01 to 2025-03-01)" in page
    assert "Next rotation: 2025-03-01 (in 59 days)" in page
    assert "No next round is prepared." in page
    assert "Manage rounds" in page


def test_after_an_early_rotation_the_pages_show_the_dates_the_rounds_really_ran(first_round, clock):
    prepare("2025-03", "grove", "4x6", 2, 500)
    clock(2025, 2, 10)  # three weeks before the planned rotation
    run("rotate_round")
    first_round.refresh_from_db()
    assert first_round.status == Round.Status.CLOSED
    assert first_round.ends_on == date(2025, 3, 1)  # the plan, kept
    rows = {
        match[0]: text(match[1])
        for match in re.findall(
            r'<tr data-round="([^"]+)">(.*?)</tr>',
            Client().get("/leaderboard/rounds/").content.decode(),
            re.S,
        )
    }
    assert "2025-01-01 2025-02-10 (planned 2025-01-01 to 2025-03-01)" in rows["2025-01"]
    assert "2025-02-10 2025-05-01 (planned)" in rows["2025-03"]
    board = text(Client().get("/leaderboard/?round=2025-01").content.decode())
    assert "2025-01-01 to 2025-02-10" in board
