from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engine.authoring import AuthoringError
from engine.word_clues import do_write_clues


class Command(BaseCommand):
    help = (
        "Ask the authoring LLM for crossword clues of words of the bundled list that have "
        "none yet; every clue is checked and only fair ones are stored (used by crosswords "
        "generated with --param clues=1). Needs AUTHORING_LLM_BASE_URL and _MODEL."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--count", type=int, default=100, help="words to ask about")
        parser.add_argument("--batch", type=int, default=25, help="words per request")

    def handle(self, *args, count: int, batch: int, **options) -> None:
        try:
            report = do_write_clues(count, batch=batch)
        except AuthoringError as error:
            raise CommandError(str(error)) from None
        for line in report.refused:
            self.stderr.write(f"refused {line}")
        self.stdout.write(
            f"{report.asked} word(s) asked, {report.stored} clue(s) stored, "
            f"{len(report.refused)} refused, {report.failed_calls} failed request(s)"
        )
