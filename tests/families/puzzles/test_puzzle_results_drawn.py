"""A finished puzzle's result drawn as its grid: the player's squares right, wrong or left
empty, the solution on the same grid, the result box red-toned when not correct; nothing
marked while a ranked attempt's reference stays secret."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from engine import families
from engine.core.families.base import FamilyInstance, get_family
from engine.core.families.display import check_display
from engine.models import FamilyAttempt

PUZZLES = get_family("puzzles")
LR2 = get_family("lr2bench")


def tones(display) -> list[str]:
    return [cell["tone"] for row in display["rows"] for cell in row]


@pytest.mark.parametrize("kind", ["sudoku", "crossword", "dropquote", "logic_grid", "cryptogram"])
def test_a_right_answer_is_all_green_and_the_solution_is_drawn(kind):
    instance = PUZZLES.generate(kind, 3, level="easy")
    shown = PUZZLES.answer_display(instance, PUZZLES.reference_answer(instance), marked=True)
    check_display(shown)
    assert "wrong" not in tones(shown) and "missing" not in tones(shown)
    assert "right" in tones(shown)
    solution = PUZZLES.solution_display(instance)
    check_display(solution)
    assert "right" not in tones(solution) and "filled" in tones(solution)


def test_a_half_filled_sudoku_marks_wrong_and_empty_cells():
    instance = PUZZLES.generate("sudoku", 3, level="easy")
    puzzle, solution = instance.public["grid"], instance.hidden["solution"]
    empty = [(r, c) for r, row in enumerate(puzzle) for c, v in enumerate(row) if not v]
    (r1, c1), (r2, c2) = empty[:2]
    answer = [[v or "" for v in row] for row in puzzle]
    answer[r1][c1] = solution[r1][c1]
    answer[r2][c2] = solution[r2][c2] % instance.public["size"] + 1  # a wrong number
    shown = PUZZLES.answer_display(instance, json.dumps(answer), marked=True)
    assert shown["rows"][r1][c1]["tone"] == "right"
    assert shown["rows"][r2][c2]["tone"] == "wrong"
    assert tones(shown).count("missing") == len(empty) - 2
    assert shown["caption"] == f"Your grid: 1 right, 1 wrong, {len(empty) - 2} left empty"
    assert "wrong" in shown["rows"][r2][c2]["label"]
    unmarked = PUZZLES.answer_display(instance, json.dumps(answer), marked=False)
    assert not {"right", "wrong"} & set(tones(unmarked))


def test_a_logic_grid_answer_is_a_table_with_a_wrong_value_in_red():
    instance = PUZZLES.generate("logic_grid", 3, level="easy")
    people = [dict(person) for person in instance.hidden["solution"]]
    category = next(cat for cat in people[0] if cat != "names")
    people[0][category], people[1][category] = people[1][category], people[0][category]
    del people[2]
    shown = PUZZLES.answer_display(instance, json.dumps(people), marked=True)
    check_display(shown)
    cells = [cell for row in shown["rows"][1:] for cell in row[1:]]
    assert [c["tone"] for c in cells].count("wrong") == 2
    assert [c["tone"] for c in cells].count("missing") == len(people[0]) - 1
    assert any(c["label"].endswith(f"{category}: {people[0][category]}, wrong") for c in cells)


def test_a_wrong_crossword_word_is_red_on_the_grid():
    instance = PUZZLES.generate("crossword", 3, level="easy")
    solution = dict(instance.hidden["solution"])
    first, second = list(solution)[:2]
    del solution[first]
    solution[second] = "Q" * len(solution[second])
    shown = PUZZLES.answer_display(instance, json.dumps(solution), marked=True)
    assert "wrong" in tones(shown)  # a square of a word left out may be crossed by another
    assert "Q" in [cell["text"] for row in shown["rows"] for cell in row]
    assert tones(shown).count("wall") == sum(line.count("#") for line in instance.public["shape"])


def test_lr2bench_sudoku_and_drop_quote_results_are_drawn():
    sudoku = FamilyInstance(
        "lr2bench",
        "sudoku",
        {},
        0,
        {},
        {
            "gold": {
                "grid": [[4, 0, 0, 0], [0, 3, 2, 0], [0, 4, 1, 0], [0, 0, 0, 2]],
                "answer": [[4, 2, 3, 1], [1, 3, 2, 4], [2, 4, 1, 3], [3, 1, 4, 2]],
            }
        },
    )
    grid = [[4, 1, 3, 1], [1, 3, 2, 4], [2, 4, 1, 3], [3, 1, 4, 0]]
    shown = LR2.answer_display(sudoku, f"<Answer>{json.dumps(grid)}</Answer>", marked=True)
    check_display(shown)
    assert shown["rows"][0][1]["tone"] == "wrong" and shown["rows"][0][0]["tone"] == "given"
    assert shown["caption"] == "Your grid: 9 right, 1 wrong, 0 left empty"
    drop = FamilyInstance(
        "lr2bench", "drop", {}, 0, {}, {"gold": [["I", "T", "#", "I", "S"], ["#", "S", "O"]]}
    )
    half = [["I", "T", "#", "X", "X"], ["#", "X", "O"]]
    shown = LR2.answer_display(drop, f"<Answer>{json.dumps(half)}</Answer>", marked=True)
    check_display(shown)
    assert tones(shown).count("right") == 3 and tones(shown).count("wrong") == 3
    check_display(LR2.solution_display(drop))
    assert LR2.answer_display(drop, "<Answer>IT IS SO</Answer>", marked=True)["caption"].endswith(
        "0 right, 0 wrong, 6 left empty"
    )


@pytest.mark.django_db
def test_the_result_page_draws_both_grids_and_is_red_when_not_correct(make_user, play_family):
    player = make_user("grids")
    client = Client()
    client.force_login(player)
    url = play_family(client, "puzzles", "sudoku")
    attempt = FamilyAttempt.objects.select_related("task").get(player=player)
    puzzle = attempt.task.public["grid"]
    fields = {
        f"cell-{r}-{c}": str(value)
        for r, row in enumerate(puzzle)
        for c, value in enumerate(row)
        if value
    }
    first = next((r, c) for r, row in enumerate(puzzle) for c, v in enumerate(row) if not v)
    fields[f"cell-{first[0]}-{first[1]}"] = "1"
    client.post(url, fields)
    page = client.get(url).content.decode()
    assert "Not correct" in page and 'class="notice result-wrong"' in page
    assert 'id="family-answer-board"' in page and 'id="family-reference-board"' in page
    assert "tone-missing" in page and ("tone-wrong" in page or "tone-right" in page)
    state = families.attempt_state(FamilyAttempt.objects.get(pk=attempt.pk))
    check_display(state["result"]["display"])
    check_display(state["result"]["solution_display"])
