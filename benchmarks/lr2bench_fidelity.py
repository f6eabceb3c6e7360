"""Our LR²Bench figures beside those of LR²Bench's own evaluation code, on the same replies.

Usage::

    .venv/bin/python benchmarks/lr2bench_fidelity.py PATH [--data DIR] [--json OUT]
        [--write-synthetic DIR] [--direct]

``PATH`` is a checkout of github.com/ZNLP/LR2Bench (its code is run from there, as a
subprocess: nothing of it is copied here); the items are its ``data/`` folder, or ``--data``
(a folder in LR²Bench's format: ``answer.json`` and ``<n>-<type>/<level>/data.jsonl``).

For every type and level and five replies per item:

* ``published``: the published answer, in the tag the type's prompt asks for;
* ``one_wrong``: one subtask wrong (a Sudoku's first empty cell, a drop quote's first letter
  cell, a logic grid's first person × attribute cell, a mapping's first key);
* ``half_wrong``: half the subtasks wrong (rounded down), the same way;
* ``truncated``: the answer's first half only (rows, people or keys), tags closed;
* ``unparseable``: the answer written as free text lines inside the tag;

the script writes LR²Bench's reply files, runs its ``1-extract_answer.py`` per level and its
``2-merge_answer.py`` over them all, and scores the same replies on our side **through the
upload path**: in a scratch database (SQLite in a temporary folder; ``DATABASE_URL`` and the
broker are ignored) it imports the items, posts each variant's replies per level as
LR²Bench's ``response.jsonl`` to ``/api/v1/family-submissions/`` under a model of the
variant's own, lets the job score them, runs the board job and reads the figures from the
self-reported family board rows, as a user sees them. ``--direct`` scores them by calling
the family instead (``parse_reply`` then ``score``, pooled per level). It prints CR,
S-Acc, EM and PM-0.5 of both and whether they agree to the third decimal; ``--json`` also
writes every figure with the replies (the test fixture ``tests/families/lr2bench_reference.json``
is this output on the synthetic items of ``tests/families/lr2bench_data``, which
``--write-synthetic`` writes from our generated puzzles plus hand-made edge cases).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.core.families.base import FamilyInstance, get_family  # noqa: E402
from engine.core.families.lr2bench import scoring  # noqa: E402
from engine.core.families.lr2bench.release import data_folder, read_release  # noqa: E402

VARIANTS = ("published", "one_wrong", "half_wrong", "truncated", "unparseable")
FOLDERS = {t: f"{i}-{t}" for i, t in enumerate(scoring.TYPES)}
FIGURES = ("CR", "S-Acc", "EM", "PM-0.5")


def _other(value: object) -> object:
    """A value that differs from ``value`` after LR²Bench's normalisation."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 1 if value < 9 else 1
    text = str(value)
    if text and text[-1].isalpha():
        last = "A" if text[-1].upper() != "A" else "B"
        return text[:-1] + last
    return text + "Q"


def wrong(task_type: str, gold, k: int):
    """The gold answer with its first ``k`` subtasks made wrong."""
    if task_type in ("crossword", "acrostic", "cryptogram"):
        return {key: _other(v) if i < k else v for i, (key, v) in enumerate(gold.items())}
    if task_type == "logic":
        people, left = [], k
        for person in gold:
            row = dict(person)
            for key in list(row)[1:]:
                if left > 0:
                    row[key] = _other(row[key])
                    left -= 1
            people.append(row)
        return people
    if task_type == "sudoku":
        grid, answer, left = gold["grid"], [row[:] for row in gold["answer"]], k
        for i, row in enumerate(answer):
            for j in range(len(row)):
                if grid[i][j] == 0 and left > 0:
                    row[j] = _other(row[j])
                    left -= 1
        return answer
    rows, left = [row[:] for row in gold], k  # drop
    for row in rows:
        for j, cell in enumerate(row):
            if cell != "#" and left > 0:
                row[j] = _other(cell) if cell.isalpha() else "Q"
                left -= 1
    return rows


def _half(items: list) -> list:
    return items[: max(1, len(items) // 2)]


def truncated(task_type: str, gold):
    if isinstance(gold, dict) and task_type != "sudoku":
        return dict(_half(list(gold.items())))
    if task_type == "sudoku":
        return _half(gold["answer"])
    return _half(list(gold))


def free_text(task_type: str, gold) -> str:
    """The answer written out as lines of text, not as the literal the prompt asks for."""
    if isinstance(gold, dict) and task_type != "sudoku":
        return "\n".join(f"{key}: {value}" for key, value in gold.items())
    if task_type == "sudoku":
        return "\n".join(" ".join(map(str, row)) for row in gold["answer"])
    if task_type == "drop":
        return " ".join("".join(row) for row in gold).replace("#", " ")
    return "\n".join(", ".join(map(str, person.values())) for person in gold)


def replies(task_type: str, gold) -> dict[str, str]:
    tag = scoring.tag_name(task_type)
    subtasks = scoring.count(task_type, gold, None)[1]
    published = gold["answer"] if task_type == "sudoku" else gold
    bodies = {
        "published": json.dumps(published),
        "one_wrong": json.dumps(wrong(task_type, gold, 1)),
        "half_wrong": json.dumps(wrong(task_type, gold, subtasks // 2)),
        "truncated": json.dumps(truncated(task_type, gold)),
        "unparseable": free_text(task_type, gold),
    }
    return {
        variant: f"Here is my reasoning.\n<{tag}>\n{body}\n</{tag}>"
        for variant, body in bodies.items()
    }


def lr2bench_figures(code: Path, data: Path, plays: dict) -> dict:
    """LR²Bench's own figures: its extraction and evaluation scripts, run from ``code`` on
    reply files laid out as its ``launch.sh``/``merge.sh`` expect."""
    with tempfile.TemporaryDirectory(prefix="lr2fidelity") as tmp:
        root = Path(tmp)
        (root / "run").mkdir()
        os.symlink(data.resolve(), root / "run" / "data")
        for (task_type, level), by_variant in plays.items():
            outputs = root / FOLDERS[task_type] / level / "outputs" / "fidelity"
            for variant, rows in by_variant.items():
                (outputs / variant).mkdir(parents=True)
                with open(outputs / variant / "response.jsonl", "w", encoding="utf-8") as out:
                    for tag, reply in rows:
                        out.write(json.dumps({"tag": tag, "response": reply}) + "\n")
            subprocess.run(
                [sys.executable, str(code / "1-extract_answer.py"), "--outputs_root",
                 str(outputs), "--task", task_type],
                check=True, capture_output=True,
            )  # fmt: skip
        subprocess.run(
            [sys.executable, str(code / "2-merge_answer.py"), "--model_name", "fidelity",
             "--path_template", str(root / "{task}" / "{level}" / "outputs" / "fidelity"),
             "--output_dir", str(root / "submission")],
            check=True, capture_output=True, cwd=root / "run",
        )  # fmt: skip
        return {
            variant: json.loads(
                (root / "submission" / variant / "performance.json").read_text(encoding="utf-8")
            )
            for variant in VARIANTS
        }


def our_figures(family, items: list, replies_of: dict) -> dict:
    """Our figures: each reply through ``parse_reply`` and ``score``, pooled per level from
    the details the board reads."""
    pooled = {}
    for variant in VARIANTS:
        scores = []
        for item in items:
            instance = FamilyInstance("lr2bench", item.task_type, {}, 0, item.public, item.hidden)
            parsed = family.parse_reply(instance, replies_of[item.tag][variant])
            details = family.score(instance, parsed.answer).details
            scores.append(
                scoring.ItemScore(bool(details["cr"]), details["right"], details["subtasks"])
            )
        pooled[variant] = scoring.pool(scores).figures()
    return pooled


def setup_django(database: Path) -> None:
    """Point Django at a fresh SQLite file and migrate it (before any model is imported).

    The scratch store is the point: a ``DATABASE_URL`` in the environment would win over
    ``SQLITE_PATH`` and the uploads would land in that database, and a broker would send the
    scoring jobs to some other worker; both are dropped, so every job runs in-process."""
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        os.environ.pop(name, None)
    os.environ["SQLITE_PATH"] = str(database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmark.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def response_file(rows: list[tuple[str, str]]) -> bytes:
    """Replies as LR²Bench's ``0-generate.py`` writes them: one ``response.jsonl`` line per
    item, its ``tag`` and the model's ``response``."""
    return "".join(
        json.dumps({"tag": tag, "response": reply}, ensure_ascii=False) + "\n"
        for tag, reply in rows
    ).encode("utf-8")


def upload_figures(data: Path, plays: dict) -> dict:
    """Our figures as a user sees them, through the upload path, in a scratch database.

    1. Import the items (``do_import_lr2bench``, what ``import_lr2bench`` calls).
    2. For each reply variant, a model of its own (``lr2-fidelity-<variant>``); for each
       (type, level), its replies as LR²Bench's ``response.jsonl``, posted to
       ``/api/v1/family-submissions/`` (format ``lr2bench``, the level's kind and level)
       with an API token, as a user uploads them; a file left to the job is scored by it.
    3. Run the board job (``recompute_task``, the nightly full recompute).
    4. Read CR, S-Acc, EM and PM-0.5 from each model's self-reported ``FamilyBoardRow`` of
       (lr2bench, type, level), across rounds: the row the family board shows.

    Returns ``{variant: {(type, level): figures}}``.
    """
    from io import StringIO

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from engine.families import do_import_lr2bench
    from leaderboard.actions import process_submission
    from leaderboard.models import FamilyBoardRow, Submission
    from leaderboard.tasks import recompute_task

    report = do_import_lr2bench(str(data))
    if report.problems:
        print("import problems:", *report.problems[:10], sep="\n  ", file=sys.stderr)
    token = StringIO()
    call_command("create_api_token", "lr2-fidelity", stdout=token, stderr=StringIO())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.getvalue().strip()}")
    for (task_type, level), by_variant in plays.items():
        for variant, rows in by_variant.items():
            response = client.post(
                "/api/v1/family-submissions/",
                {
                    "model": f"lr2-fidelity-{variant}",
                    "family": "lr2bench",
                    "format": "lr2bench",
                    "kind": task_type,
                    "level": level,
                    "file": SimpleUploadedFile("response.jsonl", response_file(rows)),
                },
                format="multipart",
            )
            if response.status_code not in (200, 201):
                raise SystemExit(
                    f"{task_type} {level} {variant}: the upload was refused "
                    f"({response.status_code}): {response.content.decode()[:2000]}"
                )
            submission = response.json()
            if submission["status"] in (Submission.Status.PENDING, Submission.Status.PROCESSING):
                process_submission(submission["id"])
            state = Submission.objects.get(pk=submission["id"])
            if state.status != Submission.Status.DONE:
                raise SystemExit(
                    f"{task_type} {level} {variant}: the file was not scored "
                    f"({state.status}): {state.errors}"
                )
    recompute_task(full=True)
    figures: dict = {variant: {} for variant in VARIANTS}
    rows = FamilyBoardRow.objects.filter(
        family="lr2bench",
        round__isnull=True,
        player_kind=FamilyBoardRow.PlayerKind.SELF_REPORTED,
        player__startswith="lr2-fidelity-",
    )
    for row in rows:
        figures[row.player.removeprefix("lr2-fidelity-")][(row.kind, row.level)] = {
            "CR": row.cr,
            "S-Acc": row.s_acc,
            "EM": row.em,
            "PM-0.5": row.pm05,
        }
    return figures


def compare(code: Path, data: Path, *, through_upload: bool = True) -> list[dict]:
    release = read_release(data)
    if release.problems:
        print("problems:", *release.problems[:10], sep="\n  ", file=sys.stderr)
    family = get_family("lr2bench")
    by_level: dict[tuple[str, str], list] = {}
    for item in release.items:
        by_level.setdefault((item.task_type, item.level), []).append(item)
    plays, replies_of = {}, {}
    for key, items in by_level.items():
        for item in items:
            replies_of[(key, item.tag)] = replies(item.task_type, item.hidden["gold"])
        plays[key] = {
            variant: [(item.tag, replies_of[(key, item.tag)][variant]) for item in items]
            for variant in VARIANTS
        }
    theirs = lr2bench_figures(code, data, plays)
    uploaded = upload_figures(data, plays) if through_upload else None
    results = []
    for (task_type, level), items in by_level.items():
        if uploaded is None:
            ours = our_figures(
                family, items, {i.tag: replies_of[((task_type, level), i.tag)] for i in items}
            )
        else:
            # A group with no board row (nothing counted) reads as missing, never as equal.
            ours = {v: uploaded[v].get((task_type, level)) for v in VARIANTS}
        for variant in VARIANTS:
            lr2 = theirs[variant][task_type][level]
            mine = ours[variant]
            results.append(
                {
                    "type": task_type,
                    "level": level,
                    "variant": variant,
                    "path": "upload" if through_upload else "direct",
                    "lr2bench": lr2,
                    "ours": mine,
                    "equal": mine is not None
                    and all(
                        mine[f] is not None and round(lr2[f], 3) == round(mine[f], 3)
                        for f in FIGURES
                    ),
                    "replies": {
                        i.tag: replies_of[((task_type, level), i.tag)][variant] for i in items
                    },
                }
            )
    return results


def print_table(results: list[dict]) -> None:
    head = " ".join(f"{f:>6}" for f in FIGURES)
    print(f"{'type':<10} {'level':<9} {'reply':<12} LR²Bench: {head}   ours: {head}  equal")
    for r in results:
        lr2 = " ".join(f"{r['lr2bench'][f]:6.3f}" for f in FIGURES)
        ours = " ".join(
            f"{r['ours'][f]:6.3f}" if r["ours"] and r["ours"][f] is not None else "     -"
            for f in FIGURES
        )
        print(
            f"{r['type']:<10} {r['level']:<9} {r['variant']:<12}           {lr2}         {ours}"
            f"  {'yes' if r['equal'] else 'NO'}"
        )
    same = sum(r["equal"] for r in results)
    print(f"{same} of {len(results)} (type, level, reply) rows equal to the third decimal")


def write_synthetic(folder: Path) -> None:
    """Small items in LR²Bench's format, two per level: our generated puzzles (seeds 1, 2)
    written as LR²Bench writes its items, plus a hand-made logic grid whose values differ
    only by a sign (A / A- / B+ / B-)."""
    puzzles = get_family("puzzles")
    ours = {
        "crossword": "crossword",
        "acrostic": "acrostic",
        "logic": "logic_grid",
        "cryptogram": "cryptogram",
        "sudoku": "sudoku",
        "drop": "dropquote",
    }
    answers: dict[str, list] = {t: [] for t in scoring.TYPES}
    for task_type, levels in scoring.LEVELS.items():
        for level in levels:
            lines = []
            for seed in (1, 2):
                puzzle_level = "medium" if level.startswith("9_9") else "easy"
                instance = puzzles.generate(ours[task_type], seed, level=puzzle_level)
                kind = puzzles.puzzles[ours[task_type]]
                gold = kind.lr2_gold(instance.public, instance.hidden)
                tag = f"S{seed}{level}"
                lines.append({"tag": tag, "example_text": instance.public["text"]})
                answers[task_type].append({"tag": tag, "level": level, "answer": json.dumps(gold)})
            if task_type == "logic" and level == "4_4":
                gold = [
                    {"students": "Ana", "grades": "A", "clubs": "chess"},
                    {"students": "Ben", "grades": "A-", "clubs": "drama"},
                    {"students": "Cai", "grades": "B+", "clubs": "choir"},
                    {"students": "Dee", "grades": "B-", "clubs": "rowing"},
                ]
                lines.append({"tag": "GRADES", "example_text": "Who got which grade?"})
                answers["logic"].append(
                    {"tag": "GRADES", "level": level, "answer": json.dumps(gold)}
                )
            target = folder / FOLDERS[task_type] / level
            target.mkdir(parents=True, exist_ok=True)
            (target / "data.jsonl").write_text(
                "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
            )
    (folder / "answer.json").write_text(json.dumps(answers, indent=1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", help="a checkout of LR²Bench (its code is run from here)")
    parser.add_argument("--data", help="items in LR²Bench's format (default: PATH/data)")
    parser.add_argument("--json", help="write every figure and reply to this file")
    parser.add_argument("--write-synthetic", help="write synthetic items to this folder first")
    parser.add_argument(
        "--direct",
        action="store_true",
        help="score our side by calling the family directly (parse_reply, score, pooled), "
        "not through the upload path and the board",
    )
    args = parser.parse_args()
    if args.write_synthetic:
        write_synthetic(Path(args.write_synthetic))
    code = Path(args.path)
    data = data_folder(args.data or args.write_synthetic or code)
    with tempfile.TemporaryDirectory(prefix="lr2upload") as scratch:
        if not args.direct:
            setup_django(Path(scratch) / "db.sqlite3")
        results = compare(code, data, through_upload=not args.direct)
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
