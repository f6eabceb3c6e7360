/* Keyboard play in a crossword or drop-quote grid (templates/engine/family_attempt.html):
 * a letter fills the square and moves on in the current direction (across, or down in a
 * crossword: Space or clicking the focused square again turns it), arrows move, Backspace
 * clears and moves back. The answer is the form itself (letter-R-C fields); the server
 * reads the entries or rows from it and checks them only at submission. */
(function () {
  "use strict";
  const grid = document.getElementById("crossword-grid") || document.getElementById("dropquote-grid");
  if (!grid) return;
  const turnable = grid.id === "crossword-grid";
  const cells = {};
  grid.querySelectorAll("input[name^='letter-']").forEach((input) => {
    const [, r, c] = input.name.split("-").map(Number);
    cells[r + "," + c] = input;
    input.dataset.r = r;
    input.dataset.c = c;
  });
  const rows = grid.rows.length;
  const cols = Math.max(...Array.from(grid.rows).map((tr) => tr.cells.length));
  let across = true;
  function step(input, dr, dc) {
    let r = Number(input.dataset.r) + dr;
    let c = Number(input.dataset.c) + dc;
    while (r >= 0 && c >= 0 && r < rows && c < cols) {
      const next = cells[r + "," + c];
      if (next) return next;
      if (turnable) return null; // a crossword entry ends at a block
      r += dr;
      c += dc;
    }
    return null;
  }
  Object.values(cells).forEach((input) => {
    input.addEventListener("mousedown", () => {
      if (turnable && document.activeElement === input) across = !across;
    });
    input.addEventListener("keydown", (event) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (moves[event.key]) {
        event.preventDefault();
        const next = step(input, ...moves[event.key]);
        if (next) next.focus();
      } else if (event.key === " " && turnable) {
        event.preventDefault();
        across = !across;
      } else if (event.key === "Backspace") {
        event.preventDefault();
        if (input.value) {
          input.value = "";
        } else {
          const back = step(input, across ? 0 : -1, across ? -1 : 0);
          if (back) { back.value = ""; back.focus(); }
        }
      } else if (/^[a-zA-Z]$/.test(event.key)) {
        event.preventDefault();
        input.value = event.key.toUpperCase();
        const next = step(input, across ? 0 : 1, across ? 1 : 0);
        if (next) next.focus();
      }
    });
  });
})();
