"""Hand-made domains with known structure for the domain-analysis tests.

Import them as ``from tests.analysis.domains import ...``; fixtures are in ``conftest.py``.
"""

from __future__ import annotations

from engine.core.families.kumo.domain_io import domain_from_json
from engine.core.families.kumo.types import Action, Domain, State


def str_action(name: str, *states: list[str]) -> dict:
    return {
        "name": name,
        "type": "str",
        "states": [
            {"label": f"outcome-{n}", "rules_out": list(rules)} for n, rules in enumerate(states)
        ],
    }


# Three components of the truth graph, sizes 5 (a*), 4 (b*) and 3 (c*): the split puts
# a* and c* on side 1 and b* on side 2. "Weather" rules nothing out, so it goes to side 1
# (all of its — no — truths lie there) and is dropped from that half.
GARDEN = {
    "format": "kumo-domain/1",
    "name": "garden",
    "title": "Garden",
    "description": "Three unrelated problems in one garden.",
    "truth_noun": "problem",
    "action_noun": "check",
    "truths": ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4", "c1", "c2", "c3"],
    "actions": [
        str_action("A-one", ["a1", "a2"], ["a3", "a4", "a5"]),
        str_action("B-one", ["b1", "b2"], ["b3", "b4"]),
        str_action("A-two", ["a1", "a3"], ["a2", "a4"], ["a5"]),
        {
            "name": "A-three",
            "type": "float",
            "unit": "cm",
            "states": [
                {"range": [0, 1], "rules_out": ["a4"]},
                {"range": [1, 2], "rules_out": ["a1", "a5"]},
            ],
        },
        str_action("C-one", ["c1"], ["c2", "c3"]),
        str_action("B-two", ["b1", "b3"], ["b2", "b4"]),
        str_action("A-four", ["a2", "a5"], ["a3"]),
        {
            "name": "B-three",
            "type": "float",
            "states": [
                {"range": [0, 10], "rules_out": ["b4"]},
                {"range": [10, 20], "rules_out": ["b1"]},
            ],
        },
        str_action("C-two", ["c2"], ["c1", "c3"]),
        str_action("Weather", [], []),
    ],
}
GARDEN_SIDE_1_TRUTHS = ("a1", "a2", "a3", "a4", "a5", "c1", "c2", "c3")
GARDEN_SIDE_2_TRUTHS = ("b1", "b2", "b3", "b4")
GARDEN_SIDE_1_ACTIONS = ("A-one", "A-two", "A-three", "C-one", "A-four", "C-two", "Weather")
GARDEN_SIDE_2_ACTIONS = ("B-one", "B-two", "B-three")


def clusters_domain(sizes: tuple[int, ...] = (5, 5, 5)) -> tuple[Domain, list[set[str]]]:
    """Dense clusters joined by one weak bridge each: Louvain must find the clusters.

    Each cluster of truths is mentioned by two actions (all its pairs get weight 2); one
    bridge action between consecutive clusters adds a single weight-1 edge.
    """
    clusters = [[f"k{c}-t{i}" for i in range(size)] for c, size in enumerate(sizes)]
    actions = []
    for c, truths in enumerate(clusters):
        half = len(truths) // 2
        actions.append(str_action(f"cluster-{c}-first", truths[:half], truths[half:]))
        actions.append(str_action(f"cluster-{c}-second", truths[::2], truths[1::2]))
    for c in range(len(clusters) - 1):
        actions.append(str_action(f"bridge-{c}", [clusters[c][0]], [clusters[c + 1][-1]]))
    data = {
        "format": "kumo-domain/1",
        "name": "clusters",
        "truths": [t for truths in clusters for t in truths],
        "actions": actions,
    }
    return domain_from_json(data), [set(truths) for truths in clusters]


def core_domain(
    truths: list[str], actions: dict[str, list[list[str]]], name: str = "hand"
) -> Domain:
    """A core domain built directly (not validated): ``actions`` maps names to rule-outs."""
    return Domain(
        name=name,
        truths=tuple(truths),
        actions=tuple(
            Action(
                name=action,
                type="str",
                states=tuple(
                    State(frozenset(rules), label=f"s{n}") for n, rules in enumerate(states)
                ),
            )
            for action, states in actions.items()
        ),
    )
