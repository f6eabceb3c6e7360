"""The conversation protocol between the runner and a player, after the KUMO paper.

1. A system message explains the game and gives the truth list and the action list (both
   in display order, as JSON arrays) and the task's knowledge book.
2. Every user message ends with the same instruction: take one action from the list or
   name one truth from the list, and end the reply with ``<ANSWER> name </ANSWER>``.
   The first user message opens the game; each later one starts with what the last move
   brought: the observation of an action, the reason a move was refused, or a note that
   the reply could not be read.
3. The answer is read from the *last* ``<ANSWER>`` tag of the visible reply (never from a
   reasoning model's separate reasoning). Names are then matched as the Game matches them.

Unlike the original agent, which dropped the instruction from earlier user messages, the
history keeps every message exactly as it was sent: what a model saw at each turn is then
the conversation itself, which is also what ``export_golden`` writes as training data.

Everything here is built from :class:`TaskView`, the public side of a task: nothing in
this module can see the valid truth or an observation that has not been played.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.core.families.kumo.book import format_number, plural
from engine.core.families.kumo.game import display_order, normalise_name
from engine.core.families.kumo.types import Domain, Instance, Observation

Message = dict[str, str]

_ANSWER_TAG = re.compile(r"<\s*ANSWER\s*>", re.IGNORECASE)
_ANSWER_END = re.compile(r"<\s*/\s*ANSWER\s*>", re.IGNORECASE)
_TEMPLATE = re.compile(r"^\$\{(.*)\}$", re.DOTALL)
_WRAPPERS = ("**", "__", "`", '"', "'", "*", "_")
_TRUTH_LINE = re.compile(r"^Possible [^:\n]+: (\[.*\])$", re.MULTILINE)
_ACTION_LINE = re.compile(r"^Available [^:\n]+: (\[.*\])$", re.MULTILINE)


@dataclass(frozen=True)
class TaskView:
    """What a player may know about a task: the rules of the domain (public: the book
    describes them), the truths and actions in display order, and the knowledge book.

    ``action_order`` is the task's own action order, which only the built-in oracle uses,
    to break ties between exactly equal choices the way the optimal search does (stored
    tasks shuffle their actions, so the order says nothing about the answer).
    """

    domain: Domain
    truths: tuple[str, ...]
    actions: tuple[str, ...]
    book: str
    action_order: tuple[str, ...] = ()

    @classmethod
    def of(cls, domain: Domain, instance: Instance, book: str) -> TaskView:
        return cls(
            domain=domain,
            truths=display_order(instance.truths),
            actions=display_order(instance.actions),
            book=book,
            action_order=tuple(instance.actions),
        )

    @property
    def truth_noun(self) -> str:
        return self.domain.truth_noun or "truth"

    @property
    def action_noun(self) -> str:
        return self.domain.action_noun or "action"


@dataclass(frozen=True)
class Feedback:
    """What the runner tells the player after a move that did not end the game."""

    kind: Literal["observation", "invalid", "unreadable"]
    action: str | None = None
    observation: Observation | None = None
    message: str = ""


class Conversation:
    """The messages of one game as the player sees them, kept exactly as sent."""

    def __init__(self, task: TaskView) -> None:
        self.task = task
        self.messages: list[Message] = [{"role": "system", "content": system_prompt(task)}]

    def ask(self, feedback: Feedback | None) -> list[Message]:
        """Add the user message for the next turn; returns the messages to send."""
        if feedback is None:
            text = opening_message(self.task)
        else:
            text = feedback_message(self.task, feedback)
        self.messages.append({"role": "user", "content": text})
        return self.messages

    def replied(self, content: str) -> None:
        # Only the visible reply goes back into the history: reasoning text is not part of
        # the conversation (and some APIs refuse it as input).
        self.messages.append({"role": "assistant", "content": content})


def system_prompt(task: TaskView) -> str:
    truth, action = task.truth_noun, task.action_noun
    truths, actions = plural(truth), plural(action)
    return (
        f"This game challenges you to identify one {truth} from the outcomes of {actions}. "
        f"Each round you see the possible {truths} and the available {actions}. Take "
        f"{actions} to rule out the {truths} that do not fit the observed outcomes until only "
        f"one plausible {truth} remains. Your objective is to name the valid {truth} "
        f"correctly in the fewest {actions}.\n"
        "\n"
        "How to play:\n"
        "\n"
        f"(1) View the list of possible {truths} and available {actions}.\n"
        "\n"
        f"(2) Take one {action} per round to see its outcome. Each {action} can be taken "
        "once.\n"
        "\n"
        f"(3) Use the outcomes to rule out the {truths} that do not match the observed "
        "results. An outcome only ever rules out; it never confirms.\n"
        "\n"
        f"(4) Repeat steps 2 and 3 until you can confidently name the {truth}. Naming a "
        f"{truth} ends the game.\n"
        "\n"
        "This is the initial state of the game:\n"
        "\n"
        f"Possible {truths}: {_names(task.truths)}\n"
        "\n"
        f"Available {actions}: {_names(task.actions)}\n"
        "\n"
        f"Here is a guidebook to the {truths} and {actions}:\n"
        "\n"
        f"{task.book}"
    )


def instruction(task: TaskView) -> str:
    return (
        f"At this round, you need to select an {task.action_noun} from the list: "
        f"{_names(task.actions)} or predict a {task.truth_noun} from the list: "
        f"{_names(task.truths)}.\n"
        f"Reason and end your response with the format '<ANSWER> {task.action_noun} name "
        f"</ANSWER>' or '<ANSWER> {task.truth_noun} name </ANSWER>'."
    )


def opening_message(task: TaskView) -> str:
    return f"Begin the game.\n\n{instruction(task)}"


def feedback_message(task: TaskView, feedback: Feedback) -> str:
    if feedback.kind == "observation":
        assert feedback.action is not None and feedback.observation is not None
        lead = (
            f"Observation from previous action ({feedback.action}): "
            f"{format_observation(feedback.observation)}"
        )
    elif feedback.kind == "invalid":
        lead = f"Invalid move: {feedback.message}"
    else:
        lead = (
            "Your reply could not be read: it must end with <ANSWER> name </ANSWER>, naming "
            f"exactly one {task.action_noun} or one {task.truth_noun} from the lists."
        )
    return f"{lead}\n\n{instruction(task)}"


def format_observation(observation: Observation) -> str:
    if isinstance(observation, str):
        return observation
    return format_number(observation)


def answer_message(name: str) -> str:
    """An assistant reply that makes a move and nothing else (the built-in players')."""
    return f"<ANSWER> {name} </ANSWER>"


def parse_answer(text: str | None) -> str | None:
    """The name in the last ``<ANSWER> … </ANSWER>`` of a reply, or ``None`` if unreadable.

    A missing closing tag is tolerated when the answer is the single last line (replies cut
    off by a token limit). A ``${name}`` placeholder copied from the instruction and one pair
    of quotes, backticks or Markdown emphasis around the name are removed.
    """
    if not text:
        return None
    openings = list(_ANSWER_TAG.finditer(text))
    if not openings:
        return None
    rest = text[openings[-1].end() :]
    end = _ANSWER_END.search(rest)
    if end:
        name = rest[: end.start()]
    elif "\n" in rest.strip():
        return None
    else:
        name = rest
    name = name.strip()
    template = _TEMPLATE.match(name)
    if template:
        name = template.group(1).strip()
    for wrapper in _WRAPPERS:
        if len(name) > 2 * len(wrapper) and name.startswith(wrapper) and name.endswith(wrapper):
            name = name[len(wrapper) : -len(wrapper)].strip()
            break
    return name or None


MoveKind = Literal["action", "answer"]


def classify_move(name: str, actions: Sequence[str], truths: Sequence[str]) -> MoveKind:
    """Whether ``name`` is meant as an action or as an answer, matching names as the Game
    does (exact first, then ignoring case and runs of whitespace).

    A name that fits no truth is played as an action, so that the Game counts it as an
    invalid move (and a results file replays it the same way).
    """
    if name in actions:
        return "action"
    if name in truths:
        return "answer"
    wanted = normalise_name(name)
    if any(normalise_name(action) == wanted for action in actions):
        return "action"
    if sum(normalise_name(truth) == wanted for truth in truths) == 1:
        return "answer"
    return "action"


def read_task_lists(system_text: str) -> tuple[list[str], list[str]]:
    """The truth and action lists of a system prompt written by :func:`system_prompt`
    (for scripted test servers that play from the conversation)."""
    truths, actions = _TRUTH_LINE.search(system_text), _ACTION_LINE.search(system_text)
    if not truths or not actions:
        raise ValueError("not a system prompt of this protocol")
    return json.loads(truths.group(1)), json.loads(actions.group(1))


def _names(names: Sequence[str]) -> str:
    return json.dumps(list(names), ensure_ascii=False)
