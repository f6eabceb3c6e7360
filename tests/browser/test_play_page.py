"""The play page in a real browser: Debian's chromium, driven by Playwright, against a live
Daphne server speaking HTTP and websockets, on whichever database the suite runs on."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from io import StringIO

import pytest
from channels.testing import ChannelsLiveServerTestCase
from daphne.testing import DaphneProcess
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connections
from playwright.sync_api import Page, expect, sync_playwright

from engine import sessions
from engine.models import Domain, Instance, PlaySession
from humanstudy.models import Participant, StudySettings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "correct horse battery"
# Generous: the first page load compiles templates and the first move replays a game.
WAIT_MS = 15_000


def orm(function, *args):
    """Run ``function(*args)`` in a worker thread, for database work once the browser runs.

    Playwright's sync API runs its asyncio loop in a greenlet of this thread, so while it is
    started the loop counts as running here and Django refuses ORM calls with
    SynchronousOnlyOperation. A thread without a loop is the honest way round that;
    DJANGO_ALLOW_ASYNC_UNSAFE would switch the check off for the whole suite.
    """

    def call():
        try:
            return function(*args)
        finally:
            # An open connection would stop PostgreSQL from dropping the test database.
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call).result()


def _prepare_server_process(database_name: str) -> None:
    """Runs in the forked server process, before it serves (see ``DaphneOnTestDatabase``)."""
    from asgiref.sync import SyncToAsync
    from channels.layers import channel_layers
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = database_name
    # A fork copies objects but not threads. If earlier tests in this pytest process used
    # asgiref's single-thread executor (the websocket communicator tests do), the copy
    # believes its idle worker thread exists and every consumer call waits for it forever.
    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    # Channel layers made in the parent hold asyncio queues and Redis pools of another
    # process's event loop: let the server make its own.
    channel_layers.backends = {}


class DaphneOnTestDatabase(DaphneProcess):
    """Daphne in a forked child, on the test database, with fresh per-process machinery.

    channels' own setup step derives the test database's name again from settings, which by
    then already hold it, and so opens "test_test_…" on PostgreSQL (django/channels#2176).
    Passing the name the parent's connection uses works on SQLite and PostgreSQL alike.
    """

    def __init__(self, host, get_application, kwargs=None, setup=None, teardown=None, port=None):
        name = connections["default"].settings_dict["NAME"]
        # The child is forked: it must not inherit open SQLite connections (WAL's shared
        # memory does not survive a fork; seen: "database disk image is malformed").
        connections.close_all()
        # Nor PostgreSQL's pooled ones: closing a connection hands it back to the pool, whose
        # sockets the child would copy and share with this process (seen: a test's query
        # waiting forever for an answer the server process had read).
        for connection in connections.all():
            close_pool = getattr(connection, "close_pool", None)
            if close_pool is not None:
                close_pool()
        super().__init__(
            host,
            get_application,
            kwargs=kwargs,
            setup=partial(_prepare_server_process, name),
            teardown=teardown,
            port=port,
        )


@pytest.mark.browser
class BrowserTestCase(ChannelsLiveServerTestCase):
    """A live server for the class; a fresh browser (and so fresh storage) for each test."""

    ProtocolServerProcess = DaphneOnTestDatabase

    @pytest.fixture(autouse=True)
    def _small_domain(self, small_domain_file):
        self.small_domain_file = small_domain_file

    def start_browser(self) -> Page:
        """Start chromium; call it after the test's database set-up (see ``orm``)."""
        playwright = sync_playwright().start()
        self.addCleanup(playwright.stop)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        self.addCleanup(browser.close)
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)
        self.page_errors: list[str] = []
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        self.addCleanup(lambda: self.assertEqual(self.page_errors, [], "JavaScript errors"))
        return page

    def store_task(self, family: str, kind: str, level: str) -> None:
        """A stored public task of the kind, which the families page offers before it asks
        a job for a fresh one: these tests play the page, not the generation job (on the
        production pass no worker runs beside the live server; the waiting page has a test
        of its own that runs the job)."""
        from engine.families import do_generate_family_tasks

        orm(lambda: do_generate_family_tasks(family, kind, count=1, seed=1, level=level))

    def log_in(self, page: Page, username: str, password: str, next_url: str) -> None:
        page.goto(f"{self.live_server_url}/accounts/login/?next={next_url}")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{self.live_server_url}{next_url}")

    def wait_until_connected(self, page: Page) -> None:
        expect(page.locator("#connection")).to_have_attribute("data-state", "connected")
        expect(page.locator("#actions button.action").first).to_be_visible()

    def answer(self, page: Page, truth: str) -> None:
        page.select_option("#answer-truth", truth)
        page.get_by_role("button", name="Answer…").click()
        dialog = page.locator("#answer-dialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text(f"Answer '{truth}' — this ends the task")
        dialog.get_by_role("button", name="Confirm").click()
        expect(page.locator("#result")).to_be_visible()


def shown_number(text: str) -> float:
    """A number as the page writes it (a real minus sign, an explicit plus)."""
    return float(text.replace("\u2212", "-").replace("+", ""))


def expect_result_figures(page: Page, instance: Instance, *, actions_taken: int) -> None:
    """The result screen's efficiency figures: the expected optimum (said to be an
    expectation over outcomes) and the relative action count as metrics.py computes it."""
    from engine.core.families.kumo.metrics import relative_action_count

    expected = page.locator("#result-expected")
    expect(expected).not_to_be_empty()
    expect(expected).to_contain_text("on average")
    number = expected.inner_text().removesuffix(" on average")
    assert abs(shown_number(number) - instance.expected_actions) < 0.006
    expect(page.locator("#result-expected-note")).to_contain_text("expectation over every outcome")
    relative = relative_action_count(actions_taken, instance.oracle_actions)
    shown = page.locator("#result-relative")
    expect(shown).not_to_be_empty()
    assert abs(shown_number(shown.inner_text()) - relative) < 0.006
    yours, oracle = actions_taken + 1, instance.oracle_actions + 1
    expect(page.locator("#result-relative-note")).to_contain_text(
        f"({yours} \u2212 {oracle}) \u00f7 {oracle}"
    )


class PlayPageTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        call_command(
            "generate_tasks", *"orchard --truths 5 --actions 4 --count 3".split(), stdout=StringIO()
        )
        self.domain = Domain.objects.get(name="orchard").to_core()
        # A task with a number-valued action, to see its unit and rounding on the page.
        self.instance = next(
            instance
            for instance in Instance.objects.order_by("seed")
            if any(self.domain.action(name).type == "float" for name in instance.actions)
        )
        self.float_action = next(
            name for name in self.instance.actions if self.domain.action(name).type == "float"
        )
        user = User.objects.create_user("player", password=PASSWORD)
        self.session, _ = sessions.start_session(user, self.instance)
        self.play_url = f"/play/{self.session.pk}/"

    def open_play_page(self) -> Page:
        page = self.start_browser()
        self.log_in(page, "player", PASSWORD, self.play_url)
        self.wait_until_connected(page)
        return page

    def stored_session(self) -> PlaySession:
        return orm(lambda: PlaySession.objects.get(pk=self.session.pk))

    def test_actions_taken_by_mouse_and_by_keyboard_show_their_results(self):
        page = self.open_play_page()
        expect(page.locator("#actions button.action")).to_have_count(4)
        expect(page.locator("#log-empty")).to_be_visible()

        # By mouse: the number-valued action; its result is rounded and carries its unit.
        button = page.locator(f'button.action[data-action="{self.float_action}"]')
        button.click()
        expect(page.locator("#log li")).to_have_count(1)
        entry = page.locator("#log li").first
        expect(entry).to_contain_text(self.float_action)
        action = self.domain.action(self.float_action)
        expect(entry).to_contain_text(action.unit)
        shown = float(re.search(r"→\s*(-?[\d.]+)", entry.inner_text()).group(1))
        observed = self.instance.observations[self.float_action]
        assert abs(shown - observed) < 0.01
        # Rounding must not move the number into another outcome's range.
        assert action.state_for(shown) == action.state_for(observed)
        expect(button).to_have_attribute("aria-disabled", "true")
        expect(button).to_have_class(re.compile(r"\btaken\b"))
        expect(button.locator(".action-result")).to_contain_text(action.unit)
        expect(page.locator("#count-taken")).to_have_text("1")
        expect(page.locator("#announcer")).to_contain_text(self.float_action)

        # By keyboard only: Tab to an untaken action, press Enter; focus stays on it.
        for _ in range(40):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.matches('button.action:not(.taken)')"):
                break
        else:
            raise AssertionError("Tab never reached an untaken action")
        chosen = page.evaluate("document.activeElement.dataset.action")
        page.keyboard.press("Enter")
        expect(page.locator("#log li")).to_have_count(2)
        expect(page.locator("#log li").nth(1)).to_contain_text(chosen)
        expect(page.locator(f'button.action[data-action="{chosen}"]')).to_be_focused()
        expect(page.locator(f'button.action[data-action="{chosen}"]')).to_have_attribute(
            "aria-disabled", "true"
        )
        # Pressing Enter again on a taken action sends nothing.
        page.keyboard.press("Enter")
        expect(page.locator("#count-taken")).to_have_text("2")

        # A move the server refuses is shown inline and counted, not taken.
        page.evaluate(
            "window.__playSocket.send(JSON.stringify({type: 'action', action: 'Crystal Ball'}))"
        )
        expect(page.locator("#play-error")).to_be_visible()
        expect(page.locator("#play-error")).to_contain_text("Crystal Ball")
        expect(page.locator("#count-refused")).to_have_text("1")
        expect(page.locator("#log li.log-refused")).to_have_count(1)

        stored = self.stored_session()
        assert (stored.actions_taken, stored.invalid_moves) == (2, 1)
        names = orm(lambda: list(stored.steps.filter(accepted=True).values_list("name", flat=True)))
        assert names == [self.float_action, chosen]

    def test_outcome_labels_read_as_words_in_the_log_and_in_the_book(self):
        """A snake_case label ("none_found") is shown in words on the page, in the log and
        in the guidebook alike; the raw label stays in the result's title."""
        instance = next(
            row for row in Instance.objects.order_by("seed") if "Larva Search" in row.actions
        )
        user = User.objects.get(username="player")
        session, _ = sessions.start_session(user, instance)
        page = self.start_browser()
        self.log_in(page, "player", PASSWORD, f"/play/{session.pk}/")
        self.wait_until_connected(page)
        book = page.locator("#book-content")
        expect(book).to_contain_text("'none found'")
        assert "none_found" not in book.inner_text()
        page.locator('button.action[data-action="Larva Search"]').click()
        raw = instance.observations["Larva Search"]
        result = page.locator("#log li .log-result")
        expect(result).to_have_text(raw.replace("_", " "))
        expect(result).to_have_attribute("title", raw)

    def test_crossed_off_truths_survive_a_reload_and_state_comes_back(self):
        page = self.open_play_page()
        page.locator("#actions button.action").first.click()
        expect(page.locator("#log li")).to_have_count(1)
        truths = page.locator("#truths li")
        expect(truths).to_have_count(5)
        struck = truths.nth(1)
        name = struck.inner_text().strip()
        struck.locator("input[type=checkbox]").check()
        expect(struck).to_have_class(re.compile(r"\bcrossed\b"))
        decoration = struck.locator("label").evaluate("e => getComputedStyle(e).textDecorationLine")
        assert decoration == "line-through"
        expect(page.locator("#answer-truth")).to_contain_text(f"{name} (crossed off)")

        page.reload()
        self.wait_until_connected(page)
        expect(page.locator("#log li")).to_have_count(1)  # the server's state, not the page's
        again = page.locator("#truths li").filter(has_text=name)
        expect(again.locator("input[type=checkbox]")).to_be_checked()
        expect(again).to_have_class(re.compile(r"\bcrossed\b"))
        expect(page.locator("#truths input:checked")).to_have_count(1)

        # Un-ticking is remembered too.
        again.locator("input[type=checkbox]").uncheck()
        page.reload()
        self.wait_until_connected(page)
        expect(page.locator("#truths input:checked")).to_have_count(0)

    def test_the_book_search_highlights_matches_and_jumps_between_them(self):
        page = self.open_play_page()
        truth = sorted(self.instance.truths)[0]
        search = page.get_by_label("Search", exact=True)
        search.fill(truth.lower())
        count = page.locator("#book-search-count")
        expect(count).to_have_text(re.compile(r"^1 of \d+$"))
        total = int(count.inner_text().split(" of ")[1])
        assert total >= 2, "every truth is named in the list and in rule-out lines"
        expect(page.locator("#book-content mark.search-hit")).to_have_count(total)
        current = page.locator("#book-content mark.search-hit.current")
        expect(current).to_have_count(1)
        expect(current).to_have_text(re.compile(re.escape(truth), re.IGNORECASE))
        expect(current).to_be_in_viewport()

        search.press("Enter")
        expect(count).to_have_text(f"2 of {total}")
        search.press("Shift+Enter")
        expect(count).to_have_text(f"1 of {total}")
        search.press("Shift+Enter")
        expect(count).to_have_text(f"{total} of {total}")  # wraps round

        search.fill("no such words in this book")
        expect(count).to_have_text("No matches")
        expect(page.locator("#book-content mark")).to_have_count(0)
        search.fill(truth)
        expect(count).to_have_text(f"1 of {total}")
        search.press("Escape")
        expect(page.locator("#book-content mark")).to_have_count(0)
        expect(count).to_have_text("")
        # Highlighting must leave the book's text exactly as it was.
        expect(page.locator("#book-content")).to_contain_text(truth)

    def test_it_reconnects_after_the_connection_drops(self):
        page = self.open_play_page()
        page.locator("#actions button.action").first.click()
        expect(page.locator("#log li")).to_have_count(1)

        page.evaluate("window.__lostSocket = window.__playSocket; window.__playSocket.close()")
        connection = page.locator("#connection")
        expect(connection).to_have_attribute("data-state", re.compile("lost|connecting"))
        # It comes back on its own, with a new socket and the full state from the server.
        expect(connection).to_have_attribute("data-state", "connected")
        page.wait_for_function(
            "window.__playSocket !== window.__lostSocket && window.__playSocket.readyState === 1"
        )
        expect(page.locator("#log li")).to_have_count(1)

        page.locator("#actions button.action:not(.taken)").first.click()
        expect(page.locator("#log li")).to_have_count(2)
        expect(page.locator("#count-taken")).to_have_text("2")
        assert self.stored_session().actions_taken == 2

    def test_answering_needs_a_confirm_step_then_shows_the_result(self):
        page = self.open_play_page()
        page.locator("#actions button.action").first.click()
        expect(page.locator("#log li")).to_have_count(1)
        valid = self.instance.valid_truths[0]
        answer_button = page.get_by_role("button", name="Answer…")

        # Without a choice there is nothing to confirm.
        answer_button.click()
        expect(page.locator("#play-error")).to_contain_text("Choose")
        expect(page.locator("#answer-truth")).to_be_focused()

        # Keyboard only: choose, open the dialog, and back out with Escape.
        page.select_option("#answer-truth", valid)
        answer_button.focus()
        page.keyboard.press("Enter")
        dialog = page.locator("#answer-dialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text(f"Answer '{valid}' — this ends the task")
        expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(answer_button).to_be_focused()
        # ... and with the Cancel button.
        page.keyboard.press("Enter")
        expect(dialog).to_be_visible()
        page.keyboard.press("Enter")  # on Cancel
        expect(dialog).to_be_hidden()
        assert self.stored_session().finished_at is None

        # Now confirm, still by keyboard.
        page.keyboard.press("Enter")
        expect(dialog).to_be_visible()
        page.keyboard.press("Shift+Tab")
        expect(dialog.get_by_role("button", name="Confirm")).to_be_focused()
        page.keyboard.press("Enter")

        result = page.locator("#result")
        expect(result).to_be_visible()
        expect(page.locator("#result-heading")).to_have_text("Correct — task finished")
        expect(page.locator("#result-heading")).to_be_focused()
        expect(page.locator("#result-answer")).to_have_text(valid)
        expect(page.locator("#result-valid")).to_have_text(valid)
        expect(page.locator("#result-actions")).to_have_text("1")
        optimal = self.instance.oracle_actions
        assert optimal is not None, "generate_tasks stores the oracle's action count"
        expect_result_figures(page, self.instance, actions_taken=1)
        # Nothing stale stays: no counter of actions left once the task is over.
        expect(page.locator("#count-left")).to_be_hidden()
        expect(page.get_by_role("link", name="Continue")).to_have_attribute("href", "/")
        expect(page.locator("#connection")).to_have_attribute("data-state", "finished")

        # Every control is off now, including the private notes.
        for button in page.locator("#actions button.action").all():
            expect(button).to_be_disabled()
        for box in page.locator("#truths input").all():
            expect(box).to_be_disabled()
        expect(page.locator("#answer-truth")).to_be_disabled()
        expect(answer_button).to_be_disabled()

        stored = self.stored_session()
        assert stored.finished_at is not None and stored.correct is True
        assert stored.answer == valid and stored.actions_taken == 1

        # A reload shows the same result from the server's state.
        page.reload()
        expect(page.locator("#result-heading")).to_have_text("Correct — task finished")
        expect(page.locator("#result-valid")).to_have_text(valid)


class StudyFlowTests(BrowserTestCase):
    """A participant's whole path in the browser, from the recruitment platform's link."""

    def setUp(self):
        super().setUp()
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        # A two-task study on the small domain: one "Easy" and one "Hard" task.
        self.config = StudySettings.objects.create(
            domains=["orchard"],
            easy_truths=4,
            easy_actions=3,
            hard_truths=5,
            hard_actions=4,
            min_median_seconds_per_move=0,  # a test browser is faster than any person
            chance_test_alpha=0,  # two tasks say nothing against chance
            return_url="https://recruit.example.org/done?cc={code}",
        )
        for setting in ("--truths 4 --actions 3", "--truths 5 --actions 4"):
            call_command(
                "generate_tasks", "orchard", *setting.split(), "--count", "2", stdout=StringIO()
            )
        # One task set; the Easy instance it does not use is the practice task.
        call_command("build_task_sets", "--count", "1", "--seed", "1", stdout=StringIO())

    def join(self, page: Page, label: str) -> None:
        page.goto(f"{self.live_server_url}/study/join/{self.config.link_key}/?PROLIFIC_PID={label}")
        page.wait_for_url(f"{self.live_server_url}/study/consent/")

    def test_a_participant_walks_from_the_recruitment_link_to_the_completion_code(self):
        page = self.start_browser()
        self.join(page, "00000000000000000000a001")
        expect(page.locator("#recorded")).to_contain_text("paste or copy")
        page.get_by_role("button", name="I agree to take part").click()

        # Instructions: a wrong answer first, then the right ones.
        page.wait_for_url(f"{self.live_server_url}/study/instructions/")
        answers = {"valid": "one", "actions": "nothing", "outcome": "guide", "colour": "purple"}
        for name, value in answers.items():
            page.check(f"input[name={name}][value={value}]")
        page.get_by_role("button", name="Continue").click()
        expect(page.locator("#comprehension-wrong")).to_contain_text("What does each action")
        for name, value in {**answers, "actions": "costs"}.items():
            page.check(f"input[name={name}][value={value}]")
        page.get_by_role("button", name="Continue").click()

        # The practice task: played, not paid.
        page.wait_for_url(f"{self.live_server_url}/study/practice/")
        page.get_by_role("button", name="Start the practice task").click()
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        self.wait_until_connected(page)
        practice = orm(
            lambda: PlaySession.objects.select_related("instance").get(
                player__participant__label="00000000000000000000a001"
            )
        )
        self.answer(page, practice.instance.valid_truths[0])
        page.get_by_role("link", name="Continue").click()
        expect(page.locator("#practice-done")).to_contain_text("found the true candidate")
        page.get_by_role("button", name="Go on to your tasks").click()

        participant = orm(lambda: Participant.objects.get(label="00000000000000000000a001"))
        tasks = orm(
            lambda: [item.instance for item in participant.task_set.items.order_by("position")]
        )
        first, second = tasks
        page.wait_for_url(f"{self.live_server_url}/study/tasks/")
        expect(page.locator("#tasks-done")).to_have_text("0 of 2")
        expect(page.locator("#pay-so-far")).to_have_text("$25.00")

        # Task 1: one action (after a paste on the page), then the right answer.
        page.get_by_role("button", name="Start task 1").click()
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        self.wait_until_connected(page)
        # The study's time limit (15 minutes by default) counts down on the page.
        expect(page.locator("#time-left")).to_have_text(re.compile(r"^1[45]:\d\d$"))
        page.evaluate("document.dispatchEvent(new Event('paste'))")
        page.locator("#actions button.action").first.click()
        expect(page.locator("#count-taken")).to_have_text("1")
        self.answer(page, first.valid_truths[0])
        expect(page.locator("#result-heading")).to_have_text("Correct — task finished")
        expect(page.locator("#time-left-item")).to_be_hidden()
        page.get_by_role("link", name="Continue").click()
        page.wait_for_url(f"{self.live_server_url}/study/tasks/")
        expect(page.locator("#tasks-done")).to_have_text("1 of 2")
        # 25 + (1 solved ÷ 2 tasks) × 15 − 1 action × 0.10
        expect(page.locator("#pay-so-far")).to_have_text("$32.40")

        # Task 2: a wrong answer straight away.
        page.get_by_role("button", name="Start task 2").click()
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        self.wait_until_connected(page)
        wrong = sorted(set(second.truths) - set(second.valid_truths))[0]
        self.answer(page, wrong)
        expect(page.locator("#result-heading")).to_have_text("Not correct — task finished")
        page.get_by_role("link", name="Continue").click()

        # The questionnaire, then the completion code and the way back.
        page.wait_for_url(f"{self.live_server_url}/study/questionnaire/")
        page.check("input[name=difficulty][value='3']")
        page.check("input[name=help][value=no]")
        page.check("input[name=attention][value=sometimes]")
        page.fill("#comment", "<b>fun</b>")
        page.get_by_role("button", name="Finish").click()
        page.wait_for_url(f"{self.live_server_url}/study/complete/")
        expect(page.locator("#final-pay")).to_have_text("$32.40")
        participant = orm(lambda: Participant.objects.get(label="00000000000000000000a001"))
        code = participant.completion_code
        assert code and participant.stage == "complete" and participant.completed_at
        expect(page.locator("#completion-code")).to_have_text(code)
        expect(page.locator("#return-link")).to_have_attribute(
            "href", f"https://recruit.example.org/done?cc={code}"
        )
        assert participant.comprehension_attempts == 2 and not participant.flagged
        assert participant.answers["comment"] == "<b>fun</b>"
        # The page reported the paste with the move that followed it (counts only).
        reports = orm(
            lambda: list(
                PlaySession.objects.get(player=participant.user, instance=first)
                .steps.order_by("index")
                .values_list("client", flat=True)
            )
        )
        assert reports[0]["pastes"] == 1 and reports[1].get("pastes", 0) == 0

    def test_a_participant_who_declines_consent_is_thanked_and_goes_no_further(self):
        page = self.start_browser()
        self.join(page, "00000000000000000000a002")
        page.get_by_role("button", name="I do not agree").click()
        page.wait_for_url(f"{self.live_server_url}/study/declined/")
        expect(page.locator("#declined")).to_contain_text("chose not to take part")
        page.goto(f"{self.live_server_url}/study/tasks/")
        page.wait_for_url(f"{self.live_server_url}/study/declined/")
        participant = orm(lambda: Participant.objects.get(label="00000000000000000000a002"))
        assert participant.stage == "declined" and participant.declined_at is not None
        assert not orm(lambda: PlaySession.objects.filter(player=participant.user).exists())
