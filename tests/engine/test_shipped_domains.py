"""The five study domains that ship with the platform, and the demo loader."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.core.families.kumo.domain_io import domain_from_json, validate_domain
from engine.core.families.kumo.generate import check_instance, generate_instances
from engine.models import Domain, Instance

DOMAINS_DIR = Path(__file__).resolve().parents[2] / "engine" / "domains"
STUDY_DOMAINS = ("chemical", "education", "fantasy", "medical", "music")


@pytest.mark.parametrize("name", STUDY_DOMAINS)
def test_each_study_domain_is_valid_and_large_enough(name: str):
    core = domain_from_json((DOMAINS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert validate_domain(core) == []
    assert core.name == name
    assert len(core.truths) >= 45 and len(core.actions) >= 30
    types = {action.type for action in core.actions}
    assert types == {"str", "float"}
    # States must do real work: many rule out several truths at once.
    multi = [s for a in core.actions for s in a.states if len(s.rules_out) >= 3]
    assert len(multi) >= len(core.actions)


@pytest.mark.parametrize("name", STUDY_DOMAINS)
def test_each_study_domain_yields_hard_tasks(name: str):
    core = domain_from_json((DOMAINS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    instances = generate_instances(core, 12, 16, count=5, seed=1000)
    for instance in instances:
        assert check_instance(core, instance) == []


@pytest.mark.django_db
def test_load_demo_loads_every_domain_and_is_idempotent():
    out = StringIO()
    call_command("load_demo", "--count", "1", stdout=out)
    assert Domain.objects.count() == len(STUDY_DOMAINS)
    assert Instance.objects.count() == 2 * len(STUDY_DOMAINS)
    first = {row.pk: json.dumps(row.observations) for row in Instance.objects.all()}
    call_command("load_demo", "--count", "1", stdout=StringIO())
    assert {row.pk: json.dumps(row.observations) for row in Instance.objects.all()} == first
    for row in Instance.objects.all():
        assert row.current_book() is not None
        assert row.oracle_actions is not None
