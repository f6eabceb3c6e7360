"""Our games drawn for people (``Family.display``): every kind's board is drawable at the
start, after moves and at the end, holds none of the game's secrets before the end, and the
attempt page and the API carry it (a family that fails to draw falls back to the text)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.core.families.base import get_family
from engine.core.families.display import check_display
from engine.models import FamilyAttempt

GAMES = get_family("games")
NO_BOARD = {"date_count"}  # a question of one answer: its text is the whole task


def _cells(display) -> list[dict]:
    if display["type"] == "stack":
        return [c for part in display["parts"] for c in _cells(part)]
    if display["type"] == "grid":
        return [c for row in display["rows"] for c in row]
    return [c for line in display["rows"] for c in line["items"]]


def _secrets(instance) -> list[str]:
    """The hidden part's words and codes (strings a page must not show before the end)."""
    found = []
    for key in ("secret", "code", "solution"):
        value = instance.hidden.get(key)
        if isinstance(value, str) and len(value) >= 3:
            found.append(value)
        if isinstance(value, dict):  # a cryptarithm's digits, but those it gives away
            given = instance.public.get("given", {})
            found += [f"{letter}={digit}" for letter, digit in value.items() if letter not in given]
    return found


@pytest.mark.parametrize("kind", sorted(GAMES.kinds))
@pytest.mark.parametrize("level", ["easy", "hard"])
def test_every_game_draws_its_board_at_the_start_after_moves_and_at_the_end(kind, level):
    instance = GAMES.generate(kind, 11, level=level)
    moves = GAMES.reference_answer(instance).splitlines()
    boards = [GAMES.display(instance, moves[:count]) for count in (0, 1, len(moves))]
    final = GAMES.display(instance, moves, finished=True)
    if kind in NO_BOARD:
        assert boards == [None, None, None] and final is None
        return
    for board in (*boards, final):
        check_display(board)
    assert boards[0] != boards[-1] or len(moves) <= 1  # the board follows the moves
    if not (kind == "mastermind" or kind == "wordle"):
        return
    # A code or word appears only as the guess that found it (the reference's last move).
    before = json.dumps(boards[0]) + json.dumps(GAMES.display(instance, moves[:-1]))
    texts = "".join(c["text"] for c in _cells(GAMES.display(instance, moves[:-1])))
    assert all(secret not in texts for secret in _secrets(instance)), before


@pytest.mark.parametrize("kind", sorted(set(GAMES.kinds) - NO_BOARD))
def test_no_board_shows_a_secret_before_the_end(kind):
    """Before the end a board holds nothing of the hidden part: no word, no code, no
    digit of a cryptarithm's solution."""
    instance = GAMES.generate(kind, 5, level="medium")
    moves = GAMES.reference_answer(instance).splitlines()
    for count in range(len(moves)):
        shown = json.dumps(GAMES.display(instance, moves[:count]))
        for secret in _secrets(instance):
            assert secret not in shown, (count, secret)


def test_minesweeper_shows_its_mines_only_once_the_game_has_ended():
    instance = GAMES.generate("minesweeper", 2, level="medium")
    moves = GAMES.reference_answer(instance).splitlines()
    mines = len(instance.hidden["mines"])
    for count in range(len(moves) + 1):
        tones = [c["tone"] for c in _cells(GAMES.display(instance, moves[:count]))]
        assert "mine" not in tones
    flagged = [m for m in moves if m.startswith("flag")]
    end = _cells(GAMES.display(instance, moves, finished=True))
    assert sum(c["tone"] == "mine" for c in end) == mines - len(flagged)
    assert sum(c["tone"] == "flag" for c in end) == len(flagged)
    # A flag on a safe square is marked wrong once the answer is shown.
    hidden = [
        f"flag {r + 1} {c + 1}"
        for r in range(instance.public["rows"])
        for c in range(instance.public["cols"])
        if [r, c] not in instance.hidden["mines"]
    ]
    for move in hidden:
        try:
            GAMES.step(instance, [], move)
        except Exception:  # a revealed square: try the next
            continue
        wrong = _cells(GAMES.display(instance, [move], finished=True))
        assert [c["tone"] for c in wrong].count("wrong") == 1
        break


def test_a_mine_hit_is_shown_where_it_was_hit():
    instance = GAMES.generate("minesweeper", 2, level="easy")
    r, c = instance.hidden["mines"][0]
    board = GAMES.display(instance, [f"reveal {r + 1} {c + 1}"])
    assert board["rows"][r][c]["tone"] == "mine"


def test_2048_tiles_are_coloured_by_value_and_wordle_letters_by_mark():
    instance = GAMES.generate("game_2048", 4, level="easy")
    board = GAMES.display(instance, [])
    values = instance.public["board"]
    tones = [c["tone"] for c in _cells(board)]
    assert tones == [f"tile-{v}" if v else "empty" for v in values]
    wordle = GAMES.generate("wordle", 4, level="easy")
    guess = GAMES.reference_answer(wordle).splitlines()[0]
    marks = GAMES.step(wordle, [], guess)["observation"]["marks"]
    first = GAMES.display(wordle, [guess])["rows"][0]
    assert "".join(c["text"] for c in first) == guess
    assert [c["tone"] for c in first] == [
        {"G": "hit", "Y": "near"}.get(mark, "miss") for mark in marks
    ]
    # The guesses left are drawn as empty rows.
    assert len(GAMES.display(wordle, [guess])["rows"]) == wordle.public["turn_limit"]


def test_the_solution_is_shown_as_a_player_expects_it():
    wordle = GAMES.generate("wordle", 4, level="easy")
    assert GAMES.solution_text(wordle) == wordle.hidden["secret"]
    mastermind = GAMES.generate("mastermind", 4, level="easy")
    assert GAMES.solution_text(mastermind) == mastermind.hidden["code"]
    sokoban = GAMES.generate("sokoban", 4, level="easy")
    assert GAMES.solution_text(sokoban).startswith(f"{sokoban.hidden['optimum']} moves: ")


def test_moves_are_described_in_words():
    assert GAMES.describe("sokoban", {"view": "#", "on_goals": 0}) == "0 boxes on goals"
    assert GAMES.describe("sokoban", {"view": "#", "on_goals": 1}) == "1 box on goals"
    assert GAMES.describe("maze", {"at": [1, 2], "view": "#"}) == "now at row 2, column 3"
    assert GAMES.describe("tic_tac_toe", {"opponent": "1 3", "view": ""}) == (
        "the opponent played row 1, column 3"
    )
    assert GAMES.describe("mastermind", {"guess": "RGB", "black": 1, "white": 2}) == (
        "RGB: 1 black (right place), 2 white (wrong place)"
    )


@pytest.mark.django_db
def test_the_attempt_page_draws_the_board_and_the_final_board(make_user, play_family):
    player = make_user("drawn")
    client = Client()
    client.force_login(player)
    url = play_family(client, "games", "game_2048")
    page = client.get(url).content.decode()
    assert 'id="game-board"' in page and "tone-tile-2" in page
    assert 'aria-label="tile 2"' in page or 'aria-label="tile 4"' in page
    attempt = FamilyAttempt.objects.get(player=player)
    task = attempt.task.to_core()
    for move in GAMES.reference_answer(task).splitlines():
        client.post(url, {"move": move})
    page = client.get(url).content.decode()
    assert "Correct" in page and 'id="game-board"' in page
    assert f"Make a {task.public['target']} tile" in page  # the solution in words
    assert 'class="notice result-wrong"' not in page


@pytest.mark.django_db
def test_a_board_the_family_cannot_draw_falls_back_to_the_text(
    make_user, play_family, monkeypatch, caplog
):
    player = make_user("fallback")
    client = Client()
    client.force_login(player)
    url = play_family(client, "games", "sokoban")

    def broken(self, *args, **kwargs):
        return {"type": "grid", "rows": [[{"text": "x", "tone": "no-such-tone"}]]}

    monkeypatch.setattr(type(GAMES), "display", broken)
    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="game-board"' not in page and 'id="game-view"' in page
    assert "could not be drawn" in caplog.text


@pytest.mark.django_db
def test_the_api_carries_the_board_and_the_mines_only_at_the_end(make_user):
    from engine import families

    user = make_user("api-drawn")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    [task] = families.do_generate_family_tasks("games", "minesweeper", level="easy").tasks
    attempt = client.post("/api/v1/family-attempts/", {"task": task.pk}, format="json").json()
    check_display(attempt["display"])
    assert "mine" not in json.dumps(attempt["display"]).replace("mines", "")
    for move in families.get_family("games").reference_answer(task.to_core()).splitlines():
        state = client.post(
            f"/api/v1/family-attempts/{attempt['id']}/moves/", {"move": move}, format="json"
        ).json()
    assert state["finished"] and state["result"]["correct"]
    check_display(state["display"])
