// The page: lobby, table and replay viewer over the server's JSON API.
// Plain JavaScript, no build step. Game-specific drawing lives in
// caravan.js and korovan.js (window.Renderers); any other engine gets the
// generic view (its observation as JSON, its legal actions as buttons).
"use strict";

const COLORS = ["#d9412b", "#2b6cd9", "#e8b21c", "#3a9a3a", "#8e44ad", "#16a085", "#e67e22", "#7f8c8d", "#c2185b"];
window.SEAT_COLORS = COLORS;
window.Renderers = window.Renderers || {};

const app = document.getElementById("app");

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}
window.el = el;

async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = "Bearer " + token;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || ("HTTP " + r.status));
  return data;
}

function seatName(s, seats) {
  const k = seats && seats[s] ? seats[s].kind : "";
  return "seat " + s + (k && k !== "human" ? " (" + k + ")" : "");
}
window.seatName = seatName;

function swatch(s) { return el("span", { class: "swatch", style: "background:" + COLORS[s % COLORS.length] }); }
window.swatch = swatch;

// ---------------------------------------------------------------- lobby

async function lobby() {
  document.title = "Board game table";
  app.replaceChildren(el("h1", {}, "Open a table"), el("p", { class: "muted" },
    "Pick a game and press Play: you take seat 0, bots take the others. Make more seats human to invite friends."));
  let games;
  try { games = (await api("GET", "/api/games")).games; } catch (e) { app.append(el("p", { class: "error" }, e.message)); return; }
  const wrap = el("div", { class: "games" });
  const out = el("div", { id: "invites" });
  for (const g of games) wrap.append(gameCard(g, out));
  app.append(wrap, out, myTables());
}

function gameCard(g, out) {
  const players = el("select", { id: "players-" + g.name });
  for (const p of g.player_counts) players.append(el("option", { value: p, selected: p === g.players }, p + " players"));
  const seatsBox = el("div", { class: "seats" });
  const kinds = ["human"].concat(g.agents);
  const drawSeats = () => {
    const n = Number(players.value);
    const old = [...seatsBox.querySelectorAll("select")].map(s => s.value);
    seatsBox.replaceChildren();
    for (let s = 0; s < n; s++) {
      const sel = el("select", { "data-seat": s });
      const def = old[s] || (s === 0 ? "human" : g.default_bot);
      for (const k of kinds) sel.append(el("option", { value: k, selected: k === def }, k));
      seatsBox.append(el("label", {}, swatch(s), "Seat " + s + " ", sel));
    }
  };
  players.addEventListener("change", drawSeats);
  drawSeats();
  const cfg = el("textarea", { id: "config-" + g.name, rows: 2, cols: 40, placeholder: '{"field": value} laid over the defaults' });
  const err = el("div", { class: "error" });
  const play = el("button", { class: "primary", id: "play-" + g.name, onclick: async () => {
    err.textContent = "";
    let config;
    try { config = cfg.value.trim() ? JSON.parse(cfg.value) : undefined; } catch (e) { err.textContent = "config: " + e.message; return; }
    const seats = [...seatsBox.querySelectorAll("select")].map(s => s.value);
    play.disabled = true;
    try {
      const t = await api("POST", "/api/tables", { game: g.name, players: seats.length, config, seats });
      remember(t);
      const humans = t.seats.filter(s => s.token);
      if (humans.length === 1) { location.href = humans[0].url; return; }
      showInvites(t, out);
    } catch (e) { err.textContent = e.message; }
    play.disabled = false;
  } }, "Play " + g.name);
  return el("div", { class: "game-card" },
    el("h2", {}, g.name[0].toUpperCase() + g.name.slice(1)),
    el("label", {}, "Players ", players), seatsBox,
    el("details", {}, el("summary", { id: "config-toggle-" + g.name }, "Configuration"), el("pre", { class: "json" }, JSON.stringify(g.config)), cfg),
    play, err);
}

function showInvites(t, out) {
  const rows = t.seats.map(s => s.token
    ? el("div", {}, swatch(s.seat), "Seat " + s.seat + ": ",
        el("input", { readonly: true, value: s.url, class: "invite", "data-seat": s.seat }),
        el("button", { onclick: () => navigator.clipboard && navigator.clipboard.writeText(s.url) }, "Copy"),
        el("a", { href: s.url }, "open"))
    : el("div", {}, swatch(s.seat), "Seat " + s.seat + ": " + s.kind));
  out.replaceChildren(el("div", { class: "invites" },
    el("h3", {}, "Table " + t.id + " is open"),
    el("p", {}, "Send each person their own link (it holds their seat's secret token)."),
    rows,
    el("p", {}, "Spectators: ", el("a", { href: t.spectate }, t.spectate))));
}

function remember(t) {
  try {
    const list = JSON.parse(localStorage.getItem("tables") || "[]");
    list.unshift({ id: t.id, game: t.game, at: Date.now(), seats: t.seats });
    localStorage.setItem("tables", JSON.stringify(list.slice(0, 20)));
  } catch (_) { /* storage unavailable */ }
}

function myTables() {
  let list = [];
  try { list = JSON.parse(localStorage.getItem("tables") || "[]"); } catch (_) { list = []; }
  if (!list.length) return el("div");
  return el("div", { class: "invites" }, el("h3", {}, "Tables opened from this browser"),
    list.map(t => el("div", {}, t.game + " " + t.id + " — ",
      t.seats.filter(s => s.token).map(s => el("a", { href: s.url, style: "margin-right:8px" }, "seat " + s.seat)),
      el("a", { href: "/table/" + t.id }, "watch"))));
}

// ---------------------------------------------------------------- table

function fragment() {
  const p = new URLSearchParams(location.hash.slice(1));
  return { seat: p.has("seat") ? Number(p.get("seat")) : null, token: p.get("token") };
}

async function table(id) {
  const { token } = fragment();
  const state = { view: null, busy: false, selected: null };
  const status = el("div", { class: "status", id: "status" });
  const seats = el("div", { class: "seats-list", id: "seats" });
  const outcome = el("div", { id: "outcome" });
  const board = el("div", { id: "board" });
  const chooser = el("div", { class: "chooser", id: "chooser" });
  const error = el("div", { class: "error", id: "error" });
  const actions = el("div", { class: "actions", id: "actions" });
  const log = el("div", { id: "log" });
  const side = el("div", {},
    el("div", { class: "panel" }, el("h3", {}, "Your moves"), chooser, error, actions),
    el("div", { class: "panel" }, el("h3", {}, "Log"), log));
  app.replaceChildren(el("h2", { id: "title" }, "Table " + id), status, seats, outcome,
    el("div", { class: "table-layout" }, el("div", {}, el("div", { class: "panel" }, board)), side));

  const act = async (action) => {
    if (state.busy || !state.view) return;
    state.busy = true;
    error.textContent = "";
    chooser.replaceChildren();
    try {
      await api("POST", "/api/tables/" + id + "/actions", { action, version: state.view.version }, token);
    } catch (e) { error.textContent = e.message; }
    state.busy = false;
    await refresh();
  };
  const choose = (list, title) => {
    chooser.replaceChildren();
    if (!list.length) return;
    chooser.append(el("span", { class: "muted" }, (title || "Choose") + ": "),
      ...list.map(a => el("button", { "data-action": a.action, onclick: () => act(a.action) }, a.action)),
      el("button", { onclick: () => { chooser.replaceChildren(); state.selected = null; draw(); } }, "cancel"));
  };

  const draw = () => {
    const v = state.view;
    if (!v) return;
    document.title = v.game + " — table " + id;
    document.getElementById("title").textContent = v.game[0].toUpperCase() + v.game.slice(1) + " — table " + id +
      (v.seat !== null ? " — you are seat " + v.seat : " — spectator");
    const mine = v.legal.length > 0;
    const t = v.turn;
    status.className = "status" + (mine ? " mine" : "");
    status.textContent = t.kind === "terminal" ? "The game is over." :
      mine ? "Your turn." :
      t.kind === "chance" ? "Chance acts…" :
      (v.thinking !== null ? seatName(t.seat, v.seats) + " is thinking…" : "Waiting for " + seatName(t.seat, v.seats) + ".");
    seats.replaceChildren(...v.seats.map(s => el("span", {
      class: "seat-chip" + (t.seat === s.seat ? " turn" : "") + (s.you ? " you" : ""), "data-seat": s.seat },
      swatch(s.seat), (s.you ? "You" : "Seat " + s.seat), " · " + s.kind + " · score " + s.score)));
    outcome.replaceChildren();
    if (v.outcome) {
      const w = v.outcome.winners.map(s => s === v.seat ? "you" : "seat " + s).join(", ");
      outcome.append(el("div", { class: "outcome", id: "outcome-banner" },
        (v.outcome.draw ? "Draw between " + w : "Winner: " + w) + ". ",
        el("a", { href: "/replay#table=" + id }, "Replay this game")));
    }
    const ctx = { view: v, seat: v.seat, legal: v.legal, act, choose, state, redraw: draw, replay: false };
    const r = window.Renderers[v.game] || genericRenderer;
    try { r.render(board, ctx); } catch (e) { board.replaceChildren(el("p", { class: "error" }, "drawing failed: " + e.message)); }
    drawActions(actions, v.legal, act);
    drawLog(log, v);
  };

  let shown = "";
  const refresh = async () => {
    try {
      const v = await api("GET", "/api/tables/" + id + "/view", undefined, token);
      const text = JSON.stringify(v);
      if (text === shown) return; // nothing new: keep the page (and any selection) as it is
      shown = text;
      state.view = v;
      draw();
    } catch (e) { error.textContent = e.message; }
  };
  await refresh();
  // Live updates; polling if the event stream is not available.
  let last = state.view ? state.view.version : -1;
  let thinking = state.view ? state.view.thinking : null;
  if (window.EventSource) {
    const es = new EventSource("/api/tables/" + id + "/events");
    es.addEventListener("update", () => refresh());
    es.onerror = () => { /* the browser reconnects by itself */ };
  }
  setInterval(async () => {
    if (!state.view || state.busy) return;
    if (state.view.turn.kind === "terminal" && state.view.version === last) return;
    last = state.view.version; thinking = state.view.thinking;
    await refresh();
  }, 3000);
  window.addEventListener("hashchange", () => location.reload());
}

function drawActions(box, legal, act) {
  box.replaceChildren();
  if (!legal.length) { box.append(el("p", { class: "muted" }, "Nothing to do now.")); return; }
  const groups = new Map();
  for (const a of legal) {
    const k = a.action.split(" ")[0];
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(a);
  }
  for (const [k, list] of groups) {
    const buttons = list.map(a => el("button", { "data-action": a.action, "data-id": a.id, onclick: () => act(a.action) }, a.action));
    if (list.length > 12) box.append(el("details", { class: "group" }, el("summary", {}, k + " (" + list.length + ")"), buttons));
    else box.append(el("div", { class: "group" }, el("div", { class: "group-name" }, k), buttons));
  }
}

function drawLog(box, v) {
  const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
  box.replaceChildren(...v.log.map(e => {
    const who = e.by === null ? "chance" : (e.by === v.seat ? "you" : "seat " + e.by);
    return el("div", { class: e.action === null ? "hidden" : "", "data-step": e.step },
      String(e.step + 1).padStart(3, " ") + "  " + who + ": " + (e.action === null ? "(hidden)" : e.action));
  }));
  if (atEnd) box.scrollTop = box.scrollHeight;
}

const genericRenderer = {
  render(box, ctx) {
    const v = ctx.view;
    box.replaceChildren(v.observation
      ? el("pre", { class: "json" }, JSON.stringify(v.observation, null, 1))
      : el("p", { class: "muted" }, "Spectators see the log and the scores; the board is shown to seats (and in the replay once the game is over)."));
  },
};
window.genericRenderer = genericRenderer;

// ---------------------------------------------------------------- replay

// Records carry 64-bit seeds, JSON numbers above 2^53 that a JavaScript
// number rounds (11701158831775379941 would become 11701158831775380000).
// So the replay page never turns a record into JavaScript values: it keeps
// the record's text as the server sent it or as it was pasted, checks only
// that it is JSON, and sends that text itself inside the request.
async function recordRequest(method, path, text) {
  const init = text === undefined ? { method } : { method, headers: { "Content-Type": "application/json" }, body: text };
  const r = await fetch(path, init);
  const body = await r.text();
  if (!r.ok) {
    let message = null;
    try { message = JSON.parse(body).error; } catch (_) { message = null; }
    throw new Error(message || ("HTTP " + r.status));
  }
  return body;
}

async function replay() {
  document.title = "Replay";
  const p = new URLSearchParams(location.hash.slice(1));
  const input = el("textarea", { rows: 6, cols: 80, id: "record-input", placeholder: "Paste a game record (JSON) here" });
  const file = el("input", { type: "file", accept: ".json,application/json" });
  const seatSel = el("select", { id: "replay-seat" });
  const err = el("div", { class: "error" });
  const viewer = el("div", { id: "replay-viewer" });
  const load = async () => {
    err.textContent = "";
    try {
      const text = input.value;
      JSON.parse(text); // only a syntax check: the text itself is sent
      const seat = Number(seatSel.value || 0);
      // The response holds no seed: parsing it is safe.
      const data = JSON.parse(await recordRequest("POST", "/api/replay", '{"record":' + text + ',"seat":' + seat + "}"));
      if (seatSel.options.length !== data.players) {
        seatSel.replaceChildren();
        for (let s = 0; s < data.players; s++) seatSel.append(el("option", { value: s, selected: s === seat }, "as seat " + s));
      }
      showReplay(viewer, data);
    } catch (e) { err.textContent = e.message; }
  };
  file.addEventListener("change", async () => { if (file.files[0]) { input.value = await file.files[0].text(); load(); } });
  seatSel.addEventListener("change", load);
  app.replaceChildren(el("h2", {}, "Replay a game"),
    el("div", { class: "panel" }, input, el("div", {}, file, " ", el("button", { class: "primary", id: "replay-load", onclick: load }, "Show"), " ", seatSel), err),
    viewer);
  if (p.get("table")) {
    try {
      input.value = await recordRequest("GET", "/api/tables/" + p.get("table") + "/record");
      await load();
    } catch (e) { err.textContent = e.message; }
  }
}

function showReplay(box, data) {
  const slider = el("input", { type: "range", min: 0, max: data.frames.length - 1, value: 0, id: "replay-step" });
  const label = el("div", { class: "status", id: "replay-label" });
  const board = el("div", { id: "board" });
  const log = el("div", { id: "log" });
  const seats = Array.from({ length: data.players }, (_, s) => ({ seat: s, kind: (data.agents && data.agents[s]) || "", score: 0, you: s === data.seat }));
  const show = () => {
    const i = Number(slider.value);
    const f = data.frames[i];
    label.textContent = "Step " + i + " of " + (data.frames.length - 1) + (f.action ? " — " + (f.by === null ? "chance" : "seat " + f.by) + ": " + f.action : " — the start");
    const view = { game: data.game, players: data.players, seat: data.seat, observation: f.observation, turn: f.turn,
      seats: seats.map(s => Object.assign({}, s, { score: f.scores[s.seat] })), legal: [], log: [], config: data.config, outcome: null };
    const r = window.Renderers[data.game] || genericRenderer;
    r.render(board, { view, seat: data.seat, legal: [], act: () => {}, choose: () => {}, state: {}, redraw: show, replay: true });
    log.replaceChildren(...data.frames.slice(1, i + 1).map(fr => el("div", {}, String(fr.step).padStart(3, " ") + "  " + (fr.by === null ? "chance" : "seat " + fr.by) + ": " + fr.action)));
    log.scrollTop = log.scrollHeight;
  };
  slider.addEventListener("input", show);
  const step = (d) => () => { slider.value = Math.max(0, Math.min(data.frames.length - 1, Number(slider.value) + d)); show(); };
  const result = data.outcome ? (data.outcome.draw ? "Draw: " : "Winner: ") + data.outcome.winners.map(s => "seat " + s).join(", ") : "unfinished";
  box.replaceChildren(el("div", { class: "panel replay-controls" },
      el("div", {}, data.game + ", " + data.players + " players, " + (data.frames.length - 1) + " actions — " + result),
      slider, el("button", { onclick: step(-1) }, "◀ step"), el("button", { onclick: step(1) }, "step ▶"), label),
    el("div", { class: "table-layout" }, el("div", { class: "panel" }, board), el("div", { class: "panel" }, el("h3", {}, "Log"), log)));
  show();
}

// ---------------------------------------------------------------- route

(function route() {
  const path = location.pathname;
  const m = path.match(/^\/table\/([0-9a-f]+)\/?$/);
  if (m) table(m[1]);
  else if (path === "/replay") replay();
  else lobby();
})();
