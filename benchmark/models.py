"""Evaluation runs: a player against every stored instance of some domains, several times.

The database holds the truth about a run: its settings, its status and progress counters,
and every finished game (:class:`EvaluationGame`, holding the native results record). A run
is resumed by playing only the (instance, run index) pairs it has no game for yet, and its
results files and leaderboard submissions are built from its stored games.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from engine.models import Domain, Instance


class EvaluationRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    model = models.CharField(
        max_length=200,
        help_text="The model name sent to the API and shown on the leaderboard; without a base "
        "URL one of the built-in players: oracle, random, greedy.",
    )
    base_url = models.CharField(
        "base URL",
        max_length=500,
        blank=True,
        help_text="OpenAI-compatible API base, e.g. https://api.openai.com/v1 (requests go to "
        "{base}/chat/completions). Leave blank for a built-in player.",
    )
    api_key_env = models.CharField(
        "API key variable",
        max_length=100,
        blank=True,
        help_text="Name of the environment variable (of the worker) holding the API key, "
        "ending in API_KEY. The key itself is never stored.",
    )
    domains = models.ManyToManyField(Domain, related_name="evaluation_runs")
    n_truths = models.PositiveSmallIntegerField("truths", default=4)
    n_actions = models.PositiveSmallIntegerField("actions", default=6)
    runs = models.PositiveSmallIntegerField(default=5, help_text="Games per instance.")
    concurrency = models.PositiveSmallIntegerField(default=8, help_text="Games played at once.")
    max_turns = models.PositiveSmallIntegerField(default=30)
    max_parse_errors = models.PositiveSmallIntegerField(
        default=3, help_text="Unreadable replies after which a game ends without an answer."
    )
    timeout = models.FloatField(default=120.0, help_text="Seconds to wait for one API reply.")
    seed = models.BigIntegerField(default=0, help_text="Seed of the random player.")
    params = models.JSONField(
        default=dict,
        blank=True,
        help_text='Extra request parameters, e.g. {"temperature": 0, "max_tokens": 4096}.',
    )
    submit = models.BooleanField(
        default=True, help_text="Submit the results to the leaderboard when the run is done."
    )
    ranked = models.BooleanField(
        default=False,
        help_text="Play the model's ranked games of the live round (each on a fresh "
        "instance, through the session service) instead of the stored instances; the games "
        "enter the board as verified as they end, so nothing is submitted.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="evaluation_runs",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # Progress, kept up to date while the run plays (the progress page polls it).
    total_games = models.PositiveIntegerField(default=0)
    finished_games = models.PositiveIntegerField(default=0)
    correct_games = models.PositiveIntegerField(default=0)
    failed_games = models.PositiveIntegerField(
        default=0, help_text="Games stopped by API errors; resuming the run plays them again."
    )
    # Games already stored when the current attempt started (for the rate and the ETA).
    games_at_start = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    # Games taken in from a results file (``evaluate --resume --out``) rather than played
    # here: a run with any is submitted as self-reported, not verified.
    games_from_file = models.PositiveIntegerField(default=0)
    # One entry per domain: {"domain", "submission", "status", "errors"}.
    submissions = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A running run holds a lease that its worker renews while it plays
    # (benchmark.actions.do_run_evaluation); a run whose lease expired lost its worker and
    # is queued again to play the games left (requeue_stalled_runs, run by beat), up to
    # RUN_MAX_ATTEMPTS tries in a row.
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.model} {self.n_truths}/{self.n_actions} ({self.status})"

    @property
    def built_in(self) -> bool:
        return not self.base_url

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def progress(self) -> float:
        return self.finished_games / self.total_games if self.total_games else 0.0

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the pace of the current attempt, or ``None`` if unknown."""
        if self.status != self.Status.RUNNING or self.started_at is None:
            return None
        played = self.finished_games - self.games_at_start
        if played <= 0:
            return None
        elapsed = (timezone.now() - self.started_at).total_seconds()
        return elapsed / played * max(0, self.total_games - self.finished_games)


class EvaluationGame(models.Model):
    """One finished game of a run; ``record`` is its line of the native results file."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="games")
    instance = models.ForeignKey(Instance, on_delete=models.PROTECT, related_name="+")
    run_index = models.PositiveSmallIntegerField()
    correct = models.BooleanField()
    actions_taken = models.PositiveSmallIntegerField()
    parse_errors = models.PositiveSmallIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    record = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "instance", "run_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "instance", "run_index"], name="one_game_per_run_instance_index"
            )
        ]

    def __str__(self) -> str:
        return f"game {self.run_index} of {self.instance} in run {self.run_id}"


class Account(models.Model):
    """What the platform keeps about a person's account beyond Django's ``User``: the
    organisation it answers for (shown with its username as the owner of its model names)
    and, for an account made by self-service sign-up, whether its e-mail address is
    confirmed (``benchmark.accounts``).

    Accounts made by an operator (``create_api_token``, the admin) have no row, or one with
    ``signed_up_at`` empty: the operator vouches for them, so they need no confirmation.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account"
    )
    organisation = models.CharField(
        max_length=100,
        blank=True,
        help_text="The lab, company or group the account answers for; shown beside its "
        "username as the owner of its model names.",
    )
    # Set when the account was made by the sign-up page; empty for operator-made accounts.
    signed_up_at = models.DateTimeField(null=True, blank=True)
    # A keyed hash of the sign-up's client address: enough to count sign-ups, not to find
    # anyone (as the study's joins, humanstudy.path.address_key).
    signed_up_from = models.CharField(max_length=64, blank=True, db_index=True)
    email_confirmed_at = models.DateTimeField(null=True, blank=True)
    # When the last password-reset mail went to the account: one per
    # PASSWORD_RESET_MINUTES at most, so the reset form cannot flood an address.
    reset_mailed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"account {self.user}"

    @property
    def confirmed(self) -> bool:
        return self.signed_up_at is None or self.email_confirmed_at is not None
