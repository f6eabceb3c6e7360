"""Metric formulas of docs/domain-model.md ("Metrics"), in one place.

Counts come in two conventions. *Information actions* are the actions taken before the
answer. The *canonical action count* adds one for the answer itself. Relative action count
compares canonical counts: (player − oracle) / oracle.
"""

from __future__ import annotations


def canonical_action_count(information_actions: int) -> int:
    """Information actions plus one for the final answer."""
    if information_actions < 0:
        raise ValueError("information_actions must not be negative")
    return information_actions + 1


def relative_action_count(
    player_information_actions: int, oracle_information_actions: int
) -> float:
    """(player's canonical count − oracle's) / oracle's, on the same instance."""
    player = canonical_action_count(player_information_actions)
    oracle = canonical_action_count(oracle_information_actions)
    return (player - oracle) / oracle


def kumo_record_to_information_actions(recorded_length: int) -> int:
    """Convert an original KUMO result file's action-list length.

    Those files store the information actions, then the answer, then a
    ``{"predicted_truth": …}`` record, so their length is information actions + 2.
    """
    if recorded_length < 2:
        raise ValueError(f"a KUMO action list has at least 2 entries, got {recorded_length}")
    return recorded_length - 2
