from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engine.actions import EngineError, do_store_instances, parse_instances_jsonl
from engine.models import Instance

from ._helpers import get_domain, read_text


class Command(BaseCommand):
    help = (
        "Load KUMO-compatible JSONL instances produced elsewhere (e.g. the original KUMO "
        "release), keeping their seeds; each is checked against the domain and solved."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("domain")
        parser.add_argument("path", help="JSONL file, one instance per line")

    def handle(self, *args, domain: str, path: str, **options) -> None:
        row = get_domain(domain)
        try:
            cores = parse_instances_jsonl(read_text(path).split("\n"))
            report = do_store_instances(row, cores, source=Instance.Source.IMPORTED)
        except EngineError as error:
            raise CommandError(f"{path}: nothing imported.\n{error}") from None
        self.stdout.write(
            f"{row.name}: {len(report.created)} new, {len(report.unchanged)} already stored"
        )
