"""Every user string is escaped in every output: HTML pages, plot labels, CSV and JSON.

Names are validated now, but rows made before (or a name an admin typed) may hold markup or
a spreadsheet formula; every output must show such a name as the characters it is.
"""

from __future__ import annotations

import csv
import json
from io import StringIO

import pytest
from django.test import Client

from leaderboard.models import ExternalBenchmark, ExternalScore, ModelEntry
from leaderboard.recompute import recompute, recompute_correlations
from tests.leaderboard.test_pages import embedded_figures, submit

pytestmark = pytest.mark.django_db(transaction=True)

LINK = '<a href="http://evil.example/phish">win</a>'
FORMULA = '=HYPERLINK("http://evil.example","x")'


@pytest.fixture
def hostile_names(researcher):
    """Two models whose stored names are markup and a formula (as a legacy row might be),
    with board rows and external scores."""
    submit(researcher, "legacy-link", [True] * 5 + [False])
    submit(researcher, "legacy-formula", [True, False] * 3)
    submit(researcher, "plain", [False] * 6)
    ModelEntry.objects.filter(name="legacy-link").update(name=LINK)
    ModelEntry.objects.filter(name="legacy-formula").update(name=FORMULA)
    bench = ExternalBenchmark.objects.create(name="<b>MMLU</b>")
    for value, model in enumerate(ModelEntry.objects.all()):
        ExternalScore.objects.create(benchmark=bench, model=model, score=float(value))
    recompute(full=True)
    recompute_correlations()
    return ModelEntry.objects.get(name=LINK)


def assert_no_live_markup(html: str) -> None:
    """The hostile names appear only escaped: no tag of theirs reaches the page."""
    assert '<a href="http://evil.example' not in html
    assert "<b>MMLU</b>" not in html


def test_pages_show_markup_in_names_as_text(hostile_names):
    client = Client()
    for url in (
        "/leaderboard/?setting=5x4",
        f"/leaderboard/models/{hostile_names.pk}/",
        "/leaderboard/heatmap/?setting=5x4",
        "/leaderboard/correlations/?setting=5x4",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_no_live_markup(response.content.decode())
    board = client.get("/leaderboard/?setting=5x4").content.decode()
    assert "&lt;a href=&quot;http://evil.example/phish&quot;&gt;win&lt;/a&gt;" in board


def test_plot_labels_carry_no_markup(hostile_names):
    heatmap = embedded_figures(Client().get("/leaderboard/heatmap/?setting=5x4").content.decode())
    labels = heatmap["figure-heatmap"]["data"][0]["y"]
    assert '&lt;a href="http://evil.example/phish"&gt;win&lt;/a&gt;' in labels
    assert not any("<a" in label for label in labels)
    figures = embedded_figures(
        Client().get("/leaderboard/correlations/?setting=5x4").content.decode()
    )
    assert figures
    for figure in figures.values():
        text = json.dumps(figure)
        assert "<a href" not in text and "<b>MMLU</b>" not in text
        assert "&lt;b&gt;MMLU&lt;/b&gt;" in text


def test_csv_cells_never_start_a_formula_and_json_keeps_names_exact(hostile_names):
    client = Client()
    content = client.get("/leaderboard/board.csv", {"setting": "5x4"}).content.decode()
    names = [row["model"] for row in csv.DictReader(StringIO(content))]
    assert "'" + FORMULA in names and LINK in names
    assert not any(name.startswith(("=", "+", "-", "@")) for name in names)
    # Numbers stay numbers: a negative relative action count is not quoted.
    rows = list(csv.DictReader(StringIO(content)))
    assert any(row["relative_action_count"].startswith("-") for row in rows)
    records = client.get("/leaderboard/board.json", {"setting": "5x4"}).json()
    assert {FORMULA, LINK} <= {record["model"] for record in records}
    api = client.get("/api/v1/leaderboard/", {"truths": 5, "actions": 4, "round": "all"}).json()
    assert {FORMULA, LINK} <= {row["model"] for row in api}
