"""The public leaderboard pages, their downloads and figures, and the leaderboard admin."""

from __future__ import annotations

import csv
import gzip
import importlib
import json
import re
from io import StringIO
from pathlib import Path

import plotly
import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.template.defaultfilters import floatformat
from django.test import Client
from django.utils.html import strip_tags
from rest_framework.test import APIClient

from engine import sessions
from engine.models import Instance
from humanstudy.models import Participant, TaskSet, TaskSetItem
from leaderboard.models import BoardRow, ExternalBenchmark, ModelEntry, Submission
from leaderboard.recompute import HUMANS, recompute
from leaderboard.views import PLOTLY_JS_VERSION

# Real transactions: scoring and recomputing run after commit, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


def results(wins: list[bool], *, lie: bool = False) -> list[dict]:
    """One native line per (instance, run) of orchard 5/4: ``wins`` in that order."""
    lines = []
    games = [(i, run) for i in Instance.objects.filter(domain__name="orchard") for run in (0, 1)]
    games.sort(key=lambda game: (game[0].seed, game[1]))
    for (instance, run), good in zip(games, wins, strict=True):
        wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        lines.append(
            {
                "seed": instance.seed,
                "run": run,
                "actions": list(instance.actions[: run + 1]),
                "answer": instance.valid_truths[0] if good else wrong,
                "tokens": {"prompt": 100, "completion": 20},
                "claimed": {"correct": True if lie else good, "actions_taken": run + 1},
            }
        )
    return lines


def submit(client: APIClient, model: str, wins: list[bool], **extra) -> dict:
    lie = extra.pop("lie", False)
    content = "".join(json.dumps(line) + "\n" for line in results(wins, lie=lie)).encode()
    response = client.post(
        "/api/v1/submissions/",
        {
            "model": model,
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("results.jsonl", content),
            **extra,
        },
        format="multipart",
    )
    assert response.status_code in (200, 201), response.content
    return response.json()


@pytest.fixture
def board(researcher):
    """Three models on orchard 5/4 with success rates 5/6, 3/6 and 1/6."""
    submit(researcher, "alpha", [True] * 5 + [False], provider="Lab A")
    submit(researcher, "beta", [True, False] * 3, lie=True)
    submit(researcher, "gamma", [True] + [False] * 5)
    return researcher


def page_rows(html: str) -> list[str]:
    """Model names of the board's rows, in page order."""
    return re.findall(r'<tr class="[^"]*" data-model="([^"]+)"', html)


def embedded_figures(html: str) -> dict[str, dict]:
    """Every ``json_script`` figure of a page, parsed, by element id."""
    scripts = re.findall(
        r'<script id="(figure-[^"]+)" type="application/json">(.*?)</script>', html
    )
    return {element_id: json.loads(text) for element_id, text in scripts}


def ci(value: float, low: float, high: float) -> str:
    return f"{floatformat(value, 2)} [{floatformat(low, 2)}, {floatformat(high, 2)}]"


def text(html: str) -> str:
    """What a reader sees: tags removed, whitespace collapsed."""
    return " ".join(strip_tags(html).split())


def test_the_board_shows_the_aggregate_rows_best_first_with_confidence_intervals(board):
    response = Client().get("/leaderboard/")
    assert response.status_code == 200
    html = response.content.decode()
    # No Easy or Hard results yet: the board opens on the stored setting.
    assert page_rows(html) == ["alpha", "beta", "gamma"]
    for row in BoardRow.objects.filter(domain__isnull=True).select_related("model"):
        assert ci(row.success_rate, row.success_ci_low, row.success_ci_high) in text(html)
        assert ci(row.relative_action_count, row.relative_ci_low, row.relative_ci_high) in text(
            html
        )
    assert 'value="5x4" selected' in html
    assert "Easy (4 truths / 6 actions)" in html and "Hard (12 truths / 16 actions)" in html
    assert '<option value="orchard">orchard</option>' in html
    assert 'href="/leaderboard/board.csv?setting=5x4"' in html
    assert "/static/js/board.js" in html


def test_the_board_filters_by_setting_and_domain(board):
    client = Client()
    html = client.get("/leaderboard/", {"setting": "5x4", "domain": "orchard"}).content.decode()
    assert page_rows(html) == ["alpha", "beta", "gamma"]
    assert '<option value="orchard" selected>orchard</option>' in html
    row = BoardRow.objects.get(model__name="beta", domain__name="orchard")
    assert ci(row.success_rate, row.success_ci_low, row.success_ci_high) in text(html)
    assert "board.json?setting=5x4&amp;domain=orchard" in html

    easy = client.get("/leaderboard/", {"setting": "4x6"}).content.decode()
    assert page_rows(easy) == []
    assert "No verified results for this setting yet" in easy
    assert "No self-reported results for this setting." in easy
    assert client.get("/leaderboard/", {"setting": "easy"}).status_code == 400


@pytest.mark.parametrize("query", [{}, {"setting": "5x4", "domain": "orchard"}])
def test_csv_and_json_downloads_hold_exactly_the_rows_shown(board, query):
    client = Client()
    shown = page_rows(client.get("/leaderboard/", query).content.decode())
    csv_response = client.get("/leaderboard/board.csv", query)
    assert csv_response.status_code == 200
    assert csv_response["Content-Type"].startswith("text/csv")
    assert "attachment" in csv_response["Content-Disposition"]
    table = list(csv.DictReader(StringIO(csv_response.content.decode())))
    records = client.get("/leaderboard/board.json", query).json()
    assert [r["model"] for r in table] == [r["model"] for r in records] == shown
    for line, record in zip(table, records, strict=True):
        row = (
            BoardRow.objects.get(
                model__name=record["model"],
                n_truths=5,
                n_actions=4,
                domain__name=query.get("domain"),
            )
            if query
            else BoardRow.objects.get(model__name=record["model"], domain__isnull=True)
        )
        assert record["success_rate"] == row.success_rate
        assert [record["success_ci_low"], record["success_ci_high"]] == [
            row.success_ci_low,
            row.success_ci_high,
        ]
        assert record["domain"] == query.get("domain")
        assert record["trajectories"] == row.trajectories == 6
        # The CSV holds the same values as the JSON, as text.
        assert float(line["success_rate"]) == record["success_rate"]
        assert float(line["relative_ci_high"]) == record["relative_ci_high"]
        # Uploaded files are self-reported: listed, never ranked.
        assert line["rank"] == "" and record["rank"] is None
        assert line["verified"] == "False" and record["verified"] is False
    assert [r["model"] for r in records] == ["alpha", "beta", "gamma"]


def test_the_board_page_makes_the_same_number_of_queries_for_any_number_of_rows(
    board, django_assert_num_queries
):
    client = Client()
    with django_assert_num_queries(3):
        assert client.get("/leaderboard/").status_code == 200
    for name in ("delta", "epsilon", "zeta"):
        submit(board, name, [False, True] * 3)
    with django_assert_num_queries(3):
        html = client.get("/leaderboard/").content.decode()
    assert len(page_rows(html)) == 6


def test_the_human_baseline_appears_on_the_board_marked_as_humans(board):
    user = User.objects.create_user("P001", password="unused password 1")
    task_set = TaskSet.objects.create(name="set-0001")
    for position, instance in enumerate(Instance.objects.filter(domain__name="orchard")):
        TaskSetItem.objects.create(task_set=task_set, instance=instance, position=position)
    participant = Participant.objects.create(user=user, task_set=task_set)
    for instance in Instance.objects.filter(domain__name="orchard"):
        session, _ = sessions.start_session(user, instance)
        sessions.take_action(session.pk, user, instance.actions[0])
        sessions.answer(session.pk, user, instance.valid_truths[0])
    Participant.objects.filter(pk=participant.pk).update(selected_for_analysis=True)

    recompute(full=True)

    humans = BoardRow.objects.get(model__name=HUMANS, domain__isnull=True)
    assert humans.success_rate == 1.0 and humans.trajectories == 3
    html = Client().get("/leaderboard/").content.decode()
    assert page_rows(html) == [HUMANS, "alpha", "beta", "gamma"]
    human_row = re.search(
        rf'<tr class="([^"]*)" data-model="{re.escape(HUMANS)}">(.*?)</tr>', html, re.S
    )
    assert "baseline-human" in human_row.group(1)
    assert "humans · baseline" in human_row.group(2)
    # Humans are a verified reference, not a ranked entry; the uploads are self-reported.
    records = Client().get("/leaderboard/board.json").json()
    assert [(r["model"], r["kind"], r["verified"], r["rank"]) for r in records] == [
        (HUMANS, "human", True, None),
        ("alpha", "model", False, None),
        ("beta", "model", False, None),
        ("gamma", "model", False, None),
    ]


def test_the_model_page_lists_rows_submissions_and_external_scores(board):
    beta = ModelEntry.objects.get(name="beta")
    # Transactional tests empty the tables, the migration's benchmarks included.
    mmlu, _ = ExternalBenchmark.objects.get_or_create(name="MMLU-Pro")
    beta.external_scores.create(benchmark=mmlu, score=71.5)
    # A rejected file shows up too, with its number of problems.
    bad = "".join(json.dumps({**line, "seed": 999}) + "\n" for line in results([True] * 6))
    board.post(
        "/api/v1/submissions/",
        {
            "model": "beta",
            "domain": "orchard",
            "truths": 5,
            "actions": 4,
            "format": "native",
            "file": SimpleUploadedFile("r.jsonl", bad.encode()),
        },
        format="multipart",
    )
    response = Client().get(f"/leaderboard/models/{beta.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>beta" in html and "5 truths / 4 actions" in html
    for row in BoardRow.objects.filter(model=beta):
        assert ci(row.success_rate, row.success_ci_low, row.success_ci_high) in text(html)
    assert "All domains" in html and ">orchard</a>" in html
    # beta's file claimed every game was won; the server's replay disagreed on three.
    assert "3 of 6" in html
    statuses = re.findall(r'<td class="status-(\w+)">', html)
    assert sorted(statuses) == ["done", "failed"]
    assert Submission.objects.get(model=beta, status="failed").errors
    assert "MMLU-Pro" in html and "71.5" in html
    assert Client().get("/leaderboard/models/999999/").status_code == 404


def test_the_heat_map_embeds_a_plotly_heatmap_of_success_rates(board):
    response = Client().get("/leaderboard/heatmap/")
    assert response.status_code == 200
    html = response.content.decode()
    figure = embedded_figures(html)["figure-heatmap"]
    (trace,) = figure["data"]
    assert trace["type"] == "heatmap"
    assert trace["x"] == ["orchard"] and trace["y"] == ["alpha", "beta", "gamma"]
    expected = [
        [BoardRow.objects.get(model__name=name, domain__name="orchard").success_rate]
        for name in trace["y"]
    ]
    assert trace["z"] == expected
    assert "5 truths / 4 actions" in figure["layout"]["title"]["text"]
    assert f"/leaderboard/assets/plotly-{PLOTLY_JS_VERSION}.min.js" in html
    assert "/static/js/plots.js" in html


def test_the_optimal_action_histogram_counts_every_solved_instance(board):
    html = Client().get("/leaderboard/optimal-actions/").content.decode()
    figure = embedded_figures(html)["figure-optimal-5x4"]
    (trace,) = figure["data"]
    assert trace["type"] == "bar" and trace["name"] == "orchard"
    oracle = sorted(Instance.objects.values_list("oracle_actions", flat=True))
    assert trace["x"] == sorted(set(oracle))
    assert trace["y"] == [oracle.count(x) for x in trace["x"]]


def test_plotly_js_is_served_locally_with_long_cache_headers(db):
    bundled = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    client = Client()
    url = f"/leaderboard/assets/plotly-{PLOTLY_JS_VERSION}.min.js"
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip, br")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content) == bundled
    assert "max-age=31536000" in response["Cache-Control"]
    assert "immutable" in response["Cache-Control"]
    plain = client.get(url)
    assert plain.content == bundled and not plain.has_header("Content-Encoding")
    old = client.get("/leaderboard/assets/plotly-0.0.1.min.js")
    assert old.status_code == 302 and old["Location"] == url


def test_the_pages_are_read_only(board):
    client = Client()
    for url in (
        "/leaderboard/",
        "/leaderboard/board.csv",
        "/leaderboard/heatmap/",
        "/leaderboard/correlations/",
        "/leaderboard/optimal-actions/",
    ):
        assert client.post(url).status_code == 405


def test_the_site_navigation_links_to_the_leaderboard(db):
    assert 'href="/leaderboard/">Leaderboard</a>' in Client().get("/").content.decode()


@pytest.fixture
def admin_client_(db):
    User.objects.create_superuser("boss", "boss@example.org", "a long admin password")
    client = Client()
    client.force_login(User.objects.get(username="boss"))
    return client


def test_the_admin_lists_the_leaderboard_tables(board, admin_client_):
    submission = Submission.objects.first()
    for url in (
        "/admin/leaderboard/modelentry/",
        f"/admin/leaderboard/modelentry/{submission.model_id}/change/",
        "/admin/leaderboard/submission/?status__exact=done",
        f"/admin/leaderboard/submission/{submission.pk}/change/",
        "/admin/leaderboard/externalbenchmark/",
        "/admin/leaderboard/boardrow/?scope=all",
        "/admin/leaderboard/correlationrow/",
    ):
        assert admin_client_.get(url).status_code == 200, url
    aggregates = admin_client_.get("/admin/leaderboard/boardrow/?scope=all").content.decode()
    assert aggregates.count("(all domains)") == 3
    # Submissions and cached rows cannot be edited or added by hand.
    page = admin_client_.get(f"/admin/leaderboard/submission/{submission.pk}/change/")
    assert b'name="_save"' not in page.content and submission.sha256.encode() in page.content
    assert admin_client_.get("/admin/leaderboard/boardrow/add/").status_code == 403


def test_recompute_now_rebuilds_the_board_from_the_admin(board, admin_client_):
    BoardRow.objects.all().delete()
    url = "/admin/leaderboard/boardrow/recompute/"
    assert admin_client_.get(url).status_code == 405
    response = admin_client_.post(url)
    assert response.status_code == 302
    assert BoardRow.objects.filter(domain__isnull=True).count() == 3

    BoardRow.objects.all().delete()
    model = ModelEntry.objects.get(name="alpha")
    response = admin_client_.post(
        "/admin/leaderboard/modelentry/",
        {"action": "recompute_now", "_selected_action": [model.pk]},
        follow=True,
    )
    assert "Recomputed the whole board" in response.content.decode()
    assert BoardRow.objects.filter(domain__isnull=True).count() == 3


def test_the_migration_creates_the_three_external_benchmarks(db):
    migration = importlib.import_module("leaderboard.migrations.0003_benchmarks")
    applied = MigrationRecorder(connection).applied_migrations()
    assert ("leaderboard", "0003_benchmarks") in applied
    # Transactional tests empty the tables, so run its function again (it is idempotent).
    for _ in range(2):
        migration.create_benchmarks(django_apps, None)
    names = sorted(ExternalBenchmark.objects.values_list("name", flat=True))
    assert names == ["LiveBench-Reasoning", "LongBench-v2", "MMLU-Pro"]
