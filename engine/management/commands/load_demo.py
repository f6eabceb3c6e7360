from __future__ import annotations

import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from engine.actions import (
    EngineError,
    do_generate_instances,
    do_import_domain,
    iter_shipped_domains,
)
from engine.models import Domain

# The two settings of the paper; enough instances per domain for a study task set.
DEMO_SETTINGS = ((4, 6), (12, 16))
# The demo round (load_demo --round): small, so the first start stays short.
DEMO_ROUND_DOMAINS = ("medical", "music")
DEMO_RANKED_GAMES = 3


class Command(BaseCommand):
    help = (
        "Load the shipped domains and generate demo instances (Easy and Hard) with books and "
        "oracle values. Safe to run again: existing data is kept."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--count", type=int, default=10, help="instances per setting")
        parser.add_argument(
            "--round",
            action="store_true",
            help="also, when no round exists yet, prepare a small demo round, rotate it in "
            "and play the built-in baselines' ranked games in it (verified rows on day one)",
        )
        parser.add_argument(
            "--admin",
            action="store_true",
            help="also create the superuser admin/admin (refused unless DEBUG is on)",
        )

    def handle(self, *args, count: int, admin: bool, **options) -> None:
        try:
            for path, core in iter_shipped_domains():
                row, changed = do_import_domain(core, source=Domain.Source.SHIPPED)
                made = []
                for n_truths, n_actions in DEMO_SETTINGS:
                    _, report = do_generate_instances(
                        row,
                        n_truths=n_truths,
                        n_actions=n_actions,
                        count=count,
                        seed=0,
                        workers=os.cpu_count() or 1,
                    )
                    made.append(f"{len(report.created)} new {n_truths}/{n_actions}")
                state = "imported" if changed else "unchanged"
                self.stdout.write(f"{row.name} ({path.name}, {state}): {', '.join(made)}")
        except EngineError as error:
            raise CommandError(str(error)) from None
        if admin:
            self._create_admin()
        if options["round"]:
            self._demo_round()

    def _demo_round(self) -> None:
        """A live round with verified rows on a fresh install: two shipped domains at both
        settings, three ranked games per model, domain and setting, played by the built-in
        baselines (oracle, greedy, random) through the same ranked path as any model. Left
        alone once any round exists (an operator's rounds are theirs)."""
        from django.core.management import call_command

        from engine.seeds import fresh_seed
        from leaderboard.models import Round

        if Round.objects.exists():
            self.stdout.write("a round exists already: no demo round")
            return
        owner = get_user_model().objects.filter(is_superuser=True, is_active=True).first()
        if owner is None:
            raise CommandError(
                "the demo round's baselines play in a superuser's name: pass --admin"
            )
        quiet = {"stdout": self.stdout, "stderr": self.stderr}
        call_command(
            "prepare_round", "--name", "demo", "--domains", ",".join(DEMO_ROUND_DOMAINS),
            "--task-settings", "4x6,12x16", "--instances", "3", "--seed", str(fresh_seed()),
            "--ranked-games", str(DEMO_RANKED_GAMES), **quiet,
        )  # fmt: skip
        call_command("rotate_round", **quiet)
        for baseline in ("oracle", "greedy", "random"):
            for truths, actions in DEMO_SETTINGS:
                call_command(
                    "evaluate", "--model", baseline, "--ranked", "--user", owner.username,
                    "--domains", ",".join(DEMO_ROUND_DOMAINS), "--truths", str(truths),
                    "--actions", str(actions), **quiet,
                )  # fmt: skip
        self.stdout.write(
            "demo round live, with the baselines' verified ranked games on /leaderboard/"
        )

    def _create_admin(self) -> None:
        if not settings.DEBUG:
            raise CommandError("refusing to create admin/admin with DEBUG off")
        user_model = get_user_model()
        if user_model.objects.filter(username="admin").exists():
            return
        user_model.objects.create_superuser("admin", "admin@localhost", "admin")
        self.stdout.write("created superuser admin (password: admin) for local use")
