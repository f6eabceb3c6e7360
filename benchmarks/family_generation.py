"""Generation time of every task family's kinds, per difficulty level.

    .venv/bin/python benchmarks/family_generation.py [--seeds 200]

For each family, kind and level: mean and max milliseconds to generate one instance over
``--seeds`` seeds (travel planning's exact optimum included), and the time to score its
reference answer. Targets: simple reasoning under 10 ms per instance at the hardest level;
constraint puzzles (``--family puzzles``) a 9×9 Sudoku with its uniqueness proof under 50 ms
median, a 15×15 crossword under 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core.families.base import FAMILIES, get_family  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--family", help="only this family")
    args = parser.parse_args()
    get_family("simple")  # registers the built-in families
    print(
        f"{'family':<8} {'kind':<11} {'level':<9} {'mean ms':>8} {'median':>8} {'max ms':>8} "
        f"{'score ms':>9}"
    )
    for family in FAMILIES.values():
        if args.family and family.name != args.family:
            continue
        for kind, spec in family.kinds.items():
            for level in spec.levels:
                times, scoring = [], []
                for seed in range(args.seeds):
                    start = time.perf_counter()
                    instance = family.generate(kind, seed, level=level)
                    times.append((time.perf_counter() - start) * 1000)
                    start = time.perf_counter()
                    assert family.score(instance, family.reference_answer(instance)).correct
                    scoring.append((time.perf_counter() - start) * 1000)
                print(
                    f"{family.name:<8} {kind:<11} {level:<9} {sum(times) / len(times):8.3f} "
                    f"{statistics.median(times):8.3f} {max(times):8.3f} "
                    f"{sum(scoring) / len(scoring):9.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
