"""The domain page: truth-graph figure, communities, split and the χ² table per model."""

from __future__ import annotations

import html
import json
import re
from io import StringIO

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.template.defaultfilters import floatformat
from scipy.stats import chi2_contingency

from engine.analysis import domain_analysis
from engine.core.families.kumo.analysis import majority_correct, task_signature, truth_graph
from engine.models import Domain, Instance
from leaderboard.actions import submit_results

pytestmark = pytest.mark.django_db

# Garden tasks of 4 truths / 3 actions; 3 runs each.
SETTING = (4, 3)
RUNS = 3


@pytest.fixture
def garden_tasks(garden):
    call_command(
        "generate_tasks",
        "garden",
        "--truths",
        "4",
        "--actions",
        "3",
        "--count",
        "10",
        stdout=StringIO(),
    )
    return list(Instance.objects.filter(domain=garden).order_by("seed"))


def submit(model: str, instances: list[Instance], wins_per_task: list[int]) -> None:
    """Submit ``RUNS`` runs per task through the real path; the first ``wins`` runs win."""
    user, _ = User.objects.get_or_create(username="researcher")
    lines = []
    for instance, wins in zip(instances, wins_per_task, strict=True):
        wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        for run in range(RUNS):
            lines.append(
                {
                    "seed": instance.seed,
                    "run": run,
                    "actions": list(instance.actions[:1]),
                    "answer": instance.valid_truths[0] if run < wins else wrong,
                }
            )
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    accepted = submit_results(
        user,
        model=model,
        domain="garden",
        n_truths=SETTING[0],
        n_actions=SETTING[1],
        fmt="native",
        content=content,
    )
    assert accepted.submission.status == "done", accepted.submission.errors


def figure(content: str, element_id: str) -> dict:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', content, re.S
    )
    assert match, f"no embedded figure {element_id!r}"
    return json.loads(match.group(1))


def chi_square_row(content: str, model: str) -> list[str]:
    table = content[content.index('<table class="data chi-square">') :]
    row = re.search(rf"<tr>\s*<td><a [^>]*>{re.escape(model)}</a></td>(.*?)</tr>", table, re.S)
    assert row, f"no χ² row for {model}"
    return [
        html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)
    ]


def test_the_page_draws_the_truth_graph_with_its_communities(client, garden):
    response = client.get("/domains/garden/")
    assert response.status_code == 200
    content = response.content.decode()
    network = figure(content, "truth-network")
    edges, *communities = network["data"]
    assert edges["mode"] == "lines"
    assert len([x for x in edges["x"] if x is None]) == len(truth_graph(garden.to_core()).edges)
    drawn = [truth for trace in communities for truth in trace["text"]]
    assert sorted(drawn) == sorted(garden.to_core().truths)
    # Every community is one connected component here (the garden has three).
    assert sorted(map(sorted, (trace["text"] for trace in communities))) == [
        ["a1", "a2", "a3", "a4", "a5"],
        ["b1", "b2", "b3", "b4"],
        ["c1", "c2", "c3"],
    ]
    assert "Truths and their Louvain communities" not in content  # the title names the noun
    assert "Problem graph and its Louvain communities" in network["layout"]["title"]["text"]
    assert "/leaderboard/assets/plotly-" in content and "js/plots.js" in content

    analysis = domain_analysis(garden).analysis
    modularity = floatformat(analysis.communities.modularity, 3)
    assert f'<dd id="modularity">{modularity}</dd>' in content
    assert "a1, a2, a3, a4, a5" in content  # the community list
    # The split: sides, the names of the halves and the command.
    assert "<code>garden-IND</code>" in content and "<code>garden-OOD</code>" in content
    assert "3: B-one, B-two, B-three" in content
    assert "python manage.py split_domain garden" in content
    assert "No scored results on this domain yet." in content


def test_the_layout_is_the_same_on_every_request(client, garden):
    first = figure(client.get("/domains/garden/").content.decode(), "truth-network")
    from engine import analysis

    analysis._ANALYSES.clear()  # force a fresh computation
    second = figure(client.get("/domains/garden/").content.decode(), "truth-network")
    assert first == second


def test_a_connected_domain_explains_why_it_cannot_be_split(client, orchard):
    content = client.get("/domains/orchard/").content.decode()
    assert 'id="split-impossible"' in content
    assert "cannot be split by connection" in content
    assert "<code>orchard-IND</code>" not in content


def test_the_chi_square_table_matches_scipy_for_each_model(client, garden_tasks):
    # "mixed" wins 2 of 3 runs (a correct task) on even positions, 1 of 3 on odd ones.
    mixed = [2 if i % 2 == 0 else 1 for i in range(len(garden_tasks))]
    submit("mixed", garden_tasks, mixed)
    submit("perfect", garden_tasks, [RUNS] * len(garden_tasks))

    core = Domain.objects.get(name="garden").to_core()
    signatures = [task_signature(core, i.truths, i.actions) for i in garden_tasks]
    assert len(set(signatures)) >= 2, "the fixture needs tasks of different structure"
    verdicts = [majority_correct(wins, RUNS) for wins in mixed]
    rows = sorted(set(signatures), key=repr)
    table = np.array(
        [
            [
                sum(1 for s, v in zip(signatures, verdicts, strict=True) if s == row and v == want)
                for want in (True, False)
            ]
            for row in rows
        ]
    )
    expected = chi2_contingency(table, correction=False)
    v = np.sqrt(expected.statistic / (len(garden_tasks) * min(len(rows) - 1, 1)))

    content = client.get("/domains/garden/").content.decode()
    assert "4 truths / 3 actions" in content
    cells = chi_square_row(content, "mixed")
    assert cells[:7] == [
        str(len(garden_tasks)),
        str(sum(verdicts)),
        str(len(rows)),
        floatformat(expected.statistic, 3),
        str(expected.dof),
        f"{expected.pvalue:.3g}",
        floatformat(v, 3),
    ]
    perfect = chi_square_row(content, "perfect")
    assert perfect[:4] == [str(len(garden_tasks)), str(len(garden_tasks)), str(len(rows)), "—"]
    assert "Not enough variation: every task has the same outcome" in perfect[-1]


def test_only_active_trajectories_count(client, garden_tasks):
    submit("model", garden_tasks, [RUNS] * len(garden_tasks))
    # A newer file for the same model and setting replaces the old one on the board.
    submit("model", garden_tasks, [0] * len(garden_tasks))
    cells = chi_square_row(client.get("/domains/garden/").content.decode(), "model")
    assert cells[1] == "0"  # no correct task: the newer, all-wrong file counts


def test_the_page_query_count_does_not_grow_with_models(
    client, garden_tasks, django_assert_max_num_queries
):
    submit("one", garden_tasks, [1] * len(garden_tasks))
    with django_assert_max_num_queries(3):
        assert client.get("/domains/garden/").status_code == 200
    for name in ("two", "three", "four"):
        submit(name, garden_tasks, [i % 4 for i in range(len(garden_tasks))])
    with django_assert_max_num_queries(3):
        content = client.get("/domains/garden/").content.decode()
    for name in ("one", "two", "three", "four"):
        chi_square_row(content, name)


def test_the_analysis_is_cached_per_domain_version(garden):
    first = domain_analysis(garden)
    assert domain_analysis(Domain.objects.get(pk=garden.pk)) is first
    garden.save(update_fields=["updated_at"])
    assert domain_analysis(garden) is not first
