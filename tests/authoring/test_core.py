"""The Django-free parts of authoring: reading replies as data, joining continuations,
reading reviews, and the bounds of the loops."""

from __future__ import annotations

import json

import pytest

from engine.core import authoring as core
from engine.core.families.kumo.domain_io import domain_from_json
from tests.authoring.helpers import big_domain_data

PROPOSAL = core.ProposedDomain("wild-fauna", "Wild fauna", "g", "t", "a")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('Here you go:\n```json\n{"a": [1, 2]}\n```\nEnjoy!', {"a": [1, 2]}),
        ('See [1] and [2].\n{"a": "x"}', {"a": "x"}),
        ('[{"a": 1}, {"b": 2}]', [{"a": 1}, {"b": 2}]),
        (
            '{"a": "brace } inside", "b": "[not a list"}',
            {"a": "brace } inside", "b": "[not a list"},
        ),
    ],
)
def test_json_is_found_in_a_reply(text, expected):
    assert core.extract_json(text) == (expected, None)


def test_a_broken_object_is_not_mistaken_for_one_of_its_parts():
    # The outer object is broken (a trailing comma); its inner objects decode fine on
    # their own, but taking one for the config would hide the real problem.
    text = '{"truths": ["A"], "actions": [{"name": "X", "type": "str", "states": []},]}'
    value, why = core.extract_json(text)
    assert value is None and "holds no complete JSON" in why and "line 1 column" in why


@pytest.mark.parametrize("text", ["", "   ", "no json at all", "print(open('/etc/passwd'))"])
def test_text_without_json_is_reported_not_evaluated(text):
    value, why = core.extract_json(text)
    assert value is None and why


def test_a_long_garbage_reply_is_read_in_bounded_time():
    value, why = core.extract_json("{[" * 50_000)
    assert value is None and "no complete JSON" in why


def test_continuations_join_without_repeating_an_overlap_or_a_new_fence():
    assert core.join_continuation('{"a": "one two', ' three"}') == '{"a": "one two three"}'
    repeated = '{"truths": ["Aphid", "Codling Moth", '
    more = '"Codling Moth", "Sawfly"]}'
    assert core.join_continuation(repeated, more) == repeated + more  # overlap under 20 chars
    long_overlap = "x" * 10 + '"Spider Mite", "Scale Insect", '
    assert (
        core.join_continuation(long_overlap, '"Spider Mite", "Scale Insect", "Thrips"]')
        == long_overlap + '"Thrips"]'
    )
    assert core.join_continuation('{"a": ', "```json\n1}") == '{"a": 1}'


@pytest.mark.parametrize(
    "text, review",
    [
        ('{"approve": true}', core.Review(True)),
        ('```json\n{"approve": false, "problems": ["x", " "]}\n```', core.Review(False, ("x",))),
        ('{"approve": false, "problems": "one"}', core.Review(False, ("one",))),
        # An approval that still lists a problem is not an approval.
        ('{"approve": true, "problems": ["but x"]}', core.Review(False, ("but x",))),
    ],
)
def test_reviews_are_read(text, review):
    assert core.parse_review(text) == (review, None)


@pytest.mark.parametrize(
    "text",
    ["APPROVE", '{"approve": "yes"}', '{"approve": false}', '{"approve": false, "problems": 3}'],
)
def test_unreadable_reviews_are_reported(text):
    review, why = core.parse_review(text)
    assert review is None and why


def test_strip_fence_removes_one_enclosing_fence_only():
    assert core.strip_fence("```markdown\n# Book\ntext\n```") == "# Book\ntext"
    assert core.strip_fence("# Book\n```\ncode\n```\n") == "# Book\n```\ncode\n```"


class ScriptedChat:
    def __init__(self, *contents: tuple[str, str]) -> None:
        self.contents = list(contents)
        self.requests: list[tuple[str, list]] = []

    def __call__(self, kind, messages):
        self.requests.append((kind, messages))
        content, finish = self.contents.pop(0) if len(self.contents) > 1 else self.contents[0]
        return core.Reply(content=content, finish_reason=finish)


def test_config_generation_is_bounded_and_sends_back_only_the_latest_attempt():
    chat = ScriptedChat(("nope 1", "stop"), ("nope 2", "stop"), ("nope 3", "stop"))
    outcome = core.generate_config(chat, PROPOSAL, rounds=3)
    assert outcome.domain is None and len(chat.requests) == 3
    assert "no usable config after 3 round(s)" in outcome.error
    last = chat.requests[-1][1]
    assert len(last) == 4 and last[2] == {"role": "assistant", "content": "nope 2"}
    assert "nope 1" not in json.dumps(last)


def test_a_config_needs_both_outcome_types_and_multi_truth_rule_outs():
    data = big_domain_data()
    data["actions"] = [a for a in data["actions"] if a["type"] == "str"]
    requirements = core.ConfigRequirements(min_truths=50, min_actions=10)
    domain, problems = core.config_problems(data, PROPOSAL, requirements)
    assert domain is None
    assert problems == ['no action has outcome type "float"; both types are required']
    domain, problems = core.config_problems(big_domain_data(), PROPOSAL, requirements)
    assert problems == [] and domain == domain_from_json(big_domain_data())


def test_a_config_that_cannot_make_tasks_at_both_settings_is_refused(small_domain_data):
    # The small domain is valid but has 8 truths and 7 actions: Easy tasks, not Hard ones.
    requirements = core.ConfigRequirements(min_truths=5, min_actions=5)
    domain, problems = core.config_problems(small_domain_data, PROPOSAL, requirements)
    assert domain is None and len(problems) == 1
    assert problems[0].startswith("no task with 12 truths and 16 actions can be generated")


def test_float_outcomes_are_described_with_their_shared_endpoints():
    domain = domain_from_json(big_domain_data())
    action = next(a for a in domain.actions if a.type == "float")
    low, middle, high = sorted(action.states, key=lambda s: s.range)
    assert core.describe_outcome(action, low) == "at least 0 and at most 10 counts"
    assert core.describe_outcome(action, middle) == "above 10 and at most 20 counts"
    assert core.describe_outcome(action, high) == "above 20 and at most 30 counts"
