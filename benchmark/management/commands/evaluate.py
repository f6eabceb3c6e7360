from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchmark import actions
from benchmark.actions import RunError, RunSpec
from benchmark.models import EvaluationRun
from benchmark.players import BUILT_IN_PLAYERS


class Command(BaseCommand):
    help = (
        "Play every stored instance of the chosen domains and setting --runs times against a "
        "model behind an OpenAI-compatible chat-completions API (POST {base}/chat/completions), "
        "or against a built-in player (--model oracle|random|greedy without --base-url). "
        "Results are stored as an evaluation run, optionally written as native JSONL (--out) "
        "and submitted to the leaderboard, one submission per domain, unless --no-submit."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--model",
            required=True,
            help="model name sent to the API and shown on the board; without --base-url one "
            f"of the built-in players: {', '.join(BUILT_IN_PLAYERS)}",
        )
        parser.add_argument("--base-url", default="", help="API base, e.g. https://host/v1")
        parser.add_argument(
            "--api-key-env",
            default="",
            help="name of the environment variable holding the API key (e.g. OPENAI_API_KEY); "
            "the key itself is never stored",
        )
        parser.add_argument("--domains", required=True, help="comma-separated domain names")
        parser.add_argument("--truths", type=int, default=4, help="truths per task (default 4)")
        parser.add_argument("--actions", type=int, default=6, help="actions per task (default 6)")
        parser.add_argument("--runs", type=int, default=5, help="games per instance (default 5)")
        parser.add_argument("--concurrency", type=int, default=8, help="games at once (8)")
        parser.add_argument("--max-turns", type=int, default=30, help="replies per game (30)")
        parser.add_argument(
            "--max-parse-errors",
            type=int,
            default=3,
            help="unreadable replies after which a game ends without an answer (3)",
        )
        parser.add_argument(
            "--timeout", type=float, default=120.0, help="seconds to wait for one reply (120)"
        )
        parser.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="extra request parameter, VALUE read as JSON when it parses "
            "(e.g. --param temperature=0 --param max_tokens=4096); repeatable",
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the random player")
        parser.add_argument(
            "--resume",
            action="store_true",
            help="continue the newest run with the same model, setting, domains and rules, "
            "and/or the --out file: (instance, run) pairs already played are skipped",
        )
        parser.add_argument("--out", help="also write the results as native JSONL to this file")
        parser.add_argument(
            "--no-submit", action="store_true", help="do not submit to the leaderboard"
        )
        parser.add_argument(
            "--ranked",
            action="store_true",
            help="play the model's ranked games of the live round instead of the stored "
            "instances: each game on an instance generated for it alone, every move through "
            "the session service, each result a verified board entry (--runs and --no-submit "
            "do not apply; the round sets the number of games)",
        )
        parser.add_argument(
            "--user",
            help="submit in this user's name (default: the oldest active superuser)",
        )

    def handle(self, *args, **options) -> None:
        spec = RunSpec(
            model=options["model"],
            domains=[name for name in options["domains"].split(",") if name.strip()],
            base_url=options["base_url"],
            api_key_env=options["api_key_env"],
            n_truths=options["truths"],
            n_actions=options["actions"],
            runs=options["runs"],
            concurrency=options["concurrency"],
            max_turns=options["max_turns"],
            max_parse_errors=options["max_parse_errors"],
            timeout=options["timeout"],
            seed=options["seed"],
            params=_params(options["param"]),
            submit=not options["no_submit"] and not options["ranked"],
            ranked=options["ranked"],
        )
        user = _user(options["user"], needed=spec.submit or spec.ranked)
        out = options["out"]
        if out and not options["resume"] and Path(out).exists() and Path(out).stat().st_size:
            raise CommandError(f"{out} already exists: pass --resume to continue it, or remove it")

        try:
            actions.check_run_spec(spec, created_by=user)
            actions.check_player_config(spec)
            run = self._run_for(spec, user, resume=options["resume"])
            actions.do_run_evaluation(run.pk, out_path=out, progress=True)
        except RunError as error:
            raise CommandError(str(error)) from None
        run.refresh_from_db()
        self._report(run)
        if run.status != EvaluationRun.Status.DONE:
            raise CommandError(f"run {run.pk} failed:\n{run.error}")

    def _run_for(self, spec: RunSpec, user: User | None, *, resume: bool) -> EvaluationRun:
        if resume:
            run = actions.find_resumable_run(spec)
            if run is not None:
                if run.status == EvaluationRun.Status.RUNNING:
                    raise RunError(
                        f"run {run.pk} is still marked running; if no process plays it any more, "
                        "mark it failed in the admin and resume again"
                    )
                if run.status == EvaluationRun.Status.DONE:
                    raise RunError(f"run {run.pk} is already done: nothing to resume")
                actions.check_run_spec(spec, created_by=user)
                # Settings that do not change the games follow the new command line.
                run.concurrency, run.timeout, run.submit = (
                    spec.concurrency,
                    spec.timeout,
                    spec.submit,
                )
                run.api_key_env = actions.check_api_key_env(spec.api_key_env)
                run.created_by = run.created_by or user
                run.save(
                    update_fields=["concurrency", "timeout", "submit", "api_key_env", "created_by"]
                )
                actions.do_requeue_run(run, launch=False)
                self.stderr.write(f"Resuming run {run.pk} ({run.finished_games} games stored).")
                return run
            self.stderr.write("No earlier run with these settings: starting a new one.")
        return actions.do_create_run(spec, created_by=user)

    def _report(self, run: EvaluationRun) -> None:
        games = run.games.select_related("instance__domain")
        per_domain: dict[str, list] = {}
        for game in games:
            per_domain.setdefault(game.instance.domain.name, []).append(game)
        self.stdout.write(
            f"Run {run.pk}: {run.model}, {run.n_truths} truths / {run.n_actions} "
            f"actions, {run.status}"
        )
        for name, rows in sorted(per_domain.items()):
            count = len(rows)
            correct = sum(row.correct for row in rows)
            self.stdout.write(
                f"  {name}: {count} games, success {correct / count:.1%}, "
                f"mean actions {sum(row.actions_taken for row in rows) / count:.2f}, "
                f"parse errors {sum(row.parse_errors for row in rows)}, tokens "
                f"{sum(row.prompt_tokens + row.completion_tokens for row in rows) / count:.0f}"
                "/game"
            )
        for entry in run.submissions:
            self.stdout.write(
                f"  submitted {entry['domain']}: submission {entry['submission']} "
                f"({entry['status']})"
            )


def _params(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"--param takes KEY=VALUE, got {pair!r}")
        try:
            params[key.strip()] = json.loads(value)
        except ValueError:
            params[key.strip()] = value
    return params


def _user(username: str | None, *, needed: bool) -> User | None:
    if username:
        try:
            return User.objects.get(username=username)
        except User.DoesNotExist:
            raise CommandError(f"no user {username!r}") from None
    user = User.objects.filter(is_superuser=True, is_active=True).order_by("id").first()
    if user is None and needed:
        raise CommandError(
            "submitting needs a user: pass --user NAME (or create a superuser), or --no-submit"
        )
    return user
