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
    """Upload one native line per key of ``wins`` (run 0): the valid truth or a wrong one.
    A key is a public instance's seed, or ``round seed + i`` for the i-th instance a round
    pinned for this domain and setting (a round's instances have secret seeds, so the line
    names it by id, as a harness reading ``/api/v1/instances/`` would). With ``expect``, the
    upload must be answered with that status (and is not checked)."""
    n_truths, n_actions = setting
    lines = []
    for key in sorted(wins):
        instance, named = _instance_at(domain, n_truths, n_actions, key)
        wrong = sorted(t for t in instance.truths if t not in instance.valid_truths)[0]
        lines.append(
            {
                **named,
                "run": 0,
                "actions": list(instance.actions[:1]),
                "answer": instance.valid_truths[0] if wins[key] else wrong,
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


def _instance_at(domain: str, n_truths: int, n_actions: int, key: int) -> tuple[Instance, dict]:
    from leaderboard.models import Round

    same = Instance.objects.filter(domain__name=domain, n_truths=n_truths, n_actions=n_actions)
    public = same.filter(seed=key, rounds__isnull=True).first()
    if public is not None:
        return public, {"seed": public.seed}
    for target in Round.objects.filter(seed__lte=key):
        if key < target.seed + target.instances_per_setting:
            pinned = list(same.filter(rounds=target).order_by("pk"))
            if len(pinned) > key - target.seed:
                instance = pinned[key - target.seed]
                return instance, {"instance": instance.pk}
    raise AssertionError(f"no instance {key} of {domain} {n_truths}x{n_actions}")
