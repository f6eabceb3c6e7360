/* A study task of another family (templates/engine/family_attempt.html): the answer form
 * carries the page's counts about writing it (play_signals.js: pastes, time away…, never
 * what was typed), and the time left counts down; at zero the page reloads, and the
 * server, which keeps the deadline, shows the task ended. */
(function () {
  "use strict";
  const form = document.getElementById("family-answer-form");
  const report = document.getElementById("client-report");
  if (form && report) {
    form.addEventListener("submit", (event) => {
      // A move sent over the page's socket (family_game.js) carried its own report.
      if (event.defaultPrevented) return;
      if (window.kumoSignals) report.value = JSON.stringify(window.kumoSignals.take());
    });
  }
  const box = document.getElementById("time-left");
  const value = document.getElementById("time-left-value");
  if (!box || !value) return;
  const end = Date.now() + Number(box.dataset.seconds) * 1000;
  function tick() {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    value.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    if (left === 0) {
      window.location.reload();
      return;
    }
    window.setTimeout(tick, 1000);
  }
  tick();
})();
