"""Reading, writing and checking domains (seed configs).

Three ways in and one way out:

* :func:`validate_domain` checks a :class:`~engine.core.families.kumo.types.Domain` against the
  validity
  rules of ``docs/domain-format.md`` and returns *every* problem, each naming the action,
  state and truth concerned.
* :func:`domain_from_json` / :func:`domain_to_json` read and write our JSON format
  (``"format": "kumo-domain/1"``). Structural mistakes (missing fields, wrong types, a bad
  format tag) are all reported together with JSON paths such as
  ``actions[3].states[1].range``, then the domain is validated.
* :func:`domain_from_kumo_module` reads a ``*_data.py`` module of the original KUMO
  release *as data*: the source is parsed with :mod:`ast` and never imported or executed.

Original KUMO modules
---------------------
Shape: the first two module-level assignments of a list (or tuple, or set) literal are the
truth pool and the action pool, whatever their variable names (``Diseases``,
``Diagnosis``, ``Truths``...), and ``Outcomes = {action: {"type": ..., "states": {...}}}``
is the outcome table. Other top-level statements (imports, docstrings) are ignored: they
are never run. Inside the values only literals are accepted, plus the exact call
``set()`` (how those files write an empty rule-out set); anything else (``set([...])``,
``sorted(...)``, a variable) is rejected with its line number. Pools written as set
literals keep the order in which they are written, so the result does not depend on
Python's hash seed.

Some original files break rules that our JSON validator enforces. The JSON validator is
not weakened for them; instead ``strict=False`` tolerates, as *warnings*, the legacy
issues that leave the game well-defined:

* a pool truth that no state rules out: it can never be eliminated, so the generator
  simply never obtains a covered instance in which it is an invalid truth, and the search
  treats it as a base case;
* a truth or action listed twice in a pool (the later copy is dropped), or a key written
  twice in a dict literal (the later value wins, exactly as Python evaluated it for the
  original code);
* unknown keys in an ``Outcomes`` entry (ignored);
* ``"type": "int"`` (not one of our types): integer keys become ``str`` labels (``1`` ->
  ``"1"``) and ``(lo, hi)`` keys become ``float`` ranges.

Real errors still raise :class:`DomainError` in both modes: an unknown truth named in a
state, a truth ruled out by every state of one action, overlapping ranges, an action with
fewer than two states, a list/``Outcomes`` mismatch, non-literal data. Ranges that merely
share an endpoint (as in the original medical domain) are valid everywhere, so they are
neither errors nor warnings; the original files also leave gaps between ranges, which is
allowed too.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal, NamedTuple, overload

from engine.core.families.kumo.types import Action, Domain, State

FORMAT = "kumo-domain/1"
NAME_PATTERN = re.compile(r"[A-Za-z0-9-]+")
OUTCOME_TYPES = ("str", "float")

# Problem kinds that a lenient KUMO import downgrades to warnings (see module docstring).
_ERROR = "error"
_LEGACY = "legacy"


class DomainError(ValueError):
    """A domain that cannot be used; ``problems`` lists every problem found."""

    def __init__(self, problems: Iterable[str], heading: str = "invalid domain") -> None:
        self.problems = list(problems)
        self.heading = heading
        # Same order as __init__'s parameters, so the exception survives pickling (Celery).
        super().__init__(self.problems, self.heading)

    def __str__(self) -> str:
        count = len(self.problems)
        lines = [f"{self.heading}: {count} problem{'' if count == 1 else 's'}"]
        lines.extend(f"  - {problem}" for problem in self.problems)
        return "\n".join(lines)


class _Problem(NamedTuple):
    kind: str
    message: str


# --------------------------------------------------------------------------------------
# Validation


def validate_domain(domain: Domain) -> list[str]:
    """Every way ``domain`` breaks the validity rules of ``docs/domain-format.md``.

    An empty list means the domain is valid.
    """
    return [problem.message for problem in _domain_problems(domain)]


def _domain_problems(domain: Domain) -> list[_Problem]:
    """The checks behind :func:`validate_domain`, each tagged error or legacy.

    1. The domain name, the truth pool and the action pool (non-empty, unique names).
    2. Each action: its type, at least two states, each state's label or range, unique
       labels, finite increasing ranges that do not overlap, rule-outs naming pool truths
       only, and no truth ruled out by every state.
    3. Pool truths that no state of any action rules out.
    """
    problems: list[_Problem] = []

    def error(message: str) -> None:
        problems.append(_Problem(_ERROR, message))

    # 1. Names and pools.
    if not isinstance(domain.name, str) or not NAME_PATTERN.fullmatch(domain.name):
        error(
            f"domain name {domain.name!r} must be made of letters a-z or A-Z, digits and '-' only"
        )
    if not domain.truths:
        error("the truth pool is empty")
    if not domain.actions:
        error("the action pool is empty")
    for truth in domain.truths:
        if not isinstance(truth, str) or not truth.strip():
            error(f"truth {truth!r} has an empty name")
    for truth, count in _repeated(domain.truths):
        error(f"truth {truth!r} appears {count} times in the truth pool")
    for name, count in _repeated(action.name for action in domain.actions):
        error(f"action {name!r} appears {count} times in the action pool")

    # 2. Actions and their states.
    pool = set(domain.truths)
    for action in domain.actions:
        for message in _action_problems(action, domain.truths, pool):
            error(message)

    # 3. Truths that can never be ruled out (legacy: the original domains have some).
    mentioned: set[str] = set()
    for action in domain.actions:
        for state in action.states:
            mentioned |= state.rules_out
    for truth in domain.truths:
        if truth not in mentioned:
            problems.append(
                _Problem(_LEGACY, f"truth {truth!r} is not ruled out by any state of any action")
            )
    return problems


def _action_problems(action: Action, truths: tuple[str, ...], pool: set[str]) -> list[str]:
    problems: list[str] = []
    where = f"action {action.name!r}"
    if not isinstance(action.name, str) or not action.name.strip():
        problems.append(f"{where}: the action name is empty")
    if action.type not in OUTCOME_TYPES:
        problems.append(f"{where}: type {action.type!r} is not 'str' or 'float'")
    if len(action.states) < 2:
        problems.append(
            f"{where}: has {len(action.states)} state(s); every action needs at least two"
        )

    valid_ranges: list[tuple[str, float, float]] = []
    for number, state in enumerate(action.states, start=1):
        state_name = _state_name(state, number)
        if action.type == "str":
            if state.range is not None:
                problems.append(f"{where}: state {state_name} has a range but the type is 'str'")
            if not isinstance(state.label, str) or not state.label.strip():
                problems.append(f"{where}: state #{number} has no label")
        elif action.type == "float":
            if state.label is not None:
                problems.append(f"{where}: state {state_name} has a label but the type is 'float'")
            if state.range is None:
                problems.append(f"{where}: state #{number} has no range")
            else:
                lo, hi = state.range
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    problems.append(f"{where}: state {state_name} has a range that is not finite")
                elif not lo < hi:
                    problems.append(f"{where}: state {state_name} needs lo < hi")
                else:
                    valid_ranges.append((state_name, lo, hi))
        # Sorted so that messages do not depend on set iteration order (the hash seed).
        for truth in sorted(state.rules_out - pool):
            problems.append(f"{where}: state {state_name} rules out unknown truth {truth!r}")

    if action.type == "str":
        labels = [state.label for state in action.states if state.label is not None]
        for label, count in _repeated(labels):
            problems.append(f"{where}: label {label!r} is used by {count} states")

    # Closed ranges may share an endpoint (the number there counts as the first range's);
    # any overlap of positive length makes the outcome ambiguous.
    for i, (name_a, lo_a, hi_a) in enumerate(valid_ranges):
        for name_b, lo_b, hi_b in valid_ranges[i + 1 :]:
            if max(lo_a, lo_b) < min(hi_a, hi_b):
                problems.append(f"{where}: ranges {name_a} and {name_b} overlap")

    if action.states:
        for truth in truths:
            if all(truth in state.rules_out for state in action.states):
                problems.append(
                    f"{where}: truth {truth!r} is ruled out by every state "
                    "(it could never survive this action)"
                )
    return problems


def _state_name(state: State, number: int) -> str:
    """How messages name a state: its quoted label, its ``[lo, hi]`` range, or its number."""
    if isinstance(state.label, str) and state.label.strip():
        return repr(state.label)
    if state.range is not None:
        try:
            return State(frozenset(), range=state.range).key
        except (TypeError, ValueError, OverflowError):
            return f"#{number} {state.range!r}"
    return f"#{number}"


def _repeated(items: Iterable[object]) -> list[tuple[object, int]]:
    return [(item, count) for item, count in Counter(items).items() if count > 1]


# --------------------------------------------------------------------------------------
# JSON

_DOMAIN_FIELDS = {
    "format",
    "name",
    "title",
    "description",
    "truth_noun",
    "action_noun",
    "truths",
    "actions",
}
_ACTION_FIELDS = {"name", "type", "description", "unit", "states"}
_STATE_FIELDS = {"label", "range", "rules_out", "description"}


def domain_from_json(data: Mapping[str, object] | str | bytes, *, validate: bool = True) -> Domain:
    """Build a domain from our JSON format (a parsed object or the JSON text).

    1. Parse the text if given a string.
    2. Check the structure: required fields, types, the format tag, unknown fields. All
       structural problems are collected and raised together, with JSON paths.
    3. Build the :class:`Domain` (ranges become floats).
    4. Unless ``validate=False``, check the validity rules and raise :class:`DomainError`
       listing every problem.
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise DomainError([f"not valid JSON: {exc}"], heading="malformed domain") from None
    if not isinstance(data, Mapping):
        raise DomainError(
            [f"the domain must be a JSON object, not {_json_type(data)}"],
            heading="malformed domain",
        )

    reader = _JsonReader()
    domain = reader.domain(data)
    if reader.problems:
        raise DomainError(reader.problems, heading="malformed domain")
    assert domain is not None
    if validate:
        problems = validate_domain(domain)
        if problems:
            raise DomainError(problems)
    return domain


class _JsonReader:
    """Walks a JSON domain, collecting every structural problem instead of stopping."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}" if path else message)

    def domain(self, data: Mapping[str, object]) -> Domain | None:
        self.unknown_fields(data, _DOMAIN_FIELDS, "")
        if "format" not in data:
            self.problem("format", f"missing (expected {FORMAT!r})")
        elif data["format"] != FORMAT:
            self.problem("format", f"expected {FORMAT!r}, got {data['format']!r}")
        name = self.string(data, "name", "name", required=True)
        title = self.string(data, "title", "title")
        description = self.string(data, "description", "description")
        truth_noun = self.string(data, "truth_noun", "truth_noun", default="truth")
        action_noun = self.string(data, "action_noun", "action_noun", default="action")
        truths = self.string_list(data, "truths", "truths")

        actions: list[Action] = []
        raw_actions = data.get("actions")
        if "actions" not in data:
            self.problem("actions", "missing")
        elif not isinstance(raw_actions, list):
            self.problem("actions", f"expected an array, got {_json_type(raw_actions)}")
        else:
            for index, raw in enumerate(raw_actions):
                action = self.action(raw, f"actions[{index}]")
                if action is not None:
                    actions.append(action)

        if self.problems:
            return None
        return Domain(
            name=name,
            truths=tuple(truths),
            actions=tuple(actions),
            title=title,
            description=description,
            truth_noun=truth_noun,
            action_noun=action_noun,
        )

    def action(self, raw: object, path: str) -> Action | None:
        if not isinstance(raw, Mapping):
            self.problem(path, f"expected an object, got {_json_type(raw)}")
            return None
        before = len(self.problems)
        self.unknown_fields(raw, _ACTION_FIELDS, path)
        name = self.string(raw, "name", f"{path}.name", required=True)
        kind = raw.get("type")
        if "type" not in raw:
            self.problem(f"{path}.type", "missing")
            kind = None
        elif kind not in OUTCOME_TYPES:
            self.problem(f"{path}.type", f"expected 'str' or 'float', got {kind!r}")
            kind = None
        description = self.string(raw, "description", f"{path}.description")
        unit = self.string(raw, "unit", f"{path}.unit")

        states: list[State] = []
        raw_states = raw.get("states")
        if "states" not in raw:
            self.problem(f"{path}.states", "missing")
        elif not isinstance(raw_states, list):
            self.problem(f"{path}.states", f"expected an array, got {_json_type(raw_states)}")
        else:
            for index, raw_state in enumerate(raw_states):
                state = self.state(raw_state, kind, f"{path}.states[{index}]")
                if state is not None:
                    states.append(state)

        if len(self.problems) > before or kind is None:
            return None
        return Action(
            name=name, type=kind, states=tuple(states), description=description, unit=unit
        )

    def state(self, raw: object, kind: str | None, path: str) -> State | None:
        if not isinstance(raw, Mapping):
            self.problem(path, f"expected an object, got {_json_type(raw)}")
            return None
        before = len(self.problems)
        self.unknown_fields(raw, _STATE_FIELDS, path)
        label: str | None = None
        bounds: tuple[float, float] | None = None
        # With an unknown type we cannot say which of label/range is required, but we can
        # still check whichever is present.
        if kind == "str" or (kind is None and "label" in raw):
            label = self.string(raw, "label", f"{path}.label", required=kind == "str")
        if kind == "float" or (kind is None and "range" in raw):
            bounds = self.range(raw, f"{path}.range", required=kind == "float")
        if kind == "str" and "range" in raw:
            self.problem(f"{path}.range", "not allowed in a state of a 'str' action")
        if kind == "float" and "label" in raw:
            self.problem(f"{path}.label", "not allowed in a state of a 'float' action")
        rules_out = self.string_list(raw, "rules_out", f"{path}.rules_out")
        description = self.string(raw, "description", f"{path}.description")
        if len(self.problems) > before:
            return None
        return State(
            rules_out=frozenset(rules_out), label=label, range=bounds, description=description
        )

    def range(self, raw: Mapping[str, object], path: str, *, required: bool) -> tuple[float, float]:
        if "range" not in raw:
            if required:
                self.problem(path, "missing")
            return (0.0, 0.0)
        value = raw["range"]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(_is_number(bound) for bound in value)
        ):
            self.problem(path, f"expected [lo, hi] (two numbers), got {value!r}")
            return (0.0, 0.0)
        return (float(value[0]), float(value[1]))

    def string(
        self,
        raw: Mapping[str, object],
        key: str,
        path: str,
        *,
        required: bool = False,
        default: str = "",
    ) -> str:
        if key not in raw:
            if required:
                self.problem(path, "missing")
            return default
        value = raw[key]
        if not isinstance(value, str):
            self.problem(path, f"expected a string, got {_json_type(value)}")
            return default
        return value

    def string_list(self, raw: Mapping[str, object], key: str, path: str) -> list[str]:
        if key not in raw:
            self.problem(path, "missing")
            return []
        value = raw[key]
        if not isinstance(value, list):
            self.problem(path, f"expected an array of strings, got {_json_type(value)}")
            return []
        items: list[str] = []
        for index, item in enumerate(value):
            if isinstance(item, str):
                items.append(item)
            else:
                self.problem(f"{path}[{index}]", f"expected a string, got {_json_type(item)}")
        for item, count in _repeated(items):
            self.problem(path, f"{item!r} is listed {count} times")
        return items

    def unknown_fields(self, raw: Mapping[str, object], allowed: set[str], path: str) -> None:
        # Unknown fields are most often typos ("rule_out", "units"); silently dropping
        # them would lose data, so they are reported.
        for key in raw:
            if key not in allowed:
                self.problem(path, f"unknown field {key!r}")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def domain_to_json(domain: Domain) -> dict[str, object]:
    """The JSON object for ``domain``; ``domain_from_json`` gives the same domain back.

    Rule-out lists are sorted in pool order so the output is stable (a frozenset has no
    order of its own); whole-number bounds are written as integers for readability.
    Optional per-action and per-state fields are written only when non-empty.
    """
    position = {truth: index for index, truth in enumerate(domain.truths)}

    def pool_order(truths: frozenset[str]) -> list[str]:
        return sorted(truths, key=lambda truth: (position.get(truth, len(position)), truth))

    actions: list[dict[str, object]] = []
    for action in domain.actions:
        states: list[dict[str, object]] = []
        for state in action.states:
            entry: dict[str, object] = {}
            if state.label is not None:
                entry["label"] = state.label
            if state.range is not None:
                entry["range"] = [_json_number(state.range[0]), _json_number(state.range[1])]
            entry["rules_out"] = pool_order(state.rules_out)
            if state.description:
                entry["description"] = state.description
            states.append(entry)
        item: dict[str, object] = {"name": action.name, "type": action.type}
        if action.description:
            item["description"] = action.description
        if action.unit:
            item["unit"] = action.unit
        item["states"] = states
        actions.append(item)

    return {
        "format": FORMAT,
        "name": domain.name,
        "title": domain.title,
        "description": domain.description,
        "truth_noun": domain.truth_noun,
        "action_noun": domain.action_noun,
        "truths": list(domain.truths),
        "actions": actions,
    }


def _json_number(value: float) -> int | float:
    # Hand-built domains may hold ints; float() also gives them is_integer() on 3.11.
    value = float(value)
    # Integers are exact in a float up to 2**53; beyond that keep the float as it is.
    if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


# --------------------------------------------------------------------------------------
# Original KUMO modules


class _NotData(Exception):
    """A node of a KUMO module that is not plain data."""

    def __init__(self, node: ast.AST, why: str = "") -> None:
        text = ast.unparse(node)
        if len(text) > 60:
            text = text[:57] + "..."
        reason = why or "only literals and the empty set() are allowed"
        super().__init__(f"line {node.lineno}: {text!r} is not plain data ({reason})")


@overload
def domain_from_kumo_module(source: str, name: str, *, strict: Literal[True] = ...) -> Domain: ...


@overload
def domain_from_kumo_module(
    source: str, name: str, *, strict: Literal[False]
) -> tuple[Domain, list[str]]: ...


def domain_from_kumo_module(
    source: str, name: str, *, strict: bool = True
) -> Domain | tuple[Domain, list[str]]:
    """Read an original KUMO ``*_data.py`` module as data, never executing it.

    With ``strict=True`` (the default) the result must pass :func:`validate_domain`
    exactly like a JSON domain, and the domain is returned. With ``strict=False`` the
    legacy issues listed in the module docstring become warnings and ``(domain,
    warnings)`` is returned; real errors raise :class:`DomainError` in both modes.

    1. Parse the source with :mod:`ast` (a syntax error is reported with its line).
    2. Find the truth pool, the action pool (the first two list/tuple/set assignments)
       and ``Outcomes``.
    3. Convert each ``Outcomes`` entry to an :class:`Action`, accepting only literals and
       ``set()``, in the order of the action pool.
    4. Validate the domain and split problems into errors and legacy warnings.
    """
    # 1. Parse.
    try:
        module = ast.parse(source)
    except SyntaxError as exc:
        raise DomainError(
            [f"line {exc.lineno}: not valid Python: {exc.msg}"], heading="unreadable KUMO module"
        ) from None

    problems: list[_Problem] = []
    reader = _KumoReader(problems)

    # 2. Find the pools and the outcome table.
    pools: list[tuple[str, ast.expr]] = []
    outcomes_node: ast.expr | None = None
    for statement in module.body:
        target, value = _simple_assignment(statement)
        if target is None or value is None:
            continue
        if target == "Outcomes":
            if outcomes_node is not None:
                problems.append(
                    _Problem(_ERROR, f"line {statement.lineno}: Outcomes is assigned twice")
                )
            outcomes_node = value
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)) and len(pools) < 2:
            pools.append((target, value))
    if len(pools) < 2:
        problems.append(
            _Problem(
                _ERROR,
                f"expected two list assignments (truth pool, action pool), found {len(pools)}",
            )
        )
    if outcomes_node is None:
        problems.append(_Problem(_ERROR, "no 'Outcomes = {...}' assignment"))
    if len(pools) < 2 or outcomes_node is None:
        raise DomainError(_messages(problems), heading="unreadable KUMO module")

    truths = reader.pool(*pools[0], noun="truth")
    action_names = reader.pool(*pools[1], noun="action")

    # 3. Convert the outcome table, in action-pool order.
    outcomes = reader.outcomes(outcomes_node)
    actions: list[Action] = []
    listed = set(action_names)
    for action_name in action_names:
        if action_name in outcomes:
            actions.append(outcomes[action_name])
        elif action_name not in reader.broken_actions:
            problems.append(
                _Problem(
                    _ERROR,
                    f"action {action_name!r} is in the action list {pools[1][0]!r} "
                    "but has no entry in Outcomes",
                )
            )
    for action_name, line in reader.outcome_lines.items():
        if action_name not in listed:
            problems.append(
                _Problem(
                    _ERROR,
                    f"line {line}: Outcomes has an entry for {action_name!r}, "
                    f"which is not in the action list {pools[1][0]!r}",
                )
            )
    if any(problem.kind == _ERROR for problem in problems):
        raise DomainError(_messages(problems), heading="unreadable KUMO module")

    # 4. Validate.
    domain = Domain(name=name, truths=tuple(truths), actions=tuple(actions))
    problems.extend(_domain_problems(domain))
    errors = [p.message for p in problems if p.kind == _ERROR or strict]
    if errors:
        raise DomainError(errors)
    if strict:
        return domain
    return domain, [p.message for p in problems if p.kind == _LEGACY]


def _messages(problems: list[_Problem]) -> list[str]:
    return [problem.message for problem in problems]


def _simple_assignment(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``(name, value)`` for ``name = value`` or ``name: T = value``, else ``(None, None)``."""
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.targets[0].id, statement.value
    if (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.value is not None
    ):
        return statement.target.id, statement.value
    return None, None


class _KumoReader:
    """Turns the AST of a KUMO module into domain parts, recording problems as it goes."""

    def __init__(self, problems: list[_Problem]) -> None:
        self.problems = problems
        self.outcome_lines: dict[str, int] = {}
        # Actions whose Outcomes entry was unusable; already reported, so not reported
        # again as "missing from Outcomes".
        self.broken_actions: set[str] = set()

    def error(self, message: str) -> None:
        self.problems.append(_Problem(_ERROR, message))

    def legacy(self, message: str) -> None:
        self.problems.append(_Problem(_LEGACY, message))

    def pool(self, variable: str, node: ast.expr, *, noun: str) -> list[str]:
        items: list[str] = []
        assert isinstance(node, (ast.List, ast.Tuple, ast.Set))
        for element in node.elts:
            try:
                value = _scalar(element)
            except _NotData as exc:
                self.error(str(exc))
                continue
            if not isinstance(value, str):
                self.error(
                    f"line {element.lineno}: {noun} {value!r} in {variable!r} is not a string"
                )
            elif value in items:
                self.legacy(
                    f"line {element.lineno}: {noun} {value!r} is listed twice in {variable!r}; "
                    "the second copy is ignored"
                )
            else:
                items.append(value)
        return items

    def outcomes(self, node: ast.expr) -> dict[str, Action]:
        actions: dict[str, Action] = {}
        if not isinstance(node, ast.Dict):
            self.error(f"line {node.lineno}: Outcomes must be a dict literal")
            return actions
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:  # {**other}
                self.error(f"line {value_node.lineno}: '**' is not allowed in Outcomes")
                continue
            try:
                name = _scalar(key_node)
            except _NotData as exc:
                self.error(str(exc))
                continue
            if not isinstance(name, str):
                self.error(f"line {key_node.lineno}: action name {name!r} is not a string")
                continue
            if name in self.outcome_lines:
                self.legacy(
                    f"line {key_node.lineno}: Outcomes has two entries for {name!r}; "
                    "the later one is used, as Python does"
                )
            self.outcome_lines.setdefault(name, key_node.lineno)
            action = self.action(name, value_node)
            if action is None:
                self.broken_actions.add(name)
                actions.pop(name, None)
            else:
                self.broken_actions.discard(name)
                actions[name] = action
        return actions

    def action(self, name: str, node: ast.expr) -> Action | None:
        where = f"line {node.lineno}: action {name!r}"
        if not isinstance(node, ast.Dict):
            self.error(f"{where}: expected a dict with 'type' and 'states'")
            return None
        fields: dict[str, ast.expr] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            key = _scalar(key_node) if isinstance(key_node, ast.Constant) else None
            if not isinstance(key, str):
                self.error(f"{where}: keys must be 'type' and 'states'")
                return None
            if key not in ("type", "states"):
                self.legacy(f"{where}: unknown key {key!r} is ignored")
                continue
            fields[key] = value_node
        if "type" not in fields or "states" not in fields:
            missing = [key for key in ("type", "states") if key not in fields]
            self.error(f"{where}: missing {', '.join(repr(k) for k in missing)}")
            return None
        try:
            kind = _scalar(fields["type"])
        except _NotData as exc:
            self.error(str(exc))
            return None
        states_node = fields["states"]
        if not isinstance(states_node, ast.Dict):
            self.error(f"{where}: 'states' must be a dict literal")
            return None

        # Read the states as Python would evaluate the dict: a repeated key keeps its
        # first position and takes the later value.
        raw_states: dict[object, frozenset[str]] = {}
        ok = True
        for key_node, value_node in zip(states_node.keys, states_node.values, strict=True):
            if key_node is None:
                self.error(f"line {value_node.lineno}: '**' is not allowed in states")
                ok = False
                continue
            try:
                key = _key(key_node)
                rules_out = _truth_collection(value_node)
            except _NotData as exc:
                self.error(str(exc))
                ok = False
                continue
            if key in raw_states:
                self.legacy(
                    f"line {key_node.lineno}: action {name!r} lists state {key!r} twice; "
                    "the later one is used, as Python does"
                )
            raw_states[key] = rules_out
        if not ok:
            return None
        return self.build_action(name, kind, raw_states, where)

    def build_action(
        self, name: str, kind: object, raw_states: dict[object, frozenset[str]], where: str
    ) -> Action | None:
        keys = list(raw_states)
        labels = all(isinstance(key, str) for key in keys)
        ints = all(isinstance(key, int) and not isinstance(key, bool) for key in keys)
        ranges = all(_is_range_key(key) for key in keys)
        if kind == "str" and labels:
            states = [State(rules_out, label=key) for key, rules_out in raw_states.items()]
            return Action(name=name, type="str", states=tuple(states))
        if kind == "float" and ranges:
            return Action(name=name, type="float", states=_range_states(raw_states))
        if kind == "int" and ints:
            self.legacy(f"{where}: legacy type 'int' with integer states; read as 'str' labels")
            states = [State(rules_out, label=str(key)) for key, rules_out in raw_states.items()]
            return Action(name=name, type="str", states=tuple(states))
        if kind == "int" and ranges:
            self.legacy(f"{where}: legacy type 'int' with (lo, hi) states; read as 'float' ranges")
            return Action(name=name, type="float", states=_range_states(raw_states))
        if kind not in ("str", "float", "int"):
            self.error(f"{where}: type {kind!r} is not 'str' or 'float'")
        elif kind == "str":
            self.error(f"{where}: every state of a 'str' action must be a string label")
        elif kind == "float":
            self.error(f"{where}: every state of a 'float' action must be a (lo, hi) pair")
        else:
            self.error(f"{where}: 'int' states must be all integers or all (lo, hi) pairs")
        return None


def _range_states(raw_states: dict[object, frozenset[str]]) -> tuple[State, ...]:
    states = []
    for key, rules_out in raw_states.items():
        lo, hi = key  # type: ignore[misc]
        states.append(State(rules_out, range=(float(lo), float(hi))))
    return tuple(states)


def _is_range_key(key: object) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in key)
    )


def _scalar(node: ast.expr) -> object:
    """A constant, or a signed number (``-2.5`` is a unary minus applied to ``2.5``)."""
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and _is_number(node.operand.value)
    ):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    raise _NotData(node)


def _key(node: ast.expr) -> object:
    """A state key: a label, an integer, or a ``(lo, hi)`` tuple of numbers."""
    if isinstance(node, ast.Tuple):
        return tuple(_scalar(element) for element in node.elts)
    return _scalar(node)


def _truth_collection(node: ast.expr) -> frozenset[str]:
    """A rule-out collection: a set, list or tuple literal of strings, or ``set()``."""
    if isinstance(node, ast.Call):
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "set"
            and not node.args
            and not node.keywords
        ):
            return frozenset()
        raise _NotData(node, "the only call allowed is the empty set()")
    if not isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        raise _NotData(node, "expected a set, list or tuple of truths")
    truths: set[str] = set()
    for element in node.elts:
        value = _scalar(element)
        if not isinstance(value, str):
            raise _NotData(element, "truth names must be strings")
        truths.add(value)
    return frozenset(truths)
