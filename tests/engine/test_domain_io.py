from __future__ import annotations

import json
import pickle
import textwrap

import pytest
from hypothesis import given, settings

from engine.core.families.kumo.domain_io import (
    DomainError,
    domain_from_json,
    domain_from_kumo_module,
    domain_to_json,
    validate_domain,
)
from engine.core.families.kumo.types import Action, Domain, State
from tests.engine.builders import float_action, str_action
from tests.engine.strategies import domains


def line_of(source: str, text: str) -> int:
    """The 1-based number of the first line of ``source`` containing ``text``."""
    return next(n for n, line in enumerate(source.splitlines(), start=1) if text in line)


def lung_domain(*actions: Action, truths: tuple[str, ...] = ("Asthma", "Pneumonia")) -> Domain:
    return Domain(name="lungs", truths=truths, actions=actions)


# --------------------------------------------------------------------------------------
# validate_domain


def test_the_shared_small_domain_is_valid(small_domain_data):
    assert validate_domain(domain_from_json(small_domain_data, validate=False)) == []


def test_it_reports_every_problem_with_its_action_and_state():
    domain = lung_domain(
        str_action(
            "Chest X-Ray",
            ("normal", {"Pneumonia", "Pneumonitis"}),
            ("consolidation", {"Asthma", "Pneumonia"}),
        ),
        str_action("Peak Flow", ("low", set())),
        str_action("Sputum", ("clear", {"Pneumonia"}), ("clear", set())),
    )

    problems = validate_domain(domain)

    assert problems == [
        "action 'Chest X-Ray': state 'normal' rules out unknown truth 'Pneumonitis'",
        "action 'Chest X-Ray': truth 'Pneumonia' is ruled out by every state "
        "(it could never survive this action)",
        "action 'Peak Flow': has 1 state(s); every action needs at least two",
        "action 'Sputum': label 'clear' is used by 2 states",
    ]


def test_it_reports_truths_that_no_state_rules_out():
    domain = lung_domain(
        str_action("Chest X-Ray", ("normal", {"Pneumonia"}), ("shadow", set())),
        truths=("Asthma", "Pneumonia", "Bronchitis"),
    )

    assert validate_domain(domain) == [
        "truth 'Asthma' is not ruled out by any state of any action",
        "truth 'Bronchitis' is not ruled out by any state of any action",
    ]


def test_it_reports_duplicate_and_empty_names():
    domain = Domain(
        name="Lungs!",
        truths=("Asthma", "Asthma", " "),
        actions=(
            str_action("X", ("a", {"Asthma"}), ("b", {" "})),
            str_action("X", ("a", set()), ("", {"Asthma"})),
        ),
    )

    problems = validate_domain(domain)

    assert (
        "domain name 'Lungs!' must be made of letters a-z or A-Z, digits and '-' only" in problems
    )
    assert "truth ' ' has an empty name" in problems
    assert "truth 'Asthma' appears 2 times in the truth pool" in problems
    assert "action 'X' appears 2 times in the action pool" in problems
    assert "action 'X': state #2 has no label" in problems


def test_it_reports_empty_pools():
    assert validate_domain(Domain(name="empty", truths=(), actions=())) == [
        "the truth pool is empty",
        "the action pool is empty",
    ]


def test_touching_ranges_are_allowed():
    domain = lung_domain(
        float_action("Peak Flow", ((0, 200), {"Asthma"}), ((200, 600), {"Pneumonia"})),
    )

    assert validate_domain(domain) == []


def test_overlapping_ranges_are_reported_by_name():
    domain = lung_domain(
        float_action(
            "Peak Flow",
            ((0, 200), {"Asthma"}),
            ((150.5, 600), {"Pneumonia"}),
            ((600, 700), set()),
        ),
    )

    assert validate_domain(domain) == [
        "action 'Peak Flow': ranges [0, 200] and [150.5, 600] overlap"
    ]


def test_ranges_must_be_finite_and_increasing():
    domain = lung_domain(
        float_action(
            "Peak Flow",
            ((0, float("inf")), {"Asthma"}),
            ((5, 5), {"Pneumonia"}),
            ((9, 3), set()),
            ((float("nan"), 1), set()),
        ),
    )

    assert validate_domain(domain) == [
        "action 'Peak Flow': state [0, inf] has a range that is not finite",
        "action 'Peak Flow': state [5, 5] needs lo < hi",
        "action 'Peak Flow': state [9, 3] needs lo < hi",
        "action 'Peak Flow': state [nan, 1] has a range that is not finite",
    ]


def test_a_state_must_match_its_actions_type():
    domain = lung_domain(
        Action(
            name="Mixed",
            type="float",
            states=(
                State(frozenset({"Asthma"}), label="low"),
                State(frozenset({"Pneumonia"}), range=(0.0, 1.0)),
            ),
        ),
        Action(name="Odd", type="int", states=()),  # type: ignore[arg-type]
    )

    problems = validate_domain(domain)

    assert "action 'Mixed': state 'low' has a label but the type is 'float'" in problems
    assert "action 'Mixed': state #1 has no range" in problems
    assert "action 'Odd': type 'int' is not 'str' or 'float'" in problems


@settings(max_examples=200, deadline=None)
@given(domains())
def test_the_domain_strategy_only_draws_valid_domains(domain):
    assert validate_domain(domain) == []
    assert 4 <= len(domain.truths) <= 12
    assert 3 <= len(domain.actions) <= 10
    assert all(2 <= len(action.states) <= 4 for action in domain.actions)


# --------------------------------------------------------------------------------------
# JSON


def test_it_reads_the_json_format(small_domain_data):
    domain = domain_from_json(small_domain_data)

    assert domain.name == "orchard"
    assert domain.truth_noun == "pest"
    assert domain.truths[0] == "Aphid"
    trap = domain.action("Sticky Trap Count")
    assert trap.type == "float"
    assert trap.unit == "insects per trap per week"
    assert trap.states[0].range == (0.0, 4.9)
    assert trap.states[1].rules_out == frozenset({"Scale Insect"})
    assert domain.action("Fruit Cut Test").states[1].label == "tunnels"


def test_it_accepts_json_text(small_domain_data):
    assert domain_from_json(json.dumps(small_domain_data)) == domain_from_json(small_domain_data)


def test_it_rejects_text_that_is_not_json():
    with pytest.raises(DomainError) as caught:
        domain_from_json("{not json")

    assert caught.value.problems[0].startswith("not valid JSON:")


def test_json_round_trips_exactly(small_domain_data):
    domain = domain_from_json(small_domain_data)

    written = domain_to_json(domain)

    assert domain_from_json(json.loads(json.dumps(written))) == domain
    assert written == domain_to_json(domain_from_json(written))


def test_rules_out_lists_are_written_in_pool_order(small_domain_data):
    small_domain_data["actions"][0]["states"][0]["rules_out"] = ["Thrips", "Aphid", "Spider Mite"]

    written = domain_to_json(domain_from_json(small_domain_data))

    assert written["actions"][0]["states"][0]["rules_out"] == ["Aphid", "Spider Mite", "Thrips"]


def test_whole_number_bounds_are_written_as_integers(small_domain_data):
    written = domain_to_json(domain_from_json(small_domain_data))

    assert written["actions"][2]["states"][2]["range"] == [30, 200]
    assert written["actions"][2]["states"][0]["range"] == [0, 4.9]
    assert all(type(b) is int for b in written["actions"][2]["states"][2]["range"])


def test_a_hand_built_domain_with_integer_bounds_can_be_written():
    domain = lung_domain(float_action("Peak Flow", ((0, 200), {"Asthma"}), ((200, 600), set())))

    written = domain_to_json(domain)

    assert written["actions"][0]["states"][0]["range"] == [0, 200]
    assert domain_from_json(written, validate=False).actions[0].states[0].range == (0.0, 200.0)


def test_structural_errors_are_reported_together_with_json_paths(small_domain_data):
    data = small_domain_data
    data["format"] = "kumo-domain/2"
    del data["name"]
    data["truths"][3] = 7
    data["actions"][0]["type"] = "text"
    data["actions"][1]["states"][1]["rule_out"] = []
    data["actions"][2]["states"][1]["range"] = [5]
    data["actions"][2]["states"][2]["label"] = "high"
    data["actions"][3]["states"] = {"smooth": []}
    data["actions"][4]["states"][0]["rules_out"] = "Aphid"
    data["actions"][5]["unit"] = 3

    with pytest.raises(DomainError) as caught:
        domain_from_json(data)

    assert caught.value.problems == [
        "format: expected 'kumo-domain/1', got 'kumo-domain/2'",
        "name: missing",
        "truths[3]: expected a string, got a number",
        "actions[0].type: expected 'str' or 'float', got 'text'",
        "actions[1].states[1]: unknown field 'rule_out'",
        "actions[2].states[1].range: expected [lo, hi] (two numbers), got [5]",
        "actions[2].states[2].label: not allowed in a state of a 'float' action",
        "actions[3].states: expected an array, got an object",
        "actions[4].states[0].rules_out: expected an array of strings, got a string",
        "actions[5].unit: expected a string, got a number",
    ]


def test_a_missing_format_tag_and_a_non_object_are_rejected():
    with pytest.raises(DomainError) as caught:
        domain_from_json({"name": "x", "truths": [], "actions": []})
    assert caught.value.problems == ["format: missing (expected 'kumo-domain/1')"]

    with pytest.raises(DomainError) as caught:
        domain_from_json("[1, 2]")
    assert caught.value.problems == ["the domain must be a JSON object, not an array"]


def test_a_str_state_needs_a_label_and_a_float_state_a_range(small_domain_data):
    del small_domain_data["actions"][0]["states"][1]["label"]
    small_domain_data["actions"][0]["states"][2]["range"] = [0, 1]
    del small_domain_data["actions"][2]["states"][0]["range"]
    small_domain_data["actions"][1]["states"][0]["rules_out"] = ["Sawfly", "Sawfly"]

    with pytest.raises(DomainError) as caught:
        domain_from_json(small_domain_data)

    assert caught.value.problems == [
        "actions[0].states[1].label: missing",
        "actions[0].states[2].range: not allowed in a state of a 'str' action",
        "actions[1].states[0].rules_out: 'Sawfly' is listed 2 times",
        "actions[2].states[0].range: missing",
    ]


def test_it_validates_after_parsing_unless_told_not_to(small_domain_data):
    small_domain_data["actions"][2]["states"][1]["range"] = [4, 29.9]
    small_domain_data["actions"][0]["states"][0]["rules_out"].append("Weevil")

    with pytest.raises(DomainError) as caught:
        domain_from_json(small_domain_data)
    assert caught.value.problems == [
        "action 'Leaf Underside Check': state 'clean' rules out unknown truth 'Weevil'",
        "action 'Sticky Trap Count': ranges [0, 4.9] and [4, 29.9] overlap",
    ]

    unchecked = domain_from_json(small_domain_data, validate=False)
    assert unchecked.action("Sticky Trap Count").states[1].range == (4.0, 29.9)


def test_a_domain_error_lists_every_problem_and_survives_pickling():
    error = DomainError(["first problem", "second problem"])

    assert str(error) == "invalid domain: 2 problems\n  - first problem\n  - second problem"
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert copy.problems == error.problems
    assert str(copy) == str(error)


@settings(max_examples=100, deadline=None)
@given(domains())
def test_every_valid_domain_round_trips_through_json_text(domain):
    text = json.dumps(domain_to_json(domain), allow_nan=False)

    assert domain_from_json(text) == domain


# --------------------------------------------------------------------------------------
# Original KUMO modules (synthetic fixtures in the same shape as the original files)

KUMO_MODULE = textwrap.dedent(
    '''
    """A synthetic KUMO data module."""
    import random

    Pests = [
        'Aphid',
        'Codling Moth',
        "Spider Mite",
    ]

    Inspections = ["Leaf Check", "Trap Count", "Bark Scrape"]

    Outcomes = {
        "Trap Count": {
            "type": "float",
            "states": {
                (-1.5, 0): set(),
                (0, 30): {"Aphid"},
                (30, 200): ["Codling Moth", "Spider Mite"],
            }
        },
        "Leaf Check": {
            "type": "str",
            "states": {
                "clean": {"Aphid", "Spider Mite",},
                "webbing": set(),
            }
        },
        "Bark Scrape": {
            "type": "str",
            "states": {"smooth": ("Codling Moth",), "crusted": set()},
        },
    }
    '''
)


def test_it_reads_a_kumo_module_as_data():
    domain = domain_from_kumo_module(KUMO_MODULE, "orchard")

    assert domain.name == "orchard"
    assert domain.truths == ("Aphid", "Codling Moth", "Spider Mite")
    # Action order comes from the action list, not from Outcomes.
    assert [action.name for action in domain.actions] == ["Leaf Check", "Trap Count", "Bark Scrape"]
    trap = domain.action("Trap Count")
    assert trap.type == "float"
    assert [state.range for state in trap.states] == [(-1.5, 0.0), (0.0, 30.0), (30.0, 200.0)]
    assert trap.states[0].rules_out == frozenset()
    assert trap.states[2].rules_out == frozenset({"Codling Moth", "Spider Mite"})
    leaf = domain.action("Leaf Check")
    assert [state.label for state in leaf.states] == ["clean", "webbing"]
    assert domain.action("Bark Scrape").states[0].rules_out == frozenset({"Codling Moth"})
    assert validate_domain(domain) == []


def test_it_never_executes_the_module(tmp_path):
    marker = tmp_path / "executed"
    source = KUMO_MODULE + f"\nopen({str(marker)!r}, 'w').write('ran')\nraise SystemExit(3)\n"

    domain = domain_from_kumo_module(source, "orchard")

    assert len(domain.truths) == 3
    assert not marker.exists()


def test_pools_written_as_sets_keep_their_written_order():
    source = KUMO_MODULE.replace(
        "Pests = [\n    'Aphid',\n    'Codling Moth',\n    \"Spider Mite\",\n]",
        "Pests = {'Spider Mite', 'Aphid', 'Codling Moth'}",
    )
    assert "Pests = {" in source

    domain = domain_from_kumo_module(source, "orchard")

    assert domain.truths == ("Spider Mite", "Aphid", "Codling Moth")


@pytest.mark.parametrize(
    ("replacement", "shown"),
    [
        ('set(["Aphid"])', "set(['Aphid'])"),
        ("frozenset()", "frozenset()"),
        ("sorted(PESTS)", "sorted(PESTS)"),
        ("PESTS", "PESTS"),
        ('{"Aphid", 3}', "3"),
    ],
)
def test_it_rejects_anything_but_literals_and_empty_set_naming_the_line(replacement, shown):
    source = KUMO_MODULE.replace("(-1.5, 0): set(),", f"(-1.5, 0): {replacement},")

    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module(source, "orchard")

    [problem] = caught.value.problems
    line = line_of(source, "(-1.5, 0)")
    assert problem.startswith(f"line {line}: {shown!r} is not plain data")


def test_it_reports_a_syntax_error_with_its_line():
    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module("Pests = ['a',\nActions = ]", "x")

    assert caught.value.problems[0].startswith("line ")
    assert "not valid Python" in caught.value.problems[0]


def test_it_needs_two_pools_and_an_outcome_table():
    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module("Pests = ['a', 'b']\nCOUNT = 3\n", "x")

    assert caught.value.problems == [
        "expected two list assignments (truth pool, action pool), found 1",
        "no 'Outcomes = {...}' assignment",
    ]


def test_it_reports_actions_missing_from_outcomes_and_outcomes_for_unknown_actions():
    source = KUMO_MODULE.replace('"Bark Scrape"]', '"Bark Scrape", "Sap Test"]').replace(
        '"Bark Scrape": {', '"Bark Scrapes": {'
    )

    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module(source, "orchard", strict=False)

    assert caught.value.problems == [
        "action 'Bark Scrape' is in the action list 'Inspections' but has no entry in Outcomes",
        "action 'Sap Test' is in the action list 'Inspections' but has no entry in Outcomes",
        f"line {line_of(source, 'Bark Scrapes')}: Outcomes has an entry for 'Bark Scrapes', "
        "which is not in the action list 'Inspections'",
    ]


def test_it_reports_unsupported_types_and_mismatched_state_keys():
    source = KUMO_MODULE.replace('"type": "float"', '"type": "number"').replace(
        '"clean": {', '("a", 1): {'
    )

    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module(source, "orchard", strict=False)

    trap_line = line_of(source, '"Trap Count": {')
    leaf_line = line_of(source, '"Leaf Check": {')
    assert caught.value.problems == [
        f"line {trap_line}: action 'Trap Count': type 'number' is not 'str' or 'float'",
        f"line {leaf_line}: action 'Leaf Check': "
        "every state of a 'str' action must be a string label",
    ]


LEGACY_MODULE = textwrap.dedent(
    """
    Pests = ['Aphid', 'Codling Moth', 'Spider Mite', 'Aphid', 'Sawfly']
    Inspections = ['Leaf Check', 'Trap Count', 'Egg Count']
    Outcomes = {
        'Leaf Check': {'type': 'str', 'states': {'clean': {'Aphid'}, 'webbing': set()}},
        'Trap Count': {'type': 'float', 'states': {(0, 30): {'Codling Moth'}, (30, 90): set()}},
        'Egg Count': {'type': 'int', 'states': {1: {'Spider Mite'}, 2: set()}},
    }
    """
)


def test_strict_import_rejects_legacy_issues():
    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module(LEGACY_MODULE, "orchard")

    assert caught.value.problems == [
        "line 2: truth 'Aphid' is listed twice in 'Pests'; the second copy is ignored",
        "line 7: action 'Egg Count': legacy type 'int' with integer states; read as 'str' labels",
        "truth 'Sawfly' is not ruled out by any state of any action",
    ]


def test_lenient_import_returns_the_domain_with_warnings_for_legacy_issues():
    domain, warnings = domain_from_kumo_module(LEGACY_MODULE, "orchard", strict=False)

    assert domain.truths == ("Aphid", "Codling Moth", "Spider Mite", "Sawfly")
    egg = domain.action("Egg Count")
    assert egg.type == "str"
    assert [state.label for state in egg.states] == ["1", "2"]
    assert warnings == [
        "line 2: truth 'Aphid' is listed twice in 'Pests'; the second copy is ignored",
        "line 7: action 'Egg Count': legacy type 'int' with integer states; read as 'str' labels",
        "truth 'Sawfly' is not ruled out by any state of any action",
    ]
    # Only the legacy issues are tolerated: the domain is otherwise valid.
    assert validate_domain(domain) == ["truth 'Sawfly' is not ruled out by any state of any action"]


def test_lenient_import_reads_int_ranges_as_float_ranges_and_repeated_keys_as_python_does():
    source = LEGACY_MODULE.replace(
        "{1: {'Spider Mite'}, 2: set()}", "{(0, 5): {'Spider Mite'}, (5, 9): set()}"
    ).replace("'webbing': set()", "'webbing': set(), 'clean': {'Sawfly'}")

    domain, warnings = domain_from_kumo_module(source, "orchard", strict=False)

    egg = domain.action("Egg Count")
    assert egg.type == "float"
    assert [state.range for state in egg.states] == [(0.0, 5.0), (5.0, 9.0)]
    leaf = domain.action("Leaf Check")
    assert [(state.label, state.rules_out) for state in leaf.states] == [
        ("clean", frozenset({"Sawfly"})),
        ("webbing", frozenset()),
    ]
    assert warnings == [
        "line 2: truth 'Aphid' is listed twice in 'Pests'; the second copy is ignored",
        "line 5: action 'Leaf Check' lists state 'clean' twice; "
        "the later one is used, as Python does",
        "line 7: action 'Egg Count': legacy type 'int' with (lo, hi) states; "
        "read as 'float' ranges",
        # 'Aphid' is now only in the overridden 'clean' state, so nothing rules it out.
        "truth 'Aphid' is not ruled out by any state of any action",
    ]


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            "'clean': {'Aphid'}",
            "'clean': {'Aphid', 'Weevil'}",
            "action 'Leaf Check': state 'clean' rules out unknown truth 'Weevil'",
        ),
        (
            "(30, 90): set()",
            "(30, 90): {'Codling Moth'}",
            "action 'Trap Count': truth 'Codling Moth' is ruled out by every state "
            "(it could never survive this action)",
        ),
        (
            "(30, 90): set()",
            "(29, 90): set()",
            "action 'Trap Count': ranges [0, 30] and [29, 90] overlap",
        ),
        (
            "'clean': {'Aphid'}, ",
            "",
            "action 'Leaf Check': has 1 state(s); every action needs at least two",
        ),
    ],
)
def test_lenient_import_still_raises_for_real_errors(old, new, problem):
    source = LEGACY_MODULE.replace(old, new)
    assert source != LEGACY_MODULE

    with pytest.raises(DomainError) as caught:
        domain_from_kumo_module(source, "orchard", strict=False)

    # Legacy issues are not repeated as errors in lenient mode.
    assert caught.value.problems == [problem]


def test_a_kumo_module_and_its_json_export_give_the_same_domain():
    domain = domain_from_kumo_module(KUMO_MODULE, "orchard")

    assert domain_from_json(json.dumps(domain_to_json(domain))) == domain
