"""Load and fault runs of the production stack, on this machine only (127.0.0.1).

Starts the production recipe as shipped, from scratch: deploy/Procfile's commands (release,
web, worker, and beat for the fault runs) with deploy/kumo.env.example's settings (worker
counts, pool sizes, access log, proxy headers), on a fresh PostgreSQL database on the local
server and a redis-server of its own on a free port; only the addresses change (see
``Stack``). Everything it starts runs in its own process group and is stopped at the end,
however the run ends (an error, SIGTERM, SIGINT), and the database dropped. Every loop is
bounded in count and time.

Beside each figure it prints the machine's load average (at the start and the end) and a
machine-speed reference measured in the same run, before and after the load: the time of a
bare PostgreSQL transaction that locks a row and inserts one (psycopg, one connection, 1000
in a row), the least a move can cost. The web workers' CPU time per move is printed as a
multiple of it, so figures from two machines compare as ratios.

    .venv/bin/python benchmarks/production_load.py load --players 500 --think 5 --duration 60
    .venv/bin/python benchmarks/production_load.py saturate --levels 10,25,50,100
    .venv/bin/python benchmarks/production_load.py faults
    .venv/bin/python benchmarks/production_load.py games --players 50 --think 1 --duration 60

``load``: every player plays Easy games one after another, a move every ``--think`` seconds
on average (drawn 0.5-1.5x); half play over the HTTP API, half over a websocket (moves sent
on the socket, latency = until the state showing the move arrives); players arrive spread
over the first think period, each with its own connection. Prints move latency
p50/p95/p99 per transport and for session starts, moves/s, every error, the generator's own
event-loop lag (latency it adds itself), CPU per process group (web workers, PostgreSQL,
Redis, this generator: all share the machine) and what the server logged.
``saturate``: closed loops with no think time at each concurrency level: moves/s and p95.
``games``: every player plays the games family's games (every game, ``--level``, in a
rotating order) over the HTTP API, the reference player's moves one every ``--think``
seconds on average; prints per-move latency p50/p95/p99 (the request's round trip on
loopback) for each game and over all moves, moves/s and errors.
``faults``: kills the Celery worker while it scores a 60,000-trajectory submission (with the
shipped lease settings; ``--fault-wait`` bounds the wait), kills a uvicorn worker under
load, restarts Redis under load; prints what was lost and how long recovery took.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import random
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
PROCFILE = ROOT / "deploy" / "Procfile"
ENV_EXAMPLE = ROOT / "deploy" / "kumo.env.example"
# Every process a run starts carries this variable (with the run's process id), so a test
# can tell whether any of them outlived the run (tests/production/test_benchmark_stack.py).
RUN_MARK = "KUMO_BENCH_RUN"
# What the TLS-terminating proxy of the recipe (README, Production) adds to every request.
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(check, what: str, limit: float = 60.0) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        try:
            if check():
                return time.monotonic() - started
        except Exception:
            pass
        time.sleep(0.1)
    raise SystemExit(f"gave up waiting for {what}")


def procfile() -> dict[str, str]:
    """deploy/Procfile's commands by process name, as shipped."""
    commands = {}
    for line in PROCFILE.read_text().splitlines():
        name, colon, command = line.partition(":")
        if colon and name.strip() and not name.startswith("#"):
            commands[name.strip()] = command.strip()
    return commands


def shipped_env() -> dict[str, str]:
    """deploy/kumo.env.example's settings, as shipped."""
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        name, equals, value = line.partition("=")
        if equals and not line.startswith("#"):
            values[name.strip()] = value.strip()
    return values


def loadavg() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min) {five:.2f} (5 min)"


class Stack:
    """The processes of the recipe (deploy/Procfile's commands with deploy/kumo.env.example's
    settings), on a database and a Redis of their own.

    Only what cannot be shipped as is changes: the addresses (this run's database, Redis,
    port and folder; the web server listens on 127.0.0.1 only), the host name, and mail
    (printed, not sent to the example's server). Requests carry the header the recipe's
    TLS proxy sets. Every process runs in a process group of its own and is killed with its
    group (SIGTERM, then SIGKILL) when the run ends, however it ends.
    """

    def __init__(self) -> None:
        self.db = f"kumo_bench_{os.getpid()}"
        self.redis_port = free_port()
        self.web_port = free_port()
        self.media = Path(f"/tmp/kumo-bench-media-{os.getpid()}")
        self.shipped = shipped_env()
        self.web_workers = int(self.shipped.get("WEB_CONCURRENCY", "2"))
        self.env = {**os.environ, **self.shipped}
        self.env.update(
            DATABASE_URL=f"{PG}/{self.db}",
            REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/0",
            SECRET_KEY="benchmark-only-secret-key-" + "x" * 30,
            ALLOWED_HOSTS="127.0.0.1",
            CSRF_TRUSTED_ORIGINS=f"https://127.0.0.1:{self.web_port}",
            SITE_URL=f"https://127.0.0.1:{self.web_port}",
            MEDIA_ROOT=str(self.media),
            PORT=str(self.web_port),
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            PYTHONPATH=str(ROOT),
            **{RUN_MARK: str(os.getpid())},
        )
        self.env.pop("EMAIL_HOST", None)
        self.processes: dict[str, subprocess.Popen] = {}
        self.commands = procfile()
        # The only change to a command: listen on loopback, not on every interface.
        self.commands["web"] = self.commands["web"].replace("--host 0.0.0.0", "--host 127.0.0.1")

    def describe(self) -> str:
        settings = ", ".join(
            f"{name}={self.shipped[name]}"
            for name in ("WEB_CONCURRENCY", "CELERY_CONCURRENCY", "DATABASE_POOL_MAX")
            if name in self.shipped
        )
        return (
            f"the recipe as shipped: deploy/kumo.env.example ({settings}); "
            f"deploy/Procfile web: {self.commands['web']}"
        )

    def sql(self, statement: str) -> None:
        subprocess.run(["psql", PG + "/postgres", "-qc", statement], check=True, timeout=60)

    def start_redis(self) -> None:
        self.processes["redis"] = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.redis_port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                "/tmp",
            ],
            stdout=subprocess.DEVNULL,
            env=self.env,
            start_new_session=True,
        )
        wait_until(lambda: self.redis().ping(), "redis")

    def redis(self):
        import redis

        return redis.Redis(port=self.redis_port, socket_timeout=2)

    def setup(self) -> None:
        self.sql(f"CREATE DATABASE {self.db}")
        self.media.mkdir(exist_ok=True)
        self.start_redis()
        # The Procfile's release step (migrate, collectstatic).
        self.shell("release", self.commands["release"])

    def shell(self, name: str, command: str, timeout: float = 600) -> None:
        process = self.start(name, command)
        try:
            if process.wait(timeout=timeout) != 0:
                raise SystemExit(f"{name} failed:\n{self.log(name).read_text()[-3000:]}")
        finally:
            self.stop(name)

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        ).stdout

    def start(self, name: str, command: str) -> subprocess.Popen:
        """A Procfile command, run as a shell would run it (its ${VAR:-default}s expanded
        from the environment), in a process group of its own."""
        # A single command replaces the shell (exec), so the process is the server itself;
        # a sequence (the release step's "a && b") runs in the shell.
        single = not any(mark in command for mark in ("&&", "||", ";"))
        with self.log(name).open("a") as log:
            self.processes[name] = subprocess.Popen(
                ["bash", "-c", f"exec {command}" if single else command],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self.processes[name]

    def log(self, name: str) -> Path:
        return Path(f"/tmp/kumo-bench-{os.getpid()}-{name}.log")

    def server_errors(self) -> str:
        """What the web server logged as failures (tracebacks' last lines, counted)."""
        lines = (
            self.log("web").read_text(errors="replace").splitlines()
            if self.log("web").exists()
            else []
        )
        failures = [
            line for line in lines if line and not line.startswith((" ", "INFO", "Traceback"))
        ]
        counted = {line: failures.count(line) for line in set(failures)}
        return "\n".join(
            f"  {count} x {line[:160]}"
            for line, count in sorted(counted.items(), key=lambda item: -item[1])[:8]
        )

    def start_web(self) -> None:
        self.start("web", self.commands["web"])
        wait_until(lambda: _http_ok(f"{self.base}/api/v1/leaderboard/"), "uvicorn")

    def start_worker(self) -> None:
        self.start("worker", self.commands["worker"])

    def start_beat(self) -> None:
        self.start("beat", self.commands["beat"])

    def stop(self, name: str, sig: int = signal.SIGTERM, grace: float = 10.0) -> None:
        """Stop a process and everything in its group: ``sig``, then SIGKILL after
        ``grace`` seconds; always waited for."""
        process = self.processes.pop(name, None)
        if process is None:
            return
        _signal_group(process.pid, sig)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        # The group's other members (uvicorn's and Celery's worker processes) may outlive
        # their parent: the group is killed whatever the parent did.
        _signal_group(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + grace
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def teardown(self) -> None:
        for name in list(self.processes):
            self.stop(name)
        subprocess.run(
            ["psql", PG + "/postgres", "-qc", f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)"],
            timeout=60,
        )
        shutil.rmtree(self.media, ignore_errors=True)
        for name in ("web", "worker", "beat", "release"):
            self.log(name).unlink(missing_ok=True)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _http_ok(url: str) -> bool:
    import urllib.request

    request = urllib.request.Request(url, headers=PROXY_HEADERS)
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status == 200


@contextmanager
def stack():
    """The running stack; stopped however the run ends: normally, by an exception, or by
    SIGTERM, SIGINT or SIGHUP (turned into SystemExit so the finally runs), and at exit."""
    running = Stack()
    stopped = False

    def stop_all() -> None:
        nonlocal stopped
        if not stopped:
            stopped = True
            running.teardown()

    def on_signal(number, frame) -> None:
        raise SystemExit(128 + number)

    previous = {
        sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    }
    atexit.register(stop_all)
    try:
        running.setup()
        yield running
    finally:
        # A second signal during the teardown must not cut it short.
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        try:
            stop_all()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            atexit.unregister(stop_all)


def bare_transaction(running: Stack, count: int = 1000) -> dict:
    """The machine-speed reference: ``count`` bare PostgreSQL transactions on one psycopg
    connection, each locking a row and inserting one (the least a move can write), in the
    stack's own database. Returns ms per transaction (wall) and the client's CPU ms each."""
    import psycopg

    with psycopg.connect(f"{PG}/{running.db}", autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_lock (id int PRIMARY KEY, n int)")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_step "
            "(id bigserial PRIMARY KEY, lock_id int, at timestamptz, body text)"
        )
        conn.execute("INSERT INTO bench_lock VALUES (1, 0) ON CONFLICT DO NOTHING")
        for _warm in range(20):
            with conn.transaction():
                conn.execute("SELECT n FROM bench_lock WHERE id = 1 FOR UPDATE").fetchone()
        cpu, wall = time.process_time(), time.perf_counter()
        for number in range(count):
            with conn.transaction():
                conn.execute("SELECT n FROM bench_lock WHERE id = 1 FOR UPDATE").fetchone()
                conn.execute(
                    "INSERT INTO bench_step (lock_id, at, body) VALUES (1, now(), %s)",
                    (f"step {number}",),
                )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        conn.execute("DROP TABLE bench_lock, bench_step")
    return {"ms": wall / count * 1000, "client_cpu_ms": cpu / count * 1000}


class Reference:
    """The bare transaction measured before and after a run, with the machine's load."""

    def __init__(self, running: Stack) -> None:
        self.running = running
        self.before = bare_transaction(running)
        self.load_before = loadavg()
        print(
            f"reference before: bare PostgreSQL transaction (row lock + insert, one "
            f"connection, 1000 in a row) {self.before['ms']:.3f} ms each; {self.load_before}"
        )

    def finish(self) -> float:
        after = bare_transaction(self.running)
        print(
            f"reference after:  bare PostgreSQL transaction {after['ms']:.3f} ms each; {loadavg()}"
        )
        return (self.before["ms"] + after["ms"]) / 2


def seed_players(running: Stack, players: int, instances: int) -> list[dict]:
    """Tasks, users, tokens and session cookies, made inside the stack's database."""
    script = f"""
import json
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from engine.models import Instance
call_command("import_domain", "engine/domains/medical.json", verbosity=0)
call_command("generate_tasks", "medical", "--truths", "4", "--actions", "6", "--count",
             "{instances}", verbosity=0)
ids = list(Instance.objects.order_by("seed").values_list("id", flat=True))
out = []
for number in range({players}):
    user = User.objects.create_user(f"load-{{number}}")
    client = Client()
    client.force_login(user)
    out.append({{"key": Token.objects.create(user=user).key,
                "cookie": client.cookies["sessionid"].value, "instances": ids}})
print(json.dumps(out))
"""
    # The last line: the commands above print their own reports first.
    return json.loads(running.manage("shell", "-c", script).strip().splitlines()[-1])


class Timed(list):
    """Latencies, each with when it was recorded (to tell the ramp-up from the rest)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    def append(self, value: float) -> None:
        super().append(value)
        self.at.append(time.monotonic())


class Recorder:
    def __init__(self, ramp: float = 0.0) -> None:
        # Moves over each transport, and session starts (over HTTP, for both).
        self.latency: dict[str, Timed] = defaultdict(Timed)
        for transport in ("http", "ws", "start"):
            self.latency[transport] = Timed()
        self.errors: list[str] = []
        self.moves = 0
        self.loop_lag: list[float] = []
        # Players arrive over the first ``ramp`` seconds (hundreds of session starts and
        # connections a second): figures after it are printed apart as the steady state.
        self.steady_from = time.monotonic() + 2 * ramp if ramp else None

    def report(self, seconds: float) -> None:
        print(f"moves: {self.moves} in {seconds:.0f} s = {self.moves / seconds:.1f} moves/s")
        self._quantiles(self.latency)
        if self.steady_from is not None:
            print("  steady state (after twice the arrival period):")
            steady = {
                transport: [
                    v for v, at in zip(values, values.at, strict=True) if at >= self.steady_from
                ]
                for transport, values in self.latency.items()
            }
            self._quantiles(steady)
        if len(self.loop_lag) > 1:
            cuts = statistics.quantiles(self.loop_lag, n=100)
            print(
                f"  load generator's own loop lag: p50 {cuts[49] * 1000:.1f} ms  "
                f"p95 {cuts[94] * 1000:.1f} ms  p99 {cuts[98] * 1000:.1f} ms"
            )
        print(f"errors: {len(self.errors)}")
        for error in sorted(set(self.errors))[:10]:
            print(f"  {self.errors.count(error)} x {error}")

    @staticmethod
    def _quantiles(latency) -> None:
        for transport, values in latency.items():
            if len(values) < 2:
                continue
            cuts = statistics.quantiles(values, n=100)
            print(
                f"  {transport:12}: n={len(values):6}  p50 {cuts[49] * 1000:7.1f} ms  "
                f"p95 {cuts[94] * 1000:7.1f} ms  p99 {cuts[98] * 1000:7.1f} ms"
            )


async def http_player(base, player, index, think, deadline, recorder, client):
    headers = {"Authorization": f"Token {player['key']}"}
    rng = random.Random(index)
    order = player["instances"][index % len(player["instances"]) :] + player["instances"]
    for instance_id in order:
        if time.monotonic() >= deadline:
            return
        try:
            begun = time.monotonic()
            started = await client.post(
                f"{base}/api/v1/sessions/", json={"instance": instance_id}, headers=headers
            )
            recorder.latency["start"].append(time.monotonic() - begun)
            if started.status_code not in (200, 201):
                recorder.errors.append(f"start {started.status_code}")
                continue
            task = started.json()
            for action in rng.sample(task["actions"], k=rng.randint(1, len(task["actions"]))):
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                if time.monotonic() >= deadline:
                    return
                begun = time.monotonic()
                moved = await client.post(
                    f"{base}/api/v1/sessions/{task['id']}/actions/",
                    json={"action": action},
                    headers=headers,
                )
                recorder.latency["http"].append(time.monotonic() - begun)
                recorder.moves += 1
                if moved.status_code != 200:
                    recorder.errors.append(f"http action {moved.status_code}")
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            begun = time.monotonic()
            answered = await client.post(
                f"{base}/api/v1/sessions/{task['id']}/answer/",
                json={"truth": task["truths"][0]},
                headers=headers,
            )
            recorder.latency["http"].append(time.monotonic() - begun)
            recorder.moves += 1
            if answered.status_code != 200:
                recorder.errors.append(f"http answer {answered.status_code}")
        except Exception as error:  # a benchmark records every failure and goes on
            recorder.errors.append(f"http {error.__class__.__name__}")
            await asyncio.sleep(1)


async def ws_player(base, port, player, index, think, deadline, recorder, client):
    import websockets

    headers = {"Authorization": f"Token {player['key']}"}
    rng = random.Random(index)
    order = player["instances"][index % len(player["instances"]) :] + player["instances"]
    for instance_id in order:
        if time.monotonic() >= deadline:
            return
        try:
            begun = time.monotonic()
            started = await client.post(
                f"{base}/api/v1/sessions/", json={"instance": instance_id}, headers=headers
            )
            recorder.latency["start"].append(time.monotonic() - begun)
            task = started.json()
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/ws/play/{task['id']}/",
                additional_headers={
                    "Cookie": f"sessionid={player['cookie']}",
                    "Origin": f"https://127.0.0.1:{port}",
                    **PROXY_HEADERS,
                },
                open_timeout=20,
            ) as ws:
                state = await _next_state(ws, 0)
                moves = rng.sample(task["actions"], k=rng.randint(1, len(task["actions"])))
                for number, action in enumerate(moves, start=1):
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                    if time.monotonic() >= deadline:
                        return
                    begun = time.monotonic()
                    await ws.send(json.dumps({"type": "action", "action": action}))
                    state = await _next_state(ws, number)
                    recorder.latency["ws"].append(time.monotonic() - begun)
                    recorder.moves += 1
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                begun = time.monotonic()
                await ws.send(json.dumps({"type": "answer", "truth": task["truths"][0]}))
                await _next_state(ws, len(moves) + 1)
                recorder.latency["ws"].append(time.monotonic() - begun)
                recorder.moves += 1
                del state
        except Exception as error:
            recorder.errors.append(f"ws {error.__class__.__name__}")
            await asyncio.sleep(1)


async def _next_state(ws, steps: int) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] == "state" and len(message["state"]["steps"]) >= steps:
            return message["state"]


async def run_load(
    running: Stack, players: list[dict], think: float, seconds: float, ws_share: float
) -> Recorder:
    import httpx

    recorder = Recorder(ramp=think)
    deadline = time.monotonic() + seconds

    # One TLS context for every client (plain HTTP here, but httpx builds a context per
    # client otherwise, loading the CA bundle: ~20 ms of this loop's time per player).
    tls = ssl.create_default_context()

    async def play(index: int, player: dict) -> None:
        # One client (one keep-alive connection) per player, as browsers and API scripts
        # are: a single httpx client shared by hundreds of players spends its time scanning
        # its own connection pool and became the bottleneck (0.7 cores, p50 4.7 s, while
        # the server idled).
        # Players arrive spread over the first think period, as people do; 500 arriving
        # in the same instant would measure a thundering herd of session starts instead.
        await asyncio.sleep(random.Random(-index).uniform(0, think))
        async with httpx.AsyncClient(timeout=30, verify=tls, headers=PROXY_HEADERS) as client:
            if index < len(players) * ws_share:
                await ws_player(
                    running.base, running.web_port, player, index, think, deadline, recorder, client
                )
            else:
                await http_player(running.base, player, index, think, deadline, recorder, client)

    async def watch_own_loop() -> None:
        # How late this process's own event loop wakes up: latency it adds to every figure.
        while time.monotonic() < deadline:
            begun = time.monotonic()
            await asyncio.sleep(0.01)
            recorder.loop_lag.append(time.monotonic() - begun - 0.01)

    await asyncio.gather(
        watch_own_loop(), *(play(index, player) for index, player in enumerate(players))
    )
    return recorder


def load(args) -> None:
    with stack() as running:
        players = seed_players(running, args.players, 40)
        running.start_web()
        running.start_worker()
        print(running.describe())
        print(
            f"{args.players} players, think {args.think} s, {args.duration} s, "
            f"{running.web_workers} uvicorn workers, {args.ws_share:.0%} over websockets"
        )
        reference = Reference(running)
        cpu = CpuUse(running)
        started = time.monotonic()
        recorder = asyncio.run(run_load(running, players, args.think, args.duration, args.ws_share))
        seconds = time.monotonic() - started
        print(f"{loadavg()} at the end of the load")
        recorder.report(seconds)
        cpu.report(seconds, recorder.moves, reference.finish())
        print("server log (other than INFO):\n" + (running.server_errors() or "  nothing"))


class CpuUse:
    """Where the machine's CPU time went during a run: the web workers, PostgreSQL, Redis,
    this load generator (it shares the machine), and the rest."""

    def __init__(self, running: Stack) -> None:
        self.running = running
        self.start = self._read()

    def _read(self) -> dict[str, float]:
        tick = os.sysconf("SC_CLK_TCK")
        server = self.running.processes["web"].pid
        web = {server, *_children(server)}  # one worker: the server process itself
        totals = {"web": 0.0, "postgres": 0.0, "redis": 0.0}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            seconds = (int(fields[11]) + int(fields[12])) / tick
            if int(entry.name) in web:
                totals["web"] += seconds
            elif name.startswith("postgres"):
                totals["postgres"] += seconds
            elif name.startswith("redis-server"):
                totals["redis"] += seconds
        times = os.times()
        totals["load generator"] = times.user + times.system
        line = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        busy = sum(int(value) for value in line) - int(line[3]) - int(line[4])
        totals["machine (all)"] = busy / tick
        return totals

    def report(self, seconds: float, moves: int = 0, reference_ms: float | None = None) -> None:
        end = self._read()
        used = {name: end[name] - self.start[name] for name in end}
        print(f"CPU (cores busy on average over {seconds:.0f} s, of {os.cpu_count()}):")
        for name, value in used.items():
            print(f"  {name:15} {value / seconds:5.2f}")
        if not moves:
            print("web workers' CPU per move: no moves were made")
        else:
            per_move = used["web"] / moves * 1000
            line = f"web workers' CPU per move: {per_move:.2f} ms ({moves} moves)"
            if reference_ms:
                line += (
                    f" = {per_move / reference_ms:.1f} x the bare transaction "
                    f"({reference_ms:.3f} ms)"
                )
            print(line)


def saturate(args) -> None:
    with stack() as running:
        levels = [int(level) for level in args.levels.split(",")]
        # Fresh players at each level, each with more games than it can finish: every
        # request is a real move (no replays of finished games answered 409). A player
        # with no think time finishes up to about 15 games a second.
        players = seed_players(running, sum(levels), 150 + 20 * int(args.duration))
        running.start_web()
        print(running.describe())
        print(f"{running.web_workers} uvicorn workers, moves over HTTP")
        for level in levels:
            print(f"-- {level} players, no think time, {args.duration} s")
            reference = Reference(running)
            cpu = CpuUse(running)
            started = time.monotonic()
            recorder = asyncio.run(run_load(running, players[:level], 0.0, args.duration, 0.0))
            seconds = time.monotonic() - started
            print(f"{loadavg()} at the end of the level")
            recorder.report(seconds)
            cpu.report(seconds, recorder.moves, reference.finish())
            players = players[level:]


def seed_game_players(running: Stack, players: int, level: str, per_game: int) -> list[dict]:
    """Users with tokens, and game tasks of every game with the reference's moves (computed
    in the stack's own process, so the players only replay them)."""
    script = f"""
import json
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from engine import families
from engine.core.families.base import get_family
games = get_family("games")
tasks = []
for kind in sorted(games.kinds):
    made = families.do_generate_family_tasks("games", kind, count={per_game}, level="{level}")
    for task in made.tasks:
        tasks.append({{"id": task.pk, "kind": kind,
                      "moves": games.reference_answer(task.to_core()).splitlines()}})
keys = [Token.objects.create(user=User.objects.create_user(f"gamer-{{n}}")).key
        for n in range({players})]
print(json.dumps({{"tasks": tasks, "keys": keys}}))
"""
    return json.loads(running.manage("shell", "-c", script).strip().splitlines()[-1])


async def run_games(running: Stack, seeded: dict, think: float, seconds: float) -> Recorder:
    import httpx

    recorder = Recorder()
    deadline = time.monotonic() + seconds
    tls = ssl.create_default_context()
    tasks = seeded["tasks"]

    async def play(index: int, key: str) -> None:
        rng = random.Random(index)
        await asyncio.sleep(rng.uniform(0, think))
        headers = {"Authorization": f"Token {key}"}
        order = tasks[index % len(tasks) :] + tasks[: index % len(tasks)]
        async with httpx.AsyncClient(timeout=30, verify=tls, headers=PROXY_HEADERS) as client:
            for task in order:
                if time.monotonic() >= deadline:
                    return
                try:
                    started = await client.post(
                        f"{running.base}/api/v1/family-attempts/",
                        json={"task": task["id"]},
                        headers=headers,
                    )
                    if started.status_code not in (200, 201):
                        recorder.errors.append(f"start {started.status_code}")
                        continue
                    url = f"{running.base}/api/v1/family-attempts/{started.json()['id']}/moves/"
                    for move in task["moves"]:
                        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                        if time.monotonic() >= deadline:
                            return
                        begun = time.monotonic()
                        moved = await client.post(url, json={"move": move}, headers=headers)
                        took = time.monotonic() - begun
                        recorder.latency[task["kind"]].append(took)
                        recorder.latency["http"].append(took)
                        recorder.moves += 1
                        if moved.status_code != 200:
                            recorder.errors.append(f"{task['kind']} move {moved.status_code}")
                except Exception as error:  # recorded; the player goes on
                    recorder.errors.append(f"{task['kind']} {error.__class__.__name__}")
                    await asyncio.sleep(1)

    await asyncio.gather(*(play(index, key) for index, key in enumerate(seeded["keys"])))
    return recorder


def games(args) -> None:
    with stack() as running:
        seeded = seed_game_players(running, args.players, args.level, per_game=2)
        running.start_web()
        print(running.describe())
        print(
            f"{args.players} players, games at level {args.level}, think {args.think} s, "
            f"{args.duration} s, {running.web_workers} uvicorn workers, moves over HTTP "
            f"(row 'http' = every move)"
        )
        reference = Reference(running)
        cpu = CpuUse(running)
        started = time.monotonic()
        recorder = asyncio.run(run_games(running, seeded, args.think, args.duration))
        seconds = time.monotonic() - started
        print(f"{loadavg()} at the end of the load")
        recorder.report(seconds)
        cpu.report(seconds, recorder.moves, reference.finish())
        print("server log (other than INFO):\n" + (running.server_errors() or "  nothing"))


def faults(args) -> None:
    with stack() as running:
        # Fresh players for each load scenario: a finished session is not played again.
        players = seed_players(running, 200, 40)
        running.start_web()
        running.start_worker()
        running.start_beat()
        print(running.describe())
        reference = Reference(running)
        print("== 1. the Celery worker killed (SIGKILL) while scoring 60,000 trajectories")
        submission = running.manage("shell", "-c", _SUBMIT)
        sid = int(submission.strip().splitlines()[-1])
        wait_until(lambda: _status(running, sid) == "processing", "scoring to start", 120)
        killed = time.monotonic()
        running.stop("worker", signal.SIGKILL)
        running.start_worker()
        try:
            wait_until(lambda: _status(running, sid) == "done", "the submission", args.fault_wait)
            outcome = "done"
        except SystemExit:
            outcome = f"NOT done (status {_status(running, sid)!r})"
        count = _psql(
            running, f"SELECT count(*) FROM leaderboard_trajectory WHERE submission_id = {sid}"
        )
        print(
            f"   {outcome} {time.monotonic() - killed:.1f} s after the kill (waited at most "
            f"{args.fault_wait:.0f} s); trajectories stored: {count} of 60000; {loadavg()}"
        )

        print("== 2. a uvicorn worker killed (SIGKILL) under 100 players (think 1 s)")
        recorder = _load_with(
            running, players[:100], 1.0, 20, lambda: _kill_one_web_worker(running)
        )
        print(f"   {loadavg()}")
        recorder.report(20)

        print("== 3. Redis stopped for 3 s and started again under 100 players (think 1 s)")
        recorder = _load_with(running, players[100:], 1.0, 20, lambda: _restart_redis(running))
        print(f"   {loadavg()}")
        recorder.report(20)
        moves = _psql(running, "SELECT count(*) FROM engine_playstep")
        print(f"moves stored in the database after all runs: {moves}")
        reference.finish()


_SUBMIT = """
import json
from django.contrib.auth.models import User
from engine.models import Instance
from leaderboard import actions
user = User.objects.create_user("bench-submitter")
lines = []
for instance in Instance.objects.order_by("seed")[:3]:
    for run in range(20000):
        lines.append(json.dumps({"seed": instance.seed, "run": run, "actions": [],
                                 "answer": instance.valid_truths[0]}))
accepted = actions.submit_results(user, model="bench-model", domain="medical", n_truths=4,
    n_actions=6, fmt="native", content=("\\n".join(lines) + "\\n").encode())
print(accepted.submission.pk)
"""


def _status(running: Stack, sid: int) -> str:
    return _psql(running, f"SELECT status FROM leaderboard_submission WHERE id = {sid}")


def _psql(running: Stack, query: str) -> str:
    """One value from the stack's database (psql starts in milliseconds, Django does not)."""
    out = subprocess.run(
        ["psql", f"{PG}/{running.db}", "-Atc", query], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def _load_with(running, players, think, seconds, fault) -> Recorder:
    async def scenario():
        load_task = asyncio.create_task(run_load(running, players, think, seconds, 0.5))
        await asyncio.sleep(seconds / 3)
        await asyncio.get_running_loop().run_in_executor(None, fault)
        return await load_task

    return asyncio.run(scenario())


def _kill_one_web_worker(running: Stack) -> None:
    web = running.processes["web"]
    victim = _children(web.pid)[0]
    os.kill(victim, signal.SIGKILL)
    started = time.monotonic()
    wait_until(
        lambda: victim not in _children(web.pid) and len(_children(web.pid)) >= 2,
        "a replacement worker",
    )
    print(f"   worker {victim} killed; replaced in {time.monotonic() - started:.1f} s")


def _children(pid: int) -> list[int]:
    """The server's worker processes (not multiprocessing's resource tracker beside them)."""
    out = subprocess.run(
        ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True
    )
    return [int(line.split()[0]) for line in out.stdout.splitlines() if "spawn_main" in line]


def _restart_redis(running: Stack) -> None:
    running.stop("redis")
    time.sleep(3)
    started = time.monotonic()
    running.start_redis()
    print(f"   Redis down 3 s; answering again {time.monotonic() - started:.1f} s after restart")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["load", "saturate", "faults", "games"])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds between moves")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (≤ 600)")
    parser.add_argument("--ws-share", type=float, default=0.5, help="share of websocket players")
    parser.add_argument(
        "--fault-wait",
        type=float,
        default=180.0,
        help="faults: seconds to wait for the killed worker's submission to finish",
    )
    parser.add_argument("--levels", default="10,25,50,100")
    parser.add_argument("--level", default="medium", help="games: the games' level")
    args = parser.parse_args()
    args.duration = min(args.duration, 600.0)
    {"load": load, "saturate": saturate, "faults": faults, "games": games}[args.mode](args)


if __name__ == "__main__":
    main()
