from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from engine.actions import EngineError, parse_instances_jsonl
from engine.core.families.kumo.generate import check_instance
from engine.core.families.kumo.search import solve

from ._helpers import get_domain, read_text


class Command(BaseCommand):
    help = (
        "Print, for every instance of a JSONL file, the optimal expected number of actions "
        "and the number of information actions the oracle takes (one JSON line each)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("domain")
        parser.add_argument("path", help="JSONL file, one instance per line")

    def handle(self, *args, domain: str, path: str, **options) -> None:
        core_domain = get_domain(domain).to_core()
        try:
            cores = parse_instances_jsonl(read_text(path).split("\n"))
        except EngineError as error:
            raise CommandError(f"{path}:\n{error}") from None
        for core in cores:
            problems = check_instance(core_domain, core)
            if problems:
                raise CommandError(f"seed {core.seed}: " + "; ".join(problems))
            result = solve(core_domain, core)
            self.stdout.write(
                json.dumps(
                    {
                        "seed": core.seed,
                        "expected_actions": result.expected_actions,
                        "oracle_actions": result.oracle_actions,
                    }
                )
            )
