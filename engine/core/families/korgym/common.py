"""What every KORGym game shares here: the game contract, KORGym's answer extraction and
its capability dimensions.

KORGym (github.com/multimodal-art-projection/KORGym) serves each game as three calls on a
JSON *item*: ``generate(seed)`` makes the starting item (secrets included), ``print_board``
turns an item into the prompt the model sees, and ``verify`` applies the model's *action*
(the text after the last "Answer:" of its reply) and updates ``score`` and ``is_end``.
Single-turn games are verified once; multi-turn games are verified again and again, each
turn's prompt being the new board alone, for at most 100 turns.

A game here plays exactly that, written afresh and checked against the output of KORGym's
own code (the fixtures under tests/families/korgym/): the item lives in the task's hidden
part and never leaves the server; the player sees the board text only. Where KORGym draws
chance during play from Python's global random generator (continuing after
``random.seed(seed)`` in ``generate``), a game here draws from its own generator, seeded
the same way and carried on from generation, so the same seed and moves give the same
boards as KORGym run one game at a time.
"""

from __future__ import annotations

import copy
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

# The paper's six dimensions; its text games fall in the first five (the sixth is image
# input). Each game's dimension is the paper's (Tables 7–11; ../docs/task-families.md).
DIMENSIONS = {
    "MLR": "Mathematical and logical reasoning",
    "CIR": "Control and interaction reasoning",
    "PR": "Puzzle reasoning",
    "SGR": "Spatial and geometric reasoning",
    "SR": "Strategic reasoning",
}

# KORGym plays a multi-turn game for at most this many turns (eval_lib/eval.py).
MAX_TURNS = 100

# What KORGym's reply normaliser removes before looking for the answer, in its order.
_REMOVED = (
    "**",
    "$\\boxed{",
    "}$",
    "\\$",
    "$\\text{",
    "$",
    "\\mathrm{",
    "\\{",
    "\\text",
    "\\(",
    "\\mathbf{",
    "{",
    "\\boxed",
)
_ANSWER = re.compile(r"(?i)Answer\s*:\s*(.*)")


def extract_action(reply: str | None) -> str:
    """The action KORGym reads from a model's reply: after removing its list of LaTeX and
    Markdown marks, the text after "Answer:" (to the end of that line) in the part from the
    last occurrence of "answer" (any case); "" when there is none. A reply whose last
    "answer" is not followed by a colon reads as "" even if an earlier line had one."""
    if reply is None:
        return ""
    text = reply
    for mark in _REMOVED:
        text = text.replace(mark, "")
    at = text.lower().rfind("answer")
    if at == -1:
        return ""
    found = _ANSWER.findall(text[at:])
    return found[-1] if found else ""


class KorgymGame(ABC):
    """One KORGym game. ``name`` is the kind (KORGym's folder name without its number,
    lower case), ``folder`` KORGym's folder, ``dimension`` a key of ``DIMENSIONS``.

    ``generate``, ``board`` and ``verify`` behave as KORGym's functions of the same names,
    on the same JSON items, except that they never change their argument and draw chance
    from ``rng`` (a ``random.Random`` seeded with the seed, carried on from generation).
    ``log_scaled`` marks games whose score is a count that can exceed 1 (the paper
    log-transforms them in the aggregated mean).
    """

    name: str
    folder: str
    title: str
    dimension: str
    multi_turn: bool = False
    log_scaled: bool = False
    # What the player is asked for (shown beside the answer box).
    answer_format: str = "your answer, as the board asks"
    # Item fields KORGym fills from a Python set, so their order in its output changes from
    # one process to the next (string hashing); the fixture test compares them as sets.
    unordered: tuple[str, ...] = ()
    # Item fields of KORGym's a game here does not make (a picture for models that see
    # images, which this text platform cannot show); the game's docstring says what the
    # player misses. The fixture test skips them.
    not_reproduced: tuple[str, ...] = ()
    # Item fields KORGym fills without its seed (e.g. a uuid4 game id for its server-side
    # store): the same here for a seed, but not KORGym's, so the fixtures skip them.
    unseeded: tuple[str, ...] = ()
    # Keyboard keys (``KeyboardEvent.key`` names) that play one whole action in the browser,
    # for the games where one key press is a natural turn (key name → action).
    keys: Mapping[str, str] = {}

    @abstractmethod
    def generate(self, seed: int, rng: random.Random) -> dict[str, Any]:
        """KORGym's starting item for ``seed`` (``rng`` is ``random.Random(seed)``)."""

    @abstractmethod
    def board(self, item: dict[str, Any]) -> str:
        """KORGym's prompt for the item (its ``print_board``)."""

    @abstractmethod
    def verify(self, item: dict[str, Any], action: str, rng: random.Random) -> dict[str, Any]:
        """The item after ``action`` (KORGym's ``verify`` with ``item["action"] = action``);
        must not change ``item``."""

    @abstractmethod
    def reference(self, item: dict[str, Any], rng: random.Random) -> list[str]:
        """Actions that play the game from ``item`` to a win (or KORGym's best score), for
        the runner's reference player and the tests; ``rng`` is the game's own generator
        in the state play would find it (a copy: the caller's is not advanced)."""

    def success(self, item: dict[str, Any]) -> bool:
        """Whether the game counts as won (a score of at least 1 unless a game says)."""
        return float(item.get("score") or 0) >= 1

    def value(self, item: dict[str, Any]) -> float:
        """The score on [0, 1] for the boards that need one: KORGym's score where it is a
        share; for a count (``log_scaled``) 1 for a win, else 0."""
        score = float(item.get("score") or 0)
        if self.log_scaled:
            return 1.0 if self.success(item) else 0.0
        return min(max(score, 0.0), 1.0)

    def is_over(self, item: dict[str, Any], turns: int) -> bool:
        if not self.multi_turn:
            return turns >= 1
        return bool(item.get("is_end")) or turns >= MAX_TURNS

    def display(self, item: dict[str, Any], *, finished: bool = False) -> dict[str, Any] | None:
        """The board of ``item`` drawn for a person (``engine.core.families.display``), or
        None where the game has no board beyond its text (a word or number question). It
        shows only what KORGym's board text shows; with ``finished`` (the game is over and
        its answer may be shown) it may add what KORGym keeps hidden (the mines, the word)."""
        return None

    # Helpers for games.
    @staticmethod
    def copy(item: dict[str, Any]) -> dict[str, Any]:
        return copy.deepcopy(item)
