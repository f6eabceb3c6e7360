from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from engine.core.families.kumo import search
from engine.core.families.kumo.domain_io import domain_from_json
from engine.core.families.kumo.generate import GenerationError, generate_instance
from engine.core.families.kumo.search import (
    OptimalResult,
    best_action,
    expected_actions,
    reference_best_action,
    reference_expected_actions,
    solve,
)
from engine.core.families.kumo.types import Action, Domain, Instance
from tests.engine.builders import float_action, str_action
from tests.engine.strategies import domains

# The solver fixture below only flips a switch, which every example may share.
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
HYPOTHESIS = settings(max_examples=150, deadline=None, suppress_health_check=SUPPRESSED)

# Values are compared with ==, not approximately: the argmin is decided by exact float
# comparisons, so only bit-identical sums guarantee the reference's choice of action.


@pytest.fixture(autouse=True, params=["compiled", "python"])
def solver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs against both solvers: the compiled one and the Python fallback."""
    if request.param == "compiled":
        # Built by `pip install -e .`; a missing build would silently test Python twice.
        assert search._fastsearch is not None, (
            "engine/core/families/kumo/_fastsearch.c is not built"
        )
    monkeypatch.setattr(search, "USE_NATIVE", request.param == "compiled")
    return request.param


def make_domain(*actions: Action) -> Domain:
    truths = sorted({t for action in actions for state in action.states for t in state.rules_out})
    return Domain(name="test", truths=tuple(truths), actions=actions)


def make_instance(
    truths: list[str], actions: list[str], observations: dict[str, str | float], valid: str
) -> Instance:
    return Instance(
        truths=tuple(truths),
        actions=tuple(actions),
        observations=observations,
        valid_truths=(valid,),
        seed=0,
    )


# --- hand-computed examples -------------------------------------------------------------

# Two binary tests on three truths. From T = {x, y, z}:
#   split_x:  "x-out" rules out x (leaves y, z: W = 2), "yz-out" rules out y, z (W = 1).
#   split_yz: "y-out" (W = 2), "z-out" (W = 2).
# After split_x the pair {y, z} is settled by split_yz in one more action (E = 1); the other
# child has one truth (E = 0). So split_x sums to 1 * 2 / (3 + 1e-9). After split_yz both
# children are pairs settled by split_x (E = 1): 2 / (4 + 1e-9) + 2 / (4 + 1e-9) > 2/3.
SPLIT_X = str_action("split_x", ("x-out", {"x"}), ("yz-out", {"y", "z"}))
SPLIT_YZ = str_action("split_yz", ("y-out", {"y"}), ("z-out", {"z"}))
THREE_TRUTHS = make_domain(SPLIT_X, SPLIT_YZ)


def test_a_single_split_of_two_truths_takes_exactly_one_action() -> None:
    domain = make_domain(str_action("coin", ("heads", {"x"}), ("tails", {"y"})))

    assert expected_actions(domain, ["x", "y"], ["coin"]) == 1.0
    assert best_action(domain, ["x", "y"], ["coin"]) == "coin"


def test_it_computes_the_expected_count_with_the_reference_weights() -> None:
    value = expected_actions(THREE_TRUTHS, ["x", "y", "z"], ["split_x", "split_yz"])

    # The reference's arithmetic: sum of E(child) * P(s) in state order, then + 1.
    assert value == 0.0 + 1.0 * (2 / (3 + 1e-9)) + 0.0 * (1 / (3 + 1e-9)) + 1
    assert value == reference_expected_actions(
        THREE_TRUTHS, ["x", "y", "z"], ["split_x", "split_yz"]
    )
    assert best_action(THREE_TRUTHS, ["x", "y", "z"], ["split_yz", "split_x"]) == "split_x"


def test_the_expected_count_is_zero_when_one_truth_is_left() -> None:
    assert expected_actions(THREE_TRUTHS, ["y"], ["split_x", "split_yz"]) == 0.0
    assert best_action(THREE_TRUTHS, ["y"], ["split_x", "split_yz"]) is None


def test_the_expected_count_is_zero_without_actions() -> None:
    assert expected_actions(THREE_TRUTHS, ["x", "y", "z"], []) == 0.0
    assert best_action(THREE_TRUTHS, ["x", "y", "z"], []) is None


def test_the_expected_count_is_zero_when_a_truth_cannot_be_ruled_out() -> None:
    # split_yz alone never rules out x, so x must be the answer: no action is needed.
    assert expected_actions(THREE_TRUTHS, ["x", "y", "z"], ["split_yz"]) == 0.0
    assert best_action(THREE_TRUTHS, ["x", "y", "z"], ["split_yz"]) is None


def test_an_action_that_rules_out_nothing_changes_nothing_and_is_never_chosen() -> None:
    idle = str_action("idle", ("a", {"w"}), ("b", set()))
    domain = make_domain(SPLIT_X, SPLIT_YZ, idle)
    truths = ["x", "y", "z"]

    with_idle = expected_actions(domain, truths, ["idle", "split_yz", "split_x"])

    assert with_idle == expected_actions(domain, truths, ["split_yz", "split_x"])
    assert with_idle == reference_expected_actions(domain, truths, ["idle", "split_yz", "split_x"])
    assert best_action(domain, truths, ["idle", "split_yz", "split_x"]) == "split_x"


def test_equal_sums_go_to_the_action_listed_first() -> None:
    left = str_action("left", ("x-out", {"x"}), ("y-out", {"y"}))
    right = str_action("right", ("x-out", {"x"}), ("y-out", {"y"}))
    domain = make_domain(left, right)

    assert best_action(domain, ["x", "y"], ["left", "right"]) == "left"
    assert best_action(domain, ["x", "y"], ["right", "left"]) == "right"


def test_a_float_tie_between_unlike_actions_goes_to_the_action_listed_first() -> None:
    # Found by random search. From t0..t4, tie_a's sum is exactly its bound (its only child
    # that is not a base case is worth exactly 1); tie_c has a smaller bound, yet its sum is
    # the same float. The search must not drop tie_a on the bound when tie_c is tried first.
    tie_a = str_action("tie_a", ("s0", {"t0", "t2"}), ("s1", {"t3", "t4"}))
    other = str_action("other", ("s0", {"t3", "t4"}), ("s1", set()))
    tie_c = str_action("tie_c", ("s0", {"t1"}), ("s1", {"t0"}), ("s2", {"t3"}))
    domain = make_domain(tie_a, other, tie_c)
    truths = ["t0", "t1", "t2", "t3", "t4"]

    assert best_action(domain, truths, ["tie_a", "other", "tie_c"]) == "tie_a"
    assert best_action(domain, truths, ["tie_c", "other", "tie_a"]) == "tie_c"
    assert reference_best_action(domain, truths, ["tie_a", "other", "tie_c"]) == "tie_a"
    assert reference_best_action(domain, truths, ["tie_c", "other", "tie_a"]) == "tie_c"


def test_solve_plays_the_oracle_on_the_instance() -> None:
    instance = make_instance(
        ["x", "y", "z"], ["split_yz", "split_x"], {"split_x": "x-out", "split_yz": "z-out"}, "y"
    )

    result = solve(THREE_TRUTHS, instance)

    # split_x first ("x-out" leaves y, z), then split_yz ("z-out" leaves y).
    assert result == OptimalResult(
        expected_actions=2 / (3 + 1e-9) + 1,
        oracle_actions=2,
        oracle_path=("split_x", "split_yz"),
    )


def test_solve_reads_float_observations_by_range() -> None:
    level = float_action("level", ((0, 10), {"x"}), ((10, 20), {"y", "z"}))
    domain = make_domain(level, SPLIT_YZ)
    # 10 is on the shared endpoint and belongs to the first range, which rules out x.
    instance = make_instance(
        ["x", "y", "z"], ["level", "split_yz"], {"level": 10.0, "split_yz": "y-out"}, "z"
    )

    result = solve(domain, instance)

    assert result.oracle_path == ("level", "split_yz")
    assert result.expected_actions == 2 / (3 + 1e-9) + 1


# --- original KUMO numbers ----------------------------------------------------------------

# MedicalEnv, truth_num=4+action_num=6, seed 6 of the original KUMO release, with the six
# actions of that instance exactly as in its medical_data.py. The numbers were produced by
# the original OracleSearchEngine with its action set iterated in the instance's list
# order. Brain MRI and Echocardiogram tie exactly, so the order decides the oracle's path.
KUMO_ACTIONS = (
    str_action(
        "Rheumatoid Factor Test", ("positive", set()), ("negative", {"Rheumatoid Arthritis"})
    ),
    str_action(
        "Brain MRI",
        ("normal", {"Brain Tumor", "Multiple Sclerosis", "Stroke", "Epilepsy"}),
        ("brain_lesions", set()),
        ("white_matter_changes", set()),
        ("infarct", set()),
    ),
    str_action(
        "Depression Screening Questionnaire",
        ("positive", set()),
        ("negative", {"Depression", "Anxiety Disorder", "Bipolar Disorder"}),
    ),
    float_action(
        "Erythrocyte Sedimentation Rate (ESR)",
        (
            (0, 20),
            {
                "Bacterial Infection",
                "Viral Infection",
                "Fungal Infection",
                "Anemia of Chronic Disease",
                "Rheumatoid Arthritis",
                "Systemic Lupus Erythematosus (SLE)",
            },
        ),
        ((21, 100), set()),
    ),
    str_action(
        "Anxiety Screening Questionnaire",
        ("positive", set()),
        ("negative", {"Anxiety Disorder", "Depression", "Bipolar Disorder"}),
    ),
    str_action(
        "Echocardiogram",
        ("normal", {"Heart Failure", "Valvular Heart Disease", "Aortic Stenosis"}),
        ("reduced_ejection_fraction", set()),
        ("valve_abnormalities", set()),
        ("hypertrophy", set()),
    ),
)
KUMO_INSTANCE = Instance.from_kumo(
    {
        "truths": ["Heart Failure", "Anxiety Disorder", "Brain Tumor", "Rheumatoid Arthritis"],
        "actions": [action.name for action in KUMO_ACTIONS],
        "observations": {
            "Rheumatoid Factor Test": "negative",
            "Brain MRI": "normal",
            "Depression Screening Questionnaire": "negative",
            "Erythrocyte Sedimentation Rate (ESR)": 42.543148768085686,
            "Anxiety Screening Questionnaire": "negative",
            "Echocardiogram": "reduced_ejection_fraction",
        },
        "seed": 6,
        "valid_truth": "Heart Failure",
    }
)


def test_it_reproduces_the_original_kumo_numbers() -> None:
    result = solve(make_domain(*KUMO_ACTIONS), KUMO_INSTANCE)

    assert result.expected_actions == 1.2606060605750964
    assert result.oracle_path == ("Brain MRI", "Echocardiogram")


def test_the_oracle_path_follows_the_action_order_on_exact_ties() -> None:
    reordered = replace(KUMO_INSTANCE, actions=tuple(reversed(KUMO_INSTANCE.actions)))

    result = solve(make_domain(*KUMO_ACTIONS), reordered)

    assert result.expected_actions == 1.2606060605750964
    # Echocardiogram comes first now; "reduced_ejection_fraction" rules out nothing and leaves
    # Heart Failure without any remaining test that could rule it out: the answer is known.
    assert result.oracle_path == ("Echocardiogram",)


# --- properties on random small domains ---------------------------------------------------


@st.composite
def games(draw: st.DrawFn) -> tuple[Domain, Instance]:
    """A small random domain and an instance of it whose observations fit the valid truth.

    Unlike generated instances, these need not rule out every invalid truth, so base cases
    of every kind show up.
    """
    domain = draw(domains(min_truths=2, max_truths=7, min_actions=1, max_actions=7))
    truths = draw(st.lists(st.sampled_from(domain.truths), min_size=1, max_size=6, unique=True))
    valid = draw(st.sampled_from(truths))
    names = [action.name for action in domain.actions]
    actions = draw(st.lists(st.sampled_from(names), max_size=6, unique=True))
    observations: dict[str, str | float] = {}
    for name in actions:
        action = domain.action(name)
        # Validity guarantees some state of every action keeps the valid truth.
        state = draw(st.sampled_from([s for s in action.states if valid not in s.rules_out]))
        if state.label is not None:
            observations[name] = state.label
        else:
            assert state.range is not None
            # The midpoint is inside this range only: ranges of one action never overlap.
            observations[name] = (state.range[0] + state.range[1]) / 2
    return domain, make_instance(truths, actions, observations, valid)


@st.composite
def game_states(draw: st.DrawFn) -> tuple[Domain, list[str], list[str]]:
    """A random domain with any remaining truths and actions (in any order)."""
    domain = draw(domains(min_truths=2, max_truths=7, min_actions=1, max_actions=7))
    truths = draw(st.lists(st.sampled_from(domain.truths), max_size=6, unique=True))
    names = [action.name for action in domain.actions]
    actions = draw(st.lists(st.sampled_from(names), max_size=6, unique=True))
    return domain, truths, actions


@HYPOTHESIS
@given(games())
def test_solve_matches_the_literal_recursion(game: tuple[Domain, Instance]) -> None:
    domain, instance = game

    result = solve(domain, instance)

    assert result.expected_actions == reference_expected_actions(
        domain, instance.truths, instance.actions
    )


@HYPOTHESIS
@given(game_states())
def test_expected_actions_matches_the_literal_recursion_from_any_state(
    state: tuple[Domain, list[str], list[str]],
) -> None:
    domain, truths, actions = state

    assert expected_actions(domain, truths, actions) == reference_expected_actions(
        domain, truths, actions
    )


@HYPOTHESIS
@given(game_states())
def test_best_action_matches_the_reference_argmin_from_any_state(
    state: tuple[Domain, list[str], list[str]],
) -> None:
    domain, truths, actions = state

    assert best_action(domain, truths, actions) == reference_best_action(domain, truths, actions)


@HYPOTHESIS
@given(game_states(), st.data())
def test_best_action_prefers_the_first_of_identical_actions(
    state: tuple[Domain, list[str], list[str]], data: st.DataObject
) -> None:
    domain, truths, actions = state
    assume(actions)
    # Copy one action under a new name, possibly with its states reordered (then the sums
    # may differ in the last bits), and list the copy anywhere.
    original = domain.action(data.draw(st.sampled_from(actions)))
    states = data.draw(st.permutations(original.states))
    copy = replace(original, name=f"{original.name} (copy)", states=tuple(states))
    domain = replace(domain, actions=domain.actions + (copy,))
    position = data.draw(st.integers(0, len(actions)))
    actions = actions[:position] + [copy.name] + actions[position:]

    assert best_action(domain, truths, actions) == reference_best_action(domain, truths, actions)
    assert expected_actions(domain, truths, actions) == reference_expected_actions(
        domain, truths, actions
    )


@HYPOTHESIS
@given(games())
def test_the_oracle_keeps_the_valid_truth_and_stops_only_at_a_base_case(
    game: tuple[Domain, Instance],
) -> None:
    domain, instance = game

    result = solve(domain, instance)

    truths, actions = set(instance.truths), list(instance.actions)
    for name in result.oracle_path:
        # Each step is the argmin of the state it is taken in.
        assert best_action(domain, truths, actions) == name
        truths -= domain.action(name).state_for(instance.observations[name]).rules_out
        actions.remove(name)
    assert instance.valid_truth in truths
    assert result.oracle_actions == len(result.oracle_path)
    assert best_action(domain, truths, actions) is None
    if len(truths) > 1:
        ruled_out_somewhere = {
            t for name in actions for state in domain.action(name).states for t in state.rules_out
        }
        assert not actions or not truths <= ruled_out_somewhere


@settings(max_examples=40, deadline=None, suppress_health_check=SUPPRESSED)
@given(domains(max_truths=8, min_actions=6, max_actions=8), st.integers(0, 2**32 - 1))
def test_solve_matches_the_literal_recursion_on_generated_instances(
    domain: Domain, seed: int
) -> None:
    try:
        instance = generate_instance(domain, min(5, len(domain.truths)), 6, seed)
    except GenerationError:
        reject()

    result = solve(domain, instance)

    assert result.expected_actions == reference_expected_actions(
        domain, instance.truths, instance.actions
    )
    first = reference_best_action(domain, instance.truths, instance.actions)
    assert result.oracle_path[:1] == (() if first is None else (first,))


def test_solve_rejects_an_observation_that_matches_no_state() -> None:
    instance = make_instance(["x", "y"], ["split_x"], {"split_x": "sideways"}, "y")

    with pytest.raises(KeyError):
        solve(THREE_TRUTHS, instance)


# --- the shipped study domains ------------------------------------------------------------

SHIPPED_DOMAINS_DIR = Path(__file__).resolve().parents[2] / "engine" / "domains"


@pytest.mark.parametrize("name", ["chemical", "education", "fantasy", "medical", "music"])
def test_solve_matches_the_literal_recursion_on_a_shipped_domain(name: str) -> None:
    # Real domains have many overlapping states and states that rule out nothing, which the
    # small random domains above rarely produce; the sizes keep the literal recursion fast.
    domain = domain_from_json((SHIPPED_DOMAINS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    instance = generate_instance(domain, 6, 8, seed=7)

    result = solve(domain, instance)

    assert result.expected_actions == reference_expected_actions(
        domain, instance.truths, instance.actions
    )
    truths, actions = set(instance.truths), list(instance.actions)
    for name_taken in result.oracle_path:
        assert reference_best_action(domain, truths, actions) == name_taken
        truths -= domain.action(name_taken).state_for(instance.observations[name_taken]).rules_out
        actions.remove(name_taken)
    assert reference_best_action(domain, truths, actions) is None


@pytest.mark.parametrize("name", ["chemical", "education", "medical"])
def test_both_solvers_agree_on_hard_instances_of_a_shipped_domain(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hard instances are far beyond the literal recursion; the two solvers check each other.
    domain = domain_from_json((SHIPPED_DOMAINS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    searched = 0
    for seed in range(4):
        instance = generate_instance(domain, 12, 16, seed=seed)

        monkeypatch.setattr(search, "USE_NATIVE", True)
        compiled = solve(domain, instance)
        monkeypatch.setattr(search, "USE_NATIVE", False)
        python = solve(domain, instance)

        assert compiled == python
        searched += compiled.expected_actions > 1
    assert searched >= 2


def test_more_than_64_truths_are_searched_by_the_python_solver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Unusable:
        def search(self, *args: object) -> None:
            raise AssertionError("the compiled solver takes at most 64 truths")

    monkeypatch.setattr(search, "_fastsearch", Unusable())
    truths = [f"t{i:02}" for i in range(66)]
    halves = str_action("halves", ("low", set(truths[33:])), ("high", set(truths[:33])))
    parity = str_action("parity", ("even", set(truths[1::2])), ("odd", set(truths[::2])))
    domain = Domain(name="wide", truths=tuple(truths), actions=(halves, parity))

    expected = expected_actions(domain, truths, ["halves", "parity"])

    assert expected == reference_expected_actions(domain, truths, ["halves", "parity"])
    assert expected > 1
    assert best_action(domain, truths, ["parity", "halves"]) == reference_best_action(
        domain, truths, ["parity", "halves"]
    )
