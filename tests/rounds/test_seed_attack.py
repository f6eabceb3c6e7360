"""The seed attack, end to end: during a live round an ordinary token holder collects every
seed it can read (APIs, pages, exports, error messages, its ranked attempts), regenerates
tasks with the project's own generators from each, and must match no pinned task's hidden
part, KUMO's instances included. A round's tasks follow from a server secret: the same
round prepared under another ``TASK_SEED_SECRET`` gets other tasks."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import CommandError
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.core.families.base import FamilyError, get_family
from engine.core.families.kumo.generate import GenerationError, generate_instance
from engine.families import do_generate_family_tasks
from engine.models import FamilyTask, Instance
from leaderboard import rounds
from leaderboard.models import Round, RoundFamilyTask
from tests.rounds.helpers import prepare

pytestmark = pytest.mark.django_db(transaction=True)

FAMILY_TASKS = (
    "puzzles/sudoku/easy:2",
    "games/wordle/medium:2",
    "games/mastermind/hard:1",
    "simple/math/easy:2",
    "kumo/orchard/easy:1",  # KUMO's games named as a family: pinned as the round's instances
)
ROUND_SEED = 500


def _prepare(name: str = "2025-01") -> Round:
    extra = [arg for spec in FAMILY_TASKS for arg in ("--family-task", spec)]
    prepare(name, "grove", "4x6", 2, ROUND_SEED, *extra)
    return Round.objects.get(name=name)


def _pinned(target: Round) -> tuple[list[FamilyTask], list[Instance]]:
    tasks = list(
        FamilyTask.objects.filter(
            pk__in=RoundFamilyTask.objects.filter(round=target).values("task_id")
        )
    )
    return tasks, list(Instance.objects.filter(rounds=target).select_related("domain"))


def _kumo_hidden(core) -> tuple:
    return (tuple(core.truths), tuple(core.actions), tuple(sorted(core.valid_truths)))


def _regenerate(seed: int, tasks: list[FamilyTask], instances: list[Instance]) -> list[str]:
    """What the attacker rebuilds from ``seed`` that is a pinned task, hidden part included."""
    matches = []
    for task in tasks:
        try:
            rebuilt = get_family(task.family).generate(task.kind, seed, level=task.level)
        except FamilyError:
            continue
        # The same task (its public view and its hidden part): a small answer space alone
        # (a sum between 0 and 100) is no leak.
        if (dict(rebuilt.public), dict(rebuilt.hidden)) == (task.public, task.hidden):
            matches.append(f"{task.family}/{task.kind} from seed {seed}")
    for instance in instances:
        try:
            rebuilt = generate_instance(instance.domain.to_core(), 4, 6, seed)
        except GenerationError:
            continue
        if _kumo_hidden(rebuilt) == _kumo_hidden(instance.to_core()):
            matches.append(f"kumo instance from seed {seed}")
    return matches


def _seeds_in(data, found: set[int]) -> None:
    """Every integer under a key naming a seed, anywhere in a JSON answer."""
    if isinstance(data, dict):
        for key, value in data.items():
            if "seed" in str(key).lower() and isinstance(value, int):
                found.add(value)
            _seeds_in(value, found)
    elif isinstance(data, list):
        for value in data:
            _seeds_in(value, found)


SEED_IN_TEXT = re.compile(r"seed\D{0,40}?(\d+)", re.I)


def test_no_seed_a_token_holder_can_read_regenerates_a_pinned_task(clock, grove, make_user):
    target = _prepare()
    rounds.do_rotate(target=target)
    tasks, instances = _pinned(target)
    assert len(tasks) == 7 and len(instances) == 3
    user = make_user("attacker")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    page = Client()
    page.force_login(user)
    bodies: list[str] = []
    seeds: set[int] = set()

    def read_api(url: str, method: str = "get", **data):
        response = getattr(api, method)(url, data or None, format="json")
        bodies.append(response.content.decode())
        if response.headers.get("Content-Type", "").startswith("application/json"):
            body = response.json()
            _seeds_in(body, seeds)
            return body
        return None

    # The APIs, every page of every list.
    for start in ("/api/v1/family-tasks/", "/api/v1/instances/"):
        url = start
        while url:
            body = read_api(url)
            url = body.get("next") if isinstance(body, dict) else None
    listed = api.get("/api/v1/family-tasks/").json()
    assert listed["count"] == 7 and {row["seed"] for row in listed["results"]} == {None}
    listed = {row["id"]: row["seed"] for row in api.get("/api/v1/instances/").json()["results"]}
    assert [listed[instance.pk] for instance in instances] == [None, None, None]
    assert set(listed.values()) - {None} == {0, 1, 2}  # the orchard's practice instances
    # Play what a token holder may: a pinned task of each kind, a pinned instance, a ranked
    # attempt of the round's own kinds.
    for task in tasks:
        attempt = read_api("/api/v1/family-attempts/", "post", task=task.pk)
        read_api(f"/api/v1/family-attempts/{attempt['id']}/")
        bodies.append(page.get(f"/families/attempts/{attempt['id']}/").content.decode())
    session = read_api("/api/v1/sessions/", "post", instance=instances[0].pk)
    read_api(f"/api/v1/sessions/{session['id']}/")
    for spec in ("puzzles/sudoku/easy", "games/wordle/medium", "kumo/orchard/easy"):
        family, kind, level = spec.split("/")
        read_api(
            "/api/v1/ranked-family-attempts/",
            "post",
            model="attacker-model",
            family=family,
            kind=kind,
            level=level,
        )
    read_api("/api/v1/ranked-family-attempts/")
    read_api("/api/v1/leaderboard/")
    read_api("/api/v1/families/")
    for url in (
        "/leaderboard/",
        "/leaderboard/rounds/",
        "/leaderboard/families/",
        "/leaderboard/families/?round=2025-01",
        "/leaderboard/board.json",
        "/families/",
        "/domains/grove/",
        "/domains/orchard/",
    ):
        bodies.append(page.get(url).content.decode())
    assert page.get("/leaderboard/rounds/2025-01/instances.jsonl").status_code == 404
    # Error messages: generation at the round's seeds, a round at its seed again.
    try:
        do_generate_family_tasks("puzzles", "sudoku", count=5, seed=ROUND_SEED, level="easy")
    except FamilyError as error:
        bodies.append(str(error))
    with pytest.raises(CommandError) as refused:
        prepare("2025-02", "grove", "4x6", 2, ROUND_SEED)
    bodies.append(str(refused.value))
    for text in bodies:
        seeds.update(int(number) for number in SEED_IN_TEXT.findall(text))
    # The public inputs themselves: the round's seed and what it used to derive.
    seeds.update(range(ROUND_SEED, ROUND_SEED + 5))

    # No pinned task's seed appears anywhere the attacker read.
    everything = "\n".join(bodies)
    for row in [*tasks, *instances]:
        assert str(row.seed) not in everything, row
    # And nothing rebuilt from what it read is a pinned task.
    assert seeds and ROUND_SEED in seeds
    matches = [match for seed in sorted(seeds) for match in _regenerate(seed, tasks, instances)]
    assert matches == []
    # The comparison is not vacuous: each pinned task's own (secret) seed rebuilds it.
    for row in [*tasks, *instances]:
        assert _regenerate(row.seed, [row] if isinstance(row, FamilyTask) else [],
                           [row] if isinstance(row, Instance) else [])  # fmt: skip

    # After the round closes and is published, its seeds may be shown.
    clock(2025, 3, 2)
    prepare("2025-03", "grove", "4x6", 1, 900)
    rounds.do_rotate(target=Round.objects.get(name="2025-03"), publish=True)
    shown = api.get("/api/v1/family-tasks/?family=puzzles").json()["results"]
    assert {row["seed"] for row in shown} >= {t.seed for t in tasks if t.kind == "sudoku"}
    export = page.get("/leaderboard/rounds/2025-01/instances.jsonl")
    text = b"".join(export.streaming_content).decode()
    lines = [json.loads(line) for line in text.splitlines()]
    assert sorted(line["seed"] for line in lines) == sorted(i.seed for i in instances)


def _hidden_parts(target: Round) -> set[str]:
    tasks, instances = _pinned(target)
    return {json.dumps([task.public, task.hidden], sort_keys=True) for task in tasks} | {
        json.dumps(_kumo_hidden(instance.to_core())) for instance in instances
    }


def test_the_same_round_under_another_secret_gets_other_tasks(clock, grove):
    with override_settings(TASK_SEED_SECRET="the first server's secret"):
        first = _hidden_parts(_prepare())
    Round.objects.filter(name="2025-01").delete()
    with override_settings(TASK_SEED_SECRET="another server's secret"):
        second = _hidden_parts(_prepare())
    assert len(first) == len(second) == 10
    assert first.isdisjoint(second)
