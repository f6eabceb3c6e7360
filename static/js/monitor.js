/* The study monitor (templates/humanstudy/monitor.html): re-reads the snapshot every 10 s
 * and redraws the summary and the table. Every value is written as text, never as HTML
 * (labels and flag reasons come from participants and the filter). */
(function () {
  "use strict";
  const script = document.currentScript;
  const url = script.dataset.url;
  const body = document.querySelector("#monitor tbody");
  const summary = document.getElementById("summary");
  const generated = document.getElementById("generated-at");

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
  }

  /* A <time datetime="ISO"> shown in the browser's local time (the server sends UTC). */
  function local(element, iso) {
    element.setAttribute("datetime", iso);
    const moment = new Date(iso);
    element.textContent = Number.isNaN(moment.getTime()) ? iso : moment.toLocaleString();
  }

  function draw(data) {
    local(generated, data.generated_at);
    summary.replaceChildren();
    for (const [key, value] of Object.entries(data.summary)) {
      const li = document.createElement("li");
      li.dataset.key = key;
      li.append(key + ": ");
      const strong = document.createElement("strong");
      strong.textContent = String(value);
      li.appendChild(strong);
      summary.appendChild(li);
    }
    body.replaceChildren();
    for (const p of data.participants) {
      const tr = document.createElement("tr");
      cell(tr, p.participant);
      cell(tr, p.label);
      cell(tr, p.task_set);
      cell(tr, p.stage);
      cell(tr, p.current_task === null ? "–" : String(p.current_task));
      cell(tr, p.done + " / " + p.total);
      cell(tr, p.pay_shown);
      const when = document.createElement("td");
      const time = document.createElement("time");
      local(time, p.last_activity);
      when.appendChild(time);
      tr.appendChild(when);
      cell(tr, p.idle_seconds + " s");
      cell(tr, p.dropped_out ? "probably" : "");
      cell(tr, p.moves_unreported + " / " + p.moves);
      cell(tr, p.flagged ? "flagged: " + p.flag_reasons.join("; ") : "–");
      body.appendChild(tr);
    }
  }

  async function refresh() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) draw(await response.json());
    } catch (error) {
      /* offline for a moment: the next refresh tries again */
    }
  }
  for (const time of document.querySelectorAll("time[datetime]")) {
    local(time, time.getAttribute("datetime"));
  }
  window.setInterval(refresh, 10000);
})();
