"""Every simple-reasoning kind played in a real browser (Debian's chromium): pick the kind
and level, read the task, answer in its form, see the result; nothing secret on the page
before the answer."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from engine.models import FamilyAttempt
from tests.browser.test_play_page import PASSWORD, BrowserTestCase, orm


class FamilyPlayTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        User.objects.create_user("reasoner", password=PASSWORD)

    def start(self, kind: str):
        self.store_task("simple", kind, "medium")
        page = self.start_browser()
        self.log_in(page, "reasoner", PASSWORD, "/families/")
        page.locator(f'tr[data-family="simple"][data-kind="{kind}"]').get_by_role(
            "button", name="medium"
        ).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        attempt = orm(
            lambda: FamilyAttempt.objects.select_related("task").get(
                player__username="reasoner", task__kind=kind
            )
        )
        html = page.content()
        expect(page.locator("#task-text")).to_contain_text(attempt.task.public["text"][:40])
        assert "A right answer" not in html
        return page, attempt.task

    def finish(self, page):
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")

    def test_counting(self):
        page, task = self.start("counting")
        page.fill("#answer", f"{task.hidden['answer']:,}")
        self.finish(page)

    def test_math(self):
        page, task = self.start("math")
        page.fill("#answer", str(task.hidden["answer"]))
        self.finish(page)

    def test_logic(self):
        page, task = self.start("logic")
        page.check(f"input[name=answer][value={'true' if task.hidden['answer'] else 'false'}]")
        self.finish(page)

    def test_travel_by_clicking_the_cities_of_the_route(self):
        page, task = self.start("travel")
        for city in task.hidden["route"]:
            page.locator(f'button.city[data-city="{city}"]').click()
        expect(page.locator("#answer")).to_have_value(" -> ".join(task.hidden["route"]))
        self.finish(page)
        expect(page.locator("#family-optimal")).to_have_text("yes")

    def test_the_waiting_page_moves_on_to_the_task_once_its_job_has_run(self):
        """A fresh task being generated: the page says so, polls the request's status
        (family_practice.js) and opens the attempt once the job is done."""
        from engine.family_practice import run_family_practice_request
        from engine.models import FamilyPracticeRequest

        def pending() -> int:
            return FamilyPracticeRequest.objects.create(
                player=User.objects.get(username="reasoner"),
                family="simple",
                kind="math",
                level="medium",
                created_at=timezone.now(),
            ).pk

        request_id = orm(pending)
        page = self.start_browser()
        waiting = f"/families/practice/{request_id}/"
        self.log_in(page, "reasoner", PASSWORD, waiting)
        expect(page.locator("#family-practice-waiting")).to_contain_text("Preparing your task")
        orm(run_family_practice_request, request_id)  # the job, as a worker would run it
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        expect(page.locator("#family-answer-form")).to_be_visible()
