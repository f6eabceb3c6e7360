/* The play page (templates/engine/play.html).
 *
 * The page holds no game state of its own. The server sends the whole session state on
 * connect and after every move, and every "state" message is drawn in full, so a reconnect,
 * a reload or a move made in another tab restores everything. The only thing kept here is
 * the player's crossed-off notes, in localStorage per session: they are a private scratch
 * pad, never sent.
 *
 * Everything that comes from the server is written with textContent, never as HTML.
 */
(function () {
  "use strict";

  const root = document.getElementById("play");
  if (!root) return;

  const sessionId = root.dataset.sessionId;
  const truthNoun = root.dataset.truthNoun || "answer";

  const $ = (id) => document.getElementById(id);
  const el = {
    connection: $("connection"),
    connectionText: $("connection-text"),
    reconnectNow: $("reconnect-now"),
    taken: $("count-taken"),
    left: $("count-left"),
    leftItem: $("count-left-item"),
    refused: $("count-refused"),
    timeItem: $("time-left-item"),
    timeLeft: $("time-left"),
    error: $("play-error"),
    announcer: $("announcer"),
    truths: $("truths"),
    actions: $("actions"),
    answerTruth: $("answer-truth"),
    answerButton: $("answer-button"),
    dialog: $("answer-dialog"),
    dialogTitle: $("answer-dialog-title"),
    confirm: $("answer-confirm"),
    cancel: $("answer-cancel"),
    log: $("log"),
    logEmpty: $("log-empty"),
    result: $("result"),
    resultHeading: $("result-heading"),
    resultAnswer: $("result-answer"),
    resultValid: $("result-valid"),
    resultActions: $("result-actions"),
    resultExpected: $("result-expected"),
    resultExpectedNote: $("result-expected-note"),
    resultRelative: $("result-relative"),
    resultRelativeNote: $("result-relative-note"),
    book: $("book-content"),
    search: $("book-search-input"),
    searchCount: $("book-search-count"),
    searchPrev: $("book-search-prev"),
    searchNext: $("book-search-next"),
  };

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- crossed-off notes (the only thing this page remembers) --------------------------

  const notesKey = "kumo:play:" + sessionId + ":crossed";

  function loadNotes() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(notesKey) || "[]");
      return new Set(Array.isArray(saved) ? saved : []);
    } catch (error) {
      // Storage can be disabled or full (private windows); notes then last for the visit.
      return new Set();
    }
  }

  let crossed = loadNotes();

  function saveNotes() {
    try {
      window.localStorage.setItem(notesKey, JSON.stringify(Array.from(crossed)));
    } catch (error) {
      /* see loadNotes */
    }
  }

  // ---- observations -------------------------------------------------------------------

  // The server words each observation for people (engine Action.shown: a number rounded
  // with its unit, a label without underscores); the raw value goes in the title.
  function shownOf(step) {
    if (typeof step.shown === "string") return step.shown;
    return step.observation === null || step.observation === undefined
      ? ""
      : String(step.observation);
  }

  // ---- drawing the state ---------------------------------------------------------------

  let latest = null; // the last state drawn; used for focus and announcements only
  let truthsKey = "";
  let actionsKey = "";
  let announced = -1; // steps already announced (-1: nothing drawn yet)
  let live = null; // the game's socket (live_socket.js), opened at the end
  let pending = false;
  let pendingTimer = null;

  function drawTruths(state) {
    const key = JSON.stringify(state.truths);
    if (key !== truthsKey) {
      truthsKey = key;
      const previous = el.answerTruth.value;
      el.truths.replaceChildren();
      const options = [new Option("Choose…", "")];
      state.truths.forEach((truth, i) => {
        const item = make("li", "truth");
        const box = make("input");
        box.type = "checkbox";
        box.id = "truth-" + i;
        box.dataset.truth = truth;
        const label = make("label", "", truth);
        label.htmlFor = box.id;
        item.append(box, label);
        el.truths.append(item);
        options.push(new Option(truth, truth));
      });
      el.answerTruth.replaceChildren(...options);
      el.answerTruth.value = state.truths.includes(previous) ? previous : "";
    }
    el.truths.querySelectorAll("input[type=checkbox]").forEach((box) => {
      const isCrossed = crossed.has(box.dataset.truth);
      box.checked = isCrossed;
      box.disabled = state.finished;
      box.closest("li").classList.toggle("crossed", isCrossed);
    });
    Array.from(el.answerTruth.options).forEach((option) => {
      if (!option.value) return;
      option.textContent = crossed.has(option.value)
        ? option.value + " (crossed off)"
        : option.value;
    });
  }

  function takenActions(state) {
    const taken = new Map();
    state.steps.forEach((step) => {
      if (step.kind === "action" && step.accepted) taken.set(step.name, step);
    });
    return taken;
  }

  function drawActions(state) {
    const key = JSON.stringify(state.actions);
    if (key !== actionsKey) {
      actionsKey = key;
      el.actions.replaceChildren();
      state.actions.forEach((action) => {
        const item = make("li");
        const button = make("button", "action");
        button.type = "button";
        button.dataset.action = action;
        button.append(
          make("span", "action-name", action),
          make("span", "visually-hidden action-said", ""),
          make("span", "action-result", "")
        );
        item.append(button);
        el.actions.append(item);
      });
    }
    const taken = takenActions(state);
    el.actions.querySelectorAll("button.action").forEach((button) => {
      const action = button.dataset.action;
      const wasTaken = taken.has(action);
      button.classList.toggle("taken", wasTaken);
      // Taken actions are aria-disabled rather than disabled so that keyboard focus stays
      // on the button just pressed, where its result now appears.
      button.setAttribute("aria-disabled", wasTaken || state.finished ? "true" : "false");
      button.disabled = state.finished;
      button.querySelector(".action-said").textContent = wasTaken ? ", taken, result:" : "";
      button.querySelector(".action-result").textContent = wasTaken
        ? shownOf(taken.get(action))
        : "";
      if (wasTaken) {
        button.querySelector(".action-result").title = String(taken.get(action).observation);
      }
    });
  }

  function describeStep(step) {
    if (!step.accepted) {
      return "Refused " + step.kind + " “" + step.sent + "”: " + step.error;
    }
    if (step.kind === "answer") return "Answered: " + step.name;
    return step.name + ": " + shownOf(step);
  }

  function drawLog(state) {
    el.log.replaceChildren();
    state.steps.forEach((step) => {
      const item = make("li", "log-" + step.kind + (step.accepted ? "" : " log-refused"));
      if (step.accepted && step.kind === "action") {
        item.append(
          make("span", "log-action", step.name),
          make("span", "log-arrow", " → "),
          make("span", "log-result", shownOf(step))
        );
        item.lastChild.title = String(step.observation);
      } else {
        item.textContent = describeStep(step);
      }
      el.log.append(item);
    });
    el.logEmpty.hidden = state.steps.length > 0;
    if (announced >= 0 && state.steps.length > announced) {
      // Only moves new since the last state are spoken, not the whole history again.
      el.announcer.textContent = state.steps.slice(announced).map(describeStep).join(". ");
    }
    announced = state.steps.length;
  }

  function known(value) {
    return value !== null && value !== undefined;
  }

  function decimal(value, digits) {
    // At most ``digits`` decimals, no trailing zeros, a real minus sign.
    const text = Number(value.toFixed(digits)).toString();
    return text.charAt(0) === "-" ? "\u2212" + text.slice(1) : text;
  }

  function plural(count, noun) {
    return count + " " + noun + (count === 1 ? "" : "s");
  }

  // The two efficiency figures of docs/domain-model.md, each with a sentence saying what it
  // is: the optimum is an average over outcomes (a fraction, not this game's count), and
  // the relative action count compares with the optimal strategy on this very task.
  function drawFigures(result) {
    const expected = result.expected_optimal_actions;
    if (known(expected)) {
      el.resultExpected.textContent = decimal(expected, 2) + " on average";
      el.resultExpectedNote.textContent =
        "Expected optimal actions: the number of actions an optimal strategy needs on " +
        "average before answering, an expectation over every outcome this task's actions " +
        "could show. It is not a count from your game, so it can be a fraction.";
    } else {
      el.resultExpected.textContent = "not computed";
      el.resultExpectedNote.textContent = "";
    }
    const relative = result.relative_action_count;
    if (known(relative) && known(result.optimal_actions)) {
      const yours = result.actions_taken + 1;
      const optimal = result.optimal_actions + 1;
      el.resultRelative.textContent = (relative > 0 ? "+" : "") + decimal(relative, 2);
      el.resultRelativeNote.textContent =
        "Relative action count = (your actions \u2212 the optimal strategy's) \u00f7 the " +
        "optimal strategy's, on the outcomes of this task and counting the answer as one " +
        "action: (" + yours + " \u2212 " + optimal + ") \u00f7 " + optimal + ". " +
        "The optimal strategy took " + plural(result.optimal_actions, "action") +
        " here before answering; 0 means as few as it, above 0 more.";
    } else {
      el.resultRelative.textContent = "not computed";
      el.resultRelativeNote.textContent = "";
    }
  }

  function drawResult(state, wasFinished) {
    if (!state.finished || !state.result) {
      el.result.hidden = true;
      return;
    }
    const result = state.result;
    el.result.hidden = false;
    el.result.classList.toggle("correct", result.correct);
    el.result.classList.toggle("wrong", !result.correct);
    el.resultHeading.textContent = result.correct
      ? "Correct — task finished"
      : "Not correct — task finished";
    el.resultAnswer.textContent = result.answer || "–";
    // A live round keeps its answers on the server until it closes (or is published).
    el.resultValid.textContent = result.answer_secret
      ? "kept secret until the round ends"
      : Array.isArray(result.valid_truth)
        ? result.valid_truth.join(", ")
        : String(result.valid_truth);
    el.resultActions.textContent = String(result.actions_taken);
    drawFigures(result);
    if (!wasFinished) {
      if (el.dialog.open) el.dialog.close();
      el.resultHeading.focus();
    }
  }

  // A task with a time limit (a study task): the server sends the seconds left with each
  // state; the page counts down from there (its own clock, so no clock skew), and when it
  // reaches zero asks the server for the state, which has then ended the task.
  let timeTimer = null;
  function drawTimeLeft(state) {
    window.clearInterval(timeTimer);
    const limited = typeof state.seconds_left === "number" && !state.finished;
    el.timeItem.hidden = !limited;
    if (!limited) return;
    const end = Date.now() + state.seconds_left * 1000;
    const tick = () => {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      el.timeLeft.textContent =
        Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      if (left === 0) {
        window.clearInterval(timeTimer);
        live.send({ type: "sync" });
      }
    };
    tick();
    timeTimer = window.setInterval(tick, 1000);
  }

  function draw(state) {
    const wasFinished = Boolean(latest && latest.finished);
    latest = state;
    if (window.kumoSignals) window.kumoSignals.shown();
    drawTimeLeft(state);
    root.classList.toggle("finished", state.finished);
    el.taken.textContent = String(state.actions_taken);
    el.left.textContent = String(state.remaining_actions.length);
    // Nothing is left to take once the task is over: the counter goes, not stays stale.
    el.leftItem.hidden = state.finished;
    el.refused.textContent = String(state.invalid_moves);
    drawTruths(state);
    drawActions(state);
    drawLog(state);
    el.answerTruth.disabled = state.finished;
    el.answerButton.disabled = state.finished;
    drawResult(state, wasFinished);
    if (state.finished) setConnection("finished", "Task finished");
  }

  // ---- messages to and from the server -------------------------------------------------

  function showError(message) {
    el.error.textContent = message;
    el.error.hidden = false;
  }

  function clearError() {
    el.error.textContent = "";
    el.error.hidden = true;
  }

  function setPending(value) {
    pending = value;
    el.actions.setAttribute("aria-busy", value ? "true" : "false");
    window.clearTimeout(pendingTimer);
    if (value) {
      // A reply normally comes at once; never leave the page stuck if one goes missing.
      pendingTimer = window.setTimeout(() => setPending(false), 10000);
    }
  }

  function send(message) {
    if (!live.isOpen()) {
      showError(
        "Not connected to the game server. Wait for the connection to return, then try again."
      );
      return false;
    }
    clearError();
    if (window.kumoSignals && (message.type === "action" || message.type === "answer")) {
      message.client = window.kumoSignals.take(); // counts only (play_signals.js)
    }
    live.send(message);
    setPending(true);
    return true;
  }

  function receive(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (message.type === "state" && message.state) {
      setPending(false);
      draw(message.state);
    } else if (message.type === "error") {
      setPending(false);
      showError(String(message.message));
    }
  }

  // ---- the connection, with automatic reconnects (live_socket.js) -----------------------

  function setConnection(kind, text) {
    // Once the task is over the connection no longer matters to the player.
    if (latest && latest.finished && kind !== "finished") return;
    el.connection.dataset.state = kind;
    root.dataset.connection = kind;
    el.connectionText.textContent = text;
    el.reconnectNow.hidden = kind !== "lost";
  }

  function connectionStatus(kind, detail) {
    if (kind === "connecting") {
      setConnection(kind, detail.attempt ? "Reconnecting…" : "Connecting…");
    } else if (kind === "connected") {
      setConnection(kind, "Connected");
    } else {
      const hint = detail.attempt > 3 ? " If this goes on, reload the page or log in again." : "";
      setConnection(
        "lost",
        "Connection lost; retrying in " + detail.seconds + "\u00a0s." + hint
      );
    }
  }

  el.reconnectNow.addEventListener("click", () => live.retryNow());

  // ---- player input --------------------------------------------------------------------

  el.actions.addEventListener("click", (event) => {
    const button = event.target.closest("button.action");
    if (!button || button.getAttribute("aria-disabled") === "true" || pending) return;
    send({ type: "action", action: button.dataset.action });
  });

  el.truths.addEventListener("change", (event) => {
    const box = event.target;
    if (!box.dataset || !box.dataset.truth) return;
    if (box.checked) crossed.add(box.dataset.truth);
    else crossed.delete(box.dataset.truth);
    saveNotes();
    if (latest) drawTruths(latest);
  });

  // Notes changed in another tab of the same session.
  window.addEventListener("storage", (event) => {
    if (event.key !== notesKey) return;
    crossed = loadNotes();
    if (latest) drawTruths(latest);
  });

  let chosenTruth = "";

  el.answerButton.addEventListener("click", () => {
    if (!latest || latest.finished || pending) return;
    const truth = el.answerTruth.value;
    if (!truth) {
      showError("Choose the " + truthNoun + " you believe is valid first.");
      el.answerTruth.focus();
      return;
    }
    clearError();
    chosenTruth = truth;
    const question = "Answer '" + truth + "' — this ends the task";
    if (typeof el.dialog.showModal !== "function") {
      // Browsers without <dialog> still get a real confirm step.
      if (window.confirm(question + ". Continue?")) send({ type: "answer", truth: truth });
      return;
    }
    el.dialogTitle.textContent = question;
    el.dialog.showModal();
    // The safe choice has the focus: Enter alone never ends the task.
    el.cancel.focus();
  });

  el.confirm.addEventListener("click", () => {
    el.dialog.close();
    send({ type: "answer", truth: chosenTruth });
  });

  el.cancel.addEventListener("click", () => el.dialog.close());

  el.dialog.addEventListener("close", () => {
    // Escape, Cancel and Confirm all land here; the result heading takes the focus later
    // if the answer ends the task.
    if (!el.answerButton.disabled) el.answerButton.focus();
  });

  // ---- searching the book --------------------------------------------------------------

  let hits = [];
  let current = -1;
  let searchTimer = null;

  function clearHits() {
    const parents = new Set();
    hits.forEach((mark) => {
      const parent = mark.parentNode;
      if (!parent) return;
      parent.replaceChild(document.createTextNode(mark.textContent), mark);
      parents.add(parent);
    });
    parents.forEach((parent) => parent.normalize());
    hits = [];
    current = -1;
  }

  function searchPattern(query) {
    const words = query.split(/[\s_]+/).filter(Boolean);
    if (!words.length) return null;
    const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    // Spaces and underscores match each other: results say "mostly_accurate", books may
    // write "mostly accurate".
    return new RegExp(escaped.join("[\\s_]+"), "gi");
  }

  function runSearch() {
    window.clearTimeout(searchTimer);
    searchTimer = null;
    clearHits();
    const pattern = searchPattern(el.search.value.trim());
    if (!pattern) {
      el.searchCount.textContent = "";
      return;
    }
    const walker = document.createTreeWalker(el.book, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    nodes.forEach((node) => {
      const text = node.nodeValue;
      pattern.lastIndex = 0;
      let match = pattern.exec(text);
      if (!match) return;
      const fragment = document.createDocumentFragment();
      let from = 0;
      while (match) {
        if (match.index > from) fragment.append(text.slice(from, match.index));
        const mark = make("mark", "search-hit", match[0]);
        fragment.append(mark);
        hits.push(mark);
        from = match.index + match[0].length;
        match = pattern.exec(text);
      }
      if (from < text.length) fragment.append(text.slice(from));
      node.parentNode.replaceChild(fragment, node);
    });
    if (hits.length) goTo(0);
    else el.searchCount.textContent = "No matches";
  }

  function goTo(index) {
    if (!hits.length) return;
    if (current >= 0) hits[current].classList.remove("current");
    current = (index + hits.length) % hits.length;
    const mark = hits[current];
    mark.classList.add("current");
    mark.scrollIntoView({ block: "center", inline: "nearest" });
    el.searchCount.textContent = current + 1 + " of " + hits.length;
  }

  el.search.addEventListener("input", () => {
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(runSearch, 150);
  });
  el.search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      if (searchTimer) runSearch(); // typed and pressed Enter at once: search first
      else goTo(current + (event.shiftKey ? -1 : 1));
    } else if (event.key === "Escape" && el.search.value) {
      event.preventDefault();
      el.search.value = "";
      runSearch();
    }
  });
  el.searchNext.addEventListener("click", () => goTo(current + 1));
  el.searchPrev.addEventListener("click", () => goTo(current - 1));

  live = window.kumoLiveSocket.open({
    path: root.dataset.wsPath,
    onMessage: receive,
    onStatus: connectionStatus,
    onClose: () => setPending(false),
    stopped: () => Boolean(latest && latest.finished), // nothing can change any more
    // Exposed so that tests (and anyone debugging) can drop the connection on purpose.
    exposeAs: "__playSocket",
  });
})();
