/* Keyboard navigation in a Sudoku grid (templates/engine/family_attempt.html): arrow keys
 * move between cells (skipping nothing: givens can be passed over but not edited), a digit
 * typed into a cell of a grid up to 9×9 replaces its value and moves on, Backspace clears.
 * The answer is the form itself (cell-R-C fields), checked on the server only. */
(function () {
  "use strict";
  const grid = document.getElementById("sudoku-grid");
  if (!grid) return;
  const rows = Array.from(grid.rows).map((tr) => Array.from(tr.querySelectorAll("input")));
  const size = rows.length;
  function focus(r, c) {
    r = (r + size) % size;
    c = (c + size) % size;
    rows[r][c].focus();
    if (!rows[r][c].readOnly) rows[r][c].select();
  }
  rows.forEach((cells, r) =>
    cells.forEach((input, c) => {
      input.addEventListener("keydown", (event) => {
        const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
        if (moves[event.key]) {
          event.preventDefault();
          focus(r + moves[event.key][0], c + moves[event.key][1]);
        } else if (size <= 9 && /^[1-9]$/.test(event.key) && !input.readOnly) {
          event.preventDefault();
          if (Number(event.key) <= size) {
            input.value = event.key;
            // On to the next empty cell in reading order.
            for (let i = r * size + c + 1; i < size * size; i++) {
              const next = rows[Math.floor(i / size)][i % size];
              if (!next.readOnly && !next.value) { focus(Math.floor(i / size), i % size); break; }
            }
          }
        }
      });
      // Givens stay focusable by arrows but never take typing.
      if (input.readOnly) input.tabIndex = -1;
    })
  );
})();
