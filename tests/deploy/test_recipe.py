"""The recipe's files (deploy/) as an administrator gets them: every variable a process line
uses has a default and is listed in kumo.env.example, forwarded headers are trusted from the
configured proxy only, and a restart drains in seconds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
# ${NAME} or ${NAME:-default} (Procfile: a POSIX shell; systemd: ${NAME} only).
REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}")


def listed_in_example() -> set[str]:
    """Variables kumo.env.example sets or shows commented out with their default."""
    text = (DEPLOY / "kumo.env.example").read_text()
    return set(re.findall(r"^#?([A-Z][A-Z0-9_]*)=", text, re.MULTILINE))


def procfile() -> dict[str, str]:
    lines = (DEPLOY / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip() and not line.startswith("#"))


def unit(path: Path) -> tuple[dict[str, str], list[str]]:
    """A unit's Environment= defaults and its Exec*= command lines."""
    defaults: dict[str, str] = {}
    commands: list[str] = []
    for line in path.read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "Environment":
            defaults.update(item.split("=", 1) for item in value.split())
        elif key.startswith("Exec"):
            commands.append(value)
    return defaults, commands


def test_the_files_are_found():
    assert {path.name for path in UNITS} == {
        "kumo-web.service",
        "kumo-worker.service",
        "kumo-practice.service",
        "kumo-beat.service",
    }
    assert set(procfile()) == {"release", "web", "worker", "practice", "beat"}


def test_players_practice_generation_has_a_worker_of_its_own():
    """A Play click (a KUMO game, a fresh family task) is generated on the practice queue,
    which only the practice worker serves: it never waits behind a run or a round."""
    from benchmark.celery import app

    route = app.amqp.router.route({}, "engine.generate_family_practice")
    assert route["queue"].name == settings.PRACTICE_QUEUE == "practice"
    assert app.amqp.router.route({}, "benchmark.run_evaluation")["queue"].name == "celery"
    lines = procfile()
    assert "--queues practice " in lines["practice"] and "--queues" not in lines["worker"]
    _defaults, commands = unit(DEPLOY / "systemd" / "kumo-practice.service")
    assert "--queues practice " in commands[0]
    compose = (DEPLOY / "compose.yaml").read_text()
    assert '"--queues", "practice"' in compose


def test_every_procfile_variable_has_a_default_and_is_in_the_example():
    example = listed_in_example()
    used = set()
    for name, command in procfile().items():
        for reference in REFERENCE.finditer(command):
            used.add(reference["name"])
            assert reference["default"], f"Procfile {name}: ${{{reference['name']}}} has no default"
            assert reference["name"] in example, f"{reference['name']} not in kumo.env.example"
    assert {"PORT", "WEB_CONCURRENCY", "CELERY_CONCURRENCY", "FORWARDED_ALLOW_IPS"} <= used


@pytest.mark.parametrize("path", UNITS, ids=lambda path: path.name)
def test_every_unit_variable_has_a_default_and_is_in_the_example(path):
    example = listed_in_example()
    defaults, commands = unit(path)
    used = {reference["name"] for command in commands for reference in REFERENCE.finditer(command)}
    assert used, "the unit uses no variable: nothing checked"
    for name in used:
        assert defaults.get(name), f"{path.name}: ${{{name}}} has no Environment= default"
        assert name in example, f"{name} ({path.name}) is not in kumo.env.example"
    # The defaults come first; the administrator's file, read after, overrides them.
    text = path.read_text()
    assert text.index("Environment=") < text.index("EnvironmentFile=/etc/kumo/kumo.env")


def test_forwarded_headers_are_trusted_from_the_configured_proxy_only():
    web = procfile()["web"]
    assert '--forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}"' in web
    defaults, commands = unit(DEPLOY / "systemd" / "kumo-web.service")
    assert defaults["FORWARDED_ALLOW_IPS"] == "127.0.0.1"
    assert "--forwarded-allow-ips ${FORWARDED_ALLOW_IPS}" in commands[-1]
    every = [*procfile().values(), *(command for path in UNITS for command in unit(path)[1])]
    assert not [command for command in every if "*" in command]
    assert '"*"' not in (DEPLOY / "Dockerfile").read_text()


def test_a_restart_drains_in_seconds():
    assert "--timeout-graceful-shutdown 5" in procfile()["web"]
    text = (DEPLOY / "systemd" / "kumo-web.service").read_text()
    assert "--timeout-graceful-shutdown 5" in text
    # systemd waits a little longer than uvicorn's own drain before it kills.
    assert int(re.search(r"^TimeoutStopSec=(\d+)$", text, re.MULTILINE)[1]) <= 15
