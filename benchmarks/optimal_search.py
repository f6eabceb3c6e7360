"""Time the optimal search on generated Easy and Hard instances of one domain.

Usage::

    .venv/bin/python benchmarks/optimal_search.py [--domain PATH_OR_NAME] [--easy N] [--hard N]
        [--batch N] [--seed S] [--timeout SECONDS]

``--domain`` is a shipped domain name (``engine/domains/<name>.json``, default ``medical``),
a path to a domain JSON file, or a path to an original KUMO ``*_data.py`` module.

For each setting (Easy = 4 truths / 6 actions, Hard = 12 truths / 16 actions) the script
generates instances with ``engine.core.families.kumo.generate``, times
:func:`engine.core.families.kumo.search.solve` on
each one and prints the median and the maximum. Instances whose start is already a base case
(nothing to search) are counted and also left out of a second median, so that the easy cases
do not flatter the figure. Finally it reports the wall time to generate ``--batch`` Hard
instances and to solve all of them. Every figure is given as wall-clock time
(``time.perf_counter``) and as the process's CPU time (``time.process_time``): on a busy
machine the wall clock also counts the time other processes held the CPU, so compare CPU
figures between runs.

The exact search is exponential in the worst case and domains whose actions rule out little
can take minutes per Hard instance; ``--timeout`` (POSIX only) abandons a ``solve()`` after that
many seconds and counts it as taking forever (``inf``) in the per-setting figures (and as a
timeout in the batch, whose total then includes the time spent before giving up).

No Django: the search core is plain Python.
"""

from __future__ import annotations

import argparse
import math
import re
import signal
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    # Run as a script, the benchmarks directory is on the path but the repository is not.
    sys.path.insert(0, str(REPO_ROOT))

from engine.core.families.kumo.domain_io import domain_from_json, domain_from_kumo_module  # noqa: E402
from engine.core.families.kumo.generate import GenerationError, generate_instances  # noqa: E402
from engine.core.families.kumo.search import OptimalResult, solve  # noqa: E402
from engine.core.families.kumo.types import Domain, Instance  # noqa: E402

SETTINGS = {"Easy": (4, 6), "Hard": (12, 16)}


def load_domain(spec: str) -> Domain:
    """A domain from a file path (JSON or KUMO module) or a shipped domain's name."""
    path = Path(spec)
    if not path.is_file():
        path = REPO_ROOT / "engine" / "domains" / f"{spec}.json"
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        # Domain names are [a-z0-9-]: "medical_data.py" becomes "medical".
        name = re.sub(r"[^a-z0-9-]+", "-", path.stem.lower().removesuffix("_data")).strip("-")
        domain, _warnings = domain_from_kumo_module(text, name or "kumo", strict=False)
        return domain
    return domain_from_json(text)


class _TimedOut(Exception):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _TimedOut


class Timings(NamedTuple):
    """Per-instance seconds of :func:`solve` (``inf`` if it timed out), wall-clock and CPU."""

    wall: list[float]
    cpu: list[float]


def timed_solves(
    domain: Domain, instances: Sequence[Instance], timeout: float
) -> tuple[Timings, list[OptimalResult | None]]:
    """Timings of :func:`solve` per instance, and its results (``None`` if it timed out)."""
    timings = Timings([], [])
    results: list[OptimalResult | None] = []
    if timeout > 0:
        signal.signal(signal.SIGALRM, _on_alarm)
    for instance in instances:
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            if timeout > 0:
                signal.setitimer(signal.ITIMER_REAL, timeout)
            results.append(solve(domain, instance))
            timings.wall.append(time.perf_counter() - start)
            timings.cpu.append(time.process_time() - start_cpu)
        except _TimedOut:
            results.append(None)
            timings.wall.append(math.inf)
            timings.cpu.append(math.inf)
        finally:
            if timeout > 0:
                signal.setitimer(signal.ITIMER_REAL, 0)
    return timings, results


def describe(label: str, timings: Timings, results: list[OptimalResult | None]) -> str:
    n_truths, n_actions = SETTINGS[label]
    done = [r for r in results if r is not None]
    # A timed-out instance certainly did not start at a base case.
    searched = [i for i, r in enumerate(results) if r is None or r.expected_actions > 0]
    lines = [
        f"{label} ({n_truths} truths / {n_actions} actions), {len(results)} instances:",
        f"  solve() median {_ms(statistics.median(timings.wall))}, max {_ms(max(timings.wall))}",
        f"  CPU     median {_ms(statistics.median(timings.cpu))}, max {_ms(max(timings.cpu))}",
    ]
    if len(done) < len(results):
        lines.append(f"  {len(results) - len(done)} timed out")
    if searched:
        wall = statistics.median([timings.wall[i] for i in searched])
        cpu = statistics.median([timings.cpu[i] for i in searched])
        lines.append(
            f"  {len(results) - len(searched)} start at a base case; the other "
            f"{len(searched)}: median {_ms(wall)} (CPU {_ms(cpu)})"
        )
    if done:
        mean_expected = statistics.fmean(r.expected_actions for r in done)
        mean_oracle = statistics.fmean(r.oracle_actions for r in done)
        lines.append(
            f"  mean expected actions {mean_expected:.3f}, mean oracle actions {mean_oracle:.2f}"
            + (" (of those solved)" if len(done) < len(results) else "")
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", default="medical", help="name or path (default: medical)")
    parser.add_argument("--easy", type=int, default=50, help="Easy instances to time (50)")
    parser.add_argument("--hard", type=int, default=50, help="Hard instances to time (50)")
    parser.add_argument("--batch", type=int, default=50, help="Hard instances in the batch (50)")
    parser.add_argument("--seed", type=int, default=0, help="first generation seed (0)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=0,
        help="give up a solve() after this many seconds (0: never)",
    )
    args = parser.parse_args(argv)

    domain = load_domain(args.domain)
    print(f"domain {domain.name!r}: {len(domain.truths)} truths, {len(domain.actions)} actions")
    try:
        # 1. Per-instance timings for each setting.
        for label, count in (("Easy", args.easy), ("Hard", args.hard)):
            if count <= 0:
                continue
            n_truths, n_actions = SETTINGS[label]
            instances = generate_instances(domain, n_truths, n_actions, count, args.seed)
            print(describe(label, *timed_solves(domain, instances, args.timeout)))

        # 2. A batch of Hard instances, end to end.
        if args.batch > 0:
            n_truths, n_actions = SETTINGS["Hard"]
            wall, cpu = time.perf_counter(), time.process_time()
            batch = generate_instances(domain, n_truths, n_actions, args.batch, args.seed)
            generate_wall, generate_cpu = time.perf_counter() - wall, time.process_time() - cpu
            wall, cpu = time.perf_counter(), time.process_time()
            _, results = timed_solves(domain, batch, args.timeout)
            solve_wall, solve_cpu = time.perf_counter() - wall, time.process_time() - cpu
            timed_out = sum(result is None for result in results)
            print(f"{args.batch} Hard instances:")
            print(f"  generate {generate_wall:.3f} s (CPU {generate_cpu:.3f} s)")
            print(
                f"  solve    {solve_wall:.3f} s (CPU {solve_cpu:.3f} s)"
                + (f", {timed_out} timed out" if timed_out else "")
            )
    except GenerationError as exc:
        print(f"generation failed: {exc}", file=sys.stderr)
        return 1
    return 0


def _ms(seconds: float) -> str:
    return "timed out" if math.isinf(seconds) else f"{seconds * 1000:.2f} ms"


if __name__ == "__main__":
    sys.exit(main())
