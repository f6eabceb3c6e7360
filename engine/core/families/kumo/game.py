"""The game: one player working through one task instance.

Every way of playing goes through :class:`Game` — browser sessions, the HTTP API, the LLM
runner and the built-in bots — so the rules live in one place:

1. The player takes information actions one at a time and sees each action's observation.
2. Naming a truth ends the game; it is correct when it names the instance's valid truth.
3. A move the rules do not allow (an action that is not in the task or was already taken, an
   answer that is not one of the task's truths) is an *invalid move*: it is counted and
   recorded in the history, the game goes on, and :class:`InvalidMove` is raised so the
   caller can report the message (the API answers 400 with it).
4. Any move after the end raises :class:`GameOver` and changes nothing.

Names are matched exactly first, then forgivingly: ignoring case and collapsing runs of
whitespace, so ``"chest  x-ray"`` finds ``"Chest X-Ray"``. Punctuation is never ignored
(``"chest xray"`` does not match). If the forgiving form fits several names the move is
invalid and the message asks for the exact name. History records the task's own spelling.

The object never exposes more than a player may see through :meth:`Game.public_state`;
the instance it holds still contains secrets, so never serialise ``game.instance``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal, NoReturn

from engine.core.families.kumo.types import Domain, Instance, Observation

StepKind = Literal["action", "answer", "invalid"]
MoveKind = Literal["action", "answer"]


class InvalidMove(ValueError):
    """A move the rules do not allow. The game has already counted it; the message is
    written for the player and can be shown as is."""


class GameOver(InvalidMove):
    """A move made after the game ended. It is not counted and changes nothing: the result
    of a finished game is final."""


@dataclass(frozen=True)
class Step:
    """One move in the history.

    ``kind`` is ``"action"`` or ``"answer"`` for legal moves and ``"invalid"`` otherwise;
    ``attempted`` says what the player tried (so an invalid answer can be replayed as an
    answer). ``name`` is the task's spelling for legal moves and the player's text for
    invalid ones. ``observation`` is set for actions, ``error`` for invalid moves.
    """

    kind: StepKind
    name: str
    observation: Observation | None = None
    error: str | None = None
    attempted: MoveKind = "action"


@dataclass(frozen=True)
class GameResult:
    correct: bool
    answer: str
    valid_truth: str
    actions_taken: int
    invalid_moves: int


def normalise_name(name: str) -> str:
    """The forgiving form of a name: case-folded, whitespace runs collapsed to one space."""
    return " ".join(name.split()).casefold()


def display_order(names: Iterable[str]) -> tuple[str, ...]:
    """Names in the order players see them: alphabetical, case-insensitive.

    The instance's own order may carry traces of how it was generated (which truth was
    sampled as valid, which actions the solver chose before topping up), so it is never
    shown.
    """
    return tuple(sorted(names, key=lambda name: (name.casefold(), name)))


class _Names:
    """Looks up a player's text among a task's names (exact, then forgiving)."""

    def __init__(self, names: Sequence[str], noun: str) -> None:
        self.noun = noun
        self.exact = frozenset(names)
        self.forgiving: dict[str, list[str]] = {}
        for name in names:
            self.forgiving.setdefault(normalise_name(name), []).append(name)

    def resolve(self, text: object) -> str:
        """The task's name for ``text``; raises ``InvalidMove`` (uncounted) if none fits."""
        if not isinstance(text, str):
            raise InvalidMove(f"{text!r} is not one of this task's {self.noun}s")
        if text in self.exact:
            return text
        candidates = self.forgiving.get(normalise_name(text), [])
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            listed = ", ".join(f"'{name}'" for name in display_order(candidates))
            raise InvalidMove(
                f"'{text}' matches more than one of this task's {self.noun}s ({listed}); "
                "use the exact name"
            )
        raise InvalidMove(f"'{text}' is not one of this task's {self.noun}s")


class Game:
    """One play of one instance. See the module docstring for the rules."""

    def __init__(self, domain: Domain, instance: Instance) -> None:
        """Raises ``ValueError`` if the instance does not fit the domain (an action missing
        from the domain or without an observation, an observation that is none of the
        action's outcomes) or does not have exactly one valid truth in its truth list."""
        self.domain = domain
        self.instance = instance
        self._valid_truth = instance.valid_truth
        problems = _consistency_problems(domain, instance)
        if problems:
            raise ValueError("instance does not fit the domain: " + "; ".join(problems))
        self._actions = _Names(instance.actions, "action")
        self._truths = _Names(instance.truths, "truth")
        self._steps: list[Step] = []
        self._taken: set[str] = set()
        self._invalid = 0
        self._result: GameResult | None = None

    # -- moves -----------------------------------------------------------------------------

    def take_action(self, name: str) -> Observation:
        """Take an information action and return its observation (label or number).

        Raises ``GameOver`` after the end, ``InvalidMove`` (counted) for an action that is
        not in the task or was already taken.
        """
        self._refuse_if_over()
        try:
            action = self._actions.resolve(name)
        except InvalidMove as error:
            self._reject("action", name, str(error))
        if action in self._taken:
            self._reject("action", name, f"'{action}' was already taken")
        observation = self.instance.observations[action]
        self._taken.add(action)
        self._steps.append(Step("action", action, observation=observation, attempted="action"))
        return observation

    def answer(self, truth: str) -> GameResult:
        """Name a truth, which ends the game, and return the result.

        Raises ``GameOver`` after the end and ``InvalidMove`` (counted; the game goes on)
        for a name that is not one of the task's truths.
        """
        self._refuse_if_over()
        try:
            named = self._truths.resolve(truth)
        except InvalidMove as error:
            self._reject("answer", truth, str(error))
        self._steps.append(Step("answer", named, attempted="answer"))
        # An instance of the original KUMO release read in KUMO-compatible mode carries the
        # answers its original code scored as correct (engine.core.families.kumo.kumo_release).
        accepted = self.instance.extra.get("accepted_answers")
        correct = named in accepted if isinstance(accepted, list) else named == self._valid_truth
        self._result = GameResult(
            correct=correct,
            answer=named,
            valid_truth=self._valid_truth,
            actions_taken=self.actions_taken,
            invalid_moves=self._invalid,
        )
        return self._result

    @classmethod
    def replay(cls, domain: Domain, instance: Instance, moves: Iterable[Sequence[str]]) -> Game:
        """Rebuild a game from stored moves: ``("action", name)`` / ``("answer", name)``
        pairs (lists from JSON work too), e.g. :attr:`moves` of an earlier game.

        Invalid moves are counted again exactly as when first played. Raises ``ValueError``
        for a malformed move and ``GameOver`` for a move after the answer, naming the move.
        """
        game = cls(domain, instance)
        for number, move in enumerate(moves, start=1):
            if isinstance(move, str) or not isinstance(move, Sequence) or len(move) != 2:
                raise ValueError(f"move {number} is not a (kind, name) pair: {move!r}")
            kind, name = move
            if kind not in ("action", "answer"):
                raise ValueError(f"move {number} has kind {kind!r}; expected 'action' or 'answer'")
            if game.finished:
                raise GameOver(f"move {number} ({kind} '{name}') comes after the game ended")
            try:
                if kind == "action":
                    game.take_action(name)
                else:
                    game.answer(name)
            except InvalidMove:
                pass  # Already counted and recorded, just as when it was first played.
        return game

    # -- state -----------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self._result is not None

    @property
    def result(self) -> GameResult | None:
        return self._result

    @property
    def actions_taken(self) -> int:
        """Legal information actions taken (the answer and invalid moves do not count)."""
        return len(self._taken)

    @property
    def invalid_moves(self) -> int:
        return self._invalid

    @property
    def history(self) -> tuple[Step, ...]:
        return tuple(self._steps)

    @property
    def moves(self) -> tuple[tuple[MoveKind, str], ...]:
        """The moves as attempted, in the form :meth:`replay` takes (for persistence)."""
        return tuple((step.attempted, step.name) for step in self._steps)

    @property
    def truths(self) -> tuple[str, ...]:
        """The task's truths in display order (see :func:`display_order`)."""
        return display_order(self.instance.truths)

    @property
    def actions(self) -> tuple[str, ...]:
        """The task's actions in display order (see :func:`display_order`)."""
        return display_order(self.instance.actions)

    @property
    def remaining_actions(self) -> tuple[str, ...]:
        """Actions not taken yet, in display order (all of them stay listed after the end)."""
        return tuple(action for action in self.actions if action not in self._taken)

    def eliminated(self) -> frozenset[str]:
        """The task's truths ruled out by the observations seen so far."""
        ruled_out: set[str] = set()
        for step in self._steps:
            if step.kind == "action":
                assert step.observation is not None
                try:
                    state = self.domain.action(step.name).state_for(step.observation)
                except KeyError:
                    continue  # KUMO-compatible: an observation of no state rules nothing out
                ruled_out |= state.rules_out
        return frozenset(ruled_out) & frozenset(self.instance.truths)

    def public_state(self) -> dict[str, object]:
        """Everything a client may see at any moment, JSON-safe.

        Unplayed observations are never included, and the valid truth and the result only
        once the game is finished.
        """
        state: dict[str, object] = {
            "truths": list(self.truths),
            "actions": list(self.actions),
            "steps": [
                {
                    "kind": step.kind,
                    "name": step.name,
                    "observation": step.observation,
                    "error": step.error,
                }
                for step in self._steps
            ],
            "remaining_actions": list(self.remaining_actions),
            "actions_taken": self.actions_taken,
            "invalid_moves": self._invalid,
            "finished": self.finished,
            "result": None,
        }
        if self._result is not None:
            state["result"] = asdict(self._result)
            state["valid_truth"] = self._valid_truth
        return state

    # -- helpers ---------------------------------------------------------------------------

    def _refuse_if_over(self) -> None:
        if self._result is not None:
            raise GameOver("the game is over: no more moves are accepted")

    def _reject(self, attempted: MoveKind, text: object, message: str) -> NoReturn:
        """Count and record an invalid move, then raise it for the caller to report."""
        self._invalid += 1
        self._steps.append(Step("invalid", str(text), error=message, attempted=attempted))
        raise InvalidMove(message)


def _consistency_problems(domain: Domain, instance: Instance) -> list[str]:
    # Observations of the original KUMO release may match no state (kumo_release).
    lenient = "observed_states" in instance.extra
    problems = []
    if instance.valid_truth not in instance.truths:
        problems.append(f"valid truth '{instance.valid_truth}' is not in the truth list")
    for name in instance.actions:
        if name not in domain.actions_by_name:
            problems.append(f"'{name}' is not an action of the domain")
        elif name not in instance.observations:
            problems.append(f"'{name}' has no observation")
        elif not lenient:
            try:
                domain.action(name).state_for(instance.observations[name])
            except KeyError:
                observation = instance.observations[name]
                problems.append(f"{observation!r} is not an outcome of '{name}'")
    return problems
