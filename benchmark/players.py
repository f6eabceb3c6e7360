"""Players: a language model behind a chat API, and the built-in baselines.

A player starts one :class:`PlayerGame` per game from a :class:`~benchmark.protocol.TaskView`
(the public side of a task) and is then asked for one reply per turn, given the feedback on
its previous move. Replies are text in the protocol's ``<ANSWER> name </ANSWER>`` format for
every player, so the runner reads a model's moves and a baseline's moves the same way and
they produce the same results files.

Built-in players (``--model oracle|random|greedy`` without ``--base-url``):

* ``oracle`` — the optimal policy: :func:`engine.core.families.kumo.search.best_action` on the
  truths not
  yet ruled out and the actions not yet taken; when a base case holds it names the truth
  that is left (or the one no remaining action can rule out, which must be the valid one).
* ``random`` — a uniformly random legal move each turn: an action not taken yet, or any
  truth. Seeded per game from ``--seed`` and the game's identity, so a run is reproducible
  whatever the thread scheduling.
* ``greedy`` — the action that rules out the most remaining truths in expectation (state
  probabilities as in the optimal search, over the remaining truths); it answers when one
  truth is left or no action can rule anything out, naming a surviving truth.

Built-in players know the domain's rules (the knowledge book describes them anyway) and
what their own moves revealed. They never see the instance.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from benchmark.llm import ChatClient
from benchmark.protocol import Conversation, Feedback, Message, TaskView, answer_message
from engine.core.families.kumo.search import SMOOTHING, best_action
from engine.core.families.kumo.types import Domain

BUILT_IN_PLAYERS = ("oracle", "random", "greedy")


@dataclass(frozen=True)
class Reply:
    """One turn's reply: the visible text, any separate reasoning, and its tokens."""

    content: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class PlayerGame(Protocol):
    def move(self, feedback: Feedback | None) -> Reply:
        """The reply for the next turn; ``feedback`` is ``None`` on the first turn."""
        ...


class Player(Protocol):
    name: str
    #: "model" for language models, "baseline" for built-in players (the board's kinds).
    kind: str

    def new_game(self, task: TaskView, game_key: str) -> PlayerGame:
        """Start a game; ``game_key`` names it uniquely (domain, seed, run) for seeding."""
        ...


# -- language models -------------------------------------------------------------------------


class ChatPlayer:
    """A model behind an OpenAI-compatible chat API, speaking the protocol."""

    kind = "model"

    def __init__(self, client: ChatClient, params: dict[str, Any] | None = None) -> None:
        self.client = client
        self.name = client.model
        self.params = dict(params or {})

    def new_game(self, task: TaskView, game_key: str) -> ChatGame:
        return ChatGame(self.client, task, self.params)


class ChatGame:
    def __init__(self, client: ChatClient, task: TaskView, params: dict[str, Any]) -> None:
        self.client = client
        self.params = params
        self.conversation = Conversation(task)

    def move(self, feedback: Feedback | None) -> Reply:
        reply = self.client.chat(self.conversation.ask(feedback), **self.params)
        self.conversation.replied(reply.content)
        return Reply(
            content=reply.content,
            reasoning=reply.reasoning,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
        )


class TranscribingPlayer:
    """Wraps a player and keeps each game's conversation as a chat model would have seen
    it (``export_golden`` turns the oracle's games into chat training data this way).
    ``conversations`` maps each game key to its messages."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.kind = player.kind
        self.conversations: dict[str, list[Message]] = {}

    def new_game(self, task: TaskView, game_key: str) -> PlayerGame:
        conversation = Conversation(task)
        self.conversations[game_key] = conversation.messages
        return _TranscribedGame(self.player.new_game(task, game_key), conversation)


class _TranscribedGame:
    def __init__(self, inner: PlayerGame, conversation: Conversation) -> None:
        self.inner = inner
        self.conversation = conversation

    def move(self, feedback: Feedback | None) -> Reply:
        self.conversation.ask(feedback)
        reply = self.inner.move(feedback)
        self.conversation.replied(reply.content)
        return reply


# -- built-in players ------------------------------------------------------------------------


class _Tracker:
    """What a built-in player knows: the truths its observations left and the actions it
    has not taken, updated from the feedback on its own moves."""

    def __init__(self, task: TaskView) -> None:
        self.task = task
        self.domain = task.domain
        self.truths = list(task.truths)
        self.remaining_actions = list(task.action_order or task.actions)

    def update(self, feedback: Feedback | None) -> None:
        if feedback is None or feedback.kind != "observation":
            return
        assert feedback.action is not None and feedback.observation is not None
        state = self.domain.action(feedback.action).state_for(feedback.observation)
        self.truths = [truth for truth in self.truths if truth not in state.rules_out]
        self.remaining_actions = [a for a in self.remaining_actions if a != feedback.action]

    def settled_truth(self) -> str:
        """The truth to name when nothing more can be learnt: the one left, else the first
        (in display order) that no remaining action can rule out, else the first left."""
        if len(self.truths) == 1:
            return self.truths[0]
        coverable = _coverable(self.domain, self.remaining_actions)
        for truth in self.truths:
            if truth not in coverable:
                return truth
        return self.truths[0] if self.truths else self.task.truths[0]


class _BuiltInGame:
    def __init__(self, task: TaskView, choose) -> None:
        self.tracker = _Tracker(task)
        self.choose = choose

    def move(self, feedback: Feedback | None) -> Reply:
        self.tracker.update(feedback)
        return Reply(content=answer_message(self.choose(self.tracker)))


class OraclePlayer:
    name = "oracle"
    kind = "baseline"

    def new_game(self, task: TaskView, game_key: str) -> PlayerGame:
        return _BuiltInGame(task, _oracle_move)


class GreedyPlayer:
    name = "greedy"
    kind = "baseline"

    def new_game(self, task: TaskView, game_key: str) -> PlayerGame:
        return _BuiltInGame(task, _greedy_move)


class RandomPlayer:
    name = "random"
    kind = "baseline"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def new_game(self, task: TaskView, game_key: str) -> PlayerGame:
        # String seeds are hashed with SHA-512 by random.Random: stable across processes.
        rng = random.Random(f"{self.seed}:{game_key}")

        def choose(tracker: _Tracker) -> str:
            return rng.choice([*tracker.remaining_actions, *tracker.task.truths])

        return _BuiltInGame(task, choose)


def built_in_player(name: str, *, seed: int = 0) -> Player:
    if name == "oracle":
        return OraclePlayer()
    if name == "greedy":
        return GreedyPlayer()
    if name == "random":
        return RandomPlayer(seed)
    raise ValueError(f"no built-in player {name!r} (choose from {', '.join(BUILT_IN_PLAYERS)})")


def _oracle_move(tracker: _Tracker) -> str:
    # The task's own action order breaks ties exactly as the optimal search does, so the
    # oracle's path is the one the yardstick counts.
    action = best_action(tracker.domain, tracker.truths, tracker.remaining_actions)
    return action if action is not None else tracker.settled_truth()


def _greedy_move(tracker: _Tracker) -> str:
    if len(tracker.truths) <= 1:
        return tracker.settled_truth()
    remaining = frozenset(tracker.truths)
    best_name, best_score = None, 0.0
    # Display order, so ties go to the action listed first for the player.
    for name in tracker.task.actions:
        if name not in tracker.remaining_actions:
            continue
        score = expected_ruled_out(tracker.domain, name, remaining)
        if score > best_score:
            best_name, best_score = name, score
    return best_name if best_name is not None else tracker.settled_truth()


def expected_ruled_out(domain: Domain, action: str, truths: frozenset[str]) -> float:
    """Expected number of ``truths`` an action rules out: each state ``s`` weighs
    ``W(s) = |truths - R_s|`` (how many truths are consistent with it), as in the search."""
    hits = [len(state.rules_out & truths) for state in domain.action(action).states]
    weights = [len(truths) - hit for hit in hits]
    total = sum(weights) + SMOOTHING
    return sum(weight / total * hit for weight, hit in zip(weights, hits, strict=True))


def _coverable(domain: Domain, actions: Iterable[str]) -> set[str]:
    covered: set[str] = set()
    for name in actions:
        for state in domain.action(name).states:
            covered |= state.rules_out
    return covered
