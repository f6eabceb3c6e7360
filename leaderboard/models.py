"""Leaderboard storage: submissions, re-scored trajectories and the cached board.

Pages and the API read only the cached tables (``BoardRow``, ``CorrelationRow``); they are
rebuilt by ``leaderboard.recompute`` from the trajectories, never on request.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from dateutil.relativedelta import relativedelta
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from engine.core.families.kumo.types import FAMILY_NAME as KUMO_FAMILY_NAME
from engine.models import Domain, Instance

# Model names: ASCII letters, digits and a few separators, starting with a letter or digit.
# ASCII only, so that a look-alike name (a Cyrillic "о", a non-breaking hyphen) cannot pass
# for someone else's model; no markup or formula characters (< > & " ' = , ;).
MODEL_NAME_MAX = 100
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._:/+()\[\]@-]*")
# The same rule as one regular expression (single spaces, none at the end), for the API
# schema: words of the allowed characters separated by single spaces.
MODEL_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/+()\[\]@-]*(?: [A-Za-z0-9._:/+()\[\]@-]+)*$"
MODEL_NAME_RULE = (
    "may hold only ASCII letters, digits, spaces (single) and . _ : / + ( ) [ ] @ -, "
    "and must start with a letter or digit"
)


def validate_model_name(name: str) -> None:
    """Raise ``ValidationError`` saying what is wrong with a model name (admin and API)."""
    if not name or not name.strip():
        raise ValidationError("the model name must not be empty")
    if len(name) > MODEL_NAME_MAX:
        raise ValidationError(f"the model name is longer than {MODEL_NAME_MAX} characters")
    if name != name.strip() or not MODEL_NAME.fullmatch(name) or "  " in name:
        raise ValidationError(f"the model name {name!r} {MODEL_NAME_RULE}")


def model_name_key(name: str) -> str:
    """The form in which two model names are the same name: Unicode NFKC normalisation and
    case folding (NFKC again after folding, as Unicode's NFKC_Casefold does), runs of white
    space as one space. ``ALPHA``, ``Alpha`` and ``alpha`` share a key; so would a
    full-width ``ａｌｐｈａ``, were such a name ever stored."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


class ModelEntryQuerySet(models.QuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        # ``save()`` is skipped here: fill each new row's key as ``save()`` would.
        objs = list(objs)
        for entry in objs:
            entry.name_key = model_name_key(entry.name)
        return super().bulk_create(objs, *args, **kwargs)


class ModelEntry(models.Model):
    """A player on the board: a language model, a built-in baseline or the human study.

    A language model belongs to the account that created it (``owner``): only that account
    (or staff) may upload results or play ranked games under its name. Baselines and the
    human study have no owner and are written by the platform only.
    """

    class Kind(models.TextChoices):
        MODEL = "model", "language model"
        BASELINE = "baseline", "built-in baseline"
        HUMAN = "human", "human study"

    name = models.CharField(max_length=200, unique=True, validators=[validate_model_name])
    # ``model_name_key(name)``, kept by ``save()``: names are unique in this form, so no one
    # can take ``ALPHA`` while ``alpha`` is someone else's (leaderboard.names).
    name_key = models.CharField(max_length=200, unique=True, editable=False)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.MODEL)
    provider = models.CharField(max_length=200, blank=True)
    parameter_count = models.BigIntegerField(null=True, blank=True)
    reasoning = models.BooleanField(null=True, blank=True)
    release_date = models.DateField(null=True, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="model_entries",
        help_text="The account that may submit and play under this name (staff may too). "
        "Change it to transfer the model.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ModelEntryQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = "model"

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.name_key = model_name_key(self.name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """The naming rules an admin form can check (leaderboard.names states them all):
        unique ignoring case and Unicode form; a reserved name only for the platform."""
        from leaderboard.names import reserved_names

        key = model_name_key(self.name or "")
        other = ModelEntry.objects.filter(name_key=key).exclude(pk=self.pk).first()
        if other is not None:
            raise ValidationError(
                {"name": f"the name is taken by the entry {other.name!r} (names ignore case)"}
            )
        platform_kind = reserved_names().get(key)
        if platform_kind is not None and (self.kind != platform_kind or self.owner_id):
            raise ValidationError(
                {
                    "name": f"{self.name!r} is reserved for the platform's "
                    f"{ModelEntry.Kind(platform_kind).label} (kind {platform_kind}, no owner)"
                }
            )

    @property
    def owner_label(self) -> str:
        """Who answers for this entry, as the board shows it: the owning account's
        username with its organisation (``leaderboard.names.owner_label``), or "platform"
        for the built-in baselines and the human study (and any entry no account owns,
        which only staff can write to). Lists select ``owner__account`` with the entry."""
        from leaderboard.names import owner_label

        if not self.owner_id:
            return PLATFORM_OWNER
        account = getattr(self.owner, "account", None)
        return owner_label(self.owner.username, account.organisation if account else "")


# The owner shown for entries no account owns: baselines, the human study.
PLATFORM_OWNER = "platform"


class ModelNameAllowance(models.Model):
    """How many model names one account may own, when staff raised it above
    ``settings.MODEL_NAMES_PER_ACCOUNT`` (leaderboard.names). Staff accounts have no cap."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="model_name_allowance"
    )
    names = models.PositiveIntegerField(
        help_text="model names this account may own (in place of the site's default cap)"
    )
    note = models.CharField(max_length=300, blank=True, help_text="why (for other staff)")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "model-name allowance"

    def __str__(self) -> str:
        return f"{self.user}: {self.names} model names"


# The family of a KUMO games' submission (the other families' files name theirs): the
# family's own name, as every entry point takes KUMO's games (engine.families.KUMO).
KUMO_FAMILY = KUMO_FAMILY_NAME


class Submission(models.Model):
    """An uploaded results file (or the runner's own, for KUMO's games), scored by a job
    with a lease (``leaderboard.actions.process_submission``).

    A file of KUMO's games covers one domain and setting and its games become
    ``Trajectory`` rows; a file of another task family (``family`` not ``kumo``) holds
    model replies to stored family tasks, re-scored by the family into ``FamilyReply``
    rows (``leaderboard.family_uploads``), and has no domain or setting.
    """

    class Format(models.TextChoices):
        NATIVE = "native", "native JSONL"
        KUMO = "kumo", "original KUMO results JSONL"
        FAMILY = "family", "family replies JSONL"
        LR2BENCH = "lr2bench", "LR²Bench output file"

    class Status(models.TextChoices):
        PENDING = "pending", "waiting to be processed"
        PROCESSING = "processing", "processing"
        DONE = "done", "scored"
        FAILED = "failed", "rejected"
        WITHDRAWN = "withdrawn", "withdrawn by its owner"

    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions"
    )
    model = models.ForeignKey(ModelEntry, on_delete=models.PROTECT, related_name="submissions")
    family = models.SlugField(max_length=50, default=KUMO_FAMILY)
    # KUMO's games only (null for the other families' files).
    domain = models.ForeignKey(
        Domain, on_delete=models.PROTECT, related_name="submissions", null=True, blank=True
    )
    n_truths = models.PositiveSmallIntegerField(null=True, blank=True)
    n_actions = models.PositiveSmallIntegerField(null=True, blank=True)
    # A family file whose lines do not name their kind and level (LR²Bench's
    # response.jsonl, written one file per type and level) takes them from the upload.
    kind = models.SlugField(max_length=50, blank=True)
    level = models.CharField(max_length=20, blank=True)
    format = models.CharField(max_length=10, choices=Format.choices)
    file = models.FileField(upload_to="submissions/%Y/%m/")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(default=0)
    metadata = models.JSONField(default=dict, blank=True)
    # True only for results the server played itself (the benchmark runner); an uploaded
    # file is re-scored but stays self-reported.
    verified = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    errors = models.JSONField(default=list, blank=True)
    trajectory_count = models.PositiveIntegerField(default=0)
    disagreements = models.PositiveIntegerField(default=0)
    # Repair mode, for files of a published release only (import_kumo_release --repair):
    # identical repeated records kept once, non-identical repeats and unreadable lines
    # skipped. ``repairs`` lists each one ({"line": n, "what": "..."}); rows built from a
    # repaired file are marked on the board.
    repair = models.BooleanField(default=False)
    repairs = models.JSONField(default=list, blank=True)
    # Scoring is a job with a lease (leaderboard.actions.process_submission): each try
    # takes the submission until ``lease_expires_at``; a try whose worker died is taken
    # over once the lease has expired (requeue_stalled_submissions, run by beat). On a
    # pending submission whose queued job was lost and queued again, it is the time before
    # which the sweep does not queue it once more.
    attempts = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Resubmitting the same file for the same model and setting is idempotent.
            models.UniqueConstraint(
                fields=["model", "domain", "n_truths", "n_actions", "format", "sha256", "verified"],
                name="unique_submission_content",
            ),
            models.UniqueConstraint(
                fields=["model", "family", "kind", "level", "format", "sha256", "verified"],
                condition=models.Q(domain__isnull=True),
                name="unique_family_submission_content",
            ),
            # A KUMO file has its domain and setting; any other family's has none.
            models.CheckConstraint(
                condition=(
                    models.Q(
                        family=KUMO_FAMILY,
                        domain__isnull=False,
                        n_truths__isnull=False,
                        n_actions__isnull=False,
                    )
                    | (
                        ~models.Q(family=KUMO_FAMILY)
                        & models.Q(domain__isnull=True, n_truths__isnull=True)
                        & models.Q(n_actions__isnull=True)
                    )
                ),
                name="submission_domain_only_for_kumo",
                violation_error_message="Only a file of KUMO's games has a domain and setting.",
            ),
        ]

    def __str__(self) -> str:
        if not self.is_kumo:
            return f"{self.model} on {self.family} ({self.status})"
        return (
            f"{self.model} on {self.domain.name} {self.n_truths}/{self.n_actions} ({self.status})"
        )

    @property
    def is_kumo(self) -> bool:
        return self.family == KUMO_FAMILY

    @property
    def scope(self) -> str:
        """What the file covers, for pages and the admin: a domain and setting, or a
        family (with the kind and level the upload named, if any)."""
        if self.is_kumo:
            return f"{self.domain.name} {self.n_truths}/{self.n_actions}"
        return "/".join(part for part in (self.family, self.kind, self.level) if part)


class Trajectory(models.Model):
    """One played game, re-scored by the server against the stored instance."""

    # Null for play the server recorded outside any file: ranked games, the human study.
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="trajectories", null=True
    )
    # Denormalised so that recomputing never joins through submissions.
    model = models.ForeignKey(ModelEntry, on_delete=models.CASCADE, related_name="trajectories")
    instance = models.ForeignKey(Instance, on_delete=models.PROTECT, related_name="+")
    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="+")
    n_truths = models.PositiveSmallIntegerField()
    n_actions = models.PositiveSmallIntegerField()
    run = models.PositiveIntegerField(default=0)
    line = models.PositiveIntegerField(default=0, help_text="line of the submitted file")
    actions = models.JSONField(default=list)
    # None: the run ended without an answer (a parse error), unlike an empty answer.
    answer = models.CharField(max_length=500, null=True, blank=True)  # noqa: DJ001
    # The server's verdict.
    correct = models.BooleanField()
    information_actions = models.PositiveIntegerField()
    invalid_moves = models.PositiveIntegerField(default=0)
    relative_action_count = models.FloatField()
    # What the file said, kept raw so any counting convention can be recomputed.
    raw_action_count = models.PositiveIntegerField(null=True, blank=True)
    claimed_correct = models.BooleanField(null=True, blank=True)
    claimed_actions = models.IntegerField(null=True, blank=True)
    disagrees = models.BooleanField(default=False)
    parse_errors = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    # False once a newer submission for the same model, domain and setting replaced it.
    active = models.BooleanField(default=True)
    # Recorded by the server itself (ranked games, the runner, the human study) or re-scored
    # from an uploaded file (self-reported); the board never ranks the two together.
    verified = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["model", "n_truths", "n_actions", "active"]),
            models.Index(fields=["submission"]),
        ]

    def __str__(self) -> str:
        return f"{self.model} seed={self.instance.seed} run={self.run}"


class FamilyReply(models.Model):
    """One model reply of an uploaded results file to a stored family task, re-scored by
    the server with the family's own ``parse_reply`` and ``score`` (never the file's
    verdict). Always self-reported: uploads never make verified rows."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="family_replies"
    )
    # Denormalised so that the board's recompute reads no join through submissions.
    model = models.ForeignKey(ModelEntry, on_delete=models.CASCADE, related_name="family_replies")
    task = models.ForeignKey("engine.FamilyTask", on_delete=models.PROTECT, related_name="+")
    family = models.SlugField(max_length=50)
    kind = models.SlugField(max_length=50)
    level = models.CharField(max_length=20, blank=True)
    run = models.PositiveIntegerField(default=0)
    line = models.PositiveIntegerField(default=0, help_text="line (or record) of the file")
    # The reply as sent; for a file of extracted answers (LR²Bench's submission.json),
    # the answer itself.
    reply = models.TextField(blank=True)
    # What the family read from the reply; empty with ``parse_error`` set when nothing.
    answer = models.TextField(blank=True)
    parse_error = models.CharField(max_length=500, blank=True)
    correct = models.BooleanField()
    value = models.FloatField()
    details = models.JSONField(default=dict, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    # False once a newer file of the same model replaced this (family, kind, level).
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["submission", "line", "run"]
        indexes = [
            models.Index(fields=["family", "kind", "level", "active"]),
            models.Index(fields=["model", "family", "kind", "level", "active"]),
        ]

    def __str__(self) -> str:
        return f"{self.model} on {self.family}/{self.kind} task {self.task_id} run {self.run}"


class ExternalBenchmark(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ExternalScore(models.Model):
    benchmark = models.ForeignKey(
        ExternalBenchmark, on_delete=models.CASCADE, related_name="scores"
    )
    model = models.ForeignKey(ModelEntry, on_delete=models.CASCADE, related_name="external_scores")
    score = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "model"], name="one_score_per_benchmark")
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.benchmark}: {self.score}"


class StaleGroup(models.Model):
    """A (model, domain, setting) whose board rows must be recomputed.

    Submissions add rows here; the recompute job claims and deletes them, so running it
    twice does no harm and a change arriving mid-run is kept for the next run.
    """

    model = models.ForeignKey(ModelEntry, on_delete=models.CASCADE, related_name="+")
    domain = models.ForeignKey(Domain, on_delete=models.CASCADE, related_name="+")
    n_truths = models.PositiveSmallIntegerField()
    n_actions = models.PositiveSmallIntegerField()
    marked_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["model", "domain", "n_truths", "n_actions"], name="unique_stale_group"
            )
        ]

    def __str__(self) -> str:
        setting = f"{self.n_truths}/{self.n_actions}"
        return f"stale: model {self.model_id}, domain {self.domain_id}, {setting}"


class BoardRow(models.Model):
    """Cached metrics of one model on one domain (or all domains: ``domain`` null).

    ``round`` null: every active trajectory, whichever instance it played (the board
    "across rounds"). ``round`` set: only trajectories on that round's pinned instances,
    so the row covers exactly the round's domains and settings.
    """

    model = models.ForeignKey(ModelEntry, on_delete=models.CASCADE, related_name="board_rows")
    domain = models.ForeignKey(Domain, on_delete=models.CASCADE, null=True, related_name="+")
    round = models.ForeignKey(
        "Round", on_delete=models.CASCADE, null=True, blank=True, related_name="board_rows"
    )
    # Built from verified trajectories only, or from self-reported ones only.
    verified = models.BooleanField(default=False)
    n_truths = models.PositiveSmallIntegerField()
    n_actions = models.PositiveSmallIntegerField()
    trajectories = models.PositiveIntegerField()
    instances = models.PositiveIntegerField()
    success_rate = models.FloatField()
    success_ci_low = models.FloatField()
    success_ci_high = models.FloatField()
    relative_action_count = models.FloatField()
    relative_ci_low = models.FloatField()
    relative_ci_high = models.FloatField()
    relative_action_count_successful = models.FloatField(null=True)
    # Mean over the row's instances of the optimal expected number of information actions:
    # how hard the instances were, so rows that played different instances compare fairly.
    mean_optimal_actions = models.FloatField(null=True)
    parse_error_rate = models.FloatField()
    mean_tokens = models.FloatField()
    disagreements = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["n_truths", "n_actions", "-success_rate"]
        constraints = [
            models.UniqueConstraint(
                fields=["model", "verified", "domain", "n_truths", "n_actions"],
                condition=models.Q(domain__isnull=False, round__isnull=True),
                name="unique_board_row_per_domain",
            ),
            models.UniqueConstraint(
                fields=["model", "verified", "n_truths", "n_actions"],
                condition=models.Q(domain__isnull=True, round__isnull=True),
                name="unique_board_row_all_domains",
            ),
            models.UniqueConstraint(
                fields=["round", "model", "verified", "domain", "n_truths", "n_actions"],
                condition=models.Q(domain__isnull=False, round__isnull=False),
                name="unique_round_board_row_per_domain",
            ),
            models.UniqueConstraint(
                fields=["round", "model", "verified", "n_truths", "n_actions"],
                condition=models.Q(domain__isnull=True, round__isnull=False),
                name="unique_round_board_row_all_domains",
            ),
        ]
        indexes = [
            models.Index(fields=["n_truths", "n_actions", "domain"]),
            models.Index(fields=["round", "n_truths", "n_actions", "domain"]),
        ]

    def __str__(self) -> str:
        scope = f"domain {self.domain_id}" if self.domain_id else "all domains"
        return f"{self.model_id} on {scope}, {self.n_truths}/{self.n_actions}"


class CorrelationRow(models.Model):
    """Cached Pearson correlation across models between a KUMO metric and a benchmark."""

    benchmark = models.ForeignKey(ExternalBenchmark, on_delete=models.CASCADE, related_name="+")
    n_truths = models.PositiveSmallIntegerField()
    n_actions = models.PositiveSmallIntegerField()
    metric = models.CharField(max_length=40)
    models_count = models.PositiveIntegerField()
    r = models.FloatField(null=True)
    p_value = models.FloatField(null=True)
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["n_truths", "n_actions", "benchmark__name", "metric"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "n_truths", "n_actions", "metric"], name="unique_correlation"
            )
        ]

    def __str__(self) -> str:
        return f"{self.metric} vs benchmark {self.benchmark_id}, {self.n_truths}/{self.n_actions}"


def two_months_after(day: date) -> date:
    """The default end of a round: the same day two calendar months later (31 Dec → 28/29 Feb)."""
    return day + relativedelta(months=2)


class Round(models.Model):
    """A public round: the domains, settings and pinned instances the board is scored on.

    Life cycle: ``draft`` (created, preparation queued) → ``preparing`` (a job generates
    the instances) → ``prepared`` → ``active`` (at most one) → ``closed``; a preparation
    that fails ends ``failed`` and may be queued again. Writes go through
    ``leaderboard.rounds``.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", "draft (preparation queued)"
        PREPARING = "preparing", "preparing"
        PREPARED = "prepared", "prepared"
        ACTIVE = "active", "active"
        CLOSED = "closed", "closed"
        FAILED = "failed", "preparation failed"

    name = models.SlugField(max_length=50, unique=True, help_text="e.g. 2025-03")
    domains = models.ManyToManyField(Domain, related_name="rounds")
    # [[n_truths, n_actions], ...] in the order given, e.g. [[4, 6], [12, 16]].
    task_settings = models.JSONField("settings", default=list)
    instances_per_setting = models.PositiveIntegerField(
        help_text="Instances per domain and setting, seeds seed … seed + count - 1."
    )
    seed = models.BigIntegerField()
    instances = models.ManyToManyField(
        Instance, through="RoundInstance", related_name="rounds", blank=True
    )
    ranked_games = models.PositiveIntegerField(
        default=20,
        help_text="Ranked games each model plays per domain and setting while the round is "
        "live, each on an instance generated for that game alone.",
    )
    starts_on = models.DateField()
    ends_on = models.DateField(
        help_text="The date of the next rotation while this round is active."
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    # Preparation progress: instances stored and pinned so far, out of the total.
    # Tasks of the other families: [{"family", "kind", "level", "count"}, …].
    family_specs = models.JSONField("family tasks", default=list, blank=True)
    total_instances = models.PositiveIntegerField(default=0)
    prepared_instances = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # Preparation is a job with a lease (benchmark.jobs): a preparation whose worker died
    # is queued again once its lease expires, up to ROUND_MAX_ATTEMPTS tries. On a draft
    # whose queued job was lost and queued again, it is the time before which the sweep does
    # not queue it once more.
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    preparation_started_at = models.DateTimeField(null=True, blank=True)
    prepared_at = models.DateTimeField(null=True, blank=True)
    activated_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # Set only on a closed round: its instances (with the valid truths) are downloadable.
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_on", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["status"],
                condition=models.Q(status="active"),
                name="one_active_round",
                violation_error_message="Another round is already active.",
            ),
            models.CheckConstraint(
                condition=models.Q(ends_on__gt=models.F("starts_on")),
                name="round_ends_after_start",
                violation_error_message="A round must end after it starts.",
            ),
            models.CheckConstraint(
                condition=models.Q(published_at__isnull=True) | models.Q(status="closed"),
                name="only_closed_rounds_are_published",
                violation_error_message="Only a closed round can be published.",
            ),
        ]

    def __str__(self) -> str:
        return f"round {self.name} ({self.status})"

    @property
    def setting_pairs(self) -> list[tuple[int, int]]:
        return [(int(t), int(a)) for t, a in self.task_settings]

    @property
    def settings_label(self) -> str:
        return ", ".join(f"{t}/{a}" for t, a in self.setting_pairs)

    def kumo_cells(self) -> list[tuple[str, int, int]]:
        """Every (domain, truths, actions) of the round's KUMO games: its domains × settings,
        then its ``kumo/DOMAIN/LEVEL`` family tasks (one query)."""
        names = self.domains.order_by("name").values_list("name", flat=True)
        cells = [(name, t, a) for name in names for t, a in self.setting_pairs]
        for entry in self.family_specs:
            if entry["family"] == KUMO_FAMILY:
                cell = (entry["kind"], int(entry["truths"]), int(entry["actions"]))
                if cell not in cells:
                    cells.append(cell)
        return cells

    def kumo_settings(
        self, cells: list[tuple[str, int, int]] | None = None
    ) -> list[tuple[int, int]]:
        """The settings of the round's KUMO games (of ``cells``, its ``kumo_cells`` already
        read), each once, in the round's order."""
        cells = self.kumo_cells() if cells is None else cells
        return list(dict.fromkeys((t, a) for _name, t, a in cells))

    @property
    def published(self) -> bool:
        return self.status == self.Status.CLOSED and self.published_at is not None

    @property
    def public(self) -> bool:
        return self.status in (self.Status.ACTIVE, self.Status.CLOSED)

    @property
    def progress(self) -> float:
        return self.prepared_instances / self.total_instances if self.total_instances else 0.0

    # The dates a round really ran: a rotation may come early or late, so the planned
    # starts_on/ends_on alone mislead once it has happened.
    @property
    def ran_from(self):
        return timezone.localdate(self.activated_at) if self.activated_at else self.starts_on

    @property
    def ran_until(self):
        """The day it closed, or for a live round the planned next rotation."""
        return timezone.localdate(self.closed_at) if self.closed_at else self.ends_on

    @property
    def dates_moved(self) -> bool:
        """Whether it started or closed on another day than planned."""
        closed_off = self.closed_at is not None and self.ran_until != self.ends_on
        return closed_off or (self.activated_at is not None and self.ran_from != self.starts_on)


class RoundInstance(models.Model):
    """An instance pinned to a round. An instance belongs to at most one round, so a
    published instance can never come back in a later round."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pins")
    instance = models.ForeignKey(Instance, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["instance"], name="one_round_per_instance")]
        indexes = [models.Index(fields=["round", "instance"])]

    def __str__(self) -> str:
        return f"instance {self.instance_id} in round {self.round_id}"


class RoundFamilyTask(models.Model):
    """A task of another family (simple reasoning, constraint puzzles…) pinned to a round:
    hidden until the round goes live, its answers secret until the round's tasks are
    published, and never in another round."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="family_pins")
    task = models.ForeignKey("engine.FamilyTask", on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["task"], name="one_round_per_family_task")]

    def __str__(self) -> str:
        return f"family task {self.task_id} in round {self.round_id}"


class RotationNotice(models.Model):
    """What the daily rotation check found: a warning for the admins, or an automatic
    rotation. One per (round, kind, day), so a check run twice mails once."""

    class Kind(models.TextChoices):
        DUE_SOON = "due_soon", "rotation due soon, no round prepared"
        OVERDUE = "overdue", "rotation due, no round prepared"
        WAITING = "waiting", "rotation due, prepared round waiting"
        ROTATED = "rotated", "rotated automatically"

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    day = models.DateField()
    message = models.TextField()
    mailed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "kind", "day"], name="one_notice_per_day")
        ]

    def __str__(self) -> str:
        return f"{self.day}: {self.get_kind_display()} ({self.round.name})"


class RankedGame(models.Model):
    """One ranked game of a live round: a fresh instance, generated with a secret seed for
    this game alone, played by one model through the session service (leaderboard.ranked).

    Each model has ``round.ranked_games`` of them per domain and setting, numbered from 1;
    a game is never replayed. Its answer and unplayed observations stay secret until the
    round closes.
    """

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="ranked_games_played")
    model = models.ForeignKey(ModelEntry, on_delete=models.PROTECT, related_name="ranked_games")
    domain = models.ForeignKey(Domain, on_delete=models.PROTECT, related_name="+")
    n_truths = models.PositiveSmallIntegerField()
    n_actions = models.PositiveSmallIntegerField()
    number = models.PositiveIntegerField(help_text="1 … the round's ranked games")
    instance = models.OneToOneField(Instance, on_delete=models.PROTECT, related_name="ranked_game")
    session = models.OneToOneField(
        "engine.PlaySession", on_delete=models.PROTECT, related_name="ranked_game"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "model", "domain", "n_truths", "n_actions", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "model", "domain", "n_truths", "n_actions", "number"],
                name="one_ranked_game_per_number",
            )
        ]

    def __str__(self) -> str:
        return (
            f"ranked game {self.number} of {self.model} on {self.domain.name} "
            f"{self.n_truths}/{self.n_actions} ({self.round.name})"
        )


class RankedFamilyAttempt(models.Model):
    """One ranked attempt of a live round at a task of a family other than KUMO's games
    (leaderboard.ranked_families): a task generated with a secret seed for this attempt
    alone, played by one model through the family attempt service.

    Each model has ``round.ranked_games`` of them per (family, kind, level), numbered from
    1; an attempt is never replayed, and one left unfinished when the round closes counts
    as failed. Its score is told to its player at once, the reference only after the round
    closes.
    """

    round = models.ForeignKey(
        Round, on_delete=models.PROTECT, related_name="ranked_family_attempts"
    )
    model = models.ForeignKey(
        ModelEntry, on_delete=models.PROTECT, related_name="ranked_family_attempts"
    )
    family = models.SlugField(max_length=50)
    kind = models.SlugField(max_length=50)
    level = models.CharField(max_length=20)
    number = models.PositiveIntegerField(help_text="1 … the round's ranked games")
    task = models.OneToOneField(
        "engine.FamilyTask", on_delete=models.PROTECT, related_name="ranked_attempt"
    )
    attempt = models.OneToOneField(
        "engine.FamilyAttempt", on_delete=models.PROTECT, related_name="ranked"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "model", "family", "kind", "level", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "model", "family", "kind", "level", "number"],
                name="one_ranked_family_attempt_per_number",
            )
        ]

    def __str__(self) -> str:
        return (
            f"ranked attempt {self.number} of {self.model} on {self.family}/{self.kind}/"
            f"{self.level} ({self.round.name})"
        )


class FamilyStaleGroup(models.Model):
    """A (family, kind, level) of the task families whose board rows must be recomputed.

    Written where an attempt finishes (``engine.families``, the runner) and where a round
    closes or publishes its tasks; the recompute job claims and deletes the marks it saw
    (``leaderboard.family_recompute``), as ``StaleGroup`` for KUMO's rows.
    """

    family = models.SlugField(max_length=50)
    kind = models.SlugField(max_length=50)
    level = models.CharField(max_length=20, blank=True)
    marked_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["family", "kind", "level"], name="unique_family_stale_group"
            )
        ]

    def __str__(self) -> str:
        return f"{self.family}/{self.kind}/{self.level or 'custom'} (marked {self.marked_at:%c})"


class FamilyBoardRow(models.Model):
    """Cached figures of one player on one (family, kind, level) of the task families.

    Built by the recompute (``leaderboard.family_recompute``) from the attempts the board
    counts: ``round`` null, every counted attempt; ``round`` set, only a closed round's
    (its ranked attempts, and its pinned tasks once published). Verified rows come from the
    runner, ranked attempts and the study's analysis sample ("People"); visitors' and
    accounts' own play is one unverified practice row per group, and a model's uploaded
    replies (``FamilyReply``) one unverified self-reported row (across rounds only).
    """

    class PlayerKind(models.TextChoices):
        MODEL = "model", "model"
        BASELINE = "baseline", "built-in baseline"
        PEOPLE = "people", "study participants (analysis sample)"
        PRACTICE = "practice", "visitors' and accounts' practice (unverified)"
        SELF_REPORTED = "reported", "self-reported (uploaded results file, re-scored)"

    family = models.SlugField(max_length=50)
    kind = models.SlugField(max_length=50)
    level = models.CharField(max_length=20, blank=True)
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, null=True, blank=True, related_name="family_board_rows"
    )
    player = models.CharField(max_length=200)
    player_kind = models.CharField(max_length=10, choices=PlayerKind.choices)
    model = models.ForeignKey(
        ModelEntry,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="family_board_rows",
    )
    verified = models.BooleanField()
    attempts = models.PositiveIntegerField()
    correct = models.PositiveIntegerField()
    success_rate = models.FloatField()
    ci_low = models.FloatField()
    ci_high = models.FloatField()
    mean_value = models.FloatField()
    parse_error_rate = models.FloatField()
    mean_tokens = models.FloatField()
    # LR²Bench's figures (families scored by subtasks; null elsewhere).
    cr = models.FloatField(null=True)
    cr_low = models.FloatField(null=True)
    cr_high = models.FloatField(null=True)
    s_acc = models.FloatField(null=True)
    s_acc_low = models.FloatField(null=True)
    s_acc_high = models.FloatField(null=True)
    em = models.FloatField(null=True)
    pm05 = models.FloatField(null=True)
    pm05_low = models.FloatField(null=True)
    pm05_high = models.FloatField(null=True)
    # The games: the mean of the game's own score (points for a count-scored game, else the
    # value), which KORGym's dimension table normalises across players.
    mean_points = models.FloatField(null=True)
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["family", "kind", "level", "-success_rate", "player"]
        indexes = [models.Index(fields=["round", "verified", "family", "kind"])]
        constraints = [
            models.UniqueConstraint(
                fields=["family", "kind", "level", "player", "verified"],
                condition=models.Q(round__isnull=True),
                name="unique_family_board_row",
            ),
            models.UniqueConstraint(
                fields=["round", "family", "kind", "level", "player", "verified"],
                condition=models.Q(round__isnull=False),
                name="unique_round_family_board_row",
            ),
        ]

    def __str__(self) -> str:
        where = f" (round {self.round_id})" if self.round_id else ""
        return f"{self.player} on {self.family}/{self.kind}/{self.level or 'custom'}{where}"
