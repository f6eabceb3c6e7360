"""``python manage.py split_domain`` end to end."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from engine.actions import do_import_domain, iter_shipped_domains
from engine.core.families.kumo.domain_io import domain_from_json
from engine.models import Domain, Instance
from tests.analysis.domains import (
    GARDEN_SIDE_1_TRUTHS,
    GARDEN_SIDE_2_ACTIONS,
    GARDEN_SIDE_2_TRUTHS,
)

pytestmark = pytest.mark.django_db


def split(name: str) -> str:
    out = StringIO()
    call_command("split_domain", name, stdout=out)
    return out.getvalue()


def test_it_stores_both_halves_and_reports_what_went_where(garden):
    output = split("garden")
    assert "garden: 3 connected components" in output
    assert "component 1: 5 truths -> side 1 (in-distribution)" in output
    assert "component 2: 4 truths -> side 2 (out-of-distribution)" in output
    assert "component 3: 3 truths -> side 1 (in-distribution)" in output
    assert "garden-IND (in-distribution): created; 8 truths, 6 actions" in output
    assert "garden-OOD (out-of-distribution): created; 4 truths, 3 actions" in output
    assert "dropped action 'Weather': rules out none of this side's truths" in output
    assert f"truths: {', '.join(GARDEN_SIDE_2_TRUTHS)}" in output
    assert f"actions: {', '.join(GARDEN_SIDE_2_ACTIONS)}" in output

    ind = Domain.objects.get(name="garden-IND")
    ood = Domain.objects.get(name="garden-OOD")
    for row in (ind, ood):
        assert row.source == Domain.Source.SPLIT
        domain_from_json(row.data)  # what is stored validates again
    assert ind.to_core().truths == GARDEN_SIDE_1_TRUTHS and ind.truth_count == 8
    assert ood.to_core().truths == GARDEN_SIDE_2_TRUTHS and ood.action_count == 3
    assert ind.title == "Garden (in-distribution)" and ood.truth_noun == "problem"


def test_the_halves_generate_tasks_through_the_usual_command(garden):
    split("garden")
    for name, truths, actions in (("garden-IND", "4", "3"), ("garden-OOD", "3", "2")):
        call_command(
            "generate_tasks",
            name,
            "--truths",
            truths,
            "--actions",
            actions,
            "--count",
            "2",
            stdout=StringIO(),
        )
        stored = Instance.objects.filter(domain__name=name)
        assert stored.count() == 2
        pool = set(Domain.objects.get(name=name).to_core().truths)
        for instance in stored:
            assert set(instance.truths) <= pool and instance.oracle_actions is not None


def test_running_it_again_changes_nothing_and_says_so(garden):
    split("garden")
    before = {row.name: row.updated_at for row in Domain.objects.all()}
    output = split("garden")
    assert "garden-IND (in-distribution): unchanged (already stored with these rules)" in output
    assert "garden-OOD (out-of-distribution): unchanged" in output
    assert {row.name: row.updated_at for row in Domain.objects.all()} == before


def test_it_never_overwrites_a_different_domain_of_the_same_name(garden, small_domain_data):
    small_domain_data["name"] = "garden-OOD"
    other, _ = do_import_domain(domain_from_json(small_domain_data), source=Domain.Source.JSON)
    with pytest.raises(CommandError, match="'garden-OOD' already exists with different rules"):
        split("garden")
    # Both or neither: the in-distribution half was not stored either.
    assert not Domain.objects.filter(name="garden-IND").exists()
    assert Domain.objects.get(name="garden-OOD").data == other.data
    assert Domain.objects.get(name="garden-OOD").updated_at == other.updated_at


def test_a_connected_domain_is_refused_with_an_explanation(orchard):
    with pytest.raises(CommandError) as error:
        split("orchard")
    assert "domain 'orchard' cannot be split by connection" in str(error.value)
    assert "single component of 8 truths" in str(error.value)
    assert not Domain.objects.filter(name__startswith="orchard-").exists()


def test_an_unknown_domain_is_refused(garden):
    with pytest.raises(CommandError, match="unknown domain 'nope'.*garden"):
        split("nope")


def test_none_of_the_shipped_domains_can_be_split_by_connection():
    """Every shipped domain's truth graph is one component (see docs/domain-analysis.md)."""
    names = []
    for _path, core in iter_shipped_domains():
        row, _ = do_import_domain(core, source=Domain.Source.SHIPPED)
        names.append(row.name)
        with pytest.raises(CommandError) as error:
            split(row.name)
        message = str(error.value)
        assert f"single component of {len(core.truths)} truths" in message
    assert sorted(names) == ["chemical", "education", "fantasy", "medical", "music"]
    assert Domain.objects.count() == 5
