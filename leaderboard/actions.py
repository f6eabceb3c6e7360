"""Every write of the leaderboard: accepting a submission, scoring it, marking work stale.

``submit_results`` is the one path for uploads of KUMO's games through the API and for the
benchmark runner's own results; ``submit_family_results`` for the other task families'
files (model replies, ``leaderboard.family_uploads``). Both share the submission, its job,
lease, retry and withdrawal. Small files are scored at once; large ones (``LARGE_SUBMISSION``
trajectories or more, or any file when asked) by a background job.
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from benchmark.jobs import LeaseKeeper, claim_with_lease, requeue_stalled
from engine.models import UNLISTED_SOURCES, Domain, Instance
from leaderboard import names
from leaderboard.access import playable_instances
from leaderboard.models import (
    KUMO_FAMILY,
    FamilyReply,
    FamilyStaleGroup,
    ModelEntry,
    StaleGroup,
    Submission,
    Trajectory,
)
from leaderboard.scoring import ResultsError, parse_kumo, parse_native, score

# Files with at least this many trajectories are scored by a background job.
LARGE_SUBMISSION = 25_000
# A cheap proxy counted before parsing: lines for native files (one trajectory per line).
LARGE_NATIVE_LINES = LARGE_SUBMISSION
# Original KUMO lines hold five runs each.
LARGE_KUMO_LINES = LARGE_SUBMISSION // 5

METADATA_FIELDS = ("provider", "parameter_count", "reasoning", "release_date")


logger = logging.getLogger(__name__)


class SubmissionError(Exception):
    """A submission refused before storage; ``str()`` explains why."""


class ModelNotYours(SubmissionError):
    """The model name is not this account's to use: another account's, reserved for the
    platform, or past the account's cap of names (the API answers 403)."""


# Who may use an existing language model's name: its owner, or staff (leaderboard.names).
may_use_model = names.may_use_model


def check_model_name(name: str) -> str:
    """The name, stripped, or :class:`SubmissionError` saying what is wrong with it."""
    try:
        return names.clean_model_name(name)
    except names.ModelNameError as error:
        raise SubmissionError(str(error)) from None


@dataclass(frozen=True)
class Accepted:
    submission: Submission
    created: bool


def get_or_create_model(
    name: str, *, user: User | None, kind: str = ModelEntry.Kind.MODEL, **metadata
) -> ModelEntry:
    """The model entry named ``name`` for ``user``, created (owned by ``user``) if new,
    under the naming rules of ``leaderboard.names`` (reserved, unique ignoring case, a cap
    per account).

    Raises :class:`ModelNotYours` when a rule forbids the name to ``user`` (the name is
    another account's or the platform's, or the account's cap is reached), and
    :class:`SubmissionError` for any other refusal (a malformed name, a platform write
    into an entry of another owner or kind).
    """
    try:
        entry = names.claim_model_name(name, user=user, kind=kind)
    except names.ModelNameError as error:
        if error.status == 403:
            raise ModelNotYours(str(error)) from None
        raise SubmissionError(str(error)) from None
    changed = [
        key
        for key, value in metadata.items()
        if value not in (None, "") and getattr(entry, key) != value
    ]
    for key in changed:
        setattr(entry, key, metadata[key])
    if changed:
        entry.save(update_fields=changed)
    return entry


def submit_results(
    user: User,
    *,
    model: str,
    domain: str,
    n_truths: int,
    n_actions: int,
    fmt: str,
    content: bytes,
    metadata: dict | None = None,
    background: bool | None = None,
    kind: str = ModelEntry.Kind.MODEL,
    verified: bool = False,
    repair: bool = False,
) -> Accepted:
    """Store a results file of KUMO's games and score it (now, or in a job for large files).

    ``verified`` is for the benchmark runner alone, whose games the server played itself;
    an uploaded file is always self-reported. ``repair`` is for files of a published
    release alone (``import_kumo_release --repair``; see ``scoring.parse_kumo``).
    Resubmitting identical content for the same model, domain and setting returns the
    existing submission. Returns
    ``Accepted(submission, created)``.
    """
    metadata = dict(metadata or {})
    if fmt not in (Submission.Format.NATIVE, Submission.Format.KUMO):
        raise SubmissionError(
            f"format must be one of {Submission.Format.NATIVE}, {Submission.Format.KUMO}"
        )
    domain_row = Domain.objects.filter(name=domain).first()
    if domain_row is None:
        raise SubmissionError(f"unknown domain {domain!r}")
    if (
        not Instance.objects.filter(domain=domain_row, n_truths=n_truths, n_actions=n_actions)
        .exclude(source__in=UNLISTED_SOURCES)
        .exists()
    ):
        raise SubmissionError(
            f"domain {domain!r} has no stored instances with {n_truths} truths and "
            f"{n_actions} actions"
        )
    _check_content(content)
    entry = get_or_create_model(
        model,
        user=user,
        kind=kind,
        **{key: metadata.get(key) for key in METADATA_FIELDS if key in metadata},
    )
    same_content = {
        "model": entry,
        "family": KUMO_FAMILY,
        "domain": domain_row,
        "n_truths": n_truths,
        "n_actions": n_actions,
        "format": fmt,
        "sha256": hashlib.sha256(content).hexdigest(),
        "verified": verified,
    }
    threshold = LARGE_KUMO_LINES if fmt == Submission.Format.KUMO else LARGE_NATIVE_LINES
    return _accept(
        user,
        same_content,
        content,
        metadata,
        background=background,
        threshold=threshold,
        repair=repair and fmt == Submission.Format.KUMO,
    )


def submit_family_results(
    user: User,
    *,
    model: str,
    family: str,
    fmt: str,
    content: bytes,
    kind: str = "",
    level: str = "",
    metadata: dict | None = None,
    background: bool | None = None,
) -> Accepted:
    """Store a results file of a task family (model replies to stored family tasks) and
    score it, through the same submission, job and lease as KUMO's files.

    Always self-reported. ``kind`` and ``level`` are for files whose lines do not name
    them (LR²Bench's response.jsonl); the lines may name their own. Resubmitting identical
    content for the same model, family, kind and level returns the existing submission.
    """
    from leaderboard import family_uploads

    metadata = dict(metadata or {})
    if fmt not in (Submission.Format.FAMILY, Submission.Format.LR2BENCH):
        raise SubmissionError(
            f"format must be one of {Submission.Format.FAMILY}, {Submission.Format.LR2BENCH}"
        )
    try:
        source = family_uploads.uploadable_family(family)
    except family_uploads.FamilyUploadError as error:
        raise SubmissionError(str(error)) from None
    if kind and kind not in source.kinds:
        raise SubmissionError(
            f"family {family} has no kind {kind!r}; use one of {', '.join(source.kinds)}"
        )
    _check_content(content)
    entry = get_or_create_model(
        model,
        user=user,
        **{key: metadata.get(key) for key in METADATA_FIELDS if key in metadata},
    )
    same_content = {
        "model": entry,
        "family": family,
        "domain": None,
        "kind": kind,
        "level": level,
        "format": fmt,
        "sha256": hashlib.sha256(content).hexdigest(),
        "verified": False,
    }
    return _accept(
        user, same_content, content, metadata, background=background, threshold=LARGE_NATIVE_LINES
    )


def _check_content(content: bytes) -> None:
    if not content.strip():
        raise SubmissionError("the file is empty")
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError("the file is not UTF-8 text") from None


def _accept(
    user: User,
    same_content: dict,
    content: bytes,
    metadata: dict,
    *,
    background: bool | None,
    threshold: int,
    repair: bool = False,
) -> Accepted:
    """Store a checked file as a submission and score it, for every family.

    1. The same content for the same group returns the earlier submission (a withdrawn
       one stays withdrawn; a failed one is tried again from scratch; a scored one whose
       recompute never ran queues it again).
    2. The file is stored; a file of ``threshold`` lines or more (or any, with
       ``background``) is scored by a job after commit, a smaller one at once.
    """
    existing = Submission.objects.filter(**same_content).first()
    if existing is not None and existing.status == Submission.Status.WITHDRAWN:
        raise SubmissionError(
            f"this file was submitted before (submission {existing.pk}) and withdrawn; a "
            "withdrawn file stays withdrawn"
        )
    if existing is not None and existing.status != Submission.Status.FAILED:
        if existing.status == Submission.Status.DONE and _recompute_pending(existing):
            # Scored, but the recompute after it did not happen (it failed, or no worker has
            # got to it yet): sending the file again is how a submitter retries it.
            queue_recompute()
        return Accepted(existing, False)
    if existing is not None:
        existing.delete()  # a rejected earlier attempt: try again from scratch
    lines = content.count(b"\n") + (0 if content.endswith(b"\n") else 1)
    if background is None:
        background = lines >= threshold
    digest = same_content["sha256"]
    try:
        with transaction.atomic():
            submission = Submission(
                submitter=user,
                size=len(content),
                repair=repair,
                **same_content,
                metadata={k: str(v) for k, v in metadata.items() if v not in (None, "")},
            )
            submission.file.save(f"{digest[:16]}.jsonl", ContentFile(content), save=False)
            submission.save()
    except IntegrityError:
        # The same file arrived twice at once: the other request stored it.
        return Accepted(Submission.objects.get(**same_content), False)
    if background:
        from leaderboard.tasks import process_submission_task

        transaction.on_commit(lambda: process_submission_task.delay(submission.pk))
    else:
        process_submission(submission.pk)
        submission.refresh_from_db()
    return Accepted(submission, True)


def _recompute_pending(submission: Submission) -> bool:
    """Whether a scored submission's board groups still wait for a recompute."""
    if submission.is_kumo:
        return StaleGroup.objects.filter(
            model=submission.model,
            domain=submission.domain,
            n_truths=submission.n_truths,
            n_actions=submission.n_actions,
        ).exists()
    from leaderboard.family_uploads import submission_groups

    return any(
        FamilyStaleGroup.objects.filter(family=family, kind=kind, level=level).exists()
        for family, kind, level in submission_groups(submission)
    )


def process_submission(submission_id: int) -> Submission | None:
    """Parse, replay and store every trajectory of a submission, all or nothing.

    1. Claim it with a conditional update: a pending submission, or one whose earlier try
       holds an expired lease (its worker died). A job delivered twice does the work once.
    2. After ``SUBMISSION_MAX_ATTEMPTS`` tries it fails for good, saying so.
    3. Parse and score, renewing the lease every third of ``SUBMISSION_LEASE_SECONDS`` on
       a thread (``benchmark.jobs.LeaseKeeper``) while this try holds it, so a short lease
       covers a file of any size and a dead worker's try is taken over soon after it died.
       A malformed line fails the whole submission with every problem.
    4. Store the rows only if this try still holds the submission (a try that outlived its
       lease and was taken over stores nothing), in one transaction.
    """
    if not claim_with_lease(
        Submission,
        submission_id,
        settings.SUBMISSION_LEASE_SECONDS,
        running=Submission.Status.PROCESSING,
        started_at=timezone.now(),
    ):
        return None
    submission = Submission.objects.select_related("domain", "model").get(pk=submission_id)
    if submission.attempts > settings.SUBMISSION_MAX_ATTEMPTS:
        return _fail(
            submission,
            [_never_finished(submission.attempts - 1)],
        )
    keeper = LeaseKeeper(
        Submission,
        submission.pk,
        settings.SUBMISSION_LEASE_SECONDS,
        status=Submission.Status.PROCESSING,
        attempts=submission.attempts,
    )
    with keeper:
        return _score_and_store(submission)


def _score_and_store(submission: Submission) -> Submission | None:
    try:
        with submission.file.open("rb") as handle:
            text = io.TextIOWrapper(handle, encoding="utf-8", newline="").read()
        # Lines end at "\n" only: JSON strings may hold U+2028, U+0085 and the like, which
        # str.splitlines() would split on.
        if not submission.is_kumo:
            from leaderboard.family_uploads import FamilyUploadError, score_replies

            try:
                rows = score_replies(submission, text)
            except FamilyUploadError as error:
                raise ResultsError([str(error)]) from None
        elif submission.format == Submission.Format.KUMO:
            repairs: list[dict] | None = [] if submission.repair else None
            parsed = parse_kumo(text.split("\n"), repairs=repairs)
            submission.repairs = repairs or []
            rows = _score_all(submission, parsed)
        else:
            rows = _score_all(submission, parse_native(text.split("\n")))
    except ResultsError as error:
        return _fail(submission, error.problems)
    except (OSError, UnicodeDecodeError) as error:
        return _fail(submission, [f"cannot read the file: {error}"])
    try:
        _store(submission, rows)
    except LeaseLost:
        logger.warning("submission %s: this try lost its lease; nothing stored", submission.pk)
        return None
    except DatabaseError as error:
        # Never leave a submission "processing": say why, and let a resend try again.
        logger.exception("submission %s could not be stored", submission.pk)
        return _fail(
            submission,
            [
                f"the scores could not be stored ({error.__class__.__name__}); send the file "
                "again to retry"
            ],
        )
    queue_recompute()
    return submission


def _store(submission: Submission, rows: list) -> None:
    """Store a try's rows (``Trajectory`` for KUMO's games, ``FamilyReply`` for a family)
    and mark the submission done, in one transaction, only if this try still holds it."""
    with transaction.atomic():
        still_ours = (
            Submission.objects.select_for_update()
            .filter(
                pk=submission.pk,
                status=Submission.Status.PROCESSING,
                attempts=submission.attempts,
            )
            .exists()
        )
        if not still_ours:
            raise LeaseLost(f"submission {submission.pk} was taken over by a later try")
        if submission.is_kumo:
            _store_trajectories(submission, rows)
        else:
            _store_replies(submission, rows)
        submission.status = Submission.Status.DONE
        submission.trajectory_count = len(rows)
        submission.disagreements = sum(1 for row in rows if getattr(row, "disagrees", False))
        submission.finished_at = timezone.now()
        submission.lease_expires_at = None
        submission.save(
            update_fields=[
                "repairs",
                "status",
                "trajectory_count",
                "disagreements",
                "finished_at",
                "lease_expires_at",
            ]
        )


def _store_trajectories(submission: Submission, rows: list[Trajectory]) -> None:
    # The newest scored file for a model, domain and setting is the one that counts
    # (verified and self-reported files apart; ranked games are never replaced).
    _group_files(submission).filter(active=True).update(active=False)
    Trajectory.objects.bulk_create(rows, batch_size=5000)
    mark_stale(submission.model_id, submission.domain_id, submission.n_truths, submission.n_actions)


def _store_replies(submission: Submission, rows: list[FamilyReply]) -> None:
    from leaderboard.family_recompute import mark_families_stale
    from leaderboard.family_uploads import group_replies, reply_groups

    # The newest scored file of a model counts in each (family, kind, level) it covers;
    # its earlier files still count in the groups this one does not cover.
    groups = reply_groups(rows)
    for group in groups:
        group_replies(submission.model_id, group).filter(active=True).update(active=False)
    FamilyReply.objects.bulk_create(rows, batch_size=2000)
    mark_families_stale(groups)


_deferred_recomputes = 0


@contextmanager
def deferred_recompute() -> Iterator[None]:
    """Queue one recompute at the end instead of one per file (bulk imports).

    The stale marks are written as usual, so nothing is lost if the block fails.
    """
    global _deferred_recomputes
    _deferred_recomputes += 1
    try:
        yield
    finally:
        _deferred_recomputes -= 1
    if not _deferred_recomputes:
        queue_recompute()


def queue_recompute() -> None:
    """Recompute the board after the current transaction commits.

    The scores are stored and their groups marked stale by then, so a recompute that fails
    (or a broker that is down) must not fail the upload: it is logged, the marks stay, and
    the scheduled recompute or the next submission picks them up (``robust``).
    """
    from leaderboard.tasks import recompute_task

    if _deferred_recomputes:
        return
    transaction.on_commit(lambda: recompute_task.delay(), robust=True)


def _fail(submission: Submission, problems: list[str]) -> Submission:
    """Fail this try for good (only if it still holds the submission)."""
    Submission.objects.filter(
        pk=submission.pk, status=Submission.Status.PROCESSING, attempts=submission.attempts
    ).update(
        status=Submission.Status.FAILED,
        errors=problems[:1000],
        finished_at=timezone.now(),
        lease_expires_at=None,
    )
    submission.refresh_from_db()
    return submission


class LeaseLost(Exception):
    """This try's lease expired and a later try took the submission over."""


def requeue_stalled_submissions() -> list[int]:
    """Queue again every submission whose scoring stalled (run by beat every
    ``REQUEUE_STALLED_SECONDS``; ``benchmark.jobs.requeue_stalled``).

    A submission processing past its lease lost its worker: it goes back to pending and is
    queued again, or fails for good after ``SUBMISSION_MAX_ATTEMPTS`` tries. One pending for
    longer than ``SUBMISSION_PENDING_GRACE_SECONDS`` lost its queued job (a broker restart),
    or waits behind others. Either is queued at most once per grace period (its
    ``lease_expires_at`` says when next), so a frequent sweep does not flood the queue.
    Queueing twice is harmless: only one try can claim it. Returns the ids queued.
    """
    from leaderboard.tasks import process_submission_task

    return requeue_stalled(
        Submission,
        queued_field="created_at",
        grace_seconds=settings.SUBMISSION_PENDING_GRACE_SECONDS,
        max_attempts=settings.SUBMISSION_MAX_ATTEMPTS,
        failed=lambda tries: {"errors": [_never_finished(tries)]},
        queue=process_submission_task.delay,
        running=Submission.Status.PROCESSING,
    )


def _never_finished(tries: int) -> str:
    return (
        f"scoring was tried {tries} times and never finished (the worker stopped each time); "
        "retry it, or send the file again"
    )


def do_retry(submission_id: int, user: User) -> Submission:
    """Score a failed submission again (its owner or staff): a new try from the file."""
    mine = Q() if user.is_staff else Q(submitter=user)
    submission = Submission.objects.filter(mine, pk=submission_id).first()
    if submission is None:
        raise Submission.DoesNotExist(f"no submission {submission_id} of yours")
    changed = Submission.objects.filter(pk=submission.pk, status=Submission.Status.FAILED).update(
        status=Submission.Status.PENDING, errors=[], finished_at=None, attempts=0
    )
    if not changed:
        raise SubmissionError(
            f"only a failed submission can be retried; this one is {submission.status}"
        )
    from leaderboard.tasks import process_submission_task

    transaction.on_commit(lambda: process_submission_task.delay(submission.pk))
    submission.refresh_from_db()
    return submission


def _score_all(submission: Submission, parsed) -> list[Trajectory]:
    # Ranked games' instances are never scored from a file (they are played on the server),
    # nor are those of a round that is not live yet (they are invisible until then).
    playable = list(
        playable_instances().filter(
            domain=submission.domain,
            n_truths=submission.n_truths,
            n_actions=submission.n_actions,
            n_valid=1,
        )
    )
    # A line names its instance by seed, or by id (a live round's seeds are secret).
    by_seed = {row.seed: row for row in playable}
    by_id = {row.pk: row for row in playable}
    core_domain = submission.domain.to_core()
    cores: dict[int, object] = {}
    problems: list[str] = []
    rows: list[Trajectory] = []
    for item in parsed:
        stored = by_id.get(item.instance) if item.instance is not None else by_seed.get(item.seed)
        if stored is None:
            problems.append(
                f"line {item.line}: no stored instance with {item.names} for "
                f"{submission.domain.name} {submission.n_truths}/{submission.n_actions}"
            )
            continue
        if stored.oracle_actions is None:
            problems.append(
                f"line {item.line}: the instance with {item.names} has no oracle value yet"
            )
            continue
        core = cores.get(stored.pk)
        if core is None:
            core = cores[stored.pk] = stored.to_core()
        result = score(core_domain, core, stored.oracle_actions, item)
        rows.append(
            Trajectory(
                submission=submission,
                model_id=submission.model_id,
                instance=stored,
                domain_id=submission.domain_id,
                n_truths=submission.n_truths,
                n_actions=submission.n_actions,
                run=item.run,
                line=item.line,
                actions=item.actions,
                answer=item.answer,
                correct=result.correct,
                information_actions=result.information_actions,
                invalid_moves=result.invalid_moves,
                relative_action_count=result.relative_action_count,
                raw_action_count=item.raw_action_count,
                claimed_correct=item.claimed_correct,
                claimed_actions=item.claimed_actions,
                disagrees=result.disagrees,
                parse_errors=item.parse_errors,
                prompt_tokens=item.prompt_tokens,
                completion_tokens=item.completion_tokens,
                verified=submission.verified,
            )
        )
    if problems:
        raise ResultsError(problems)
    return rows


def mark_stale(model_id: int, domain_id: int, n_truths: int, n_actions: int) -> None:
    StaleGroup.objects.update_or_create(
        model_id=model_id, domain_id=domain_id, n_truths=n_truths, n_actions=n_actions
    )


def _group_files(submission: Submission):
    """The trajectories of every file of ``submission``'s group: same model, domain,
    setting and kind (verified or self-reported). Ranked games have no file."""
    return Trajectory.objects.filter(
        model_id=submission.model_id,
        domain_id=submission.domain_id,
        n_truths=submission.n_truths,
        n_actions=submission.n_actions,
        verified=submission.verified,
        submission__isnull=False,
    )


def do_withdraw(submission_id: int, user: User) -> Submission:
    """Withdraw a submission: its rows leave the board, the file stays for audit.

    1. Only the submitter (or staff) may withdraw; a submission still being scored cannot
       be (try again when it is done), and withdrawing twice changes nothing.
    2. Its trajectories are deactivated; the group's newest other scored file, if any,
       counts again (as if the withdrawn file had never been sent).
    3. The group is marked stale and a recompute queued.
    """
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update().filter(pk=submission_id).first()
            if user.is_staff
            else Submission.objects.select_for_update()
            .filter(pk=submission_id, submitter=user)
            .first()
        )
        if submission is None:
            raise Submission.DoesNotExist(f"no submission {submission_id} of yours")
        if submission.status == Submission.Status.WITHDRAWN:
            return submission
        if submission.status in (Submission.Status.PENDING, Submission.Status.PROCESSING):
            raise SubmissionError(
                "this submission is still being scored; withdraw it once it is done"
            )
        if not submission.is_kumo:
            _withdraw_replies(submission)
            queue_recompute()
            return submission
        was_active = submission.trajectories.filter(active=True).exists()
        submission.trajectories.update(active=False)
        submission.status = Submission.Status.WITHDRAWN
        submission.withdrawn_at = timezone.now()
        submission.save(update_fields=["status", "withdrawn_at"])
        if was_active:
            previous = (
                Submission.objects.filter(
                    model_id=submission.model_id,
                    domain_id=submission.domain_id,
                    n_truths=submission.n_truths,
                    n_actions=submission.n_actions,
                    verified=submission.verified,
                    status=Submission.Status.DONE,
                )
                .order_by("-finished_at", "-pk")
                .first()
            )
            if previous is not None:
                previous.trajectories.update(active=True)
        mark_stale(
            submission.model_id, submission.domain_id, submission.n_truths, submission.n_actions
        )
    queue_recompute()
    return submission


def _withdraw_replies(submission: Submission) -> None:
    """A family submission's part of ``do_withdraw`` (inside its transaction): its replies
    leave the board; in each group where they counted, the model's newest other scored
    file with replies there counts again."""
    from leaderboard.family_recompute import mark_families_stale
    from leaderboard.family_uploads import group_replies, submission_groups

    counted = set(
        submission.family_replies.filter(active=True)
        .values_list("family", "kind", "level")
        .distinct()
    )
    groups = submission_groups(submission)
    submission.family_replies.update(active=False)
    submission.status = Submission.Status.WITHDRAWN
    submission.withdrawn_at = timezone.now()
    submission.save(update_fields=["status", "withdrawn_at"])
    for group in counted:
        family, kind, level = group
        previous = (
            Submission.objects.filter(
                model_id=submission.model_id,
                status=Submission.Status.DONE,
                family_replies__family=family,
                family_replies__kind=kind,
                family_replies__level=level,
            )
            .order_by("-finished_at", "-pk")
            .first()
        )
        if previous is not None:
            group_replies(submission.model_id, group).filter(submission=previous).update(
                active=True
            )
    mark_families_stale(groups)
