"""The engine's management commands, run as a user runs them, against a real database."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from engine.models import Domain, Instance, KnowledgeBook

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_imports_a_json_domain_and_reimporting_is_a_no_op(small_domain_file: Path):
    assert "imported: orchard (8 truths, 7 actions)" in run("import_domain", str(small_domain_file))
    assert "unchanged: orchard" in run("import_domain", str(small_domain_file))
    domain = Domain.objects.get(name="orchard")
    assert domain.source == Domain.Source.JSON
    assert domain.to_core().action("Sticky Trap Count").unit == "insects per trap per week"


def test_it_imports_under_another_name(small_domain_file: Path):
    run("import_domain", str(small_domain_file), "--name", "orchard-copy")
    assert Domain.objects.filter(name="orchard-copy").exists()
    assert not Domain.objects.filter(name="orchard").exists()


def test_it_lists_every_problem_of_an_invalid_domain(tmp_path: Path, small_domain_data: dict):
    small_domain_data["actions"][0]["states"][0]["rules_out"].append("Woolly Bear")
    small_domain_data["actions"][3]["states"] = small_domain_data["actions"][3]["states"][:1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(small_domain_data))
    with pytest.raises(CommandError) as error:
        run("import_domain", str(path))
    message = str(error.value)
    assert "Woolly Bear" in message and "Leaf Underside Check" in message
    assert "Bark Scrape" in message
    assert not Domain.objects.exists()


def test_it_refuses_to_change_rules_under_existing_instances(
    tmp_path: Path, small_domain_file: Path, small_domain_data: dict
):
    run("import_domain", str(small_domain_file))
    run("generate_tasks", "orchard", "--truths", "4", "--actions", "3", "--count", "2")
    small_domain_data["actions"][1]["states"][0]["rules_out"] = ["Codling Moth"]
    changed = tmp_path / "orchard.json"
    changed.write_text(json.dumps(small_domain_data))
    with pytest.raises(CommandError, match="already exists with different rules"):
        run("import_domain", str(changed))
    stored = Domain.objects.get(name="orchard").data
    assert "Fruit Fly" in stored["actions"][1]["states"][0]["rules_out"]


KUMO_MODULE = """
import os
open(MARKER, "w").write("executed")

Pests = ["Aphid", "Mite", "Moth", "Sawfly"]

Checks = ["Leaf Check", "Trap Count"]

Outcomes = {
    "Leaf Check": {
        "type": "str",
        "states": {
            "clean": {"Aphid", "Mite"},
            "damaged": set(),
        },
    },
    "Trap Count": {
        "type": "float",
        "states": {
            (0, 10): {"Moth"},
            (10, 50): {"Sawfly", "Aphid"},
        },
    },
}
"""


def test_it_imports_a_kumo_module_as_data_without_running_it(tmp_path: Path):
    marker = tmp_path / "marker"
    module = tmp_path / "orchard_data.py"
    module.write_text(KUMO_MODULE.replace("MARKER", repr(str(marker))))
    assert "imported: orchard" in run("import_domain", str(module))
    assert not marker.exists()
    core = Domain.objects.get(name="orchard").to_core()
    assert core.truths == ("Aphid", "Mite", "Moth", "Sawfly")
    assert core.action("Trap Count").state_for(12.5).rules_out == {"Sawfly", "Aphid"}
    assert Domain.objects.get(name="orchard").source == Domain.Source.KUMO


def test_generate_tasks_stores_solved_instances_with_checked_books(small_domain_file: Path):
    run("import_domain", str(small_domain_file))
    out = run(
        "generate_tasks",
        "orchard",
        "--truths",
        "4",
        "--actions",
        "3",
        "--count",
        "5",
        "--seed",
        "10",
    )
    assert "5 new" in out
    instances = Instance.objects.filter(domain__name="orchard").order_by("seed")
    assert [row.seed for row in instances] == [10, 11, 12, 13, 14]
    for row in instances:
        assert len(row.truths) == 4 and len(row.actions) == 3
        assert row.expected_actions is not None and row.oracle_actions is not None
        book = row.current_book()
        assert book is not None and book.passed_check and book.problems == []
        assert book.author == KnowledgeBook.Author.DETERMINISTIC


def test_generate_tasks_writes_the_same_file_byte_for_byte(tmp_path: Path, small_domain_file):
    run("import_domain", str(small_domain_file))
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    args = ["generate_tasks", "orchard", "--truths", "5", "--actions", "4", "--count", "6"]
    run(*args, "--out", str(first))
    Instance.objects.all().delete()
    run(*args, "--out", str(second))
    assert first.read_bytes() == second.read_bytes()
    lines = [json.loads(line) for line in first.read_text().splitlines()]
    assert [line["seed"] for line in lines] == list(range(6))
    assert set(lines[0]) == {"truths", "actions", "observations", "valid_truth", "seed"}


def test_generate_tasks_in_worker_processes_stores_what_one_process_stores(
    small_domain_file: Path,
):
    run("import_domain", str(small_domain_file))
    args = ["generate_tasks", "orchard", "--truths", "5", "--actions", "4", "--count", "6"]

    def stored() -> list[tuple]:
        return [
            (row.seed, row.expected_actions, row.oracle_actions, row.current_book().text)
            for row in Instance.objects.order_by("seed")
        ]

    run(*args, "--workers", "1")
    alone = stored()
    Instance.objects.all().delete()
    assert "6 new" in run(*args, "--workers", "2")
    assert stored() == alone and len(alone) == 6
    with pytest.raises(CommandError, match="--workers must be at least 1"):
        run(*args, "--workers", "0")


def test_generate_tasks_reports_an_impossible_request_clearly(small_domain_file: Path):
    run("import_domain", str(small_domain_file))
    with pytest.raises(CommandError, match="truths"):
        run("generate_tasks", "orchard", "--truths", "20", "--actions", "3")
    with pytest.raises(CommandError, match="unknown domain 'nope'"):
        run("generate_tasks", "nope", "--truths", "4", "--actions", "3")
    assert not Instance.objects.exists()


def test_import_tasks_keeps_seeds_and_values(tmp_path: Path, small_domain_file: Path):
    run("import_domain", str(small_domain_file))
    path = tmp_path / "tasks.jsonl"
    run(
        "generate_tasks",
        "orchard",
        "--truths",
        "4",
        "--actions",
        "3",
        "--count",
        "3",
        "--seed",
        "40",
        "--out",
        str(path),
    )
    run("import_domain", str(small_domain_file), "--name", "orchard-two")
    assert "3 new" in run("import_tasks", "orchard-two", str(path))
    assert "3 already stored" in run("import_tasks", "orchard-two", str(path))
    copied = Instance.objects.filter(domain__name="orchard-two").order_by("seed")
    original = Instance.objects.filter(domain__name="orchard").order_by("seed")
    assert [row.seed for row in copied] == [40, 41, 42]
    for a, b in zip(copied, original, strict=True):
        assert a.source == Instance.Source.IMPORTED
        assert (a.truths, a.observations, a.valid_truths) == (
            b.truths,
            b.observations,
            b.valid_truths,
        )
        assert a.expected_actions == b.expected_actions


def test_import_tasks_names_bad_lines_and_stores_nothing(tmp_path: Path, small_domain_file):
    run("import_domain", str(small_domain_file))
    good = tmp_path / "good.jsonl"
    run(
        "generate_tasks",
        "orchard",
        "--truths",
        "4",
        "--actions",
        "3",
        "--count",
        "2",
        "--out",
        str(good),
    )
    Instance.objects.all().delete()
    lines = good.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["observations"][broken["actions"][0]] = "no-such-outcome"
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([lines[0], "{not json", json.dumps(broken)]) + "\n")
    with pytest.raises(CommandError) as error:
        run("import_tasks", "orchard", str(path))
    assert "line 2" in str(error.value)
    assert not Instance.objects.exists()
    path.write_text("\n".join([lines[0], json.dumps(broken)]) + "\n")
    with pytest.raises(CommandError, match="no-such-outcome"):
        run("import_tasks", "orchard", str(path))
    assert not Instance.objects.exists()


def test_optimal_steps_prints_one_line_per_instance(tmp_path: Path, small_domain_file: Path):
    run("import_domain", str(small_domain_file))
    path = tmp_path / "tasks.jsonl"
    run(
        "generate_tasks",
        "orchard",
        "--truths",
        "6",
        "--actions",
        "5",
        "--count",
        "4",
        "--out",
        str(path),
    )
    rows = [json.loads(line) for line in run("optimal_steps", "orchard", str(path)).splitlines()]
    assert [row["seed"] for row in rows] == [0, 1, 2, 3]
    for row in rows:
        stored = Instance.objects.get(domain__name="orchard", seed=row["seed"])
        assert row["expected_actions"] == pytest.approx(stored.expected_actions, abs=1e-12)
        assert row["oracle_actions"] == stored.oracle_actions
        assert 0 <= row["oracle_actions"] <= 5


def test_import_tasks_and_optimal_steps_keep_a_line_holding_unicode_separators(
    tmp_path: Path, small_domain_file: Path
):
    run("import_domain", str(small_domain_file))
    generated = tmp_path / "tasks.jsonl"
    run("generate_tasks", "orchard", "--truths", "4", "--actions", "3", "--count", "2",
        "--seed", "7", "--out", str(generated))  # fmt: skip
    run("import_domain", str(small_domain_file), "--name", "orchard-two")
    lines = generated.read_text(encoding="utf-8").splitlines()
    # Raw U+2028 / U+0085 are legal inside JSON strings (the KUMO release has them).
    noted = [json.dumps({**json.loads(line), "note": "a\u2028b\u0085c"}, ensure_ascii=False)
             for line in lines]  # fmt: skip
    path = tmp_path / "noted.jsonl"
    path.write_text("\n".join(noted) + "\n", encoding="utf-8")
    assert "2 new" in run("import_tasks", "orchard-two", str(path))
    printed = run("optimal_steps", "orchard-two", str(path)).splitlines()
    assert [json.loads(line)["seed"] for line in printed] == [7, 8]
