"""Knowledge books: the guide a player reads before and during a task.

:func:`write_book` writes one deterministically from the domain and the instance (no LLM).
:func:`check_book` checks any book — ours, or a free-text one written by an LLM — against
the domain and the instance, so it reads the text the way a person would rather than
relying on our layout:

* a name is *mentioned* where it appears as whole words, ignoring case and treating runs of
  spaces and underscores alike (``brain lesions`` mentions the label ``brain_lesions``);
  where names overlap the longest one wins, so ``COVID-19 PCR Test`` does not also mention
  the truth ``COVID-19``;
* a float outcome is mentioned by its two endpoints written as numbers (``100``, ``100.0``,
  ``-5``), normally next to each other (``100 to 125``, ``100-125``, ``[100, 125]``);
* the part of the book on an action is the text from each mention of it up to the next
  mention of another action;
* within that part, the text about an outcome is the sentences and lines that mention it,
  plus the lines that follow without mentioning another outcome (a bullet list under
  "A normal result rules out:"), up to the next heading;
* within that part, a name that is both an outcome of the action and a truth (the outcome
  ``arrhythmia`` of an ECG, the truth ``Arrhythmia``) is read as the outcome where a
  sentence names no other outcome and the name comes before any rule-out wording ("If the
  result is 'arrhythmia': rule out ..."), and as the truth everywhere else (see
  :class:`_ActionPart`).

Both functions are pure: no Django, no randomness, same input ⇒ same output.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import TypeVar

from engine.core.families.kumo.types import Action, Domain, Instance, State

# -- language cues ---------------------------------------------------------------------------

# Wording that presents an outcome or a truth as confirmed rather than ruled out.
_CONFIRMING = re.compile(
    r"\b(?:confirm(?:s|ed|ing|ation)?|indicat(?:e|es|ed|ing|ive)|diagnos(?:e|es|ed|ing)"
    r"|consistent with|point(?:s|ed|ing)? (?:to|towards)|suggest(?:s|ed|ing|ive)?"
    r"|prov(?:e|es|ed|en|ing)|means (?:that )?it(?: is|'s)|establish(?:es|ed)?)\b",
    re.IGNORECASE,
)
# Wording that singles out one truth as the answer.
_ANSWERING = re.compile(
    r"\bthe (?:correct |right |true |valid |actual |final )?answer (?:is|was|must be|will be)\b"
    r"|\b(?:is|must be) the (?:correct|right|true|valid|actual) \w+"
    r"|\bthe (?:true|valid|actual|correct|right) \w+(?: \w+)? (?:is|was|must be)\b"
    r"|\b(?:it|this) must be\b",
    re.IGNORECASE,
)
# Wording that predicts what an action will show on this task.
_PREDICTING = re.compile(
    r"\b(?:will|would|is going to) (?:show|give|return|read|come back|turn out|be)\b",
    re.IGNORECASE,
)
# Wording that states a rule-out.
_RULING_OUT = re.compile(
    r"\b(?:rul(?:e|es|ed|ing) out|exclud(?:e|es|ed|ing)|eliminat(?:e|es|ed|ing))\b",
    re.IGNORECASE,
)
# A negation shortly before a cue turns it around ("does not confirm", "never indicates").
_NEGATION = re.compile(r"\b(?:not|never|cannot|no|nor|neither)\b|n't\b", re.IGNORECASE)
_NEGATION_REACH = 30

_NUMBER = re.compile(r"(?<![\w.])(?:\d+(?:\.\d+)?|\.\d+)(?!\d)")
_SIGN_FOLLOWS = " \t\n([{<:=,;/*'\""
# Two endpoints written further apart than this are not read as one range.
_PAIR_REACH = 40
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+")


# -- writing ---------------------------------------------------------------------------------


def write_book(domain: Domain, instance: Instance) -> str:
    """A Markdown guidebook for ``instance``.

    It names every truth and action of the task and, for every outcome an action can have
    in the domain, exactly which of the task's truths it rules out. It never says which
    truth is valid or what an action will show: truths, actions and rule-out lists are
    sorted alphabetically because the instance's order may carry traces of generation.
    Author-written descriptions are kept sentence by sentence, leaving out sentences that
    name truths or other actions or use confirming language, so the book speaks only in
    rule-outs (and always passes :func:`check_book`).
    """
    truths = _alphabetical(instance.truths)
    actions = [domain.action(name) for name in _alphabetical(instance.actions)]
    task_truths = frozenset(truths)
    truth_word, action_word = domain.truth_noun or "truth", domain.action_noun or "action"
    truths_word, actions_word = plural(truth_word), plural(action_word)
    # Names a free-text description must not bring into the book.
    pool_names = [*domain.truths, *(action.name for action in domain.actions)]

    title = _neutral(domain.title, pool_names) or _neutral(domain.name, pool_names)
    lines = [f"# {title}: a guidebook" if title else "# Guidebook", ""]
    description = _neutral(domain.description, pool_names)
    if description:
        lines += [description, ""]

    valid_count = len(instance.valid_truths)
    how_many = "Exactly one" if valid_count == 1 else f"Exactly {valid_count}"
    lines += [
        "## How the task works",
        "",
        f"{how_many} of the {len(truths)} {truths_word} listed below is valid, and your job is "
        "to find out which.",
        f"You may take the {actions_word} described in this guidebook, one at a time, and read "
        "the outcome of each.",
        f"Every outcome can only rule {truths_word} out. Strike out each {truth_word} that an "
        f"outcome rules out, and name the {truth_word} you believe is valid when you are ready; "
        "naming it ends the task.",
        "",
        f"## The {len(truths)} {truths_word}",
        "",
        *(f"- {truth}" for truth in truths),
        "",
        f"## The {len(actions)} {actions_word} and their outcomes",
        "",
    ]
    for action in actions:
        lines += _action_section(action, task_truths, pool_names, truths_word)

    lines += [
        "## How to reason",
        "",
        f"- Start with every listed {truth_word} still possible.",
        f"- After each {action_word}, find its outcome in the section on that {action_word} "
        f"and strike out every {truth_word} listed there.",
        f"- An outcome only ever rules {truths_word} out; it never confirms one. A {truth_word} "
        "that has not been ruled out is still possible, nothing more.",
        f"- When a single {truth_word} is left, name it. Fewer {actions_word} are better, so "
        f"prefer {actions_word} whose outcomes could rule out many of the remaining "
        f"{truths_word}.",
        "",
    ]
    return "\n".join(lines)


def _action_section(
    action: Action, task_truths: frozenset[str], pool_names: list[str], truths_word: str
) -> list[str]:
    lines = [f"### {action.name}", ""]
    others = [name for name in pool_names if name != action.name]
    description = _neutral(action.description, others)
    if description:
        lines.append(description)
    if action.type == "float":
        unit = f" in {action.unit}" if action.unit.strip() else ""
        lines.append(f"The result is a number{unit}.")
    if len(lines) > 2:
        lines.append("")

    states: Sequence[State] = action.states
    if action.type == "float":
        # Ascending ranges read naturally; the domain's order carries no secret either way.
        states = sorted(action.states, key=lambda state: state.range or (0.0, 0.0))
    for state in states:
        # Labels of the other outcomes must not appear in this outcome's line.
        own_line_forbidden = [
            *others,
            *(s.label for s in action.states if s is not state and s.label),
        ]
        note = _neutral(state.description, own_line_forbidden, allow_numbers=False)
        note = f" ({note.rstrip('.')})" if note else ""
        ruled_out = _alphabetical(state.rules_out & task_truths)
        verdict = (
            "rule out " + ", ".join(ruled_out) + "."
            if ruled_out
            else f"this outcome rules out none of the listed {truths_word}."
        )
        lines.append(f"- If the result is {describe_outcome(action, state)}{note}: {verdict}")
    lines.append("")
    return lines


def describe_outcome(action: Action, state: State) -> str:
    """An outcome in words: ``'clean'``, or ``at least 5 and below 30 mg/dL``."""
    if state.range is None:
        return f"'{state.label}'"
    lo, hi = state.range
    # A value on an endpoint shared with another range belongs to the first range that
    # contains it (Action.state_for), so say exactly which side each endpoint is on.
    lower = "at least" if action.state_for(lo) is state else "above"
    upper = "at most" if action.state_for(hi) is state else "below"
    unit = f" {action.unit.strip()}" if action.unit.strip() else ""
    return f"{lower} {format_number(lo)} and {upper} {format_number(hi)}{unit}"


def format_number(value: float) -> str:
    """A number as people write it: ``100`` not ``100.0``, ``0.00001`` not ``1e-05``."""
    if float(value).is_integer():
        return str(int(value))
    return format(Decimal(repr(float(value))), "f")


def plural(noun: str) -> str:
    """A plain English plural, good enough for nouns like 'disease' or 'diagnostic test'."""
    noun = noun.strip()
    lower = noun.lower()
    if lower.endswith("is"):
        return noun[:-2] + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def _alphabetical(names: Iterable[str]) -> list[str]:
    return sorted(names, key=lambda name: (name.casefold(), name))


def _neutral(text: str, forbidden_names: Iterable[str], *, allow_numbers: bool = True) -> str:
    """The sentences of ``text`` that are safe in a book: they name none of
    ``forbidden_names`` and use no confirming, answering or predicting language."""
    patterns = [_name_pattern(name) for name in forbidden_names if name.strip()]
    kept = []
    for sentence in _SENTENCE_BREAK.split(" ".join(text.split())):
        sentence = sentence.lstrip("#>-*+ ").strip()
        if not sentence:
            continue
        if any(cue.search(sentence) for cue in (_CONFIRMING, _ANSWERING, _PREDICTING)):
            continue
        if any(pattern.search(sentence) for pattern in patterns):
            continue
        if not allow_numbers and _NUMBER.search(sentence):
            continue
        kept.append(sentence)
    return " ".join(kept)


# -- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    kind: str  # "action", "truth", "label", "other_action", "other_truth"
    key: str  # the name; for labels, the normalised label


@dataclass(frozen=True)
class _Number:
    start: int
    end: int
    value: float
    decimals: int


# Which name wins when two equally long names cover the same text.
_PRIORITY = {"action": 0, "truth": 1, "label": 2, "other_action": 3, "other_truth": 4}


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    words = [word for word in re.split(r"[\s_]+", name.strip()) if word]
    body = r"[\s_]+".join(re.escape(word) for word in words)
    # Whole words only; underscores count as separators so Markdown _emphasis_ still matches.
    head = r"(?<![^\W_])" if re.match(r"[^\W_]", words[0]) else ""
    tail = r"(?![^\W_])" if re.search(r"[^\W_]$", words[-1]) else ""
    return re.compile(head + body + tail, re.IGNORECASE)


def _normalise(name: str) -> str:
    return " ".join(re.split(r"[\s_]+", name.strip())).casefold()


def _find_mentions(text: str, names: Iterable[tuple[str, str, str]]) -> list[_Mention]:
    """Mentions of ``(kind, key, name)`` in ``text``, longest first where they overlap."""
    found = []
    lowered = text.lower()
    for kind, key, name in names:
        words = name.split()
        if not words:
            continue
        # A cheap substring test skips most names; only plain ASCII words are safe to test
        # this way (some Unicode letters change length or form when lowered).
        first = words[0].split("_")[0].lower()
        if first.isascii() and first not in lowered:
            continue
        for match in _name_pattern(name).finditer(text):
            found.append(_Mention(match.start(), match.end(), kind, key))
    found.sort(key=lambda m: (m.start - m.end, _PRIORITY[m.kind], m.start))
    covered = bytearray(len(text))
    accepted = []
    for mention in found:
        if any(covered[mention.start : mention.end]):
            continue
        covered[mention.start : mention.end] = b"\x01" * (mention.end - mention.start)
        accepted.append(mention)
    accepted.sort(key=lambda m: m.start)
    return accepted


def _find_numbers(text: str, names: list[_Mention]) -> list[_Number]:
    """Numbers written in ``text`` outside names ("Vitamin B12" holds no number)."""
    taken = bytearray(len(text))
    for mention in names:
        taken[mention.start : mention.end] = b"\x01" * (mention.end - mention.start)
    numbers = []
    for match in _NUMBER.finditer(text):
        start, digits = match.start(), match.group()
        if any(taken[start : match.end()]):
            continue
        # A minus sign counts when it starts a word ("-5", "[-5, 5]"), not in "0-20".
        if (
            start >= 1
            and text[start - 1] in "-−"
            and (start < 2 or text[start - 2] in _SIGN_FOLLOWS)
        ):
            start -= 1
            digits = "-" + digits
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        numbers.append(_Number(start, match.end(), float(digits), decimals))
    return numbers


def _same_number(number: _Number, value: float) -> bool:
    if math.isclose(number.value, value, rel_tol=1e-9, abs_tol=1e-9):
        return True
    # A non-integer endpoint may be written rounded ("0.33" for 0.3333).
    return (
        number.decimals >= 1
        and not float(value).is_integer()
        and abs(number.value - value) <= 0.5 * 10**-number.decimals + 1e-12
    )


_Spanned = TypeVar("_Spanned", _Mention, _Number)


@dataclass
class _Unit:
    """A sentence or line of the book (clipped to one part of the book)."""

    start: int
    end: int
    heading: bool


def _units(text: str) -> list[_Unit]:
    units = []
    for line in re.finditer(r"[^\n]+", text):
        heading = line.group().lstrip().startswith("#")
        offset = line.start()
        for sentence in re.finditer(r"\S(?:.*?)(?:(?<=[.!?;])(?=\s)|$)", line.group()):
            units.append(_Unit(offset + sentence.start(), offset + sentence.end(), heading))
    return units


def _sentence(text: str, unit: _Unit) -> str:
    snippet = " ".join(text[unit.start : unit.end].split())
    return snippet if len(snippet) <= 120 else snippet[:117] + "..."


def _cue_applies(cue: re.Pattern[str], text: str, unit: _Unit) -> bool:
    """Whether ``cue`` occurs in the unit without a negation just before it."""
    for match in cue.finditer(text, unit.start, unit.end):
        before = text[max(unit.start, match.start() - _NEGATION_REACH) : match.start()]
        if not _NEGATION.search(before):
            return True
    return False


def _outcome_name(action: Action, state: State) -> str:
    if state.label is not None:
        return f"outcome '{state.label}' of '{action.name}'"
    assert state.range is not None
    lo, hi = state.range
    return f"outcome {format_number(lo)} to {format_number(hi)} of '{action.name}'"


class _Reader:
    """The parsed book: mentions, numbers, sentences and the part on each action."""

    def __init__(self, domain: Domain, instance: Instance, text: str) -> None:
        self.text = text
        task_truths, task_actions = set(instance.truths), set(instance.actions)
        self.actions = {name: domain.action(name) for name in instance.actions}
        names: list[tuple[str, str, str]] = []
        names += [("action", name, name) for name in instance.actions]
        names += [("truth", name, name) for name in instance.truths]
        labels = {
            _normalise(state.label): state.label
            for action in self.actions.values()
            for state in action.states
            if state.label is not None
        }
        names += [("label", key, label) for key, label in labels.items()]
        names += [
            ("other_action", a.name, a.name) for a in domain.actions if a.name not in task_actions
        ]
        names += [("other_truth", name, name) for name in domain.truths if name not in task_truths]
        self.mentions = _find_mentions(text, names)
        self.numbers = _find_numbers(text, self.mentions)
        self.units = _units(text)
        self.parts = self._parts()

    def _parts(self) -> dict[str, list[tuple[int, int]]]:
        """For each action, the spans from each of its mentions to the next other action."""
        marks = [m for m in self.mentions if m.kind == "action"]
        parts: dict[str, list[tuple[int, int]]] = {}
        index = 0
        while index < len(marks):
            name, start = marks[index].key, marks[index].start
            while index < len(marks) and marks[index].key == name:
                index += 1
            end = marks[index].start if index < len(marks) else len(self.text)
            parts.setdefault(name, []).append((start, end))
        return parts

    def named(self, kind: str) -> set[str]:
        return {m.key for m in self.mentions if m.kind == kind}

    @staticmethod
    def in_span(items: Iterable[_Spanned], start: int, end: int) -> list[_Spanned]:
        return [item for item in items if item.start < end and item.end > start]


class _ActionPart:
    """The part of the book on one action, read outcome by outcome.

    A name that is both an outcome label of the action and a truth of the task
    (``arrhythmia`` / ``Arrhythmia``) is ambiguous in this part. Each sentence or line is
    read as being about at most one such outcome, the way a person reads "If the result is
    'hypothyroidism': rule out Hyperthyroidism":

    * if the sentence names an outcome of the action unambiguously (another label, a
      range), every ambiguous name in it is a truth;
    * otherwise the first ambiguous name before any rule-out wording is the outcome, unless
      the line has no rule-out wording of its own and sits in a list of ruled-out truths
      (under a line ending in "rules out:"); every other ambiguous name is a truth.

    A name read as an outcome here is not a truth for the rule-out checks, so an outcome
    cannot stand in for the truth of the same name it should rule out (or the reverse).
    """

    def __init__(self, reader: _Reader, action: Action) -> None:
        self.reader, self.action = reader, action
        self.spans = reader.parts.get(action.name, [])
        mentions = [m for s, e in self.spans for m in reader.in_span(reader.mentions, s, e)]
        self.numbers = [n for s, e in self.spans for n in reader.in_span(reader.numbers, s, e)]
        self.labels = {
            _normalise(state.label): index
            for index, state in enumerate(action.states)
            if state.label is not None
        }
        range_spots = {
            index: spots
            for index, state in enumerate(action.states)
            if state.range is not None and (spots := self._range_spots(state))
        }
        # Each clipped sentence/line of the part with the outcomes it is about.
        self.units: list[tuple[_Unit, frozenset[int], frozenset[int]]] = []
        resolved: dict[_Mention, _Mention] = {}
        for start, end in self.spans:
            inherited: frozenset[int] = frozenset()
            listing = False  # inside a list of truths under "... rules out:"
            for unit in reader.units:
                if unit.end <= start or unit.start >= end:
                    continue
                clipped = _Unit(max(unit.start, start), min(unit.end, end), unit.heading)
                listing = listing and not clipped.heading
                in_unit = reader.in_span(mentions, clipped.start, clipped.end)
                ranged = {
                    index
                    for index, spots in range_spots.items()
                    for spot in spots
                    if spot[0] < clipped.end and spot[1] > clipped.start
                }
                marked = ranged | self._labelled(in_unit)
                cues = list(_RULING_OUT.finditer(reader.text, clipped.start, clipped.end))
                self._resolve(in_unit, resolved, marked, cues, clipped, listing and not cues)
                in_unit = [resolved.get(m, m) for m in in_unit]
                direct = frozenset(ranged | self._labelled(in_unit))
                if clipped.heading or direct:
                    inherited = direct
                if cues:
                    listing = self._opens_list(clipped, cues[-1], in_unit)
                elif direct:
                    listing = False
                self.units.append((clipped, direct, direct or inherited))
        self.mentions = [resolved.get(m, m) for m in mentions]
        # Where a truth's name is read as an outcome of this action.
        self.as_outcome = frozenset(m.start for m in resolved)
        self.markers = self._outcome_markers(range_spots)

    def _labelled(self, mentions: Iterable[_Mention]) -> set[int]:
        """The outcomes (by index) whose labels are among ``mentions``."""
        return {self.labels[m.key] for m in mentions if m.kind == "label" and m.key in self.labels}

    def _resolve(
        self,
        in_unit: list[_Mention],
        resolved: dict[_Mention, _Mention],
        marked: set[int],
        cues: list[re.Match[str]],
        unit: _Unit,
        listed: bool,
    ) -> None:
        """Decide, for the ambiguous names of one sentence or line, which one (if any) is
        the outcome; record it in ``resolved`` as a label mention."""
        ambiguous = [
            m
            for m in in_unit
            if m.kind == "truth" and m not in resolved and _normalise(m.key) in self.labels
        ]
        if not ambiguous or marked or listed:
            return
        before = cues[0].start() if cues else unit.end
        first = ambiguous[0]
        if first.start < before:
            resolved[first] = _Mention(first.start, first.end, "label", _normalise(first.key))

    def _opens_list(self, unit: _Unit, cue: re.Match[str], in_unit: list[_Mention]) -> bool:
        """Whether a sentence with rule-out wording leaves its truths to the lines below."""
        if any(m.kind == "truth" and m.start >= cue.end() for m in in_unit):
            return False
        text = self.reader.text
        if not text[cue.end() : unit.end].strip(" \t*_:-–—"):
            return True  # "rules out" at the end of the line
        return text[unit.start : unit.end].rstrip(" \t*_").endswith(":")

    def _outcome_markers(
        self, range_spots: dict[int, list[tuple[int, int]]]
    ) -> dict[int, list[tuple[int, int]]]:
        """Where each outcome (by index in ``action.states``) is mentioned in the part."""
        markers = dict(range_spots)
        for m in self.mentions:
            if m.kind == "label" and m.key in self.labels:
                markers.setdefault(self.labels[m.key], []).append((m.start, m.end))
        return markers

    def _range_spots(self, state: State) -> list[tuple[int, int]]:
        assert state.range is not None
        lo, hi = state.range
        text, numbers = self.reader.text, self.numbers
        pairs = [
            (first.start, second.end)
            for first, second in zip(numbers, numbers[1:], strict=False)
            if _same_number(first, lo)
            and _same_number(second, hi)
            and second.start - first.end <= _PAIR_REACH
            and "\n" not in text[first.end : second.start]
        ]
        if pairs:
            return pairs
        # Written some other way ("below 99", "from 50"): both endpoints must still appear.
        lows = [(n.start, n.end) for n in numbers if _same_number(n, lo)]
        highs = [(n.start, n.end) for n in numbers if _same_number(n, hi)]
        return sorted(set(lows + highs)) if lows and highs else []

    def truths_about(self, index: int) -> set[str]:
        """Truths mentioned in the sentences and lines about outcome ``index``."""
        found: set[str] = set()
        for unit, _direct, about in self.units:
            if index in about:
                found |= {
                    m.key
                    for m in self.reader.in_span(self.mentions, unit.start, unit.end)
                    if m.kind == "truth"
                }
        return found


def check_book(domain: Domain, instance: Instance, text: str) -> list[str]:
    """Problems with a knowledge book for ``instance``; an empty list means it passes.

    Checks, each problem naming the action, outcome and truth concerned:

    1. every truth and every action of the task is named;
    2. the part on each action gives every outcome the action can have in the domain;
    3. for every outcome and every task truth it rules out, the truth is named in the part
       on that action, alongside that outcome;
    4. no sentence claims an outcome rules out a task truth it does not rule out;
    5. no sentence presents an outcome or a truth with confirming language ("confirms",
       "indicates", "suggests", "is consistent with", ...), unless negated ("does not
       confirm");
    6. no sentence singles out a truth as the answer or predicts what an action will show;
    7. no truth or action of the domain outside the task is named (best effort).
    """
    reader = _Reader(domain, instance, text)
    named_actions = reader.named("action")
    parts = {
        name: _ActionPart(reader, reader.actions[name])
        for name in _alphabetical(instance.actions)
        if name in named_actions
    }
    # A truth's name read as an outcome of the action under discussion does not name it.
    as_outcome = {start for part in parts.values() for start in part.as_outcome}
    named_truths = {
        m.key for m in reader.mentions if m.kind == "truth" and m.start not in as_outcome
    }
    problems: list[str] = []
    problems += [f"truth '{t}' is never named" for t in instance.truths if t not in named_truths]
    problems += [f"action '{a}' is never named" for a in instance.actions if a not in named_actions]

    task_truths = frozenset(instance.truths)
    for name, part in parts.items():
        action = part.action
        part_truths = {m.key for m in part.mentions if m.kind == "truth"}
        for index, state in enumerate(action.states):
            outcome = _outcome_name(action, state)
            if index not in part.markers:
                problems.append(f"{outcome} is not given in the part of the book on '{name}'")
                continue
            nearby = part.truths_about(index)
            for truth in _alphabetical(state.rules_out & task_truths):
                if truth not in part_truths:
                    problems.append(
                        f"{outcome} rules out '{truth}', but the part of the book on "
                        f"'{name}' never names '{truth}'"
                    )
                elif truth not in nearby:
                    problems.append(f"{outcome} rules out '{truth}', but the book does not say so")
        problems += _wrong_rule_outs(reader, part, task_truths)

    problems += _wording_problems(reader, parts)
    for kind, what in (("other_truth", "truth"), ("other_action", "action")):
        for name in _alphabetical(reader.named(kind)):
            problems.append(f"names '{name}', which is not one of this task's {what}s")
    return list(dict.fromkeys(problems))


def _wrong_rule_outs(reader: _Reader, part: _ActionPart, task_truths: frozenset[str]) -> list[str]:
    """Sentences about a single outcome that rule out a truth the outcome does not."""
    problems = []
    for unit, direct, _about in part.units:
        if len(direct) != 1 or not _cue_applies(_RULING_OUT, reader.text, unit):
            continue
        (index,) = direct
        state = part.action.states[index]
        for mention in reader.in_span(part.mentions, unit.start, unit.end):
            if mention.kind == "truth" and mention.key not in state.rules_out:
                problems.append(
                    f"{_outcome_name(part.action, state)} is said to rule out "
                    f"'{mention.key}', which it does not rule out"
                )
    return problems


def _wording_problems(reader: _Reader, parts: dict[str, _ActionPart]) -> list[str]:
    text = reader.text
    # Sentences that mention an outcome, found within the parts on the actions.
    about_outcome: set[tuple[int, int]] = set()
    for part in parts.values():
        about_outcome |= {(unit.start, unit.end) for unit, direct, _ in part.units if direct}
    problems = []
    for unit in reader.units:
        truths = [
            m.key
            for m in reader.in_span(reader.mentions, unit.start, unit.end)
            if m.kind in ("truth", "other_truth")
        ]
        outcome = any(start < unit.end and end > unit.start for start, end in about_outcome)
        if (truths or outcome) and _cue_applies(_CONFIRMING, text, unit):
            problems.append(f'states a confirmation, not a rule-out: "{_sentence(text, unit)}"')
        if truths and _cue_applies(_ANSWERING, text, unit):
            problems.append(f"singles out '{truths[0]}' as the answer: \"{_sentence(text, unit)}\"")
        if outcome and _cue_applies(_PREDICTING, text, unit):
            problems.append(f'predicts an outcome: "{_sentence(text, unit)}"')
    return problems
