"""KORGym's games drawn in a real browser (see test_play_page.py for how): a visitor opens
KORGym's 2048 and plays it with the arrow keys on a board of coloured tiles, and sees
KORGym's Spider Solitaire as piles of cards whose face-down cards show nothing, on a phone
and a desktop, no page wider than its viewport."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from engine.models import FamilyAttempt
from tests.browser.test_play_page import BrowserTestCase, orm


class KorgymBoardTests(BrowserTestCase):
    def open_game(self, page: Page, kind: str) -> FamilyAttempt:
        page.goto(f"{self.live_server_url}/families/")
        page.locator(f'tr[data-family="korgym"][data-kind="{kind}"]').get_by_role(
            "button", name="korgym", exact=True
        ).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        attempt_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        return orm(lambda: FamilyAttempt.objects.select_related("task").get(pk=attempt_id))

    def assert_fits(self, page: Page, where: str) -> None:
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], f"{where}: the page is {widths[0]} px wide in {widths[1]}"

    def visit(self, width: int) -> None:
        self.store_task("korgym", "2048", "korgym")
        self.store_task("korgym", "spidersolitaire", "korgym")
        page = self.start_browser()
        page.set_viewport_size({"width": width, "height": 800})

        attempt = self.open_game(page, "2048")
        board = page.locator("#game-board")
        expect(board.locator("td.cell")).to_have_count(16)
        tiles = sum(1 for row in attempt.task.hidden["item"]["board"] for tile in row if tile)
        expect(board.locator("td[class*='tone-tile-']")).to_have_count(tiles)
        self.assert_fits(page, "KORGym's 2048")
        page.locator("body").press("ArrowLeft")
        expect(page.locator("#game-log li")).to_have_count(1)
        expect(page.locator("#game-log li").first).to_contain_text("LEFT")
        expect(page.locator("#game-board td.cell")).to_have_count(16)
        self.assert_fits(page, "KORGym's 2048 after a move")

        attempt = self.open_game(page, "spidersolitaire")
        piles = page.locator("#game-board .pile")
        expect(piles).to_have_count(10)
        face_down = page.locator("#game-board .card.face-down")
        assert face_down.count() > 0
        assert all(text.strip() == "" for text in face_down.all_inner_texts())
        self.assert_fits(page, "KORGym's Spider Solitaire")

    def test_korgym_boards_on_a_phone(self):
        self.visit(390)

    def test_korgym_boards_on_a_desktop(self):
        self.visit(1280)
