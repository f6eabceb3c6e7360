/* The websocket of a game page, written once for every family: KUMO's play page (play.js)
 * and another family's game page (family_game.js) open their game's socket through it
 * (engine.consumers.LiveSocket on the server).
 *
 * One connection at a time, with automatic reconnects: backoff from 1 s doubling up to
 * 30 s, a quarter either way so that pages dropped together do not all come back in the
 * same instant; after a server restart (1012, or 1001 "going away") within the first
 * second. A page shown again asks for the state (a live update dropped while it was hidden
 * is healed the moment the player looks) or reconnects at once, as it does when the
 * browser comes back online.
 *
 *   const live = window.kumoLiveSocket.open({
 *     path: "/ws/…/",                   // the socket's address on this host
 *     onMessage(event) {},              // every message of the current connection
 *     onStatus(kind, detail) {},        // "connecting" | "connected" | "lost"
 *                                       // detail: {attempt, seconds} (seconds when lost)
 *     onClose(event) {},                // the connection closed (before any retry)
 *     stopped(code) { return false; },  // true: do not reconnect (the game is over…)
 *     exposeAs: "__playSocket",         // the socket as window[name], for tests
 *   });
 *   live.send({type: "sync"});          // false when not connected
 *   live.isOpen(); live.retryNow();
 */
(function () {
  "use strict";
  const FIRST_DELAY_MS = 1000;
  const MAX_DELAY_MS = 30000;
  const RESTART_CODES = new Set([1001, 1012]);
  const RESTART_SPREAD_MS = 1000;

  function open(options) {
    const url =
      (window.location.protocol === "https:" ? "wss://" : "ws://") +
      window.location.host +
      options.path;
    const status = options.onStatus || function () {};
    let socket = null;
    let attempt = 0;
    let retryTimer = null;

    function connect() {
      window.clearTimeout(retryTimer);
      retryTimer = null;
      status("connecting", { attempt: attempt });
      const ws = new WebSocket(url);
      socket = ws;
      if (options.exposeAs) window[options.exposeAs] = ws;
      ws.addEventListener("open", () => {
        if (ws !== socket) return;
        attempt = 0;
        // The server sends the current state right after accepting: nothing to ask for.
        status("connected", { attempt: 0 });
      });
      ws.addEventListener("message", (event) => {
        if (ws === socket) options.onMessage(event);
      });
      ws.addEventListener("close", (event) => {
        if (ws !== socket) return;
        socket = null;
        if (options.onClose) options.onClose(event);
        if (options.stopped && options.stopped(event.code)) return;
        scheduleReconnect(RESTART_CODES.has(event.code));
      });
    }

    function scheduleReconnect(restarting) {
      const jitter = 0.75 + Math.random() / 2;
      const delay =
        restarting && attempt === 0
          ? Math.random() * RESTART_SPREAD_MS
          : Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt) * jitter;
      attempt += 1;
      status("lost", { attempt: attempt, seconds: Math.round(delay / 1000) });
      retryTimer = window.setTimeout(connect, delay);
    }

    function isOpen() {
      return socket !== null && socket.readyState === WebSocket.OPEN;
    }

    function send(message) {
      if (!isOpen()) return false;
      socket.send(JSON.stringify(message));
      return true;
    }

    function retryNow() {
      if (!socket) connect();
    }

    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState !== "visible") return;
      if (isOpen()) send({ type: "sync" });
      else if (!socket && retryTimer) connect();
    });
    window.addEventListener("online", () => {
      if (!socket && retryTimer) connect();
    });
    connect();
    return { send: send, isOpen: isOpen, retryNow: retryNow };
  }

  window.kumoLiveSocket = { open: open };
})();
