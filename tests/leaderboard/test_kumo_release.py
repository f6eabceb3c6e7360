"""import_kumo_release on a small synthetic release (never the real one's files)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.models import Domain, Instance
from leaderboard.models import Submission, Trajectory

SETTING = "truth_num=2+action_num=2+valid_truth_num=1"

TOY_MODULE = """
Truths = ["Ant", "Bee", "Cat"]
Actions = ["Look", "Weigh"]
Outcomes = {
    "Look": {"type": "str", "states": {
        "wings": {"Ant", "Cat"}, "legs": {"Bee"}, "fur": {"Ant", "Bee"}}},
    "Weigh": {"type": "float", "states": {(0, 10): {"Cat"}, (10, 100): {"Ant", "Bee"}}},
}
"""

# Chained assignment, set([...]), overlapping and reversed ranges: refused by our
# validator, imported in KUMO-compatible mode.
QUIRKY_MODULE = """
Truths = ["Red", "Green", "Blue"]
Actions = ["Spectrum", "Hue"]
Outcomes = outcomes = {
    "Spectrum": {"type": "float", "states": {
        (0, 50): set(["Red"]), (40, 100): set(["Green"]), (200, 100): set()}},
    "Hue": {"type": "str", "states": {"warm": {"Green", "Blue"}, "cool": {"Red"}}},
}
"""


def env_module(env: str, data: str) -> str:
    return (
        "from common.registry import registry\n"
        f"from env.data.{data} import *\n\n"
        f'@registry.register_environment("{env}")\n'
        f"class {env}:\n    pass\n"
    )


def instance(seed, truths, observations, valid):
    return {
        "truths": truths,
        "actions": list(observations),
        "observations": observations,
        "seed": seed,
        "valid_truth": valid,
    }


def run(actions, answer, successful, text="<ANSWER>"):
    moves = [*actions, answer, {"predicted_truth": answer}]
    return {
        "actions": moves,
        "generated_text": [text] * (len(actions) + 1),
        "consumed_tokens": 10,
        "observations": [None] * (len(actions) + 1),
        "successful": successful,
        "parse_error": False,
    }


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def release(tmp_path: Path) -> Path:
    root = tmp_path / "kumo"
    (root / "env" / "data").mkdir(parents=True)
    (root / "env" / "data" / "toy_data.py").write_text(TOY_MODULE)
    (root / "env" / "data" / "quirky_data.py").write_text(QUIRKY_MODULE)
    (root / "env" / "toy_env.py").write_text(env_module("ToyEnv", "toy_data"))
    (root / "env" / "quirky_env.py").write_text(env_module("QuirkyEnv", "quirky_data"))
    toy = [
        instance(0, ["Ant", "Bee"], {"Look": "legs", "Weigh": 5.0}, "Ant"),
        instance(1, ["Bee", "Cat"], {"Look": "wings", "Weigh": 5.0}, "Bee"),
    ]
    write_lines(root / "env" / "ToyEnv" / f"{SETTING}.jsonl", [json.dumps(i) for i in toy])
    quirky = [
        # 20 lies in (0, 50) only; consistent.
        instance(0, ["Red", "Blue"], {"Spectrum": 20.0, "Hue": "cool"}, "Blue"),
        # 45 lies in two overlapping ranges: the original scoring rules out both truths.
        instance(1, ["Red", "Green"], {"Spectrum": 45.0, "Hue": "cool"}, "Green"),
        # 150 lies in no range (the last one is reversed): it rules nothing out.
        instance(2, ["Red", "Blue"], {"Spectrum": 150.0, "Hue": "cool"}, "Blue"),
    ]
    write_lines(root / "env" / "QuirkyEnv" / f"{SETTING}.jsonl", [json.dumps(i) for i in quirky])

    # A record holding raw U+2028 and U+0085 (legal inside JSON strings), a repeated record
    # and a truncated last line.
    first = json.dumps(
        {
            "seed": 0,
            "trajectories": [
                run(["Look"], "Ant", True, text="a\u2028b\u0085c"),
                run([], "Bee", False),
            ],
        },
        ensure_ascii=False,
    )
    second = json.dumps({"seed": 1, "trajectories": [run(["Look", "Weigh"], "Bee", True)] * 2})
    results = root / "results" / "model-a" / "VanillaAgent"
    write_lines(
        results / "ToyEnv" / SETTING / "eval_times=2.jsonl", [first, second, first, second[:40]]
    )
    write_lines(
        results / "QuirkyEnv" / SETTING / "eval_times=2.jsonl",
        [
            json.dumps({"seed": 0, "trajectories": [run(["Hue"], "Blue", True)] * 2}),
            json.dumps({"seed": 1, "trajectories": [run(["Hue"], "Green", False)] * 2}),
            # A reply pasted whole as the move (longer than any name): an invalid move.
            json.dumps(
                {"seed": 2, "trajectories": [run([], "Blue", True), run(["x" * 600], "Blue", True)]}
            ),
            # Not identical to line 1: skipped, the first kept.
            json.dumps({"seed": 0, "trajectories": [run([], "Red", False)] * 2}),
        ],
    )
    oracle = root / "results" / "search_results" / "ToyEnv" / SETTING / "eval_times=10.jsonl"
    write_lines(
        oracle,
        [
            json.dumps({"seed": 0, "trajectories": [run(["Look"], "Ant", True)]}),
            json.dumps({"seed": 1, "trajectories": [run(["Look", "Weigh"], "Bee", True)]}),
        ],
    )
    return root


def import_release(root: Path, *args: str) -> str:
    out = StringIO()
    call_command("import_kumo_release", str(root), "--no-progress", *args, stdout=out)
    return out.getvalue()


def snapshot():
    return (
        list(Domain.objects.values_list("name", "updated_at").order_by("name")),
        Instance.objects.count(),
        list(Submission.objects.values_list("pk", "status", "trajectory_count").order_by("pk")),
        Trajectory.objects.count(),
    )


@pytest.mark.django_db
def test_it_imports_a_release_with_counts_report_and_repair_marks(release: Path):
    report = import_release(release, "--repair")

    assert "domains strict imported: 1" in report
    assert "domains KUMO-compatible imported: 1" in report
    assert "instances imported: 5" in report
    assert "results files imported: 3" in report
    assert "refused files (0)" in report
    # Every repair is listed per file and line.
    assert "results/model-a/VanillaAgent/ToyEnv/" in report
    assert "line 3: identical repeat of line 1: kept once" in report
    assert "line 4: skipped: not valid JSON" in report
    assert "line 4: a different record for seed 0 than line 1: skipped" in report
    assert "line 3: 1 move(s) longer than 500 characters cut to 500" in report
    # Where the original code gives an instance no consistent meaning, it says so.
    assert "seed 1: the original code rules out every truth: no answer can score" in report
    assert "observation 150.0 matches no state" in report

    toy = Domain.objects.get(name="ToyEnv")
    quirky = Domain.objects.get(name="QuirkyEnv")
    assert not toy.kumo_compatible
    assert quirky.kumo_compatible
    assert any("overlap" in warning for warning in quirky.warnings)
    assert any("reversed" in warning for warning in quirky.warnings)

    toy_file = Submission.objects.get(domain=toy, model__name="model-a")
    assert toy_file.repair and toy_file.status == Submission.Status.DONE
    assert [r["line"] for r in toy_file.repairs] == [3, 4]
    assert toy_file.trajectory_count == 4

    # Scored exactly as the original code: every claimed success agrees.
    rows = Trajectory.objects.filter(model__name="model-a")
    assert rows.count() == 4 + 6
    assert not rows.filter(disagrees=True).exists()
    pasted = rows.get(domain=quirky, instance__seed=2, run=1)
    assert pasted.invalid_moves == 1 and pasted.correct
    green = rows.get(domain=quirky, instance__seed=1, run=0)
    assert green.answer == "Green" and not green.correct

    # The published oracle's action count is kept beside ours.
    seed0 = Instance.objects.get(domain=toy, seed=0)
    assert seed0.kumo["published_oracle_actions"] == 1

    # Idempotent: running it again changes nothing.
    before = snapshot()
    again = import_release(release, "--repair")
    assert snapshot() == before
    assert "domains strict unchanged: 1" in again
    assert "domains KUMO-compatible unchanged: 1" in again
    assert "instances unchanged: 5" in again
    assert "results files unchanged: 3" in again


@pytest.mark.django_db
def test_without_repair_damaged_published_files_are_refused(release: Path):
    report = import_release(release)
    assert "results files refused: 2" in report
    assert "line 3: seed 0 run 0 already appears on line 1" in report
    assert not Submission.objects.filter(repair=True).exists()
    assert not Trajectory.objects.filter(domain__name="ToyEnv", model__name="model-a").exists()


@pytest.mark.django_db
def test_a_release_record_holding_unicode_line_separators_imports_intact(release: Path):
    import_release(release, "--repair")
    row = Trajectory.objects.get(
        model__name="model-a", domain__name="ToyEnv", instance__seed=0, run=0
    )
    assert row.line == 1 and row.correct and row.information_actions == 1
    stored = Submission.objects.get(domain__name="ToyEnv", model__name="model-a")
    with stored.file.open("rb") as handle:
        assert "a\u2028b\u0085c" in handle.read().decode()


@pytest.mark.django_db
def test_the_paper_tables_show_coverage_repair_marks_and_numbers(release: Path, client):
    from leaderboard.recompute import recompute

    import_release(release, "--repair")
    recompute(full=True)
    page = client.get("/leaderboard/paper/?setting=2x2")
    assert page.status_code == 200
    text = page.content.decode()
    assert "model-a" in text and "kumo-oracle-search" in text
    # The oracle's files cover one of the two domains: marked, never silently compared.
    assert "<strong>partial</strong> (1 of 2 domains)" in text
    assert "<strong>repaired</strong>: QuirkyEnv, ToyEnv" in text
    assert 'id="paper-heatmap"' in text and ">1.00</td>" in text
    published = client.get("/leaderboard/paper/?setting=2x2&oracle=published")
    assert "Relative action count (published oracle)" in published.content.decode()
    assert client.post("/leaderboard/paper/").status_code == 405
