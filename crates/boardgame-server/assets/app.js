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
  return t("seat.n", { n: s }) + (k && k !== "human" ? " (" + k + ")" : "");
}

// The words of a view's action in the page's language (the notation when
// the server sent none).
function said(a) {
  return (a && a.words && a.words[window.LANG]) || (a && a.action) || t("table.hidden");
}
window.said = said;

function gameName(g) { return t("game." + g) === "game." + g ? g[0].toUpperCase() + g.slice(1) : t("game." + g); }

// A little Markdown (the how-to-play of docs/rules): **bold**, numbered
// lists, paragraphs; rule ids (K-5.5, C-6.1) link to the full rules.
function markdown(text, game) {
  const box = el("div", { class: "how" });
  let list = null;
  const inline = (line) => {
    const out = [];
    const re = /\*\*([^*]+)\*\*|\b([KC]-\d+(?:\.\d+)?)|`([^`]+)`/g;
    let last = 0, m;
    while ((m = re.exec(line))) {
      if (m.index > last) out.push(line.slice(last, m.index));
      if (m[1]) out.push(el("strong", {}, m[1]));
      else if (m[2]) out.push(el("a", { href: "/?rules=" + game + "#" + m[2], class: "rule-id" }, m[2]));
      else out.push(el("code", {}, m[3]));
      last = re.lastIndex;
    }
    out.push(line.slice(last));
    return out;
  };
  for (const raw of (text || "").split("\n")) {
    const line = raw.trim();
    const item = line.match(/^\d+\.\s+(.*)$/);
    if (item) {
      if (!list) { list = el("ol", {}); box.append(list); }
      list.append(el("li", {}, inline(item[1])));
    } else if (line) {
      list = null;
      box.append(el("p", {}, inline(line)));
    }
  }
  return box;
}
window.markdown = markdown;

function howToPlay(g, open) {
  const text = g.how_to_play && (g.how_to_play[window.LANG] || g.how_to_play.en);
  if (!text) return null;
  return el("details", { class: "how-to-play", open: open ? true : null, id: "how-" + g.name },
    el("summary", {}, t("lobby.how")), markdown(text, g.name),
    el("p", {}, el("a", { href: "/?rules=" + g.name }, t("lobby.rules"))));
}

function langSwitch() {
  const box = document.getElementById("lang-switch");
  if (!box) return;
  document.documentElement.lang = window.LANG;
  box.replaceChildren(...Object.keys(window.I18N).map(l => el("button", {
    class: "lang" + (l === window.LANG ? " on" : ""), "data-lang": l, "aria-pressed": l === window.LANG ? "true" : "false",
    "aria-label": t("nav.lang") + ": " + l, onclick: () => window.setLang(l) }, l.toUpperCase())));
  const lobbyLink = document.getElementById("nav-lobby"), replayLink = document.getElementById("nav-replay");
  if (lobbyLink) lobbyLink.textContent = t("nav.lobby");
  if (replayLink) replayLink.textContent = t("nav.replay");
  const home = document.querySelector("header .home");
  if (home) home.textContent = "\u2658 " + t("title");
}
window.seatName = seatName;

function swatch(s) { return el("span", { class: "swatch", style: "background:" + COLORS[s % COLORS.length] }); }
window.swatch = swatch;

// ---------------------------------------------------------------- lobby

// A phone: the lobby keeps the how-to-play folded so that Play is in view.
function narrow() { return window.matchMedia("(max-width: 600px)").matches; }

async function lobby() {
  document.title = t("title");
  loading();
  let games;
  try { games = (await api("GET", "/api/games")).games; } catch (e) { app.replaceChildren(el("p", { class: "error", id: "load-error", role: "alert" }, e.message)); return; }
  app.replaceChildren(el("h1", {}, t("lobby.h")), el("p", { class: "muted lobby-intro" }, t("lobby.intro")));
  const wrap = el("div", { class: "games" });
  const out = el("div", { id: "invites" });
  for (const g of games) wrap.append(gameCard(g, out));
  app.append(wrap, out, myTables());
}

function gameCard(g, out) {
  const players = el("select", { id: "players-" + g.name });
  for (const p of g.player_counts) players.append(el("option", { value: p, selected: p === g.players }, t("lobby.players_n", { n: p })));
  const seatsBox = el("div", { class: "seats" });
  // At a count the server rated its agents at, only those, labelled by
  // strength (strongest first); elsewhere the default list.
  const kindsAt = n => {
    const rated = g.ratings && g.ratings[String(n)];
    const bots = rated ? rated.map(r => ({ value: r.agent, label: r.label })) : g.agents.map(a => ({ value: a }));
    return [{ value: "human" }].concat(bots);
  };
  const drawSeats = () => {
    const n = Number(players.value);
    const kinds = kindsAt(n), values = kinds.map(k => k.value);
    const old = [...seatsBox.querySelectorAll("select")].map(s => s.value);
    seatsBox.replaceChildren();
    for (let s = 0; s < n; s++) {
      const sel = el("select", { "data-seat": s });
      let def = old[s] || (s === 0 ? "human" : g.default_bot);
      if (!values.includes(def)) def = s === 0 ? "human" : (values.includes(g.default_bot) ? g.default_bot : values[1]);
      for (const k of kinds) {
        const text = k.label ? k.value + " \u2014 " + t("lobby.label." + k.label) : k.value;
        sel.append(el("option", { value: k.value, selected: k.value === def, "data-label": k.label || "" }, text));
      }
      seatsBox.append(el("label", {}, swatch(s), t("lobby.seat", { n: s }) + " ", sel));
    }
  };
  players.addEventListener("change", drawSeats);
  drawSeats();
  const cfg = el("textarea", { id: "config-" + g.name, rows: 2, cols: 40, placeholder: t("lobby.config_ph") });
  const err = el("div", { class: "error" });
  const play = el("button", { class: "primary", id: "play-" + g.name, onclick: async () => {
    err.textContent = "";
    let config;
    try { config = cfg.value.trim() ? JSON.parse(cfg.value) : undefined; } catch (e) { err.textContent = "config: " + e.message; return; }
    const seats = [...seatsBox.querySelectorAll("select")].map(s => s.value);
    play.disabled = true;
    try {
      const tb = await api("POST", "/api/tables", { game: g.name, players: seats.length, config, seats });
      remember(tb);
      const humans = tb.seats.filter(s => s.token);
      if (humans.length === 1) { location.href = humans[0].url; return; }
      showInvites(tb, out);
    } catch (e) { err.textContent = e.message; }
    play.disabled = false;
  } }, t("lobby.play", { game: gameName(g.name) }));
  return el("div", { class: "game-card" },
    el("h2", {}, gameName(g.name)),
    howToPlay(g, !narrow()),
    el("label", {}, t("lobby.players") + " ", players), seatsBox,
    el("details", {}, el("summary", { id: "config-toggle-" + g.name }, t("lobby.config")), el("pre", { class: "json" }, JSON.stringify(g.config)), cfg),
    play, err);
}

function showInvites(tb, out) {
  const rows = tb.seats.map(s => s.token
    ? el("div", {}, swatch(s.seat), t("lobby.seat", { n: s.seat }) + ": ",
        el("input", { readonly: true, value: s.url, class: "invite", "data-seat": s.seat, "aria-label": t("lobby.seat", { n: s.seat }) }),
        el("button", { onclick: () => navigator.clipboard && navigator.clipboard.writeText(s.url) }, t("invite.copy")),
        el("a", { href: s.url }, t("invite.open")))
    : el("div", {}, swatch(s.seat), t("lobby.seat", { n: s.seat }) + ": " + s.kind));
  out.replaceChildren(el("div", { class: "invites" },
    el("h3", {}, t("invite.h", { id: tb.id })),
    el("p", {}, t("invite.p")),
    rows,
    el("p", {}, t("invite.spectators"), el("a", { href: tb.spectate }, tb.spectate))));
}

function remember(tb) {
  try {
    const list = JSON.parse(localStorage.getItem("tables") || "[]");
    list.unshift({ id: tb.id, game: tb.game, at: Date.now(), seats: tb.seats });
    localStorage.setItem("tables", JSON.stringify(list.slice(0, 20)));
  } catch (_) { /* storage unavailable */ }
}

function myTables() {
  let list = [];
  try { list = JSON.parse(localStorage.getItem("tables") || "[]"); } catch (_) { list = []; }
  if (!list.length) return el("div");
  return el("div", { class: "invites" }, el("h3", {}, t("lobby.mine")),
    list.map(tb => el("div", {}, gameName(tb.game) + " " + tb.id + " — ",
      tb.seats.filter(s => s.token).map(s => el("a", { href: s.url, style: "margin-right:8px" }, t("seat.n", { n: s.seat }))),
      el("a", { href: "/table/" + tb.id }, t("lobby.watch")))));
}

// ---------------------------------------------------------------- table

function fragment() {
  const p = new URLSearchParams(location.hash.slice(1));
  return { seat: p.has("seat") ? Number(p.get("seat")) : null, token: p.get("token") };
}

// The loading indicator, from the first paint (index.html holds it) until
// the page's first content is drawn; translated as soon as the scripts run.
function loading() {
  const box = el("p", { class: "loading", id: "loading", role: "status", "aria-live": "polite" }, t("loading"));
  app.replaceChildren(box);
  return box;
}

async function table(id) {
  const { token } = fragment();
  const state = { view: null, busy: false, selected: null, notation: (() => { try { return localStorage.getItem("notation") === "1"; } catch (_) { return false; } })() };
  loading();
  let games = [];
  try { games = (await api("GET", "/api/games")).games; } catch (_) { games = []; }
  const status = el("div", { class: "status", id: "status" });
  const seats = el("div", { class: "seats-list", id: "seats" });
  const outcome = el("div", { id: "outcome" });
  const board = el("div", { id: "board" });
  const chooser = el("div", { class: "chooser", id: "chooser" });
  const error = el("div", { class: "error", id: "error" });
  const actions = el("div", { class: "actions", id: "actions" });
  const log = el("div", { id: "log", role: "log", "aria-live": "polite" });
  const hint = el("p", { class: "muted hint", id: "hint" });
  const how = el("div", { id: "how" });
  const notation = el("input", { type: "checkbox", id: "notation-toggle", checked: state.notation ? true : null, onchange: () => {
    state.notation = notation.checked;
    try { localStorage.setItem("notation", state.notation ? "1" : "0"); } catch (_) { /* storage unavailable */ }
    draw();
  } });
  // The buttons and the chooser: in the moves panel beside the board; on a
  // narrow screen a bar kept at the bottom of the window while the board
  // is in view (style.css), so that they are never far from the board.
  const actbar = el("div", { class: "actbar", id: "actbar" }, chooser, error, actions);
  const side = el("div", { class: "side" },
    el("div", { class: "panel moves-panel" }, el("div", { class: "moves-head" }, el("h3", {}, t("table.moves")), hint), actbar),
    el("div", { class: "panel" }, el("h3", {}, t("table.log")), log,
      el("label", { class: "muted small" }, notation, " " + t("table.notation"))),
    how);
  // Shown (in place of the loading indicator) once the first view is drawn.
  const page = [el("h2", { id: "title" }, t("table.title", { game: "", id })), status, seats, outcome,
    el("div", { class: "table-layout" }, el("div", { class: "board-column" }, el("div", { class: "panel board-panel" }, board)), side)];

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
    chooser.append(el("span", { class: "muted" }, (title || t("table.choose")) + ": "),
      ...list.map(a => el("button", { "data-action": a.action, title: a.action, onclick: () => act(a.action) }, label(a))),
      el("button", { onclick: () => { chooser.replaceChildren(); state.selected = null; draw(); } }, t("table.cancel")));
    const first = chooser.querySelector("button");
    if (first) first.focus();
  };

  const label = (a) => said(a) + (state.notation && a.action ? "  [" + a.action + "]" : "");
  const draw = () => {
    const v = state.view;
    if (!v) return;
    window.currentView = v;
    document.title = gameName(v.game) + " — " + id;
    document.getElementById("title").textContent = t("table.title", { game: gameName(v.game), id }) + " — " +
      (v.seat !== null ? t("table.you_are", { n: v.seat }) : t("table.spectator"));
    const mine = v.legal.length > 0;
    const tn = v.turn;
    status.className = "status" + (mine ? " mine" : "");
    status.setAttribute("data-kind", tn.kind === "terminal" ? "over" : mine ? "mine" : tn.kind);
    status.textContent = tn.kind === "terminal" ? t("status.over") :
      mine ? t("status.mine") :
      tn.kind === "chance" ? t("status.chance") :
      (v.thinking !== null ? t("status.thinking", { seat: seatName(tn.seat, v.seats) }) : t("status.waiting", { seat: seatName(tn.seat, v.seats) }));
    const r = window.Renderers[v.game] || genericRenderer;
    // A game may say what its score is (Korovan: the cows, shown only here).
    seats.replaceChildren(...v.seats.map(s => el("span", Object.assign({
      class: "seat-chip" + (tn.seat === s.seat ? " turn" : "") + (s.you ? " you" : ""), "data-seat": s.seat }, r.chipData ? r.chipData(s, v) : {}),
      swatch(s.seat), t("seat.chip", { who: s.you ? t("seat.You") + " (" + t("seat.n", { n: s.seat }) + ")" : t("seat.N", { n: s.seat }), kind: s.kind === "human" ? t("seat.human") : s.kind,
        score: r.score ? r.score(s, v) : t("seat.score", { n: s.score }) }))));
    outcome.replaceChildren();
    if (v.outcome) {
      const w = v.outcome.winners.map(s => s === v.seat ? t("seat.you") : t("seat.n", { n: s })).join(", ");
      outcome.append(el("div", { class: "outcome", id: "outcome-banner", "data-draw": v.outcome.draw ? "1" : "0" },
        (v.outcome.draw ? t("outcome.draw", { who: w }) : t("outcome.win", { who: w })) + " ",
        el("a", { href: "/replay#table=" + id }, t("outcome.replay"))));
    }
    const ctx = { view: v, seat: v.seat, legal: v.legal, act, choose, state, redraw: draw, replay: false, label };
    try { r.render(board, ctx); } catch (e) { board.replaceChildren(el("p", { class: "error" }, "drawing failed: " + e.message)); }
    hint.textContent = mine && r.hint ? r.hint(ctx) : "";
    drawActions(actions, r.onBoard ? v.legal.filter(a => !r.onBoard(a)) : v.legal, act, label, mine);
    drawLog(log, v, state.notation);
    const g = games.find(x => x.name === v.game);
    if (g && !how.firstChild) how.append(el("div", { class: "panel" }, howToPlay(g, false)));
  };

  let shown = "";
  const refresh = async () => {
    try {
      const v = await api("GET", "/api/tables/" + id + "/view", undefined, token);
      const text = JSON.stringify(v);
      if (text === shown) return; // nothing new: keep the page (and any selection) as it is
      shown = text;
      const first = !state.view;
      state.view = v;
      if (first) app.replaceChildren(...page);
      draw();
    } catch (e) {
      if (state.view) { error.textContent = e.message; return; }
      // Nothing drawn yet: say so in place of the loading indicator.
      app.replaceChildren(el("div", { class: "panel load-error", id: "load-error", role: "alert" },
        el("p", { class: "error" }, t("table.load_failed", { error: e.message })),
        el("button", { class: "primary", onclick: () => location.reload() }, t("table.retry"))));
    }
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

// The moves not chosen on the board, as buttons in words (the notation in
// the tooltip and, with the toggle, beside the words).
function drawActions(box, legal, act, label, mine) {
  box.replaceChildren();
  if (!legal.length) { if (!mine) box.append(el("p", { class: "muted" }, t("table.nothing"))); return; }
  for (const a of legal) {
    box.append(el("button", { "data-action": a.action, "data-id": a.id, title: a.action, onclick: () => act(a.action) }, label(a)));
  }
}

function drawLog(box, v, notation) {
  const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
  box.replaceChildren(...v.log.map(e => {
    const who = e.by === null ? t("chance") : (e.by === v.seat ? t("seat.you") : t("seat.n", { n: e.by }));
    return el("div", { class: e.action === null ? "hidden" : "", "data-step": e.step },
      String(e.step + 1).padStart(3, " ") + "  " + who + ": " + said(e) + (notation && e.action ? "  [" + e.action + "]" : ""));
  }));
  if (atEnd) box.scrollTop = box.scrollHeight;
}

const genericRenderer = {
  render(box, ctx) {
    const v = ctx.view;
    box.replaceChildren(v.observation
      ? el("pre", { class: "json" }, JSON.stringify(v.observation, null, 1))
      : el("p", { class: "muted" }, t("spectator.board")));
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
  document.title = t("replay.h");
  const p = new URLSearchParams(location.hash.slice(1));
  const input = el("textarea", { rows: 6, cols: 80, id: "record-input", placeholder: t("replay.paste") });
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
      // The server answers a page of frames at a time (docs/serve.md):
      // the pages after the first are asked for from `next` on.
      const body = (from) => '{"record":' + text + ',"seat":' + seat + ',"from":' + from + "}";
      const data = JSON.parse(await recordRequest("POST", "/api/replay", body(0)));
      while (data.next !== null && data.next !== undefined) {
        const more = JSON.parse(await recordRequest("POST", "/api/replay", body(data.next)));
        data.frames.push(...more.frames);
        data.next = more.next;
      }
      if (seatSel.options.length !== data.players) {
        seatSel.replaceChildren();
        for (let s = 0; s < data.players; s++) seatSel.append(el("option", { value: s, selected: s === seat }, t("replay.as_seat", { n: s })));
      }
      showReplay(viewer, data);
    } catch (e) { err.textContent = e.message; }
  };
  file.addEventListener("change", async () => { if (file.files[0]) { input.value = await file.files[0].text(); load(); } });
  seatSel.addEventListener("change", load);
  app.replaceChildren(el("h2", {}, t("replay.h")),
    el("div", { class: "panel" }, input, el("div", {}, file, " ", el("button", { class: "primary", id: "replay-load", onclick: load }, t("replay.show")), " ", seatSel), err),
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
    const who = (fr) => fr.by === null ? t("chance") : t("seat.n", { n: fr.by });
    label.textContent = t("replay.step", { i, n: data.frames.length - 1 }) + (f.step > 0 ? " — " + who(f) + ": " + said(f) : " — " + t("replay.start"));
    const view = { game: data.game, players: data.players, seat: data.seat, observation: f.observation, turn: f.turn,
      seats: seats.map(s => Object.assign({}, s, { score: f.scores[s.seat] })), legal: [], log: [], config: data.config, outcome: null };
    const r = window.Renderers[data.game] || genericRenderer;
    r.render(board, { view, seat: data.seat, legal: [], act: () => {}, choose: () => {}, state: {}, redraw: show, replay: true });
    log.replaceChildren(...data.frames.slice(1, i + 1).map(fr => el("div", { title: fr.action || "", class: fr.action === null ? "hidden" : "" }, String(fr.step).padStart(3, " ") + "  " + who(fr) + ": " + said(fr))));
    log.scrollTop = log.scrollHeight;
  };
  slider.addEventListener("input", show);
  const step = (d) => () => { slider.value = Math.max(0, Math.min(data.frames.length - 1, Number(slider.value) + d)); show(); };
  const who = data.outcome ? data.outcome.winners.map(s => t("seat.n", { n: s })).join(", ") : "";
  const result = data.outcome ? (data.outcome.draw ? t("outcome.draw", { who }) : t("outcome.win", { who })) : t("replay.unfinished");
  slider.setAttribute("aria-label", t("replay.h"));
  box.replaceChildren(el("div", { class: "panel replay-controls" },
      el("div", {}, t("replay.summary", { game: gameName(data.game), players: data.players, n: data.frames.length - 1, result })),
      slider, el("button", { onclick: step(-1) }, t("replay.prev")), el("button", { onclick: step(1) }, t("replay.next")), label),
    el("div", { class: "table-layout" }, el("div", { class: "panel board-panel" }, board), el("div", { class: "panel" }, el("h3", {}, t("table.log")), log)));
  show();
}

// ---------------------------------------------------------------- rules

// The full rules of a game (its docs/rules file), each rule id an anchor.
async function rulesPage(name) {
  let games = [];
  try { games = (await api("GET", "/api/games")).games; } catch (e) { app.replaceChildren(el("p", { class: "error" }, e.message)); return; }
  const g = games.find(x => x.name === name);
  if (!g) { lobby(); return; }
  document.title = t("rules.h", { game: gameName(name) });
  const box = el("div", { class: "rules panel", id: "rules" });
  let list = null;
  for (const raw of (g.rules || "").split("\n")) {
    const line = raw.replace(/<!--.*?-->/g, "");
    const h = line.match(/^(#+)\s+(.*)$/);
    const rule = line.match(/^- ([KC]-\d+(?:\.\d+)?)\s+(.*)$/);
    const sec = h && h[2].match(/^([KC]-\d+)\b/);
    if (h) { list = null; box.append(el("h" + Math.min(h[1].length + 1, 4), sec ? { id: sec[1] } : {}, h[2])); }
    else if (rule) {
      if (!list) { list = el("ul", {}); box.append(list); }
      list.append(el("li", { id: rule[1] }, el("a", { href: "#" + rule[1], class: "rule-id" }, rule[1]), " " + rule[2]));
    } else if (line.trim() && list && list.lastChild) list.lastChild.append(" " + line.trim());
    else if (line.trim()) { list = null; box.append(el("p", {}, line.trim())); }
  }
  app.replaceChildren(el("p", {}, el("a", { href: "/" }, t("rules.back"))), el("h2", {}, t("rules.h", { game: gameName(name) })),
    howToPlay(g, true), box);
  if (location.hash) { const target = document.getElementById(location.hash.slice(1)); if (target) { target.classList.add("focus"); target.scrollIntoView(); } }
}

// ---------------------------------------------------------------- route

(function route() {
  langSwitch();
  const path = location.pathname;
  const m = path.match(/^\/table\/([0-9a-f]+)\/?$/);
  const rules = new URLSearchParams(location.search).get("rules");
  if (m) table(m[1]);
  else if (path === "/replay") replay();
  else if (rules) rulesPage(rules);
  else lobby();
})();
