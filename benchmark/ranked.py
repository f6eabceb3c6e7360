"""The runner's ranked mode: play a model's ranked games of the live round (verified rows).

A ranked run (``evaluate --ranked``, or an :class:`~benchmark.models.EvaluationRun` with
``ranked``) starts the model's ranked games one by one through ``leaderboard.ranked`` (each
on an instance generated for it alone) and plays every move through the session service
(``engine.sessions``), exactly as a client of the HTTP API does, so the server records the
play itself and the board counts it as verified. The runner only adds what the API cannot
know: the conversation, the token counts and the parse errors of each game.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Exists, OuterRef

from benchmark.runner import Job
from engine import sessions
from engine.core.families.kumo.book import write_book
from engine.core.families.kumo.game import Game, GameResult, InvalidMove
from engine.core.families.kumo.types import Domain as CoreDomain
from engine.core.families.kumo.types import Instance as CoreInstance
from engine.core.families.kumo.types import Observation
from engine.models import Domain, PlayStep
from leaderboard import ranked
from leaderboard.models import ModelEntry, RankedGame, Round, model_name_key


class SessionGame(Game):
    """The engine's game, with every move sent through the session service first.

    The service replays the stored moves with the same rules, so the local game (which
    gives the runner its names and counters) and the recorded session always agree.
    """

    def __init__(
        self, domain: CoreDomain, instance: CoreInstance, *, session_id: int, user: User
    ) -> None:
        super().__init__(domain, instance)
        self.session_id = session_id
        self.user = user

    def take_action(self, name: str) -> Observation:
        self._send(sessions.take_action, name)
        return super().take_action(name)

    def answer(self, truth: str) -> GameResult:
        self._send(sessions.answer, truth)
        return super().answer(truth)

    def _send(self, move, text: str) -> None:
        try:
            move(self.session_id, self.user, text)
        except sessions.SessionFinished as error:
            raise InvalidMove(str(error)) from error
        except sessions.SessionError:
            # Refused before it counted (an empty or over-long name): the local game
            # refuses it too, by the same rules.
            pass

    def close(self) -> None:
        # Each runner thread has its own database connection: give it back after a game.
        connection.close()


@dataclass(frozen=True)
class RankedTarget:
    round: Round
    domains: list[Domain]


def check_ranked_target(
    domain_names: list[str], n_truths: int, n_actions: int
) -> tuple[RankedTarget | None, list[str]]:
    """The live round and the requested domains in it, or the problems (for a run spec)."""
    live = Round.objects.filter(status=Round.Status.ACTIVE).first()
    if live is None:
        return None, ["no round is live: ranked games are played during a live round only"]
    problems = []
    # Its domains × settings and its kumo/DOMAIN/LEVEL family tasks.
    cells = live.kumo_cells()
    settings = live.kumo_settings(cells)
    if (n_truths, n_actions) not in settings:
        listed = ", ".join(f"{t}/{a}" for t, a in settings)
        problems.append(
            f"round {live.name} has no setting {n_truths}x{n_actions} (its settings: {listed})"
        )
    here = {name for name, t, a in cells if (t, a) == (n_truths, n_actions)}
    everywhere = sorted({name for name, _t, _a in cells})
    missing = [name for name in domain_names if name not in everywhere]
    if missing:
        problems.append(
            f"round {live.name} has no domain(s) {', '.join(missing)} "
            f"(its domains: {', '.join(everywhere)})"
        )
    elsewhere = [n for n in domain_names if n in everywhere and n not in here]
    if elsewhere and (n_truths, n_actions) in settings:
        problems.append(
            f"round {live.name} has no {n_truths}x{n_actions} games of {', '.join(elsewhere)}"
        )
    rows = {row.name: row for row in Domain.objects.filter(name__in=here)}
    return RankedTarget(live, [rows[n] for n in domain_names if n in rows]), problems


def ranked_games_left(run, live: Round, played: set[tuple[str, int]]) -> int:
    """How many ranked games ``run`` can still play: the round's number per domain, less
    the model's games this run did not play that are finished or already begun."""
    taken = _model_games(run, live).filter(domain__in=run.domains.all())
    elsewhere = sum(
        1
        for game in taken
        if (game.domain.name, game.number) not in played
        and (game.session.finished or game.has_steps)
    )
    return run.domains.count() * live.ranked_games - len(played) - elsewhere


def ranked_jobs(
    run,
    user: User,
    *,
    played: set[tuple[str, int]],
    sessions_by_key: dict[str, int],
    abandoned: list[int],
) -> Iterator[Job]:
    """The ranked games ``run`` still has to play, started lazily (the next game is
    generated only when the runner is ready for it). Each job's session id is put in
    ``sessions_by_key`` under the job's ``game_key``.

    Games of the model this run did not play (``played`` holds its (domain, number)
    pairs): an open game with no move yet is played; an open game with moves (a runner
    that stopped mid-game) cannot be replayed, so it is ended as unsolved and listed in
    ``abandoned``; a finished game counts as it is. Then new games up to the round's number.
    """
    live = Round.objects.get(status=Round.Status.ACTIVE)
    for domain in run.domains.order_by("name"):
        core_domain = domain.to_core()
        games = _model_games(run, live).filter(domain=domain).select_related("instance")
        for game in games.order_by("number"):
            if (domain.name, game.number) in played or game.session.finished:
                continue
            if game.has_steps or game.session.player_id != user.pk:
                sessions.abandon(game.session_id)
                abandoned.append(game.session_id)
                continue
            yield _job(domain, core_domain, game, sessions_by_key)
        while True:
            try:
                game = ranked.do_start_ranked_game(
                    user,
                    model=run.model,
                    domain=domain.name,
                    n_truths=run.n_truths,
                    n_actions=run.n_actions,
                    kind=ModelEntry.Kind.BASELINE if run.built_in else ModelEntry.Kind.MODEL,
                )
            except ranked.NoMoreGames:
                break  # every game of this domain is played or open
            yield _job(domain, core_domain, game, sessions_by_key)


def _model_games(run, live: Round):
    """The run's model's ranked games of the live round in the run's setting."""
    return (
        RankedGame.objects.filter(
            round=live,
            model__name_key=model_name_key(run.model),
            n_truths=run.n_truths,
            n_actions=run.n_actions,
        )
        .select_related("domain", "session")
        .annotate(has_steps=Exists(PlayStep.objects.filter(session_id=OuterRef("session_id"))))
    )


def _job(
    domain: Domain, core_domain: CoreDomain, game: RankedGame, sessions_by_key: dict[str, int]
) -> Job:
    core = game.instance.to_core()
    book = game.session.book_text() or write_book(core_domain, core)
    job = Job(domain.name, core_domain, core, book, game.number)
    sessions_by_key[job.game_key] = game.session_id
    return job
