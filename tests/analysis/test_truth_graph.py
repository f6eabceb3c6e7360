"""The truth graph and its Louvain communities."""

from __future__ import annotations

import itertools
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given

from engine.core.families.kumo.analysis import (
    action_truths,
    analyse_domain,
    find_communities,
    truth_graph,
)
from tests.analysis.domains import clusters_domain, core_domain
from tests.engine.strategies import domains


def edge_weights(domain) -> dict[frozenset[str], int]:
    return {frozenset((e.a, e.b)): e.weight for e in truth_graph(domain).edges}


def test_truths_are_joined_when_one_action_mentions_both_even_in_different_states():
    domain = core_domain(
        ["w", "x", "y", "z"],
        {"first": [["w"], ["x"]], "second": [["w", "x"], []], "third": [["y"], []]},
    )
    # w–x come from two actions ("first" across states, "second" within one state); y is
    # mentioned alone and z by nothing, so neither has an edge.
    assert edge_weights(domain) == {frozenset("wx"): 2}
    graph = truth_graph(domain)
    assert graph.truths == ("w", "x", "y", "z")
    assert set(graph.to_networkx().nodes) == {"w", "x", "y", "z"}


@given(domains(max_truths=10, max_actions=6))
def test_edges_are_exactly_the_pairs_an_action_mentions(domain):
    expected: Counter[frozenset[str]] = Counter()
    for action in domain.actions:
        for pair in itertools.combinations(sorted(action_truths(action)), 2):
            expected[frozenset(pair)] += 1
    assert edge_weights(domain) == dict(expected)
    position = {truth: i for i, truth in enumerate(domain.truths)}
    for edge in truth_graph(domain).edges:
        assert position[edge.a] < position[edge.b]


def test_louvain_finds_obvious_clusters_and_is_reproducible():
    domain, clusters = clusters_domain((5, 6, 4))
    graph = truth_graph(domain)
    communities = find_communities(graph)
    assert [set(group) for group in communities.groups] == sorted(clusters, key=len, reverse=True)
    expected = nx.community.modularity(graph.to_networkx(), clusters, weight="weight")
    assert communities.modularity == pytest.approx(expected)
    assert communities.modularity > 0.5
    # Same domain, same seed: same result, every time.
    assert find_communities(truth_graph(domain)) == communities
    assert analyse_domain(domain).communities == communities


def test_communities_list_truths_in_pool_order_largest_first():
    domain, _ = clusters_domain((3, 5))
    groups = find_communities(truth_graph(domain)).groups
    assert [len(group) for group in groups] == [5, 3]
    for group in groups:
        assert list(group) == [t for t in domain.truths if t in group]


def test_a_graph_without_edges_has_singleton_communities_and_no_modularity():
    domain = core_domain(["x", "y"], {"only": [["x"], []], "other": [["y"], []]})
    communities = find_communities(truth_graph(domain))
    assert communities.groups == (("x",), ("y",))
    assert communities.modularity is None
