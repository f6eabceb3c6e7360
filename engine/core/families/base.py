"""The task-family interface: what every generative benchmark family gives the platform.

Plain Python, no Django (house style): the same objects serve a management command, the
HTTP API, the model runner, a Celery job and the tests. A *family* (KUMO's games, simple
procedural reasoning, constraint puzzles, multi-turn games…) has *kinds* of task, each
with *parameters* (its difficulty knobs) and named *levels*. It

1. generates an instance from ``(kind, parameters, seed)`` deterministically
   (:meth:`Family.generate`; only ``random.Random(seed)`` is used);
2. splits it into the **public** view, everything a player may see before the end (the
   task text, the answer format), and the **hidden** part, kept on the server (the
   reference answer and what is needed to verify one);
3. scores an answer with the family's own metric (:meth:`Family.score`: right or wrong, a
   value in [0, 1] for partial credit, details), accepting every correct form of an answer
   (no false negatives from formatting);
4. gives the reference solution (:meth:`Family.reference_answer`) and, where one exists,
   the optimum (in the score's details, e.g. a travel plan's least cost);
5. formats the prompt for a chat model and parses its reply (:meth:`Family.prompt`,
   :meth:`Family.parse_reply`), reporting a reply with no answer as a parse error, as the
   KUMO runner does.

Single-shot families take one final answer. An interactive family (KUMO's games, KORGym's
games) adds moves before the answer: it would implement ``moves(instance, history)`` (the
moves allowed now) and ``step(instance, history, move) -> observation``, with the hidden
part holding the observations; the session service replays the stored moves, as it does for
KUMO today. Partial-credit families (LR²Bench's grids) return ``Score.value`` below 1 with
the per-cell figures in ``details``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any


class FamilyError(ValueError):
    """A request a family refuses (unknown kind, a parameter out of range…); ``str()`` says
    what is wrong, for the command line or an API 400."""


class SeedRefused(FamilyError):
    """A seed that gives no task (a published generator that never finishes on it, as
    KORGym's Long Cat on some seeds): another seed will. Whoever draws fresh seeds (practice,
    ranked attempts, study sets) draws again."""


@dataclass(frozen=True)
class Parameter:
    """One difficulty knob of a kind: an integer in ``[low, high]``."""

    name: str
    default: int
    low: int
    high: int
    description: str

    def check(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise FamilyError(f"{self.name} must be an integer, got {value!r}")
        if not self.low <= value <= self.high:
            raise FamilyError(
                f"{self.name} must be between {self.low} and {self.high}, got {value}"
            )
        return value


class Levels(Mapping):
    """A kind's named levels, with former names kept as aliases: an alias is found (``in``,
    ``[]``) but not listed (iterating gives the levels only), so tasks, rounds and study
    specs that name a level the old way keep working while every listing shows the new
    names. ``canonical`` gives the level an alias stands for."""

    def __init__(
        self,
        levels: Mapping[str, Mapping[str, int]],
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self._levels = dict(levels)
        self._aliases = dict(aliases or {})
        unknown = set(self._aliases.values()) - set(self._levels)
        if unknown:
            raise ValueError(f"aliases of unknown levels: {sorted(unknown)}")

    def canonical(self, name: str) -> str:
        return self._aliases.get(name, name)

    @property
    def aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    def __getitem__(self, name: str) -> Mapping[str, int]:
        return self._levels[self.canonical(name)]

    def __contains__(self, name: object) -> bool:
        return name in self._levels or name in self._aliases

    def __iter__(self):
        return iter(self._levels)

    def __len__(self) -> int:
        return len(self._levels)


@dataclass(frozen=True)
class Kind:
    """A kind of task of a family, with its knobs and named difficulty levels (each level a
    full set of parameter values, from trivial for a person to long or deep)."""

    name: str
    title: str
    answer_format: str
    parameters: tuple[Parameter, ...]
    levels: Mapping[str, Mapping[str, int]]

    def canonical_level(self, level: str) -> str:
        """The level a name stands for (an old name of a renamed level gives the new one)."""
        return self.levels.canonical(level) if isinstance(self.levels, Levels) else level

    def resolve(self, params: Mapping[str, object] | None = None, level: str | None = None):
        """The full, checked parameters: a level's values (or the defaults), then ``params``."""
        if level is not None and level not in self.levels:
            raise FamilyError(
                f"kind {self.name} has no level {level!r}; use one of {', '.join(self.levels)}"
            )
        values: dict[str, object] = {p.name: p.default for p in self.parameters}
        if level is not None:
            values.update(self.levels[level])
        known = {p.name: p for p in self.parameters}
        for name, value in (params or {}).items():
            if name not in known:
                raise FamilyError(
                    f"kind {self.name} has no parameter {name!r}; it has {', '.join(known)}"
                )
            values[name] = value
        return {name: known[name].check(value) for name, value in values.items()}


@dataclass(frozen=True)
class FamilyInstance:
    """One generated task. ``public`` and ``hidden`` are JSON-safe; only ``public`` may
    reach a player before the end."""

    family: str
    kind: str
    params: Mapping[str, int]
    seed: int
    public: Mapping[str, Any]
    hidden: Mapping[str, Any]


@dataclass(frozen=True)
class Score:
    correct: bool
    value: float
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedReply:
    """What a model's reply answered, or why no answer could be read from it."""

    answer: str | None
    error: str = ""


# A model ends its reply with one line "Answer: …" (the prompts say so); the last such line
# counts, so a model may think aloud before it.
ANSWER_LINE = re.compile(
    r"^\s*\**\s*(?:final\s+)?answer\s*\**\s*[:：]\s*\**\s*(.+?)\s*\**\s*$", re.I | re.M
)


class Family(ABC):
    """A family of tasks; see the module's docstring for the contract."""

    name: str
    title: str
    kinds: Mapping[str, Kind]
    # Whether ``score`` also takes a structured answer (a JSON list or object, as the API
    # passes it) besides text, and the figures ``Score.details`` reports per answer.
    structured_answers: bool = False
    # Whether a task is played move by move (``moves``, ``step``, ``finish``, as KUMO's
    # games and KORGym's), rather than answered once.
    interactive: bool = False
    metrics: tuple[str, ...] = ("correct", "value")
    # For an interactive family: whether a model plays each turn in a new conversation
    # holding the current board alone (KORGym's way), rather than one conversation.
    stand_alone_turns: bool = False
    # Capability dimensions (key → title) the family groups its kinds by, for the board's
    # dimension table (KORGym's aggregated mean); empty for a family without one.
    # ``dimension_grouping`` says whose grouping it is (shown with the table).
    dimensions: Mapping[str, str] = {}
    dimension_grouping: str = ""

    def kind(self, name: str) -> Kind:
        try:
            return self.kinds[name]
        except KeyError:
            raise FamilyError(
                f"family {self.name} has no kind {name!r}; use one of {', '.join(self.kinds)}"
            ) from None

    def generate(
        self,
        kind: str,
        seed: int,
        params: Mapping[str, object] | None = None,
        *,
        level: str | None = None,
    ) -> FamilyInstance:
        spec = self.kind(kind)
        values = spec.resolve(params, level)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise FamilyError(f"the seed must be a non-negative integer, got {seed!r}")
        public, hidden = self._generate(kind, values, seed)
        public = {"kind": kind, "answer_format": spec.answer_format, **public}
        return FamilyInstance(self.name, kind, values, seed, public, hidden)

    @abstractmethod
    def _generate(
        self, kind: str, params: Mapping[str, int], seed: int
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(public, hidden) for checked parameters; deterministic in ``seed``."""

    @abstractmethod
    def score(self, instance: FamilyInstance, answer: str) -> Score: ...

    @abstractmethod
    def reference_answer(self, instance: FamilyInstance) -> str: ...

    def generation_context(
        self, kind: str, params: Mapping[str, object] | None, written_clues: Callable[[], Any]
    ) -> AbstractContextManager[None]:
        """What the platform enters around :meth:`generate` for a request: by default
        nothing. A family that draws on what the platform stores (the crossword clues the
        authoring LLM wrote, a mapping of word to clue that ``written_clues()`` reads only
        when called) sets it up here, so the platform needs no knowledge of the family."""
        return nullcontext()

    def dimension(self, kind: str) -> str | None:
        """The dimension (a key of ``dimensions``) of a kind, or None (not in the table)."""
        return None

    def log_scaled(self, kind: str) -> bool | None:
        """Whether a kind's score is an unbounded count (``Score.details["points"]``, which
        the board averages beside the [0, 1] value), False for a kind whose points are its
        value, None for a kind with no points (the board keeps none)."""
        return None

    def answer_form(self, kind: str) -> str | None:
        """The answer form the browser draws for a kind (a Sudoku grid, a letter grid…),
        named for the attempt page's template, or None for a text box."""
        return None

    def read_form(self, kind: str, public: Mapping[str, Any], fields: Mapping[str, str]):
        """The answer a browser form posted (``fields``: its fields by name), for a kind
        with an :meth:`answer_form`; ``FamilyError`` for a form with nothing filled in."""
        return fields.get("answer", "")

    def display(
        self, instance: FamilyInstance, moves: Sequence[str], *, finished: bool = False
    ) -> Mapping[str, Any] | None:
        """The board as a person sees it after ``moves`` (``engine.core.families.display``:
        a grid, cards or rows), or None to show the text view. Built from what the player
        may see; with ``finished`` (the task has ended and its answer is shown) it may mark
        hidden parts too (the mines, the word)."""
        return None

    def answer_display(
        self, instance: FamilyInstance, answer: str, *, marked: bool
    ) -> Mapping[str, Any] | None:
        """A finished task's answer (as stored: text, or a structured answer as JSON) drawn
        as the task's board (a Sudoku's grid with the player's numbers), or None to show
        the text. With ``marked`` (the reference may be shown) each cell says whether it is
        right, wrong or missing."""
        return None

    def solution_display(self, instance: FamilyInstance) -> Mapping[str, Any] | None:
        """The reference solution drawn as the task's board, or None to show it as text."""
        return None

    def solution_text(self, instance: FamilyInstance) -> str:
        """The right answer as a player expects to read it once the task has ended (a
        game's hidden word or code, not the moves that find it); by default the reference
        answer."""
        return self.reference_answer(instance)

    def describe(self, kind: str, observation: Any) -> str:
        """What one move showed (an observation), in words for the page's move log; by
        default its fields other than the board, as "key: value"."""
        if isinstance(observation, Mapping):
            return "; ".join(
                f"{str(key).replace('_', ' ')}: {value}"
                for key, value in observation.items()
                if key != "view"
            )
        return "" if observation is None else str(observation)

    def prompt(self, instance: FamilyInstance) -> str:
        """The task for a chat model, ending with how to give the final answer."""
        answer_format = instance.public["answer_format"]
        return (
            f"{instance.public['text']}\n\n"
            f"Give your final answer on the last line, as: Answer: <{answer_format}>"
        )

    def reply_with(self, instance: FamilyInstance, answer: str) -> str:
        """A reply giving ``answer`` the way the prompt asks (for the built-in players)."""
        return f"Answer: {answer}"

    def random_answer(self, instance: FamilyInstance, rng) -> str | None:
        """A random answer in the task's form (the runner's ``random`` player), or None to
        let the runner draw one from the answer format."""
        return None

    def parse_reply(self, instance: FamilyInstance, text: str) -> ParsedReply:
        """The answer of a model's reply: the last "Answer: …" line, else (for a reply of
        one short line) the whole reply; otherwise a parse error."""
        if not isinstance(text, str) or not text.strip():
            return ParsedReply(None, "the reply is empty")
        found = ANSWER_LINE.findall(text)
        if found:
            return ParsedReply(found[-1])
        stripped = text.strip()
        if "\n" not in stripped and len(stripped) <= 200:
            return ParsedReply(stripped)
        return ParsedReply(None, 'no line "Answer: …" in the reply')


FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    FAMILIES[family.name] = family
    return family


def all_families() -> dict[str, Family]:
    """Every registered family by name, the built-in ones imported (each registers itself
    on import: adding a family is its package and one line here)."""
    from engine.core.families import (  # noqa: F401 (they register)
        games,
        korgym,
        lr2bench,
        puzzles,
        simple,
        unpuzzles,
    )

    return FAMILIES


def get_family(name: str) -> Family:
    try:
        return all_families()[name]
    except KeyError:
        raise FamilyError(
            f"no task family {name!r}; the families are {', '.join(sorted(FAMILIES))}"
        ) from None
