/* A travel task's page (templates/engine/family_attempt.html): clicking a city adds it to
 * the route typed so far. */
(function () {
  "use strict";
  const box = document.getElementById("answer");
  if (!box) return;
  document.querySelectorAll("button.city").forEach((button) => {
    button.addEventListener("click", () => {
      const route = box.value.trim();
      box.value = route ? route + " -> " + button.dataset.city : button.dataset.city;
      box.focus();
    });
  });
})();
