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

Every write goes through here: ``check_ranked_request`` validates, ``do_start_ranked_game``
writes; ``record_ranked_game`` is connected to ``engine.sessions.session_finished``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

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
    round: Round
    model_name: str
    domain: Domain
    n_truths: int
    n_actions: int


def max_open_games() -> int:
    return max(1, int(getattr(settings, "RANKED_MAX_OPEN_GAMES", 8)))


def _name_refused(error: naming.ModelNameError) -> RankedError:
    refused = NotYours(str(error)) if error.status == 403 else RankedError(str(error))
    refused.status = error.status
    return refused


def check_ranked_request(
    user: User,
    *,
    model: str,
    domain: str,
    n_truths: int,
    n_actions: int,
    kind: str = ModelEntry.Kind.MODEL,
) -> RankedRequest:
    """Validate a request for the next ranked game; raises :class:`RankedError`."""
    name = check_model_owner(user, model, kind=kind)
    live = live_round("ranked games are played")
    domain_row = live.domains.filter(name=domain).first()
    if domain_row is None:
        names = ", ".join(live.domains.order_by("name").values_list("name", flat=True))
        raise RankedError(f"round {live.name} has no domain {domain!r} (its domains: {names})")
    if (n_truths, n_actions) not in live.setting_pairs:
        raise RankedError(
            f"round {live.name} has no setting {n_truths}x{n_actions} "
            f"(its settings: {live.settings_label})"
        )
    return RankedRequest(live, name, domain_row, n_truths, n_actions)


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
    :class:`NotYours` otherwise. Ranked games of KUMO and ranked attempts of every other
    family share this check."""
    try:
        name = naming.clean_model_name(model)
        naming.check_claim(name, user=user, kind=kind)
    except naming.ModelNameError as error:
        raise _name_refused(error) from None
    return name


def _games(request: RankedRequest, entry: ModelEntry):
    return RankedGame.objects.filter(
        round=request.round,
        model=entry,
        domain=request.domain,
        n_truths=request.n_truths,
        n_actions=request.n_actions,
    )


def _check_room(request: RankedRequest, entry: ModelEntry) -> None:
    games = _games(request, entry)
    check_quota(
        entry,
        request.round,
        played=games.count(),
        open_ids=list(
            games.filter(session__finished_at__isnull=True).values_list("session_id", flat=True)
        ),
        what=f"{request.domain.name} {request.n_truths}x{request.n_actions}",
        noun="game",
        open_noun="sessions",
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


def _fresh_instance(request: RankedRequest) -> Instance:
    """Generate, solve and store one instance with a secret seed."""
    try:
        return do_generate_secret_instance(
            request.domain, request.n_truths, request.n_actions, source=Instance.Source.RANKED
        )
    except GenerationError as error:
        raise GenerationFailed(f"could not generate a ranked instance: {error}") from None
    except EngineError:
        raise GenerationFailed("could not store a fresh ranked instance; try again") from None


def do_start_ranked_game(
    user: User,
    *,
    model: str,
    domain: str,
    n_truths: int,
    n_actions: int,
    kind: str = ModelEntry.Kind.MODEL,
) -> RankedGame:
    """Start the model's next ranked game and open its session for ``user``.

    1. Check the request, and that the model has a game left and not too many open.
    2. Generate a fresh instance with a secret seed (outside any lock: it can take a while).
    3. Lock the model's row, check again, number the game and open its session. If the
       games ran out meanwhile (a parallel request), the fresh instance is deleted unused.
    """
    request = check_ranked_request(
        user, model=model, domain=domain, n_truths=n_truths, n_actions=n_actions, kind=kind
    )
    try:
        entry = naming.claim_model_name(request.model_name, user=user, kind=kind)
    except naming.ModelNameError as error:
        raise _name_refused(error) from None
    _check_room(request, entry)
    instance = _fresh_instance(request)
    try:
        with transaction.atomic():
            ModelEntry.objects.select_for_update().filter(pk=entry.pk).first()
            _check_room(request, entry)
            number = (_games(request, entry).aggregate(last=Max("number"))["last"] or 0) + 1
            session = PlaySession.objects.create(
                player=user, instance=instance, book=instance.current_book()
            )
            return RankedGame.objects.create(
                round=request.round,
                model=entry,
                domain=request.domain,
                n_truths=request.n_truths,
                n_actions=request.n_actions,
                number=number,
                instance=instance,
                session=session,
            )
    except RankedError:
        instance.delete()
        raise


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


def do_close_open_games(target: Round) -> int:
    """End every unfinished ranked game of ``target`` as unsolved (the round has closed:
    an abandoned game counts, so dropping the hard ones cannot help). Returns how many."""
    open_sessions = RankedGame.objects.filter(
        round=target, session__finished_at__isnull=True
    ).values_list("session_id", flat=True)
    return sum(1 for session_id in list(open_sessions) if sessions.abandon(session_id))
