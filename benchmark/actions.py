"""Every write of the benchmark runner: creating, launching, playing and resuming runs.

The ``evaluate`` command, the admin, the API and the Celery task all go through here: the
``check_*`` functions validate a request, the ``do_*`` functions write. A run's progress is
in its :class:`~benchmark.models.EvaluationRun` row and its finished games in
:class:`~benchmark.models.EvaluationGame` rows; results files and leaderboard submissions
are built from those rows, so a run can be stopped at any point and resumed.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, F, Prefetch, Q, Sum
from django.utils import timezone
from tqdm import tqdm

from benchmark.jobs import LeaseKeeper, lease_until, requeue_stalled, worker_stopped
from benchmark.llm import ChatClient, LLMConfigError, LLMError
from benchmark.models import EvaluationGame, EvaluationRun
from benchmark.players import BUILT_IN_PLAYERS, ChatPlayer, Player, built_in_player
from benchmark.ranked import SessionGame, check_ranked_target, ranked_games_left, ranked_jobs
from benchmark.runner import Job, Limits, Outcome, iter_games
from engine import sessions
from engine.core.families.kumo.book import write_book
from engine.models import Domain, Instance, KnowledgeBook, PlaySession
from leaderboard import names as naming
from leaderboard.access import playable_instances
from leaderboard.actions import (
    SubmissionError,
    check_model_name,
    mark_stale,
    queue_recompute,
    submit_results,
)
from leaderboard.models import ModelEntry, Round, Trajectory, model_name_key
from leaderboard.ranked import max_open_games

logger = logging.getLogger(__name__)

# The key's variable must look like one: only variables named like API keys may be sent to
# a base URL chosen in the admin or the API, never e.g. SECRET_KEY or DATABASE_URL.
API_KEY_ENV = re.compile(r"^[A-Z][A-Z0-9_]*API_KEY$")
# Games buffered before they are written (and at least this often, in seconds).
FLUSH_GAMES, FLUSH_SECONDS = 50, 1.0


class RunError(Exception):
    """A run request refused, or a run that cannot go on; the message is for the user."""


@dataclass
class RunSpec:
    """What to evaluate: the settings of an :class:`EvaluationRun`, as requested."""

    model: str
    domains: Sequence[str]
    base_url: str = ""
    api_key_env: str = ""
    n_truths: int = 4
    n_actions: int = 6
    runs: int = 5
    concurrency: int = 8
    max_turns: int = 30
    max_parse_errors: int = 3
    timeout: float = 120.0
    seed: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    submit: bool = True
    ranked: bool = False


# -- checks ----------------------------------------------------------------------------------


def check_api_key_env(name: str) -> str:
    name = (name or "").strip()
    if name and not API_KEY_ENV.match(name):
        raise RunError(
            f"the API key variable must be an upper-case name ending in API_KEY (e.g. "
            f"OPENAI_API_KEY), got {name!r}; export the key under such a name"
        )
    return name


def check_run_spec(spec: RunSpec, *, created_by: User | None) -> list[Domain]:
    """Validate a run request; returns the domains. Raises :class:`RunError`."""
    problems: list[str] = []
    model = spec.model.strip()
    base_url = spec.base_url.strip()
    name_ok = True
    try:
        check_model_name(model)
    except SubmissionError as error:
        problems.append(str(error))
        name_ok = False
    if base_url:
        if not re.match(r"^https?://[^/\s]+\S*$", base_url):
            problems.append(f"the base URL must be an http:// or https:// URL, got {base_url!r}")
    elif model and model not in BUILT_IN_PLAYERS:
        problems.append(
            f"a base URL is required for model {model!r} (the built-in players, played without "
            f"one, are {', '.join(BUILT_IN_PLAYERS)})"
        )
    if spec.api_key_env and not base_url:
        problems.append("an API key variable only makes sense with a base URL")
    try:
        check_api_key_env(spec.api_key_env)
    except RunError as error:
        problems.append(str(error))
    for name, value, low, high in (
        ("truths", spec.n_truths, 1, 1000),
        ("actions", spec.n_actions, 1, 1000),
        ("runs", spec.runs, 1, 100),
        ("concurrency", spec.concurrency, 1, 256),
        ("max turns", spec.max_turns, 1, 1000),
        ("max parse errors", spec.max_parse_errors, 1, 1000),
    ):
        if not low <= value <= high:
            problems.append(f"{name} must be between {low} and {high}, got {value}")
    if not spec.timeout > 0:
        problems.append(f"the timeout must be positive, got {spec.timeout}")
    if not isinstance(spec.params, dict):
        problems.append("the request parameters must be a JSON object")
    elif {"model", "messages"} & set(spec.params):
        problems.append("the request parameters must not set 'model' or 'messages'")
    if spec.submit and created_by is None and not spec.ranked:
        problems.append("results are submitted in a user's name: name a user, or do not submit")
    if (spec.submit or spec.ranked) and name_ok and (base_url or model in BUILT_IN_PLAYERS):
        # The board entry the results will go to, checked before a game is played: a
        # built-in player's results only ever land in the platform's own baseline entry.
        try:
            naming.check_claim(
                model,
                user=created_by,
                kind=ModelEntry.Kind.MODEL if base_url else ModelEntry.Kind.BASELINE,
            )
        except naming.ModelNameError as error:
            problems.append(str(error))
    if spec.ranked:
        if created_by is None:
            problems.append("ranked games are played in a user's name: name a user")
        names = list(dict.fromkeys(name.strip() for name in spec.domains if name.strip()))
        if not names:
            problems.append("name at least one domain")
        target, ranked_problems = check_ranked_target(names, spec.n_truths, spec.n_actions)
        problems += ranked_problems
        if problems:
            raise RunError("\n".join(problems))
        return target.domains

    names = list(dict.fromkeys(name.strip() for name in spec.domains if name.strip()))
    domains = list(
        Domain.objects.filter(name__in=names)
        .annotate(
            matching=Count(
                "instances",
                filter=Q(
                    instances__in=playable_instances(),
                    instances__n_truths=spec.n_truths,
                    instances__n_actions=spec.n_actions,
                    instances__n_valid=1,
                ),
            )
        )
        .order_by("name")
    )
    if not names:
        problems.append("name at least one domain")
    found = {domain.name for domain in domains}
    unknown = [name for name in names if name not in found]
    if unknown:
        known = ", ".join(Domain.objects.values_list("name", flat=True)) or "none yet"
        problems.append(f"unknown domain(s): {', '.join(unknown)} (known: {known})")
    for domain in domains:
        if not domain.matching:
            problems.append(
                f"domain {domain.name!r} has no stored instances with {spec.n_truths} truths "
                f"and {spec.n_actions} actions (generate some with manage.py generate_tasks)"
            )
    if problems:
        raise RunError("\n".join(problems))
    return domains


# -- creating and launching ------------------------------------------------------------------


def do_create_run(spec: RunSpec, *, created_by: User | None, launch: bool = False) -> EvaluationRun:
    """Check and store a new run (status queued); with ``launch``, start it as a Celery job
    once the transaction commits (in-process when no broker is configured)."""
    domains = check_run_spec(spec, created_by=created_by)
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            model=spec.model.strip(),
            base_url=spec.base_url.strip(),
            api_key_env=spec.api_key_env.strip(),
            n_truths=spec.n_truths,
            n_actions=spec.n_actions,
            runs=spec.runs,
            concurrency=spec.concurrency,
            max_turns=spec.max_turns,
            max_parse_errors=spec.max_parse_errors,
            timeout=spec.timeout,
            seed=spec.seed,
            params=spec.params,
            submit=spec.submit and not spec.ranked,
            ranked=spec.ranked,
            created_by=created_by,
            total_games=(
                len(domains) * Round.objects.get(status=Round.Status.ACTIVE).ranked_games
                if spec.ranked
                else sum(domain.matching for domain in domains) * spec.runs
            ),
        )
        run.domains.set(domains)
        if launch:
            do_launch_run(run)
    return run


def do_launch_run(run: EvaluationRun) -> None:
    """Queue the Celery job that plays ``run`` (after the current transaction commits)."""
    from benchmark.tasks import run_evaluation_task

    run_id = run.pk
    transaction.on_commit(lambda: run_evaluation_task.delay(run_id))


def do_requeue_run(run: EvaluationRun, *, launch: bool = True) -> bool:
    """Put a failed run back in the queue to play its missing games (and submit).
    Returns whether it was requeued: only failed runs are."""
    changed = EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.FAILED).update(
        status=EvaluationRun.Status.QUEUED, attempts=0
    )
    if changed and launch:
        do_launch_run(run)
    return bool(changed)


def do_mark_failed(run: EvaluationRun, reason: str) -> bool:
    """Mark a run failed that is stuck as running (its worker died); it can then be resumed.
    Only use it when no process is playing the run any more."""
    changed = EvaluationRun.objects.filter(
        pk=run.pk, status__in=[EvaluationRun.Status.RUNNING, EvaluationRun.Status.QUEUED]
    ).update(status=EvaluationRun.Status.FAILED, error=reason, finished_at=timezone.now())
    return bool(changed)


def find_resumable_run(spec: RunSpec) -> EvaluationRun | None:
    """The newest run with the same player, setting, domains and game rules as ``spec``."""
    candidates = EvaluationRun.objects.filter(
        model=spec.model.strip(),
        base_url=spec.base_url.strip(),
        n_truths=spec.n_truths,
        n_actions=spec.n_actions,
        runs=spec.runs,
        max_turns=spec.max_turns,
        max_parse_errors=spec.max_parse_errors,
        seed=spec.seed,
        ranked=spec.ranked,
    ).prefetch_related("domains")
    wanted = {name.strip() for name in spec.domains if name.strip()}
    for run in candidates.order_by("-created_at", "-id"):
        if run.params == spec.params and {d.name for d in run.domains.all()} == wanted:
            return run
    return None


# -- playing ---------------------------------------------------------------------------------


def do_run_evaluation(
    run_id: int,
    *,
    out_path: str | Path | None = None,
    progress: bool = False,
    stop: threading.Event | None = None,
) -> EvaluationRun | None:
    """Play a queued run to the end, store every game, write ``out_path`` and submit.

    1. Claim the run with a conditional update (queued → running); if another worker got
       it first, return ``None`` and do nothing.
    2. List the (instance, run index) pairs and skip those with a stored game; with
       ``out_path``, first take in the games already in that file and append the stored
       games it lacks, so the file ends up holding the whole run.
    3. Play the rest on ``run.concurrency`` threads. Finished games are stored (and
       appended to the file) in batches from this thread only; the progress bar (stderr,
       ``progress``) and the run's counters follow them.
    4. A game whose API requests failed for good is not stored: it counts as failed and a
       resume plays it again. An error that would fail every game (a wrong key, model or
       URL) stops the run at once.
    5. With every game stored and ``run.submit``, submit one results file per domain to the
       leaderboard. The run ends ``done``, or ``failed`` with the reason in ``run.error``.
    """
    claimed = EvaluationRun.objects.filter(pk=run_id, status=EvaluationRun.Status.QUEUED).update(
        status=EvaluationRun.Status.RUNNING,
        started_at=timezone.now(),
        finished_at=None,
        error="",
        failed_games=0,
        attempts=F("attempts") + 1,
        lease_expires_at=_lease_end(),
    )
    if not claimed:
        return None
    run = EvaluationRun.objects.get(pk=run_id)
    session = _RunSession(run, out_path=out_path, progress=progress, stop=stop)
    with LeaseKeeper(
        EvaluationRun, run_id, settings.RUN_LEASE_SECONDS, status=EvaluationRun.Status.RUNNING
    ):
        try:
            session.play()
            session.finish()
        except BaseException as error:
            # Interrupted (Ctrl-C, a worker shutting down) or a bug: never leave it "running".
            session.abort(error)
            raise
    return run


def _lease_end():
    return lease_until(settings.RUN_LEASE_SECONDS)


def requeue_stalled_runs() -> list[int]:
    """Queue again every running run whose lease expired: its worker died (run by beat;
    ``benchmark.jobs.requeue_stalled``).

    The run resumes where its stored games end. A run that lost its worker
    RUN_MAX_ATTEMPTS times in a row fails with the reason, and can be resumed by hand.
    Claiming is a conditional update, so two beats at once queue a run once. Returns the
    ids queued again.
    """
    return requeue_stalled(
        EvaluationRun,
        queued_field=None,
        grace_seconds=settings.RUN_LEASE_SECONDS,
        max_attempts=settings.RUN_MAX_ATTEMPTS,
        failed=lambda tries: {
            "error": worker_stopped(tries, "resume the run to play the games left")
        },
        queue=lambda pk: do_launch_run(EvaluationRun.objects.get(pk=pk)),
        pending=EvaluationRun.Status.QUEUED,
    )


class _RunSession:
    """One attempt at playing a claimed run (the steps of :func:`do_run_evaluation`)."""

    def __init__(
        self,
        run: EvaluationRun,
        *,
        out_path: str | Path | None,
        progress: bool,
        stop: threading.Event | None,
    ) -> None:
        self.run = run
        self.out_path = Path(out_path) if out_path else None
        self.progress = progress
        self.stop = stop or threading.Event()
        self.buffer: list[tuple[EvaluationGame, dict[str, Any]]] = []
        self.last_flush = time.monotonic()
        self.errors: list[str] = []
        self.fatal: LLMError | None = None
        self.out: IO[str] | None = None

    # 1-2: what is left to play

    def _instances(self) -> list[Instance]:
        books = KnowledgeBook.objects.filter(passed_check=True).order_by("-created_at", "-id")
        # Never a ranked game's instance, nor one of a round that is not live yet.
        return list(
            playable_instances()
            .filter(
                domain__in=self.run.domains.all(),
                n_truths=self.run.n_truths,
                n_actions=self.run.n_actions,
                n_valid=1,
            )
            .select_related("domain")
            .prefetch_related(Prefetch("books", queryset=books, to_attr="checked_books"))
            .order_by("domain__name", "seed")
        )

    def play(self) -> None:
        if self.run.ranked:
            return self._play_ranked()
        run = self.run
        instances = self._instances()
        self.by_key = {(row.domain.name, row.seed): row for row in instances}
        if self.out_path is not None:
            self._sync_out_file()
        done = set(run.games.values_list("instance_id", "run_index"))
        self._recount(total=len(instances) * run.runs)
        cores: dict[str, Any] = {}
        jobs = []
        for index in range(run.runs):
            for row in instances:
                if (row.pk, index) in done:
                    continue
                domain = cores.get(row.domain.name) or cores.setdefault(
                    row.domain.name, row.domain.to_core()
                )
                core = row.to_core()
                book = row.checked_books[0].text if row.checked_books else write_book(domain, core)
                jobs.append(Job(row.domain.name, domain, core, book, index))
        try:
            player, client = _player_for(run)
        except LLMError as error:
            self.fatal = error
            return
        self._play_jobs(jobs, player, client, concurrency=run.concurrency)

    def _play_ranked(self) -> None:
        """Ranked mode: the model's ranked games of the live round, each started when the
        runner is ready for it and played through the session service (benchmark.ranked)."""
        run = self.run
        live = Round.objects.get(status=Round.Status.ACTIVE)
        user = run.created_by
        played = set(run.games.values_list("instance__domain__name", "run_index"))
        self._recount(total=ranked_games_left(run, live, played) + len(played))
        self.ranked_sessions: dict[str, int] = {}
        self.abandoned: list[int] = []
        jobs = ranked_jobs(
            run,
            user,
            played=played,
            sessions_by_key=self.ranked_sessions,
            abandoned=self.abandoned,
        )
        try:
            player, client = _player_for(run)
        except LLMError as error:
            self.fatal = error
            return
        # Games are started a few ahead of the threads: keep that within the open limit.
        concurrency = max(1, min(run.concurrency, max_open_games() // 2))
        self._play_jobs(
            jobs,
            player,
            client,
            concurrency=concurrency,
            new_game=lambda job: SessionGame(
                job.domain,
                job.instance,
                session_id=self.ranked_sessions[job.game_key],
                user=user,
            ),
        )

    def _play_jobs(self, jobs, player, client, *, concurrency: int, new_game=None) -> None:
        run = self.run
        if self.out_path is not None:
            self.out = self.out_path.open("a", encoding="utf-8")
        bar = tqdm(
            total=run.total_games,
            initial=run.finished_games,
            desc=f"{run.model} {run.n_truths}/{run.n_actions}",
            unit="game",
            file=sys.stderr,
            disable=not self.progress,
            dynamic_ncols=True,
        )
        limits = Limits(max_turns=run.max_turns, max_parse_errors=run.max_parse_errors)
        try:
            games = iter_games(
                jobs, player, limits, concurrency=concurrency, stop=self.stop, new_game=new_game
            )
            try:
                for outcome in games:
                    self._take(outcome)
                    bar.update(1)
                    bar.set_postfix(
                        correct=f"{run.correct_games}/{run.finished_games + len(self.buffer)}",
                        failed=run.failed_games,
                        refresh=False,
                    )
                    if self.fatal is not None:
                        break
            finally:
                games.close()
                self._flush()
        finally:
            bar.close()
            if client is not None:
                client.close()
            if self.out is not None:
                self.out.close()

    def _take(self, outcome: Outcome) -> None:
        run = self.run
        if outcome.error is not None:
            run.failed_games += 1
            message = f"{outcome.job.game_key}: {outcome.error}"
            if len(self.errors) < 5:
                self.errors.append(message)
            logger.warning("run %s: game failed: %s", run.pk, message)
            if outcome.error.fatal:
                self.fatal = outcome.error
            return
        record = outcome.record
        assert record is not None
        if run.ranked:
            row = self._take_ranked(outcome.job, record)
        else:
            row = self.by_key[(outcome.job.domain_name, outcome.job.instance.seed)]
        self.buffer.append((_game_row(run, row, record), record))
        run.correct_games += int(record["claimed"]["correct"])
        run.prompt_tokens += record["tokens"]["prompt"]
        run.completion_tokens += record["tokens"]["completion"]
        if len(self.buffer) >= FLUSH_GAMES or time.monotonic() - self.last_flush >= FLUSH_SECONDS:
            self._flush()

    def _take_ranked(self, job: Job, record: dict[str, Any]) -> Instance:
        """A ranked game played: end it if it ended without an answer (it counts as
        unsolved), and add to its verified trajectory what only the runner knows."""
        session_id = self.ranked_sessions.pop(job.game_key)
        session = PlaySession.objects.select_related("instance").get(pk=session_id)
        if not session.finished:
            sessions.abandon(session_id)
        tokens = record["tokens"]
        Trajectory.objects.filter(
            instance_id=session.instance_id, verified=True, submission__isnull=True
        ).update(
            parse_errors=record["parse_errors"],
            prompt_tokens=tokens["prompt"],
            completion_tokens=tokens["completion"],
        )
        self.ranked_changed = True
        return session.instance

    def _flush(self) -> None:
        """Store buffered games with the counters, then append them to the file (so the
        file never holds a game the database lacks)."""
        run = self.run
        with transaction.atomic():
            if self.buffer:
                EvaluationGame.objects.bulk_create([game for game, _ in self.buffer])
            run.finished_games += len(self.buffer)
            run.save(update_fields=[*_COUNTERS, "finished_games"])
        if self.out is not None and self.buffer:
            self.out.writelines(_line(record) for _, record in self.buffer)
            self.out.flush()
        self.buffer = []
        self.last_flush = time.monotonic()

    def _recount(self, *, total: int) -> None:
        """Counters from the stored games (a resumed run continues from them)."""
        run = self.run
        totals = run.games.aggregate(
            games=Count("id"),
            correct=Count("id", filter=Q(correct=True)),
            prompt=Sum("prompt_tokens"),
            completion=Sum("completion_tokens"),
        )
        run.total_games = total
        run.finished_games = run.games_at_start = totals["games"]
        run.correct_games = totals["correct"]
        run.prompt_tokens = totals["prompt"] or 0
        run.completion_tokens = totals["completion"] or 0
        run.failed_games = 0
        run.save(update_fields=[*_COUNTERS, "total_games", "finished_games", "games_at_start"])

    def _sync_out_file(self) -> None:
        """Take in the file's games the run lacks, then append the run's games it lacks."""
        assert self.out_path is not None
        run = self.run
        in_file: set[tuple[str, int, int]] = set()
        if self.out_path.exists():
            imported = []
            single = self.by_key and len({name for name, _ in self.by_key}) == 1
            default_domain = next(iter(self.by_key))[0] if single else None
            stored = set(
                run.games.values_list("instance__domain__name", "instance__seed", "run_index")
            )
            for number, record in _read_results(self.out_path):
                key = _record_key(record, default_domain, number)
                row = self.by_key.get(key[:2])
                if row is None:
                    raise RunError(
                        f"{self.out_path} line {number}: no instance of this run has domain "
                        f"{key[0]!r} and seed {key[1]}"
                    )
                in_file.add(key)
                if key not in stored:
                    record.setdefault("domain", key[0])
                    imported.append(_game_row(run, row, record))
                    stored.add(key)
            EvaluationGame.objects.bulk_create(imported)
            if imported:
                # Games read from a file were not played by this server: the run's results
                # can no longer be submitted as verified.
                run.games_from_file += len(imported)
                run.save(update_fields=["games_from_file"])
        missing = (
            run.games.select_related("instance__domain")
            .order_by("instance__domain__name", "instance__seed", "run_index")
            .iterator()
        )
        lines = [
            _line(game.record)
            for game in missing
            if (game.instance.domain.name, game.instance.seed, game.run_index) not in in_file
        ]
        if lines:
            with self.out_path.open("a", encoding="utf-8") as handle:
                handle.writelines(lines)

    # 5: the end

    def finish(self) -> None:
        run = self.run
        problems: list[str] = []
        if self.fatal is not None:
            problems.append(f"stopped: {self.fatal}")
        if run.failed_games:
            problems.append(
                f"{run.failed_games} game(s) failed on API errors; resume the run to play them "
                "again. First errors:\n" + "\n".join(self.errors)
            )
        if not problems and run.finished_games < run.total_games:
            problems.append(
                f"stopped with {run.total_games - run.finished_games} game(s) left to play"
            )
        if not problems and run.submit:
            problems += self._submit()
        if run.ranked and getattr(self, "ranked_changed", False):
            # Token counts and parse errors were added to the games' trajectories.
            model_id = ModelEntry.objects.get(name_key=model_name_key(run.model)).pk
            for domain_id in run.domains.values_list("pk", flat=True):
                mark_stale(model_id, domain_id, run.n_truths, run.n_actions)
            queue_recompute()
        run.status = EvaluationRun.Status.FAILED if problems else EvaluationRun.Status.DONE
        if getattr(self, "abandoned", None):
            # Not a failure: the games count, as unsolved; said so the operator knows.
            problems.append(
                f"{len(self.abandoned)} ranked game(s) left unfinished by an earlier attempt "
                "were ended as unsolved (a ranked game is never replayed)"
            )
        run.error = "\n".join(problems)
        run.finished_at = timezone.now()
        run.lease_expires_at = None
        run.save(
            update_fields=["status", "error", "finished_at", "submissions", "lease_expires_at"]
        )

    def _submit(self) -> list[str]:
        problems = []
        run = self.run
        run.submissions = []
        for domain in run.domains.order_by("name"):
            games = run.games.filter(instance__domain=domain).select_related("instance")
            records = [
                game.record for game in sorted(games, key=lambda g: (g.instance.seed, g.run_index))
            ]
            try:
                entry = submit_domain_results(run, domain, records)
            except SubmissionError as error:
                entry = {
                    "domain": domain.name,
                    "submission": None,
                    "status": "refused",
                    "errors": [str(error)],
                }
            run.submissions.append(entry)
            if entry["status"] in ("refused", "failed"):
                problems.append(
                    f"submission for {domain.name} {entry['status']}: "
                    + "; ".join(entry["errors"][:5])
                )
        return problems

    def abort(self, error: BaseException) -> None:
        run = self.run
        if isinstance(error, KeyboardInterrupt):
            reason = "interrupted"
        elif isinstance(error, RunError):
            reason = str(error)
        else:
            reason = f"crashed: {error!r}"
        EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.RUNNING).update(
            status=EvaluationRun.Status.FAILED,
            error=f"{reason}; resume the run to play the games left",
            finished_at=timezone.now(),
            lease_expires_at=None,
        )
        run.refresh_from_db()


_COUNTERS = ["correct_games", "failed_games", "prompt_tokens", "completion_tokens"]


def _player_for(run: EvaluationRun) -> tuple[Player, ChatClient | None]:
    if run.built_in:
        return built_in_player(run.model, seed=run.seed), None
    options = {"max_retries": 5, **getattr(settings, "BENCHMARK_LLM_OPTIONS", {})}
    client = ChatClient(
        run.base_url,
        run.model,
        run.api_key_env or None,
        timeout=run.timeout,
        max_connections=run.concurrency,
        **options,
    )
    return ChatPlayer(client, run.params), client


def _game_row(run: EvaluationRun, instance: Instance, record: dict[str, Any]) -> EvaluationGame:
    tokens = record.get("tokens") or {}
    claimed = record.get("claimed") or {}
    return EvaluationGame(
        run=run,
        instance=instance,
        run_index=record.get("run", 0),
        correct=bool(claimed.get("correct")),
        actions_taken=int(claimed.get("actions_taken") or len(record.get("actions") or [])),
        parse_errors=int(record.get("parse_errors") or 0),
        prompt_tokens=int(tokens.get("prompt") or 0),
        completion_tokens=int(tokens.get("completion") or 0),
        record=record,
    )


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


def _read_results(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """The records of a results file we wrote. A broken *last* line (the process was killed
    while writing it) is cut off; a broken line anywhere else is an error."""
    with path.open("r+", encoding="utf-8") as handle:
        lines = handle.readlines()
        records = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError("not an object")
            except ValueError:
                if number == len(lines):
                    handle.seek(0)
                    handle.truncate(sum(len(text.encode("utf-8")) for text in lines[:-1]))
                    break
                raise RunError(f"{path} line {number} is not a results record") from None
            records.append((number, record))
    return records


def _record_key(
    record: dict[str, Any], default_domain: str | None, number: int
) -> tuple[str, int, int]:
    domain = record.get("domain") or default_domain
    seed, index = record.get("seed"), record.get("run", 0)
    if not isinstance(domain, str) or not isinstance(seed, int) or not isinstance(index, int):
        raise RunError(f"line {number}: a results record needs 'domain', 'seed' and 'run'")
    for name in ("actions", "answer", "claimed"):
        if name not in record:
            raise RunError(f"line {number}: the results record has no {name!r}")
    return (domain, seed, index)


# -- submitting ------------------------------------------------------------------------------


def results_jsonl(records: Iterable[dict[str, Any]]) -> bytes:
    """A native results file (docs/results-format.md) holding ``records``."""
    return "".join(_line(record) for record in records).encode("utf-8")


def submit_domain_results(
    run: EvaluationRun, domain: Domain, records: list[dict[str, Any]]
) -> dict[str, Any]:
    """Submit one domain's games of ``run`` through the leaderboard's upload path.

    The one place that calls the leaderboard, so a change there is adapted here. Returns the
    entry kept in ``run.submissions``.
    """
    if run.created_by is None:
        raise SubmissionError("the run has no user to submit the results as")
    reasoning = any(turn.get("reasoning") for record in records for turn in record["turns"])
    accepted = submit_results(
        run.created_by,
        model=run.model,
        domain=domain.name,
        n_truths=run.n_truths,
        n_actions=run.n_actions,
        fmt="native",
        content=results_jsonl(records),
        metadata={
            "source": "benchmark runner",
            "evaluation_run": run.pk,
            "player": run.model if run.built_in else "chat-completions API",
            "runs": run.runs,
            "max_turns": run.max_turns,
            "max_parse_errors": run.max_parse_errors,
            "params": json.dumps(run.params, sort_keys=True) if run.params else "",
            # Only ever set to True: a model whose replies carried no reasoning may still be
            # a reasoning model behind an API that hides it.
            "reasoning": True if reasoning else None,
        },
        kind=ModelEntry.Kind.BASELINE if run.built_in else ModelEntry.Kind.MODEL,
        # The server played these games itself: the runner's results are verified, unless
        # some were taken in from a results file (``evaluate --resume --out``).
        verified=run.games_from_file == 0,
    )
    submission = getattr(accepted, "submission", accepted)
    return {
        "domain": domain.name,
        "submission": submission.pk,
        "status": submission.status,
        "errors": list(submission.errors or [])[:20],
    }


def check_player_config(spec: RunSpec) -> None:
    """Raise :class:`RunError` now if the API client cannot even be built in this process
    (e.g. the key variable is not set), rather than when the run starts."""
    if not spec.base_url.strip():
        return
    try:
        ChatClient(
            spec.base_url.strip(), spec.model.strip(), spec.api_key_env.strip() or None
        ).close()
    except LLMConfigError as error:
        raise RunError(str(error)) from None
