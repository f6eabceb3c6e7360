from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Max, Prefetch
from tqdm import tqdm

from benchmark.players import OraclePlayer, TranscribingPlayer
from benchmark.runner import Job, Limits, play_game
from engine.core.families.kumo.book import write_book
from engine.core.families.kumo.generate import GenerationError, generate_instances
from engine.models import Domain, Instance, KnowledgeBook


class Command(BaseCommand):
    help = (
        "Write the optimal policy's games as chat fine-tuning data: one JSON object per line, "
        '{"messages": [system, user, assistant, user, ...]}, exactly the conversation the '
        "benchmark runner has with a model, the assistant turns being the oracle's moves as "
        "'<ANSWER> name </ANSWER>'. The domain's stored instances of the setting are used "
        "first (lowest seeds first, with their knowledge books); when --count exceeds them, "
        "fresh instances are generated with the SAT procedure (seeds from --seed, default one "
        "past the largest stored seed) and written with a deterministic book, without being "
        "stored. Note that stored instances are the benchmark's own tasks: train on them only "
        "if you will not evaluate on them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--domain", required=True, help="domain name")
        parser.add_argument("--truths", type=int, required=True, help="truths per task")
        parser.add_argument("--actions", type=int, required=True, help="actions per task")
        parser.add_argument("--count", type=int, required=True, help="number of conversations")
        parser.add_argument("--out", required=True, help="JSONL file to write")
        parser.add_argument(
            "--seed",
            type=int,
            help="seed of the first freshly generated instance (default: one past the largest "
            "stored seed of the setting, so fresh instances never reuse a stored seed)",
        )

    def handle(self, *args, **options) -> None:
        if options["count"] < 1:
            raise CommandError("--count must be at least 1")
        try:
            domain = Domain.objects.get(name=options["domain"])
        except Domain.DoesNotExist:
            raise CommandError(f"unknown domain {options['domain']!r}") from None
        core_domain = domain.to_core()
        n_truths, n_actions, count = options["truths"], options["actions"], options["count"]

        stored = Instance.objects.filter(
            domain=domain, n_truths=n_truths, n_actions=n_actions, n_valid=1
        )
        books = KnowledgeBook.objects.filter(passed_check=True).order_by("-created_at", "-id")
        rows = list(
            stored.order_by("seed").prefetch_related(
                Prefetch("books", queryset=books, to_attr="checked_books")
            )[:count]
        )
        tasks = []
        for row in rows:
            core = row.to_core()
            book = row.checked_books[0].text if row.checked_books else ""
            tasks.append((core, book or write_book(core_domain, core)))

        fresh = count - len(rows)
        if fresh > 0:
            start = options["seed"]
            if start is None:
                start = (stored.aggregate(top=Max("seed"))["top"] or -1) + 1
            self.stderr.write(f"Generating {fresh} fresh instance(s) from seed {start}...")
            try:
                generated = generate_instances(
                    core_domain,
                    n_truths,
                    n_actions,
                    count=fresh,
                    seed=start,
                    existing=[row.to_core() for row in stored],
                )
            except GenerationError as error:
                raise CommandError(str(error)) from None
            tasks += [(core, write_book(core_domain, core)) for core in generated]

        player = TranscribingPlayer(OraclePlayer())
        limits = Limits(max_turns=n_actions + 2, max_parse_errors=1)
        try:
            with open(options["out"], "w", encoding="utf-8") as handle:
                for core, book in tqdm(tasks, desc="oracle games", unit="game", file=sys.stderr):
                    job = Job(domain.name, core_domain, core, book, run=0)
                    record = play_game(job, player, limits)
                    if not record["claimed"]["correct"]:
                        raise CommandError(f"the oracle failed on seed {core.seed}: a bug")
                    messages = player.conversations.pop(job.game_key)
                    handle.write(json.dumps({"messages": messages}, ensure_ascii=False) + "\n")
        except OSError as error:
            raise CommandError(f"cannot write {options['out']}: {error.strerror}") from None
        self.stdout.write(
            f"{options['out']}: {len(tasks)} conversations ({len(rows)} stored instances, "
            f"{max(fresh, 0)} generated) for {domain.name}, {n_truths} truths / {n_actions} "
            "actions"
        )
