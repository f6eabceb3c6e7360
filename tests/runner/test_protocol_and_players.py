"""The conversation protocol and the built-in players, without Django or HTTP."""

from __future__ import annotations

import pytest

from benchmark.players import (
    GreedyPlayer,
    OraclePlayer,
    RandomPlayer,
    TranscribingPlayer,
    expected_ruled_out,
)
from benchmark.protocol import (
    Feedback,
    TaskView,
    classify_move,
    feedback_message,
    parse_answer,
    read_task_lists,
    system_prompt,
)
from benchmark.runner import Job, Limits, iter_games, play_game
from engine.core.families.kumo.book import write_book
from engine.core.families.kumo.domain_io import domain_from_json
from engine.core.families.kumo.generate import generate_instances
from engine.core.families.kumo.search import solve
from tests.conftest import SMALL_DOMAIN

DOMAIN = domain_from_json(SMALL_DOMAIN)
INSTANCES = generate_instances(DOMAIN, 5, 4, count=12, seed=100)


def jobs(runs: int = 1) -> list[Job]:
    return [
        Job("orchard", DOMAIN, instance, write_book(DOMAIN, instance), run)
        for run in range(runs)
        for instance in INSTANCES
    ]


@pytest.mark.parametrize(
    "reply, name",
    [
        ("I pick this.\n<ANSWER> Bark Scrape </ANSWER>", "Bark Scrape"),
        ("<answer>Aphid</answer>", "Aphid"),
        ("first <ANSWER> A </ANSWER> then <ANSWER> Sawfly </ANSWER>", "Sawfly"),
        ("<ANSWER> ${Honeydew Test} </ANSWER>", "Honeydew Test"),
        ("<ANSWER> **Fruit Fly** </ANSWER>", "Fruit Fly"),
        ("<ANSWER> 'Thrips' </ANSWER>", "Thrips"),
        ("cut off by the token limit <ANSWER> Larva Search", "Larva Search"),
        ("no tag at all: Aphid", None),
        ("<ANSWER>  </ANSWER>", None),
        ("<ANSWER> one\nline too many", None),
        ("", None),
        (None, None),
    ],
)
def test_the_answer_is_read_from_the_last_answer_tag(reply, name):
    assert parse_answer(reply) == name


def test_names_are_classified_as_the_game_matches_them():
    actions, truths = ["Bark Scrape", "Larva Search"], ["Aphid", "Sawfly"]
    assert classify_move("Bark Scrape", actions, truths) == "action"
    assert classify_move("bark  scrape", actions, truths) == "action"
    assert classify_move("SAWFLY", actions, truths) == "answer"
    # Unknown names are played as actions, so the Game counts them as invalid moves.
    assert classify_move("Saw-fly", actions, truths) == "action"


def test_the_system_prompt_lists_truths_and_actions_in_display_order_with_the_book():
    instance = INSTANCES[0]
    task = TaskView.of(DOMAIN, instance, "THE BOOK")
    prompt = system_prompt(task)
    truths, actions = read_task_lists(prompt)
    assert truths == sorted(instance.truths, key=str.casefold)
    assert actions == sorted(instance.actions, key=str.casefold)
    assert prompt.endswith("THE BOOK") and "pest" in prompt and "inspection" in prompt


def test_feedback_shows_the_observation_of_the_action_just_taken():
    task = TaskView.of(DOMAIN, INSTANCES[0], "")
    text = feedback_message(
        task, Feedback("observation", action="Leaf Temperature", observation=23.5)
    )
    assert text.startswith("Observation from previous action (Leaf Temperature): 23.5\n")
    assert "<ANSWER>" in text


def test_the_oracle_takes_exactly_the_optimal_searchs_path_and_is_always_right():
    outcomes = list(iter_games(jobs(), OraclePlayer(), Limits(), concurrency=4))
    assert len(outcomes) == len(INSTANCES)
    for outcome in outcomes:
        expected = solve(DOMAIN, outcome.job.instance)
        assert outcome.correct
        assert outcome.record["actions"] == list(expected.oracle_path)


def test_greedy_takes_the_action_ruling_out_most_truths_in_expectation():
    instance = INSTANCES[0]
    record = play_game(jobs()[0], GreedyPlayer(), Limits())
    remaining = frozenset(instance.truths)
    scores = {name: expected_ruled_out(DOMAIN, name, remaining) for name in instance.actions}
    best = max(scores.values())
    first_best = next(
        name for name in sorted(instance.actions, key=str.casefold) if scores[name] == best
    )
    assert record["actions"][0] == first_best


def test_greedy_always_ends_on_a_surviving_truth_and_so_is_right():
    outcomes = list(iter_games(jobs(), GreedyPlayer(), Limits(), concurrency=2))
    assert all(outcome.correct for outcome in outcomes)
    assert all(outcome.record["invalid_moves"] == 0 for outcome in outcomes)


def test_the_random_player_is_reproducible_from_its_seed_and_only_plays_legal_moves():
    def play(seed: int, concurrency: int) -> dict:
        outcomes = iter_games(jobs(runs=3), RandomPlayer(seed), Limits(), concurrency=concurrency)
        return {o.job.key: (o.record["actions"], o.record["answer"]) for o in outcomes}

    first, again = play(7, 1), play(7, 8)
    assert first == again
    assert play(8, 4) != first
    assert all(answer is not None for _, answer in first.values())
    outcomes = list(iter_games(jobs(runs=3), RandomPlayer(7), Limits(), concurrency=4))
    assert all(o.record["invalid_moves"] == 0 for o in outcomes)


def test_the_transcript_is_the_conversation_a_model_would_have_had():
    player = TranscribingPlayer(OraclePlayer())
    job = jobs()[0]
    record = play_game(job, player, Limits())
    messages = player.conversations[job.game_key]
    assert [m["role"] for m in messages] == ["system"] + ["user", "assistant"] * len(
        record["turns"]
    )
    assert messages[0]["content"] == system_prompt(TaskView.of(DOMAIN, job.instance, job.book))
    assert [parse_answer(m["content"]) for m in messages if m["role"] == "assistant"] == [
        *record["actions"],
        record["answer"],
    ]
