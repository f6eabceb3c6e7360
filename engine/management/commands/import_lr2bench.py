from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engine.core.families.base import FamilyError
from engine.families import do_import_lr2bench


class Command(BaseCommand):
    help = (
        "Import LR²Bench's published puzzles (a checkout of github.com/ZNLP/LR2Bench, or its "
        "data/ folder) as the fixed family 'lr2bench': every item of the six types at every "
        "level, with its gold answer kept on the server. Importing again changes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="the LR²Bench checkout or its data/ folder")

    def handle(self, *args, path: str, **options) -> None:
        try:
            report = do_import_lr2bench(path)
        except FamilyError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"{'type':<11} {'level':<9} {'new':>5} {'updated':>8} {'unchanged':>10}")
        for (task_type, level), tally in report.levels.items():
            self.stdout.write(
                f"{task_type:<11} {level:<9} {tally.created:5d} {tally.updated:8d} "
                f"{tally.unchanged:10d}"
            )
        self.stdout.write(f"lr2bench: {report.items} item(s), {len(report.problems)} problem(s)")
        for problem in report.problems:
            self.stderr.write(problem)
