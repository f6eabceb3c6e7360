from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from leaderboard.release import import_release


class Command(BaseCommand):
    help = (
        "Import a whole original KUMO release (a checkout, or its env/ and results/ folders): "
        "every domain (KUMO-compatible mode where our validator refuses it), every instance "
        "file and every results file, in one process. Running it again changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="the release checkout (holding env/ and results/)")
        parser.add_argument(
            "--repair",
            action="store_true",
            help="repair published results files instead of refusing them: identical "
            "repeated records kept once, non-identical repeats and unreadable lines skipped; "
            "every repair is listed and the board marks the rows",
        )
        parser.add_argument("--verbose", action="store_true", help="list every warning and note")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, path: str, repair: bool, verbose: bool, no_progress: bool, **options):
        root = Path(path)
        if not root.is_dir():
            raise CommandError(f"{path} is not a directory")

        def progress(files):
            return tqdm(files, desc="import", unit="file", disable=no_progress)

        report = import_release(root, repair=repair, progress=progress)
        for line in report.lines(verbose=verbose):
            self.stdout.write(line)
