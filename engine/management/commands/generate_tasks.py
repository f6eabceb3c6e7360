from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from engine.actions import EngineError, do_generate_instances, instances_to_jsonl
from engine.core.families.kumo.generate import GenerationError

from ._helpers import get_domain


class Command(BaseCommand):
    help = (
        "Generate task instances with the SAT procedure, store them with their oracle values "
        "and knowledge books, and optionally write them as KUMO-compatible JSONL."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("domain")
        parser.add_argument("--truths", type=int, required=True, help="truths per task")
        parser.add_argument("--actions", type=int, required=True, help="actions per task")
        parser.add_argument("--count", type=int, default=1, help="number of instances")
        parser.add_argument("--seed", type=int, default=0, help="seed of the first instance")
        parser.add_argument("--valid", type=int, default=1, help="valid truths per task")
        parser.add_argument("--out", help="write the instances to this JSONL file")
        parser.add_argument(
            "--workers",
            type=int,
            default=os.cpu_count() or 1,
            help="processes for the optimal search (default: one per core)",
        )

    def handle(self, *args, **options) -> None:
        domain = get_domain(options["domain"])
        for flag in ("truths", "actions", "valid", "workers"):
            if options[flag] < 1:
                raise CommandError(f"--{flag} must be at least 1")
        try:
            cores, report = do_generate_instances(
                domain,
                n_truths=options["truths"],
                n_actions=options["actions"],
                count=options["count"],
                seed=options["seed"],
                n_valid=options["valid"],
                workers=options["workers"],
            )
        except (GenerationError, EngineError) as error:
            raise CommandError(str(error)) from None
        if options["out"]:
            try:
                with open(options["out"], "w", encoding="utf-8") as handle:
                    handle.write(instances_to_jsonl(cores))
            except OSError as error:
                raise CommandError(f"cannot write {options['out']}: {error.strerror}") from None
        self.stdout.write(
            f"{domain.name}: {len(report.created)} new, {len(report.unchanged)} already stored "
            f"({options['truths']} truths / {options['actions']} actions, seeds "
            f"{options['seed']}-{options['seed'] + options['count'] - 1})"
        )
