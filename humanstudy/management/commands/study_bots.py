from __future__ import annotations

import asyncio

from django.core.management.base import BaseCommand, CommandError

from engine.models import Domain
from humanstudy import bots
from humanstudy.actions import StudyError
from humanstudy.models import Participant, StudySettings, TaskSetItem
from humanstudy.path import check_label, practice_instance

# What the quality filter must say of each kind (--check): careful bots pass; the others
# are flagged, each for at least one of its reasons.
EXPECTED = {
    "careless": (
        "answered before any action",
        "median time per move",
        "no better than answering at random",
        "attention check",
    ),
    "paste": ("pasted", "hidden or out of focus"),
}


def parse_mix(text: str) -> dict[str, int]:
    mix = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, weight = part.partition("=")
        if kind not in bots.KINDS or not weight.isdigit():
            raise CommandError(
                f"--mix takes kind=weight pairs of {', '.join(bots.KINDS)}, e.g. "
                f"careful=12,careless=4,paste=4; got {part!r}"
            )
        mix[kind] = int(weight)
    return mix


class Command(BaseCommand):
    help = (
        "Rehearse the study: N simulated participants (careful, careless, paste-happy) walk "
        "the whole path on a running site over HTTP and websockets, from the study link to "
        "the completion code; then the quality filter's verdict on each is printed. They "
        "are real participants of the study (labels starting b07, shaped like Prolific "
        "IDs): delete them before launch. They join from one address: raise "
        "STUDY_JOINS_PER_HOUR_PER_IP on the site for more than its limit."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="the running site")
        parser.add_argument("--count", type=int, default=20)
        parser.add_argument(
            "--mix", default="careful=3,careless=1,paste=1", help="weights of the bot kinds"
        )
        parser.add_argument(
            "--think", type=float, default=2.5, help="seconds a careful bot thinks per move"
        )
        parser.add_argument("--concurrency", type=int, default=20)
        parser.add_argument("--seed", type=int)
        parser.add_argument(
            "--check",
            action="store_true",
            help="fail unless careful bots pass and the others are flagged for their reasons",
        )

    def handle(self, *args, **options) -> None:
        if options["count"] < 1:
            raise CommandError("--count must be at least 1")
        config = StudySettings.current()
        url = options["url"].rstrip("/")
        link = f"{url}/study/join/{config.link_key}/?{config.label_parameter}="
        kinds = bots.plan(options["count"], parse_mix(options["mix"]))
        try:  # the bots' labels must pass the study's label pattern, as a person's must
            check_label(bots.bot_label("0" * 8, 1, kinds[0]), config)
        except StudyError as error:
            raise CommandError(
                f"the bots cannot join: {error} (their labels are 24 hexadecimal digits; "
                "allow those in the study's label pattern for the rehearsal)"
            ) from None
        plans = self._family_plans()
        results = asyncio.run(
            bots.run_bots(
                kinds,
                base_url=url,
                link=link,
                rules=self._rules(),
                think=options["think"],
                concurrency=options["concurrency"],
                seed=options["seed"],
                plans=plans,
            )
        )
        problems = self._report(results)
        if options["check"] and problems:
            raise CommandError("\n".join(problems))

    def _family_plans(self) -> dict[tuple[str, int], bots.FamilyPlan]:
        """What the bots send for each family task of every set (a bot may be given any
        set), checked before any bot joins: a task they cannot play refuses the rehearsal
        here, so no half-finished bot participant is left behind."""
        plans, problems = {}, []
        items = TaskSetItem.objects.filter(family_task__isnull=False).select_related(
            "task_set", "family_task"
        )
        for item in items.order_by("task_set__name", "position"):
            try:
                plans[(item.task_set.name, item.position)] = bots.family_plan(item.family_task)
            except bots.Unplayable as error:
                problems.append(f"task set {item.task_set.name}, task {item.position}: {error}")
        if problems:
            raise CommandError(
                "the bots cannot rehearse these task sets (no bot has joined):\n  "
                + "\n  ".join(problems)
                + "\nBuild the rehearsal's sets without these tasks, or rehearse on a copy."
            )
        return plans

    def _rules(self) -> dict:
        """The rules of every domain a participant may meet (what their guidebooks say)."""
        ids = set(TaskSetItem.objects.values_list("instance__domain_id", flat=True))
        practice = practice_instance()
        if practice is not None:
            ids.add(practice.domain_id)
        return {domain.name: domain.to_core() for domain in Domain.objects.filter(pk__in=ids)}

    def _report(self, results: list[bots.BotResult]) -> list[str]:
        participants = {
            p.label: p for p in Participant.objects.filter(label__in=[r.label for r in results])
        }
        problems = []
        self.stdout.write(f"{'bot':<34} {'kind':<9} solved  moves  code      verdict")
        for result in results:
            participant = participants.get(result.label)
            if participant is not None:
                participant.refresh_from_db()
            reasons = participant.flag_reasons if participant else []
            verdict = ("flagged: " + "; ".join(reasons)) if reasons else "passes"
            if result.error:
                verdict = f"STOPPED: {result.error}"
                problems.append(f"{result.label}: {result.error}")
            self.stdout.write(
                f"{result.label:<34} {result.kind:<9} {result.solved:>2}/{result.games:<3} "
                f"{result.moves:>5}  {result.completion_code or '-':<8}  {verdict}"
            )
            if result.error:
                continue
            if result.kind == "careful" and reasons:
                problems.append(f"{result.label}: a careful bot was flagged: {verdict}")
            expected = EXPECTED.get(result.kind)
            if expected and not any(word in r for r in reasons for word in expected):
                problems.append(
                    f"{result.label}: a {result.kind} bot was not flagged for any of: "
                    + ", ".join(expected)
                )
        flagged = sum(bool(p.flag_reasons) for p in participants.values())
        self.stdout.write(f"{len(results)} bots, {flagged} flagged, {len(problems)} problem(s)")
        for problem in problems:
            self.stderr.write(problem)
        return problems
