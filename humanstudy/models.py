"""The human study: participants, task sets, quality thresholds.

Participants play through the engine's ``PlaySession`` like every other player; this app
only decides *what* they play (a task set) and what their play is worth (pay, quality).
"""

from __future__ import annotations

import re
import secrets
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from engine.models import Instance


def new_key() -> str:
    return secrets.token_urlsafe(24)


DEFAULT_CONSENT = """\
You are invited to take part in a study of how people reason. You will solve short
puzzles: in each, several explanations are possible and exactly one is true; you take
actions to learn more and name the true one using as few actions as you can.

Taking part takes about 30–45 minutes. You are paid a base amount plus a bonus for
puzzles solved, minus a small amount per action, as shown on your task page. You may stop
at any time; data of unfinished participation is kept only to pay you and is not analysed.

Your answers are stored under a study ID, not your name. Please work alone and do not use
search engines, chatbots or other help: we measure your own reasoning.
"""


def validate_pattern(value: str) -> None:
    try:
        re.compile(value)
    except re.error as error:
        raise ValidationError(f"not a regular expression: {error}") from None


def format_money(amount, currency: str) -> str:
    """``25.00 GBP`` for a currency code (letters), ``£25.00`` for a symbol."""
    number = f"{Decimal(str(amount)):.2f}"
    currency = (currency or "").strip()
    if currency.isalpha() and currency.isascii():
        return f"{number} {currency}"
    return f"{currency}{number}"


class StudySettings(models.Model):
    """Admin-set study parameters (a single row, created on first use)."""

    # The study's five domains; a task set holds one Easy and one Hard task of each.
    domains = models.JSONField(
        default=list,
        blank=True,
        help_text="Domain names (five); empty means the five shipped study domains.",
    )
    easy_truths = models.PositiveSmallIntegerField(default=4)
    easy_actions = models.PositiveSmallIntegerField(default=6)
    hard_truths = models.PositiveSmallIntegerField(default=12)
    hard_actions = models.PositiveSmallIntegerField(default=16)
    # Pay = base + success rate × success_bonus − total actions × per_action_cost.
    base_pay = models.DecimalField(max_digits=8, decimal_places=2, default=25)
    success_bonus = models.DecimalField(max_digits=8, decimal_places=2, default=15)
    per_action_cost = models.DecimalField(max_digits=8, decimal_places=2, default="0.10")
    currency = models.CharField(
        max_length=10,
        default="$",
        help_text="Shown with every amount of pay: a symbol goes before the amount ($, £, €: "
        "£25.00), a code of letters after it (GBP: 25.00 GBP).",
    )
    # Quality filter: a participant who trips any enabled rule is flagged (0 disables).
    min_median_seconds_per_move = models.FloatField(
        default=2.0,
        help_text="Flag if the median time per move is below this many seconds "
        "(0 switches the rule off).",
    )
    max_blind_answers = models.PositiveSmallIntegerField(
        default=4,
        help_text="Flag if more tasks than this were answered before any action "
        "(0 switches the rule off).",
    )
    max_pastes = models.PositiveIntegerField(
        default=2,
        help_text="Flag if the participant pasted more than this many times during the tasks "
        "(0 switches the rule off).",
    )
    max_away_seconds = models.PositiveIntegerField(
        default=120,
        help_text="Flag if the task page was hidden or out of focus for more than this many "
        "seconds in total while a task was open (0 switches the rule off).",
    )
    max_failed_attention_checks = models.PositiveSmallIntegerField(
        default=1,
        help_text="Flag if at least this many attention checks were failed "
        "(0 switches the rule off; an attentive participant fails none).",
    )
    chance_test_alpha = models.FloatField(
        default=0.05,
        help_text="Flag if the successes are not significantly better than answering at "
        "random without any action: an exact one-sided test (each task's chance is "
        "1 / its number of truths) at this level (0 switches the rule off).",
    )
    max_unreported_share = models.FloatField(
        default=0.5,
        help_text="Flag if more than this share of the participant's moves and answers came "
        "with no report from the task page (pastes, time away…): a script or a page with "
        "its reporting switched off sends none (0 switches the rule off).",
    )
    success_margin_below_chance = models.FloatField(
        default=0.0,
        help_text="Flag if the success rate is more than this far below the rate of "
        "answering at random without any action (0.0 flags any score below chance; "
        "a negative value disables the rule).",
    )

    # -- the participant's path (docs/human-study.md) --
    consent_text = models.TextField(
        default=DEFAULT_CONSENT,
        help_text="Shown on the consent page (Markdown). What the study records is listed "
        "below it, always.",
    )
    label_parameter = models.CharField(
        max_length=50,
        default="PROLIFIC_PID",
        help_text="The query parameter of the study link that carries the participant's "
        "label from the recruitment platform (e.g. PROLIFIC_PID, workerId).",
    )
    label_pattern = models.CharField(
        max_length=200,
        default="[0-9a-f]{24}",
        validators=[validate_pattern],
        help_text="A regular expression the whole label must match, after normalisation "
        "(Unicode NFKC, surrounding spaces and punctuation removed, case folded: so "
        "letters are lower case here). Prolific's IDs: [0-9a-f]{24}.",
    )
    label_help = models.CharField(
        max_length=200,
        default="24 characters, each a digit 0–9 or a letter a–f (a Prolific ID)",
        help_text="What a valid label looks like, shown to whoever opens the link with another.",
    )
    target_participants = models.PositiveIntegerField(
        default=0,
        help_text="The study's target size: once this many participants have joined (and "
        "not declined), the link says the study is full (0: no cap).",
    )
    link_key = models.CharField(
        max_length=64,
        default=new_key,
        help_text="The secret part of the study link (/study/join/<key>/); change it to "
        "close the link.",
    )
    return_url = models.CharField(
        max_length=500,
        blank=True,
        help_text="Where the completion page sends participants back, e.g. "
        "https://app.prolific.com/submissions/complete?cc={code} ({code} is replaced by "
        "the completion code). Empty: no return link.",
    )
    completion_code = models.CharField(
        max_length=50,
        blank=True,
        help_text="One completion code for everyone (as a recruitment platform gives it). "
        "Empty: each participant gets their own code.",
    )
    task_time_limit_seconds = models.PositiveIntegerField(
        default=900,
        help_text="Time for each task once opened; when it runs out the task ends unsolved "
        "(0: no limit). The practice task has no limit.",
    )
    questionnaire = models.BooleanField(
        default=True, help_text="Ask the short end questionnaire (its attention check too)."
    )
    practice_instance = models.ForeignKey(
        Instance,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The practice task (not paid, not analysed). Empty: an Easy task of the "
        "first study domain that no task set uses.",
    )

    class Meta:
        verbose_name = verbose_name_plural = "study settings"

    def __str__(self) -> str:
        return "study settings"

    def money(self, amount) -> str:
        """``amount`` in the study's currency, as participants and staff see it."""
        return format_money(amount, self.currency)

    @classmethod
    def current(cls) -> StudySettings:
        row = cls.objects.order_by("pk").first()
        return row if row is not None else cls.objects.create()


class TaskSet(models.Model):
    name = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TaskSetItem(models.Model):
    """One task of a set: a KUMO instance (played as a game) or a stored task of another
    family (simple reasoning, constraint puzzles…, answered once)."""

    task_set = models.ForeignKey(TaskSet, on_delete=models.CASCADE, related_name="items")
    instance = models.ForeignKey(
        Instance, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    family_task = models.ForeignKey(
        "engine.FamilyTask", on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["task_set", "position"]
        constraints = [
            models.UniqueConstraint(fields=["task_set", "position"], name="unique_set_position"),
            models.UniqueConstraint(fields=["task_set", "instance"], name="unique_set_instance"),
            models.UniqueConstraint(
                fields=["task_set", "family_task"], name="unique_set_family_task"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(instance__isnull=False, family_task__isnull=True)
                    | models.Q(instance__isnull=True, family_task__isnull=False)
                ),
                name="item_is_one_task",
            ),
        ]

    def __str__(self) -> str:
        if self.family_task_id:
            return f"{self.task_set} #{self.position}: family task {self.family_task_id}"
        return f"{self.task_set} #{self.position}: instance {self.instance_id}"


class Participant(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="participant"
    )
    task_set = models.ForeignKey(
        TaskSet, on_delete=models.PROTECT, related_name="participants", null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Quality filter outcome, recomputed when the set is completed (and on demand).
    flagged = models.BooleanField(default=False)
    flag_reasons = models.JSONField(default=list, blank=True)
    # One passing participant per task set is chosen at random for analysis.
    selected_for_analysis = models.BooleanField(default=False)

    class Stage(models.TextChoices):
        CONSENT = "consent", "consent"
        INSTRUCTIONS = "instructions", "instructions"
        PRACTICE = "practice", "practice task"
        TASKS = "tasks", "task set"
        QUESTIONNAIRE = "questionnaire", "questionnaire"
        COMPLETE = "complete", "complete"
        DECLINED = "declined", "declined consent"

    # Where the participant is on their path (humanstudy.path); pages follow it.
    stage = models.CharField(max_length=20, choices=Stage.choices, default=Stage.CONSENT)
    # The recruitment platform's ID, from the study link, normalised (humanstudy.path.
    # normalise_label); empty for ID/password accounts.
    label = models.CharField(max_length=100, blank=True)
    # A keyed hash of the client address the study link was opened from (never the
    # address itself): joins per address and hour are limited (humanstudy.path).
    joined_from = models.CharField(max_length=64, blank=True, db_index=True)
    # The secret of the participant's own link (/study/p/<key>/).
    link_key = models.CharField(max_length=64, default=new_key, unique=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    declined_at = models.DateTimeField(null=True, blank=True)
    instructions_passed_at = models.DateTimeField(null=True, blank=True)
    comprehension_attempts = models.PositiveSmallIntegerField(default=0)
    practice_done_at = models.DateTimeField(null=True, blank=True)
    # {"item": "answer", …} of the end questionnaire, as given.
    answers = models.JSONField(default=dict, blank=True)
    # [{"check": name, "passed": bool}, …]: every attention check the participant met.
    attention = models.JSONField(default=list, blank=True)
    completion_code = models.CharField(max_length=50, blank=True)

    class Meta:
        ordering = ["user__username"]
        constraints = [
            models.UniqueConstraint(
                fields=["label"], condition=~models.Q(label=""), name="one_participant_per_label"
            )
        ]

    def __str__(self) -> str:
        return self.user.username
