"""Start-up time of a management command: ``manage.py check``, best and median of N runs.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--checkout PATH]

``--checkout`` times another checkout of the project (e.g. an older commit made with
``git worktree add /tmp/old <commit>``) with this virtual environment, for a before/after
on the same machine. Prints each run and the best/median wall time, and the slowest
imports of one run (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    options = parser.parse_args()
    manage = options.checkout / "manage.py"
    times = []
    for _ in range(options.runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, str(manage), "check"], check=True, capture_output=True, cwd="/"
        )
        times.append(time.perf_counter() - start)
    print(f"manage.py check ({options.checkout}), {options.runs} runs:")
    print("  " + "  ".join(f"{t:.2f}" for t in times) + " s")
    print(f"  best {min(times):.2f} s, median {statistics.median(times):.2f} s")
    profile = subprocess.run(
        [sys.executable, "-X", "importtime", str(manage), "check"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    rows = []
    for line in profile.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if cumulative.strip().isdigit():
                rows.append((int(cumulative), name.rstrip()))
    print("slowest top-level imports (cumulative):")
    for micros, name in sorted((r for r in rows if not r[1].startswith("  ")), reverse=True)[:8]:
        print(f"  {micros / 1e6:5.2f} s {name.strip()}")


if __name__ == "__main__":
    main()
