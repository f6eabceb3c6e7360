"""Fixtures of the rounds' tests: two small domains, a researcher, an admin, a frozen clock.

The clock is frozen with time-machine (``clock.move_to(...)``), which moves
``timezone.now()`` and ``timezone.localdate()`` alike, so a round can be rotated "two
months on" without waiting.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.test import Client


@pytest.fixture
def grove(orchard, small_domain_data):
    """A second domain (the orchard's rules under another name) next to ``orchard``."""
    from engine.actions import do_import_domain
    from engine.core.families.kumo.domain_io import domain_from_json

    row, _ = do_import_domain(domain_from_json(small_domain_data), source="json", name="grove")
    return row


@pytest.fixture
def clock(time_machine):
    """The frozen clock, starting on 1 January 2025 at 09:00 UTC."""
    time_machine.move_to(datetime(2025, 1, 1, 9, 0, tzinfo=UTC), tick=False)

    def move_to(year: int, month: int, day: int) -> None:
        time_machine.move_to(datetime(year, month, day, 9, 0, tzinfo=UTC), tick=False)

    return move_to


@pytest.fixture
def staff(db) -> Client:
    User.objects.create_superuser("boss", "boss@example.org", "a long admin password")
    client = Client()
    client.force_login(User.objects.get(username="boss"))
    return client


@pytest.fixture
def admins(settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    settings.ROUNDS_WARN_DAYS = 14
    settings.ROUNDS_AUTO_ROTATE = True
    return settings
