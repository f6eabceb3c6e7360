"""The simple-reasoning family (engine.core.families.simple): deterministic generation by
seed, exact scorers that accept every correct answer form, corrupted answers refused, the
travel optimum exact, replies parsed like the KUMO runner's, and nothing hidden in public."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.families.base import FamilyError, get_family
from engine.core.families.simple import _neighbours

FAMILY = get_family("simple")
KINDS = list(FAMILY.kinds)
LEVELS = ["easy", "medium", "hard"]
seeds = st.integers(min_value=0, max_value=2**40)


@pytest.mark.parametrize(("kind", "level"), list(itertools.product(KINDS, LEVELS)))
def test_generation_is_deterministic_by_seed_and_varies_with_it(kind, level):
    first = FAMILY.generate(kind, 11, level=level)
    assert FAMILY.generate(kind, 11, level=level) == first
    others = {FAMILY.generate(kind, seed, level=level).public["text"] for seed in range(12)}
    assert len(others) >= 8  # different seeds, different tasks (a trivial level may repeat)
    json.dumps(first.public), json.dumps(first.hidden)  # JSON-safe both


@pytest.mark.parametrize(("kind", "level"), list(itertools.product(KINDS, LEVELS)))
@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_the_reference_answer_scores_one(kind, level, seed):
    instance = FAMILY.generate(kind, seed, level=level)
    score = FAMILY.score(instance, FAMILY.reference_answer(instance))
    assert score.correct and score.value == 1.0


@pytest.mark.parametrize(("kind", "level"), list(itertools.product(["counting", "math"], LEVELS)))
@settings(max_examples=25, deadline=None)
@given(seed=seeds, delta=st.integers(min_value=1, max_value=50), sign=st.sampled_from([-1, 1]))
def test_numbers_in_every_usual_form_score_one_and_wrong_numbers_zero(
    kind, level, seed, delta, sign
):
    instance = FAMILY.generate(kind, seed, level=level)
    answer = instance.hidden["answer"]
    for form in (
        str(answer),
        f" {answer} ",
        f"{answer}.",
        f"{answer}.0",
        f"{answer:,}",
        f"**{answer}**",
        f"+{answer}",
    ):
        assert FAMILY.score(instance, form).correct, form
    assert not FAMILY.score(instance, str(answer + sign * delta)).correct
    for junk in ("", "many", "12 or 13", "1,2,3", "0x10"):
        assert FAMILY.score(instance, junk).value == 0.0


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=25, deadline=None)
@given(seed=seeds, negate=st.integers(min_value=0, max_value=1))
def test_truth_values_in_every_form_and_the_negation_flips_the_answer(level, seed, negate):
    kind = FAMILY.kinds["logic"]
    params = {**kind.levels[level], "negate": negate}
    instance = FAMILY.generate("logic", seed, params)
    flipped = FAMILY.generate("logic", seed, {**params, "negate": 1 - negate})
    assert instance.hidden["answer"] == (not flipped.hidden["answer"])
    truth = instance.hidden["answer"]
    forms = ("true", "True.", "YES", "t", "1") if truth else ("false", "False.", "no", "F", "0")
    wrong = ("false", "no") if truth else ("true", "yes")
    for form in forms:
        assert FAMILY.score(instance, form).correct, form
    for form in wrong:
        assert not FAMILY.score(instance, form).correct
    assert not FAMILY.score(instance, "maybe").correct


def route_cost(instance, route):
    links = {frozenset((a, b)): (h, c) for a, b, h, c in instance.hidden["links"]}
    legs = [links[frozenset(pair)] for pair in zip(route, route[1:], strict=False)]
    return sum(h for h, _ in legs), sum(c for _, c in legs)


def all_simple_routes(instance):
    graph = _neighbours(
        {(a, b): {"hours": h, "cost": c} for a, b, h, c in instance.hidden["links"]}
    )
    start, end = instance.public["start"], instance.public["end"]
    stack = [[start]]
    while stack:
        route = stack.pop()
        if route[-1] == end:
            yield route
            continue
        for nxt, _, _ in graph[route[-1]]:
            if nxt not in route:
                stack.append(route + [nxt])


@pytest.mark.parametrize("level", ["easy", "medium"])
@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_travel_the_optimum_is_exact_and_every_feasible_route_is_accepted(level, seed):
    instance = FAMILY.generate("travel", seed, level=level)
    budget = instance.hidden["budget"]
    feasible = [r for r in all_simple_routes(instance) if route_cost(instance, r)[1] <= budget]
    assert feasible, "the budget always admits a route"
    best = min(route_cost(instance, r)[0] for r in feasible)
    assert instance.hidden["optimum_hours"] == best
    for route in feasible:
        score = FAMILY.score(instance, " -> ".join(route))
        assert score.correct and score.details["optimal"] == (
            route_cost(instance, route)[0] == best
        )
    for route in all_simple_routes(instance):
        if route_cost(instance, route)[1] > budget:
            score = FAMILY.score(instance, " -> ".join(route))
            assert not score.correct and "over the budget" in score.details["error"]


@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_travel_routes_in_every_notation_and_broken_routes(seed):
    instance = FAMILY.generate("travel", seed, level="medium")
    route = instance.hidden["route"]
    for form in (
        " -> ".join(route),
        ", ".join(route),
        " to ".join(route).upper(),
        " → ".join(city.lower() for city in route),
        json.dumps(route),
        "\n".join(route),
    ):
        assert FAMILY.score(instance, form).correct, form
    assert not FAMILY.score(instance, " -> ".join(reversed(route))).correct
    assert not FAMILY.score(instance, " -> ".join(route + route[-1:])).correct  # a repeat
    assert not FAMILY.score(instance, " -> ".join([route[0], "Atlantis", route[-1]])).correct
    if len(route) > 2:
        assert not FAMILY.score(instance, " -> ".join(route[:1] + route[2:])).correct or (
            # dropping a stop may still be a direct (and feasible) connection
            route_cost(instance, route[:1] + route[2:])[1] <= instance.hidden["budget"]
        )


@pytest.mark.parametrize("kind", KINDS)
def test_the_public_view_never_holds_the_hidden_part(kind):
    for seed in range(20):
        instance = FAMILY.generate(kind, seed, level="medium")
        assert set(instance.public) & set(instance.hidden) == set()
        assert "answer" not in instance.public and "route" not in instance.public
        if kind == "travel":
            text = instance.public["text"]
            assert "optimum" not in text and " -> ".join(instance.hidden["route"]) not in text


def test_replies_are_parsed_like_the_kumo_runners():
    instance = FAMILY.generate("math", 3, level="easy")
    answer = instance.hidden["answer"]
    chatty = f"Let me think.\nAnswer: 1\nWait, I erred.\n**Final answer:** {answer}"
    parsed = FAMILY.parse_reply(instance, chatty)
    assert parsed.answer == f"{answer}" and not parsed.error
    assert FAMILY.score(instance, parsed.answer).correct
    assert FAMILY.parse_reply(instance, str(answer)).answer == str(answer)
    missing = FAMILY.parse_reply(instance, "I think about it.\nIt is hard.\nNo idea really.")
    assert missing.answer is None and "no line" in missing.error
    assert FAMILY.parse_reply(instance, "  ").error == "the reply is empty"
    prompt = FAMILY.prompt(instance)
    assert prompt.startswith(instance.public["text"]) and "Answer: <a whole number>" in prompt


def test_bad_requests_are_refused_with_a_reason():
    with pytest.raises(FamilyError, match="no kind 'poetry'"):
        FAMILY.generate("poetry", 1)
    with pytest.raises(FamilyError, match="no level 'insane'"):
        FAMILY.generate("math", 1, level="insane")
    with pytest.raises(FamilyError, match="depth must be between 1 and 5"):
        FAMILY.generate("math", 1, {"depth": 9})
    with pytest.raises(FamilyError, match="no parameter 'colour'"):
        FAMILY.generate("math", 1, {"colour": 2})
    with pytest.raises(FamilyError, match="non-negative"):
        FAMILY.generate("math", -1)
    with pytest.raises(FamilyError, match="no task family"):
        get_family("nope")
