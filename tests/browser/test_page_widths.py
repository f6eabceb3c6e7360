"""Every page a user reaches fits a 390 px phone and a 1280 px desktop, in a real browser
(Debian's chromium): the page is never wider than its viewport (wide content scrolls inside
its own box, text wraps), and on the KUMO play page the top bar's links all fit.

Each test opens its pages at both widths and reports every page that does not fit at once,
with the elements that stick out, rather than stopping at the first."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import Page, expect, sync_playwright

from engine import families, sessions
from engine.core.families.base import get_family
from engine.models import FamilyAttempt, FamilyTask, Instance
from humanstudy.models import Participant, StudySettings
from tests.browser.test_play_page import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PASSWORD,
    WAIT_MS,
    BrowserTestCase,
    orm,
)

PHONE, DESKTOP = 390, 1280
WIDTHS = (PHONE, DESKTOP)
HEIGHTS = {PHONE: 844, DESKTOP: 800}
DOCS = Path(__file__).resolve().parents[2] / "docs"
LR2BENCH_DATA = Path(__file__).resolve().parents[1] / "families" / "lr2bench_data"

# No game page is listed as expected to overflow: the boards drawn as ASCII text in a <pre>
# (templates/engine/family_attempt.html, redrawn by branch h-pages) all fit both widths
# once the task's text wraps; a board that stopped fitting fails here like any page.

# Measures the page; names the deepest elements that reach past the viewport's right edge
# (not those inside a box that scrolls on its own), to say what to fix.
MEASURE = """() => {
  const inner = window.innerWidth;
  const culprits = [];
  const scrolls = (el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (["auto", "scroll", "hidden"].includes(style.overflowX)) return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    // Its box, or the text running out of it (a <pre>'s lines).
    const right = Math.max(box.right, box.left + el.scrollWidth);
    if (box.width === 0 || right <= inner + 1 || scrolls(el)) continue;
    const inside = Array.from(el.children).some(
      (child) => child.getBoundingClientRect().right > inner + 1
    );
    if (inside) continue;
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    if (el.classList.length) name += "." + Array.from(el.classList).join(".");
    culprits.push(name + " (right " + Math.round(right) + ")");
  }
  return {
    scroll: document.documentElement.scrollWidth,
    inner: inner,
    culprits: culprits.slice(0, 6),
  };
}"""


class Widths:
    """The pages seen so far at each width, and those that did not fit."""

    def __init__(self) -> None:
        self.misfits: list[str] = []
        self.seen = 0

    def check(self, page: Page, what: str) -> None:
        measured = page.evaluate(MEASURE)
        self.seen += 1
        if measured["scroll"] > measured["inner"]:
            self.misfits.append(
                f"{what} at {measured['inner']} px: {measured['scroll']} px wide; "
                f"sticking out: {', '.join(measured['culprits']) or 'nothing named'}"
            )

    def verdict(self) -> None:
        assert self.seen, "no page was measured"
        assert not self.misfits, "pages wider than their viewport:\n" + "\n".join(self.misfits)


# Layout: what a page's width is does not depend on the database behind it.
@pytest.mark.backend_neutral
class PageWidthTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.user = User.objects.create_user("reader", password=PASSWORD, email="r@example.org")
        # A player per width, so that each width opens its own fresh attempts.
        self.players = {
            width: User.objects.create_user(f"player{width}", password=PASSWORD) for width in WIDTHS
        }
        self.widths = Widths()

    def browser_at(self, width: int) -> Page:
        """A page in a fresh browser context of the width (its own cookies)."""
        if not hasattr(self, "_browser"):
            playwright = sync_playwright().start()
            self.addCleanup(playwright.stop)
            self._browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            self.addCleanup(self._browser.close)
            self.page_errors: list[str] = []
            self.addCleanup(lambda: self.assertEqual(self.page_errors, [], "JavaScript errors"))
        context = self._browser.new_context(viewport={"width": width, "height": HEIGHTS[width]})
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        return page

    def signed_in_at(self, width: int, username: str = "reader") -> Page:
        page = self.browser_at(width)
        self.log_in(page, username, PASSWORD, "/")
        return page

    def visit(self, page: Page, path: str, what: str = "") -> None:
        # Generous: a busy machine renders a large grid's page slowly.
        response = page.goto(f"{self.live_server_url}{path}", timeout=4 * WAIT_MS)
        assert response is not None and response.status < 400, (path, response and response.status)
        self.widths.check(page, what or path)

    # -- the site's own pages ------------------------------------------------------------

    def test_the_site_pages_fit(self):
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        call_command(
            "generate_tasks", *"orchard --truths 5 --actions 4 --count 2".split(), stdout=StringIO()
        )
        # Rows on every board: a KUMO baseline and family baselines (KORGym's make the
        # dimension table), then the board job.
        call_command(
            "evaluate", "--model", "oracle", "--user", "reader",
            *"--domains orchard --truths 5 --actions 4 --runs 1".split(),
            stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
        for family, kinds, level, models in (
            ("korgym", "2048,alien,maze,wordle", "korgym", ("reference",)),
            ("games", "nim,hanoi", "easy", ("reference",)),
            ("simple", "counting", "easy", ("reference", "random")),
        ):
            for model in models:
                call_command(
                    "run_family_tasks", "--model", model, "--family", family, "--kind", kinds,
                    "--level", level, "--count", "1", stdout=StringIO(), stderr=StringIO(),
                )  # fmt: skip
        from leaderboard.models import ModelEntry
        from leaderboard.recompute import recompute

        recompute(full=True)
        model_id = ModelEntry.objects.get(name="oracle").pk
        docs = sorted(path.stem for path in DOCS.glob("*.md"))
        public = [
            "/",
            "/domains/",
            "/domains/orchard/",
            "/families/",
            "/leaderboard/",
            "/leaderboard/?round=all",
            f"/leaderboard/models/{model_id}/",
            "/leaderboard/heatmap/",
            "/leaderboard/paper/",
            "/leaderboard/correlations/",
            "/leaderboard/optimal-actions/",
            "/leaderboard/families/",
            "/leaderboard/families/?family=korgym",
            "/leaderboard/families/?family=games",
            "/leaderboard/profile/",
            "/leaderboard/rounds/",
            "/accounts/login/",
            "/accounts/signup/",
            "/accounts/password_reset/",
            *(f"/docs/{name}/" for name in docs),
        ]
        for width in WIDTHS:
            page = self.browser_at(width)
            for path in public:
                self.visit(page, path)
            self.log_in(page, "reader", PASSWORD, "/account/")
            self.widths.check(page, "/account/")
            self.visit(page, "/accounts/password_change/")
        self.widths.verdict()

    # -- KUMO's play page ----------------------------------------------------------------

    def test_the_kumo_play_page_fits_during_and_after_a_game_with_its_nav(self):
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        call_command(
            "generate_tasks", *"orchard --truths 5 --actions 4 --count 1".split(), stdout=StringIO()
        )
        instance = Instance.objects.get()
        for width in WIDTHS:
            player = self.players[width]
            page = self.signed_in_at(width, player.username)
            session = orm(lambda player=player: sessions.start_session(player, instance)[0])
            page.goto(f"{self.live_server_url}/play/{session.pk}/")
            self.wait_until_connected(page)
            self.nav_fits(page, "/play/")
            self.widths.check(page, "/play/ before a move")
            for taken in (1, 2):
                page.locator("#actions button.action:not(.taken)").first.click()
                expect(page.locator("#log li")).to_have_count(taken)
            self.widths.check(page, "/play/ during a game")
            self.answer(page, instance.valid_truths[0])
            self.nav_fits(page, "/play/ after the game")
            self.widths.check(page, "/play/ after the game")
        self.widths.verdict()

    def nav_fits(self, page: Page, what: str) -> None:
        """Every link and button of the top bar lies inside the viewport."""
        width = page.evaluate("window.innerWidth")
        items = page.locator("header.site-header a, header.site-header button").all()
        assert items, "the top bar has links"
        for item in items:
            expect(item).to_be_visible()
            box = item.bounding_box()
            if box is None or box["x"] < 0 or box["x"] + box["width"] > width:
                self.widths.misfits.append(
                    f"{what} at {width} px: the top bar's {item.inner_text()!r} is at {box}"
                )

    # -- every family's attempt pages ----------------------------------------------------

    def test_the_attempt_page_of_every_kind_of_every_answered_family_fits(self):
        """Before the answer and after it (the player's and a right answer shown)."""
        from engine.families import do_import_lr2bench, do_import_unpuzzles
        from tests.families.test_unpuzzles import ITEMS

        do_import_lr2bench(str(LR2BENCH_DATA))
        do_import_unpuzzles({"unpuzzles": json.dumps(ITEMS)})
        tasks = []
        for family in ("simple", "puzzles"):
            source = get_family(family)
            for kind in source.kinds.values():
                # The largest level of each puzzle is the widest; the acrostic's largest
                # takes minutes to generate and is drawn as the smallest is.
                levels = list(kind.levels)
                level = levels[0] if kind.name == "acrostic" else levels[-1]
                tasks += families.do_generate_family_tasks(family, kind.name, level=level).tasks
        for family in ("lr2bench", "unpuzzles"):
            for kind in get_family(family).kinds:
                tasks.append(FamilyTask.objects.filter(family=family, kind=kind).first())
        assert all(tasks) and len(tasks) == 11 + 6 + 6 + 3
        for width in WIDTHS:
            player = self.players[width]
            page = self.signed_in_at(width, player.username)
            for task in tasks:
                attempt = orm(
                    lambda task=task, player=player: families.start_attempt(player, task)[0]
                )
                url = f"/families/attempts/{attempt.pk}/"
                self.visit(page, url, f"{task.family}/{task.kind}/{task.level} (open)")
                reference = get_family(task.family).reference_answer(task.to_core())
                orm(
                    lambda attempt=attempt, reference=reference, player=player: (
                        families.answer_attempt(attempt.pk, player, reference)
                    )
                )
                self.visit(page, url, f"{task.family}/{task.kind}/{task.level} (answered)")
                expect(page.locator("#family-result-heading")).to_be_visible()
        self.widths.verdict()

    def games_fit_at(self, width: int) -> None:
        tasks = []
        for family in ("games", "korgym"):
            source = get_family(family)
            for kind in source.kinds.values():
                for level in kind.levels:
                    # play_lines' generation searches long for some seeds; 3 is quick.
                    seed = 3 if kind.name == "play_lines" else 1
                    made = families.do_generate_family_tasks(
                        family, kind.name, level=level, seed=seed
                    )
                    tasks += made.tasks
        player = self.players[width]
        page = self.signed_in_at(width, player.username)
        for task in tasks:
            attempt = orm(lambda task=task, player=player: families.start_attempt(player, task)[0])
            self.visit(
                page,
                f"/families/attempts/{attempt.pk}/",
                f"{task.family}/{task.kind}/{task.level}",
            )
        assert self.widths.seen == len(tasks) > 16 * 3 + 40
        self.widths.verdict()

    def test_every_game_at_every_level_fits_a_phone(self):
        self.games_fit_at(PHONE)

    def test_every_game_at_every_level_fits_a_desktop(self):
        self.games_fit_at(DESKTOP)

    # -- the study, as a participant sees it ---------------------------------------------

    def test_the_study_pages_a_participant_sees_fit(self):
        call_command("import_domain", str(self.small_domain_file), stdout=StringIO())
        config = StudySettings.objects.create(
            domains=["orchard"],
            easy_truths=4,
            easy_actions=3,
            hard_truths=5,
            hard_actions=4,
            min_median_seconds_per_move=0,
            chance_test_alpha=0,
        )
        for setting in ("--truths 4 --actions 3", "--truths 5 --actions 4"):
            call_command(
                "generate_tasks", "orchard", *setting.split(), "--count", "3", stdout=StringIO()
            )
        call_command(
            "build_task_sets", "--count", "2", "--seed", "1",
            "--family-task", "puzzles/sudoku/9x9", stdout=StringIO(),
        )  # fmt: skip
        for width in WIDTHS:
            self.walk_the_study(config, width)
        self.widths.verdict()

    def walk_the_study(self, config: StudySettings, width: int) -> None:
        label = f"00000000000000000000{width:04d}"
        url = self.live_server_url
        page = self.browser_at(width)
        page.goto(f"{url}/study/join/{config.link_key}/?PROLIFIC_PID={label}")
        page.wait_for_url(f"{url}/study/consent/")
        self.widths.check(page, "study consent")
        page.get_by_role("button", name="I agree to take part").click()
        page.wait_for_url(f"{url}/study/instructions/")
        self.widths.check(page, "study instructions")
        answers = {"valid": "one", "actions": "costs", "outcome": "guide", "colour": "purple"}
        for name, value in answers.items():
            page.check(f"input[name={name}][value={value}]")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(f"{url}/study/practice/")
        self.widths.check(page, "study practice")
        page.get_by_role("button", name="Start the practice task").click()
        page.wait_for_url(re.compile(r"/play/\d+/$"))
        self.wait_until_connected(page)
        self.widths.check(page, "study practice task")
        participant = orm(lambda: Participant.objects.get(label=label))
        practice = orm(
            lambda: participant.user.play_sessions.select_related("instance").get().instance
        )
        self.answer(page, practice.valid_truths[0])
        self.widths.check(page, "study practice task (answered)")
        page.get_by_role("link", name="Continue").click()
        self.widths.check(page, "study practice done")
        page.get_by_role("button", name="Go on to your tasks").click()
        page.wait_for_url(f"{url}/study/tasks/")
        self.widths.check(page, "study task list")
        items = orm(
            lambda: sorted(
                participant.task_set.items.select_related("instance", "family_task"),
                key=lambda item: item.position,
            )
        )
        for item in items:
            page.get_by_role("button", name=f"Start task {item.position}").click()
            if item.family_task is not None:
                page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
                self.widths.check(page, "study family task")
                attempt = orm(
                    lambda item=item: FamilyAttempt.objects.get(
                        player=participant.user, task=item.family_task
                    )
                )
                task = item.family_task
                reference = get_family(task.family).reference_answer(task.to_core())
                orm(
                    lambda attempt=attempt, reference=reference: families.answer_attempt(
                        attempt.pk, participant.user, reference
                    )
                )
                page.reload()
                self.widths.check(page, "study family task (ended)")
                page.get_by_role("link", name="Back to your tasks").click()
            else:
                page.wait_for_url(re.compile(r"/play/\d+/$"))
                self.wait_until_connected(page)
                self.widths.check(page, "study KUMO task")
                self.answer(page, item.instance.valid_truths[0])
                self.widths.check(page, "study KUMO task (answered)")
                page.get_by_role("link", name="Continue").click()
            page.wait_for_url(re.compile(r"/study/(tasks|questionnaire)/$"))
        page.wait_for_url(f"{url}/study/questionnaire/")
        self.widths.check(page, "study questionnaire")
        page.check("input[name=difficulty][value='3']")
        page.check("input[name=help][value=no]")
        page.check("input[name=attention][value=sometimes]")
        page.get_by_role("button", name="Finish").click()
        page.wait_for_url(f"{url}/study/complete/")
        self.widths.check(page, "study end")
