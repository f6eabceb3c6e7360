"""Fixtures shared by every test area."""

from __future__ import annotations

import copy
import json
import os
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

# Machines here are small and shared: judge properties, never speed. A deadline would make
# property tests fail on a busy CI runner for reasons that have nothing to do with the code.
hypothesis_settings.register_profile(
    "kumo", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
hypothesis_settings.load_profile("kumo")


def _delete_instead_of_truncate() -> None:
    """Between transactional tests on PostgreSQL, empty the tables with DELETE, not TRUNCATE.

    Django's test flush truncates every table (about 60) after each transactional test, then
    writes the content types and permissions again: 0.3-0.5 s on an idle machine, over 2 s on
    a busy one, for tables holding a few rows; the suite has hundreds of such tests. DELETE
    of a few rows takes milliseconds. The content types and permissions stay (they are the
    same for the whole run: the schema does not change), the foreign keys (deferrable, as
    Django makes them) are checked at the flush's commit, and the sequences run on, as they
    do with Django's own flush unless a test asks to reset them (then Django's is used).
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    django_sql_flush = DatabaseOperations.sql_flush
    kept = {"django_content_type", "auth_permission"}

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences:
            return django_sql_flush(
                self, style, tables, reset_sequences=True, allow_cascade=allow_cascade
            )
        emptied = [table for table in tables if table not in kept]
        if not emptied:
            return []
        return ["SET CONSTRAINTS ALL DEFERRED"] + [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))}"
            for table in emptied
        ]

    DatabaseOperations.sql_flush = sql_flush


if os.environ.get("DATABASE_URL", "").startswith("postgres"):
    _delete_instead_of_truncate()

# A small, valid domain in our JSON format: 8 truths, 7 actions, both outcome types.
SMALL_DOMAIN = {
    "format": "kumo-domain/1",
    "name": "orchard",
    "title": "Orchard pests",
    "description": "Find which pest is damaging the orchard.",
    "truth_noun": "pest",
    "action_noun": "inspection",
    "truths": [
        "Aphid",
        "Codling Moth",
        "Spider Mite",
        "Scale Insect",
        "Leafhopper",
        "Thrips",
        "Sawfly",
        "Fruit Fly",
    ],
    "actions": [
        {
            "name": "Leaf Underside Check",
            "type": "str",
            "description": "Look under twenty leaves with a hand lens.",
            "states": [
                {"label": "clean", "rules_out": ["Aphid", "Spider Mite", "Thrips"]},
                {"label": "webbing", "rules_out": ["Aphid", "Scale Insect", "Leafhopper"]},
                {"label": "colonies", "rules_out": ["Spider Mite", "Sawfly", "Fruit Fly"]},
            ],
        },
        {
            "name": "Fruit Cut Test",
            "type": "str",
            "description": "Cut ten fruits in half.",
            "states": [
                {"label": "sound", "rules_out": ["Codling Moth", "Fruit Fly", "Sawfly"]},
                {"label": "tunnels", "rules_out": ["Aphid", "Thrips", "Scale Insect"]},
            ],
        },
        {
            "name": "Sticky Trap Count",
            "type": "float",
            "unit": "insects per trap per week",
            "description": "Count insects on yellow sticky traps.",
            "states": [
                {"range": [0, 4.9], "rules_out": ["Leafhopper", "Thrips", "Fruit Fly"]},
                {"range": [5, 29.9], "rules_out": ["Scale Insect"]},
                {"range": [30, 200], "rules_out": ["Codling Moth", "Sawfly"]},
            ],
        },
        {
            "name": "Bark Scrape",
            "type": "str",
            "description": "Scrape bark on three branches.",
            "states": [
                {"label": "smooth", "rules_out": ["Scale Insect"]},
                {"label": "crusted", "rules_out": ["Aphid", "Leafhopper", "Codling Moth"]},
            ],
        },
        {
            "name": "Honeydew Test",
            "type": "str",
            "description": "Press paper against leaves to detect sticky honeydew.",
            "states": [
                {"label": "sticky", "rules_out": ["Spider Mite", "Codling Moth", "Sawfly"]},
                {"label": "dry", "rules_out": ["Aphid", "Scale Insect"]},
            ],
        },
        {
            "name": "Leaf Temperature",
            "type": "float",
            "unit": "°C",
            "description": "Infrared leaf temperature at noon.",
            "states": [
                {"range": [10, 24.9], "rules_out": ["Spider Mite", "Thrips"]},
                {"range": [25, 40], "rules_out": ["Sawfly", "Fruit Fly", "Leafhopper"]},
            ],
        },
        {
            "name": "Larva Search",
            "type": "str",
            "description": "Search shoots for larvae.",
            "states": [
                {"label": "none_found", "rules_out": ["Sawfly", "Codling Moth"]},
                {"label": "caterpillars", "rules_out": ["Aphid", "Thrips", "Spider Mite"]},
                {"label": "maggots", "rules_out": ["Leafhopper", "Aphid"]},
            ],
        },
    ],
}


@pytest.fixture
def small_domain_data() -> dict:
    return copy.deepcopy(SMALL_DOMAIN)


@pytest.fixture
def small_domain_file(tmp_path: Path, small_domain_data: dict) -> Path:
    path = tmp_path / "orchard.json"
    path.write_text(json.dumps(small_domain_data), encoding="utf-8")
    return path


@pytest.fixture
def orchard(db, small_domain_file: Path):
    """The small domain stored with three solved 5-truth / 4-action instances."""
    from engine.models import Domain

    call_command("import_domain", str(small_domain_file), stdout=StringIO())
    call_command(
        "generate_tasks",
        "orchard",
        "--truths",
        "5",
        "--actions",
        "4",
        "--count",
        "3",
        stdout=StringIO(),
    )
    return Domain.objects.get(name="orchard")


@pytest.fixture
def researcher(orchard):
    """An API client holding a researcher's token (made by ``create_api_token``), with the
    orchard domain loaded."""
    out = StringIO()
    call_command("create_api_token", "researcher", stdout=out, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {out.getvalue().strip()}")
    return client


@pytest.fixture
def make_user(db):
    from django.contrib.auth.models import User

    def make(username: str = "player", password: str = "correct horse battery") -> User:
        return User.objects.create_user(username=username, password=password)

    return make


@pytest.fixture
def rebuild_board(db):
    """Run the board's recompute job as beat does (``full``: the nightly one, which needs no
    stale mark) and return its report; the family board's pages read what it stored."""
    from leaderboard.tasks import recompute_task

    def rebuild(*, full: bool = False) -> dict:
        return recompute_task(full=full)

    return rebuild


@pytest.fixture(autouse=True)
def _uploads_in_tmp(settings, tmp_path_factory):
    """Uploaded files go to a temporary folder, never the checkout's media/."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def _jobs_in_process_unless_production(request):
    """Run Celery jobs in-process in both passes of ./test.sh, as the embedded default does.

    The production pass has a broker but no worker; only tests marked ``production`` start
    real worker and beat processes (tests/production), and they keep the real behaviour.
    """
    if request.node.get_closest_marker("production"):
        yield
        return
    from celery.result import _set_task_join_will_block

    from benchmark.celery import app

    keys = ("task_always_eager", "task_eager_propagates")
    before = {key: app.conf[key] for key in keys}
    app.conf.update(dict.fromkeys(keys, True))
    yield
    app.conf.update(before)
    # Eager tasks run from several threads at once (the ranked runner) save and restore
    # Celery's global "inside a task" flag out of order and can leave it set, which makes
    # a later test's result.get() refuse to run.
    _set_task_join_will_block(False)


@pytest.fixture
def play_family(django_capture_on_commit_callbacks):
    """Start a family practice task as the families page does and follow it to the
    attempt's page; returns that page's address. A fresh task's job is queued on commit
    and runs in-process by default, so the request's page then redirects to the attempt."""

    def play(client, family: str, kind: str, level: str = "easy", **extra) -> str:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                "/families/play/", {"family": family, "kind": kind, "level": level}, **extra
            )
        assert response.status_code == 302, response.content.decode()[:500]
        location = response["Location"]
        if re.fullmatch(r"/families/practice/\d+/", location):
            response = client.get(location)
            assert response.status_code == 302, response.content.decode()[:500]
            location = response["Location"]
        assert re.fullmatch(r"/families/attempts/\d+/", location), location
        return location

    return play


# The production pass (./test.sh's second: PostgreSQL, Redis, Celery) exists to run what
# touches those services. A test of pure engine code (a family's rules against recorded
# figures, a drawing, the search) touches none of them: it runs in the embedded pass alone,
# so the two passes do not spend the machine's two cores computing the same thing twice.
PURE_AREAS = ("tests/families/", "tests/engine/")
SERVICE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_setup"}


def _is_pure(item: pytest.Item) -> bool:
    path = Path(str(item.path)).as_posix()
    if not any(f"/{area}" in path for area in PURE_AREAS):
        return False
    if item.get_closest_marker("django_db") or item.get_closest_marker("production"):
        return False
    if getattr(item, "cls", None) is not None and hasattr(item.cls, "databases"):
        return False  # a Django TestCase or live-server test
    return not SERVICE_FIXTURES & set(getattr(item, "fixturenames", ()))


def _is_backend_neutral(item: pytest.Item) -> bool:
    return item.get_closest_marker("backend_neutral") is not None


def _lane_leaves_out(item: pytest.Item) -> bool:
    """./test.sh runs the production pass in two processes side by side (TEST_LANE):
    ``services`` runs tests/production (the recipe's processes, faults, waits for leases and
    idle sockets: mostly waiting, little CPU), ``main`` everything else."""
    lane = os.environ.get("TEST_LANE", "")
    if not lane:
        return False
    in_services = "/tests/production/" in Path(str(item.path)).as_posix()
    return in_services != (lane == "services")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not os.environ.get("DATABASE_URL"):
        return
    # Pure engine tests and backend-neutral ones (a page's layout or a game's logic over every
    # case, with the database as plain storage; the production pass runs the same paths on
    # fewer cases elsewhere) run in the embedded pass only.
    left_out = [
        item
        for item in items
        if _is_pure(item) or _is_backend_neutral(item) or _lane_leaves_out(item)
    ]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        gone = set(map(id, left_out))
        items[:] = [item for item in items if id(item) not in gone]
