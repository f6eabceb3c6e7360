"""Plain data types shared by every part of the engine.

Nothing here imports Django: the same objects are used by management commands, views,
Celery jobs, the benchmark runner and the tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

# The family KUMO's games are, wherever a family is named (``family.KumoFamily.name``).
FAMILY_NAME = "kumo"

OutcomeType = Literal["str", "float"]
Observation = str | float


@dataclass(frozen=True)
class State:
    """One possible outcome of an action.

    A ``str`` state has a ``label``; a ``float`` state has a closed ``range`` ``(lo, hi)``
    and the player sees one number drawn from it. ``rules_out`` lists the truths that are
    impossible once this state is observed (rule-out, never confirmation).
    """

    rules_out: frozenset[str]
    label: str | None = None
    range: tuple[float, float] | None = None
    description: str = ""

    @property
    def key(self) -> str:
        """A stable, human-readable name for the state (the label, or ``[lo, hi]``)."""
        if self.label is not None:
            return self.label
        assert self.range is not None
        lo, hi = self.range
        return f"[{_fmt_number(lo)}, {_fmt_number(hi)}]"

    def contains(self, value: float) -> bool:
        assert self.range is not None
        return self.range[0] <= value <= self.range[1]


@dataclass(frozen=True)
class Action:
    name: str
    type: OutcomeType
    states: tuple[State, ...]
    description: str = ""
    unit: str = ""

    def state_for(self, observation: Observation) -> State:
        """The state an observation belongs to.

        For ``float`` actions the first range containing the number wins (ranges of one
        action may share an endpoint, as in the original KUMO domains).
        Raises ``KeyError`` when no state matches.
        """
        if self.type == "str":
            for state in self.states:
                if state.label == observation:
                    return state
        else:
            if isinstance(observation, bool) or not isinstance(observation, (int, float)):
                raise KeyError(f"{self.name!r} expects a number, got {observation!r}")
            for state in self.states:
                if state.contains(float(observation)):
                    return state
        raise KeyError(f"{observation!r} is not an outcome of {self.name!r}")

    def shown(self, observation: Observation) -> str:
        """An observation as a person reads it (the browser and the API's ``shown``): a
        number rounded, with the action's unit; a label in words (``elevated_white_cells``
        → ``elevated white cells``). The raw value stays what the game and the book use.

        A number keeps 1 decimal from 100 up, 2 from 1 up and 3 below, and more while the
        rounded number would fall in another outcome's range than the exact one (6.96
        shown as "7.0" would read as the next outcome)."""
        if isinstance(observation, str):
            return " ".join(observation.replace("_", " ").split())
        value = float(observation)
        try:
            wanted: State | None = self.state_for(value)
        except KeyError:
            wanted = None
        size = abs(value)
        digits = 1 if size >= 100 else 2 if size >= 1 else 3
        text = f"{value:.{digits}f}"
        while wanted is not None and digits < 10 and self._state_or_none(float(text)) is not wanted:
            digits += 1
            text = f"{value:.{digits}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        if float(text) == 0:
            text = "0"
        unit = self.unit.strip()
        return f"{text} {unit}" if unit else text

    def _state_or_none(self, value: float) -> State | None:
        try:
            return self.state_for(value)
        except KeyError:
            return None

    def state_named(self, key: str) -> State:
        for state in self.states:
            if state.key == key:
                return state
        raise KeyError(f"{key!r} is not a state of {self.name!r}")


@dataclass(frozen=True)
class Domain:
    """A seed config: the universe of truths and actions with their outcomes."""

    name: str
    truths: tuple[str, ...]
    actions: tuple[Action, ...]
    title: str = ""
    description: str = ""
    # Plain-language nouns used by the knowledge-book writer ("disease", "diagnostic test").
    truth_noun: str = "truth"
    action_noun: str = "action"

    @cached_property
    def actions_by_name(self) -> dict[str, Action]:
        return {action.name: action for action in self.actions}

    def action(self, name: str) -> Action:
        try:
            return self.actions_by_name[name]
        except KeyError:
            raise KeyError(f"{name!r} is not an action of domain {self.name!r}") from None


@dataclass(frozen=True)
class Instance:
    """One task: the sampled truths and actions, the outcome of every action, the answer.

    ``observations`` maps every action of the task to what the player sees when taking
    it: a label for ``str`` actions, a number for ``float`` actions. This object holds
    secrets (``valid_truths`` and unplayed observations); never send it to a client.
    """

    truths: tuple[str, ...]
    actions: tuple[str, ...]
    observations: Mapping[str, Observation]
    valid_truths: tuple[str, ...]
    seed: int
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def valid_truth(self) -> str:
        if len(self.valid_truths) != 1:
            raise ValueError(f"instance has {len(self.valid_truths)} valid truths, not one")
        return self.valid_truths[0]

    def to_kumo(self) -> dict[str, object]:
        """The KUMO-compatible JSON object (one line of a task file)."""
        valid: object = (
            self.valid_truths[0] if len(self.valid_truths) == 1 else list(self.valid_truths)
        )
        return {
            "truths": list(self.truths),
            "actions": list(self.actions),
            "observations": dict(self.observations),
            "valid_truth": valid,
            "seed": self.seed,
        }

    @classmethod
    def from_kumo(cls, data: Mapping[str, object]) -> Instance:
        """Build an instance from a KUMO JSON object; raises ``ValueError`` if malformed."""
        missing = [k for k in ("truths", "actions", "observations", "valid_truth") if k not in data]
        if missing:
            raise ValueError(f"missing field(s): {', '.join(missing)}")
        truths, actions = data["truths"], data["actions"]
        observations, valid = data["observations"], data["valid_truth"]
        if not _is_str_list(truths):
            raise ValueError("'truths' must be a list of strings")
        if not _is_str_list(actions):
            raise ValueError("'actions' must be a list of strings")
        if not isinstance(observations, Mapping):
            raise ValueError("'observations' must be an object")
        valid_truths = (valid,) if isinstance(valid, str) else valid
        if not _is_str_list(valid_truths):
            raise ValueError("'valid_truth' must be a string or a list of strings")
        seed = data.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError("'seed' must be an integer")
        return cls(
            truths=tuple(truths),  # type: ignore[arg-type]
            actions=tuple(actions),  # type: ignore[arg-type]
            observations=dict(observations),
            valid_truths=tuple(valid_truths),  # type: ignore[arg-type]
            seed=seed,
        )


def _is_str_list(value: object) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and all(isinstance(item, str) for item in value)
    )


def _fmt_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
