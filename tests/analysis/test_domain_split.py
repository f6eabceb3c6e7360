"""The split by connection: components alternate between sides, actions follow their
truths, and both halves are valid domains that tasks can be generated from."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core.families.kumo.analysis import (
    SplitError,
    action_truths,
    plan_split,
    restrict_domain,
    split_domain,
)
from engine.core.families.kumo.domain_io import validate_domain
from engine.core.families.kumo.generate import check_instance, generate_instances
from engine.core.families.kumo.types import Action, Domain
from tests.analysis.domains import (
    GARDEN_SIDE_1_ACTIONS,
    GARDEN_SIDE_1_TRUTHS,
    GARDEN_SIDE_2_ACTIONS,
    GARDEN_SIDE_2_TRUTHS,
    core_domain,
)
from tests.engine.strategies import domains


def test_components_alternate_largest_first(garden_core):
    plan = plan_split(garden_core)
    assert [(c.truths, c.side) for c in plan.components] == [
        (("a1", "a2", "a3", "a4", "a5"), 1),
        (("b1", "b2", "b3", "b4"), 2),
        (("c1", "c2", "c3"), 1),
    ]
    assert plan.truths == (GARDEN_SIDE_1_TRUTHS, GARDEN_SIDE_2_TRUTHS)
    assert plan.actions == (GARDEN_SIDE_1_ACTIONS, GARDEN_SIDE_2_ACTIONS)
    assert plan.possible


def test_components_of_equal_size_are_ordered_by_their_first_truth_name():
    # Pool order puts "y" first, but "a" sorts first: the {a, b} component is side 1.
    domain = core_domain(["y", "z", "a", "b"], {"yz": [["y"], ["z"]], "ab": [["a"], ["b"]]})
    plan = plan_split(domain)
    assert [(c.truths, c.side) for c in plan.components] == [(("a", "b"), 1), (("y", "z"), 2)]
    assert plan.actions == (("ab",), ("yz",))


def test_the_split_builds_two_valid_halves_and_reports_the_useless_action(garden_core):
    split = split_domain(garden_core)
    ind, ood = split.ind, split.ood
    assert (ind.domain.name, ood.domain.name) == ("garden-IND", "garden-OOD")
    assert ind.domain.truths == GARDEN_SIDE_1_TRUTHS
    assert ood.domain.truths == GARDEN_SIDE_2_TRUTHS
    assert [a.name for a in ind.domain.actions] == [
        a for a in GARDEN_SIDE_1_ACTIONS if a != "Weather"
    ]
    assert [a.name for a in ood.domain.actions] == list(GARDEN_SIDE_2_ACTIONS)
    assert ind.dropped_actions == (("Weather", "rules out none of this side's truths"),)
    assert ood.dropped_actions == () and ind.dropped_truths == ood.dropped_truths == ()
    assert ind.trimmed == ood.trimmed == ()
    for half in (ind, ood):
        assert validate_domain(half.domain) == []
        assert half.domain.truth_noun == "problem"
    # Float ranges and units survive unchanged.
    assert ind.domain.action("A-three") == garden_core.action("A-three")


def test_both_halves_can_generate_tasks(garden_core):
    split = split_domain(garden_core)
    for half, (n_truths, n_actions) in ((split.ind, (4, 3)), (split.ood, (3, 2))):
        instances = generate_instances(half.domain, n_truths, n_actions, count=3, seed=5)
        assert len(instances) == 3
        for instance in instances:
            assert check_instance(half.domain, instance) == []
            assert set(instance.truths) <= set(half.domain.truths)


def test_a_connected_domain_cannot_be_split(small_domain_data):
    from engine.core.families.kumo.domain_io import domain_from_json

    domain = domain_from_json(small_domain_data)
    assert not plan_split(domain).possible
    with pytest.raises(
        SplitError, match="cannot be split by connection: its truth graph is connected"
    ):
        split_domain(domain)


def test_restricting_trims_rule_outs_of_the_other_side_and_drops_what_becomes_useless():
    domain = core_domain(
        ["p", "q", "r", "s"],
        {
            "mixed": [["p", "r"], ["q"]],  # spans both sides: "r" is trimmed
            "outside": [["r"], ["s"]],  # rules out only truths of the other side
            "pq": [["p"], []],
        },
    )
    sub = restrict_domain(
        domain, name="half", truths=["p", "q"], actions=["mixed", "outside", "pq"]
    )
    assert [a.name for a in sub.domain.actions] == ["mixed", "pq"]
    assert sub.domain.action("mixed").states[0].rules_out == frozenset({"p"})
    assert sub.trimmed == ("'mixed' state 's0' no longer rules out 'r'",)
    assert sub.dropped_actions == (("outside", "rules out none of this side's truths"),)
    assert validate_domain(sub.domain) == []


def test_restricting_drops_truths_no_kept_action_rules_out():
    domain = core_domain(["p", "q", "r"], {"pq": [["p"], ["q"]], "r": [["r"], []]})
    sub = restrict_domain(domain, name="half", truths=["p", "q", "r"], actions=["pq"])
    assert sub.domain.truths == ("p", "q")
    assert sub.dropped_truths == (("r", "no action of this side rules it out"),)


def test_restricting_refuses_a_half_that_cannot_be_valid():
    domain = core_domain(["p", "q"], {"broken": [["p", "q"]], "pq": [["p"], ["q"]]})
    with pytest.raises(SplitError) as error:
        restrict_domain(domain, name="half", truths=["p", "q"], actions=["broken"], side=2)
    message = str(error.value)
    assert "out-of-distribution half 'half' would not be a valid domain" in message
    assert "has 1 state(s)" in message
    with pytest.raises(SplitError, match="unknown action"):
        restrict_domain(domain, name="half", truths=["p"], actions=["nope"])


def _disjoint_union(parts: list[Domain]) -> Domain:
    """Rename each part's truths and actions apart and pool them into one domain."""

    def rename(part: int, name: str) -> str:
        return f"p{part}-{name}"

    truths: list[str] = []
    actions: list[Action] = []
    for index, part in enumerate(parts):
        truths += [rename(index, t) for t in part.truths]
        for action in part.actions:
            states = tuple(
                dataclasses.replace(
                    state, rules_out=frozenset(rename(index, t) for t in state.rules_out)
                )
                for state in action.states
            )
            actions.append(
                dataclasses.replace(action, name=rename(index, action.name), states=states)
            )
    return Domain(name="union", truths=tuple(truths), actions=tuple(actions))


@given(st.lists(domains(max_truths=8, max_actions=5), min_size=2, max_size=4))
def test_split_properties_on_unions_of_random_domains(parts):
    domain = _disjoint_union(parts)
    assert validate_domain(domain) == []
    plan = plan_split(domain)
    assert len(plan.components) >= len(parts)
    # Largest first, ties by first name; sides alternate 1, 2, 1, …
    keys = [(-len(c.truths), min(c.truths)) for c in plan.components]
    assert keys == sorted(keys)
    assert [c.side for c in plan.components] == [1 + i % 2 for i in range(len(plan.components))]
    side = plan.side_of_truth()
    assert set(side) == set(domain.truths)
    for action in domain.actions:
        expected = 1 if all(side[t] == 1 for t in action_truths(action)) else 2
        assert action.name in plan.actions[expected - 1]
        # A component is a clique of each action's truths: an action never spans sides.
        assert len({side[t] for t in action_truths(action)}) <= 1

    split = split_domain(domain, plan)
    for half, number in ((split.ind, 1), (split.ood, 2)):
        assert validate_domain(half.domain) == []
        assert half.trimmed == () and half.dropped_truths == ()
        assert set(half.domain.truths) == set(plan.truths[number - 1])
        kept = {a.name for a in half.domain.actions}
        dropped = {name for name, _ in half.dropped_actions}
        assert kept | dropped == set(plan.actions[number - 1]) and not kept & dropped
        for name in dropped:
            assert not action_truths(domain.action(name))


def test_states_keep_their_labels_and_descriptions(garden_core):
    split = split_domain(garden_core)
    original = garden_core.action("B-one")
    kept = split.ood.domain.action("B-one")
    assert [(s.label, s.rules_out, s.description) for s in kept.states] == [
        (s.label, s.rules_out, s.description) for s in original.states
    ]
