from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from engine.core.families.base import FamilyError
from engine.families import do_import_unpuzzles, unpuzzles_comparison


class Command(BaseCommand):
    help = (
        "Import the published Unpuzzles file (unpuzzles.json or shifted_unpuzzles.json of "
        "google-deepmind/unpuzzles_and_simple_reasoning) as the fixed family 'unpuzzles' "
        "(variants original, unpuzzle, shifted), then print the comparison of every player "
        "who answered them: accuracy per variant, and per item solved in its original form "
        "but not in its trivial one. Importing again changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", nargs="?", help="the JSON file; omit with --report-only")
        parser.add_argument("--report-only", action="store_true")

    def handle(self, *args, path: str | None, report_only: bool, **options) -> None:
        if not report_only:
            if not path:
                raise CommandError("give the path of the unpuzzles JSON file")
            try:
                text = Path(path).read_text(encoding="utf-8")
            except OSError as error:
                raise CommandError(f"cannot read {path}: {error.strerror}") from None
            try:
                report = do_import_unpuzzles(text)
            except FamilyError as error:
                raise CommandError(str(error)) from None
            self.stdout.write(
                f"unpuzzles: {report.created} new, {report.updated} updated, "
                f"{report.unchanged} unchanged; {report.open_ended} open-ended question(s) "
                "left out (no exact answer to score against)"
            )
            for problem in report.problems:
                self.stderr.write(problem)
        rows = unpuzzles_comparison()
        if not rows:
            self.stdout.write(
                "No answers yet: play them with run_family_tasks --family unpuzzles --kind "
                "original (and unpuzzle, shifted), or at /families/."
            )
            return
        self.stdout.write(
            f"{'player':<24} {'original':>10} {'unpuzzle':>10} {'shifted':>10}   "
            "pairs  original only  unpuzzle only  both"
        )
        for row in rows:
            cells = []
            for variant in ("original", "unpuzzle", "shifted"):
                right, total = row.accuracy.get(variant, (0, 0))
                cells.append(f"{right / total:10.3f}" if total else f"{'-':>10}")
            self.stdout.write(
                f"{row.player:<24} {' '.join(cells)}   {row.pairs:5d}  {row.original_only:13d}"
                f"  {row.unpuzzle_only:13d}  {row.both:4d}"
            )
