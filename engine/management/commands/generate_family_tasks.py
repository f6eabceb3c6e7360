from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from engine.core.families.base import FamilyError
from engine.families import do_generate_family_tasks, families_catalogue


class Command(BaseCommand):
    help = (
        "Generate and store tasks of a task family (docs/task-families.md), seeds SEED … "
        "SEED+COUNT-1; tasks already stored are reused. --list shows the families."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--family", default="simple")
        parser.add_argument("--kind")
        parser.add_argument("--level", help="a named difficulty level, e.g. easy, medium, hard")
        parser.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a parameter (overrides the level's); repeat for several",
        )
        parser.add_argument("--count", type=int, default=10)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--list", action="store_true", help="list families and kinds")

    def handle(self, *args, **options) -> None:
        if options["list"]:
            self.stdout.write(json.dumps(families_catalogue(with_kumo=False), indent=1))
            return
        if not options["kind"]:
            raise CommandError("--kind is required (see --list)")
        params = {}
        for item in options["param"]:
            name, _, value = item.partition("=")
            try:
                params[name] = int(value)
            except ValueError:
                raise CommandError(f"--param takes NAME=INTEGER, got {item!r}") from None
        try:
            report = do_generate_family_tasks(
                options["family"],
                options["kind"],
                count=options["count"],
                seed=options["seed"],
                level=options["level"],
                params=params or None,
            )
        except FamilyError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{options['family']}/{options['kind']}: {report.created} new, "
            f"{len(report.tasks) - report.created} already stored"
        )
