"""Compare the board with figures computed straight from a KUMO release's results files.

Run after ``python manage.py import_kumo_release PATH [--repair]`` on the same database:

    .venv/bin/python benchmarks/kumo_release_compare.py /tmp/kumo-release --truths 4 --actions 6

Per model (vanilla agent), over every domain of the setting: the success rate computed from
the files' own ``successful`` fields (every published record, and with repeated seeds
counted once, as ``--repair`` keeps them), next to the board's aggregate row, with the
number of domains and trajectories behind each; then the relative action count against our
oracle path and against the published one (``results/search_results``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmark.settings")


def from_files(root: Path, n_truths: int, n_actions: int) -> dict[str, dict]:
    from engine.core.families.kumo.kumo_release import find_release_files, json_lines, model_name

    figures: dict[str, dict] = defaultdict(
        lambda: {"all": [0, 0], "once": [0, 0], "domains": set(), "unreadable": 0}
    )
    files, _ = find_release_files(root)
    for item in files:
        if item.kind != "results" or item.agent != "VanillaAgent":
            continue
        if (item.n_truths, item.n_actions) != (n_truths, n_actions):
            continue
        name = model_name(item.model, item.agent)
        entry = figures[name]
        entry["domains"].add(item.domain)
        seen: set[int] = set()
        for line in json_lines(item.path.read_text(encoding="utf-8")):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                runs = [bool(run["successful"]) for run in data["trajectories"]]
                seed = int(data["seed"])
            except (ValueError, KeyError, TypeError):
                entry["unreadable"] += 1
                continue
            entry["all"][0] += sum(runs)
            entry["all"][1] += len(runs)
            if seed not in seen:
                seen.add(seed)
                entry["once"][0] += sum(runs)
                entry["once"][1] += len(runs)
    return figures


def from_board(n_truths: int, n_actions: int) -> dict[str, dict]:
    import django

    django.setup()
    from django.db.models import Count

    from leaderboard.models import BoardRow, Trajectory

    board: dict[str, dict] = {}
    for row in BoardRow.objects.filter(
        domain__isnull=True, round__isnull=True, n_truths=n_truths, n_actions=n_actions
    ).select_related("model"):
        board[row.model.name] = {
            "success": row.success_rate,
            "trajectories": row.trajectories,
            "relative": row.relative_action_count,
        }
    domains = (
        Trajectory.objects.filter(active=True, n_truths=n_truths, n_actions=n_actions)
        .values("model__name")
        .annotate(domains=Count("domain", distinct=True))
    )
    for row in domains:
        board.setdefault(row["model__name"], {})["domains"] = row["domains"]
    # Relative action count against the published oracle path, where an instance has one.
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    rows = Trajectory.objects.filter(
        active=True, n_truths=n_truths, n_actions=n_actions
    ).values_list("model__name", "information_actions", "instance__kumo")
    for name, information, kumo in rows.iterator(chunk_size=20000):
        published = (kumo or {}).get("published_oracle_actions")
        if published is None:
            continue
        sums[name][0] += (information + 1 - (published + 1)) / (published + 1)
        sums[name][1] += 1
    for name, (total, count) in sums.items():
        board.setdefault(name, {})["relative_published"] = total / count if count else None
    return board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--truths", type=int, default=4)
    parser.add_argument("--actions", type=int, default=6)
    args = parser.parse_args()
    files = from_files(args.release, args.truths, args.actions)
    board = from_board(args.truths, args.actions)

    def rate(pair: list[int]) -> float:
        return pair[0] / pair[1] if pair[1] else float("nan")

    print(
        f"{'model':<30} {'files: all':>10} {'once':>8} {'dom':>4} {'traj':>6} "
        f"{'board':>8} {'dom':>4} {'traj':>6} {'diff':>8} {'rac ours':>9} {'rac publ':>9}"
    )
    for name in sorted(files, key=lambda n: -rate(files[n]["once"])):
        entry, row = files[name], board.get(name, {})
        success = row.get("success")
        diff = success - rate(entry["once"]) if success is not None else float("nan")
        print(
            f"{name:<30} {rate(entry['all']):>10.4f} {rate(entry['once']):>8.4f} "
            f"{len(entry['domains']):>4} {entry['once'][1]:>6} "
            f"{success if success is not None else float('nan'):>8.4f} "
            f"{row.get('domains', 0):>4} {row.get('trajectories', 0):>6} {diff:>+8.4f} "
            f"{row.get('relative', float('nan')):>9.4f} "
            f"{row.get('relative_published') or float('nan'):>9.4f}"
        )


if __name__ == "__main__":
    main()
