"""Limits every game of every family obeys, written once for both play services
(``engine.sessions`` for KUMO's games, ``engine.families`` for the others').

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
