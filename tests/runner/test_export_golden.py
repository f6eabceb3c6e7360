"""``manage.py export_golden``: the oracle's games as chat fine-tuning data."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.protocol import TaskView, parse_answer, read_task_lists, system_prompt
from engine.core.families.kumo.game import Game
from engine.models import Instance
from tests.runner.helpers import read_jsonl

pytestmark = pytest.mark.django_db


def export(tmp_path, *args: str) -> tuple[list[dict], str]:
    out_file = tmp_path / "golden.jsonl"
    out = StringIO()
    call_command(
        "export_golden",
        "--domain",
        "orchard",
        "--truths",
        "5",
        "--actions",
        "4",
        "--out",
        str(out_file),
        *args,
        stdout=out,
        stderr=StringIO(),
    )
    return read_jsonl(out_file), out.getvalue()


def replay(domain, instance, messages: list[dict]) -> Game:
    game = Game(domain, instance)
    moves = [parse_answer(m["content"]) for m in messages if m["role"] == "assistant"]
    for move in moves[:-1]:
        game.take_action(move)
    game.answer(moves[-1])
    return game


def test_stored_instances_come_first_as_the_runners_own_conversation(orchard, tmp_path):
    lines, stdout = export(tmp_path, "--count", "2")
    assert "2 conversations (2 stored instances, 0 generated)" in stdout
    domain = orchard.to_core()
    for line, row in zip(lines, orchard.instances.order_by("seed")[:2], strict=True):
        messages = line["messages"]
        assert list(line) == ["messages"]
        roles = [m["role"] for m in messages]
        assert roles[0] == "system" and roles[1:] == ["user", "assistant"] * (len(roles) // 2)
        core = row.to_core()
        task = TaskView.of(domain, core, row.current_book().text)
        assert messages[0]["content"] == system_prompt(task)
        assert all(
            m["content"].startswith("<ANSWER> ") for m in messages if m["role"] == "assistant"
        )
        game = replay(domain, core, messages)
        assert game.result.correct and game.actions_taken == row.oracle_actions


def test_fresh_instances_are_generated_but_not_stored_when_count_exceeds_stored(orchard, tmp_path):
    lines, stdout = export(tmp_path, "--count", "7")
    assert "7 conversations (3 stored instances, 4 generated)" in stdout
    assert Instance.objects.count() == 3
    systems = [line["messages"][0]["content"] for line in lines]
    assert len(set(systems)) == len(systems)
    domain = orchard.to_core()
    from engine.core.families.kumo.generate import generate_instances

    fresh = generate_instances(
        domain, 5, 4, count=4, seed=3, existing=[row.to_core() for row in orchard.instances.all()]
    )
    for line, core in zip(lines[3:], fresh, strict=True):
        truths, actions = read_task_lists(line["messages"][0]["content"])
        assert set(truths) == set(core.truths) and set(actions) == set(core.actions)
        assert replay(domain, core, line["messages"]).result.correct


def test_the_seed_of_fresh_instances_can_be_chosen(orchard, tmp_path):
    first, _ = export(tmp_path, "--count", "5", "--seed", "500")
    again, _ = export(tmp_path, "--count", "5", "--seed", "500")
    other, _ = export(tmp_path, "--count", "5", "--seed", "900")
    assert first == again and first[:3] == other[:3] and first[3:] != other[3:]


def test_unknown_domains_and_bad_counts_are_refused(orchard, tmp_path):
    with pytest.raises(CommandError, match="unknown domain 'nowhere'"):
        call_command(
            "export_golden",
            "--domain",
            "nowhere",
            "--truths",
            "5",
            "--actions",
            "4",
            "--count",
            "1",
            "--out",
            str(tmp_path / "x.jsonl"),
        )
    with pytest.raises(CommandError, match="--count must be at least 1"):
        export(tmp_path, "--count", "0")
