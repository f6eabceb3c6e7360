/* A puzzle's answer form (templates/engine/family_attempt.html): one answer ends the task,
 * so an answer with squares left empty is sent only after the player confirms it. Without
 * JavaScript the form is sent as it is (the server still refuses an empty one). */
(function () {
  "use strict";
  const form = document.getElementById("family-answer-form");
  if (!form || !form.dataset.emptyUnit) return;
  form.addEventListener("submit", (event) => {
    const fields = form.querySelectorAll("input[type=text]:not([readonly]), select");
    const empty = Array.from(fields).filter((field) => field.value.trim() === "").length;
    if (empty === 0) return;
    const unit = empty === 1 ? form.dataset.emptyOne : form.dataset.emptyUnit;
    const question = empty + " " + unit + " still empty. One answer ends the task: send it anyway?";
    if (!window.confirm(question)) event.preventDefault();
  });
})();
