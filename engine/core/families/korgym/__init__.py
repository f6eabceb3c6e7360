"""KORGym's text games, as KORGym's own code plays them (``common`` says how).

Each game is one module in ``games/`` defining ``GAME`` (a ``common.KorgymGame``); the
family finds them there, so adding a game touches its module only. The kinds are the games'
names; each has one level, ``korgym`` (KORGym's generator takes a seed and nothing else).
A task's hidden part holds KORGym's starting item and the state of the game's own random
generator after generation; a move replays the accepted actions on it, so the item never
leaves the server and the player sees the board text only.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Sequence
from typing import Any

from engine.core.families.base import (
    Family,
    FamilyError,
    FamilyInstance,
    Kind,
    ParsedReply,
    Score,
    register,
)
from engine.core.families.korgym.common import DIMENSIONS, MAX_TURNS, KorgymGame, extract_action

LEVEL = "korgym"
ACTION_MAX = 20_000


def _games() -> dict[str, KorgymGame]:
    from engine.core.families.korgym import games as package

    found: dict[str, KorgymGame] = {}
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        game = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), "GAME", None)
        if isinstance(game, KorgymGame):
            found[game.name] = game
    return found


class Korgym(Family):
    name = "korgym"
    title = "KORGym's text games (as KORGym plays them)"
    interactive = True
    stand_alone_turns = True
    dimensions = DIMENSIONS
    dimension_grouping = "KORGym's games with the paper's dimension of each (Tables 7–11)"

    def __init__(self) -> None:
        self.games = _games()
        self.kinds = {
            name: Kind(name, game.title, game.answer_format, (), {LEVEL: {}})
            for name, game in self.games.items()
        }

    def _generate(self, kind, params, seed):
        game = self.games[kind]
        rng = random.Random(seed)
        item = game.generate(seed, rng)
        public = {
            "text": game.board(item),
            "korgym": game.folder,
            "dimension": game.dimension,
            "single_turn": not game.multi_turn,
            "turn_limit": MAX_TURNS if game.multi_turn else 1,
        }
        hidden = {"item": item, "rng": _state(rng)}
        return public, hidden

    def keys(self, kind: str) -> dict[str, str]:
        """Keys that play a whole action of ``kind`` (the games where one key is a turn)."""
        game = self.games.get(kind)
        return {} if game is None else dict(game.keys)

    def display(self, instance: FamilyInstance, moves: Sequence[str], *, finished: bool = False):
        """The board after ``moves``, drawn from the replayed item (``KorgymGame.display``);
        None for the word and number questions, shown as their text."""
        game, item, _ = self._replay(instance, moves)
        return game.display(item, finished=finished)

    def dimension(self, kind: str) -> str | None:
        game = self.games.get(kind)
        return None if game is None else game.dimension

    def log_scaled(self, kind: str) -> bool | None:
        game = self.games.get(kind)
        return None if game is None else game.log_scaled

    # -- play ---------------------------------------------------------------------------

    def _replay(self, instance: FamilyInstance, history: Sequence[str]):
        game = self.games[instance.kind]
        item = game.copy(instance.hidden["item"])
        rng = _generator(instance.hidden["rng"])
        for action in history:
            item = game.verify(item, action, rng)
        return game, item, rng

    def step(self, instance: FamilyInstance, history: Sequence[str], move: str) -> dict[str, Any]:
        """What one more action shows: the next board, as KORGym prints it. Any text is an
        action (KORGym verifies even an empty one); a move after the end is refused."""
        if not isinstance(move, str) or len(move) > ACTION_MAX:
            raise FamilyError(f"an action is text of at most {ACTION_MAX} characters")
        game, item, rng = self._replay(instance, history)
        if game.is_over(item, len(history)):
            raise FamilyError("the game is over")
        item = game.verify(item, move, rng)
        over = game.is_over(item, len(history) + 1)
        return {"observation": {"view": game.board(item)}, "over": over}

    def observations(self, instance: FamilyInstance, history: Sequence[str]) -> list[Any]:
        game = self.games[instance.kind]
        item = game.copy(instance.hidden["item"])
        rng = _generator(instance.hidden["rng"])
        shown = []
        for action in history:
            item = game.verify(item, action, rng)
            shown.append({"view": game.board(item)})
        return shown

    def finish(self, instance: FamilyInstance, history: Sequence[str]) -> Score:
        game, item, _ = self._replay(instance, history)
        points = float(item.get("score") or 0)
        details = {
            "moves": len(history),
            "over": game.is_over(item, len(history)),
            "dimension": game.dimension,
            "points": points,
        }
        return Score(game.success(item), game.value(item), details)

    # -- single shot and the runner -----------------------------------------------------

    def prompt(self, instance: FamilyInstance) -> str:
        return instance.public["text"]

    def parse_reply(self, instance: FamilyInstance, text: str) -> ParsedReply:
        """KORGym's reading of a reply (``common.extract_action``); a reply it reads as
        nothing is still an action ("") in KORGym, but counted here as a parse error."""
        action = extract_action(text if isinstance(text, str) else None)
        if not action.strip():
            return ParsedReply(action, 'no "Answer: …" line in the reply')
        return ParsedReply(action)

    def reply_with(self, instance: FamilyInstance, answer: str) -> str:
        return f"Answer: {answer}"

    def score(self, instance: FamilyInstance, answer: Any) -> Score:
        """A single-turn game's one answer, or a multi-turn game's actions one a line."""
        if not isinstance(answer, str):
            return Score(False, 0.0, {"error": "the answer must be text"})
        game = self.games[instance.kind]
        actions = [answer] if not game.multi_turn else answer.splitlines()
        history: list[str] = []
        for action in actions:
            result = self.step(instance, history, action)
            history.append(action)
            if result["over"]:
                break
        return self.finish(instance, history)

    def reference_answer(self, instance: FamilyInstance) -> str:
        game = self.games[instance.kind]
        rng = _generator(instance.hidden["rng"])
        return "\n".join(game.reference(game.copy(instance.hidden["item"]), rng))


def _state(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _generator(state: list) -> random.Random:
    rng = random.Random()
    rng.setstate((state[0], tuple(state[1]), state[2]))
    return rng


KORGYM_FAMILY = register(Korgym())
