"""The API schema matches the server: a bounded schemathesis run against uvicorn on the
production stack (PostgreSQL, Redis, DEBUG off) with every check on, finding no server
error and no mismatch. The few exceptions it is told about are in schemathesis.toml beside
this file, each with its reason.

A longer exploration (more examples, a random seed) is the same command by hand; see
docs/api.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from engine import families, sessions
from engine.models import Instance
from tests.production.test_asgi_server import uvicorn

pytestmark = [pytest.mark.production, pytest.mark.django_db(transaction=True)]

CONFIG = Path(__file__).with_name("schemathesis.toml")
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
# A fixed seed keeps the suite's run repeatable; SCHEMATHESIS_SEED picks another.
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261125")


def test_schemathesis_finds_no_server_error_and_no_schema_mismatch(researcher, tmp_path):
    user = User.objects.get(username="researcher")
    # Staff, so that the evaluation-run operations answer too (they are staff only).
    User.objects.filter(pk=user.pk).update(is_staff=True)
    token = Token.objects.get(user=user).key
    instance = Instance.objects.filter(domain__name="orchard").order_by("seed").first()
    session, _ = sessions.start_session(user, instance)
    task = families.do_generate_family_tasks("simple", "travel", count=1).tasks[0]
    attempt, _ = families.start_attempt(user, task)
    # Real ids for the operations on one object, so that they reach the game and the
    # submission logic instead of answering 404 to every generated id.
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        CONFIG.read_text()
        + f"""
[[operations]]
include-operation-id = ["sessions_retrieve", "sessions_actions_create", "sessions_answer_create"]
parameters = {{ "session_id" = {session.pk} }}

[[operations]]
include-operation-id = ["family_attempts_retrieve", "family_attempts_answer_create"]
parameters = {{ "attempt_id" = {attempt.pk} }}
"""
    )
    log = tmp_path / "server.log"
    with uvicorn(
        workers=1,
        log=log,
        DEBUG="0",
        SECRET_KEY="schema-test-secret",
        ALLOWED_HOSTS="127.0.0.1",
    ) as (_server, base, _port):
        result = subprocess.run(
            [
                str(SCHEMATHESIS),
                "--config-file",
                str(config),
                "run",
                f"{base}/api/schema/",
                "--checks",
                "all",
                "--max-examples",
                "25",
                "--workers",
                "2",
                "--seed",
                SEED,
                "--request-timeout",
                "30",
                # Behind the TLS proxy of the production recipe (SECURE_SSL_REDIRECT is on).
                "-H",
                "X-Forwarded-Proto: https",
                "-H",
                f"Authorization: Token {token}",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "NO_COLOR": "1"},
        )
        # An address outside the API (a generated path can normalise to one) is the site's
        # own 404 page, drawn with the collected static files: not a server error.
        outside = httpx.get(
            f"{base}/no-such-page/", headers={"X-Forwarded-Proto": "https"}, timeout=30
        )
        assert outside.status_code == 404 and "text/html" in outside.headers["content-type"]
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "passed" in report and "failed" not in report.lower().split("summary")[-1], report
    server_log = log.read_text()
    assert "Traceback" not in server_log and "Internal Server Error" not in server_log, server_log
