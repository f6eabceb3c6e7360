/* The page a player waits on while a fresh family task or KUMO game is generated
 * (templates/engine/family_practice_request.html).
 *
 * While the request is pending or running, this script polls its status endpoint and goes
 * to the attempt (or the game) once it is ready; if the generation failed it reloads the page,
 * which the server draws with the error. Without JavaScript the page refreshes itself.
 */
(function () {
  "use strict";

  const root = document.getElementById("family-practice");
  if (!root || !["pending", "running"].includes(root.dataset.status)) return;

  const POLL_MS = 1000;

  async function poll() {
    try {
      const response = await fetch(root.dataset.url, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.ok) {
        const state = await response.json();
        if (state.url) {
          window.location.assign(state.url);
          return;
        }
        if (state.status !== "pending" && state.status !== "running") {
          window.location.reload();
          return;
        }
      }
    } catch (error) {
      // A network hiccup: ask again at the next tick.
    }
    window.setTimeout(poll, POLL_MS);
  }

  window.setTimeout(poll, POLL_MS);
})();
