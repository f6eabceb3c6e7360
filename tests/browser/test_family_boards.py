"""Family boards drawn for people, in a real browser (see test_play_page.py for how): a
visitor signs up, plays a Sudoku and a 2048 game to the end and sees the results drawn as
grids (tiles as coloured cells, wrong and empty cells marked), on a 390 px phone and a
1280 px desktop, and no page is ever wider than its viewport."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from engine.core.families.base import get_family
from engine.models import FamilyAttempt
from tests.browser.test_play_page import BrowserTestCase, orm

PASSWORD = "a visitor's long passphrase"
GAMES = get_family("games")


class FamilyBoardTests(BrowserTestCase):
    def assert_fits(self, page: Page, where: str) -> None:
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], f"{where}: the page is {widths[0]} px wide in {widths[1]}"

    def sign_up(self, page: Page, username: str) -> None:
        page.goto(f"{self.live_server_url}/families/")
        page.locator(".site-header").get_by_role("link", name="Sign up").click()
        page.wait_for_url(f"{self.live_server_url}/accounts/signup/")
        self.assert_fits(page, "sign-up")
        page.get_by_label("Username").fill(username)
        page.get_by_label("E-mail address").fill(f"{username}@example.org")
        page.fill("#id_password1", PASSWORD)
        page.get_by_label("Password confirmation").fill(PASSWORD)
        page.get_by_role("button", name="Sign up").click()
        page.wait_for_url(f"{self.live_server_url}/account/")

    def open_kind(self, page: Page, family: str, kind: str, level: str, username: str):
        # /families/ itself is left to tests/browser/test_page_widths.py (branch h-widths).
        page.goto(f"{self.live_server_url}/families/")
        page.locator(f'tr[data-family="{family}"][data-kind="{kind}"]').get_by_role(
            "button", name=level, exact=True
        ).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        return orm(
            lambda: FamilyAttempt.objects.select_related("task").get(
                player__username=username, task__kind=kind
            )
        )

    def play_sudoku(self, page: Page, username: str) -> None:
        attempt = self.open_kind(page, "puzzles", "sudoku", "4x4", username)
        self.assert_fits(page, "a Sudoku")
        grid, solution = attempt.task.public["grid"], attempt.task.hidden["solution"]
        empties = [(r, c) for r in range(4) for c in range(4) if not grid[r][c]]
        (wrong_r, wrong_c), (left_r, left_c) = empties[0], empties[-1]
        for r, c in empties[:-1]:
            value = solution[r][c] if (r, c) != (wrong_r, wrong_c) else solution[r][c] % 4 + 1
            page.fill(f'input[name="cell-{r}-{c}"]', str(value))
        asked: list[str] = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Not correct")
        assert asked and asked[0].startswith("1 cell is still empty")
        self.assert_fits(page, "a Sudoku's result")
        result = page.locator("#family-result")
        expect(result).to_have_class(re.compile(r"\bresult-wrong\b"))
        answer = page.locator("#family-answer-board")
        expect(answer.locator("td.tone-wrong")).to_have_count(1)
        expect(answer.locator("td.tone-missing")).to_have_count(1)
        expect(answer.locator("td.tone-right")).to_have_count(len(empties) - 2)
        expect(answer.locator("tr").nth(wrong_r).locator("td").nth(wrong_c)).to_have_attribute(
            "aria-label", re.compile(r"wrong$")
        )
        expect(answer.locator("tr").nth(left_r).locator("td").nth(left_c)).to_have_class(
            re.compile(r"\btone-missing\b")
        )
        reference = page.locator("#family-reference-board")
        expect(reference.locator("td.cell")).to_have_count(16)
        expect(reference.locator("tr").nth(left_r).locator("td").nth(left_c)).to_have_text(
            str(solution[left_r][left_c])
        )
        # A red wrong cell: its colour is drawn, not only named.
        colour = answer.locator("td.tone-wrong").evaluate(
            "cell => getComputedStyle(cell).backgroundColor"
        )
        assert colour == "rgb(249, 211, 208)"

    def play_2048(self, page: Page, username: str) -> None:
        attempt = self.open_kind(page, "games", "game_2048", "easy", username)
        board = page.locator("#game-board")
        expect(board.locator("td.cell")).to_have_count(16)
        start = attempt.task.public["board"]
        expect(board.locator("td[class*='tone-tile-']")).to_have_count(sum(1 for v in start if v))
        self.assert_fits(page, "a 2048 game")
        keys = {move: key for key, move in GAMES.keys("game_2048").items()}
        moves = GAMES.reference_answer(attempt.task.to_core()).splitlines()
        for number, move in enumerate(moves, 1):
            page.locator("body").press(keys[move])
            if number < len(moves):
                expect(page.locator("#game-log li")).to_have_count(number)
            if number == 1:
                self.assert_fits(page, "a 2048 game after a move")
                # The rules' starting board is folded away once the game has begun.
                expect(page.locator("#task-text")).not_to_be_visible()
                expect(page.locator("#game-log li").first).to_contain_text("points")
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        self.assert_fits(page, "a 2048 game's result")
        target = attempt.task.public["target"]
        final = page.locator("#game-board")
        expect(final.locator(f"td.tone-tile-{target}")).to_have_count(1)
        expect(final.locator(f"td.tone-tile-{target}")).to_have_attribute(
            "aria-label", f"tile {target}"
        )
        expect(page.locator("#family-reference")).to_contain_text(f"Make a {target} tile")
        colour = final.locator("td.tone-tile-2, td.tone-tile-4").first.evaluate(
            "cell => getComputedStyle(cell).backgroundColor"
        )
        assert colour in ("rgb(238, 228, 218)", "rgb(237, 224, 200)")

    def visit(self, width: int) -> None:
        self.store_task("puzzles", "sudoku", "4x4")
        self.store_task("games", "game_2048", "easy")
        page = self.start_browser()
        page.set_viewport_size({"width": width, "height": 800})
        username = f"boards{width}"
        self.sign_up(page, username)
        self.play_sudoku(page, username)
        self.play_2048(page, username)

    def test_a_visitor_signs_up_and_plays_a_sudoku_and_2048_on_a_phone(self):
        self.visit(390)

    def test_a_visitor_signs_up_and_plays_a_sudoku_and_2048_on_a_desktop(self):
        self.visit(1280)
