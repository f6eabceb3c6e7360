"""Sudoku (4×4, 9×9, 16×16), each with exactly one solution, proven by a SAT solver.

Generation: a full grid is drawn by shuffling a valid pattern (digits, rows within bands,
bands, columns within stacks, stacks, transposition); clues are then removed in a random
order, each removal kept only when the puzzle still has one solution. Uniqueness is a
single SAT question: the Sudoku rules, the remaining clues as assumptions and one clause
that forbids the reference solution; UNSAT proves no other solution exists.

Difficulty has two knobs, the grid's size (``box``: 2, 3, 4) and the share of cells
emptied (``holes``, in percent, up to as many as uniqueness allows), and one measured grade:
whether naked and hidden singles alone solve the puzzle (``"singles"``) or it needs search
(``"search"``), stored with the puzzle.

LR²Bench's subtasks are the puzzle's empty cells: one is right when the answer's cell at
the same place is the solution's (``lr2_prediction`` reads the answer's grid cell by cell).
Our own units (``by_unit``) are the rows: a row is given when the answer writes it as ``n``
numbers from 1 to ``n`` and right when it equals the solution's row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pysat.solvers import Minisat22

from engine.core.families.base import Kind, Levels, Parameter
from engine.core.families.display import cell as draw_cell
from engine.core.families.puzzles.common import PuzzleKind, Reading, maybe_json
from engine.core.families.puzzles.drawing import answer_grid, solution_grid


def _var(n: int, r: int, c: int, v: int) -> int:
    """The SAT variable "cell (r, c) holds v" (v in 1..n)."""
    return (r * n + c) * n + v


def rules(box: int) -> list[list[int]]:
    """CNF of the Sudoku rules for boxes of ``box``×``box`` (grid side ``box²``)."""
    n = box * box
    clauses: list[list[int]] = []
    cells = [(r, c) for r in range(n) for c in range(n)]
    for r, c in cells:
        clauses.append([_var(n, r, c, v) for v in range(1, n + 1)])
        for v in range(1, n + 1):
            for w in range(v + 1, n + 1):
                clauses.append([-_var(n, r, c, v), -_var(n, r, c, w)])
    units = [[(i, c) for c in range(n)] for i in range(n)]
    units += [[(r, i) for r in range(n)] for i in range(n)]
    units += [
        [(br * box + dr, bc * box + dc) for dr in range(box) for dc in range(box)]
        for br in range(box)
        for bc in range(box)
    ]
    for v in range(1, n + 1):
        for unit in units:
            literals = [_var(n, r, c, v) for r, c in unit]
            clauses.append(literals)
            # At most once per unit too: redundant, but it lets propagation do the work.
            for i, a in enumerate(literals):
                for b in literals[i + 1 :]:
                    clauses.append([-a, -b])
    return clauses


def full_grid(rng, box: int) -> list[list[int]]:
    """A random complete grid (a shuffled pattern; every complete grid up to symmetry)."""
    n = box * box

    def shuffled(seq):
        seq = list(seq)
        rng.shuffle(seq)
        return seq

    bands = shuffled(range(box))
    rows = [b * box + r for b in bands for r in shuffled(range(box))]
    stacks = shuffled(range(box))
    cols = [s * box + c for s in stacks for c in shuffled(range(box))]
    digits = shuffled(range(1, n + 1))
    grid = [[digits[(box * (r % box) + r // box + c) % n] for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(column) for column in zip(*grid, strict=True)]
    return grid


class UniquenessOracle:
    """Answers "does this set of clues leave exactly one solution?" for one solution."""

    def __init__(self, box: int, solution: list[list[int]]) -> None:
        self.n = box * box
        self.solver = Minisat22(bootstrap_with=rules(box))
        n = self.n
        # Any other solution differs from this one in at least one cell.
        self.solver.add_clause([-_var(n, r, c, solution[r][c]) for r in range(n) for c in range(n)])
        self.solution = solution

    def unique(self, clues: list[tuple[int, int]]) -> bool:
        n = self.n
        assumptions = [_var(n, r, c, self.solution[r][c]) for r, c in clues]
        return not self.solver.solve(assumptions=assumptions)

    def close(self) -> None:
        self.solver.delete()


def solutions_count(box: int, puzzle: list[list[int]], limit: int = 2) -> int:
    """How many solutions the puzzle has, counting up to ``limit`` (for tests and checks)."""
    n = box * box
    found = 0
    with Minisat22(bootstrap_with=rules(box)) as solver:
        for r in range(n):
            for c in range(n):
                if puzzle[r][c]:
                    solver.add_clause([_var(n, r, c, puzzle[r][c])])
        while found < limit and solver.solve():
            found += 1
            model = solver.get_model()
            solver.add_clause([-lit for lit in model if lit > 0 and lit <= n * n * n])
    return found


def singles_solve(box: int, puzzle: list[list[int]]) -> bool:
    """Whether naked and hidden singles alone fill the grid (the "easy" human techniques)."""
    n = box * box
    grid = [row[:] for row in puzzle]
    units = (
        [[(r, c) for c in range(n)] for r in range(n)]
        + [[(r, c) for r in range(n)] for c in range(n)]
        + [
            [(br * box + dr, bc * box + dc) for dr in range(box) for dc in range(box)]
            for br in range(box)
            for bc in range(box)
        ]
    )
    peers: dict[tuple[int, int], set] = {}
    for unit in units:
        for cell in unit:
            peers.setdefault(cell, set()).update(unit)
    progress = True
    while progress:
        progress = False
        candidates = {}
        for r in range(n):
            for c in range(n):
                if not grid[r][c]:
                    used = {grid[pr][pc] for pr, pc in peers[(r, c)]}
                    candidates[(r, c)] = set(range(1, n + 1)) - used
        if not candidates:
            return True
        for (r, c), values in candidates.items():
            if len(values) == 1:
                grid[r][c] = values.pop()
                progress = True
        if progress:
            continue
        for unit in units:
            for v in range(1, n + 1):
                spots = [cell for cell in unit if v in candidates.get(cell, ())]
                if len(spots) == 1 and not any(grid[r][c] == v for r, c in unit):
                    r, c = spots[0]
                    grid[r][c] = v
                    progress = True
    return all(all(row) for row in grid)


def format_grid(grid: list[list[int]]) -> str:
    return "[" + ",\n ".join(json.dumps(row) for row in grid) + "]"


class Sudoku(PuzzleKind):
    subtask_name = "row"
    lr2_type = "sudoku"
    lr2_units = "empty cells"
    kind = Kind(
        "sudoku",
        "Sudoku (4×4, 9×9, 16×16) with a unique solution",
        "the completed grid as a JSON list of rows",
        (
            Parameter("box", 2, 2, 4, "box size: 2 for 4×4, 3 for 9×9, 4 for 16×16"),
            Parameter("holes", 50, 20, 90, "share of cells emptied, in percent (at most)"),
        ),
        # LR²Bench's levels by their givens: 4×4 easy 6, hard 5; 9×9 easy 33–36 (35),
        # hard 28–32 (29); then beyond them a minimal 9×9 (no clue can go) and 16×16.
        Levels(
            {
                "4x4": {"box": 2, "holes": 63},
                "4x4-hard": {"box": 2, "holes": 69},
                "9x9": {"box": 3, "holes": 57},
                "9x9-hard": {"box": 3, "holes": 65},
                "9x9-minimal": {"box": 3, "holes": 80},
                "16x16": {"box": 4, "holes": 65},
            },
            aliases={
                "easy": "4x4",
                "4x4_hard": "4x4-hard",
                "medium": "9x9",
                "hard": "9x9-minimal",
                "expert": "16x16",
            },
        ),
    )

    def generate(self, rng, params: Mapping[str, int]):
        box = params["box"]
        n = box * box
        solution = full_grid(rng, box)
        cells = [(r, c) for r in range(n) for c in range(n)]
        order = cells[:]
        rng.shuffle(order)
        target = n * n * params["holes"] // 100
        clues = set(cells)
        oracle = UniquenessOracle(box, solution)
        try:
            removed = 0
            for cell in order:
                if removed >= target:
                    break
                clues.discard(cell)
                if oracle.unique(sorted(clues)):
                    removed += 1
                else:
                    clues.add(cell)
        finally:
            oracle.close()
        puzzle = [[solution[r][c] if (r, c) in clues else 0 for c in range(n)] for r in range(n)]
        grade = "singles" if singles_solve(box, puzzle) else "search"
        text = (
            f"Here is a {n} x {n} Sudoku puzzle (0 marks an empty cell). Fill every empty cell "
            f"with a number from 1 to {n} so that each row, each column and each {box} x {box} "
            f"box contains every number from 1 to {n} exactly once.\n\n{format_grid(puzzle)}"
        )
        public = {"text": text, "size": n, "box": box, "grid": puzzle, "givens": len(clues)}
        return public, {"solution": solution, "grade": grade}

    def expected(self, hidden) -> list[Any]:
        return [tuple(row) for row in hidden["solution"]]

    def lr2_gold(self, public, hidden) -> Any:
        return {"grid": public["grid"], "answer": hidden["solution"]}

    def lr2_prediction(self, public, answer) -> Any | None:
        """The answer's grid, cell by cell (a digit written as text counts as its number);
        None when no row can be read."""
        rows = _grid_rows(answer, public["size"])
        if not isinstance(rows, list):
            return None
        grid = []
        for row in rows:
            if isinstance(row, str):
                row = [int(d) for d in re.findall(r"\d+", row)]
            if not isinstance(row, list):
                grid.append([])
                continue
            grid.append([int(v) if isinstance(v, str) and v.strip().isdigit() else v for v in row])
        return grid if any(grid) else None

    def render(self, hidden) -> str:
        return format_grid(hidden["solution"])

    def random_answer(self, public, rng) -> str:
        n = public["size"]
        grid = [[v or rng.randint(1, n) for v in row] for row in public["grid"]]
        return format_grid(grid)

    def _square(self, public, hidden, rows):
        n, puzzle = public["size"], public["grid"]

        def square(r: int, c: int):
            if puzzle[r][c]:
                given = puzzle[r][c]
                return (
                    "fixed",
                    draw_cell(given, "given", f"row {r + 1}, column {c + 1}: given {given}"),
                    None,
                )
            value = ""
            if (
                rows is not None
                and r < len(rows)
                and isinstance(rows[r], list)
                and c < len(rows[r])
            ):
                found = rows[r][c]
                if isinstance(found, int) and not isinstance(found, bool) and 1 <= found <= n:
                    value = found
            return "open", value, hidden["solution"][r][c]

        return square

    def answer_display(self, public, hidden, answer, *, marked):
        n = public["size"]
        rows = self.lr2_prediction(public, answer)
        square = self._square(public, hidden, rows)
        return answer_grid(n, n, square, marked=marked, caption="Your grid")

    def solution_display(self, public, hidden):
        n = public["size"]
        return solution_grid(n, n, self._square(public, hidden, None), caption="The solution")

    def answer_help(self, public) -> str:
        n = public["size"]
        return f"a JSON list of {n} rows, each a list of {n} numbers, like the puzzle's grid"

    def read(self, public: Mapping[str, Any], answer: Any) -> Reading:
        n = public["size"]
        rows = _grid_rows(answer, n)
        problems: list[str] = []
        subtasks: list[Any] = [None] * n
        if not isinstance(rows, list):
            return Reading(subtasks, ["the answer is not a list of rows"])
        if len(rows) != n:
            problems.append(f"the answer has {len(rows)} rows, not {n}")
        for index, row in enumerate(rows[:n]):
            values = _row_values(row, n)
            if values is None:
                problems.append(f"row {index + 1} is not {n} numbers from 1 to {n}")
            else:
                subtasks[index] = values
        return Reading(subtasks, problems)


def _grid_rows(answer: Any, n: int) -> Any:
    """The answer's rows: a JSON (or Python-style) list, or lines of numbers."""
    rows = maybe_json(answer)
    if isinstance(rows, str):
        lines = [line for line in rows.splitlines() if re.search(r"\d", line)]
        rows = [re.findall(r"\d+", line) for line in lines]
        if n <= 9:  # "4231" written without separators
            rows = [list(r[0]) if len(r) == 1 and len(r[0]) == n else r for r in rows]
    return rows


def _row_values(row: Any, n: int) -> tuple[int, ...] | None:
    if isinstance(row, str):
        row = re.findall(r"\d+", row)
    if not isinstance(row, list) or len(row) != n:
        return None
    values = []
    for value in row:
        if isinstance(value, bool):
            return None
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if not isinstance(value, int) or not 1 <= value <= n:
            return None
        values.append(value)
    return tuple(values)


KINDS = (Sudoku(),)
