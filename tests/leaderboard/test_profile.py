"""The cross-family profile: every player's success per family side by side (KUMO's games
from the board, the task families from their attempts), the correlations between every
pair of families with Pearson and Spearman p-values and the number of models, and each
model's page showing its families."""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from scipy import stats

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine import families
from leaderboard.models import BoardRow, ModelEntry
from leaderboard.profile import build_profile

pytestmark = pytest.mark.django_db(transaction=True)

# Tasks right out of four, per model: (simple/math, puzzles/sudoku).
SKILL = {"alpha": (4, 4), "beta": (3, 2), "gamma": (1, 1), "delta": (0, 1)}


def _play_families():
    math = families.do_generate_family_tasks("simple", "math", count=4, level="easy").tasks
    grids = families.do_generate_family_tasks("puzzles", "sudoku", count=4, level="easy").tasks
    by_text = {task.public["text"]: task for task in [*math, *grids]}
    served: Counter[tuple[str, str]] = Counter()

    def script(request):
        model = request.body["model"]
        prompt = request.messages[-1]["content"]
        task = next(t for text, t in by_text.items() if text in prompt)
        served[(model, task.family)] += 1
        skill = SKILL[model][0 if task.family == "simple" else 1]
        right = served[(model, task.family)] <= skill
        if task.family == "simple":
            value = task.hidden["answer"] if right else task.hidden["answer"] + 1
            return FakeResponse(content=f"Answer: {value}")
        grid = [row[:] for row in task.hidden["solution"]]
        if not right:  # one empty cell wrong (LR²Bench scores the empty cells only)
            r, c = next(
                (r, c)
                for r, line in enumerate(task.public["grid"])
                for c, given in enumerate(line)
                if not given
            )
            grid[r][c] = grid[r][c] % 4 + 1
        return FakeResponse(content=f"<Answer>{json.dumps(grid)}</Answer>")

    with FakeChatServer(script) as server:
        for model in SKILL:
            for family, kind in (("simple", "math"), ("puzzles", "sudoku")):
                call_command(
                    "run_family_tasks", "--model", model, "--base-url", server.base_url,
                    "--family", family, "--kind", kind, "--level", "easy", "--count", "4",
                    "--concurrency", "1", stdout=StringIO(),
                )  # fmt: skip


def test_every_family_side_by_side_with_correlations(orchard, admin_user):
    for model in ("oracle", "random"):
        call_command(
            "evaluate", "--model", model, "--domains", "orchard", "--truths", "5",
            "--actions", "4", "--runs", "1", stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    assert BoardRow.objects.filter(verified=True, domain__isnull=True).exists()
    _play_families()
    profile = build_profile()
    assert profile.families == ["kumo", "puzzles", "simple"]
    rows = {row.player: row for row in profile.rows}
    assert rows["oracle"].cells["kumo"].rate == 1.0 and "simple" not in rows["oracle"].cells
    assert rows["alpha"].cells["simple"].rate == 1.0 and rows["beta"].cells["puzzles"].n == 4
    assert rows["gamma"].cells["simple"].low < 0.25 < rows["gamma"].cells["simple"].high
    # A row for every pair of families.
    pairs = {(c.first, c.second): c for c in profile.correlations}
    assert set(pairs) == {("kumo", "puzzles"), ("kumo", "simple"), ("puzzles", "simple")}
    both = pairs[("puzzles", "simple")]
    xs = [SKILL[m][1] / 4 for m in sorted(SKILL)]
    ys = [SKILL[m][0] / 4 for m in sorted(SKILL)]
    assert both.n == 4
    assert both.pearson == pytest.approx(stats.pearsonr(xs, ys).statistic)
    assert both.spearman_p == pytest.approx(stats.spearmanr(xs, ys).pvalue)
    assert pairs[("kumo", "simple")].n == 0 and pairs[("kumo", "simple")].pearson is None

    page = Client().get("/leaderboard/profile/").content.decode()
    assert 'data-pair="puzzles/simple"' in page and 'data-pair="kumo/puzzles"' in page
    assert 'data-figure="family-profile"' in page and 'data-player="alpha"' in page
    oracle = ModelEntry.objects.get(name="oracle")
    model_page = Client().get(f"/leaderboard/models/{oracle.pk}/").content.decode()
    assert 'id="model-families"' in model_page and 'data-family="kumo"' in model_page


def test_an_empty_profile_says_so(db):
    page = Client().get("/leaderboard/profile/")
    assert page.status_code == 200 and "No results yet" in page.content.decode()
