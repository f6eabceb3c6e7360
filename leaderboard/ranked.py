"""Ranked games: verified evaluation on fresh instances during a live round.

A model is ranked on the live round by playing ``round.ranked_games`` games per domain and
setting of the round. Each game is played on an instance the server generates for that
game alone, with a seed drawn from the operating system's secure random source that never
leaves the server, so no one can have seen it, and no answer learned elsewhere helps.
The game is played through the ordinary session service (``engine.sessions``: the HTTP API
or the runner), which records every move; when it ends, its trajectory enters the board
as *verified*. Until the round closes, the player learns whether the answer was right, the
actions and the relative action count, never the valid truth or the unplayed
observations (``leaderboard.access``). A game is never replayed: the numbers 1 … N are
each used once, and a game left open when the round closes counts as unsolved.

Ranked play of every family is one flow (``start_ranked``, ``close_open_ranked``) over two
storages (``RankedPlays``): KUMO's games here, every other family's attempts in
``leaderboard.ranked_families``. ``do_start_ranked_game`` starts a KUMO game through it;
``record_ranked_game`` is connected to ``engine.sessions.session_finished``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max, QuerySet

from engine import sessions
from engine.actions import EngineError, do_generate_secret_instance
from engine.core.families.kumo.generate import GenerationError
from engine.core.families.kumo.metrics import relative_action_count
from engine.models import Domain, Instance, PlaySession
from leaderboard import names as naming
from leaderboard.actions import mark_stale, queue_recompute
from leaderboard.models import ModelEntry, RankedGame, Round, Trajectory


class RankedError(Exception):
    """A ranked game refused; ``str()`` says why. ``status`` is the HTTP status to answer."""

    status = 400


class NotYours(RankedError):
    status = 403


class NoMoreGames(RankedError):
    """Every ranked game of this model, domain and setting is played or open."""

    status = 409


class TooManyOpenGames(RankedError):
    """The model has ``RANKED_MAX_OPEN_GAMES`` unfinished games of this domain and setting."""

    status = 409


class GenerationFailed(RankedError):
    status = 503


@dataclass(frozen=True)
class RankedRequest:
    """A checked request for the next ranked play of ``plays``' kind: the live round, the
    model's checked name, and ``key``, what the round declares (KUMO: the domain and the
    setting; another family: the family, kind and level)."""

    round: Round
    model_name: str
    plays: RankedPlays
    key: dict


def max_open_games() -> int:
    return max(1, int(getattr(settings, "RANKED_MAX_OPEN_GAMES", 8)))


def _name_refused(error: naming.ModelNameError) -> RankedError:
    refused = NotYours(str(error)) if error.status == 403 else RankedError(str(error))
    refused.status = error.status
    return refused


def live_round(what: str) -> Round:
    """The live round, or :class:`NoMoreGames` saying that ``what`` needs one (ranked play
    of every family happens during a live round only)."""
    live = Round.objects.filter(status=Round.Status.ACTIVE).first()
    if live is None:
        raise NoMoreGames(f"no round is live: {what} during a live round only")
    return live


def check_model_owner(user: User, model: str, *, kind: str = ModelEntry.Kind.MODEL) -> str:
    """The model's name, checked, if ``user`` may play ranked under it (``leaderboard.names``:
    a name the account may claim, or one it owns); :class:`RankedError` or
    :class:`NotYours` otherwise."""
    try:
        name = naming.clean_model_name(model)
        naming.check_claim(name, user=user, kind=kind)
    except naming.ModelNameError as error:
        raise _name_refused(error) from None
    return name


# -- ranked play of every family: one flow over two storages ---------------------------------


class RankedPlays:
    """Where one kind of ranked play is stored, and how its task is made: KUMO's games
    (``RankedGame``: a session on a fresh instance, below) or every other family's attempts
    (``RankedFamilyAttempt``: an attempt at a fresh task, ``leaderboard.ranked_families``).
    The rules (who may play under which name, the live round, the quota, a fresh task per
    play made outside any lock, the numbering, the clean-up of a task never played, and
    failure at the close) are written once, in :func:`start_ranked` and
    :func:`close_open_ranked`, for both."""

    ranked_model: type  # the ranked rows: RankedGame, RankedFamilyAttempt
    play_field = "session"  # the ranked row's link to the play it opened
    noun = "game"  # what one ranked play is called in messages
    open_noun = "sessions"  # what the ids of the open ones are
    doing = "ranked games are played"

    def check(self, live: Round, spec: dict) -> dict:
        """The key of ``spec`` in ``live`` (what the round declares), or :class:`RankedError`."""
        raise NotImplementedError

    def label(self, key: dict) -> str:
        raise NotImplementedError

    def rows(self, live: Round, entry: ModelEntry, key: dict) -> QuerySet:
        """The model's ranked rows of ``key`` in ``live``."""
        return self.ranked_model.objects.filter(round=live, model=entry, **key)

    def open_ids(self, rows: QuerySet) -> list[int]:
        """The ids of the unfinished plays among ``rows``."""
        unfinished = {f"{self.play_field}__finished_at__isnull": True}
        return list(rows.filter(**unfinished).values_list(f"{self.play_field}_id", flat=True))

    def fresh(self, key: dict):
        """A task made for one ranked play alone, with a secret seed (outside any lock: it
        can take seconds), or :class:`GenerationFailed`."""
        raise NotImplementedError

    def open_play(self, user: User, entry: ModelEntry, task) -> dict:
        """Open the play on ``task``: the ranked row's links to the task and the play."""
        raise NotImplementedError

    def open(self, user: User, entry: ModelEntry, request: RankedRequest, number: int, task):
        """Inside the model's lock: open the play on ``task`` and store its ranked row."""
        return self.ranked_model.objects.create(
            round=request.round,
            model=entry,
            number=number,
            **self.open_play(user, entry, task),
            **request.key,
        )

    def discard(self, task) -> None:
        """A fresh task no play was opened on (the quota ran out meanwhile): deleted."""
        task.delete()

    def close_open(self, target: Round) -> int:
        """End every unfinished play of ``target`` as failed; how many ended."""
        raise NotImplementedError


def check_ranked(user: User, plays: RankedPlays, *, model: str, kind: str, spec: dict):
    """Validate a request for the next ranked play; raises :class:`RankedError`."""
    name = check_model_owner(user, model, kind=kind)
    live = live_round(plays.doing)
    return RankedRequest(live, name, plays, plays.check(live, spec))


def _check_room(request: RankedRequest, entry: ModelEntry) -> None:
    rows = request.plays.rows(request.round, entry, request.key)
    check_quota(
        entry,
        request.round,
        played=rows.count(),
        open_ids=request.plays.open_ids(rows),
        what=request.plays.label(request.key),
        noun=request.plays.noun,
        open_noun=request.plays.open_noun,
    )


def check_quota(
    entry: ModelEntry,
    target: Round,
    *,
    played: int,
    open_ids: list[int],
    what: str,
    noun: str,
    open_noun: str,
) -> None:
    """The ranked-play quota of every family (KUMO's games and the others' attempts): a
    model plays ``target.ranked_games`` of each kind, never one more (nothing is replayed),
    with at most ``RANKED_MAX_OPEN_GAMES`` unfinished at once."""
    if played >= target.ranked_games:
        raise NoMoreGames(
            f"{entry.name} has played all {target.ranked_games} ranked {noun}s of {what} in "
            f"round {target.name}; a ranked {noun} is never replayed"
        )
    if len(open_ids) >= max_open_games():
        raise TooManyOpenGames(
            f"{entry.name} already has {len(open_ids)} unfinished ranked {noun}s of {what} "
            f"({open_noun} {', '.join(map(str, open_ids))}); finish one first"
        )


def start_ranked(
    user: User,
    plays: RankedPlays,
    *,
    model: str,
    spec: dict,
    kind: str = ModelEntry.Kind.MODEL,
):
    """Start the model's next ranked play of ``spec`` (any family) for ``user``.

    1. Check the request, and that the model has a play left and not too many open.
    2. Make a fresh task with a secret seed (outside any lock: it can take a while).
    3. Lock the model's row, check again, number the play and open it. If the plays ran
       out meanwhile (a parallel request), the fresh task is deleted unused.
    """
    request = check_ranked(user, plays, model=model, kind=kind, spec=spec)
    try:
        entry = naming.claim_model_name(request.model_name, user=user, kind=kind)
    except naming.ModelNameError as error:
        raise _name_refused(error) from None
    _check_room(request, entry)
    task = plays.fresh(request.key)
    try:
        with transaction.atomic():
            ModelEntry.objects.select_for_update().filter(pk=entry.pk).first()
            _check_room(request, entry)
            rows = plays.rows(request.round, entry, request.key)
            number = (rows.aggregate(last=Max("number"))["last"] or 0) + 1
            return plays.open(user, entry, request, number, task)
    except (RankedError, IntegrityError):
        plays.discard(task)
        raise


def all_ranked_plays() -> tuple[RankedPlays, ...]:
    """Every storage of ranked play: KUMO's games and every other family's attempts."""
    from leaderboard.ranked_families import FAMILY_ATTEMPTS

    return (KUMO_GAMES, FAMILY_ATTEMPTS)


def close_open_ranked(target: Round) -> int:
    """End every unfinished ranked play of ``target``, of every family, as failed (the
    round has closed: an abandoned play counts, so dropping the hard ones cannot help).
    Returns how many ended."""
    return sum(plays.close_open(target) for plays in all_ranked_plays())


# -- KUMO's ranked games ---------------------------------------------------------------------


class KumoGames(RankedPlays):
    """KUMO's ranked games: a session (``engine.sessions``) on an instance generated for it
    alone, recorded as a verified trajectory when it ends (``record_ranked_game``)."""

    ranked_model = RankedGame

    def check(self, live: Round, spec: dict) -> dict:
        cells = live.kumo_cells()  # its domains × settings and its kumo family tasks
        names = list(dict.fromkeys(name for name, _t, _a in cells))
        if spec["domain"] not in names:
            raise RankedError(
                f"round {live.name} has no domain {spec['domain']!r} "
                f"(its domains: {', '.join(sorted(names))})"
            )
        setting = (spec["n_truths"], spec["n_actions"])
        if (spec["domain"], *setting) not in cells:
            listed = ", ".join(f"{t}x{a}" for name, t, a in cells if name == spec["domain"])
            raise RankedError(
                f"round {live.name} has no setting {setting[0]}x{setting[1]} for "
                f"{spec['domain']} (its settings there: {listed})"
            )
        domain_row = Domain.objects.get(name=spec["domain"])
        return {"domain": domain_row, "n_truths": setting[0], "n_actions": setting[1]}

    def label(self, key: dict) -> str:
        return f"{key['domain'].name} {key['n_truths']}x{key['n_actions']}"

    def fresh(self, key: dict) -> Instance:
        try:
            return do_generate_secret_instance(
                key["domain"], key["n_truths"], key["n_actions"], source=Instance.Source.RANKED
            )
        except GenerationError as error:
            raise GenerationFailed(f"could not generate a ranked instance: {error}") from None
        except EngineError:
            raise GenerationFailed("could not store a fresh ranked instance; try again") from None

    def open_play(self, user, entry, task) -> dict:
        session = PlaySession.objects.create(player=user, instance=task, book=task.current_book())
        return {"instance": task, "session": session}

    def close_open(self, target: Round) -> int:
        open_sessions = RankedGame.objects.filter(
            round=target, session__finished_at__isnull=True
        ).values_list("session_id", flat=True)
        return sum(1 for session_id in list(open_sessions) if sessions.abandon(session_id))


KUMO_GAMES = KumoGames()


def do_start_ranked_game(
    user: User,
    *,
    model: str,
    domain: str,
    n_truths: int,
    n_actions: int,
    kind: str = ModelEntry.Kind.MODEL,
) -> RankedGame:
    """Start the model's next ranked KUMO game and open its session for ``user``
    (:func:`start_ranked`)."""
    spec = {"domain": domain, "n_truths": n_truths, "n_actions": n_actions}
    return start_ranked(user, KUMO_GAMES, model=model, spec=spec, kind=kind)


def record_ranked_game(sender, *, session: PlaySession, actions: list[str], **kwargs) -> None:
    """When a ranked game's session ends: store its verified trajectory and mark the
    board stale (inside the finishing transaction, so both commit together)."""
    if session.instance.source != Instance.Source.RANKED:
        # A ranked game is always played on an instance generated for it alone
        # (``_fresh_instance``): any other session ends without a query here.
        return
    game = (
        RankedGame.objects.filter(session_id=session.pk)
        .select_related("instance")
        .defer("instance__observations", "instance__truths", "instance__actions")
        .first()
    )
    if game is None:
        return
    instance = game.instance
    Trajectory.objects.create(
        model_id=game.model_id,
        instance_id=instance.pk,
        domain_id=instance.domain_id,
        n_truths=game.n_truths,
        n_actions=game.n_actions,
        run=game.number,
        actions=actions,
        answer=session.answer or None,
        correct=bool(session.correct),
        information_actions=session.actions_taken,
        invalid_moves=session.invalid_moves,
        relative_action_count=relative_action_count(
            session.actions_taken, instance.oracle_actions or 0
        ),
        verified=True,
    )
    mark_stale(game.model_id, instance.domain_id, game.n_truths, game.n_actions)
    queue_recompute()
