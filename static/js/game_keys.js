/* A game played by keys (templates/engine/family_attempt.html): a mapped key — or a click
 * on its button — plays its move through the same form as a typed move, so the server
 * checks it the same way (over the page's socket when it is open). Keys typed into the move box still go to the box once it holds
 * text (so arrow keys can move the caret in a half-typed move). */
(function () {
  "use strict";
  const form = document.getElementById("family-answer-form");
  const box = document.getElementById("move");
  const source = document.getElementById("game-keymap");
  if (!form || !box || !source) return;
  const keymap = JSON.parse(source.textContent);
  let sent = false;

  function play(move) {
    // Over the page's socket (family_game.js) every key is a move, played in order;
    // through the form, one move a page: the next page shows its result.
    const live = window.kumoFamilyGame && window.kumoFamilyGame.connected();
    if (!live) {
      if (sent) return;
      sent = true;
    }
    box.value = move;
    form.requestSubmit();
  }

  document.addEventListener("keydown", (event) => {
    const move = keymap[event.key];
    if (!move || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target === box && box.value.trim() !== "") return;
    if (event.target !== box && event.target.closest("input, textarea, select")) return;
    event.preventDefault();
    play(move);
  });
  document.querySelectorAll("button.game-key").forEach((button) => {
    button.addEventListener("click", () => play(button.dataset.move));
  });
})();
