/* A game of another family (templates/engine/family_attempt.html) played over the page's
 * websocket (engine.consumers.FamilyAttemptConsumer), as a KUMO game is: a move goes to
 * the server, which checks it with the same service as the form, and every page open on
 * the game is sent the board again (drawn by the server, escaped as every page is). Once
 * the game has ended the page loads itself again to show the result.
 *
 * Without a connection the form posts as before (a page per move), so the game is never
 * stuck; the socket is tried again in the background (live_socket.js, as KUMO's page). */
(function () {
  "use strict";
  const live = document.getElementById("game-live");
  const form = document.getElementById("family-answer-form");
  const box = document.getElementById("move");
  const problem = document.getElementById("game-error");
  if (!live || !form || !box || !("WebSocket" in window)) return;
  let steps = Number(live.dataset.steps) || 0;
  let socket = null; // the game's socket (live_socket.js), opened at the end
  let pendingTimer = null;
  let ended = false;
  // The rules with the starting board are folded away once the game has begun (as a page
  // drawn after a move has them); a player who opens them again keeps them open.
  const rules = document.querySelector("details.task-rules");
  let folded = !rules || !rules.open;

  function showError(text) {
    if (!problem) return;
    problem.textContent = text;
    problem.hidden = !text;
  }

  function setPending(value) {
    form.setAttribute("aria-busy", value ? "true" : "false");
    window.clearTimeout(pendingTimer);
    // A reply normally comes at once; never leave the page stuck if one goes missing.
    if (value) pendingTimer = window.setTimeout(() => setPending(false), 10000);
  }

  function receive(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (message.type === "error") {
      showError(message.message);
      return;
    }
    if (message.type !== "state") return;
    if (message.finished) {
      ended = true;
      window.location.reload(); // the result, as the server shows it
      return;
    }
    if (message.steps < steps) return; // older than what is shown
    steps = message.steps;
    live.innerHTML = message.html;
    live.dataset.steps = String(steps);
    if (!folded && live.querySelector("#game-log")) {
      rules.open = false;
      folded = true;
    }
    setPending(false);
    if (window.kumoSignals) window.kumoSignals.shown();
  }

  function connected() {
    return socket !== null && socket.isOpen();
  }
  // For game_keys.js: over the socket, moves may follow each other without waiting (the
  // server plays them in the order sent); through the form, one a page.
  window.kumoFamilyGame = { connected };

  form.addEventListener("submit", (event) => {
    if (!connected()) return; // the form posts the move
    event.preventDefault();
    const move = box.value.trim();
    if (!move) return;
    const message = { type: "move", move: move };
    if (window.kumoSignals) message.client = window.kumoSignals.take(); // counts only
    showError("");
    setPending(true);
    socket.send(message);
    box.value = "";
    box.focus();
  });

  socket = window.kumoLiveSocket.open({
    path: live.dataset.wsPath,
    onMessage: receive,
    onClose: () => setPending(false),
    // Not allowed (4401, 4404) or over: the form is the way on.
    stopped: (code) => ended || code === 4401 || code === 4404,
    exposeAs: "__familySocket", // so that tests can drop the connection on purpose
  });
})();
