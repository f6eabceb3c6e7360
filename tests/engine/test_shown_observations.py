"""Observations as people read them (``Action.shown``): numbers rounded with their unit,
never rounded across into another outcome's range; labels in words. The raw value stays
what the game, the book and the API's ``observation`` use."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.views import render_book
from tests.engine.builders import float_action, str_action

TRAP = dataclasses.replace(
    float_action("Sticky Trap Count", ((0, 4.999), set()), ((5, 29.9), set()), ((30, 200), set())),
    unit="insects per trap",
)
TEMPERATURE = dataclasses.replace(
    float_action("Body Temperature", ((35, 37.5), set()), ((37.5, 42), set())), unit=" °C "
)
LEAF = str_action("Leaf Check", ("heavy_webbing", set()), ("clean", set()), ("a__b_", set()))


@pytest.mark.parametrize(
    ("action", "observation", "shown"),
    [
        (TEMPERATURE, 37.8124, "37.81 °C"),
        (TEMPERATURE, 37.0, "37 °C"),
        (TRAP, 123.456, "123.5 insects per trap"),
        (TRAP, 0.012345, "0.012 insects per trap"),
        (TRAP, 0.0001, "0 insects per trap"),
        # 4.9981 rounds to 5.00, which is the next outcome's: one more digit keeps it apart.
        (TRAP, 4.9981, "4.998 insects per trap"),
        (TRAP, 29.95, "29.95 insects per trap"),
        (LEAF, "heavy_webbing", "heavy webbing"),
        (LEAF, "clean", "clean"),
        (LEAF, "a__b_", "a b"),
    ],
)
def test_an_observation_is_shown_rounded_with_its_unit_or_in_words(action, observation, shown):
    assert action.shown(observation) == shown


def test_a_number_without_a_unit_is_shown_bare():
    plain = float_action("Count", ((0, 10), set()))
    assert plain.shown(3.14159) == "3.14"
    assert plain.shown(250.0) == "250"  # outside every range: still rounded, never refused


@given(
    st.one_of(
        st.floats(min_value=0, max_value=4.999),
        st.floats(min_value=5, max_value=29.9),
        st.floats(min_value=30, max_value=200),
    )
)
def test_rounding_never_moves_a_number_into_another_outcome(value):
    number = float(TRAP.shown(value).split()[0])
    assert TRAP.state_for(number) is TRAP.state_for(value)
    assert abs(number - value) <= 0.05


def test_the_book_on_the_page_shows_quoted_labels_in_words():
    html = render_book("- If the result is 'heavy_webbing' (see the_notes): rule out Aphid.")
    assert "'heavy webbing'" in html and "heavy_webbing" not in html
    assert "the_notes" in html  # only quoted labels change
