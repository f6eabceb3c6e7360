"""Two games played to the end in a real browser (Debian's chromium) as a person would:
a maze walked move by move and a Tower of Hanoi, each move typed into the page and shown
back; a refused move says why and changes nothing; nothing secret on the page."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from playwright.sync_api import expect

from engine.core.families.base import get_family
from engine.models import FamilyAttempt
from tests.browser.test_play_page import PASSWORD, BrowserTestCase, orm

GAMES = get_family("games")


class GamePlayTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        User.objects.create_user("walker", password=PASSWORD)

    def play(self, kind: str, bad_move: str, reason: str):
        self.store_task("games", kind, "easy")
        page = self.start_browser()
        self.log_in(page, "walker", PASSWORD, "/families/")
        page.locator(f'tr[data-kind="{kind}"]').get_by_role(
            "button", name="easy", exact=True
        ).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        attempt = orm(
            lambda: FamilyAttempt.objects.select_related("task").get(
                player__username="walker", task__kind=kind
            )
        )
        page.fill("#move", bad_move)
        page.get_by_role("button", name="Play").click()
        expect(page.get_by_role("alert")).to_contain_text(reason)
        moves = GAMES.reference_answer(attempt.task.to_core()).splitlines()
        for number, move in enumerate(moves, 1):
            page.fill("#move", move)
            page.keyboard.press("Enter")
            if number < len(moves):
                expect(page.locator("#game-log li")).to_have_count(number)
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        expect(page.locator("#game-score")).to_contain_text("1.000")
        done = orm(lambda: FamilyAttempt.objects.get(pk=attempt.pk))
        played = orm(done.played_moves)
        assert done.correct and done.invalid_moves == 1 and played == moves

    def test_a_maze_walked_to_the_goal(self):
        self.play("maze", "fly", "north, south, east or west")

    def test_a_tower_of_hanoi_gathered_on_c(self):
        self.play("hanoi", "A A", "two different pegs")

    def test_an_eight_puzzle_played_with_the_arrow_keys(self):
        """Arrow keys play moves (each page shows the board after the last one); a key that
        names a move the board does not allow is refused like a typed one."""
        self.store_task("games", "eight_puzzle", "easy")
        page = self.start_browser()
        self.log_in(page, "walker", PASSWORD, "/families/")
        page.locator('tr[data-kind="eight_puzzle"]').get_by_role(
            "button", name="easy", exact=True
        ).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        attempt = orm(
            lambda: FamilyAttempt.objects.select_related("task").get(
                player__username="walker", task__kind="eight_puzzle"
            )
        )
        task = attempt.task.to_core()
        expect(page.locator("#game-view")).to_have_text(task.public["view"])
        keys = {move: key for key, move in GAMES.keys("eight_puzzle").items()}
        blank = task.public["board"].index(0)
        blocked = "up" if blank < 3 else "down" if blank > 5 else None
        if blocked:  # the blank is on an edge row: that arrow is refused
            page.locator("body").press(keys[blocked])
            expect(page.get_by_role("alert")).to_contain_text(f"cannot move {blocked}")
        moves = GAMES.reference_answer(task).splitlines()
        history: list[str] = []
        for number, move in enumerate(moves, 1):
            page.locator("body").press(keys[move])
            view = GAMES.step(task, history, move)["observation"]["view"]
            history.append(move)
            expect(page.locator("#game-view")).to_have_text(view)
            if number < len(moves):
                expect(page.locator("#game-log li")).to_have_count(number)
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        done = orm(lambda: FamilyAttempt.objects.get(pk=attempt.pk))
        played = orm(done.played_moves)
        assert done.correct and played == moves and done.invalid_moves == (1 if blocked else 0)

    def test_moves_go_over_the_pages_socket_and_reach_a_second_tab(self):
        """Once the page's socket is open, a move is played without loading the page again,
        and a second tab on the same game is shown it; the end loads both pages again, with
        the result."""
        self.store_task("games", "maze", "easy")
        page = self.start_browser()
        self.log_in(page, "walker", PASSWORD, "/families/")
        page.locator('tr[data-kind="maze"]').get_by_role("button", name="easy", exact=True).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        attempt = orm(
            lambda: FamilyAttempt.objects.select_related("task").get(
                player__username="walker", task__kind="maze"
            )
        )
        other = page.context.new_page()
        other.goto(page.url)
        for tab in (page, other):
            tab.wait_for_function("window.__familySocket && window.__familySocket.readyState === 1")
            tab.evaluate("window.__sameDocument = true")
        page.fill("#move", "fly")
        page.keyboard.press("Enter")
        expect(page.locator("#game-error")).to_contain_text("north, south, east or west")
        expect(page.locator("#move-count")).to_contain_text("1 refused so far")
        expect(other.locator("#move-count")).to_contain_text("1 refused so far")
        moves = GAMES.reference_answer(attempt.task.to_core()).splitlines()
        for number, move in enumerate(moves[:-1], 1):
            page.fill("#move", move)
            page.keyboard.press("Enter")
            expect(page.locator("#game-log li")).to_have_count(number)
            expect(other.locator("#game-log li")).to_have_count(number)
            expect(page.locator("#game-error")).to_be_hidden()
        assert page.evaluate("window.__sameDocument") and other.evaluate("window.__sameDocument")
        other.fill("#move", moves[-1])  # the last move from the second tab
        other.keyboard.press("Enter")
        for tab in (page, other):
            expect(tab.locator("#family-result-heading")).to_have_text("Correct")
            assert tab.evaluate("window.__sameDocument === undefined")  # loaded again
        done = orm(lambda: FamilyAttempt.objects.get(pk=attempt.pk))
        assert done.correct and done.invalid_moves == 1 and orm(done.played_moves) == moves
