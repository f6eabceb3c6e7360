"""LR²Bench itself (family ``lr2bench``): its items imported from a folder in its format, its
replies read as it reads them, and its figures as its own evaluation code gives them.

The items are synthetic (``lr2bench_data``: our generated puzzles written in LR²Bench's
format, plus a hand-made grid of grades), never LR²Bench's. ``lr2bench_reference.json``
holds the figures LR²Bench's own ``1-extract_answer.py`` and ``2-merge_answer.py`` gave on
those items for five replies each (``benchmarks/lr2bench_fidelity.py`` wrote it); ours are
pinned to them, on the family and on the board."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmark.fake_llm import FakeChatServer, FakeResponse
from engine.core.families.base import FamilyError, FamilyInstance, get_family
from engine.core.families.lr2bench import scoring
from engine.core.families.lr2bench.release import read_release
from engine.models import FamilyTask
from leaderboard.family_board import family_rows

HERE = Path(__file__).parent
DATA = HERE / "lr2bench_data"
REFERENCE = json.loads((HERE / "lr2bench_reference.json").read_text(encoding="utf-8"))
FAMILY = get_family("lr2bench")
FIGURES = ("CR", "S-Acc", "EM", "PM-0.5")


def row(*cells: str) -> str:
    """A line of the import's closing report (columns padded with spaces)."""
    return " ".join(cells)


def report_lines(text: str) -> set[str]:
    return {" ".join(line.split()) for line in text.splitlines()}


def instance(task_type: str, gold, public: dict | None = None) -> FamilyInstance:
    return FamilyInstance("lr2bench", task_type, {}, 0, public or {}, {"gold": gold})


def scored(task_type: str, gold, reply: str) -> dict:
    task = instance(task_type, gold)
    return dict(FAMILY.score(task, FAMILY.parse_reply(task, reply).answer).details)


def pooled(task_type: str, pairs) -> dict[str, float]:
    """LR²Bench's four figures of a level whose items are (gold, reply) pairs."""
    items = []
    for gold, reply in pairs:
        d = scored(task_type, gold, reply)
        items.append(scoring.ItemScore(bool(d["cr"]), d["right"], d["subtasks"]))
    return scoring.pool(items).figures()


# -- import ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_import_stores_every_item_once_with_its_answer_hidden():
    out = StringIO()
    call_command("import_lr2bench", str(DATA), stdout=out)
    assert "lr2bench: 35 item(s), 0 problem(s)" in out.getvalue()
    assert row("sudoku", "9_9_hard", "2", "0", "0") in report_lines(out.getvalue())
    tasks = FamilyTask.objects.filter(family="lr2bench")
    assert tasks.count() == 35
    assert set(tasks.values_list("origin", flat=True)) == {"imported"}
    grades = tasks.get(kind="logic", level="4_4", params={"item": "GRADES", "level": "4_4"})
    assert grades.hidden["gold"][1] == {"students": "Ben", "grades": "A-", "clubs": "drama"}
    assert "A-" not in json.dumps(grades.public) and grades.public["lr2_subtasks"] == 8
    drop = tasks.filter(kind="drop").first()
    assert "gold" not in drop.public and drop.public["text"]

    again = StringIO()
    call_command("import_lr2bench", str(DATA.parent / DATA.name), stdout=again)
    assert row("drop", "hard", "0", "0", "2") in report_lines(again.getvalue())
    assert FamilyTask.objects.filter(family="lr2bench").count() == 35


@pytest.mark.django_db
def test_a_checkout_with_the_data_folder_inside_imports_and_a_changed_item_updates(tmp_path):
    shutil.copytree(DATA, tmp_path / "data")
    call_command("import_lr2bench", str(tmp_path), stdout=StringIO())
    answers = json.loads((tmp_path / "data" / "answer.json").read_text())
    entry = next(a for a in answers["logic"] if a["tag"] == "GRADES")
    gold = json.loads(entry["answer"])
    gold[0]["clubs"] = "judo"
    entry["answer"] = json.dumps(gold)
    (tmp_path / "data" / "answer.json").write_text(json.dumps(answers))
    out = StringIO()
    call_command("import_lr2bench", str(tmp_path), stdout=out)
    assert row("logic", "4_4", "0", "1", "2") in report_lines(out.getvalue())
    task = FamilyTask.objects.get(family="lr2bench", params__item="GRADES")
    assert task.hidden["gold"][0]["clubs"] == "judo"


@pytest.mark.django_db
def test_unusable_items_are_named_and_the_rest_imported(tmp_path):
    shutil.copytree(DATA, tmp_path / "data")
    items = tmp_path / "data" / "4-sudoku" / "4_4_easy" / "data.jsonl"
    items.write_text(items.read_text() + "not json\n" + json.dumps({"tag": "X9"}) + "\n")
    shutil.rmtree(tmp_path / "data" / "5-drop" / "hard")
    out, err = StringIO(), StringIO()
    call_command("import_lr2bench", str(tmp_path), stdout=out, stderr=err)
    problems = err.getvalue()
    assert "sudoku/4_4_easy line 3: not JSON" in problems
    assert "sudoku/4_4_easy line 4: no tag or example_text" in problems
    assert "drop/hard: no data.jsonl" in problems
    assert "lr2bench: 33 item(s), 3 problem(s)" in out.getvalue()


def test_a_folder_that_is_no_checkout_is_refused(tmp_path):
    with pytest.raises(CommandError, match="neither an LR²Bench checkout"):
        call_command("import_lr2bench", str(tmp_path))
    with pytest.raises(FamilyError, match="published, never generated"):
        FAMILY.generate("sudoku", 1)


# -- LR²Bench's own figures, pinned ----------------------------------------------------------


def test_the_fixture_covers_every_type_level_and_reply():
    seen = {(r["type"], r["level"], r["variant"]) for r in REFERENCE}
    assert len(seen) == 17 * 5
    assert {r["type"] for r in REFERENCE} == set(scoring.TYPES)


@pytest.mark.parametrize(
    "row", REFERENCE, ids=[f"{r['type']}-{r['level']}-{r['variant']}" for r in REFERENCE]
)
def test_our_figures_are_those_of_lr2bench_own_code(row):
    items = {
        item.tag: item
        for item in read_release(DATA).items
        if (item.task_type, item.level) == (row["type"], row["level"])
    }
    assert set(items) == set(row["replies"])
    figures = pooled(
        row["type"], [(items[tag].hidden["gold"], reply) for tag, reply in row["replies"].items()]
    )
    for name in FIGURES:
        assert figures[name] == pytest.approx(row["lr2bench"][name], abs=1e-12), name


# -- figures worked out by hand from LR²Bench's definitions ----------------------------------

SUDOKU = {
    "grid": [[4, 0, 0, 0], [0, 3, 2, 0], [0, 4, 1, 0], [0, 0, 0, 2]],
    "answer": [[4, 2, 3, 1], [1, 3, 2, 4], [2, 4, 1, 3], [3, 1, 4, 2]],
}  # 10 empty cells


def test_one_wrong_sudoku_cell_costs_one_empty_cell():
    grid = [row[:] for row in SUDOKU["answer"]]
    grid[0][1] = 1  # one empty cell wrong
    details = scored("sudoku", SUDOKU, f"Solved.\n<Answer>\n{json.dumps(grid)}\n</Answer>")
    assert (details["right"], details["subtasks"], details["em"], details["pm05"]) == (9, 10, 0, 1)
    assert details["s_acc"] == pytest.approx(0.9)
    # A given cell changed is no subtask: LR²Bench counts the empty cells only.
    grid = [row[:] for row in SUDOKU["answer"]]
    grid[0][0] = 1
    assert scored("sudoku", SUDOKU, f"<answer>{grid}</answer>")["em"] == 1


def test_a_level_pools_subtasks_not_shares():
    wrong = [row[:] for row in SUDOKU["answer"]]
    wrong[0][1] = 1
    figures = pooled(
        "sudoku",
        [
            (SUDOKU, f"<Answer>{json.dumps(wrong)}</Answer>"),  # 9 of 10
            (SUDOKU, "I give up."),  # nothing extracted: 0 of 10, not completed
            (SUDOKU, f"<Answer>{json.dumps(SUDOKU['answer'])}</Answer>"),  # 10 of 10
        ],
    )
    assert figures == {"CR": 2 / 3, "S-Acc": 19 / 30, "EM": 1 / 3, "PM-0.5": 2 / 3}


DROP = [["I", "T", "#", "I", "S"], ["#", "S", "O", ".", "#"]]  # 7 cells that are not "#"


def test_drop_quote_cells_and_a_free_text_reply():
    half = [["I", "T", "#", "X", "X"], ["#", "X", "O", ".", "#"]]  # 4 of 7 right
    details = scored("drop", DROP, f"<Answer>{json.dumps(half)}</Answer>")
    assert (details["right"], details["subtasks"], details["pm05"]) == (4, 7, 1)
    free = scored("drop", DROP, "<Answer>\nIT IS SO.\n</Answer>")
    assert (free["cr"], free["right"], free["subtasks"]) == (0, 0, 7)


def test_cryptogram_mapping_block_is_the_answer():
    gold = {"X": "T", "M": "H", "L": "E"}
    reply = "Decoded.\n<Mapping>\n{'X': 'T', 'M': 'H', 'L': 'A'}\n</Mapping>\n<Answer>THE</Answer>"
    task = instance("cryptogram", gold)
    parsed = FAMILY.parse_reply(task, reply)
    assert parsed.error == "" and parsed.answer == "{'X': 'T', 'M': 'H', 'L': 'A'}"
    assert dict(FAMILY.score(task, parsed.answer).details)["right"] == 2
    only_quote = FAMILY.parse_reply(task, "<Answer>{'X': 'T'}</Answer>")
    assert only_quote.answer == "{}" and "Mapping" in only_quote.error


GRADES = [
    {"students": "Ana", "grades": "A", "clubs": "chess"},
    {"students": "Ben", "grades": "A-", "clubs": "drama"},
    {"students": "Cai", "grades": "B+", "clubs": "choir"},
    {"students": "Dee", "grades": "B-", "clubs": "rowing"},
]


def test_logic_answers_keyed_by_the_first_category_and_values_never_folded():
    assert scored("logic", GRADES, f"<Answer>{json.dumps(GRADES)}</Answer>")["em"] == 1
    folded = [dict(p) for p in GRADES]
    folded[1]["grades"] = "A"  # "A-" read as "A" is wrong
    folded[3]["grades"] = "B+"
    details = scored("logic", GRADES, f"<Answer>{json.dumps(folded)}</Answer>")
    assert (details["right"], details["subtasks"]) == (6, 8)
    # Entries are found by the first category's value (any case); one not found scores 0.
    shuffled = [{"Clubs": "CHESS", "Grades": "a", "Students": "ana"}, GRADES[2]]
    assert scored("logic", GRADES, f"<Answer>{json.dumps(shuffled)}</Answer>")["right"] == 4


def test_crossword_values_compared_without_spaces_or_case():
    gold = {"1-ACROSS": "ICE AGE", "1-DOWN": "IDO"}
    reply = '<Answer>{"1-Across": "iceage", "1-Down": "I-D-O"}</Answer>'
    assert scored("crossword", gold, reply)["right"] == 1


def test_structured_answers_over_the_api_shape():
    task = instance("sudoku", SUDOKU)
    assert FAMILY.score(task, SUDOKU["answer"]).correct
    assert FAMILY.score(task, [[]]).details["cr"] == 0


# -- on the platform: the runner, then the board's pooled row ---------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_board_shows_the_figures_lr2bench_gives(rebuild_board):
    call_command("import_lr2bench", str(DATA), stdout=StringIO())
    rows = {
        r["level"]: r for r in REFERENCE if r["type"] == "sudoku" and r["variant"] == "half_wrong"
    }
    tasks = {
        t.public["text"]: t for t in FamilyTask.objects.filter(family="lr2bench", kind="sudoku")
    }

    def script(request):
        task = tasks[request.messages[-1]["content"]]
        return FakeResponse(content=rows[task.level]["replies"][task.params["item"]])

    with FakeChatServer(script) as server:
        out = StringIO()
        call_command(
            "run_family_tasks", "--family", "lr2bench", "--kind", "sudoku", "--model",
            "fake-lr2", "--base-url", server.base_url, "--concurrency", "1", stdout=out,
        )  # fmt: skip
    assert "8 played" in out.getvalue()
    rebuild_board(full=True)
    board = {r.level: r for r in family_rows(family="lr2bench") if r.player == "fake-lr2"}
    assert set(board) == set(scoring.LEVELS["sudoku"])
    for level, board_row in board.items():
        lr2 = rows[level]["lr2bench"]
        figures = board_row.subtasks
        assert (figures.cr, figures.em, figures.pm05) == pytest.approx(
            (lr2["CR"], lr2["EM"], lr2["PM-0.5"])
        )
        assert figures.s_acc == pytest.approx(lr2["S-Acc"])
    blank = StringIO()
    call_command(
        "run_family_tasks", "--family", "lr2bench", "--kind", "sudoku", "--model", "blank",
        stdout=blank,
    )  # fmt: skip
    assert "8 played, 0 correct, 8 parse error(s)" in blank.getvalue()
    rebuild_board(full=True)
    row = next(r for r in family_rows(family="lr2bench") if r.player == "blank")
    assert (row.subtasks.cr, row.subtasks.s_acc, row.subtasks.em) == (0.0, 0.0, 0.0)


def test_a_logic_grid_keeps_its_first_category_whatever_order_the_store_kept():
    """PostgreSQL's jsonb sorts an object's keys (shortest first): the person is still found
    by the category LR²Bench's file wrote first ("students" here, not "clubs")."""
    item = next(i for i in read_release(DATA).items if i.tag == "GRADES")
    stored = dict(item.hidden)
    stored["gold"] = [dict(sorted(p.items(), key=lambda kv: len(kv[0]))) for p in GRADES]
    task = FamilyInstance("lr2bench", "logic", {}, 0, item.public, stored)
    # Two entries share Ana's club: the one with her name (the file's first category) counts.
    reply = [{"students": "Bob", "clubs": "chess", "grades": "B"}, GRADES[0]]
    details = FAMILY.score(task, reply).details
    assert (details["right"], details["subtasks"]) == (2, 8)
    assert json.loads(FAMILY.reference_answer(task))[0] == GRADES[0]
    assert list(json.loads(FAMILY.reference_answer(task))[0]) == ["students", "grades", "clubs"]


@pytest.mark.django_db
def test_an_item_is_played_in_the_browser_as_text_in_lr2bench_format(client, make_user):
    from django.urls import reverse

    from engine import families

    call_command("import_lr2bench", str(DATA), stdout=StringIO())
    task = FamilyTask.objects.get(family="lr2bench", kind="sudoku", params__item="S14_4_easy")
    user = make_user("solver")
    client.force_login(user)
    attempt, _ = families.start_attempt(user, task)
    url = reverse("family-attempt", args=[attempt.pk])
    page = client.get(url).content.decode()
    assert 'id="sudoku-grid"' not in page and 'name="answer"' in page  # no generated widget
    assert json.dumps(task.hidden["gold"]["answer"]) not in page
    grid = [row[:] for row in task.hidden["gold"]["answer"]]
    r, c = next((r, c) for r, row in enumerate(task.hidden["gold"]["grid"]) for c, v in
                enumerate(row) if v == 0)  # fmt: skip
    grid[r][c] = grid[r][c] % 4 + 1
    answered = client.post(url, {"answer": f"<Answer>{grid}</Answer>"}, follow=True)
    attempt.refresh_from_db()
    empty = task.public["lr2_subtasks"]
    assert (attempt.details["right"], attempt.details["subtasks"]) == (empty - 1, empty)
    assert f"{empty - 1} of {empty} empty cells" in answered.content.decode()
