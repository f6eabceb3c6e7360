"""Fixtures of the domain-analysis tests (the domains themselves are in ``domains.py``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from engine.core.families.kumo.domain_io import domain_from_json
from engine.core.families.kumo.types import Domain
from tests.analysis.domains import GARDEN


@pytest.fixture
def garden_data() -> dict:
    return copy.deepcopy(GARDEN)


@pytest.fixture
def garden_core(garden_data) -> Domain:
    return domain_from_json(garden_data)


@pytest.fixture
def garden(db, tmp_path: Path, garden_data):
    """The garden domain, stored through the import command."""
    from io import StringIO

    from django.core.management import call_command

    from engine.models import Domain as DomainRow

    path = tmp_path / "garden.json"
    path.write_text(json.dumps(garden_data), encoding="utf-8")
    call_command("import_domain", str(path), stdout=StringIO())
    return DomainRow.objects.get(name="garden")
