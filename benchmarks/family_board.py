"""Time the task families' board on a store of 200,000 finished attempts.

Usage::

    .venv/bin/python benchmarks/family_board.py [--attempts 200000] [--models 20]
        [--requests 50] [--seed 1] [--keep]

By default the store is a throwaway SQLite file (``SQLITE_PATH`` set before Django starts;
``--keep`` leaves it and prints its path). With ``DATABASE_URL`` set it is that database
(PostgreSQL): it must hold no family task yet, and the script removes what it wrote unless
``--keep``.

The store: every (family, kind, level) the registry serves, each with its tasks; the
attempts spread over the models, the built-in baselines (``reference``, ``random``,
``blank``), the study's analysis sample (a few selected participants at their task sets'
tasks) and visitors' practice (guest accounts). Puzzles carry LR²Bench's figures, count-
scored games their points. Rows are written with ``bulk_create``; the tasks are synthetic
(the board reads only their family, kind and level).

The script prints:

1. the wall time of the full recompute (``recompute(full=True)``: what the nightly job runs;
   the family rows are built there, beside KUMO's) and of an incremental one after one new
   attempt;
2. for ``/leaderboard/families/`` (its default family, the games: the largest),
   ``/leaderboard/families/?family=simple`` and ``/leaderboard/profile/``, over
   ``--requests`` requests through Django's test client after one warm-up: p50, p95 and max
   wall time in ms, the process's CPU time (on a shared machine the wall time includes
   waiting for a core), and the queries per request — target p95 < 300 ms;
3. with ``--served`` (PostgreSQL only): the same pages over HTTP from the deploy recipe's
   web process (``deploy/Procfile``'s uvicorn line with its shipped defaults: two workers,
   ``DEBUG=0``, collected static files) on the same database, p50, p95 and max;
4. the machine's load average (the figures are only comparable on a quiet machine).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

TARGET_P95_MS = 300.0


def setup_django(database: Path | None) -> None:
    """Point Django at the database (a fresh SQLite file unless DATABASE_URL) and migrate."""
    if database is not None:
        os.environ["SQLITE_PATH"] = str(database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmark.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def groups() -> list[tuple[str, str, str]]:
    """Every (family, kind, level) the registry serves (a kind without levels: one, "")."""
    from engine.core.families.base import FAMILIES, get_family

    get_family("simple")  # the built-in families register on import
    found = []
    for family in sorted(FAMILIES.values(), key=lambda f: f.name):
        for kind in family.kinds.values():
            for level in list(kind.levels) or [""]:
                found.append((family.name, kind.name, level))
    return found


def build_store(attempts: int, models: int, seed: int) -> dict[str, int]:
    """Tasks, players and ``attempts`` finished attempts; returns what was made."""
    from django.contrib.auth.models import User
    from django.db import transaction
    from django.utils import timezone

    from engine.core.families.base import get_family
    from engine.models import FamilyAttempt, FamilyTask, Visitor
    from humanstudy.models import Participant, TaskSet, TaskSetItem
    from leaderboard.family_board import BUILT_IN_PLAYERS
    from leaderboard.models import ModelEntry

    rng = random.Random(seed)
    every = groups()
    log_scaled = {name for name, game in get_family("games").games.items() if game.log_scaled}
    players = [f"model-{m:02d}" for m in range(models)] + list(BUILT_IN_PLAYERS)
    # Model attempts: 85 %; the rest people's, a fifth of those the study's sample.
    model_share = int(attempts * 0.85)
    per_slot = max(1, model_share // (len(every) * len(players)))
    runs = 3
    tasks_per_group = max(1, -(-per_slot // runs))
    now = timezone.now()
    with transaction.atomic():
        ModelEntry.objects.bulk_create(
            [ModelEntry(name=name, provider="synthetic") for name in players[:models]]
        )
        tasks = FamilyTask.objects.bulk_create(
            [
                FamilyTask(
                    family=family,
                    kind=kind,
                    level=level,
                    params={},
                    params_key=f"{level}",
                    seed=s,
                    public={},
                    hidden={},
                )  # fmt: skip
                for family, kind, level in every
                for s in range(tasks_per_group)
            ],
            batch_size=2000,
        )
        operator = User.objects.create_user("bench-operator")
        people = max(1, (attempts - model_share) // len(tasks))
        guests = [User(username=f"visitor-bench-{g}") for g in range(people)]
        study = [User(username=f"study-bench-{p}") for p in range(max(1, people // 4))]
        User.objects.bulk_create([*guests, *study])
        guests = list(User.objects.filter(username__startswith="visitor-bench-"))
        study = list(User.objects.filter(username__startswith="study-bench-"))
        Visitor.objects.bulk_create([Visitor(user=user) for user in guests])
        task_set = TaskSet.objects.create(name="bench-set")
        TaskSetItem.objects.bulk_create(
            [
                TaskSetItem(task_set=task_set, family_task=t, position=i)
                for i, t in enumerate(tasks)
            ],
            batch_size=2000,
        )
        Participant.objects.bulk_create(
            [Participant(user=u, task_set=task_set, selected_for_analysis=True) for u in study]
        )

        def attempt(task, **who) -> FamilyAttempt:
            correct = rng.random() < 0.5
            value = 1.0 if correct else rng.random() * 0.9
            details: dict = {}
            if task.family in ("puzzles", "lr2bench"):
                subtasks = rng.randint(8, 60)  # LR²Bench's figures of one item
                right = subtasks if correct else int(value * subtasks)
                details = {
                    "cr": int(rng.random() < 0.9),
                    "s_acc": right / subtasks,
                    "em": int(correct),
                    "pm05": int(right / subtasks >= 0.5),
                    "subtasks": subtasks,
                    "right": right,
                }
            elif task.kind in log_scaled:
                details = {"points": rng.randint(0, 4000)}
            return FamilyAttempt(
                task=task, finished_at=now, answer="x", correct=correct, value=value,
                details=details, tokens=rng.randint(100, 3000),
                parse_error="no answer line" if rng.random() < 0.05 else "", **who,
            )  # fmt: skip

        rows = []
        for task in tasks:
            for name in players:
                for run in range(runs):
                    rows.append(attempt(task, player=operator, model_name=name, run=run))
        rows = rows[:model_share]
        people_rows = [attempt(task, player=user) for task in tasks for user in (*guests, *study)]
        rows += people_rows[: attempts - len(rows)]
        FamilyAttempt.objects.bulk_create(rows, batch_size=5000)
    return {
        "groups": len(every),
        "tasks": len(tasks),
        "players": len(players),
        "guests": len(guests),
        "study": len(study),
        "attempts": FamilyAttempt.objects.count(),
    }


def timed(url: str, requests: int) -> tuple[list[float], list[float], int]:
    """``requests`` GETs of ``url`` after a warm-up: the wall and CPU times in ms, and the
    queries per request. The CPU time is this process's alone: on a shared machine the wall
    time also counts the waits for a core."""
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    # The debug query log is a bounded deque, full after building the store: empty it, or
    # the capture below sees no new entry.
    reset_queries()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    times, cpu = [], []
    for _ in range(requests):
        start, used = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - used) * 1000)
        assert response.status_code == 200
    return times, cpu, len(queries)


def served(urls: tuple[str, ...], requests: int) -> None:
    """Time ``urls`` over HTTP from the recipe's web process (deploy/Procfile's uvicorn line
    with its shipped defaults) on this database: what a deployed board answers."""
    import socket
    import subprocess

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(
        os.environ,
        DEBUG="0",
        SECRET_KEY="benchmark-only-secret-key-" + "x" * 30,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SECURE_COOKIES="0",
        SECURE_HSTS_SECONDS="0",
        PYTHONPATH=str(REPO_ROOT),
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=REPO_ROOT, env=env, check=True,
    )  # fmt: skip
    workers = os.environ.get("WEB_CONCURRENCY", "2")  # the Procfile's default
    web = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "benchmark.asgi:application", "--host",
            "127.0.0.1", "--port", str(port), "--workers", workers, "--lifespan", "off",
            "--timeout-keep-alive", "75",
        ],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            for _ in range(300):
                try:
                    if client.get("/health/").status_code < 500:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.2)
            for url in urls:
                for _ in range(2):  # warm both workers
                    assert client.get(url).status_code == 200, url
                times = []
                for _ in range(requests):
                    start = time.perf_counter()
                    response = client.get(url)
                    times.append((time.perf_counter() - start) * 1000)
                    assert response.status_code == 200, (url, response.status_code)
                p95 = percentile(times, 0.95)
                print(
                    f"served {url}: p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, "
                    f"max {max(times):.0f} ms over {requests} requests ({workers} uvicorn "
                    f"workers, DEBUG=0) — target p95 < {TARGET_P95_MS:.0f} ms: "
                    f"{'met' if p95 < TARGET_P95_MS else 'MISSED'}"
                )
    finally:
        os.killpg(web.pid, 15)
        web.wait(timeout=60)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=200_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep what was written")
    parser.add_argument(
        "--served",
        action="store_true",
        help="also time the pages over HTTP from the recipe's web process (PostgreSQL only)",
    )
    args = parser.parse_args(argv)
    if args.served and not os.environ.get("DATABASE_URL"):
        parser.error("--served needs DATABASE_URL (the recipe's database is PostgreSQL)")

    database = None
    wrote = False
    if not os.environ.get("DATABASE_URL"):
        handle, name = tempfile.mkstemp(prefix="kumo-family-board-", suffix=".sqlite3")
        os.close(handle)
        database = Path(name)
    try:
        setup_django(database)
        from django.db import connection

        from engine.models import FamilyTask
        from leaderboard.models import FamilyBoardRow
        from leaderboard.recompute import recompute

        if FamilyTask.objects.exists():
            print("the database already holds family tasks: point DATABASE_URL at an empty one")
            return 2
        wrote = True
        start = time.perf_counter()
        made = build_store(args.attempts, args.models, args.seed)
        print(
            f"store ({connection.vendor}): {made['attempts']:,} finished attempts over "
            f"{made['groups']} (family, kind, level) groups, {made['tasks']:,} tasks, "
            f"{made['players']} models and baselines, {made['guests']} guests, "
            f"{made['study']} study participants; built in {time.perf_counter() - start:.1f} s"
        )
        start = time.perf_counter()
        report = recompute(full=True)
        print(
            f"full recompute: {time.perf_counter() - start:.2f} s, {report.family_groups} "
            f"groups, {report.family_rows:,} family board rows"
        )
        assert FamilyBoardRow.objects.count() == report.family_rows
        from django.contrib.auth.models import User

        from engine import families

        task = families.do_generate_family_tasks(
            "simple", "math", count=1, seed=10**9, level="easy"
        ).tasks[0]
        player = User.objects.create_user("bench-late-player")
        late, _ = families.start_attempt(player, task)
        families.answer_attempt(late.pk, player, str(task.hidden["answer"]))
        start = time.perf_counter()
        report = recompute(full=False)
        print(
            f"incremental recompute after one answer: {time.perf_counter() - start:.2f} s, "
            f"{report.family_rows} rows of {report.family_groups} group rewritten"
        )
        # The board's default family (the first with rows: games, the largest) and the
        # smallest, then the profile.
        for url in (
            "/leaderboard/families/",
            "/leaderboard/families/?family=simple",
            "/leaderboard/profile/",
        ):
            times, cpu, queries = timed(url, args.requests)
            p95 = percentile(times, 0.95)
            print(
                f"{url}: p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, max "
                f"{max(times):.0f} ms over {args.requests} requests (CPU p50 "
                f"{statistics.median(cpu):.0f} ms, p95 {percentile(cpu, 0.95):.0f} ms), "
                f"{queries} queries — target p95 < {TARGET_P95_MS:.0f} ms: "
                f"{'met' if p95 < TARGET_P95_MS else 'MISSED'}"
            )
        if args.served:
            served(
                (
                    "/leaderboard/families/",
                    "/leaderboard/families/?family=simple",
                    "/leaderboard/profile/",
                ),
                args.requests,
            )
        one, five, fifteen = os.getloadavg()
        print(f"load average: {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)")
    finally:
        from django.db import connections

        if database is None and wrote and not args.keep:
            _remove_written()
        connections.close_all()
        if database is not None:
            if args.keep:
                print(f"database kept at {database}")
            else:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(f"{database}{suffix}").unlink(missing_ok=True)
    return 0


def _remove_written() -> None:
    """Remove what the script wrote to a database it was given (DATABASE_URL)."""
    from django.contrib.auth.models import User

    from engine.models import FamilyAttempt, FamilyTask
    from humanstudy.models import Participant, TaskSet
    from leaderboard.models import FamilyBoardRow, FamilyStaleGroup, ModelEntry

    FamilyAttempt.objects.all().delete()
    Participant.objects.filter(user__username__startswith="study-bench-").delete()
    TaskSet.objects.filter(name="bench-set").delete()
    FamilyTask.objects.all().delete()
    FamilyBoardRow.objects.all().delete()
    FamilyStaleGroup.objects.all().delete()
    ModelEntry.objects.filter(provider="synthetic").delete()
    User.objects.filter(username__startswith="visitor-bench-").delete()
    User.objects.filter(username__startswith="study-bench-").delete()
    User.objects.filter(username__in=["bench-operator", "bench-late-player"]).delete()


if __name__ == "__main__":
    raise SystemExit(main())
