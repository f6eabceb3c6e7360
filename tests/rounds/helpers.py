"""Helpers of the rounds' tests: run commands, prepare rounds, upload results."""

from __future__ import annotations

import json
from io import StringIO

from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from engine.models import Instance


def run(*args: str) -> str:
    """Run a management command, return what it printed."""
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def prepare(name: str, domains: str, settings: str, instances: int, seed: int, *extra: str) -> str:
    return run(
        "prepare_round",
        "--domains",
        domains,
        "--task-settings",
        settings,
        "--instances",
        str(instances),
        "--seed",
        str(seed),
        "--name",
        name,
        *extra,
    )


def submit(
    client: APIClient,
    model: str,
    domain: str,
    setting: tuple[int, int],
    wins: dict[int, bool],
    *,
    expect: int | None = None,
) -> dict:
    """Upload one native line per seed of ``wins`` (run 0): the valid truth or a wrong one.
    With ``expect``, the upload must be answered with that status (and is not checked)."""
    n_truths, n_actions = setting
    instances = Instance.objects.filter(
        domain__name=domain, n_truths=n_truths, n_actions=n_actions, seed__in=list(wins)
    )
    assert instances.count() == len(wins)
    lines = []
    for instance in instances.order_by("seed"):
        wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        lines.append(
            {
                "seed": instance.seed,
                "run": 0,
                "actions": list(instance.actions[:1]),
                "answer": instance.valid_truths[0] if wins[instance.seed] else wrong,
                "tokens": {"prompt": 100, "completion": 20},
            }
        )
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    response = client.post(
        "/api/v1/submissions/",
        {
            "model": model,
            "domain": domain,
            "truths": n_truths,
            "actions": n_actions,
            "format": "native",
            "file": SimpleUploadedFile("results.jsonl", content),
        },
        format="multipart",
    )
    if expect is not None:
        assert response.status_code == expect, response.content
        return response.json()
    assert response.status_code in (200, 201), response.content
    assert response.json()["status"] == "done", response.json()
    return response.json()
