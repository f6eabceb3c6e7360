"""Generation time and sizes reached of the constraint puzzles, per type and level.

    .venv/bin/python benchmarks/puzzle_generation.py [--seeds 20] [--kind crossword]
        [--level 15x15]

For each puzzle type and level: the median and 95th-percentile generation time over
``--seeds`` seeds (wall clock and this process's CPU time: on a shared machine the wall
clock also counts other processes' turns), and the sizes reached: a crossword's entries and
white share, an acrostic's quotation letters and clues, a Sudoku's givens, a cryptogram's
and a drop quote's letters. Each instance's reference answer is checked to score 1. The
machine's load average is printed before and after, since it moves the wall-clock figures.
Target: a 15×15 crossword at LR²Bench's entry count (70–78) in under 2 s median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core.families.base import get_family  # noqa: E402


def sizes(kind: str, instance) -> dict[str, float]:
    """What the instance's size is, in LR²Bench's terms."""
    hidden, public = instance.hidden, instance.public
    if kind == "crossword":
        grid = hidden["grid"]
        white = sum(ch != "#" for row in grid for ch in row) / len(grid) ** 2
        return {"entries": len(hidden["solution"]), "white": white}
    if kind == "acrostic":
        letters = sum(ch.isalpha() for ch in hidden["quote"])
        return {"letters": letters, "clues": len(public["clues"])}
    if kind == "sudoku":
        return {"givens": sum(value != 0 for row in public["grid"] for value in row)}
    if kind == "cryptogram":
        return {"letters": sum(ch.isalpha() for ch in public["ciphertext"])}
    if kind == "dropquote":
        return {"letters": sum(ch.isalpha() for ch in hidden["quote"])}
    return {}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--kind", help="only this type")
    parser.add_argument("--level", help="only this level")
    args = parser.parse_args()
    family = get_family("puzzles")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{'type':<11} {'level':<18} {'wall p50':>8} {'p95':>7} {'cpu p50':>8} {'p95':>7}  "
        "sizes (min / median / max)"
    )
    for kind, spec in family.kinds.items():
        if args.kind and kind != args.kind:
            continue
        for level in spec.levels:
            if args.level and level != args.level:
                continue
            wall, cpu, reached = [], [], {}
            for seed in range(args.seeds):
                start, start_cpu = time.perf_counter(), time.process_time()
                instance = family.generate(kind, seed, level=level)
                wall.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                assert family.score(instance, family.reference_answer(instance)).value == 1
                for name, value in sizes(kind, instance).items():
                    reached.setdefault(name, []).append(value)
            shown = "  ".join(
                f"{name} {min(v):.3g} / {statistics.median(v):.3g} / {max(v):.3g}"
                for name, v in reached.items()
            )
            print(
                f"{kind:<11} {level:<18} {statistics.median(wall):7.3f}s "
                f"{percentile(wall, 0.95):6.3f}s {statistics.median(cpu):7.3f}s "
                f"{percentile(cpu, 0.95):6.3f}s  {shown}",
                flush=True,
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
