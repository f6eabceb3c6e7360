/* What the play page reports with each move about the time since the previous one
 * (engine.sessions.CLIENT_SIGNALS; listed in docs/human-study.md and on the study's consent
 * page): paste and copy events, how often and how long the page was hidden or lost focus,
 * key presses, and the time from a new state on screen to the first input.
 *
 * Counts only: never what was typed or pasted. play.js calls take() when it sends a move
 * and shown() when it draws a new state.
 */
(function () {
  "use strict";

  let counts;
  let hiddenSince = null;
  let blurredSince = null;
  let shownAt = performance.now();

  function reset() {
    counts = {
      pastes: 0,
      copies: 0,
      hidden_count: 0,
      hidden_ms: 0,
      blur_count: 0,
      blur_ms: 0,
      keys: 0,
    };
  }
  reset();

  function firstInput() {
    if (counts.first_input_ms === undefined && shownAt !== null) {
      counts.first_input_ms = Math.round(performance.now() - shownAt);
    }
  }

  document.addEventListener("paste", () => counts.pastes++, true);
  document.addEventListener("copy", () => counts.copies++, true);
  document.addEventListener(
    "keydown",
    () => {
      counts.keys++;
      firstInput();
    },
    true
  );
  document.addEventListener("pointerdown", firstInput, true);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      counts.hidden_count++;
      hiddenSince = performance.now();
    } else if (hiddenSince !== null) {
      counts.hidden_ms += Math.round(performance.now() - hiddenSince);
      hiddenSince = null;
    }
  });
  window.addEventListener("blur", () => {
    counts.blur_count++;
    blurredSince = performance.now();
  });
  window.addEventListener("focus", () => {
    if (blurredSince !== null) {
      counts.blur_ms += Math.round(performance.now() - blurredSince);
      blurredSince = null;
    }
  });

  window.kumoSignals = {
    // The report for the move being sent; the counting starts again.
    take() {
      const now = performance.now();
      if (hiddenSince !== null) {
        counts.hidden_ms += Math.round(now - hiddenSince);
        hiddenSince = now;
      }
      if (blurredSince !== null) {
        counts.blur_ms += Math.round(now - blurredSince);
        blurredSince = now;
      }
      const report = counts;
      reset();
      shownAt = null;
      return report;
    },
    // A new state is on screen: the next input's delay is measured from now.
    shown() {
      if (shownAt === null) shownAt = performance.now();
    },
  };
})();
