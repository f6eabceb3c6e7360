"""Domain authoring with an LLM: prompts, reading replies and the bounded loops.

Plain Python, like the rest of ``engine.core``: the LLM is reached through a *chat*
callable that the caller provides (``engine.authoring`` wraps the shared
``benchmark.llm.ChatClient`` and records every call), so these procedures run the same in
a test, a command or a Celery job.

Three procedures, each bounded:

* :func:`proposals_messages` / :func:`parse_proposals`: a brief (topic areas, how many)
  becomes domain proposals (name, title, goal, what the truths and actions are).
* :func:`generate_config`: a proposal becomes a seed config in our JSON format. Replies
  cut off at the length limit are continued; the joined text is read as data (never
  evaluated) and validated; an invalid config goes back with its problems listed.
* :func:`write_book`: the LLM writes a knowledge book from the task's *rules* only (the
  truths, the actions and what each outcome rules out — never the valid truth or the
  observations), then the deterministic checker and an LLM review decide whether it is
  revised.

Replies are never executed: JSON is decoded with :mod:`json` and nothing else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.core.families.kumo.book import check_book, describe_outcome, plural
from engine.core.families.kumo.domain_io import FORMAT, NAME_PATTERN, DomainError, domain_from_json
from engine.core.families.kumo.generate import GenerationError, generate_instances
from engine.core.families.kumo.types import Domain, Instance, State

Message = dict[str, str]

# The settings a stored domain must be able to generate tasks for (domain-model.md).
TRIAL_SETTINGS = ((4, 6), (12, 16))
# How much of a bad reply to quote in a problem message.
_QUOTE = 120
# At most this many '{' or '[' positions are tried when looking for JSON in a reply, so
# a long garbage reply cannot make the search quadratic.
_MAX_JSON_STARTS = 200


class ChatFailed(Exception):
    """The chat callable could not get a reply (the message says why)."""


@dataclass
class Reply:
    """One LLM reply as the procedures see it.

    ``problems`` is filled in by the procedures (what was wrong with this reply, or that
    it was cut off), so the caller can record the verdict next to the call; ``ref`` is the
    caller's handle for the call (e.g. the id of its record), carried along untouched.
    """

    content: str
    finish_reason: str | None = None
    problems: list[str] = field(default_factory=list)
    ref: Any = None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


# chat(kind, messages) -> Reply; raises ChatFailed. ``kind`` names the step for records.
Chat = Callable[[str, list[Message]], Reply]


# -- reading replies -------------------------------------------------------------------------

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)


def extract_json(text: str) -> tuple[Any, str | None]:
    """The first JSON object or array in ``text``: ``(value, None)``, or ``(None, why)``.

    1. Fenced blocks (```json … ```) are tried first, then the whole text.
    2. In each, decoding starts at every ``{`` or ``[`` in turn (at most
       ``_MAX_JSON_STARTS``) with :meth:`json.JSONDecoder.raw_decode`, so prose before or
       after the JSON is ignored. Positions inside a value already read (or inside a
       bracketed block that did not decode) are skipped, so only top-level values count:
       the first object wins, else the first non-empty array.

    The text is only ever decoded as JSON, never evaluated.
    """
    if not text or not text.strip():
        return None, "the reply is empty"
    decoder = json.JSONDecoder()
    candidates = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    first_array = None
    first_error = None
    for candidate in candidates:
        starts = [m.start() for m in re.finditer(r"[{\[]", candidate)][:_MAX_JSON_STARTS]
        skip_until = -1
        for start in starts:
            if start <= skip_until:
                continue  # inside a bracketed block that did not decode: not the answer
            try:
                value, _end = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError as error:
                if first_error is None:
                    first_error = f"{error.msg} at line {error.lineno} column {error.colno}"
                skip_until = _block_end(candidate, start)
                continue
            if isinstance(value, dict):
                return value, None
            if isinstance(value, list) and first_array is None and value:
                first_array = value
            skip_until = _end - 1  # the objects inside this array are not top-level values
    if first_array is not None:
        return first_array, None
    if first_error is not None:
        return None, f"the reply holds no complete JSON ({first_error}); it starts {_quote(text)}"
    return None, f"the reply holds no JSON object; it starts {_quote(text)}"


def _block_end(text: str, start: int) -> int:
    """Where the bracketed block opening at ``start`` closes (strings respected), or the end
    of the text if it never closes. A broken object's inner objects are skipped this way,
    so a fragment of a broken config is never taken for the config."""
    depth = 0
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return repr(text[:_QUOTE] + ("…" if len(text) > _QUOTE else ""))


def strip_fence(text: str) -> str:
    """``text`` without one fence around all of it (```markdown … ```)."""
    stripped = text.strip()
    match = re.fullmatch(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?[ \t]*(?:```)?", stripped, re.DOTALL)
    return match.group(1).strip() if match else stripped


def join_continuation(sofar: str, more: str) -> str:
    """``sofar`` followed by a continuation of it.

    Models asked to continue sometimes open a new code fence or repeat the last few
    characters; a leading fence is dropped, and an overlap of at least 20 characters
    between the end of ``sofar`` and the start of ``more`` is kept once.
    """
    more = re.sub(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n", "", more, count=1)
    for size in range(min(len(sofar), len(more), 400), 19, -1):
        if sofar.endswith(more[:size]):
            return sofar + more[size:]
    return sofar + more


# -- continuing cut-off replies --------------------------------------------------------------

CONTINUE_PROMPT = (
    "Your reply was cut off by the length limit. Continue exactly where it stopped: do not "
    "repeat anything, do not start again, add no comment, just the rest of the text."
)


@dataclass
class Completed:
    """A reply joined from its continuations; ``truncated`` if it is still cut off."""

    text: str
    replies: list[Reply]
    truncated: bool


def complete(chat: Chat, kind: str, messages: list[Message], *, continuations: int) -> Completed:
    """Ask ``messages``; while the reply is cut off (``finish_reason == "length"``), send
    the text so far back as the assistant's message and ask to continue, at most
    ``continuations`` times. Raises :class:`ChatFailed` if a request fails."""
    reply = chat(kind, list(messages))
    replies = [reply]
    text = reply.content
    attempts = 0
    while reply.truncated and attempts < continuations:
        attempts += 1
        reply.problems.append("cut off at the length limit; asked to continue")
        follow_up = [
            *messages,
            {"role": "assistant", "content": text},
            {"role": "user", "content": CONTINUE_PROMPT},
        ]
        reply = chat("continue", follow_up)
        replies.append(reply)
        text = join_continuation(text, reply.content)
    if reply.truncated:
        reply.problems.append(
            f"still cut off at the length limit after {continuations} continuation(s)"
        )
    return Completed(text=text, replies=replies, truncated=reply.truncated)


# -- proposals -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProposedDomain:
    name: str
    title: str
    goal: str
    truths: str  # what the truths are
    actions: str  # what the actions are
    truth_noun: str = "truth"
    action_noun: str = "action"


PROPOSAL_FIELDS = ("name", "title", "goal", "truths", "actions", "truth_noun", "action_noun")

SYSTEM_AUTHOR = (
    "You design domains for KUMO, a benchmark of reasoning by elimination. A domain has a "
    "pool of truths (e.g. diseases), a pool of actions (e.g. diagnostic tests) and, for "
    "each action, its possible outcomes; each outcome rules out some truths. Outcomes "
    "only ever rule truths out, they never confirm one. Answer exactly in the format asked."
)


def proposals_messages(
    topics: str, count: int, *, existing: Sequence[str] = (), notes: str = ""
) -> list[Message]:
    """The request for ``count`` domain proposals on ``topics``."""
    avoid = (
        "Do not propose these existing domains again: " + ", ".join(sorted(existing)) + ".\n"
        if existing
        else ""
    )
    extra = f"Further guidance from the editor: {notes.strip()}\n" if notes.strip() else ""
    example = {
        "proposals": [
            {
                "name": "orchard-pests",
                "title": "Orchard pests",
                "goal": "Find which pest is damaging an apple orchard.",
                "truths": "Common orchard insect and mite pests (aphids, codling moth, ...).",
                "actions": "Field inspections and trap counts a grower can carry out.",
                "truth_noun": "pest",
                "action_noun": "inspection",
            }
        ]
    }
    return [
        {"role": "system", "content": SYSTEM_AUTHOR},
        {
            "role": "user",
            "content": (
                f"Propose {count} new domain(s) on these topic areas: {topics.strip()}\n"
                f"{avoid}{extra}"
                "Each domain needs at least 50 distinct truths and at least 30 distinct "
                "actions that a practitioner could really take, some with labelled outcomes "
                "and some with numeric outcomes, where each outcome plausibly rules out "
                "several truths.\n"
                "For each proposal give: name (lowercase letters, digits and hyphens), "
                "title, goal (one sentence: what the player must find out), truths (what "
                "the truths are), actions (what the actions are), truth_noun and "
                "action_noun (singular nouns for a truth and an action).\n"
                "Reply with one JSON object and nothing else, in this shape:\n"
                f"{json.dumps(example, indent=2)}"
            ),
        },
    ]


def slugify(text: str) -> str:
    """A domain name from free text: lowercase ``[a-z0-9-]``, words joined by hyphens."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)[:100].strip("-")


def parse_proposals(text: str, count: int) -> tuple[list[ProposedDomain], list[str]]:
    """The proposals in a reply, and every problem met reading it.

    Accepts ``{"proposals": [...]}`` or a bare array. A proposal missing its title, goal,
    truths or actions is left out (and reported); a missing or malformed name is made from
    the title. Names repeated within the reply are left out after the first.
    """
    data, why = extract_json(text)
    if why is not None:
        return [], [why]
    items = data.get("proposals") if isinstance(data, dict) else data
    if isinstance(data, dict) and items is None and "title" in data:
        items = [data]  # a single proposal on its own
    if not isinstance(items, list):
        return [], ["the reply's JSON has no 'proposals' array"]
    proposals: list[ProposedDomain] = []
    problems: list[str] = []
    seen: set[str] = set()
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            problems.append(f"proposal {position} is not an object")
            continue
        values = {key: item.get(key) for key in PROPOSAL_FIELDS}
        missing = [
            key
            for key in ("title", "goal", "truths", "actions")
            if not isinstance(values[key], str) or not values[key].strip()
        ]
        if missing:
            problems.append(f"proposal {position} has no {', '.join(missing)}; left out")
            continue
        raw_name = values["name"] if isinstance(values["name"], str) else ""
        name = raw_name.strip() if NAME_PATTERN.fullmatch(raw_name.strip()) else ""
        if not name:
            name = slugify(raw_name) or slugify(values["title"])
            if raw_name:
                problems.append(f"proposal {position}: name {raw_name!r} was changed to {name!r}")
        if not name:
            problems.append(f"proposal {position} has no usable name; left out")
            continue
        if name in seen:
            problems.append(f"proposal {position} repeats the name {name!r}; left out")
            continue
        seen.add(name)
        proposals.append(
            ProposedDomain(
                name=name,
                title=values["title"].strip(),
                goal=values["goal"].strip(),
                truths=values["truths"].strip(),
                actions=values["actions"].strip(),
                truth_noun=_noun(values["truth_noun"], "truth"),
                action_noun=_noun(values["action_noun"], "action"),
            )
        )
    if len(proposals) > count:
        problems.append(f"asked for {count} proposal(s), got {len(proposals)}; kept the first")
        proposals = proposals[:count]
    elif len(proposals) < count:
        problems.append(f"asked for {count} proposal(s), got {len(proposals)} usable")
    return proposals, problems


def _noun(value: object, default: str) -> str:
    if isinstance(value, str) and value.strip() and len(value.strip()) <= 100:
        return value.strip()
    return default


# -- seed configs ----------------------------------------------------------------------------

_EXAMPLE_CONFIG = {
    "format": FORMAT,
    "name": "orchard-pests",
    "title": "Orchard pests",
    "description": "Find which pest is damaging the orchard.",
    "truth_noun": "pest",
    "action_noun": "inspection",
    "truths": ["Aphid", "Codling Moth", "Spider Mite", "Sawfly"],
    "actions": [
        {
            "name": "Leaf Underside Check",
            "type": "str",
            "description": "Look under twenty leaves with a hand lens.",
            "states": [
                {"label": "clean", "rules_out": ["Aphid", "Spider Mite"]},
                {"label": "webbing", "rules_out": ["Aphid", "Sawfly"]},
                {"label": "colonies", "rules_out": []},
            ],
        },
        {
            "name": "Sticky Trap Count",
            "type": "float",
            "unit": "insects per trap per week",
            "states": [
                {"range": [0, 4.9], "rules_out": ["Codling Moth", "Sawfly"]},
                {"range": [5, 29.9], "rules_out": ["Spider Mite"]},
                {"range": [30, 200], "rules_out": ["Aphid"]},
            ],
        },
    ],
}


@dataclass(frozen=True)
class ConfigRequirements:
    """What a generated config must have beyond validity (``docs/domain-authoring.md``)."""

    min_truths: int = 50
    min_actions: int = 30


def config_messages(proposal: ProposedDomain, requirements: ConfigRequirements) -> list[Message]:
    """The request for the seed config of ``proposal``."""
    return [
        {"role": "system", "content": SYSTEM_AUTHOR},
        {
            "role": "user",
            "content": (
                "Write the seed config of this domain in the JSON format shown below.\n"
                f"name: {proposal.name}\n"
                f"title: {proposal.title}\n"
                f"goal: {proposal.goal}\n"
                f"truths ({proposal.truth_noun}): {proposal.truths}\n"
                f"actions ({proposal.action_noun}): {proposal.actions}\n"
                "\n"
                "Requirements:\n"
                f'1. "format" is "{FORMAT}" and "name" is "{proposal.name}".\n'
                f"2. At least {requirements.min_truths} truths and at least "
                f"{requirements.min_actions} actions, each name unique and non-empty.\n"
                '3. Both outcome types: several actions of type "str" (each state has a '
                '"label", unique within the action) and several of type "float" (each state '
                'has a "range" [lo, hi] with finite numbers, lo < hi; ranges of one action '
                'must not overlap, though they may share an endpoint; give a "unit").\n'
                "4. Every action has at least two states. Every state lists the truths it "
                'rules out in "rules_out" (rule-out only: an outcome never confirms). Most '
                "states should rule out several truths (three to eight is typical); a state "
                "may rule out none.\n"
                "5. Only truths from the truth pool appear in rules_out, and every truth of "
                "the pool is ruled out by some state of some action.\n"
                "6. No truth may be ruled out by every state of one action (it could then "
                "never survive that action).\n"
                "7. The rule-outs must be realistic for the domain and varied, so that "
                "different combinations of outcomes single out each truth.\n"
                '8. Optional "description" fields (domain, action, state) help the players.\n'
                "\n"
                "A short example of the format (a real config is much larger):\n"
                f"{json.dumps(_EXAMPLE_CONFIG, indent=1)}\n"
                "\n"
                "Reply with the JSON object only, no comments."
            ),
        },
    ]


def config_problems(
    data: Any, proposal: ProposedDomain, requirements: ConfigRequirements
) -> tuple[Domain | None, list[str]]:
    """Read a generated config: ``(domain, [])`` if usable, else ``(None, problems)``.

    1. The config must be a JSON object; its ``name`` is set to the proposal's (a model
       that renames the domain is not worth a round), and a missing ``format`` is added.
    2. :func:`engine.core.families.kumo.domain_io.domain_from_json` checks structure and validity.
    3. The requirements: enough truths and actions, both outcome types, outcomes that
       rule out several truths.
    4. It must generate tasks at the Easy and Hard settings (``TRIAL_SETTINGS``).
    """
    if not isinstance(data, dict):
        return None, ["the config must be a JSON object"]
    data = {**data, "name": proposal.name}
    data.setdefault("format", FORMAT)
    try:
        domain = domain_from_json(data)
    except DomainError as error:
        return None, [f"{error.heading}: {problem}" for problem in error.problems]
    problems: list[str] = []
    if len(domain.truths) < requirements.min_truths:
        problems.append(
            f"the truth pool has {len(domain.truths)} truths; at least "
            f"{requirements.min_truths} are required"
        )
    if len(domain.actions) < requirements.min_actions:
        problems.append(
            f"the action pool has {len(domain.actions)} actions; at least "
            f"{requirements.min_actions} are required"
        )
    for kind in ("str", "float"):
        if not any(action.type == kind for action in domain.actions):
            problems.append(f'no action has outcome type "{kind}"; both types are required')
    if not any(len(state.rules_out) >= 2 for a in domain.actions for state in a.states):
        problems.append("no outcome rules out more than one truth; most should rule out several")
    if problems:
        return None, problems
    for n_truths, n_actions in TRIAL_SETTINGS:
        try:
            generate_instances(domain, n_truths, n_actions, count=1, seed=0)
        except GenerationError as error:
            problems.append(
                f"no task with {n_truths} truths and {n_actions} actions can be generated "
                f"from it ({error}); the rule-outs must single out each truth"
            )
    return (None, problems) if problems else (domain, [])


def _fix_message(problems: Sequence[str], *, truncated: bool) -> str:
    lines = ["The config you sent cannot be used."]
    if truncated:
        lines.append("It was cut off before the end; write a more compact config.")
    if problems:
        lines.append("Problems found:")
        lines.extend(f"- {problem}" for problem in problems[:60])
        if len(problems) > 60:
            lines.append(f"- … and {len(problems) - 60} more of the same kinds")
    lines.append(
        "Send the whole corrected config as one JSON object, fixing every problem, and "
        "nothing else."
    )
    return "\n".join(lines)


@dataclass
class ConfigRound:
    text: str
    replies: list[Reply]
    problems: list[str]


@dataclass
class ConfigOutcome:
    """The result of :func:`generate_config`: ``domain`` on success, else ``error``."""

    domain: Domain | None
    rounds: list[ConfigRound]
    error: str = ""

    @property
    def replies(self) -> list[Reply]:
        return [reply for round_ in self.rounds for reply in round_.replies]


def generate_config(
    chat: Chat,
    proposal: ProposedDomain,
    *,
    requirements: ConfigRequirements = ConfigRequirements(),
    rounds: int = 3,
    continuations: int = 3,
) -> ConfigOutcome:
    """Ask for the seed config of ``proposal`` until one is usable, at most ``rounds`` times.

    1. Ask (:func:`config_messages`); continue a cut-off reply (:func:`complete`).
    2. Read the joined text as JSON (:func:`extract_json`) and check it
       (:func:`config_problems`).
    3. If it is unusable, send it back with its problems listed and ask again; only the
       latest attempt is sent back, so the conversation stays bounded.
    The problems of each round are noted on the reply that ended it.
    """
    first = config_messages(proposal, requirements)
    messages = list(first)
    outcome = ConfigOutcome(domain=None, rounds=[])
    for number in range(1, max(1, rounds) + 1):
        try:
            completed = complete(chat, "config", messages, continuations=continuations)
        except ChatFailed as error:
            outcome.error = f"round {number}: the LLM request failed: {error}"
            return outcome
        problems: list[str] = []
        if completed.truncated:
            problems.append("the config was still cut off after the continuations")
        data, why = extract_json(completed.text)
        if why is not None:
            problems.append(why)
            domain = None
        else:
            domain, found = config_problems(data, proposal, requirements)
            problems += found
        if domain is not None and not completed.truncated:
            outcome.domain = domain
            outcome.rounds.append(ConfigRound(completed.text, completed.replies, []))
            return outcome
        completed.replies[-1].problems.extend(problems)
        outcome.rounds.append(ConfigRound(completed.text, completed.replies, problems))
        messages = [
            *first,
            {"role": "assistant", "content": completed.text},
            {"role": "user", "content": _fix_message(problems, truncated=completed.truncated)},
        ]
    last = outcome.rounds[-1].problems
    outcome.error = (
        f"no usable config after {len(outcome.rounds)} round(s); the last one had "
        f"{len(last)} problem(s): " + "; ".join(last[:10]) + ("; …" if len(last) > 10 else "")
    )
    return outcome


# -- knowledge books -------------------------------------------------------------------------

SYSTEM_BOOK = (
    "You write knowledge books: short, exact guidebooks a player reads before solving a "
    "reasoning task by elimination. You explain the rules you are given, completely and "
    "faithfully, and add nothing that is not in them."
)
SYSTEM_REVIEW = (
    "You review knowledge books for reasoning tasks by elimination. You compare a book "
    "with the exact rules it must explain and report every way it departs from them."
)


@dataclass(frozen=True)
class TaskRules:
    """What a knowledge book explains: public rules only.

    Built from the task's truths and actions (sorted, so the instance's order carries no
    trace of how it was generated) and the domain; it holds neither the valid truth nor
    any observation, so nothing made from it can leak them.
    """

    domain: Domain
    truths: tuple[str, ...]
    actions: tuple[str, ...]
    n_valid: int = 1

    @classmethod
    def of(
        cls, domain: Domain, truths: Sequence[str], actions: Sequence[str], n_valid: int = 1
    ) -> TaskRules:
        def key(name: str) -> tuple[str, str]:
            return (name.casefold(), name)

        return cls(domain, tuple(sorted(truths, key=key)), tuple(sorted(actions, key=key)), n_valid)

    def text(self) -> str:
        """The rules written out: every truth, every action and what each outcome rules out."""
        domain = self.domain
        truth_word, action_word = domain.truth_noun or "truth", domain.action_noun or "action"
        task_truths = frozenset(self.truths)
        lines = [
            f"Domain: {domain.title or domain.name}",
            *([f"About the domain: {domain.description}"] if domain.description else []),
            f"Truth noun: {truth_word}; action noun: {action_word}.",
            f"Exactly {self.n_valid} of the {len(self.truths)} {plural(truth_word)} is valid "
            "(the player does not know which).",
            "",
            f"The {len(self.truths)} {plural(truth_word)}:",
            *(f"- {truth}" for truth in self.truths),
            "",
            f"The {len(self.actions)} {plural(action_word)} and every outcome each can have:",
        ]
        for name in self.actions:
            action = domain.action(name)
            heading = f"{action.name}"
            if action.type == "float":
                unit = f" in {action.unit.strip()}" if action.unit.strip() else ""
                heading += f" (the result is a number{unit})"
            lines += ["", heading]
            if action.description:
                lines.append(f"  Description: {action.description}")
            states: Sequence[State] = action.states
            if action.type == "float":
                states = sorted(action.states, key=lambda s: s.range or (0.0, 0.0))
            for state in states:
                ruled_out = sorted(state.rules_out & task_truths, key=str.casefold)
                verdict = (
                    "rules out " + ", ".join(ruled_out)
                    if ruled_out
                    else f"rules out none of the listed {plural(truth_word)}"
                )
                lines.append(f"  - outcome {describe_outcome(action, state)}: {verdict}")
        return "\n".join(lines)


def book_messages(rules: TaskRules) -> list[Message]:
    """The request for a knowledge book on ``rules``."""
    truth_word = rules.domain.truth_noun or "truth"
    truths_word = plural(truth_word)
    return [
        {"role": "system", "content": SYSTEM_BOOK},
        {
            "role": "user",
            "content": (
                "Write the knowledge book (in Markdown) for a task with these rules.\n\n"
                f"{rules.text()}\n\n"
                "The book must:\n"
                f"1. explain how the task works: exactly {rules.n_valid} of the listed "
                f"{truths_word} is valid; the player takes actions one at a time, reads each "
                f"outcome, strikes out the {truths_word} it rules out, and names the one "
                "left;\n"
                f"2. name every {truth_word} and every action listed above, and no other;\n"
                "3. give, in the part on each action, every outcome it can have and exactly "
                f"which of the listed {truths_word} that outcome rules out (numeric outcomes "
                "with both endpoints written as numbers);\n"
                "4. say only 'rules out': never that an outcome confirms, indicates, "
                f"suggests or is consistent with a {truth_word}, and never claim an outcome "
                f"rules out a {truth_word} it does not;\n"
                f"5. never say which {truth_word} is the answer or what an action will show;\n"
                "6. be plain and precise, with no vague wording.\n"
                "Reply with the book only."
            ),
        },
    ]


def revision_message(problems: Sequence[str]) -> Message:
    return {
        "role": "user",
        "content": (
            "The book has these problems:\n"
            + "\n".join(f"- {problem}" for problem in problems)
            + "\nRevise it to fix every problem. Reply with the whole revised book only."
        ),
    }


def review_messages(rules: TaskRules, book: str) -> list[Message]:
    """The request for a review of ``book`` against ``rules``."""
    return [
        {"role": "system", "content": SYSTEM_REVIEW},
        {
            "role": "user",
            "content": (
                f"The rules:\n\n{rules.text()}\n\n"
                f"The knowledge book:\n\n<book>\n{book}\n</book>\n\n"
                "Check the book against the rules. Look for: a rule-out stated as a "
                'confirmation ("X indicates Y" instead of "X rules out Z"); an outcome '
                "of an action that is missing, or a truth it rules out that is not said; "
                "an invented rule (a rule-out, outcome, truth or action not in the rules); "
                "vague wording a player could misread.\n"
                'Answer with JSON only: {"approve": true} if the book is faithful and '
                'clear, or {"approve": false, "problems": ["…", "…"]} listing each problem '
                "in one sentence."
            ),
        },
    ]


REVIEW_FORMAT_REMINDER = (
    'Your answer could not be read. Answer with JSON only: {"approve": true}, or '
    '{"approve": false, "problems": ["…"]}.'
)


@dataclass(frozen=True)
class Review:
    approved: bool
    problems: tuple[str, ...] = ()


def parse_review(text: str) -> tuple[Review | None, str | None]:
    """``(review, None)``, or ``(None, why)`` when the reply is not a review."""
    data, why = extract_json(text)
    if why is not None:
        return None, why
    if not isinstance(data, dict) or not isinstance(data.get("approve"), bool):
        return None, "the review's JSON has no true/false 'approve'"
    raw = data.get("problems") or []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        return None, "the review's 'problems' is not a list"
    problems = tuple(str(item).strip() for item in raw if str(item).strip())
    if not data["approve"] and not problems:
        return None, "the review does not approve the book but lists no problem"
    # An approval that still lists problems is not an approval.
    return Review(approved=data["approve"] and not problems, problems=problems), None


@dataclass
class Draft:
    """One version of an LLM-written book and the verdicts on it."""

    text: str
    check_problems: list[str]
    review: Review | None = None
    review_text: str = ""
    review_problems: list[str] = field(default_factory=list)
    # The replies that wrote this version (with continuations) and that reviewed it.
    replies: list[Reply] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.check_problems and self.review is not None and self.review.approved


@dataclass
class BookOutcome:
    drafts: list[Draft]
    error: str = ""

    @property
    def passed(self) -> Draft | None:
        return self.drafts[-1] if self.drafts and self.drafts[-1].passed else None


def write_book(
    chat: Chat,
    domain: Domain,
    instance: Instance,
    *,
    revisions: int = 2,
    continuations: int = 3,
) -> BookOutcome:
    """An LLM-written knowledge book for ``instance``, revised at most ``revisions`` times.

    1. Ask for the book from the rules only (:class:`TaskRules`: the valid truth and the
       observations never reach the prompt); continue a cut-off reply.
    2. Check it with :func:`engine.core.families.kumo.book.check_book`. If that finds problems,
       they are
       the revision request (no review is spent on a book that fails the checker).
    3. Otherwise ask an LLM review (:func:`review_messages`); an unreadable review is asked
       once more with a format reminder. Approval ends the loop; listed problems are the
       revision request; a review that is still unreadable ends the loop unapproved.
    4. Revise (the latest version and the problems go back) and repeat from 2.
    Every version is returned as a :class:`Draft`; the last one passed if ``passed``.
    """
    rules = TaskRules.of(domain, instance.truths, instance.actions, len(instance.valid_truths))
    # The checker lists problems in the instance's order, which may carry traces of how it
    # was generated; its problems go back to the LLM, so it reads the task sorted.
    instance = replace(instance, truths=rules.truths, actions=rules.actions)
    first = book_messages(rules)
    messages = list(first)
    outcome = BookOutcome(drafts=[])
    for version in range(revisions + 1):
        try:
            completed = complete(chat, "book", messages, continuations=continuations)
        except ChatFailed as error:
            outcome.error = f"version {version + 1}: the LLM request failed: {error}"
            return outcome
        text = strip_fence(completed.text)
        problems = check_book(domain, instance, text) if text else ["the book is empty"]
        if completed.truncated:
            problems.insert(0, "the book was still cut off after the continuations")
        draft = Draft(text=text, check_problems=problems, replies=list(completed.replies))
        outcome.drafts.append(draft)
        completed.replies[-1].problems.extend(problems)
        if not problems:
            try:
                _review(chat, rules, draft)
            except ChatFailed as error:
                outcome.error = f"version {version + 1}: the review request failed: {error}"
                return outcome
            if draft.review is None or draft.review.approved:
                return outcome  # approved, or the review cannot be read: stop either way
        feedback = problems or draft.review_problems
        messages = [*first, {"role": "assistant", "content": text}, revision_message(feedback)]
    return outcome


def _review(chat: Chat, rules: TaskRules, draft: Draft) -> None:
    messages = review_messages(rules, draft.text)
    reply = chat("review", messages)
    draft.replies.append(reply)
    review, why = parse_review(reply.content)
    if review is None:
        reply.problems.append(f"unreadable review: {why}")
        messages = [
            *messages,
            {"role": "assistant", "content": reply.content},
            {"role": "user", "content": REVIEW_FORMAT_REMINDER},
        ]
        reply = chat("review", messages)
        draft.replies.append(reply)
        review, why = parse_review(reply.content)
        if review is None:
            reply.problems.append(f"unreadable review: {why}")
            draft.review_text = reply.content
            draft.review_problems = [f"the review could not be read: {why}"]
            return
    draft.review = review
    draft.review_text = reply.content
    draft.review_problems = list(review.problems)
    reply.problems.extend(review.problems)
