"""The game object: moves, invalid moves, the end, replay and what a client may see."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.core.families.kumo.game import Game, GameOver, GameResult, InvalidMove, Step
from engine.core.families.kumo.generate import GenerationError, generate_instance
from engine.core.families.kumo.types import Action, Domain, Instance, State
from tests.engine.strategies import domains

# Labels and numbers are chosen so that none of them occurs inside any other public string
# (truth names, action names, messages): scanning the JSON text for them is then meaningful.
DOMAIN = Domain(
    name="clinic",
    title="Clinic",
    truths=("Asthma", "Influenza", "Pneumonia", "Lung Cancer", "Measles"),
    actions=(
        Action(
            "Chest X-Ray",
            "str",
            (
                State(frozenset({"Pneumonia", "Lung Cancer"}), label="xr-clear"),
                State(frozenset({"Asthma"}), label="xr-shadow"),
            ),
        ),
        Action(
            "Throat Swab",
            "str",
            (
                State(frozenset({"Influenza", "Measles"}), label="swab-negative"),
                State(frozenset({"Asthma", "Lung Cancer"}), label="swab-positive"),
            ),
        ),
        Action(
            "Peak Flow",
            "float",
            (
                State(frozenset({"Asthma"}), range=(400.0, 700.0)),
                State(frozenset(), range=(100.0, 400.0)),
            ),
            unit="L/min",
        ),
        Action(
            "Rash Check",
            "str",
            (
                State(frozenset({"Measles"}), label="rash-absent"),
                State(frozenset(), label="rash-present"),
            ),
        ),
    ),
)

# Measles is in the domain but not in the task, so eliminated() must never report it.
INSTANCE = Instance(
    truths=("Pneumonia", "Asthma", "Influenza", "Lung Cancer"),
    actions=("Throat Swab", "Chest X-Ray", "Peak Flow", "Rash Check"),
    observations={
        "Chest X-Ray": "xr-shadow",
        "Throat Swab": "swab-negative",
        "Peak Flow": 237.5,
        "Rash Check": "rash-absent",
    },
    valid_truths=("Pneumonia",),
    seed=7,
)


def new_game() -> Game:
    return Game(DOMAIN, INSTANCE)


# -- taking actions ------------------------------------------------------------------------


def test_taking_an_action_returns_its_observation():
    game = new_game()

    assert game.take_action("Chest X-Ray") == "xr-shadow"
    assert game.take_action("Peak Flow") == 237.5
    assert game.actions_taken == 2
    assert game.history == (
        Step("action", "Chest X-Ray", observation="xr-shadow"),
        Step("action", "Peak Flow", observation=237.5),
    )


def test_it_matches_action_names_ignoring_case_and_extra_whitespace():
    game = new_game()

    assert game.take_action("  chest   x-ray ") == "xr-shadow"
    assert game.history[0].name == "Chest X-Ray"
    assert game.invalid_moves == 0


def test_it_does_not_ignore_punctuation_when_matching_names():
    game = new_game()

    with pytest.raises(InvalidMove, match="'chest xray' is not one of this task's actions"):
        game.take_action("chest xray")


def test_it_counts_an_unknown_action_as_invalid_and_goes_on():
    game = new_game()

    with pytest.raises(InvalidMove) as raised:
        game.take_action("MRI")

    assert str(raised.value) == "'MRI' is not one of this task's actions"
    assert game.invalid_moves == 1
    assert game.actions_taken == 0
    assert not game.finished
    assert game.history == (
        Step("invalid", "MRI", error="'MRI' is not one of this task's actions", attempted="action"),
    )
    assert game.take_action("Chest X-Ray") == "xr-shadow"


def test_it_counts_an_action_of_the_domain_outside_the_task_as_invalid():
    instance = Instance(
        truths=INSTANCE.truths,
        actions=("Chest X-Ray", "Peak Flow"),
        observations={"Chest X-Ray": "xr-shadow", "Peak Flow": 237.5},
        valid_truths=("Pneumonia",),
        seed=0,
    )
    game = Game(DOMAIN, instance)

    with pytest.raises(InvalidMove, match="'Rash Check' is not one of this task's actions"):
        game.take_action("Rash Check")
    assert game.invalid_moves == 1


def test_it_counts_a_repeated_action_as_invalid():
    game = new_game()
    game.take_action("Chest X-Ray")

    with pytest.raises(InvalidMove, match="'Chest X-Ray' was already taken"):
        game.take_action("chest x-ray")

    assert game.actions_taken == 1
    assert game.invalid_moves == 1
    assert game.history[-1].kind == "invalid"
    assert game.history[-1].name == "chest x-ray"


def test_it_counts_a_move_that_is_not_text_as_invalid():
    game = new_game()

    with pytest.raises(InvalidMove, match="None is not one of this task's actions"):
        game.take_action(None)  # type: ignore[arg-type]

    assert game.invalid_moves == 1


def test_an_ambiguous_forgiving_match_is_invalid_and_asks_for_the_exact_name():
    x_ray, swab = DOMAIN.actions[0], DOMAIN.actions[1]
    shouting = Action("CHEST X-RAY", "str", x_ray.states)
    domain = Domain(name="d", truths=DOMAIN.truths, actions=(x_ray, shouting, swab))
    instance = Instance(
        truths=("Asthma", "Pneumonia"),
        actions=("Chest X-Ray", "CHEST X-RAY"),
        observations={"Chest X-Ray": "xr-shadow", "CHEST X-RAY": "xr-shadow"},
        valid_truths=("Pneumonia",),
        seed=0,
    )
    game = Game(domain, instance)

    with pytest.raises(InvalidMove, match="matches more than one .* use the exact name"):
        game.take_action("chest x-ray")
    assert game.take_action("CHEST X-RAY") == "xr-shadow"  # exact names still work
    assert game.invalid_moves == 1


def test_remaining_actions_shrink_and_are_listed_alphabetically():
    game = new_game()
    assert game.remaining_actions == ("Chest X-Ray", "Peak Flow", "Rash Check", "Throat Swab")

    game.take_action("Peak Flow")

    assert game.remaining_actions == ("Chest X-Ray", "Rash Check", "Throat Swab")


# -- answering -----------------------------------------------------------------------------


def test_a_correct_answer_ends_the_game_with_a_correct_result():
    game = new_game()
    game.take_action("Chest X-Ray")

    result = game.answer("pneumonia")

    assert result == GameResult(
        correct=True, answer="Pneumonia", valid_truth="Pneumonia", actions_taken=1, invalid_moves=0
    )
    assert game.finished
    assert game.result == result
    assert game.history[-1] == Step("answer", "Pneumonia", attempted="answer")


def test_a_wrong_answer_ends_the_game_with_an_incorrect_result():
    game = new_game()

    result = game.answer("Asthma")

    assert not result.correct
    assert result.answer == "Asthma"
    assert result.valid_truth == "Pneumonia"
    assert game.finished


def test_an_answer_outside_the_truth_list_is_invalid_and_does_not_end_the_game():
    game = new_game()

    # Measles is in the domain's pool but not one of this task's truths.
    with pytest.raises(InvalidMove, match="'Measles' is not one of this task's truths"):
        game.answer("Measles")

    assert not game.finished
    assert game.result is None
    assert game.invalid_moves == 1
    assert game.history[-1].attempted == "answer"
    assert game.answer("Pneumonia").invalid_moves == 1


def test_moves_after_the_end_raise_game_over_and_change_nothing():
    game = new_game()
    game.take_action("Rash Check")
    game.answer("Influenza")
    before = (game.history, game.result, game.invalid_moves, game.public_state())

    with pytest.raises(GameOver, match="the game is over"):
        game.take_action("Chest X-Ray")
    with pytest.raises(GameOver):
        game.answer("Pneumonia")
    with pytest.raises(GameOver):
        game.take_action("no such action")

    assert (game.history, game.result, game.invalid_moves, game.public_state()) == before


def test_game_over_is_an_invalid_move_so_generic_handlers_report_it():
    assert issubclass(GameOver, InvalidMove)
    assert issubclass(InvalidMove, ValueError)


# -- derived state -------------------------------------------------------------------------


def test_eliminated_collects_the_task_truths_ruled_out_by_what_was_seen():
    game = new_game()
    assert game.eliminated() == frozenset()

    game.take_action("Chest X-Ray")  # xr-shadow rules out Asthma
    game.take_action("Throat Swab")  # swab-negative rules out Influenza (and Measles)
    game.take_action("Peak Flow")  # 237.5 rules out nothing
    game.take_action("Rash Check")  # rash-absent rules out Measles, not in the task

    assert game.eliminated() == frozenset({"Asthma", "Influenza"})


def test_it_refuses_an_instance_that_does_not_fit_the_domain():
    broken = Instance(
        truths=INSTANCE.truths,
        actions=("Chest X-Ray", "Ultrasound"),
        observations={"Chest X-Ray": "xr-blurry"},
        valid_truths=("Pneumonia",),
        seed=0,
    )

    with pytest.raises(ValueError) as raised:
        Game(DOMAIN, broken)

    assert "'xr-blurry' is not an outcome of 'Chest X-Ray'" in str(raised.value)
    assert "'Ultrasound' is not an action of the domain" in str(raised.value)


# -- what a client may see -----------------------------------------------------------------


def test_public_state_before_the_end_reveals_no_secret():
    game = new_game()
    game.take_action("Chest X-Ray")
    with pytest.raises(InvalidMove):
        game.take_action("Blood Test")
    with pytest.raises(InvalidMove):
        game.answer("Gout")

    state = game.public_state()
    text = json.dumps(state)

    assert "valid_truth" not in text
    assert state["result"] is None
    # Every truth appears exactly once (in the truth list), so the valid one is not singled
    # out anywhere else.
    for truth in INSTANCE.truths:
        assert text.count(json.dumps(truth)) == 1, truth
    # The played observation is there; no unplayed one is.
    assert "xr-shadow" in text
    for unplayed in ("swab-negative", "237.5", "rash-absent"):
        assert unplayed not in text
    # The scan is meaningful: once played, each of those observations does show up.
    for action in ("Throat Swab", "Peak Flow", "Rash Check"):
        game.take_action(action)
    text = json.dumps(game.public_state())
    for played in ("swab-negative", "237.5", "rash-absent"):
        assert played in text


def test_public_state_after_the_end_includes_the_result_and_the_valid_truth():
    game = new_game()
    game.take_action("Throat Swab")
    game.answer("Asthma")

    state = json.loads(json.dumps(game.public_state()))

    assert state["finished"] is True
    assert state["valid_truth"] == "Pneumonia"
    assert state["result"] == {
        "correct": False,
        "answer": "Asthma",
        "valid_truth": "Pneumonia",
        "actions_taken": 1,
        "invalid_moves": 0,
    }
    assert state["steps"] == [
        {"kind": "action", "name": "Throat Swab", "observation": "swab-negative", "error": None},
        {"kind": "answer", "name": "Asthma", "observation": None, "error": None},
    ]
    # Unplayed observations stay hidden even at the end.
    assert "xr-shadow" not in json.dumps(state)


def test_public_state_lists_truths_and_actions_alphabetically_not_in_instance_order():
    state = new_game().public_state()

    assert state["truths"] == ["Asthma", "Influenza", "Lung Cancer", "Pneumonia"]
    assert state["actions"] == ["Chest X-Ray", "Peak Flow", "Rash Check", "Throat Swab"]
    assert state["remaining_actions"] == state["actions"]


# -- replay --------------------------------------------------------------------------------


def test_replay_rebuilds_the_same_game_and_recounts_invalid_moves():
    game = new_game()
    game.take_action("Chest X-Ray")
    for bad in (lambda: game.take_action("chest x-ray"), lambda: game.answer("Gout")):
        with pytest.raises(InvalidMove):
            bad()
    game.take_action("peak flow")
    game.answer("Pneumonia")

    replayed = Game.replay(DOMAIN, INSTANCE, game.moves)

    assert replayed.history == game.history
    assert replayed.result == game.result
    assert replayed.invalid_moves == 2


def test_replay_accepts_moves_stored_as_json_lists():
    moves = json.loads('[["action", "Rash Check"], ["action", "Nope"], ["answer", "Asthma"]]')

    game = Game.replay(DOMAIN, INSTANCE, moves)

    assert game.finished
    assert game.result == GameResult(False, "Asthma", "Pneumonia", 1, 1)


def test_replay_of_an_unfinished_game_leaves_it_open():
    game = Game.replay(DOMAIN, INSTANCE, [("action", "Peak Flow")])

    assert not game.finished
    assert game.take_action("Rash Check") == "rash-absent"


def test_replay_rejects_a_move_after_the_answer():
    moves = [("answer", "Asthma"), ("action", "Peak Flow")]

    with pytest.raises(GameOver, match="move 2 .* comes after the game ended"):
        Game.replay(DOMAIN, INSTANCE, moves)


@pytest.mark.parametrize("move", [("guess", "Asthma"), ("action",), "action", ("a", "b", "c")])
def test_replay_rejects_a_malformed_move(move):
    with pytest.raises(ValueError, match="move 1"):
        Game.replay(DOMAIN, INSTANCE, [move])


# -- properties over generated domains -----------------------------------------------------


@st.composite
def games_with_moves(draw: st.DrawFn) -> tuple[Domain, Instance, list[tuple[str, str]]]:
    """A generated instance and a random stream of moves, legal and not."""
    domain = draw(domains())
    n_truths = draw(st.integers(2, len(domain.truths)))
    n_actions = draw(st.integers(1, len(domain.actions)))
    try:
        instance = generate_instance(domain, n_truths, n_actions, seed=draw(st.integers(0, 999)))
    except GenerationError:
        assume(False)
    names = st.sampled_from([*instance.actions, *domain.actions_by_name, "nothing"])
    action_text = names | names.map(str.upper) | st.text(max_size=8)
    truth_text = st.sampled_from([*instance.truths, *domain.truths]) | st.text(max_size=8)
    move = st.tuples(st.just("action"), action_text) | st.tuples(st.just("answer"), truth_text)
    moves = draw(st.lists(move, max_size=20))
    return domain, instance, moves


def play(game: Game, moves: list[tuple[str, str]]) -> None:
    for kind, name in moves:
        try:
            if kind == "action":
                game.take_action(name)
            else:
                game.answer(name)
        except GameOver:
            return
        except InvalidMove:
            pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_with_moves())
def test_any_stream_of_moves_keeps_the_game_consistent(case):
    domain, instance, moves = case
    game = Game(domain, instance)

    play(game, moves)

    answered = 1 if game.finished else 0
    assert len(game.history) == game.actions_taken + game.invalid_moves + answered
    assert game.actions_taken + len(game.remaining_actions) == len(instance.actions)
    # Generated instances never rule out the valid truth.
    assert instance.valid_truth not in game.eliminated()
    state = game.public_state()
    text = json.dumps(state)
    assert ("valid_truth" in text) == game.finished
    seen = {step["name"] for step in state["steps"] if step["kind"] == "action"}
    for step in state["steps"]:
        if step["kind"] == "action":
            assert step["observation"] == instance.observations[step["name"]]
    assert seen == set(instance.actions) - set(game.remaining_actions)
    # Replaying the recorded moves gives back the same game.
    replayed = Game.replay(domain, instance, game.moves)
    assert replayed.history == game.history
    assert replayed.result == game.result
    assert replayed.invalid_moves == game.invalid_moves
