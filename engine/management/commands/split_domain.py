from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from engine.actions import EngineError
from engine.analysis import do_split_domain
from engine.core.families.kumo.analysis import SIDE_NAMES, SplitError, SubDomain

from ._helpers import get_domain


class Command(BaseCommand):
    help = (
        "Split a domain by connection of its truth graph into DOMAIN-IND (in-distribution) "
        "and DOMAIN-OOD (out-of-distribution) and store both (docs/domain-analysis.md)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("domain", help="name of a stored domain")

    def handle(self, *args, domain: str, **options) -> None:
        row = get_domain(domain)
        try:
            outcome = do_split_domain(row)
        except (SplitError, EngineError) as error:
            raise CommandError(str(error)) from None

        plan = outcome.split.plan
        self.stdout.write(f"{row.name}: {len(plan.components)} connected components")
        for number, component in enumerate(plan.components, start=1):
            self.stdout.write(
                f"  component {number}: {len(component.truths)} truths -> side "
                f"{component.side} ({SIDE_NAMES[component.side]})"
            )
        for half, (stored, created) in zip(
            (outcome.split.ind, outcome.split.ood), outcome.stored, strict=True
        ):
            self._report(half, stored.name, created)

    def _report(self, half: SubDomain, name: str, created: bool) -> None:
        core = half.domain
        verb = "created" if created else "unchanged (already stored with these rules)"
        self.stdout.write(
            f"{name} ({SIDE_NAMES[half.side]}): {verb}; {len(core.truths)} truths, "
            f"{len(core.actions)} actions"
        )
        self.stdout.write(f"  truths: {', '.join(core.truths)}")
        self.stdout.write(f"  actions: {', '.join(action.name for action in core.actions)}")
        for action, reason in half.dropped_actions:
            self.stdout.write(f"  dropped action {action!r}: {reason}")
        for truth, reason in half.dropped_truths:
            self.stdout.write(f"  dropped truth {truth!r}: {reason}")
        for message in half.trimmed:
            self.stdout.write(f"  trimmed: {message}")
        if not (half.dropped_actions or half.dropped_truths or half.trimmed):
            self.stdout.write("  nothing dropped")
