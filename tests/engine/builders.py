"""Small hand-written actions for engine tests."""

from __future__ import annotations

from engine.core.families.kumo.types import Action, State


def str_action(name: str, *states: tuple[str, set[str]]) -> Action:
    """An action with labelled outcomes: ``(label, truths it rules out)`` per state."""
    return Action(
        name=name,
        type="str",
        states=tuple(State(frozenset(rules), label=label) for label, rules in states),
    )


def float_action(name: str, *states: tuple[tuple[float, float], set[str]]) -> Action:
    """An action with numeric outcomes: ``((low, high), truths it rules out)`` per state."""
    return Action(
        name=name,
        type="float",
        states=tuple(State(frozenset(rules), range=bounds) for bounds, rules in states),
    )
