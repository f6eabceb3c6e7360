from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from engine.core.families.base import FamilyError
from engine.core.families.unpuzzles import READINGS
from engine.families import do_import_unpuzzles, unpuzzles_comparison


class Command(BaseCommand):
    help = (
        "Import the published Unpuzzles files (unpuzzles.json and/or shifted_unpuzzles.json "
        "of google-deepmind/unpuzzles_and_simple_reasoning) as the fixed family 'unpuzzles' "
        "(variants original, unpuzzle, shifted), each file under its own key (its name "
        "without .json), so the files never overwrite each other; then print, per player, "
        "file and reading, the accuracy per variant and the items solved in their original "
        "form but not in their trivial one. Importing again changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("paths", nargs="*", help="the JSON files; omit with --report-only")
        parser.add_argument(
            "--reading",
            choices=(*READINGS, "both"),
            default="deepmind",
            help="how answers are read: deepmind (DeepMind's extraction and scoring, "
            "exactly; the default), ours-corrected (ours: without its flaw), or both "
            "(a task of each)",
        )
        parser.add_argument("--report-only", action="store_true")

    def handle(self, *args, paths: list[str], reading: str, report_only: bool, **options):
        if not report_only:
            if not paths:
                raise CommandError("give the path of at least one unpuzzles JSON file")
            files: dict[str, str] = {}
            for path in paths:
                key = Path(path).stem.lower()
                if key in files:
                    raise CommandError(f"two files named {key}: give each file once")
                try:
                    files[key] = Path(path).read_text(encoding="utf-8")
                except OSError as error:
                    raise CommandError(f"cannot read {path}: {error.strerror}") from None
            readings = READINGS if reading == "both" else (reading,)
            try:
                reports = do_import_unpuzzles(files, readings)
            except FamilyError as error:
                raise CommandError(str(error)) from None
            for report in reports:
                variants = ", ".join(f"{n} {v}" for v, n in sorted(report.variants.items()))
                self.stdout.write(
                    f"{report.file}: {report.items} items ({variants or 'no tasks'}); "
                    f"{report.created} new, {report.updated} updated, "
                    f"{report.unchanged} unchanged ({', '.join(readings)}); "
                    f"{report.open_ended} open-ended question(s) left out (no exact answer "
                    "to score against)"
                )
                for problem in report.problems:
                    self.stderr.write(f"{report.file}: {problem}")
        rows = unpuzzles_comparison()
        if not rows:
            self.stdout.write(
                "No answers yet: play them with run_family_tasks --family unpuzzles --kind "
                "original (and unpuzzle, shifted), or at /families/."
            )
            return
        self.stdout.write(
            f"{'player':<24} {'file':<20} {'reading':<15} {'original':>9} {'unpuzzle':>9} "
            f"{'shifted':>9}   pairs  original only  unpuzzle only  both"
        )
        for row in rows:
            cells = []
            for variant in ("original", "unpuzzle", "shifted"):
                right, total = row.accuracy.get(variant, (0, 0))
                cells.append(f"{right / total:9.3f}" if total else f"{'-':>9}")
            self.stdout.write(
                f"{row.player:<24} {row.file or '?':<20} {row.reading:<15} {' '.join(cells)}"
                f"   {row.pairs:5d}  {row.original_only:13d}  {row.unpuzzle_only:13d}"
                f"  {row.both:4d}"
            )
