"""Task instances: the SAT procedure of ``domain-model.md`` ("Task instance").

An instance samples truths from a domain's pool, marks some of them valid and picks
actions with one observed outcome each, such that every observation is consistent with
the valid truths and every invalid truth is ruled out by some observation. The SAT solver
(python-sat) chooses a small set of covering observations; the rest of the actions are
filler, relevant ones first.

Reproducibility: every random choice comes from one ``random.Random(seed)`` (never the
global generator), actions and states are visited in domain order, sets are never
iterated where order matters, and the solver is deterministic for a given clause order.
The same domain, parameters, seed and ``existing`` therefore give the same instance on
every machine and under every ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from engine.core.families.kumo.types import Action, Domain, Instance, Observation, State

# A float observation is redrawn if it lands on an endpoint shared with an earlier range
# (it would then read as that other state). The chance is about 2**-52 per draw, so this
# bound is never reached in practice; it only guarantees termination.
_MAX_FLOAT_DRAWS = 64


class GenerationError(RuntimeError):
    """The requested instance cannot be generated (bad request or nothing found)."""


@dataclass(frozen=True)
class _Sample:
    """One attempt's truths and the per-state facts the SAT step needs."""

    truths: tuple[str, ...]
    valid: tuple[str, ...]
    # relevant[a][s]: state s of action a rules out a sampled truth.
    relevant: tuple[tuple[bool, ...], ...]
    # contradictory[a][s]: state s of action a rules out a valid truth.
    contradictory: tuple[tuple[bool, ...], ...]


def generate_instance(
    domain: Domain,
    n_truths: int,
    n_actions: int,
    seed: int,
    n_valid: int = 1,
    *,
    existing: Iterable[Instance] = (),
    max_attempts: int = 200,
) -> Instance:
    """Generate one instance of ``domain`` from ``seed``.

    Each attempt follows ``domain-model.md``:

    1. Sample ``n_truths`` truths from the pool and mark ``n_valid`` of them valid.
    2. Classify every state of every action: *relevant* if it rules out a sampled truth,
       *contradictory* if it rules out a valid truth.
    3. SAT: one variable per non-contradictory relevant state; at most one state per
       action; at most ``n_actions`` actions (a cardinality encoding); every invalid
       sampled truth ruled out by a chosen state. UNSAT means a new attempt.
    4. Top up to exactly ``n_actions``: unused relevant actions first (each with a random
       non-contradictory state), then irrelevant actions (any state).
    5. Shuffle the action order (so it does not reveal the SAT choice) and draw a number
       uniformly from the range of each float state.
    6. Reject an instance identical to one in ``existing`` (same truths, actions and
       observed states) and try again.

    Raises :class:`GenerationError` if the domain is too small for the request or if no
    attempt out of ``max_attempts`` succeeds.
    """
    _check_request(domain, n_truths, n_actions, n_valid, seed, max_attempts)
    rng = random.Random(seed)
    seen = {instance_key(domain, instance) for instance in existing}
    failures: Counter[str] = Counter()

    for _attempt in range(max_attempts):
        sample = _sample(domain, rng, n_truths, n_valid)  # steps 1-2
        chosen = _solve(domain, sample, n_actions)  # step 3
        if isinstance(chosen, str):
            failures[chosen] += 1
            continue
        picked = _top_up(domain, sample, chosen, n_actions, rng)  # step 4
        if picked is None:
            failures["short"] += 1
            continue
        instance = _realise(domain, sample, picked, rng, seed)  # step 5
        if instance is None:
            failures["float"] += 1
            continue
        key = instance_key(domain, instance)  # step 6
        if key in seen:
            failures["duplicate"] += 1
            continue
        return instance

    raise GenerationError(
        f"could not generate an instance of domain {domain.name!r} with {n_truths} truths "
        f"({n_valid} valid) and {n_actions} actions after {max_attempts} attempts: "
        + _describe_failures(failures, n_actions)
    )


def generate_instances(
    domain: Domain,
    n_truths: int,
    n_actions: int,
    count: int,
    seed: int,
    n_valid: int = 1,
    *,
    existing: Iterable[Instance] = (),
    max_attempts: int = 200,
) -> list[Instance]:
    """``count`` distinct instances; instance ``i`` uses seed ``seed + i``.

    Each instance must differ from those in ``existing`` and from the earlier ones of
    this batch, so the batch is reproducible as a whole.
    """
    if count < 0:
        raise GenerationError(f"count must be at least 0, got {count}")
    earlier = list(existing)
    batch: list[Instance] = []
    for index in range(count):
        instance = generate_instance(
            domain,
            n_truths,
            n_actions,
            seed + index,
            n_valid,
            existing=earlier,
            max_attempts=max_attempts,
        )
        earlier.append(instance)
        batch.append(instance)
    return batch


def instance_key(domain: Domain, instance: Instance) -> Hashable:
    """What makes two instances identical: truths, actions and observed *states*.

    Float observations are compared by the state their number falls in. An observation
    that belongs to no state (an instance from elsewhere) is compared as it is.
    """
    observed = []
    for name, observation in instance.observations.items():
        try:
            observed.append((name, domain.action(name).state_for(observation).key))
        except KeyError:
            observed.append((name, repr(observation)))
    return (frozenset(instance.truths), frozenset(instance.actions), frozenset(observed))


def check_instance(
    domain: Domain,
    instance: Instance,
    *,
    n_truths: int | None = None,
    n_actions: int | None = None,
    n_valid: int | None = None,
) -> list[str]:
    """Every problem with ``instance`` as a task of ``domain``; empty if it is sound.

    Checks that truths and actions belong to the domain without duplicates (and, if
    given, their counts), that the valid truths are among the truths, that every action
    has exactly one observation and that it is an outcome of that action (a label of a
    ``str`` action, a number inside a range of a ``float`` action), that no observation
    rules out a valid truth, and that every invalid truth is ruled out by some
    observation.
    """
    problems: list[str] = []
    pool = set(domain.truths)

    for truth in instance.truths:
        if truth not in pool:
            problems.append(f"truth {truth!r} is not in domain {domain.name!r}")
    for truth, count in _repeated(instance.truths):
        problems.append(f"truth {truth!r} is listed {count} times")
    if n_truths is not None and len(instance.truths) != n_truths:
        problems.append(f"the instance has {len(instance.truths)} truths, expected {n_truths}")

    if not instance.valid_truths:
        problems.append("the instance has no valid truth")
    for truth in instance.valid_truths:
        if truth not in instance.truths:
            problems.append(f"valid truth {truth!r} is not one of the instance's truths")
    for truth, count in _repeated(instance.valid_truths):
        problems.append(f"valid truth {truth!r} is listed {count} times")
    if n_valid is not None and len(instance.valid_truths) != n_valid:
        problems.append(
            f"the instance has {len(instance.valid_truths)} valid truths, expected {n_valid}"
        )

    for name in instance.actions:
        if name not in domain.actions_by_name:
            problems.append(f"action {name!r} is not in domain {domain.name!r}")
    for name, count in _repeated(instance.actions):
        problems.append(f"action {name!r} is listed {count} times")
    if n_actions is not None and len(instance.actions) != n_actions:
        problems.append(f"the instance has {len(instance.actions)} actions, expected {n_actions}")

    listed = set(instance.actions)
    for name in instance.observations:
        if name not in listed:
            problems.append(f"there is an observation for {name!r}, which is not an action")

    valid = set(instance.valid_truths)
    ruled_out: set[str] = set()
    for name in dict.fromkeys(instance.actions):
        if name not in instance.observations:
            problems.append(f"action {name!r} has no observation")
            continue
        action = domain.actions_by_name.get(name)
        if action is None:
            continue
        observation = instance.observations[name]
        state = _observed_state(action, observation, problems)
        if state is None:
            continue
        for truth in sorted(state.rules_out & valid):
            problems.append(
                f"action {name!r}: observation {observation!r} rules out valid truth {truth!r}"
            )
        ruled_out |= state.rules_out

    for truth in dict.fromkeys(instance.truths):
        if truth not in valid and truth not in ruled_out:
            problems.append(f"truth {truth!r} is not valid but no observation rules it out")
    return problems


# --------------------------------------------------------------------------------------
# The steps


def _check_request(
    domain: Domain, n_truths: int, n_actions: int, n_valid: int, seed: int, max_attempts: int
) -> None:
    problems = []
    for label, value in (
        ("n_truths", n_truths),
        ("n_actions", n_actions),
        ("n_valid", n_valid),
        ("seed", seed),
        ("max_attempts", max_attempts),
    ):
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{label} must be an integer, got {value!r}")
    if problems:
        raise GenerationError("; ".join(problems))
    if n_truths < 1:
        problems.append(f"n_truths must be at least 1, got {n_truths}")
    if n_actions < 1:
        problems.append(f"n_actions must be at least 1, got {n_actions}")
    if not 1 <= n_valid <= max(n_truths, 1):
        problems.append(f"n_valid must be between 1 and n_truths ({n_truths}), got {n_valid}")
    if max_attempts < 1:
        problems.append(f"max_attempts must be at least 1, got {max_attempts}")
    if n_truths > len(domain.truths):
        problems.append(
            f"asked for {n_truths} truths but domain {domain.name!r} has only {len(domain.truths)}"
        )
    if n_actions > len(domain.actions):
        problems.append(
            f"asked for {n_actions} actions but domain {domain.name!r} has only "
            f"{len(domain.actions)}"
        )
    if problems:
        raise GenerationError("; ".join(problems))


def _sample(domain: Domain, rng: random.Random, n_truths: int, n_valid: int) -> _Sample:
    """Steps 1-2: sample truths, choose the valid ones, classify every state."""
    truths = tuple(rng.sample(domain.truths, n_truths))
    # The valid truths keep their place in the sample, which is itself random.
    valid = tuple(rng.sample(truths, n_valid))
    sampled, valid_set = frozenset(truths), frozenset(valid)
    relevant = tuple(
        tuple(not state.rules_out.isdisjoint(sampled) for state in action.states)
        for action in domain.actions
    )
    contradictory = tuple(
        tuple(not state.rules_out.isdisjoint(valid_set) for state in action.states)
        for action in domain.actions
    )
    return _Sample(truths, valid, relevant, contradictory)


def _solve(domain: Domain, sample: _Sample, n_actions: int) -> dict[int, int] | str:
    """Step 3: ``{action index: state index}`` covering every invalid truth, or a reason.

    Variables are numbered by action (domain order) then state (declared order), and
    clauses are added in a fixed order, so the solver's model is reproducible.
    """
    variables: list[tuple[int, int]] = []
    by_action: list[list[int]] = []
    for a, action in enumerate(domain.actions):
        literals = []
        for s in range(len(action.states)):
            if sample.relevant[a][s] and not sample.contradictory[a][s]:
                variables.append((a, s))
                literals.append(len(variables))
        by_action.append(literals)

    clauses: list[list[int]] = []
    # At most one state per action (pairwise: actions have a handful of states).
    for literals in by_action:
        for i, first in enumerate(literals):
            for second in literals[i + 1 :]:
                clauses.append([-first, -second])
    # At most n_actions actions. With at most one state per action the number of true
    # variables is the number of actions used, so the bound can go on the variables.
    if len(variables) > n_actions:
        encoding = CardEnc.atmost(
            lits=list(range(1, len(variables) + 1)),
            bound=n_actions,
            top_id=len(variables),
            encoding=EncType.seqcounter,
        )
        clauses.extend(encoding.clauses)
    # Every invalid sampled truth is ruled out by at least one chosen state.
    valid = set(sample.valid)
    for truth in sample.truths:
        if truth in valid:
            continue
        cover = [
            number
            for number, (a, s) in enumerate(variables, start=1)
            if truth in domain.actions[a].states[s].rules_out
        ]
        if not cover:
            return "uncoverable"
        clauses.append(cover)

    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        if not solver.solve():
            return "unsat"
        model = solver.get_model() or []
    true_literals = {literal for literal in model if literal > 0}
    return {a: s for number, (a, s) in enumerate(variables, start=1) if number in true_literals}


def _top_up(
    domain: Domain,
    sample: _Sample,
    chosen: dict[int, int],
    n_actions: int,
    rng: random.Random,
) -> dict[int, int] | None:
    """Step 4: add actions until there are exactly ``n_actions``; ``None`` if impossible.

    Unused relevant actions come first, each with a random non-contradictory state (it
    may happen to rule out nothing sampled; that is fine). Irrelevant actions come next,
    with any state: none of their states rules out a sampled truth, so none contradicts.
    An action whose every state contradicts a valid truth (possible only with several
    valid truths) cannot appear at all.
    """
    picked = dict(chosen)
    relevant, irrelevant = [], []
    for a in range(len(domain.actions)):
        if a in picked:
            continue
        allowed = [s for s, bad in enumerate(sample.contradictory[a]) if not bad]
        if not allowed:
            continue
        (relevant if any(sample.relevant[a]) else irrelevant).append((a, allowed))
    for group in (relevant, irrelevant):
        need = n_actions - len(picked)
        for a, allowed in rng.sample(group, min(need, len(group))):
            picked[a] = rng.choice(allowed)
    return picked if len(picked) == n_actions else None


def _realise(
    domain: Domain,
    sample: _Sample,
    picked: dict[int, int],
    rng: random.Random,
    seed: int,
) -> Instance | None:
    """Step 5: the instance, in a shuffled action order, with numbers for float states."""
    order = sorted(picked)
    # Shuffled so that the SAT-chosen actions are not recognisable by their position.
    rng.shuffle(order)
    observations: dict[str, Observation] = {}
    for a in order:
        action = domain.actions[a]
        s = picked[a]
        if action.type == "float":
            number = _draw_number(action, s, rng)
            if number is None:
                return None
            observations[action.name] = number
        else:
            label = action.states[s].label
            assert label is not None
            observations[action.name] = label
    return Instance(
        truths=sample.truths,
        actions=tuple(domain.actions[a].name for a in order),
        observations=observations,
        valid_truths=sample.valid,
        seed=seed,
    )


def _draw_number(action: Action, s: int, rng: random.Random) -> float | None:
    """A number drawn uniformly from state ``s``'s range that reads back as state ``s``."""
    state = action.states[s]
    assert state.range is not None
    lo, hi = state.range
    for _ in range(_MAX_FLOAT_DRAWS):
        number = float(rng.uniform(lo, hi))
        # On an endpoint shared with an earlier range the number would read as that
        # earlier state (Action.state_for takes the first match); draw again.
        if math.isfinite(number) and _first_state_containing(action, number) == s:
            return number
    return None


def _first_state_containing(action: Action, number: float) -> int | None:
    for index, state in enumerate(action.states):
        if state.contains(number):
            return index
    return None


def _observed_state(action: Action, observation: Observation, problems: list[str]) -> State | None:
    """The state ``observation`` belongs to, or ``None`` after recording why not."""
    where = f"action {action.name!r}"
    if action.type == "float":
        if isinstance(observation, bool) or not isinstance(observation, (int, float)):
            problems.append(f"{where}: expects a number, got {observation!r}")
            return None
        try:
            return action.state_for(observation)
        except KeyError:
            problems.append(f"{where}: {observation!r} lies outside every range")
            return None
    if not isinstance(observation, str):
        problems.append(f"{where}: expects a state label, got {observation!r}")
        return None
    try:
        return action.state_for(observation)
    except KeyError:
        problems.append(f"{where}: {observation!r} is not one of its states")
        return None


def _describe_failures(failures: Counter[str], n_actions: int) -> str:
    reasons = {
        "uncoverable": "an invalid truth was ruled out by no state consistent with the valid "
        "truth(s)",
        "unsat": f"the invalid truths could not be ruled out with {n_actions} action(s) "
        "(SAT unsatisfiable)",
        "short": f"fewer than {n_actions} actions were usable without contradicting a valid truth",
        "float": "no number could be drawn inside a float state's range",
        "duplicate": "the instance duplicated an existing one",
    }
    parts = [f"{count} x {reasons[reason]}" for reason, count in failures.most_common()]
    return "; ".join(parts) or "no attempt was made"


def _repeated(items: Sequence[str]) -> list[tuple[str, int]]:
    return [(item, count) for item, count in Counter(items).items() if count > 1]
