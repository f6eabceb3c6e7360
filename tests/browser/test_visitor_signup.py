"""A visitor plays a family task, signs up from the top bar and keeps it, in a real
browser (see test_play_page.py for how)."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from playwright.sync_api import expect

from benchmark.accounts import confirmation_link
from engine.models import FamilyAttempt, Visitor
from tests.browser.test_play_page import BrowserTestCase, orm

PASSWORD = "a visitor's long passphrase"


class VisitorSignUpTests(BrowserTestCase):
    def test_a_visitor_signs_up_from_the_top_bar_and_keeps_their_play(self):
        self.store_task("simple", "math", "easy")
        page = self.start_browser()
        page.goto(f"{self.live_server_url}/families/")
        expect(page.locator("#visitor-note")).to_be_visible()
        page.locator('tr[data-kind="math"]').get_by_role("button", name="easy").click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        header = page.locator(".site-header")
        expect(header).to_contain_text("Playing as a visitor")
        attempt = orm(lambda: FamilyAttempt.objects.select_related("task", "player").get())
        assert orm(lambda: Visitor.objects.filter(user_id=attempt.player_id).exists())
        page.fill("#answer", str(attempt.task.hidden["answer"]))
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")

        header.get_by_role("link", name="Sign up").click()
        page.wait_for_url(f"{self.live_server_url}/accounts/signup/")
        expect(page.locator("#guest-keeps")).to_be_visible()
        page.get_by_label("Username").fill("newcomer")
        page.get_by_label("E-mail address").fill("newcomer@example.org")
        page.get_by_label("Organisation").fill("Night School")
        page.fill("#id_password1", PASSWORD)
        page.get_by_label("Password confirmation").fill(PASSWORD)
        page.get_by_role("button", name="Sign up").click()

        page.wait_for_url(f"{self.live_server_url}/account/")
        expect(page.get_by_role("status").first).to_contain_text("newcomer@example.org")
        expect(page.locator("#confirm-email")).to_be_visible()
        expect(page.locator("#token-summary")).to_contain_text("confirm your e-mail address")
        expect(header).not_to_contain_text("Playing as a visitor")
        user = orm(lambda: User.objects.select_related("account").get(username="newcomer"))
        # The guest account became the account: the task played stays with it.
        assert user.pk == attempt.player_id and user.account.organisation == "Night School"
        assert not orm(lambda: Visitor.objects.filter(user_id=user.pk).exists())

        # The mailed link (made here as the server made it: same key) confirms the address.
        page.goto(orm(confirmation_link, user, self.live_server_url))
        expect(page.locator("#email-confirmed")).to_be_visible()
        page.get_by_role("link", name="Go to your account").click()
        page.get_by_role("button", name="Create a token").click()
        expect(page.locator("#token-key")).to_have_text(re.compile(r"^[0-9a-f]{40}$"))
