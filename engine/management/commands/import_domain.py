from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from engine.actions import EngineError, do_import_domain
from engine.core.families.kumo.domain_io import (
    DomainError,
    domain_from_json,
    domain_from_kumo_module,
)
from engine.models import Domain

from ._helpers import read_text


class Command(BaseCommand):
    help = (
        "Import a domain from our JSON format (docs/domain-format.md) or from an original "
        "KUMO *_data.py module (parsed as data, never executed)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="a .json domain file or a KUMO *_data.py module")
        parser.add_argument("--name", help="store the domain under this name")

    def handle(self, *args, path: str, name: str | None, **options) -> None:
        text = read_text(path)
        suffix = Path(path).suffix.lower()
        try:
            if suffix == ".py":
                default_name = Path(path).stem.removesuffix("_data").replace("_", "-")
                core, warnings = domain_from_kumo_module(text, name or default_name, strict=False)
                for warning in warnings:
                    self.stderr.write(f"warning: {warning}")
                source = Domain.Source.KUMO
            elif suffix == ".json":
                core = domain_from_json(text)
                source = Domain.Source.JSON
            else:
                raise CommandError(f"{path}: expected a .json domain or a KUMO .py module")
            row, changed = do_import_domain(core, source=source, name=name)
        except DomainError as error:
            raise CommandError(f"{path} is not a valid domain:\n{error}") from None
        except EngineError as error:
            raise CommandError(str(error)) from None
        verb = "imported" if changed else "unchanged"
        self.stdout.write(
            f"{verb}: {row.name} ({row.truth_count} truths, {row.action_count} actions)"
        )
