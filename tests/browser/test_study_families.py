"""A participant walks a study whose set holds a task of another family, in a real browser:
the study's own frame on every page of the path (no site nav), the family task answered on
its page inside the study, the right comprehension answers kept, and "Log out" landing on
the study's page."""

from __future__ import annotations

import re
from io import StringIO

from django.core.management import call_command
from playwright.sync_api import Page, expect

from engine.core.families.base import get_family
from engine.models import FamilyStep, PlaySession
from humanstudy.models import Participant, StudySettings
from tests.browser.test_play_page import BrowserTestCase, orm

LABEL = "00000000000000000000b001"


class StudyWithAFamilyTaskTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        self.config = StudySettings.objects.create(
            domains=["orchard"],
            easy_truths=4,
            easy_actions=3,
            hard_truths=5,
            hard_actions=4,
            min_median_seconds_per_move=0,
            chance_test_alpha=0,
            currency="GBP",
        )
        for setting in ("--truths 4 --actions 3", "--truths 5 --actions 4"):
            call_command(
                "generate_tasks", "orchard", *setting.split(), "--count", "2", stdout=StringIO()
            )
        call_command(
            "build_task_sets", "--count", "1", "--seed", "1",
            "--family-task", "simple/logic/easy", "--family-task", "games/hanoi/easy",
            stdout=StringIO(),
        )  # fmt: skip

    def in_study_frame(self, page: Page) -> None:
        expect(page.locator("#study-header")).to_be_visible()
        for href in ("/families/", "/leaderboard/", "/domains/", "/api/"):
            expect(page.locator(f"header a[href^='{href}']")).to_have_count(0)
        expect(page.get_by_text("KUMO platform", exact=True)).to_have_count(0)

    def test_a_participant_plays_a_family_task_inside_the_study_frame(self):
        page = self.start_browser()
        url = self.live_server_url
        page.goto(f"{url}/study/join/{self.config.link_key}/?PROLIFIC_PID={LABEL}")
        page.wait_for_url(f"{url}/study/consent/")
        self.in_study_frame(page)
        page.get_by_role("button", name="I agree to take part").click()

        page.wait_for_url(f"{url}/study/instructions/")
        self.in_study_frame(page)
        expect(page.locator("#set-description")).to_contain_text(
            "Truth of a first-order formula in a small world (easy level)"
        )
        answers = {"valid": "one", "actions": "nothing", "outcome": "guide", "colour": "purple"}
        for name, value in answers.items():
            page.check(f"input[name={name}][value={value}]")
        page.get_by_role("button", name="Continue").click()
        expect(page.locator("#wrong-actions")).to_be_visible()
        # The right answers are kept; only the wrong one is cleared.
        expect(page.locator("input[name=valid][value=one]")).to_be_checked()
        expect(page.locator("input[name=outcome][value=guide]")).to_be_checked()
        expect(page.locator("input[name=actions]:checked")).to_have_count(0)
        page.check("input[name=actions][value=costs]")
        page.get_by_role("button", name="Continue").click()

        page.wait_for_url(f"{url}/study/practice/")
        self.in_study_frame(page)
        page.get_by_role("button", name="Start the practice task").click()
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        self.in_study_frame(page)
        self.wait_until_connected(page)
        practice = orm(
            lambda: PlaySession.objects.select_related("instance").get(
                player__participant__label=LABEL
            )
        )
        self.answer(page, practice.instance.valid_truths[0])
        page.get_by_role("link", name="Continue").click()
        page.get_by_role("button", name="Go on to your tasks").click()

        participant = orm(lambda: Participant.objects.get(label=LABEL))
        items = orm(
            lambda: list(participant.task_set.items.select_related("instance", "family_task"))
        )
        page.wait_for_url(f"{url}/study/tasks/")
        self.in_study_frame(page)
        expect(page.locator("#pay-so-far")).to_have_text("25.00 GBP")
        for item in sorted(items, key=lambda i: i.position):
            page.get_by_role("button", name=f"Start task {item.position}").click()
            if item.family_task is not None:
                page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
                self.in_study_frame(page)
                task = item.family_task
                right = get_family(task.family).reference_answer(task.to_core())
                if task.family == "games":
                    # A game, move by move over the page's socket, each move with its report.
                    page.wait_for_function(
                        "window.__familySocket && window.__familySocket.readyState === 1"
                    )
                    moves = right.splitlines()
                    for number, move in enumerate(moves, 1):
                        page.fill("#move", move)
                        page.keyboard.press("Enter")
                        if number < len(moves):
                            expect(page.locator("#game-log li")).to_have_count(number)
                    expect(page.locator("#family-result-heading")).to_have_text("Correct")
                    steps = orm(
                        lambda: list(
                            FamilyStep.objects.filter(attempt__player__participant__label=LABEL)
                        )
                    )
                    assert [step.move for step in steps] == moves
                    assert all(step.client and step.client["keys"] > 0 for step in steps)
                else:
                    page.check(f"input[name=answer][value={right}]")
                    page.get_by_role("button", name="Answer").click()
                    expect(page.locator("#family-result-heading")).to_have_text("Correct")
                self.in_study_frame(page)
                page.get_by_role("link", name="Back to your tasks").click()
            else:
                page.wait_for_url(re.compile(r"/play/\d+/$"))
                self.in_study_frame(page)
                self.wait_until_connected(page)
                self.answer(page, item.instance.valid_truths[0])
                expect(page.locator("#result-heading")).to_have_text("Correct — task finished")
                page.get_by_role("link", name="Continue").click()

        page.wait_for_url(f"{url}/study/questionnaire/")
        self.in_study_frame(page)
        page.check("input[name=difficulty][value='3']")
        page.check("input[name=help][value=no]")
        page.check("input[name=attention][value=sometimes]")
        page.get_by_role("button", name="Finish").click()
        page.wait_for_url(f"{url}/study/complete/")
        self.in_study_frame(page)
        # 25 + (3 solved ÷ 3 tasks) × 15, no actions taken.
        expect(page.locator("#final-pay")).to_have_text("40.00 GBP")

        page.locator("#study-logout").click()
        page.wait_for_url(f"{url}/study/logged-out/")
        expect(page.locator("#logged-out")).to_contain_text("open your study link again")
        self.in_study_frame(page)
