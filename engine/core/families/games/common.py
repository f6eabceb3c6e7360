"""What every multi-turn game shares (KORGym-style, written afresh): the game contract and
the replay that keeps every game's state on the server.

A game's whole state lives in the hidden part of its instance and in the list of moves
played so far (the *history*): the state after the history is always rebuilt by replaying
the moves from the start, so nothing but the moves needs storing and nothing secret (a
code to guess, a future random draw) ever needs to travel to the player. A move that is
not allowed is refused with the reason and counted, and never enters the history.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.families.base import Kind

# KORGym's five text capability dimensions (its sixth, multimodal, has no text games).
DIMENSIONS = {
    "mathematical_logical": "Mathematical and logical reasoning",
    "control_interaction": "Control and interaction reasoning",
    "puzzle": "Puzzle reasoning",
    "spatial_geometric": "Spatial and geometric reasoning",
    "strategic": "Strategic reasoning",
}


class IllegalMove(ValueError):
    """A move the game does not allow now; ``str()`` says why (for the player)."""


# The arrow keys of the games moved by direction, and the directions' short forms.
ARROW_KEYS = {"ArrowUp": "up", "ArrowDown": "down", "ArrowLeft": "left", "ArrowRight": "right"}
SHORT_DIRECTIONS = {"u": "up", "d": "down", "l": "left", "r": "right"}


def read_direction(move: str) -> str:
    """up, down, left or right from a move ("Up.", "u"…); ``IllegalMove`` otherwise."""
    word = move.strip().lower().rstrip(".")
    word = SHORT_DIRECTIONS.get(word, word)
    if word not in ("up", "down", "left", "right"):
        raise IllegalMove("a move is up, down, left or right")
    return word


@dataclass(frozen=True)
class Step:
    """What one accepted move shows the player, and whether the game is over."""

    observation: Any
    over: bool


class Game(ABC):
    """One game. ``dimension`` is its KORGym capability dimension (a key of ``DIMENSIONS``).

    ``keys`` maps keyboard keys (``KeyboardEvent.key`` names, e.g. ``"ArrowUp"``) to the
    move each plays, for games where a key press is the natural move in the browser.
    A game whose board is worth drawing puts it, as text, in ``public["view"]`` at the
    start and in each observation's ``"view"`` after a move; the page shows the latest.

    ``score`` is in [0, 1] (1 = won / solved as well as the reference). Games whose KORGym
    score is a count without a fixed top (2048's merged points, apples eaten) report it from
    ``points`` and set ``log_scaled``: the capability-dimension mean log-transforms those
    before normalising (``leaderboard.games_board``).
    """

    kind: Kind
    dimension: str
    single_turn: bool = False
    keys: Mapping[str, str] = {}
    log_scaled: bool = False

    @abstractmethod
    def generate(self, rng, params: Mapping[str, int]) -> tuple[dict, dict]:
        """(public, hidden): ``public`` holds ``text`` (the rules and the start) and what a
        page needs; ``hidden`` holds what the game needs to run (the start state, any secret)."""

    @abstractmethod
    def initial(self, public: Mapping[str, Any], hidden: Mapping[str, Any]) -> Any:
        """The state before any move."""

    @abstractmethod
    def play(self, state: Any, move: str) -> tuple[Any, Step]:
        """The state after ``move`` and what the player sees; ``IllegalMove`` if refused.
        Must not change ``state`` in place."""

    @abstractmethod
    def score(self, state: Any, moves: int, public: Mapping[str, Any]) -> float:
        """The game's score in [0, 1] for the state reached in ``moves`` moves."""

    def points(self, state: Any, moves: int, public: Mapping[str, Any]) -> float:
        """KORGym's own score for the game (the same as ``score`` unless ``log_scaled``)."""
        return self.score(state, moves, public)

    @abstractmethod
    def reference(self, public: Mapping[str, Any], hidden: Mapping[str, Any]) -> list[str]:
        """A reference player's moves from the start (optimal where the game allows)."""

    def display(
        self, public: Mapping[str, Any], state: Any, *, finished: bool = False
    ) -> dict | None:
        """The board of ``state`` for a person (``engine.core.families.display``), or None
        for the text view. Drawn only from what the player has seen: the state also holds
        the game's secrets (a hidden word, the mines), which may be drawn only when
        ``finished`` (the game has ended and its answer is shown)."""
        return None

    def solution_text(self, public: Mapping[str, Any], hidden: Mapping[str, Any]) -> str:
        """The right answer in a player's words, shown once the game has ended: by default
        the reference player's moves."""
        moves = self.reference(public, hidden)
        if len(moves) == 1:
            return moves[0]
        return f"{len(moves)} moves: {', '.join(moves)}"

    def describe(self, observation: Any) -> str:
        """What a move showed, in words for the page's move log (the board apart)."""
        if not isinstance(observation, Mapping):
            return "" if observation is None else str(observation)
        return "; ".join(
            f"{str(key).replace('_', ' ')}: {_words(value)}"
            for key, value in observation.items()
            if key != "view"
        )

    def turn_limit(self, public: Mapping[str, Any]) -> int:
        return int(public["turn_limit"])

    def replay(
        self, public: Mapping[str, Any], hidden: Mapping[str, Any], history: Sequence[str]
    ) -> tuple[Any, bool]:
        """The state after the accepted ``history`` and whether the game is over."""
        state = self.initial(public, hidden)
        over = False
        for move in history:
            state, step = self.play(state, move)
            over = step.over
        return state, over or len(history) >= self.turn_limit(public)


def _words(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_words(v) for v in value) or "none"
    return str(value)


def at_words(square: Sequence[int], origin: int = 0) -> str:
    """A square (row, column counted from ``origin``) as a player reads it, from 1."""
    return f"row {square[0] - origin + 1}, column {square[1] - origin + 1}"


def plural(count: int, one: str, many: str = "") -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"
