"""Multi-turn games (KORGym-style), held out: every game's state stays on the server.

KORGym serves its games over HTTP with the state, answer included, travelling to the
client and trusted back at verification. Here a game is generated from
``(difficulty, seed)``; the player (a person, or a model through the runner) sends moves
one at a time and sees only what each move shows; the state is rebuilt on the server by
replaying the accepted moves (``common.Game.replay``). Each game module here is one game;
the family only dispatches to them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.core.families.base import Family, FamilyError, FamilyInstance, Score, register
from engine.core.families.games.arcade import ARCADE_GAMES
from engine.core.families.games.boards import BOARD_GAMES
from engine.core.families.games.classic import CLASSIC_GAMES
from engine.core.families.games.common import DIMENSIONS, IllegalMove
from engine.core.families.games.hidden import HIDDEN_GAMES
from engine.core.families.games.reckoning import RECKONING_GAMES
from engine.core.families.games.sokoban_rooms import SOKOBAN_GAMES

GAMES = (
    *CLASSIC_GAMES,
    *RECKONING_GAMES,
    *BOARD_GAMES,
    *ARCADE_GAMES,
    *HIDDEN_GAMES,
    *SOKOBAN_GAMES,
)


class Games(Family):
    name = "games"
    title = "Our multi-turn games (KORGym-style, our rules; KORGym's own are korgym)"
    interactive = True
    dimensions = DIMENSIONS
    dimension_grouping = (
        "our own games, grouped by our reading of KORGym's dimensions (not the paper's "
        "figures: KORGym's own games are the korgym family)"
    )

    def __init__(self) -> None:
        self.games = {game.kind.name: game for game in GAMES}
        self.kinds = {name: game.kind for name, game in self.games.items()}

    def _generate(self, kind, params, seed):
        rng = random.Random(f"games/{kind}/{sorted(params.items())}/{seed}")
        game = self.games[kind]
        public, hidden = game.generate(rng, params)
        public["dimension"] = game.dimension
        public["single_turn"] = game.single_turn
        return public, hidden

    def dimension(self, kind: str) -> str | None:
        game = self.games.get(kind)
        return None if game is None else game.dimension

    def log_scaled(self, kind: str) -> bool | None:
        game = self.games.get(kind)
        return None if game is None else game.log_scaled

    def keys(self, kind: str) -> dict[str, str]:
        """Keyboard keys that play a move of ``kind`` in the browser (key name → move)."""
        return dict(self.games[kind].keys)

    # -- play -----------------------------------------------------------------------------

    def step(self, instance: FamilyInstance, history: Sequence[str], move: str) -> dict[str, Any]:
        """What one more move shows (``over`` says whether the game ended); a move not
        allowed, or one after the end, raises ``FamilyError`` with the reason."""
        if not isinstance(move, str) or not move.strip() or len(move) > 300:
            raise FamilyError("write a move (at most 300 characters)")
        game = self.games[instance.kind]
        state, over = game.replay(instance.public, instance.hidden, history)
        if over:
            raise FamilyError("the game is over")
        try:
            state, step = game.play(state, move)
        except IllegalMove as error:
            raise FamilyError(str(error)) from None
        over = step.over or len(history) + 1 >= game.turn_limit(instance.public)
        return {"observation": step.observation, "over": over}

    def observations(self, instance: FamilyInstance, history: Sequence[str]) -> list[Any]:
        """What each accepted move showed, in one replay of the game (not one per move)."""
        game = self.games[instance.kind]
        state = game.initial(instance.public, instance.hidden)
        shown = []
        for move in history:
            state, step = game.play(state, move)
            shown.append(step.observation)
        return shown

    def finish(self, instance: FamilyInstance, history: Sequence[str]) -> Score:
        """The game's score for the accepted moves (unfinished games score what their
        state is worth: 0 for a game not won or solved)."""
        game = self.games[instance.kind]
        state, over = game.replay(instance.public, instance.hidden, history)
        value = game.score(state, len(history), instance.public)
        details = {
            "moves": len(history),
            "over": over,
            "dimension": game.dimension,
            "points": game.points(state, len(history), instance.public),
        }
        return Score(value >= 1.0, value, details)

    # -- single shot: a whole game given as its moves, one a line ----------------------------

    def score(self, instance: FamilyInstance, answer: Any) -> Score:
        if not isinstance(answer, str):
            return Score(False, 0.0, {"error": "the answer must be text"})
        history: list[str] = []
        for line in [line for line in answer.splitlines() if line.strip()]:
            try:
                result = self.step(instance, history, line)
            except FamilyError as error:
                score = self.finish(instance, history)
                return Score(False, score.value, {**score.details, "error": str(error)})
            history.append(line)
            if result["over"]:
                break
        return self.finish(instance, history)

    # -- for people: the board drawn, the solution and the moves in words ------------------

    def display(self, instance: FamilyInstance, moves: Sequence[str], *, finished: bool = False):
        """The board after the accepted ``moves``, rebuilt by replaying them (each game
        draws its own: ``Game.display``)."""
        game = self.games[instance.kind]
        state, _ = game.replay(instance.public, instance.hidden, moves)
        return game.display(instance.public, state, finished=finished)

    def solution_text(self, instance: FamilyInstance) -> str:
        return self.games[instance.kind].solution_text(instance.public, instance.hidden)

    def describe(self, kind: str, observation: Any) -> str:
        game = self.games.get(kind)
        return super().describe(kind, observation) if game is None else game.describe(observation)

    def reference_answer(self, instance: FamilyInstance) -> str:
        return "\n".join(self.games[instance.kind].reference(instance.public, instance.hidden))


GAMES_FAMILY = register(Games())
