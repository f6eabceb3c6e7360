from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from leaderboard import rounds
from leaderboard.models import Round
from leaderboard.rounds import RoundError, RoundSpec


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"{value!r} is not a date: write YYYY-MM-DD") from None


class Command(BaseCommand):
    help = (
        "Prepare the next public round: generate, solve and pin its instances (with books "
        "and oracle values) in this process. Running it again with the same arguments does "
        "nothing new; a failed preparation is retried."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--domains", required=True, help="comma-separated domain names")
        # Not --settings: Django's manage.py reads that option itself (the settings module)
        # before any command sees it.
        parser.add_argument(
            "--task-settings",
            "--setting",
            dest="task_settings",
            required=True,
            help="comma-separated TRUTHSxACTIONS, e.g. 4x6,12x16",
        )
        parser.add_argument(
            "--instances", type=int, required=True, help="instances per domain and setting"
        )
        parser.add_argument("--seed", type=int, required=True, help="seed of the first instance")
        parser.add_argument(
            "--ranked-games",
            type=int,
            default=20,
            help="ranked games each model plays per domain and setting while the round is "
            "live, each on a fresh instance (default 20)",
        )
        parser.add_argument(
            "--start", help="first day, YYYY-MM-DD (default: when the current round ends, or today)"
        )
        parser.add_argument("--end", help="rotation day, YYYY-MM-DD (default: start + 2 months)")
        parser.add_argument("--name", default="", help="default: the start's YYYY-MM")
        parser.add_argument(
            "--family-task",
            action="append",
            default=[],
            metavar="FAMILY/KIND/LEVEL:COUNT",
            help="tasks of a family to pin to the round (repeatable), e.g. "
            "puzzles/sudoku/hard:50, or kumo/music/hard:20 for KUMO games of a domain at a "
            "level beside --domains × --task-settings",
        )

    def handle(self, *args, **options) -> None:
        try:
            spec = RoundSpec(
                domains=rounds.parse_names(options["domains"]),
                settings=rounds.parse_settings(options["task_settings"]),
                instances=options["instances"],
                seed=options["seed"],
                ranked_games=options["ranked_games"],
                starts_on=_date(options["start"]) if options["start"] else None,
                ends_on=_date(options["end"]) if options["end"] else None,
                name=options["name"],
                family_tasks=options["family_task"],
            )
            target, created = rounds.do_create_round(spec)
        except RoundError as error:
            raise CommandError(str(error)) from None
        if not created:
            if target.status == Round.Status.FAILED:
                self.stdout.write(f"round {target.name} failed before ({target.error}); retrying")
                Round.objects.filter(pk=target.pk, status=Round.Status.FAILED).update(
                    status=Round.Status.DRAFT, error=""
                )
            elif target.status != Round.Status.DRAFT:
                self.stdout.write(
                    f"round {target.name} already exists with these settings "
                    f"({target.get_status_display()}, {target.prepared_instances}/"
                    f"{target.total_instances} instances); nothing to do"
                )
                return
        self.stdout.write(
            f"round {target.name}: {target.total_instances} instances "
            f"({target.starts_on} to {target.ends_on})"
        )

        def progress(current: Round, domain, n_truths: int, n_actions: int) -> None:
            self.stdout.write(
                f"  {domain.name} {n_truths}x{n_actions}: {current.prepared_instances}/"
                f"{current.total_instances}"
            )

        prepared = rounds.do_prepare_round(target.pk, progress=progress)
        if prepared is None:
            raise CommandError(f"round {target.name} is being prepared by a worker already")
        if prepared.status != Round.Status.PREPARED:
            raise CommandError(f"round {prepared.name} failed: {prepared.error}")
        self.stdout.write(
            f"round {prepared.name} is prepared; rotate it in with `rotate_round` (or it is "
            f"rotated in on {prepared.starts_on} when automatic rotation is on)"
        )
