"""Results files of the task families: which stored task each reply answers, and its score.

The submission's file, job, lease, status, retry and withdrawal are KUMO's
(``leaderboard.actions``); this module is what differs for a family: parsing
(``leaderboard.family_results``), finding the tasks, re-scoring every reply with the
family's own ``parse_reply`` and ``score``, and which earlier replies a new file replaces.

A file may answer only tasks whose answers are no secret
(``leaderboard.access.answerable_family_tasks``): a task of a round not yet published, a
ranked attempt's, a study's, one that does not exist and one of another family all get the
same per-line error, so an upload tells nothing about a hidden task.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q

from engine.core.families.base import Family, FamilyError, ParsedReply, get_family
from engine.models import FamilyTask
from leaderboard.access import answerable_family_tasks
from leaderboard.family_results import (
    LR2BENCH_NO_ANSWER,
    UploadedReply,
    parse_family_native,
    parse_lr2bench,
)
from leaderboard.models import KUMO_FAMILY, FamilyReply, Submission, model_name_key
from leaderboard.scoring import ResultsError

# Every unmatched line says this, whatever the reason (see the module's docstring).
NOT_ANSWERABLE = (
    "no {names} of family {family} that a results file may answer (a task listed at "
    "/api/v1/family-tasks/; a round's tasks only once the round has published them)"
)


class FamilyUploadError(ValueError):
    """A family a results file cannot be about; ``str()`` says why."""


def uploadable_family(name: str) -> Family:
    """The family named ``name`` if replies to its tasks can be uploaded: not KUMO's games
    (their files go to ``/api/v1/submissions/``) nor any family played move by move."""
    if name == KUMO_FAMILY:
        raise FamilyUploadError(
            "KUMO's games are uploaded as games, not replies: POST /api/v1/submissions/ "
            "with a domain and setting"
        )
    try:
        family = get_family(name)
    except FamilyError as error:
        raise FamilyUploadError(str(error)) from None
    if family.interactive:
        raise FamilyUploadError(
            f"the family {name} is played move by move, so a reply cannot be scored on its "
            "own: play it with the runner or the attempt API"
        )
    return family


def parse_file(submission: Submission, text: str) -> list[UploadedReply]:
    """The replies of a family submission's file (``ResultsError`` naming every bad line)."""
    if submission.format == Submission.Format.LR2BENCH:
        return parse_lr2bench(text, kind=submission.kind, level=submission.level)
    key = submission.model.name_key
    return parse_family_native(
        text.split("\n"),
        family=submission.family,
        kind=submission.kind,
        level=submission.level,
        same_model=lambda name: model_name_key(name) == key,
    )


def score_replies(submission: Submission, text: str) -> list[FamilyReply]:
    """Parse the file, find every reply's task and score it: all or nothing.

    1. Parse (``leaderboard.family_results``).
    2. Find the tasks in two queries: by id, and imported tasks by (kind, level, item),
       among the answerable tasks of the submission's family only.
    3. Score each reply with the family: its ``parse_reply`` on the raw reply (or, for a
       file of extracted answers, the answer as given), then its ``score``.
    Raises ``ResultsError`` with every problem, by line, when any line is refused.
    """
    family = uploadable_family(submission.family)
    parsed = parse_file(submission, text)
    by_id, by_item = _find_tasks(submission.family, parsed)
    problems: list[str] = []
    rows: list[FamilyReply] = []
    instances: dict[int, object] = {}
    seen: dict[tuple[int, int], str] = {}
    for item in parsed:
        task = by_id.get(item.task) if item.task is not None else by_item.get(item.task_key)
        if task is None:
            names = item.names
            problems.append(
                f"{item.where}: " + NOT_ANSWERABLE.format(names=names, family=submission.family)
            )
            continue
        # The same task named once by id and once by its item key.
        earlier = seen.setdefault((task.pk, item.run), item.where)
        if earlier != item.where:
            problems.append(f"{item.where}: the same task's run {item.run} is on {earlier}")
            continue
        instance = instances.get(task.pk)
        if instance is None:
            instance = instances[task.pk] = task.to_core()
        rows.append(_scored(submission, family, task, instance, item))
    if problems:
        raise ResultsError(problems)
    return rows


def _find_tasks(
    family: str, parsed: list[UploadedReply]
) -> tuple[dict[int, FamilyTask], dict[tuple, FamilyTask]]:
    ids = {item.task for item in parsed if item.task is not None}
    by_id = (
        {task.pk: task for task in answerable_family_tasks().filter(family=family, pk__in=ids)}
        if ids
        else {}
    )
    groups = {(item.kind, item.level) for item in parsed if item.task is None}
    by_item: dict[tuple, FamilyTask] = {}
    if groups:
        condition = Q()
        for kind, level in groups:
            condition |= Q(kind=kind, level=level)
        imported = answerable_family_tasks().filter(
            condition, family=family, origin=FamilyTask.Origin.IMPORTED
        )
        for task in imported:
            item = (task.params or {}).get("item")
            if item is not None:
                by_item[(task.kind, task.level, str(item).strip())] = task
    return by_id, by_item


def _scored(
    submission: Submission, family: Family, task: FamilyTask, instance, item: UploadedReply
) -> FamilyReply:
    if item.answer_only:
        answer = item.reply.strip()
        parsed = (
            ParsedReply(None, "no answer (LR²Bench's extractor found no answer block)")
            if answer in LR2BENCH_NO_ANSWER
            else ParsedReply(answer)
        )
    else:
        parsed = family.parse_reply(instance, item.reply)
    correct, value, details = False, 0.0, {}
    if parsed.answer is not None:
        try:
            score = family.score(instance, parsed.answer)
        except (FamilyError, ValueError, TypeError) as error:
            # An answer the family cannot read at all is wrong, never a failed file.
            details = {"unread": str(error)[:500]}
        else:
            correct, value, details = bool(score.correct), float(score.value), dict(score.details)
    return FamilyReply(
        submission=submission,
        model_id=submission.model_id,
        task=task,
        family=task.family,
        kind=task.kind,
        level=task.level,
        run=item.run,
        line=item.line,
        reply=item.reply,
        answer=parsed.answer if isinstance(parsed.answer, str) else str(parsed.answer or ""),
        parse_error=parsed.error[:500],
        correct=correct,
        value=value,
        details=details,
        prompt_tokens=item.prompt_tokens,
        completion_tokens=item.completion_tokens,
    )


Group = tuple[str, str, str]


def reply_groups(replies: Iterable[FamilyReply]) -> set[Group]:
    return {(row.family, row.kind, row.level) for row in replies}


def submission_groups(submission: Submission) -> set[Group]:
    """The (family, kind, level) groups a family submission's replies cover."""
    return set(
        FamilyReply.objects.filter(submission=submission)
        .values_list("family", "kind", "level")
        .distinct()
    )


def group_replies(model_id: int, group: Group):
    """The replies of one model in one (family, kind, level), from every file."""
    family, kind, level = group
    return FamilyReply.objects.filter(model_id=model_id, family=family, kind=kind, level=level)
