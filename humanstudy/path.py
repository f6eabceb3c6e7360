"""The participant's path: link → consent → instructions (comprehension check) → practice →
task set → questionnaire → completion code. Every step's write is here; the views only
parse the form and follow ``Participant.stage`` (docs/human-study.md).
"""

from __future__ import annotations

import hmac
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.crypto import salted_hmac

from engine import sessions
from engine.models import FamilyAttempt, Instance, PlaySession
from humanstudy import actions
from humanstudy.actions import StudyError, study_domains
from humanstudy.models import Participant, StudySettings, TaskSet, TaskSetItem
from leaderboard.access import playable_instances

Stage = Participant.Stage


class LinkRefused(StudyError):
    """The study link refused a join; ``title`` heads the page, ``status`` is its HTTP
    status."""

    title = "This link cannot be used"
    status = 403


class BadLabel(LinkRefused):
    status = 400


class StudyFull(LinkRefused):
    title = "The study is full"


class TooManyJoins(LinkRefused):
    title = "Too many sign-ups from your network"
    status = 429


def normalise_label(raw: str) -> str:
    """A recruitment label as stored and compared: Unicode NFKC, surrounding spaces,
    punctuation and invisible characters removed, case folded, so that ``5F1A…``,
    `` 5f1a….`` and ``5f1a…`` are one participant."""
    text = unicodedata.normalize("NFKC", raw or "")

    def edge(char: str) -> bool:
        return char.isspace() or unicodedata.category(char)[0] in "PZC"

    start, end = 0, len(text)
    while start < end and edge(text[start]):
        start += 1
    while end > start and edge(text[end - 1]):
        end -= 1
    return text[start:end].casefold()


def check_label(raw: str, config: StudySettings) -> str:
    """The normalised label if it matches the study's pattern; else :class:`BadLabel`
    saying what a valid one looks like."""
    label = normalise_label(raw)
    try:
        valid = len(label) <= 100 and re.fullmatch(config.label_pattern, label) is not None
    except re.error:
        raise LinkRefused(
            "the study's label pattern is not valid; please tell the study team"
        ) from None
    if not valid:
        where = f"in its {config.label_parameter} parameter"
        if not label:
            problem = f"the link must carry your participant ID {where}"
        else:
            problem = f"{label[:40]!r} {where} is not a valid participant ID"
        raise BadLabel(
            f"{problem}; a valid ID is {config.label_help}. Please use the link exactly as "
            "the recruitment site gave it"
        )
    return label


def joins_per_hour_per_address() -> int:
    return max(0, int(getattr(settings, "STUDY_JOINS_PER_HOUR_PER_IP", 10)))


def address_key(ip_address: str | None) -> str:
    """A keyed hash of the client address: enough to count joins, not to find anyone."""
    return salted_hmac("humanstudy.join", ip_address or "unknown", algorithm="sha256").hexdigest()


def join_by_label(key: str, raw_label: str, ip_address: str | None = None) -> Participant:
    """A new participant from the study link (``/study/join/<key>/?<parameter>=<label>``).

    1. Refuse a wrong key, and a label that does not match the study's pattern once
       normalised (``check_label``).
    2. Refuse a label used before: a recruitment platform's ID takes part once.
    3. Under a lock on the study's settings row (joins are serialised, so parallel ones
       cannot all pass the counts): refuse when the study has reached its target size, or
       when ``STUDY_JOINS_PER_HOUR_PER_IP`` participants joined from this client address in
       the last hour; otherwise create the participant.

    The account has no password: the participant stays signed in by their session, and
    their own link signs them in again.
    """
    config = StudySettings.current()
    if not hmac.compare_digest(key.encode(), config.link_key.encode()):
        raise LinkRefused("this study link is not valid (it may have been closed)")
    label = check_label(raw_label, config)
    taken = LinkRefused("this participant ID has already taken part in the study")
    if Participant.objects.filter(label=label).exists():
        raise taken
    joined_from = address_key(ip_address)
    user_model = get_user_model()
    try:
        with transaction.atomic():
            config = StudySettings.objects.select_for_update().get(pk=config.pk)
            if config.target_participants:
                joined = Participant.objects.exclude(stage=Stage.DECLINED).count()
                if joined >= config.target_participants:
                    raise StudyFull(
                        "the study has all the participants it needs; thank you for your "
                        "interest. Please return the study on the recruitment site"
                    )
            limit = joins_per_hour_per_address()
            recent = Participant.objects.filter(
                joined_from=joined_from, created_at__gte=timezone.now() - timedelta(hours=1)
            )
            if recent.count() >= limit:
                raise TooManyJoins(
                    f"{limit} participants have joined from your network in the last hour, "
                    "the most allowed; please try again later"
                )
            user = user_model.objects.create_user(username=_new_username(), password=None)
            return Participant.objects.create(
                user=user, label=label, joined_from=joined_from, task_set=_least_used_task_set()
            )
    except IntegrityError:  # the same label joined at the same moment
        raise taken from None


def _new_username() -> str:
    user_model = get_user_model()
    while True:
        name = "L" + secrets.token_hex(4).upper()
        if not user_model.objects.filter(username=name).exists():
            return name


def _least_used_task_set() -> TaskSet:
    task_set = TaskSet.objects.annotate(used=Count("participants")).order_by("used", "name").first()
    if task_set is None:
        raise StudyError("the study has no task sets yet; please contact the study team")
    return task_set


def participant_for_link(key: str) -> Participant:
    participant = Participant.objects.select_related("user").filter(link_key=key).first()
    if participant is None or not key:
        raise StudyError("this personal study link is not valid")
    return participant


# -- consent and instructions ---------------------------------------------------------------


def do_consent(participant: Participant, agree: bool) -> Participant:
    if participant.stage != Stage.CONSENT:
        return participant
    now = timezone.now()
    if agree:
        participant.stage, participant.consented_at = Stage.INSTRUCTIONS, now
        participant.save(update_fields=["stage", "consented_at"])
    else:
        participant.stage, participant.declined_at = Stage.DECLINED, now
        participant.save(update_fields=["stage", "declined_at"])
    return participant


@dataclass(frozen=True)
class Question:
    name: str
    text: str
    options: tuple[tuple[str, str], ...]
    correct: str
    # An attention check (an instructed response) rather than a comprehension question.
    attention: bool = False


COMPREHENSION = (
    Question(
        "valid",
        "In each task, how many of the listed candidates are true?",
        (("one", "Exactly one"), ("some", "One or more"), ("none", "Possibly none")),
        "one",
    ),
    Question(
        "actions",
        "What does each action you take do to your pay?",
        (
            ("costs", "It costs a little: use as few as you need"),
            ("nothing", "Nothing: take every action"),
            ("bonus", "It adds a bonus"),
        ),
        "costs",
    ),
    Question(
        "outcome",
        "Where do you find which candidates an action's result rules out?",
        (
            ("guide", "In the task's guidebook"),
            ("guess", "Nowhere: I have to guess"),
            ("search", "On a search engine"),
        ),
        "guide",
    ),
    Question(
        "colour",
        "To show that you read the questions, choose “Purple” here.",
        (("red", "Red"), ("purple", "Purple"), ("green", "Green")),
        "purple",
        attention=True,
    ),
)

QUESTIONNAIRE = (
    Question(
        "difficulty",
        "How hard were the tasks?",
        (("1", "Very easy"), ("2", "Easy"), ("3", "Moderate"), ("4", "Hard"), ("5", "Very hard")),
        "",
    ),
    Question(
        "help",
        "Did you use any help during the tasks (a search engine, a chatbot, another person)? "
        "Your pay does not depend on this answer; please be honest.",
        (("no", "No"), ("yes", "Yes")),
        "",
    ),
    Question(
        "attention",
        "This question checks attention: please choose “Sometimes”.",
        (("never", "Never"), ("sometimes", "Sometimes"), ("often", "Often")),
        "sometimes",
        attention=True,
    ),
)
COMMENT_MAX = 2000


def check_comprehension(participant: Participant, answers: dict[str, str]) -> list[str]:
    """Mark the instructions read if every comprehension question is answered right.

    Returns the texts of the questions answered wrongly (empty: passed). The attention
    item is recorded at the first try only (a second look would be no check), and never
    blocks: failing it costs nothing here and is left to the quality filter.
    """
    if participant.stage != Stage.INSTRUCTIONS:
        return []
    participant.comprehension_attempts += 1
    fields = ["comprehension_attempts"]
    if participant.comprehension_attempts == 1:
        participant.attention = list(participant.attention) + [
            {"check": f"instructions:{q.name}", "passed": answers.get(q.name) == q.correct}
            for q in COMPREHENSION
            if q.attention
        ]
        fields.append("attention")
    wrong = [q.text for q in COMPREHENSION if not q.attention and answers.get(q.name) != q.correct]
    if not wrong:
        participant.stage = Stage.PRACTICE
        participant.instructions_passed_at = timezone.now()
        fields += ["stage", "instructions_passed_at"]
    participant.save(update_fields=fields)
    return wrong


# -- practice ---------------------------------------------------------------------------------


def practice_instance(config: StudySettings | None = None) -> Instance | None:
    """The practice task: the one set in Study settings, or an Easy instance of the first
    study domain that no task set uses (never a round's or a ranked game's)."""
    config = config or StudySettings.current()
    if config.practice_instance_id:
        return config.practice_instance
    names = study_domains(config)
    # (NOT IN over a NULL excludes everything: items of other families have no instance.)
    in_sets = TaskSetItem.objects.exclude(instance=None).values("instance_id")
    return (
        playable_instances()
        .filter(
            domain__name__in=names[:1],
            n_truths=config.easy_truths,
            n_actions=config.easy_actions,
            n_valid=1,
            rounds__isnull=True,
        )
        .exclude(pk__in=in_sets)
        .order_by("seed", "pk")
        .first()
    )


def open_practice(participant: Participant) -> PlaySession:
    if participant.stage != Stage.PRACTICE:
        raise StudyError("the practice task is over; go on with your tasks")
    instance = practice_instance()
    if instance is None:
        raise StudyError("the study has no practice task yet; please contact the study team")
    session, _ = sessions.start_session(participant.user, instance)
    return session


def practice_session(participant: Participant) -> PlaySession | None:
    instance = practice_instance()
    if instance is None:
        return None
    return PlaySession.objects.filter(player=participant.user, instance=instance).first()


def finish_practice(participant: Participant) -> Participant:
    """After the practice game ended (or when there is none to play), on to the tasks."""
    if participant.stage != Stage.PRACTICE:
        return participant
    session = practice_session(participant)
    if practice_instance() is not None and (session is None or not session.finished):
        raise StudyError("finish the practice task first (it is not paid)")
    participant.stage, participant.practice_done_at = Stage.TASKS, timezone.now()
    participant.save(update_fields=["stage", "practice_done_at"])
    return participant


# -- the task set, the questionnaire, completion -----------------------------------------------


def set_description(participant: Participant) -> list[str]:
    """The tasks of the participant's set in words, one line per sort of task: the KUMO
    games by their number of truths and actions, each other family's task by its kind,
    level and how it is played (study pages describe the set, not only KUMO)."""
    if participant.task_set_id is None:
        return []
    items = participant.task_set.items.select_related("instance", "family_task").order_by(
        "position"
    )
    games: dict[tuple[int, int], int] = {}
    others: list[str] = []
    for item in items:
        if item.instance_id:
            size = (item.instance.n_truths, item.instance.n_actions)
            games[size] = games.get(size, 0) + 1
        else:
            task = item.family_task
            others.append(
                f"{actions.kind_title(task)} ({task.level or 'custom'} level): "
                f"{actions.how_played(task)}"
            )
    lines = [
        f"{count} KUMO game{'s' if count != 1 else ''} with {truths} candidates and "
        f"{n_actions} actions each"
        for (truths, n_actions), count in sorted(games.items())
    ]
    return lines + others


def open_task(participant: Participant, position: int) -> PlaySession | FamilyAttempt:
    """A task of the set, with the study's time limit from when it is first opened."""
    if participant.stage not in (Stage.TASKS, Stage.QUESTIONNAIRE, Stage.COMPLETE):
        raise StudyError("please go through the steps before the tasks first")
    played = actions.open_task(participant, position)
    limit = StudySettings.current().task_time_limit_seconds
    if limit and played.deadline_at is None and played.finished_at is None:
        deadline = played.started_at + timedelta(seconds=limit)
        type(played).objects.filter(pk=played.pk, deadline_at__isnull=True).update(
            deadline_at=deadline
        )
        played.deadline_at = deadline
    return played


def tasks_done(participant: Participant) -> Participant:
    """Once every task has ended: on to the questionnaire (or straight to completion)."""
    if participant.stage != Stage.TASKS or not actions.progress(participant).complete:
        return participant
    if StudySettings.current().questionnaire:
        participant.stage = Stage.QUESTIONNAIRE
        participant.save(update_fields=["stage"])
        return participant
    return complete(participant)


def answer_questionnaire(participant: Participant, answers: dict[str, str]) -> list[str]:
    """Store the end questionnaire and complete; returns problems (empty: stored)."""
    if participant.stage != Stage.QUESTIONNAIRE:
        return []
    problems = []
    stored = {}
    for question in QUESTIONNAIRE:
        value = answers.get(question.name, "")
        if value not in {key for key, _ in question.options}:
            problems.append(f"please answer: {question.text}")
        stored[question.name] = value
    comment = answers.get("comment", "")
    if len(comment) > COMMENT_MAX:
        problems.append(f"the comment may be at most {COMMENT_MAX} characters")
    if problems:
        return problems
    stored["comment"] = comment
    participant.answers = {k: v for k, v in stored.items() if k != "attention"}
    participant.attention = list(participant.attention) + [
        {"check": f"questionnaire:{q.name}", "passed": stored[q.name] == q.correct}
        for q in QUESTIONNAIRE
        if q.attention
    ]
    participant.save(update_fields=["answers", "attention"])
    complete(participant)
    return []


def complete(participant: Participant) -> Participant:
    """The completion code, the quality filter and the completion time (idempotent)."""
    config = StudySettings.current()
    if not participant.completion_code:
        participant.completion_code = config.completion_code or secrets.token_hex(4).upper()
    participant.stage = Stage.COMPLETE
    participant.save(update_fields=["completion_code", "stage"])
    return actions.evaluate_participant(participant)


def return_link(participant: Participant) -> str:
    """The recruitment platform's return address with the completion code, or ''."""
    from urllib.parse import quote

    template = StudySettings.current().return_url
    if not template.startswith(("https://", "http://")) or not participant.completion_code:
        return ""
    return template.replace("{code}", quote(participant.completion_code, safe=""))
