from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from humanstudy.actions import StudyError, build_task_sets


class Command(BaseCommand):
    help = (
        "Build complete task sets (one Easy and one Hard task from each study domain, and "
        "one task of each --family-task, e.g. puzzles/sudoku/easy)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--seed", type=int, help="make the draw reproducible")
        parser.add_argument(
            "--family-task",
            action="append",
            default=[],
            metavar="FAMILY/KIND/LEVEL",
            help="add a freshly generated task of a family to every set (repeatable), "
            "e.g. puzzles/sudoku/easy, simple/counting/medium, or kumo/music/hard for one "
            "more KUMO game",
        )

    def handle(self, *args, count: int, seed: int | None, **options) -> None:
        try:
            made = build_task_sets(count, seed=seed, family_tasks=options["family_task"])
        except StudyError as error:
            raise CommandError(str(error)) from None
        for task_set in made:
            self.stdout.write(task_set.name)
