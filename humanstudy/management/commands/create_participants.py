from __future__ import annotations

import csv
import sys

from django.core.management.base import BaseCommand, CommandError

from humanstudy.actions import StudyError, create_participants


class Command(BaseCommand):
    help = (
        "Create study participants, each given a complete task set at random, and print "
        "their IDs, passwords and personal links as CSV (passwords are shown only now). "
        "A personal link signs its participant in without the password."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--out", help="also write the CSV to this file")
        parser.add_argument(
            "--base-url",
            default="",
            help="the site's address, to print whole links (e.g. https://study.example.org)",
        )

    def handle(self, *args, count: int, out: str | None, base_url: str, **options) -> None:
        try:
            made = create_participants(count)
        except StudyError as error:
            raise CommandError(str(error)) from None
        base = base_url.rstrip("/")
        rows = [("id", "password", "task_set", "link")] + [
            (p.user.username, password, p.task_set.name, f"{base}/study/p/{p.link_key}/")
            for p, password in made
        ]
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerows(rows)
        if out:
            try:
                with open(out, "w", newline="", encoding="utf-8") as handle:
                    csv.writer(handle).writerows(rows)
            except OSError as error:
                raise CommandError(f"cannot write {out}: {error.strerror}") from None
        print(f"created {len(made)} participants", file=sys.stderr)
