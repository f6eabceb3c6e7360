from __future__ import annotations

import json

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from benchmark.family_runner import (
    BUILT_IN,
    attempt_record,
    play_family_tasks,
    play_ranked_attempts,
)
from benchmark.llm import ChatClient, LLMConfigError
from engine.core.families.base import FamilyError, get_family
from engine.families import canonical_level, do_generate_family_tasks
from engine.models import FamilyAttempt, FamilyTask
from leaderboard.names import ModelNameError

KUMO = "kumo"


class Command(BaseCommand):
    help = (
        "Play a model (behind an OpenAI-compatible API) or a built-in baseline "
        f"({', '.join(BUILT_IN)}) through family tasks: generated and stored first (seeds "
        "SEED … SEED+COUNT-1; for an imported family, every stored task of the kind), then "
        "each answered RUNS times; attempts already stored are "
        "kept, so an interrupted run resumes. The rows appear on /leaderboard/families/. "
        "--family kumo plays KUMO's games: the stored instances of each domain (--kind) at "
        "the level's truths and actions, through the KUMO runner (the evaluate command)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--model", required=True)
        parser.add_argument("--base-url", default="", help="the API; empty for a built-in")
        parser.add_argument("--api-key-env", default="", help="variable holding the API key")
        parser.add_argument("--family", default="simple")
        parser.add_argument(
            "--kind", required=True, help="a kind, several separated by commas, or all"
        )
        parser.add_argument(
            "--level",
            default=None,
            help="the level (default: easy; for an imported family every stored level, "
            "e.g. LR²Bench's sizes or the unpuzzles' readings that were imported)",
        )
        parser.add_argument(
            "--count", type=int, default=None, help="tasks to generate per kind (default 10)"
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--runs", type=int, default=1)
        parser.add_argument("--concurrency", type=int, default=4)
        parser.add_argument("--timeout", type=float, default=120.0)
        parser.add_argument(
            "--as-user",
            default="runner",
            help="account the run is filed under; a chat model's name is owned by it (and "
            "counts towards its cap of model names unless it is staff)",
        )
        parser.add_argument(
            "--ranked",
            action="store_true",
            help="play the model's ranked attempts of the live round (the round's ranked "
            "games per family, kind and level, each on a fresh task made for it alone) "
            "through the ranked service; needs --base-url, and the model must be new or "
            "owned by --as-user",
        )
        parser.add_argument(
            "--out",
            help="also write every attempt of the run as a line of JSONL to this file: the "
            "family replies format /api/v1/family-submissions/ takes, with the verdict, a "
            "game's moves and every reply's turn (docs/results-format.md)",
        )
        parser.add_argument(
            "--round",
            default="",
            help="play the tasks of this kind and level pinned to a live (or closed) round "
            "instead of generating public ones; the answers stay secret until it is published",
        )

    def handle(self, *args, **o) -> None:
        if not 1 <= o["runs"] <= 100:
            raise CommandError("--runs must be between 1 and 100")
        if o["family"] == KUMO:
            return self._play_kumo(o)
        o["count"] = 10 if o["count"] is None else o["count"]
        try:
            family = get_family(o["family"])
            kinds = (
                sorted(family.kinds)
                if o["kind"] == "all"
                else [kind.strip() for kind in o["kind"].split(",") if kind.strip()]
            )
            for kind in kinds:
                family.kind(kind)
            if o["level"] is None and not getattr(family, "imported", False):
                o["level"] = "easy"
        except FamilyError as error:
            raise CommandError(str(error)) from None
        if not kinds:
            raise CommandError("name a kind (or several, separated by commas, or all)")
        client = None
        if o["base_url"]:
            try:
                client = ChatClient(
                    o["base_url"], o["model"], o["api_key_env"] or None, timeout=o["timeout"]
                )
            except LLMConfigError as error:
                raise CommandError(str(error)) from None
        if o["ranked"] and (client is None or o["round"]):
            raise CommandError(
                "--ranked plays a model behind an API (give --base-url) on the live round's "
                "fresh tasks (without --round)"
            )
        user, _ = User.objects.get_or_create(username=o["as_user"])
        stored: list[int] = []
        try:
            out = open(o["out"], "w", encoding="utf-8") if o["out"] else None  # noqa: SIM115
        except OSError as error:
            raise CommandError(f"cannot write {o['out']}: {error.strerror}") from None
        try:
            for kind in kinds:
                if o["ranked"]:
                    stored += self._play_ranked(family, kind, o, client, user)
                else:
                    stored += self._play_kind(family, kind, o, client, user)
            if out is not None:
                attempts = FamilyAttempt.objects.select_related("task").in_bulk(stored)
                for pk in stored:
                    record = attempt_record(attempts[pk])
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                self.stdout.write(f"{len(stored)} attempt(s) written to {o['out']}")
        finally:
            if out is not None:
                out.close()
            if client is not None:
                client.close()

    def _play_kumo(self, o: dict) -> None:
        """KUMO's games, one family among the others: each domain named by ``--kind`` (or
        ``all``) at the level's truths and actions (easy 4/6, hard 12/16), played by the
        KUMO runner on the stored instances, as ``evaluate`` plays them (its own command,
        whose options these are: its verified run, its results file, its ranked games)."""
        from django.core.management import call_command

        from engine.models import Domain
        from engine.practice import PracticeError, kumo_setting

        if o["count"] is not None or o["round"]:
            raise CommandError(
                "--count and --round do not apply to KUMO's games: they are played on the "
                "stored instances (make them with generate_tasks), and ranked with --ranked"
            )
        try:
            truths, actions = kumo_setting(o["level"] or "easy")
        except PracticeError as error:
            raise CommandError(
                f"{error} (evaluate --truths/--actions plays any other setting)"
            ) from None
        known = set(Domain.objects.values_list("name", flat=True))
        if o["kind"] == "all":
            domains = sorted(known)
        else:
            domains = [name.strip() for name in o["kind"].split(",") if name.strip()]
        unknown = [name for name in domains if name not in known]
        if unknown or not domains:
            raise CommandError(
                f"no KUMO domain {unknown[0][:60]!r}; the domains are {', '.join(sorted(known))}"
                if unknown
                else "name a domain (or several, separated by commas, or all)"
            )
        user, _ = User.objects.get_or_create(username=o["as_user"])
        argv = [
            *("--model", o["model"], "--domains", ",".join(domains)),
            *("--truths", str(truths), "--actions", str(actions), "--user", user.username),
            *("--concurrency", str(o["concurrency"]), "--timeout", str(o["timeout"])),
            *("--seed", str(o["seed"])),
        ]
        for flag, value in (
            ("--base-url", o["base_url"]),
            ("--api-key-env", o["api_key_env"]),
            ("--out", o["out"]),
        ):
            if value:
                argv += [flag, value]
        argv += ["--ranked"] if o["ranked"] else ["--runs", str(o["runs"])]
        call_command("evaluate", *argv, stdout=self.stdout, stderr=self.stderr)

    def _play_kind(self, family, kind: str, o: dict, client, user) -> tuple[int, ...]:
        level = canonical_level(family.name, kind, o["level"] or "")  # a former name: its level
        if o["round"]:
            tasks = _round_tasks(o["round"], family.name, kind, level)
        elif getattr(family, "imported", False):
            # A published family (unpuzzles, lr2bench): every stored task of the kind, of
            # the level asked for or of every level (LR²Bench's sizes; for the unpuzzles,
            # the readings their answers are scored by, as imported).
            stored = FamilyTask.objects.filter(family=family.name, kind=kind)
            if level:
                stored = stored.filter(level=level)
            tasks = list(stored)
            if not tasks:
                raise CommandError(f"no {family.name}/{kind} tasks stored: import them first")
        else:
            try:
                tasks = do_generate_family_tasks(
                    family.name, kind, count=o["count"], seed=o["seed"], level=o["level"]
                ).tasks
            except FamilyError as error:
                raise CommandError(str(error)) from None
        try:
            result = play_family_tasks(
                tasks,
                model=o["model"],
                started_by=user,
                client=client,
                runs=o["runs"],
                concurrency=o["concurrency"],
                seed=o["seed"],
            )
        except (ValidationError, ValueError, ModelNameError) as error:
            message = error.messages[0] if isinstance(error, ValidationError) else str(error)
            raise CommandError(message) from None
        self.stdout.write(
            f"{o['model']} on {family.name}/{kind}: {result.attempts} "
            f"played, {result.correct} correct, {result.parse_errors} parse error(s), "
            f"{result.failed} failed (API), {result.skipped} already stored"
        )
        return result.stored

    def _play_ranked(self, family, kind: str, o: dict, client, user) -> tuple[int, ...]:
        from leaderboard.ranked import RankedError

        try:
            result = play_ranked_attempts(
                model=o["model"],
                family=family.name,
                kind=kind,
                level=o["level"],
                player=user,
                client=client,
            )
        except RankedError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{o['model']} ranked on {family.name}/{kind}/{o['level']}: {result.attempts} "
            f"played, {result.correct} correct, {result.parse_errors} parse error(s), "
            f"{result.failed} failed (API)"
        )
        return result.stored


def _round_tasks(name: str, family: str, kind: str, level: str) -> list[FamilyTask]:
    from leaderboard.access import PUBLIC_ROUNDS
    from leaderboard.models import Round, RoundFamilyTask

    target = Round.objects.filter(name=name).first()
    if target is None:
        raise CommandError(f"no round named {name!r}")
    if target.status not in PUBLIC_ROUNDS:
        raise CommandError(f"round {name} is {target.get_status_display()}: it is not live yet")
    tasks = list(
        FamilyTask.objects.filter(
            family=family,
            kind=kind,
            level=level,
            pk__in=RoundFamilyTask.objects.filter(round=target).values("task_id"),
        ).order_by("seed")
    )
    if not tasks:
        raise CommandError(f"round {name} has no {family}/{kind}/{level} tasks")
    return tasks
