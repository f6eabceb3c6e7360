"""Rules every game of every family obeys, written once for both play services
(``engine.sessions`` for KUMO's games, ``engine.families`` for the others'): the errors a
move meets, with the status every interface answers them with, and the cap of refused
moves.

Both services raise the same kinds of error (their own classes derive from these): a play
that is not the caller's (404), a play that has ended — its time ran out included (409) —
and a move refused (400; ``"finished": true`` when that refusal ended the game).

A refused move is stored as a step, with its reason, as an accepted one is (the record of a
game is every move sent). So that a player cannot grow a game's record without end by
sending moves the game refuses, a game ends once ``PLAY_MAX_REFUSED_MOVES`` of its moves
have been refused: the move that reaches the cap is stored and refused like any other, and
the game then ends as it ends when its time runs out (a KUMO game unsolved; another
family's game scored on the moves it accepted).
"""

from __future__ import annotations

from django.conf import settings

DEFAULT_MAX_REFUSED_MOVES = 200


class PlayError(Exception):
    """A move or an answer refused; ``str()`` is a message for the player."""


class PlayNotFound(PlayError):
    """No such play, or another player's (the two are not told apart)."""


class PlayFinished(PlayError):
    """The play has ended: nothing more can be sent to it."""


class PlayTimeUp(PlayFinished):
    """The play's time limit passed: it has ended (the move that found it is not played)."""


class PlayRefused(PlayError):
    """A move the game refused (stored and counted); ``ended`` when that refusal reached
    the cap of refused moves and ended the game."""

    def __init__(self, reason: str, *, ended: bool = False) -> None:
        super().__init__(reason)
        self.ended = ended


def error_reply(error: PlayError) -> tuple[int, dict]:
    """The HTTP status and JSON body of a refused move or answer, for every family: 404 not
    the caller's, 409 ended (its time run out included), 400 refused — with
    ``"finished": true`` when the refusal ended the game."""
    status = (
        404 if isinstance(error, PlayNotFound) else 409 if isinstance(error, PlayFinished) else 400
    )
    body: dict = {"error": str(error)}
    if isinstance(error, PlayRefused) and error.ended:
        body["finished"] = True
    return status, body


def max_refused_moves() -> int:
    """How many refused moves end a game (``PLAY_MAX_REFUSED_MOVES``, at least 1)."""
    return max(1, int(getattr(settings, "PLAY_MAX_REFUSED_MOVES", DEFAULT_MAX_REFUSED_MOVES)))


def ends_the_game(refused_moves: int) -> bool:
    """Whether a game with ``refused_moves`` refused moves (the one just refused counted)
    has reached the cap and ends now."""
    return refused_moves >= max_refused_moves()


def ending_reason(reason: str) -> str:
    """A refused move's reason, told that it ended the game."""
    return (
        f"{reason} — this game has now ended: {max_refused_moves()} of its moves were "
        "refused, the most a game takes"
    )
