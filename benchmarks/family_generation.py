"""Generation time of every task family's kinds, per difficulty level.

    .venv/bin/python benchmarks/family_generation.py [--seeds 200]

For each family, kind and level: mean and max milliseconds to generate one instance over
``--seeds`` seeds (travel planning's exact optimum included), and the time to score its
reference answer. The target is under 10 ms per instance at the hardest level.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core.families.base import FAMILIES, get_family  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    args = parser.parse_args()
    get_family("simple")  # registers the built-in families
    print(f"{'family':<8} {'kind':<10} {'level':<7} {'mean ms':>8} {'max ms':>8} {'score ms':>9}")
    for family in FAMILIES.values():
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
                    f"{family.name:<8} {kind:<10} {level:<7} {sum(times) / len(times):8.3f} "
                    f"{max(times):8.3f} {sum(scoring) / len(scoring):9.3f}"
                )


if __name__ == "__main__":
    main()
