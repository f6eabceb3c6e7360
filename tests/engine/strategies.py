"""Hypothesis strategies for engine tests.

``domains()`` draws small *valid* domains (they pass ``validate_domain``): by default
4-12 truths and 3-10 actions, each action ``str`` or ``float`` with 2-4 states and random
rule-outs that obey the validity rules:

* no truth is ruled out by every state of one action (each truth draws, per action, the
  subset of states that rule it out, never the full set);
* every pool truth is ruled out by some state (a truth left out is added to one state of
  one action, which cannot break the previous rule since it was in no state before);
* float ranges are finite, increasing, and either touch (share endpoints) or leave gaps,
  never overlap; their declared order is shuffled.

Import it as ``from tests.engine.strategies import domains`` (the repository root is on
the path whenever ``engine`` is importable).
"""

from __future__ import annotations

from hypothesis import strategies as st

from engine.core.families.kumo.types import Action, Domain, State


@st.composite
def domains(
    draw: st.DrawFn,
    *,
    min_truths: int = 4,
    max_truths: int = 12,
    min_actions: int = 3,
    max_actions: int = 10,
    min_states: int = 2,
    max_states: int = 4,
    types: tuple[str, ...] = ("str", "float"),
) -> Domain:
    """A small valid domain (see the module docstring for what varies)."""
    n_truths = draw(st.integers(min_truths, max_truths), label="n_truths")
    n_actions = draw(st.integers(min_actions, max_actions), label="n_actions")
    truths = tuple(f"truth-{i}" for i in range(n_truths))

    # rules[a][s] is the set of truths state s of action a rules out.
    kinds: list[str] = []
    rules: list[list[set[str]]] = []
    for _ in range(n_actions):
        kinds.append(draw(st.sampled_from(types)))
        n_states = draw(st.integers(min_states, max_states))
        # One bitmask per truth: bit s set means state s rules the truth out. The all-ones
        # mask is excluded so no truth is ruled out by every state.
        masks = draw(
            st.lists(st.integers(0, 2**n_states - 2), min_size=n_truths, max_size=n_truths)
        )
        rules.append(
            [
                {truth for truth, mask in zip(truths, masks, strict=True) if mask >> s & 1}
                for s in range(n_states)
            ]
        )

    mentioned = set().union(*(state for action in rules for state in action))
    for truth in truths:
        if truth not in mentioned:
            a = draw(st.integers(0, n_actions - 1))
            s = draw(st.integers(0, len(rules[a]) - 1))
            rules[a][s].add(truth)

    actions = []
    for a, (kind, states) in enumerate(zip(kinds, rules, strict=True)):
        if kind == "str":
            built = tuple(
                State(frozenset(rule), label=f"outcome-{s}") for s, rule in enumerate(states)
            )
            actions.append(Action(name=f"action-{a}", type="str", states=built))
        else:
            ranges = draw(_ranges(len(states)))
            built = tuple(
                State(frozenset(rule), range=bounds)
                for rule, bounds in zip(states, ranges, strict=True)
            )
            unit = draw(st.sampled_from(["", "mg/dL"]))
            actions.append(Action(name=f"action-{a}", type="float", states=built, unit=unit))

    return Domain(
        name="generated",
        truths=truths,
        actions=tuple(actions),
        title="Generated domain",
    )


@st.composite
def _ranges(draw: st.DrawFn, count: int) -> list[tuple[float, float]]:
    """``count`` non-overlapping ranges that touch or leave gaps, in a shuffled order."""
    touching = draw(st.booleans())
    points_needed = count + 1 if touching else 2 * count
    points = sorted(
        draw(st.sets(st.integers(-1000, 1000), min_size=points_needed, max_size=points_needed))
    )
    # A scale makes some bounds non-integers (0.25, 0.01) without risking overlaps.
    scale = draw(st.sampled_from([1.0, 0.25, 0.01]))
    if touching:
        pairs = [(points[i], points[i + 1]) for i in range(count)]
    else:
        pairs = [(points[2 * i], points[2 * i + 1]) for i in range(count)]
    ranges = [(lo * scale, hi * scale) for lo, hi in pairs]
    return draw(st.permutations(ranges))
