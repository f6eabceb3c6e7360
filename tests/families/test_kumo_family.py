"""KUMO's games behind the family interface, with no change of behaviour: the family's
instances are generate_tasks' instances, its moves are the game's, its optimum is the
search's, and a game played through it scores as the engine scores it."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.core.families.base import FamilyError
from engine.core.families.kumo.domain_io import domain_from_json
from engine.core.families.kumo.family import KumoFamily
from engine.core.families.kumo.game import Game
from engine.core.families.kumo.generate import generate_instance
from engine.core.families.kumo.metrics import relative_action_count
from engine.core.families.kumo.search import solve

SHIPPED = Path(__file__).resolve().parents[2] / "engine" / "domains"


@pytest.fixture
def family(small_domain_data):
    return KumoFamily({"orchard": domain_from_json(small_domain_data)})


def test_instances_are_the_engines_for_the_same_seed(family):
    domain = family.domains["orchard"]
    for seed in range(5):
        task = family.generate("orchard", seed, {"truths": 5, "actions": 4})
        core = generate_instance(domain, 5, 4, seed)
        assert family.core_instance(task) == core
        assert task.public["truths"] == sorted(core.truths, key=lambda t: (t.casefold(), t))
        optimum = solve(domain, core)
        assert task.hidden["expected_actions"] == optimum.expected_actions
        assert task.hidden["oracle_path"] == list(optimum.oracle_path)
        # Nothing secret in public: no observation, no valid truth marked.
        assert "observations" not in task.public and "valid_truths" not in str(task.public)


def test_playing_through_the_family_is_playing_the_game(family):
    domain = family.domains["orchard"]
    task = family.generate("orchard", 3, {"truths": 5, "actions": 4})
    core = family.core_instance(task)
    game = Game(domain, core)
    history: list[str] = []
    for action in task.hidden["oracle_path"]:
        assert action in family.moves(task, history)
        assert family.step(task, history, action) == game.take_action(action)
        history.append(action)
    score = family.finish(task, history, core.valid_truth)
    assert score.correct and score.details["actions_taken"] == len(history)
    assert score.details["relative_action_count"] == relative_action_count(
        len(history), task.hidden["oracle_actions"]
    )
    first = task.public["actions"][0]
    with pytest.raises(FamilyError, match="already taken"):
        family.step(task, [first], first)
    wrong = next(t for t in core.truths if t != core.valid_truth)
    assert not family.finish(task, [], wrong).correct
    assert family.score(task, core.valid_truth.upper()).correct  # names as the game reads them
    assert not family.score(task, "nobody").correct
    assert family.reference_answer(task) == core.valid_truth


def test_levels_are_the_platforms_settings_on_a_shipped_domain():
    import json

    medical = domain_from_json(json.loads((SHIPPED / "medical.json").read_text()))
    family = KumoFamily({"medical": medical})
    easy = family.generate("medical", 1, level="easy")
    assert (len(easy.public["truths"]), len(easy.public["actions"])) == (4, 6)
    assert easy.params == {"truths": 4, "actions": 6}
    assert family.kind("medical").levels["hard"] == {"truths": 12, "actions": 16}


@pytest.mark.django_db
def test_the_same_seed_gives_the_stored_instance_of_generate_tasks(small_domain_file, family):
    from engine.models import Instance

    call_command("import_domain", str(small_domain_file), stdout=StringIO())
    call_command(
        "generate_tasks",
        "orchard",
        "--truths",
        "5",
        "--actions",
        "4",
        "--count",
        "2",
        stdout=StringIO(),
    )
    for stored in Instance.objects.filter(domain__name="orchard").order_by("seed"):
        task = family.generate("orchard", stored.seed, {"truths": 5, "actions": 4})
        assert family.core_instance(task) == stored.to_core()
        assert task.hidden["expected_actions"] == pytest.approx(stored.expected_actions, abs=1e-9)
        assert task.hidden["oracle_actions"] == stored.oracle_actions
