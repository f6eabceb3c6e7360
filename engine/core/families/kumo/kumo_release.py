"""The original KUMO release, read with the semantics its own code gave it.

Our validator (``domain_io``) refuses domains whose rules are ambiguous, and rightly so for
new domains. The published release holds about twenty such domains, and KUMO generated
instances and published results on them, so a faithful reproduction needs them with the
meaning the original code (``env/engine.py`` and ``SAT_sampling.py`` of the release) gave
them. This module reads a release ``*_data.py`` module in a marked *KUMO-compatible* mode
and interprets its instances exactly as that code did:

* **Scoring** (``Environment.evaluate_answer``): an answer is correct when it is one of the
  instance's truths and no state *matching* any of the instance's observations rules it
  out. A ``str`` state matches when the observation equals its key (Python equality); a
  ``float`` state ``(lo, hi)`` matches when ``lo <= x <= hi``; a state of any other type
  (the legacy ``"int"``) never matches. Every matching state counts, so with overlapping
  ranges the rule-outs of all of them add up; a zero-width range ``(a, a)`` matches ``a``
  alone and a reversed range ``(hi, lo)`` matches nothing.
* **The oracle** (``OracleSearchEngine.search_step``): after an action, the *first*
  matching state in the table's order is applied; when none matches, nothing is ruled
  out. The expected values range over every state of the table, as ours do.

Where those rules give an instance no consistent meaning (its valid truth is ruled out,
so no answer scores; or several answers score; or an observation matches no state) the
instance is still imported, with a note saying so.

Nothing here executes the release's code: modules are parsed with :mod:`ast`, and only
literals plus the calls ``set()``/``set([...])``/``frozenset(...)`` are evaluated.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.core.families.kumo.domain_io import (
    DomainError,
    domain_from_kumo_module,
    validate_domain,
)
from engine.core.families.kumo.types import Action, Domain, Instance, State

RESULTS_SETTING = re.compile(r"truth_num=(\d+)\+action_num=(\d+)\+valid_truth_num=(\d+)")
# Results folders may carry a variant after the setting ("…=1_revised": a revised book).
RESULTS_FOLDER = re.compile(RESULTS_SETTING.pattern + r"(?:_(\w+))?")


@dataclass(frozen=True)
class OriginalAction:
    """One entry of the release's ``Outcomes`` table, keys exactly as Python read them."""

    type: object
    states: tuple[tuple[object, frozenset[str]], ...]


@dataclass
class ReleaseDomain:
    """A release domain: ours to store, plus what the original code did with it.

    ``compatible`` is true when the domain needs the KUMO-compatible mode (our validator
    refuses it, or its instances need the original semantics); ``warnings`` list every
    quirk found. ``table`` is the original outcome table, used to interpret instances.
    """

    domain: Domain
    warnings: list[str]
    compatible: bool
    table: dict[str, OriginalAction]


@dataclass
class ReleaseInstance:
    """An instance of the release, interpreted as the original code did."""

    instance: Instance
    notes: list[str] = field(default_factory=list)


class _Unsafe(Exception):
    pass


# --------------------------------------------------------------------------------------
# Reading a module


def read_release_domain(source: str, name: str) -> ReleaseDomain:
    """Read a release ``*_data.py`` module; strict where it can be, compatible where not.

    1. Read the module as data (tolerating chained assignments and ``set([...])``).
    2. If our own reader accepts it unchanged and no action has a type the original
       engine ignores, the domain is an ordinary one (legacy warnings only).
    3. Otherwise build the domain in KUMO-compatible mode: every state kept as written
       (overlapping, zero-width or reversed ranges; single-state actions; labels turned
       into strings), and every quirk listed as a warning.
    """
    truths, actions, table = _read_tables(source)
    odd_types = [a for a in actions if a in table and table[a].type not in ("str", "float")]
    warnings: list[str] = []
    try:
        domain, legacy = domain_from_kumo_module(source, name, strict=False)
    except DomainError as error:
        shown = "; ".join(error.problems[:3])
        more = f" (and {len(error.problems) - 3} more)" if len(error.problems) > 3 else ""
        warnings.append(f"refused by the strict reader ({error.heading}): {shown}{more}")
    else:
        # Our stored form must pass our own validator (a truth no state rules out is a
        # warning when reading the module, but an error in a stored JSON domain).
        refused = validate_domain(domain)
        if not odd_types and not refused:
            return ReleaseDomain(domain, legacy, False, table)
        if refused:
            warnings.append(f"refused by our validator: {len(refused)} problem(s), listed below")
    domain = _compatible_domain(name, truths, actions, table, warnings)
    return ReleaseDomain(domain, warnings, True, table)


def _read_tables(source: str) -> tuple[list[str], list[str], dict[str, OriginalAction]]:
    try:
        module = ast.parse(source)
    except SyntaxError as exc:
        raise DomainError(
            [f"line {exc.lineno}: not valid Python: {exc.msg}"], heading="unreadable KUMO module"
        ) from None
    pools: list[list[object]] = []
    outcomes: object = None
    bound: dict[str, object] = {}
    for statement in module.body:
        if not isinstance(statement, ast.Assign):
            continue
        names = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        if not names:
            continue
        try:
            value = _literal(statement.value, bound)
        except _Unsafe:
            continue
        for bound_name in names:
            bound[bound_name] = value
        if "Outcomes" in names:  # also `Outcomes = outcomes = {...}`
            outcomes = value
        elif isinstance(value, (list, tuple)) and len(pools) < 2:
            pools.append(list(value))
        elif isinstance(value, (set, frozenset)) and len(pools) < 2:
            # A set literal: keep its written order, not Python's iteration order.
            pools.append(_written_order(statement.value))
    if len(pools) < 2 or not isinstance(outcomes, dict):
        raise DomainError(
            ["expected a truth list, an action list and an Outcomes table"],
            heading="unreadable KUMO module",
        )
    truths = list(dict.fromkeys(str(t) for t in pools[0]))
    actions = list(dict.fromkeys(str(a) for a in pools[1]))
    table: dict[str, OriginalAction] = {}
    for key, entry in outcomes.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("states"), dict):
            continue
        states = tuple(
            (state, frozenset(str(t) for t in ruled))
            for state, ruled in entry["states"].items()
            if isinstance(ruled, (set, frozenset, list, tuple))
        )
        table[str(key)] = OriginalAction(entry.get("type"), states)
    return truths, actions, table


def _written_order(node: ast.expr) -> list[object]:
    assert isinstance(node, ast.Set)
    return list(dict.fromkeys(_literal(element) for element in node.elts))


def _literal(node: ast.expr, bound: Mapping[str, object] | None = None) -> object:
    """Evaluate a literal, plus what the release's modules write around literals.

    Accepted beyond literals: ``set``/``frozenset`` calls, names bound earlier in the
    module to literals (``Truths``), and comprehensions such as ``[t for t in Truths if t
    not in [...]]`` whose conditions are only ``in``/``not in`` tests joined by
    ``and``/``or``/``not``. Nothing is executed: the conditions are evaluated here.
    """
    bound = bound or {}
    if isinstance(node, ast.Name):
        if node.id in bound:
            return bound[node.id]
        raise _Unsafe
    if isinstance(node, (ast.ListComp, ast.SetComp)):
        return _comprehension(node, bound)
    if isinstance(node, ast.Call):
        if (
            isinstance(node.func, ast.Name)
            and node.func.id in ("set", "frozenset")
            and not node.keywords
            and len(node.args) <= 1
        ):
            items = _literal(node.args[0], bound) if node.args else ()
            if not isinstance(items, (list, tuple, set, frozenset)):
                raise _Unsafe
            return set(items) if node.func.id == "set" else frozenset(items)
        raise _Unsafe
    if isinstance(node, ast.Dict):
        result = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise _Unsafe
            result[_literal(key, bound)] = _literal(value, bound)
        return result
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_literal(element, bound) for element in node.elts]
        if isinstance(node, ast.List):
            return items
        if isinstance(node, ast.Tuple):
            return tuple(items)
        return set(items)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Unsafe from None


def _comprehension(node: ast.ListComp | ast.SetComp, bound: Mapping[str, object]) -> object:
    if len(node.generators) != 1:
        raise _Unsafe
    generator = node.generators[0]
    if not isinstance(generator.target, ast.Name) or generator.is_async:
        raise _Unsafe
    variable = generator.target.id
    if not isinstance(node.elt, ast.Name) or node.elt.id != variable:
        raise _Unsafe
    source = _literal(generator.iter, bound)
    if not isinstance(source, (list, tuple, set, frozenset)):
        raise _Unsafe
    kept = [
        item
        for item in source
        if all(_condition(test, {**bound, variable: item}) for test in generator.ifs)
    ]
    return set(kept) if isinstance(node, ast.SetComp) else kept


def _condition(node: ast.expr, bound: Mapping[str, object]) -> bool:
    if isinstance(node, ast.BoolOp):
        values = [_condition(value, bound) for value in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _condition(node.operand, bound)
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], (ast.In, ast.NotIn))
    ):
        left = _literal(node.left, bound)
        right = _literal(node.comparators[0], bound)
        if not isinstance(right, (str, list, tuple, set, frozenset)):
            raise _Unsafe
        try:
            inside = left in right
        except TypeError:
            raise _Unsafe from None
        return inside if isinstance(node.ops[0], ast.In) else not inside
    raise _Unsafe


def _compatible_domain(
    name: str,
    truths: list[str],
    action_names: list[str],
    table: dict[str, OriginalAction],
    warnings: list[str],
) -> Domain:
    actions: list[Action] = []
    pool = set(truths)
    for action_name in action_names:
        entry = table.get(action_name)
        if entry is None:
            warnings.append(f"action {action_name!r} has no Outcomes entry; left out")
            continue
        where = f"action {action_name!r}"
        kind = entry.type
        keys = [key for key, _ in entry.states]
        if kind not in ("str", "float"):
            warnings.append(
                f"{where}: type {kind!r}; the original engine matches no observation of it, "
                "so it never rules anything out in play or scoring"
            )
        ranges = all(_is_range(key) for key in keys)
        if kind == "float" or (kind != "str" and ranges and keys):
            states = []
            for key, ruled in entry.states:
                if not _is_range(key):
                    warnings.append(f"{where}: state {key!r} is not a (lo, hi) pair; left out")
                    continue
                lo, hi = float(key[0]), float(key[1])
                if lo == hi:
                    warnings.append(f"{where}: range {key!r} is empty; it matches {lo:g} only")
                elif lo > hi:
                    warnings.append(f"{where}: range {key!r} is reversed; it matches nothing")
                states.append(State(ruled, range=(lo, hi)))
            for i, (key_a, _) in enumerate(entry.states):
                for key_b, _ in entry.states[i + 1 :]:
                    if _is_range(key_a) and _is_range(key_b) and _overlap(key_a, key_b):
                        warnings.append(
                            f"{where}: ranges {key_a!r} and {key_b!r} overlap; the original "
                            "oracle applies the first that matches, its scoring all of them"
                        )
            action = Action(name=action_name, type="float", states=tuple(states))
        else:
            states = []
            for key, ruled in entry.states:
                if not isinstance(key, str):
                    warnings.append(
                        f"{where}: state {key!r} is not a string label; stored as {str(key)!r}"
                    )
                states.append(State(ruled, label=str(key)))
            action = Action(name=action_name, type="str", states=tuple(states))
        if len(action.states) < 2:
            warnings.append(f"{where}: has {len(action.states)} state(s)")
        for state in action.states:
            for truth in sorted(state.rules_out - pool):
                warnings.append(f"{where}: state {state.key!r} names unknown truth {truth!r}")
        for truth in truths:
            if action.states and all(truth in s.rules_out for s in action.states):
                warnings.append(f"{where}: truth {truth!r} is ruled out by every state")
        actions.append(action)
    mentioned = set().union(*(s.rules_out for a in actions for s in a.states))
    for truth in truths:
        if truth not in mentioned:
            warnings.append(f"truth {truth!r} is not ruled out by any state of any action")
    for extra in sorted(set(table) - set(action_names)):
        warnings.append(f"Outcomes has an entry for {extra!r}, which is not in the action list")
    return Domain(name=name, truths=tuple(truths), actions=tuple(actions))


def _is_range(key: object) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in key)
    )


def _overlap(a: tuple, b: tuple) -> bool:
    lo_a, hi_a = min(a), max(a)
    lo_b, hi_b = min(b), max(b)
    return max(lo_a, lo_b) < min(hi_a, hi_b)


# --------------------------------------------------------------------------------------
# Instances


def _matches(entry: OriginalAction, observation: object) -> list[int]:
    """Indices of the states the original engine treats as observed (see module doc)."""
    found = []
    for index, (key, _) in enumerate(entry.states):
        if entry.type == "str":
            try:
                hit = observation == key
            except Exception:  # noqa: BLE001 - as the original, anything odd is no match
                hit = False
        elif entry.type == "float":
            try:
                hit = bool(observation >= key[0] and observation <= key[1])  # type: ignore[index,operator]
            except (TypeError, IndexError):
                hit = False
        else:
            hit = False
        if hit:
            found.append(index)
    return found


def interpret_instance(release: ReleaseDomain, data: Mapping[str, object]) -> ReleaseInstance:
    """An instance line of the release, as the original code interpreted it.

    Every release instance is read this way; for an ordinary domain and a consistent
    instance the result is the same as our own rules give.

    1. Each observation is matched against the original table (every matching state, and
       the first one); ``str`` observations that match are stored as our string label.
    2. ``extra`` records the accepted answers (``evaluate_answer``), the observed state of
       each action for the oracle (first match, or none), and the notes.
    Raises ``ValueError`` for a malformed line.
    """
    raw = dict(data)
    observations = raw.get("observations")
    if isinstance(observations, Mapping):
        raw["observations"] = dict(observations)
    core = Instance.from_kumo(raw)
    notes: list[str] = []
    converted: dict[str, object] = {}
    observed: dict[str, int | None] = {}
    ruled_out: set[str] = set()
    for name in core.actions:
        entry = release.table.get(name)
        observation = core.observations.get(name)
        if entry is None:
            raise ValueError(f"action {name!r} is not in the domain")
        hits = _matches(entry, observation)
        for index in hits:
            ruled_out |= entry.states[index][1]
        observed[name] = hits[0] if hits else None
        if entry.type == "str" and hits:
            converted[name] = str(entry.states[hits[0]][0])
        else:
            converted[name] = observation
        if not hits:
            notes.append(
                f"action {name!r}: observation {observation!r} matches no state; the original "
                "code rules nothing out with it"
            )
        elif len(hits) > 1:
            notes.append(
                f"action {name!r}: observation {observation!r} matches {len(hits)} overlapping "
                "states; the oracle applies the first, scoring all of them"
            )
    accepted = [t for t in core.truths if t not in ruled_out]
    valid = set(core.valid_truths)
    if not accepted:
        notes.append("the original code rules out every truth: no answer can score")
    elif set(accepted) != valid:
        notes.append(
            "the original code scores as correct: "
            + ", ".join(repr(t) for t in accepted)
            + f" (valid truth {', '.join(repr(t) for t in core.valid_truths)})"
        )
    extra = {
        "accepted_answers": accepted,
        "observed_states": observed,
        "notes": notes,
    }
    instance = Instance(
        truths=core.truths,
        actions=core.actions,
        observations=converted,
        valid_truths=core.valid_truths,
        seed=core.seed,
        extra=extra,
    )
    return ReleaseInstance(instance, notes)


# --------------------------------------------------------------------------------------
# Finding the files of a release


@dataclass(frozen=True)
class ReleaseFile:
    kind: str  # "domain", "instances", "results"
    path: Path
    domain: str = ""  # the Env folder name, e.g. "MedicalEnv"
    n_truths: int = 0
    n_actions: int = 0
    n_valid: int = 1
    model: str = ""
    agent: str = ""


_REGISTER = re.compile(r"register_environment\(\s*[\"'](\w+)[\"']\s*\)")
_DATA_IMPORT = re.compile(r"(?:env)?\.data\.(\w+_data)\b")


def find_release_files(root: Path) -> tuple[list[ReleaseFile], list[str]]:
    """Every domain, instance and result file of a release checkout, and what was skipped.

    Domains: ``env/data/*_data.py``, each matched to the ``*Env`` name its environment
    module registers (``env/*_env.py``; a module registering several environments, such
    as the medical IND/OOD splits, imports their data in the same order). Instances:
    ``env/<Env>/truth_num=…+action_num=…+valid_truth_num=….jsonl``. Results:
    ``results/**/<Env>/truth_num=…/eval_times=N.jsonl``; the model is the path between
    ``results/`` and the agent folder (``search_results`` is the published oracle).
    """
    root = Path(root)
    env_dir = root / "env" if (root / "env").is_dir() else root
    skipped: list[str] = []
    files: list[ReleaseFile] = []
    data_to_env: dict[str, str] = {}
    for module in sorted(env_dir.glob("*_env.py")):
        text = module.read_text(encoding="utf-8", errors="replace")
        registered = _REGISTER.findall(text)
        imported = list(dict.fromkeys(_DATA_IMPORT.findall(text)))
        if len(registered) == len(imported):
            for env_name, data_name in zip(registered, imported, strict=True):
                data_to_env.setdefault(data_name, env_name)
    for data in sorted((env_dir / "data").glob("*_data.py")):
        env_name = data_to_env.get(data.stem)
        if env_name is None:
            # No environment module names it: derive a name from the file.
            env_name = "".join(part.title() for part in data.stem[:-5].split("_")) + "Env"
            skipped.append(
                f"{data.relative_to(root)}: no environment registers it; named {env_name}"
            )
        files.append(ReleaseFile("domain", data, env_name))
    for folder in sorted(p for p in env_dir.glob("*Env") if p.is_dir()):
        for path in sorted(folder.glob("*.jsonl")):
            match = RESULTS_SETTING.fullmatch(path.stem)
            if match is None:
                skipped.append(f"{path.relative_to(root)}: not an instance file name")
                continue
            t, a, v = (int(g) for g in match.groups())
            files.append(ReleaseFile("instances", path, folder.name, t, a, v))
    results_dir = root / "results"
    for path in sorted(results_dir.rglob("*.jsonl")) if results_dir.is_dir() else []:
        parts = path.relative_to(results_dir).parts
        match = RESULTS_FOLDER.fullmatch(parts[-2]) if len(parts) >= 4 else None
        if match is None or not parts[-3].endswith("Env"):
            skipped.append(f"{path.relative_to(root)}: not a results file path")
            continue
        t, a, v = (int(g) for g in match.groups()[:3])
        variant = match.group(4)
        head = list(parts[:-3])
        if head and head[0] == "sft_results":
            head = head[1:]
        if head == ["search_results"]:
            model, agent = "kumo-oracle-search", "OracleSearch"
        elif len(head) >= 2:
            model, agent = "/".join(head[:-1]), head[-1]
        else:
            skipped.append(f"{path.relative_to(root)}: no model/agent folders")
            continue
        if variant:
            model = f"{model}-{variant}"
        files.append(ReleaseFile("results", path, parts[-3], t, a, v, model, agent))
    return files, skipped


def model_name(model: str, agent: str) -> str:
    """The board's name for a release model: the model, with its agent unless vanilla."""
    name = model if agent in ("VanillaAgent", "OracleSearch") else f"{model}-{agent}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name)


def json_lines(text: str) -> list[str]:
    """Lines of a JSONL text, split at ``\\n`` only (JSON strings may hold U+2028)."""
    return text.split("\n")


def dumps_key(value: object) -> str:
    return json.dumps(value, sort_keys=True)
