"""Domain authoring with an LLM: every write of the pipeline goes through here.

The procedures themselves (prompts, reading replies, the bounded loops) are plain Python
in ``engine.core.authoring``; this module gives them the shared ``benchmark.llm.ChatClient``
configured from settings, records every call as an :class:`~engine.models.LLMCall`, and
stores what they produce (proposals, domains through ``engine.actions.do_import_domain``,
knowledge books). The admin, the management commands and the Celery jobs call these
functions; see ``docs/domain-authoring.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from benchmark.jobs import (
    LeaseKeeper,
    claim_with_lease,
    lease_until,
    requeue_stalled,
    worker_stopped,
)
from benchmark.llm import ChatClient, ChatReply, LLMError
from engine.actions import EngineError, do_import_domain
from engine.core import authoring as core
from engine.core.families.kumo.book import check_book
from engine.core.families.kumo.domain_io import DomainError
from engine.models import (
    AuthoringJob,
    Domain,
    DomainProposal,
    Instance,
    KnowledgeBook,
    LLMCall,
    ProposalBrief,
)

NOT_CONFIGURED = (
    "no authoring LLM configured: set AUTHORING_LLM_BASE_URL and AUTHORING_LLM_MODEL (and "
    "AUTHORING_LLM_API_KEY_ENV, naming the variable that holds the key, if the API needs "
    "one); see docs/domain-authoring.md"
)
MAX_PROPOSALS = 20
# A generation still marked running after this long lost its worker and may be claimed again.


class AuthoringError(EngineError):
    """An authoring step that cannot be done or did not succeed; the message says why."""


# -- the LLM ---------------------------------------------------------------------------------


logger = logging.getLogger(__name__)


def check_llm_configured() -> None:
    """Raise :class:`AuthoringError` (saying which settings to set) when there is no LLM."""
    if not settings.AUTHORING_LLM_BASE_URL.strip():
        raise AuthoringError(NOT_CONFIGURED)
    if not settings.AUTHORING_LLM_MODEL.strip():
        raise AuthoringError(
            "AUTHORING_LLM_BASE_URL is set but AUTHORING_LLM_MODEL is not: name the model "
            "to use (see docs/domain-authoring.md)"
        )


def authoring_client() -> ChatClient:
    """The shared chat client, configured for the authoring LLM from settings."""
    check_llm_configured()
    options: dict[str, Any] = {"max_retries": 3}
    options.update(getattr(settings, "AUTHORING_LLM_OPTIONS", {}))
    try:
        return ChatClient(
            settings.AUTHORING_LLM_BASE_URL.strip(),
            settings.AUTHORING_LLM_MODEL.strip(),
            settings.AUTHORING_LLM_API_KEY_ENV.strip() or None,
            timeout=settings.AUTHORING_LLM_TIMEOUT,
            **options,
        )
    except LLMError as error:
        raise AuthoringError(f"the authoring LLM is misconfigured: {error}") from None


def request_params() -> dict[str, Any]:
    """Parameters sent with every authoring request (besides model and messages)."""
    if settings.AUTHORING_LLM_MAX_TOKENS > 0:
        return {"max_tokens": settings.AUTHORING_LLM_MAX_TOKENS}
    return {}


def estimate_cost(prompt_tokens: int, completion_tokens: int) -> Decimal | None:
    """The cost of one call at the configured prices per 1,000 tokens; ``None`` without
    prices."""
    prompt_price = Decimal(str(settings.AUTHORING_LLM_PROMPT_PRICE_PER_1K))
    completion_price = Decimal(str(settings.AUTHORING_LLM_COMPLETION_PRICE_PER_1K))
    if not prompt_price and not completion_price:
        return None
    cost = (prompt_tokens * prompt_price + completion_tokens * completion_price) / 1000
    return cost.quantize(Decimal("0.000001"))


_REPLY_FIELDS = [
    "reply",
    "reasoning",
    "finish_reason",
    "prompt_tokens",
    "completion_tokens",
    "cost",
]


class _Recorder:
    """The ``chat`` callable given to ``engine.core.authoring``: sends each request with
    the client and stores it as an :class:`LLMCall` whatever happens; :meth:`flush` then
    saves the verdicts the procedures noted on the replies."""

    def __init__(self, client: ChatClient, *, subject: str, **links: Any) -> None:
        self.client = client
        self.subject = subject[:300]
        self.links = links
        self.params = request_params()
        self.rows: list[tuple[core.Reply, LLMCall]] = []
        self.fatal = False

    def __call__(self, kind: str, messages: list[core.Message]) -> core.Reply:
        row = LLMCall(
            kind=kind,
            subject=self.subject,
            model=self.client.model,
            base_url=self.client.base_url,
            messages=messages,
            params=self.params,
            started_at=timezone.now(),
            **self.links,
        )
        # Stored before sending, so a request whose process dies is still on record
        # (without an end time).
        row.save()
        try:
            answer = self.client.chat(messages, **self.params)
        except LLMError as error:
            row.error = str(error)
            row.finished_at = timezone.now()
            row.save(update_fields=["error", "finished_at"])
            self.fatal = self.fatal or error.fatal
            raise core.ChatFailed(str(error)) from None
        row.reply = _visible_text(answer)
        row.reasoning = answer.reasoning or ""
        row.finish_reason = answer.finish_reason or ""
        row.prompt_tokens = answer.prompt_tokens
        row.completion_tokens = answer.completion_tokens
        row.cost = estimate_cost(answer.prompt_tokens, answer.completion_tokens)
        row.finished_at = timezone.now()
        row.save(update_fields=[*_REPLY_FIELDS, "finished_at"])
        reply = core.Reply(content=row.reply, finish_reason=answer.finish_reason, ref=row.pk)
        self.rows.append((reply, row))
        return reply

    def flush(self) -> None:
        for reply, row in self.rows:
            if reply.problems != row.problems:
                row.problems = list(reply.problems)
                row.save(update_fields=["problems"])


def _visible_text(answer: ChatReply) -> str:
    """The reply's text as sent. ``ChatReply.content`` is stripped, which would glue two
    words together where a cut-off reply and its continuation meet; the raw text is used
    when it is the same text with its surrounding whitespace."""
    try:
        raw = answer.raw["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return answer.content
    if isinstance(raw, str) and raw.strip() == answer.content:
        return raw
    return answer.content


# -- proposals -------------------------------------------------------------------------------


def check_brief(topics: str, count: int) -> None:
    if not topics.strip():
        raise AuthoringError("the brief needs some topic areas")
    if not 1 <= count <= MAX_PROPOSALS:
        raise AuthoringError(f"the number of proposals must be 1 to {MAX_PROPOSALS}, got {count}")


def do_create_brief(topics: str, count: int, *, notes: str = "", user=None) -> ProposalBrief:
    check_brief(topics, count)
    return ProposalBrief.objects.create(
        topics=topics.strip(), count=count, notes=notes.strip(), created_by=user
    )


def _taken_names() -> list[str]:
    """Names of stored domains and of proposals still in play, for the LLM to avoid."""
    names = set(Domain.objects.values_list("name", flat=True))
    names |= set(
        DomainProposal.objects.exclude(status=DomainProposal.Status.REJECTED).values_list(
            "name", flat=True
        )
    )
    return sorted(names)[:300]


def do_propose_domains(brief: ProposalBrief) -> list[DomainProposal]:
    """Ask the LLM for the brief's proposals and store the usable ones.

    The call is recorded whatever happens; when no usable proposal comes back, the brief
    shows why (``last_error``) and :class:`AuthoringError` is raised.
    """
    check_brief(brief.topics, brief.count)
    client = authoring_client()
    recorder = _Recorder(client, subject=f"brief {brief.pk}: {brief.topics[:200]}", brief=brief)
    messages = core.proposals_messages(
        brief.topics, brief.count, existing=_taken_names(), notes=brief.notes
    )
    try:
        reply = recorder(LLMCall.Kind.PROPOSE, messages)
    except core.ChatFailed as error:
        _brief_failed(brief, f"the LLM request failed: {error}")
        raise AuthoringError(f"brief {brief.pk}: the LLM request failed: {error}") from None
    finally:
        client.close()
    proposed, problems = core.parse_proposals(reply.content, brief.count)
    if reply.truncated:
        problems.insert(0, "the reply was cut off at the length limit")
    reply.problems.extend(problems)
    recorder.flush()
    if not proposed:
        why = "; ".join(problems) or "no proposals"
        _brief_failed(brief, f"the LLM's reply held no usable proposal: {why}")
        raise AuthoringError(f"brief {brief.pk}: the LLM's reply held no usable proposal: {why}")
    rows = _store_proposals(brief, recorder.rows[0][1], proposed)
    brief.last_error = "; ".join(problems)
    brief.last_asked_at = timezone.now()
    brief.save(update_fields=["last_error", "last_asked_at"])
    return rows


def _brief_failed(brief: ProposalBrief, why: str) -> None:
    brief.last_error = why
    brief.last_asked_at = timezone.now()
    brief.save(update_fields=["last_error", "last_asked_at"])


def _store_proposals(
    brief: ProposalBrief | None, call: LLMCall, proposed: Sequence[core.ProposedDomain]
) -> list[DomainProposal]:
    rows = [
        DomainProposal(
            brief=brief,
            call=call,
            name=item.name,
            title=item.title[:200],
            goal=item.goal,
            truths=item.truths,
            actions=item.actions,
            truth_noun=item.truth_noun,
            action_noun=item.action_noun,
        )
        for item in proposed
    ]
    return DomainProposal.objects.bulk_create(rows)


DECIDABLE = {
    True: (DomainProposal.Status.PROPOSED, DomainProposal.Status.REJECTED),
    False: (
        DomainProposal.Status.PROPOSED,
        DomainProposal.Status.ACCEPTED,
        DomainProposal.Status.FAILED,
    ),
}


def do_decide_proposals(proposals: Iterable[DomainProposal], *, accept: bool, user=None) -> int:
    """Accept or reject proposals, recording who and when; returns how many changed.

    Only undecided (or, to accept, rejected) proposals can be accepted; a proposal whose
    domain is stored, or being generated, can no longer be rejected.
    """
    status = DomainProposal.Status.ACCEPTED if accept else DomainProposal.Status.REJECTED
    ids = [proposal.pk for proposal in proposals]
    return DomainProposal.objects.filter(pk__in=ids, status__in=DECIDABLE[accept]).update(
        status=status, decided_by=user, decided_at=timezone.now()
    )


# -- seed configs ----------------------------------------------------------------------------


def check_can_generate(proposal: DomainProposal) -> None:
    """Raise :class:`AuthoringError` unless ``proposal``'s config can be generated now."""
    ready = (DomainProposal.Status.ACCEPTED, DomainProposal.Status.FAILED)
    if proposal.status == DomainProposal.Status.GENERATING and not _lease_lapsed(proposal):
        raise AuthoringError(f"proposal {proposal.pk} ({proposal.name}) is already being generated")
    if proposal.status not in ready and proposal.status != DomainProposal.Status.GENERATING:
        raise AuthoringError(
            f"proposal {proposal.pk} ({proposal.name}) is {proposal.get_status_display()}; "
            "only an accepted proposal (or one whose generation failed) can be generated"
        )
    if Domain.objects.filter(name=proposal.name).exists():
        raise AuthoringError(
            f"proposal {proposal.pk}: a domain named {proposal.name!r} already exists; "
            "rename the proposal first"
        )


def _requirements() -> core.ConfigRequirements:
    return core.ConfigRequirements(
        min_truths=settings.AUTHORING_MIN_TRUTHS, min_actions=settings.AUTHORING_MIN_ACTIONS
    )


def _proposed(proposal: DomainProposal) -> core.ProposedDomain:
    return core.ProposedDomain(
        name=proposal.name,
        title=proposal.title,
        goal=proposal.goal,
        truths=proposal.truths,
        actions=proposal.actions,
        truth_noun=proposal.truth_noun,
        action_noun=proposal.action_noun,
    )


def do_generate_domain_config(proposal_id: int) -> DomainProposal:
    """Have the LLM write the seed config of an accepted proposal and store the domain.

    1. Claim the proposal (a conditional update to "generating"), so a job delivered
       twice, or a second click, does nothing.
    2. Run :func:`engine.core.authoring.generate_config` (continuations for cut-off
       replies, bounded regeneration with the problems listed), recording every call.
    3. On success store the domain with ``do_import_domain(..., source="llm")`` and link
       it to the proposal, in one transaction. On failure nothing is stored but the calls;
       the proposal is marked failed with the reason, and :class:`AuthoringError` is raised.
    """
    client = authoring_client()
    try:
        proposal = _claim(proposal_id)
        recorder = _Recorder(
            client, subject=f"proposal {proposal.pk} '{proposal.name}'", proposal=proposal
        )
        keeper = LeaseKeeper(
            DomainProposal,
            proposal.pk,
            settings.AUTHORING_LEASE_SECONDS,
            status=DomainProposal.Status.GENERATING,
        )
        try:
            with keeper:
                outcome = core.generate_config(
                    recorder,
                    _proposed(proposal),
                    requirements=_requirements(),
                    rounds=settings.AUTHORING_CONFIG_ROUNDS,
                    continuations=settings.AUTHORING_CONTINUATIONS,
                )
        except Exception as error:  # a bug, not a bad reply: record it, then raise
            _proposal_failed(proposal, f"crashed: {error!r}")
            raise
        finally:
            recorder.flush()
    finally:
        client.close()
    if outcome.domain is None:
        _proposal_failed(proposal, outcome.error)
        raise AuthoringError(f"proposal {proposal.pk} ({proposal.name}): {outcome.error}")
    try:
        with transaction.atomic():
            if Domain.objects.filter(name=proposal.name).exists():
                raise AuthoringError(f"a domain named {proposal.name!r} was stored meanwhile")
            domain, _changed = do_import_domain(outcome.domain, source=Domain.Source.LLM)
            proposal.domain = domain
            proposal.status = DomainProposal.Status.GENERATED
            proposal.generated_at = timezone.now()
            proposal.error = ""
            proposal.lease_expires_at = None
            proposal.save(
                update_fields=["domain", "status", "generated_at", "error", "lease_expires_at"]
            )
    except (EngineError, DomainError, IntegrityError) as error:
        _proposal_failed(proposal, f"the config could not be stored: {error}")
        raise AuthoringError(
            f"proposal {proposal.pk} ({proposal.name}): the config could not be stored: {error}"
        ) from None
    return proposal


def _lease_lapsed(proposal: DomainProposal) -> bool:
    """Whether a generation marked running has lost its worker (its lease expired)."""
    lease = proposal.lease_expires_at
    return lease is None or lease < timezone.now()


def _claim(proposal_id: int) -> DomainProposal:
    """Claim an accepted (or failed) proposal for generation, with a lease. A proposal
    generating under an expired lease lost its worker and may be claimed again too."""
    proposal = DomainProposal.objects.filter(pk=proposal_id).first()
    if proposal is None:
        raise AuthoringError(f"there is no proposal {proposal_id}")
    check_can_generate(proposal)
    now = timezone.now()
    lapsed = Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True)
    ready = Q(status__in=[DomainProposal.Status.ACCEPTED, DomainProposal.Status.FAILED]) | (
        Q(status=DomainProposal.Status.GENERATING) & lapsed
    )
    claimed = DomainProposal.objects.filter(ready, pk=proposal_id).update(
        status=DomainProposal.Status.GENERATING,
        generation_started_at=now,
        error="",
        attempts=F("attempts") + 1,
        lease_expires_at=lease_until(settings.AUTHORING_LEASE_SECONDS),
    )
    if not claimed:
        raise AuthoringError(f"proposal {proposal_id} ({proposal.name}) is already being generated")
    proposal.refresh_from_db()
    return proposal


def requeue_stalled_generations() -> list[int]:
    """Beat, every 10 s (``benchmark.jobs.requeue_stalled``): a proposal generating past its
    lease lost its worker; it goes back to accepted and its generation is queued again, at
    most once per lease period, or after AUTHORING_MAX_ATTEMPTS tries it is failed with the
    reason (staff may generate it again). Returns the ids queued."""
    from engine.tasks import generate_domain_config_task

    return requeue_stalled(
        DomainProposal,
        queued_field=None,
        grace_seconds=settings.AUTHORING_LEASE_SECONDS,
        max_attempts=settings.AUTHORING_MAX_ATTEMPTS,
        failed=lambda tries: {"error": worker_stopped(tries, "generate it again to retry")},
        queue=generate_domain_config_task.delay,
        pending=DomainProposal.Status.ACCEPTED,
        running=DomainProposal.Status.GENERATING,
        finished_field=None,
    )


def _proposal_failed(proposal: DomainProposal, why: str) -> None:
    proposal.status = DomainProposal.Status.FAILED
    proposal.error = why
    proposal.lease_expires_at = None
    proposal.save(update_fields=["status", "error", "lease_expires_at"])


# -- knowledge books -------------------------------------------------------------------------


@dataclass
class BookResult:
    """What one LLM book run stored: every version, the last one passing or not."""

    instance: Instance
    books: list[KnowledgeBook] = field(default_factory=list)
    error: str = ""
    # The request failed in a way every further request would (wrong key, model or URL).
    fatal: bool = False

    @property
    def passed(self) -> bool:
        return bool(self.books) and self.books[-1].passed_check and not self.error

    def summary(self) -> str:
        if self.error:
            return f"{self.instance}: failed: {self.error}"
        last = self.books[-1]
        versions = f"{len(self.books)} version(s)"
        if last.passed_check:
            return f"{self.instance}: LLM book {last.pk} passed ({versions})"
        problems = [*last.problems, *last.review_problems]
        return (
            f"{self.instance}: no LLM book passed ({versions}; the last had "
            f"{len(problems)} problem(s)); players keep the current book"
        )


def do_write_llm_book(instance: Instance, *, client: ChatClient | None = None) -> BookResult:
    """Have the LLM write (and revise) a knowledge book for ``instance``; store every
    version as a :class:`KnowledgeBook` by author ``llm``.

    Only a version that passed both the checker and the review gets ``passed_check`` and
    so becomes the book players see (``Instance.current_book``); otherwise the book they
    saw before (the deterministic one) stays. The prompt holds the task's rules only.
    """
    own_client = client is None
    client = client or authoring_client()
    recorder = _Recorder(client, subject=f"instance {instance.pk}: {instance}", instance=instance)
    try:
        outcome = core.write_book(
            recorder,
            instance.domain.to_core(),
            instance.to_core(),
            revisions=settings.AUTHORING_BOOK_REVISIONS,
            continuations=settings.AUTHORING_CONTINUATIONS,
        )
    finally:
        recorder.flush()
        if own_client:
            client.close()
    result = BookResult(instance=instance, error=outcome.error, fatal=recorder.fatal)
    previous: KnowledgeBook | None = None
    with transaction.atomic():
        for number, draft in enumerate(outcome.drafts, start=1):
            previous = KnowledgeBook.objects.create(
                instance=instance,
                text=draft.text,
                author=KnowledgeBook.Author.LLM,
                author_detail=f"{client.model}, version {number}"[:200],
                passed_check=draft.passed,
                problems=draft.check_problems,
                review=draft.review_text,
                review_problems=draft.review_problems,
                revision_of=previous,
            )
            LLMCall.objects.filter(pk__in=[reply.ref for reply in draft.replies]).update(
                book=previous
            )
            result.books.append(previous)
    return result


@dataclass
class BooksReport:
    results: list[BookResult] = field(default_factory=list)
    stopped: str = ""

    @property
    def passed(self) -> int:
        return sum(result.passed for result in self.results)

    @property
    def errors(self) -> list[BookResult]:
        return [result for result in self.results if result.error]


def do_write_llm_books(instances: Iterable[Instance]) -> BooksReport:
    """:func:`do_write_llm_book` for each instance with one client; stops early when a
    request fails in a way every further request would (wrong key, model or URL)."""
    report = BooksReport()
    client = authoring_client()
    try:
        for instance in instances:
            result = do_write_llm_book(instance, client=client)
            report.results.append(result)
            if result.fatal:
                report.stopped = f"stopped after {instance}: {result.error}"
                break
    finally:
        client.close()
    return report


def instances_for_books(
    domain: Domain, *, n_truths: int, n_actions: int, again: bool = False
) -> list[Instance]:
    """The instances of one setting, lowest seed first; unless ``again``, those that
    already have a passing LLM book are left out."""
    rows = Instance.objects.filter(domain=domain, n_truths=n_truths, n_actions=n_actions)
    if not again:
        rows = rows.exclude(books__author=KnowledgeBook.Author.LLM, books__passed_check=True)
    return list(rows.select_related("domain").order_by("seed"))


# -- re-running a call -----------------------------------------------------------------------


def do_rerun_call(call_id: int) -> LLMCall:
    """Send a recorded call's messages again (with the LLM configured now) and record the
    reply as a new call linked to the old one, which is kept.

    The new reply is judged as the original step would judge it: proposals are read and
    stored under the brief; a config is read and validated; a book is checked; a review
    is read. A config or book is not stored from a single re-run call: its step is a loop
    (continuations, regeneration, revision) that "Generate the seed config" and "Write LLM
    books" run in full.
    """
    call = (
        LLMCall.objects.select_related("brief", "proposal", "instance__domain")
        .filter(pk=call_id)
        .first()
    )
    if call is None:
        raise AuthoringError(f"there is no LLM call {call_id}")
    client = authoring_client()
    recorder = _Recorder(
        client,
        subject=call.subject,
        brief=call.brief,
        proposal=call.proposal,
        instance=call.instance,
        rerun_of=call,
    )
    try:
        reply = recorder(call.kind, list(call.messages))
    except core.ChatFailed as error:
        raise AuthoringError(f"re-run of call {call.pk} failed: {error}") from None
    finally:
        client.close()
    if reply.truncated:
        reply.problems.append("cut off at the length limit")
    new = recorder.rows[0][1]
    if call.kind == LLMCall.Kind.PROPOSE and call.brief is not None:
        proposed, problems = core.parse_proposals(reply.content, call.brief.count)
        reply.problems.extend(problems)
        _store_proposals(call.brief, new, proposed)
    elif call.kind == LLMCall.Kind.CONFIG and call.proposal is not None:
        data, why = core.extract_json(reply.content)
        if why is not None:
            reply.problems.append(why)
        else:
            _domain, problems = core.config_problems(
                data, _proposed(call.proposal), _requirements()
            )
            reply.problems.extend(problems)
    elif call.kind == LLMCall.Kind.BOOK and call.instance is not None:
        text = core.strip_fence(reply.content)
        instance = call.instance
        reply.problems.extend(check_book(instance.domain.to_core(), instance.to_core(), text))
    elif call.kind == LLMCall.Kind.REVIEW:
        review, why = core.parse_review(reply.content)
        reply.problems.extend([f"unreadable review: {why}"] if review is None else review.problems)
    recorder.flush()
    return new


# -- launching the long steps as Celery jobs -------------------------------------------------
#
# A proposal's generation holds a lease on its own row (above). The other long steps have no
# such row, so each queued one gets an AuthoringJob: claimed with a lease that LeaseKeeper
# renews while it runs, queued again by beat's sweep when its worker died (or its message
# was lost), failed with the reason after AUTHORING_MAX_ATTEMPTS tries. Each try skips what
# was done since the job was queued, so a second try does the rest only.


def launch_proposals(brief: ProposalBrief) -> None:
    """Check now, then ask for the brief's proposals in a background job."""
    check_llm_configured()
    check_brief(brief.topics, brief.count)
    _queue_job(AuthoringJob.Kind.PROPOSALS, [brief.pk])


def launch_config_generation(proposal: DomainProposal) -> None:
    """Check now, then generate the proposal's seed config in a background job."""
    from engine.tasks import generate_domain_config_task

    check_llm_configured()
    check_can_generate(proposal)
    proposal_id = proposal.pk
    transaction.on_commit(lambda: generate_domain_config_task.delay(proposal_id))


BOOK_JOB_SIZE = 20


def launch_llm_books(instance_ids: Sequence[int]) -> int:
    """Check now, then write LLM books in background jobs of ``BOOK_JOB_SIZE`` instances;
    returns the number of jobs queued."""
    check_llm_configured()
    ids = sorted(instance_ids)
    chunks = [ids[start : start + BOOK_JOB_SIZE] for start in range(0, len(ids), BOOK_JOB_SIZE)]
    for chunk in chunks:
        _queue_job(AuthoringJob.Kind.BOOKS, chunk)
    return len(chunks)


def launch_reruns(call_ids: Sequence[int]) -> None:
    check_llm_configured()
    _queue_job(AuthoringJob.Kind.RERUNS, sorted(call_ids))


def _queue_job(kind: str, ids: list[int]) -> AuthoringJob:
    """Record the job and queue it once the caller's transaction commits."""
    from engine.tasks import run_authoring_job_task

    job = AuthoringJob.objects.create(kind=kind, ids=ids, queued_at=timezone.now())
    job_id = job.pk
    transaction.on_commit(lambda: run_authoring_job_task.delay(job_id))
    return job


def run_authoring_job(job_id: int) -> str:
    """A queued authoring job's try; returns what it did.

    1. Claim the job with a conditional update: a pending one, or one running under a
       lapsed lease (its worker died). The claim counts an attempt and writes a lease of
       ``AUTHORING_LEASE_SECONDS``; a job delivered twice finds nothing to claim, so a live
       job never runs twice at the same time.
    2. Past ``AUTHORING_MAX_ATTEMPTS`` tries the job fails, saying why.
    3. Run the step while a ``LeaseKeeper`` renews the lease, skipping what was done since
       the job was queued; record the outcome if this try still holds the job.
    """
    if not claim_with_lease(AuthoringJob, job_id, settings.AUTHORING_LEASE_SECONDS):
        return f"authoring job {job_id} is not pending (done, failed or held by a live try)"
    job = AuthoringJob.objects.get(pk=job_id)
    held = {"status": AuthoringJob.Status.RUNNING, "attempts": job.attempts}
    if job.attempts > settings.AUTHORING_MAX_ATTEMPTS:
        return _job_finished(job, held, _worker_stopped(job.attempts - 1), failed=True)
    step = {
        AuthoringJob.Kind.PROPOSALS: _propose_step,
        AuthoringJob.Kind.BOOKS: _books_step,
        AuthoringJob.Kind.RERUNS: _reruns_step,
    }[job.kind]
    try:
        with LeaseKeeper(AuthoringJob, job.pk, settings.AUTHORING_LEASE_SECONDS, **held):
            outcome = step(job.ids, job.queued_at)
    except AuthoringError as error:
        return _job_finished(job, held, str(error), failed=True)
    except Exception as error:  # a bug, not a bad reply: record it, then raise
        _job_finished(job, held, f"crashed: {error!r}", failed=True)
        raise
    return _job_finished(job, held, outcome)


def _worker_stopped(attempts: int) -> str:
    return worker_stopped(attempts, "launch it again to retry")


def _job_finished(job: AuthoringJob, held: dict, outcome: str, *, failed: bool = False) -> str:
    status = AuthoringJob.Status.FAILED if failed else AuthoringJob.Status.DONE
    recorded = AuthoringJob.objects.filter(pk=job.pk, **held).update(
        status=status, outcome=outcome[:500], finished_at=timezone.now(), lease_expires_at=None
    )
    if not recorded:
        logger.warning("authoring job %s: this try was taken over", job.pk)
    return outcome


def _propose_step(ids: list[int], since: datetime) -> str:
    brief = ProposalBrief.objects.filter(pk=ids[0]).first()
    if brief is None:
        return f"brief {ids[0]} no longer exists"
    if brief.last_asked_at and brief.last_asked_at >= since:
        return f"brief {brief.pk} was answered after this job was queued: nothing to do"
    proposals = do_propose_domains(brief)
    return f"{len(proposals)} proposal(s) stored"


def _books_step(ids: list[int], since: datetime) -> str:
    # Instances given a passing book since the job was queued (by an earlier try) are done.
    written = KnowledgeBook.objects.filter(
        author=KnowledgeBook.Author.LLM,
        passed_check=True,
        created_at__gte=since,
        instance_id__in=ids,
    ).values("instance_id")
    instances = Instance.objects.filter(pk__in=ids).exclude(pk__in=written).select_related("domain")
    report = do_write_llm_books(instances.order_by("pk"))
    return f"{report.passed} of {len(report.results)} book(s) passed {report.stopped}".strip()


def _reruns_step(ids: list[int], since: datetime) -> str:
    done = set(
        LLMCall.objects.filter(rerun_of_id__in=ids, started_at__gte=since).values_list(
            "rerun_of_id", flat=True
        )
    )
    failures = []
    for call_id in ids:
        if call_id in done:
            continue
        try:
            do_rerun_call(call_id)
        except AuthoringError as error:
            failures.append(str(error))
    return "; ".join(failures) or f"{len(ids)} call(s) re-run"


def requeue_stalled_authoring_jobs() -> list[int]:
    """Beat, every ``REQUEUE_STALLED_SECONDS``: queue again the authoring jobs whose worker
    died (running past their lease), or after ``AUTHORING_MAX_ATTEMPTS`` tries fail them
    with the reason; and those still pending, unclaimed, ``AUTHORING_PENDING_GRACE_SECONDS``
    after they were queued (a lost message, or one taken by a worker that died before
    starting it), at most once per grace period. Queueing twice is harmless: only one try
    can claim a job. Returns the ids queued."""
    from engine.tasks import run_authoring_job_task

    return requeue_stalled(
        AuthoringJob,
        queued_field="queued_at",
        grace_seconds=settings.AUTHORING_PENDING_GRACE_SECONDS,
        max_attempts=settings.AUTHORING_MAX_ATTEMPTS,
        failed=lambda attempts: {"outcome": _worker_stopped(attempts)},
        queue=run_authoring_job_task.delay,
    )
