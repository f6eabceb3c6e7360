"""Practice games: the Play entry of the home page and the domain pages.

Anyone may start one, including an anonymous visitor, who is given a guest account (a
``User`` marked by ``Visitor``, with an unusable password) on their first game and plays
as it for the rest of their browser session; a signed-in user plays as themselves. A study
participant may not: they play their own task set, nothing else.

Each game is played on an instance generated for it alone (source PRACTICE), with a seed
from the operating system's secure random source, so it was never pinned to a round,
played in a ranked game or put in a task set, and no other player ever sees it. The game
goes through ``engine.sessions`` like every other (the same websocket and the same moves),
and never enters the leaderboard: the board takes only ranked games, the runner and the
study.

Starting games costs the server a generation and a solve each (a Hard game of a large
domain, seconds), so a player may start at most ``VISITOR_GAMES_PER_HOUR`` per hour, and
the visitors of one address at most ``VISITOR_GAMES_PER_HOUR_PER_IP`` between them
(``check_hourly_limit``), and the generation runs in a background job, never in a web
worker: a game is asked for as every family's fresh practice task is
(``engine.family_practice``: a ``FamilyPracticeRequest`` of the family ``kumo``, its kind
the domain), and the job generates the instance and opens the session.

``check_practice_request`` validates; ``engine.family_practice.do_request_family_practice``
writes.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from benchmark.permissions import is_visitor
from engine.actions import EngineError, do_generate_secret_instance
from engine.core.families.kumo.generate import GenerationError
from engine.models import (
    Domain,
    FamilyPracticeRequest,
    Instance,
    PlaySession,
    PracticeGame,
    Visitor,
)

# The difficulty settings of docs/domain-model.md ("Difficulty settings").
LEVELS = {"easy": (4, 6), "hard": (12, 16)}
WINDOW = timedelta(hours=1)


class PracticeError(Exception):
    """A practice game refused; ``str()`` is a message for the player, ``status`` the HTTP
    status to answer with."""

    status = 400


class NotForParticipants(PracticeError):
    status = 403


class TooManyGames(PracticeError):
    status = 429


class GenerationFailed(PracticeError):
    status = 503


@dataclass(frozen=True)
class PracticeRequest:
    domain: Domain
    n_truths: int
    n_actions: int
    ip_address: str | None
    level: str = "easy"


def games_per_hour() -> int:
    return max(0, int(getattr(settings, "VISITOR_GAMES_PER_HOUR", 20)))


def games_per_hour_per_ip() -> int:
    return max(0, int(getattr(settings, "VISITOR_GAMES_PER_HOUR_PER_IP", 60)))


def candidate_domains(n_truths: int, n_actions: int):
    """Domains a random practice game may use: big enough for the setting, and not an
    imported KUMO-compatible domain (whose quirks the generator does not reproduce)."""
    return Domain.objects.filter(
        kumo_compatible=False, truth_count__gte=n_truths, action_count__gte=n_actions
    ).defer("data")


def kumo_setting(level: str) -> tuple[int, int]:
    """The (truths, actions) of a KUMO level, as every entry point that takes KUMO's games
    by level reads it (practice, ranked play, the family runner); raises
    :class:`PracticeError` naming the levels."""
    if level not in LEVELS:
        raise PracticeError(f"the level must be one of {', '.join(LEVELS)}, not {level[:20]!r}")
    return LEVELS[level]


def check_practice_request(
    user, *, domain: str = "", level: str = "easy", ip_address: str | None = None
) -> PracticeRequest:
    """Validate a request for a practice game; raises :class:`PracticeError`.

    ``user`` may be anonymous. ``domain`` empty means a random domain.
    """
    if user is not None and user.is_authenticated and hasattr(user, "participant"):
        raise NotForParticipants(
            "study participants play the tasks of their own task set only; "
            "go back to your study page to continue"
        )
    n_truths, n_actions = kumo_setting(level)
    choices = candidate_domains(n_truths, n_actions)
    if domain:
        row = choices.filter(name=domain).first()
        if row is None:
            if Domain.objects.filter(name=domain).exists():
                raise PracticeError(
                    f"the domain {domain[:100]!r} has no {level} practice tasks: it is too "
                    "small for the level, or an imported KUMO-compatible domain"
                )
            raise PracticeError(f"there is no domain {domain[:100]!r} to practise on")
    else:
        names = list(choices.values_list("name", flat=True))
        if not names:
            raise PracticeError("no domain is loaded yet: there is nothing to practise on")
        row = choices.get(name=random.choice(names))
    check_hourly_limit(user, ip_address)
    return PracticeRequest(row, n_truths, n_actions, ip_address, level)


def check_hourly_limit(user, ip_address: str | None) -> None:
    """Refuse (:class:`TooManyGames`) a generation past the hourly limits: a player's own
    (``VISITOR_GAMES_PER_HOUR``) and, for visitors, their address's
    (``VISITOR_GAMES_PER_HOUR_PER_IP``).

    What is counted is each generation asked for (``FamilyPracticeRequest``): KUMO practice
    games and fresh family practice tasks share one budget, since both cost the server a
    generation and a second budget would only double what one visitor can ask for. A stored
    family task served instead is not counted.
    """
    fresh = FamilyPracticeRequest.objects.filter(created_at__gte=timezone.now() - WINDOW)
    if user is not None and user.is_authenticated:
        limit = games_per_hour()
        mine = fresh.filter(player=user)
        if mine.count() >= limit:
            raise TooManyGames(_refusal(f"You have started {limit}", limit, mine))
    if ip_address and (user is None or not user.is_authenticated or is_visitor(user)):
        # Per address for visitors only: clearing cookies makes a new guest, not a new
        # address. Signed-in users are counted by their account (a lab shares an address).
        limit = games_per_hour_per_ip()
        here = fresh.filter(ip_address=ip_address, player__visitor__isnull=False)
        if here.count() >= limit:
            raise TooManyGames(
                _refusal(f"Visitors from your address have started {limit}", limit, here)
            )


def _refusal(who: str, limit: int, counted) -> str:
    oldest = counted.order_by("created_at").values_list("created_at", flat=True).first()
    wait = (oldest + WINDOW - timezone.now()) if oldest else WINDOW
    minutes = max(1, -(-int(wait.total_seconds()) // 60))
    return (
        f"{who} practice games in the last hour, the most allowed "
        f"({limit} an hour; KUMO games and freshly generated family tasks count together). "
        f"You can start another in about {minutes} minute{'s' if minutes != 1 else ''}."
    )


def fresh_instance(domain: Domain, level: str) -> Instance:
    """Generate, solve and store one practice instance of ``domain`` at ``level`` with a
    secret seed (the job of a KUMO practice request, ``engine.family_practice``); raises
    :class:`GenerationFailed` with the reason."""
    n_truths, n_actions = kumo_setting(level)
    try:
        return do_generate_secret_instance(
            domain, n_truths, n_actions, source=Instance.Source.PRACTICE
        )
    except GenerationError as error:
        raise GenerationFailed(
            f"no practice task could be generated in {domain.name}: {error}"
        ) from None
    except EngineError:
        raise GenerationFailed("no practice task could be stored; try again") from None


def lock_address(ip_address: str | None, scope: str = "practice") -> None:
    """Serialise game starts (or, by ``scope``, other counted writes such as sign-ups)
    from one address until the transaction ends, so that parallel requests cannot all pass
    the count. SQLite already runs one write transaction at a time (IMMEDIATE mode);
    PostgreSQL takes a transaction-level advisory lock on the address."""
    if ip_address and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"{scope}:{ip_address}"])


def open_practice_game(player: User, instance: Instance, ip_address: str | None) -> PlaySession:
    """Open ``player``'s session on a fresh practice instance, with its ``PracticeGame``
    record (where the session came from; what ``purge_practice`` deletes). The caller holds
    the transaction."""
    session = PlaySession.objects.create(
        player=player, instance=instance, book=instance.current_book()
    )
    PracticeGame.objects.create(session=session, ip_address=ip_address, started_at=timezone.now())
    return session


def do_make_guest(ip_address: str | None) -> User:
    """A guest account for an anonymous visitor of the family pages (the caller logs it
    in), as a KUMO practice game makes one: the same kind of account, so a visitor plays
    every family as they play KUMO. Refused (:class:`TooManyGames`) once the visitors of
    the address have made ``VISITOR_GAMES_PER_HOUR_PER_IP`` guests in the last hour: a
    client that drops its cookies would otherwise make an account per click."""
    with transaction.atomic():
        lock_address(ip_address)
        return _make_guest(ip_address)


def _make_guest(ip_address: str | None) -> User:
    if ip_address:
        limit = games_per_hour_per_ip()
        since = timezone.now() - WINDOW
        made = Visitor.objects.filter(ip_address=ip_address, created_at__gte=since)
        if made.count() >= limit:
            raise TooManyGames(
                f"Visitors from your address have started {limit} guest sessions in the last "
                "hour, the most allowed; log in or sign up to play on, or try again later."
            )
    guest = User(username=f"visitor-{secrets.token_hex(8)}")
    guest.set_unusable_password()
    guest.save()
    Visitor.objects.create(user=guest, ip_address=ip_address)
    return guest


def purge_practice(older_than: timedelta | None = None) -> dict[str, int]:
    """Delete practice games older than ``older_than`` (PRACTICE_KEEP_DAYS by default):
    their sessions and steps, their one-game instances, and the guest accounts left with
    no game. Practice play is never analysed or ranked, so nothing of value goes; without
    this, every visitor's game would keep an instance and an account for ever.

    Run daily by beat (engine.purge_practice). Returns what was deleted, by kind.
    """
    if older_than is None:
        older_than = timedelta(days=settings.PRACTICE_KEEP_DAYS)
    cutoff = timezone.now() - older_than
    old = PracticeGame.objects.filter(started_at__lt=cutoff)
    session_ids = list(old.values_list("session_id", flat=True))
    instance_ids = list(
        PlaySession.objects.filter(
            pk__in=session_ids, instance__source=Instance.Source.PRACTICE
        ).values_list("instance_id", flat=True)
    )
    with transaction.atomic():
        # The request that asked for each game (only a count for the hourly limit) goes
        # with it, so that a guest whose games are gone is left with nothing.
        FamilyPracticeRequest.objects.filter(session_id__in=session_ids).delete()
        sessions_deleted = (
            PlaySession.objects.filter(pk__in=session_ids).delete()[1].get("engine.PlaySession", 0)
        )
        # An instance made for one game and played by nobody else now.
        instances = Instance.objects.filter(
            pk__in=instance_ids, source=Instance.Source.PRACTICE, sessions__isnull=True
        )
        instances_deleted = instances.delete()[1].get("engine.Instance", 0)
        # A guest who played family tasks keeps them, as any account does (they are not
        # practice games: the family board's practice row counts them).
        guests = User.objects.filter(
            visitor__created_at__lt=cutoff,
            play_sessions__isnull=True,
            family_attempts__isnull=True,
            family_practice_requests__isnull=True,
        )
        guests_deleted = guests.delete()[1].get("auth.User", 0)
    return {
        "sessions": sessions_deleted,
        "instances": instances_deleted,
        "guests": guests_deleted,
    }
