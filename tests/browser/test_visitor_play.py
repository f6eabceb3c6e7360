"""A visitor plays from the home page, in a real browser (see test_play_page.py for how)."""

from __future__ import annotations

import re
from io import StringIO

from django.core.management import call_command
from playwright.sync_api import Page, expect

from engine.models import Instance, PlaySession, Visitor
from leaderboard.models import Trajectory
from tests.browser.test_play_page import BrowserTestCase, expect_result_figures, orm


class VisitorPlayTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())

    def start_from(self, page: Page, url: str) -> PlaySession:
        page.goto(f"{self.live_server_url}{url}")
        page.get_by_role("button", name="Play", exact=True).click()
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        self.wait_until_connected(page)
        session_id = int(re.search(r"/play/(\d+)/$", page.url)[1])
        return orm(
            lambda: PlaySession.objects.select_related("instance", "player").get(pk=session_id)
        )

    def test_a_visitor_plays_a_game_from_the_home_page_to_the_end(self):
        page = self.start_browser()
        session = self.start_from(page, "/")
        instance = session.instance
        assert instance.source == Instance.Source.PRACTICE
        assert (instance.n_truths, instance.n_actions) == (4, 6)
        assert orm(lambda: Visitor.objects.filter(user_id=session.player_id).exists())
        expect(page.locator(".site-header")).to_contain_text("Playing as a visitor")
        expect(page.locator("#actions button.action")).to_have_count(6)
        expect(page.locator("#count-left")).to_have_text("6")

        page.locator("#actions button.action").first.click()
        expect(page.locator("#count-taken")).to_have_text("1")
        expect(page.locator("#count-left")).to_have_text("5")
        expect(page.locator("#result")).to_be_hidden()
        self.answer(page, instance.valid_truths[0])

        expect(page.locator("#result-heading")).to_have_text("Correct — task finished")
        expect(page.locator("#result-valid")).to_have_text(instance.valid_truths[0])
        expect(page.locator("#result-actions")).to_have_text("1")
        expect(page.locator("#count-left")).to_be_hidden()
        expect(page.locator("#result")).to_contain_text("never counts on the leaderboard")
        stored = orm(lambda: PlaySession.objects.get(pk=session.pk))
        assert stored.correct is True and stored.actions_taken == 1
        assert orm(lambda: Trajectory.objects.count()) == 0

    def test_the_result_screen_shows_the_expected_optimum_and_relative_action_count(self):
        page = self.start_browser()
        session = self.start_from(page, "/domains/orchard/")
        instance = session.instance
        assert orm(lambda: Instance.objects.get(pk=instance.pk).domain.name) == "orchard"
        for taken in (1, 2):
            page.locator("#actions button.action:not(.taken)").first.click()
            expect(page.locator("#count-taken")).to_have_text(str(taken))
        wrong = next(truth for truth in instance.truths if truth not in instance.valid_truths)
        self.answer(page, wrong)

        expect(page.locator("#result-heading")).to_have_text("Not correct — task finished")
        expect(page.locator("#result-actions")).to_have_text("2")
        expect_result_figures(page, instance, actions_taken=2)
        expect(page.locator("#result")).not_to_contain_text("An optimal strategy took")

        # "Play another" starts the next practice game of the same domain and level.
        page.get_by_role("button", name="Play another").click()
        page.wait_for_url(re.compile(rf"/play/(?!{session.pk}/)\d+/$"))
        self.wait_until_connected(page)
        expect(page.locator("#result")).to_be_hidden()
        expect(page.locator("#count-left")).to_have_text("6")
