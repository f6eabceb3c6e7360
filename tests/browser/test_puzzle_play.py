"""Constraint puzzles solved in a real browser (Debian's chromium) as a person would: a 4×4
Sudoku typed with the keyboard (digits move on to the next empty cell, arrows move
around, givens cannot be typed over) and a small logic grid chosen in its matrix; the
solution is checked on the server only at submission and never on the page before."""

from __future__ import annotations

import json
import re

from django.contrib.auth.models import User
from playwright.sync_api import expect

from engine.core.families.base import get_family
from engine.models import FamilyAttempt
from tests.browser.test_play_page import PASSWORD, BrowserTestCase, orm


class PuzzlePlayTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        User.objects.create_user("solver", password=PASSWORD)

    def start(self, kind: str, level: str = "easy"):
        # The families page names levels by size ("easy" is an alias of the smallest).
        level = get_family("puzzles").kind(kind).canonical_level(level)
        self.store_task("puzzles", kind, level)
        page = self.start_browser()
        self.log_in(page, "solver", PASSWORD, "/families/")
        page.locator(f'tr[data-family="puzzles"][data-kind="{kind}"]').get_by_role(
            "button", name=level, exact=True
        ).click()
        page.wait_for_url(re.compile(r"/families/attempts/\d+/$"))
        attempt = orm(
            lambda: FamilyAttempt.objects.select_related("task").get(
                player__username="solver", task__kind=kind
            )
        )
        html = page.content()
        assert "A right answer" not in html
        return page, attempt

    def test_a_4x4_sudoku_typed_with_the_keyboard(self):
        page, attempt = self.start("sudoku")
        task = attempt.task
        grid, solution = task.public["grid"], task.hidden["solution"]
        assert json.dumps(solution) not in page.content()
        empties = [(r, c) for r in range(4) for c in range(4) if not grid[r][c]]
        # Start at the last cell and come back with the arrows: wrapping right from the
        # end of a row lands on the start of the same row.
        last_r, last_c = empties[-1]
        page.locator(f'input[name="cell-{last_r}-{last_c}"]').click()
        first_r, first_c = empties[0]
        for _ in range(last_r - first_r):
            page.keyboard.press("ArrowUp")
        for _ in range((first_c - last_c) % 4):
            page.keyboard.press("ArrowRight")
        expect(page.locator(f'input[name="cell-{first_r}-{first_c}"]')).to_be_focused()
        for r, c in empties:
            page.keyboard.type(str(solution[r][c]))
        for r, c in empties:
            expect(page.locator(f'input[name="cell-{r}-{c}"]')).to_have_value(str(solution[r][c]))
        given = next((r, c) for r in range(4) for c in range(4) if grid[r][c])
        page.locator(f'input[name="cell-{given[0]}-{given[1]}"]').click()
        page.keyboard.type("9")
        expect(page.locator(f'input[name="cell-{given[0]}-{given[1]}"]')).to_have_value(
            str(grid[given[0]][given[1]])
        )
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        e = len(empties)  # LR²Bench's subtasks: the empty cells
        expect(page.locator("#family-figures")).to_contain_text(f"{e} of {e} empty cells")
        done = orm(lambda: FamilyAttempt.objects.get(pk=attempt.pk))
        assert done.correct and done.details["em"] == 1 and json.loads(done.answer) == solution

    def test_a_small_logic_grid_chosen_in_the_matrix(self):
        page, attempt = self.start("logic_grid")
        task = attempt.task
        expect(page.locator("#clues li")).to_have_count(len(task.public["clues"]))
        names = task.public["variables"]["names"]
        for row in task.hidden["solution"]:
            e = names.index(row["names"])
            for category, value in row.items():
                if category != "names":
                    page.select_option(f'select[name="pick-{e}-{category}"]', value)
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        cells = len(names) * (len(task.public["variables"]) - 1)  # person × attribute
        expect(page.locator("#family-figures")).to_contain_text(
            f"{cells} of {cells} person attributes"
        )

    def test_a_half_filled_grid_is_scored_by_its_cells_and_rows(self):
        page, attempt = self.start("sudoku")
        solution = attempt.task.hidden["solution"]
        grid = attempt.task.public["grid"]
        for c in range(4):
            if not grid[0][c]:
                page.fill(f'input[name="cell-0-{c}"]', str(solution[0][c]))
        # The page asks before sending an answer with empty cells: first no, then yes.
        asked: list[str] = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
        page.get_by_role("button", name="Answer").click()
        empty = sum(row.count(0) for row in grid[1:])
        expect(page.locator("#family-answer-form")).to_be_visible()
        assert asked and asked[0].startswith(f"{empty} cell")
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Not correct")
        done = orm(lambda: FamilyAttempt.objects.get(pk=attempt.pk))
        complete_rows = sum(all(v for v in row) for row in grid[1:]) + 1
        by_unit = done.details["by_unit"]  # our own view: rows
        assert by_unit["given"] == complete_rows and by_unit["right"] == complete_rows
        assert done.details["right"] == grid[0].count(0)  # LR²Bench's: the cells typed
        blank_row = next(r for r in range(1, 4) if not all(grid[r])) + 1
        expect(page.locator("#family-unread")).to_contain_text(f"row {blank_row} ")

    def test_a_cryptogram_by_its_letter_mapping(self):
        page, attempt = self.start("cryptogram")
        task = attempt.task
        expect(page.locator("#task-text")).to_contain_text(task.public["ciphertext"][:20])
        assert task.hidden["plaintext"] not in page.content()
        for cipher, plain in task.hidden["solution"].items():
            if cipher not in task.public["hints"]:
                page.fill(f'input[name="map-{cipher}"]', plain.lower())
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        n = len(task.hidden["solution"])
        expect(page.locator("#family-figures")).to_contain_text(f"{n} of {n} cipher letters")

    def test_a_crossword_typed_into_its_grid(self):
        page, attempt = self.start("crossword")
        task = attempt.task
        numbers = {n: (r, c) for r, c, n in task.public["numbers"]}
        assert not any(
            word in page.content() for word in task.hidden["solution"].values() if len(word) > 3
        )
        # Across entries typed left to right; down entries after Space turns the direction.
        for key, word in task.hidden["solution"].items():
            number, direction = key.split("-")
            r, c = numbers[int(number)]
            page.locator("h1").click()  # a click on a focused square would turn direction
            page.locator(f'input[name="letter-{r}-{c}"]').click()
            if direction == "Down":
                page.keyboard.press(" ")
            page.keyboard.type(word.lower())
            if direction == "Down":
                page.keyboard.press(" ")  # back to across for the next entry
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
        n = len(task.hidden["solution"])
        expect(page.locator("#family-figures")).to_contain_text(f"{n} of {n} entries")

    def test_a_drop_quote_rebuilt_in_its_grid(self):
        page, attempt = self.start("dropquote")
        task = attempt.task
        for r, row in enumerate(task.hidden["solution"]):
            for c, ch in enumerate(row):
                if task.public["shape"][r][c] == "_":
                    page.fill(f'input[name="letter-{r}-{c}"]', ch.lower())
        page.get_by_role("button", name="Answer").click()
        expect(page.locator("#family-result-heading")).to_have_text("Correct")
