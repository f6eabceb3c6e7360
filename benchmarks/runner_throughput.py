"""Throughput of the benchmark runner against the local scripted chat server.

Usage::

    .venv/bin/python benchmarks/runner_throughput.py [--domain chemical] [--truths 4]
        [--actions 6] [--instances 40] [--runs 2] [--latency-ms 0 50] [--concurrency 1 8 32]

Everything the ``evaluate`` command does is measured: a run is created and played by
``benchmark.actions.do_run_evaluation`` on a throw-away SQLite database (games stored in
batches, counters updated, no leaderboard submission), through the real HTTP client, against
``benchmark.fake_llm.FakeChatServer`` playing the optimal policy in a separate process (so
the server's work does not compete with the runner for the GIL). ``--latency-ms`` adds a
fixed delay to every reply to stand in for a real API's response time.

The default setting is Easy (4 truths / 6 actions): storing instances computes their oracle
values, and the server plays the oracle, so a Hard setting's cost is dominated by the
optimal search rather than by the runner.

Printed: games (trajectories) per second, turns per second and the runner process's CPU
time per turn (steadier than wall-clock figures on a busy machine) for each latency and
concurrency, then the runner's overhead per turn at concurrency 1 with no added latency:
the wall time not spent inside the server (as timed by the server itself), split into the
HTTP client (request encoding, the loopback round trip and reply decoding) and the rest
(game loop, prompts, parsing, storage). Times are wall-clock (``time.perf_counter``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    # Run as a script, the benchmarks directory is on the path but the repository is not.
    sys.path.insert(0, str(REPO_ROOT))


def serve(domain, instances, connection) -> None:
    """The server process: play the oracle, answer stats requests on ``connection``."""
    from benchmark.fake_llm import FakeChatServer, FakeResponse, OracleScript

    oracle = OracleScript(domain, instances)
    latency = {"seconds": 0.0}

    def script(request):
        reply = oracle(request)
        return FakeResponse(content=reply.content, delay=latency["seconds"])

    with FakeChatServer(script) as server:
        connection.send(server.base_url)
        while True:
            command, value = connection.recv()
            if command == "latency":
                latency["seconds"] = value
                server.handling_seconds.clear()
                connection.send(None)
            elif command == "stats":
                seconds = list(server.handling_seconds)
                connection.send((len(seconds), sum(seconds)))
            else:
                break


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", default="chemical", help="a shipped domain (default chemical)")
    parser.add_argument("--truths", type=int, default=4)
    parser.add_argument("--actions", type=int, default=6)
    parser.add_argument("--instances", type=int, default=40)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--latency-ms", type=float, nargs="+", default=[0.0, 50.0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    args = parser.parse_args(argv)

    database = Path(tempfile.mkdtemp(prefix="kumo-throughput-")) / "db.sqlite3"
    os.environ["SQLITE_PATH"] = str(database)
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmark.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")

    import django

    django.setup()
    from io import StringIO

    from django.contrib.auth.models import User
    from django.core.management import call_command

    import benchmark.actions as runner_actions
    from benchmark.actions import RunSpec, do_create_run, do_run_evaluation
    from benchmark.llm import ChatClient
    from benchmark.models import EvaluationRun
    from engine.actions import do_generate_instances, do_import_domain
    from engine.core.families.kumo.domain_io import domain_from_json

    call_command("migrate", verbosity=0, stdout=StringIO())
    path = REPO_ROOT / "engine" / "domains" / f"{args.domain}.json"
    domain_row, _ = do_import_domain(domain_from_json(path.read_text()), source="shipped")
    cores, _ = do_generate_instances(
        domain_row, n_truths=args.truths, n_actions=args.actions, count=args.instances, seed=0
    )
    user = User.objects.create_superuser("bench", "bench@example.com", "x")

    class TimedClient(ChatClient):
        """Adds up the time spent inside chat() (HTTP client and server together)."""

        seconds = 0.0

        def chat(self, messages, **params):
            started = time.perf_counter()
            try:
                return super().chat(messages, **params)
            finally:
                TimedClient.seconds += time.perf_counter() - started

    runner_actions.ChatClient = TimedClient

    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    server = context.Process(target=serve, args=(domain_row.to_core(), cores, child), daemon=True)
    server.start()
    base_url = parent.recv()
    games = args.instances * args.runs
    print(
        f"Runner throughput: {args.domain}, {args.truths} truths / {args.actions} actions, "
        f"{args.instances} instances x {args.runs} runs = {games} games per measurement"
    )
    print(
        f"{'latency':>8} {'concurrency':>11} {'games/s':>9} {'turns/s':>9} {'turns/game':>10} "
        f"{'runner CPU/turn':>15}"
    )
    overhead = None
    try:
        for latency_ms in args.latency_ms:
            for concurrency in args.concurrency:
                parent.send(("latency", latency_ms / 1000))
                parent.recv()
                TimedClient.seconds = 0.0
                run = do_create_run(
                    RunSpec(
                        model=f"fake-{latency_ms:g}-{concurrency}",
                        base_url=base_url,
                        domains=[domain_row.name],
                        n_truths=args.truths,
                        n_actions=args.actions,
                        runs=args.runs,
                        concurrency=concurrency,
                        submit=False,
                    ),
                    created_by=user,
                )
                started, cpu_started = time.perf_counter(), time.process_time()
                do_run_evaluation(run.pk)
                wall = time.perf_counter() - started
                cpu = time.process_time() - cpu_started
                run = EvaluationRun.objects.get(pk=run.pk)
                assert run.status == "done" and run.correct_games == games, run.error
                parent.send(("stats", None))
                turns, server_seconds = parent.recv()
                print(
                    f"{latency_ms:>6g}ms {concurrency:>11} {games / wall:>9.1f} "
                    f"{turns / wall:>9.1f} {turns / games:>10.2f} {cpu / turns * 1000:>12.2f} ms"
                )
                if latency_ms == 0 and concurrency == 1:
                    overhead = (wall, TimedClient.seconds, server_seconds, turns)
    finally:
        parent.send(("stop", None))
        server.join(timeout=10)

    if overhead is not None:
        wall, in_client, in_server, turns = overhead
        print(
            f"\nRunner overhead per turn (concurrency 1, no added latency): "
            f"{(wall - in_server) / turns * 1000:.2f} ms outside the server = "
            f"{(in_client - in_server) / turns * 1000:.2f} ms HTTP client (encode, loopback "
            f"round trip, decode) + {(wall - in_client) / turns * 1000:.2f} ms game loop, "
            f"prompts, parsing and storage; the server itself took "
            f"{in_server / turns * 1000:.2f} ms per turn"
        )


if __name__ == "__main__":
    main()
