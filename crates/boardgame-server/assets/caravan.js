// Caravan's board as SVG: the 7x7 grid, the cities and their kinds, the
// numbered spaces with their goods and demand markers, camels in seat
// colours (laden or not), each seat's chains, scores, supplies, the bag and
// the refill count. Clicks: a square with your camel (or your supply) picks
// the source, a highlighted square the target; a numbered space picks up.
"use strict";
(function () {
  const S = 60, M = 22, N = 7;
  const KINDS = ["R1", "R2", "R3", "R4", "C1", "C2", "C3", "C4"];
  // The goods' colours keep apart from the seats' (window.SEAT_COLORS) and
  // from one another also for colour-blind eyes (tests/colours.rs checks
  // the distances under simulated protanopia, deuteranopia and
  // tritanopia); a good is also told by its shape (rare goods diamonds,
  // common ones squares) and its name written on it.
  const KIND_COLORS = { R1: "#700018", R2: "#000098", R3: "#582040", R4: "#080040", C1: "#b7c7ff", C2: "#a8a8b7", C3: "#00ffcf", C4: "#685860" };
  window.GOODS_COLORS = KIND_COLORS;
  // Dark ink on a light good, white on a dark one.
  const inkOn = (hex) => {
    const [r, g, b] = [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16) / 255).map(c => c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.18 ? "#000" : "#fff";
  };
  const SVGNS = "http://www.w3.org/2000/svg";
  const sq = (i) => String.fromCharCode(97 + (i % N)) + (Math.floor(i / N) + 1);
  const idx = (name) => (Number(name[1]) - 1) * N + (name.charCodeAt(0) - 97);
  const xy = (i) => [M + (i % N) * S, M + Math.floor(i / N) * S];

  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
    for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }

  function parse(action, spaces) {
    let m;
    if ((m = action.match(/^move (supply|[a-g][1-7])->([a-g][1-7])$/))) return { type: "move", from: m[1], to: m[2] };
    if ((m = action.match(/^good (\S+) (under )?([a-g][1-7])=>([a-g][1-7])$/))) return { type: "good", from: m[3], to: m[4] };
    if ((m = action.match(/^pick (\d+)$/))) return { type: "pick", at: sq(spaces[Number(m[1]) - 1]) };
    if ((m = action.match(/^steal (\S+) ([a-g][1-7]) from P(\d+)$/))) return { type: "steal", at: m[2] };
    return { type: action };
  }

  function cargoOf(c) {
    if (c === "Empty" || c === null || c === undefined) return null;
    if (c.Top) return { kind: c.Top, under: false };
    if (c.Under) return { kind: c.Under, under: true };
    return null;
  }

  // A good: a diamond (rare kinds) or a square (common kinds) in its
  // colour, its name on it.
  function cube(x, y, kind, size, dashed) {
    const fill = KIND_COLORS[kind] || "#999";
    const line = { fill, stroke: dashed ? "#000" : "#222", "stroke-width": 1, "stroke-dasharray": dashed ? "2 2" : null, class: "good-shape" };
    const h = size / 2;
    const shape = kind[0] === "R"
      ? svg("polygon", Object.assign({ points: [[x + h, y - 2], [x + size + 2, y + h], [x + h, y + size + 2], [x - 2, y + h]].map(p => p.join(",")).join(" ") }, line))
      : svg("rect", Object.assign({ x, y, width: size, height: size, rx: 1.5 }, line));
    return svg("g", { class: "good", "data-kind": kind }, shape,
      svg("text", { x: x + h, y: y + h + 3, "font-size": 8, "text-anchor": "middle", fill: inkOn(fill), "font-weight": 700 }, kind));
  }
  // The same, as a small picture for the table's headers (the legend).
  function goodIcon(kind) {
    const s = svg("svg", { width: 18, height: 18, viewBox: "-3 -3 21 21", class: "good-icon", "aria-hidden": "true" }, cube(0, 0, kind, 15, false));
    return s;
  }

  function render(box, ctx) {
    const v = ctx.view;
    const o = v.observation;
    if (!o) { window.genericRenderer.render(box, ctx); return; }
    const pos = o.position;
    const cfg = pos.config;
    const players = cfg.players;
    const board = cfg.board;
    const legal = ctx.legal || [];
    const parsed = legal.map(a => Object.assign({ action: a.action }, parse(a.action, board.spaces)));
    const st = ctx.state || {};
    if (st.selectedVersion !== v.version) { st.selected = null; st.selectedVersion = v.version; }
    const selected = st.selected;
    const targets = new Set(parsed.filter(p => selected && p.from === selected).map(p => p.to));

    const camelsAt = new Map();
    for (const c of pos.camels) {
      const i = idx(c.square);
      if (!camelsAt.has(i)) camelsAt.set(i, []);
      camelsAt.get(i).push(c);
    }
    const H = M + N * S + 70;
    const root = svg("svg", { class: "board", viewBox: "0 0 " + (M + N * S + 4) + " " + H, id: "caravan-board", role: "group", "aria-label": "Caravan board" });
    for (let c = 0; c < N; c++) root.append(svg("text", { x: M + c * S + S / 2, y: 15, "text-anchor": "middle", "font-size": 12, fill: "#7b6e60" }, String.fromCharCode(97 + c)));
    for (let r = 0; r < N; r++) root.append(svg("text", { x: 10, y: M + r * S + S / 2 + 4, "text-anchor": "middle", "font-size": 12, fill: "#7b6e60" }, r + 1));

    const cityKind = new Map(board.cities.map((s, k) => [s, KINDS[k]]));
    const spaceNo = new Map(board.spaces.map((s, i) => [s, i]));
    const onClick = (name) => () => click(name, parsed, ctx);
    for (let i = 0; i < N * N; i++) {
      const [x, y] = xy(i);
      const name = sq(i);
      const kind = cityKind.get(i);
      const fill = kind ? KIND_COLORS[kind] + "55" : ((i + Math.floor(i / N)) % 2 ? "#f3e7cf" : "#efe0c2");
      const cls = "sq" + (targets.has(name) ? " target" : "") + (selected === name ? " selected" : "");
      const here = camelsAt.get(i) || [];
      const words = [t("cv.sq_label", { sq: name })];
      if (kind) words.push(t("cv.sq_city", { kind }));
      if (spaceNo.has(i)) words.push(t("cv.sq_space", { n: spaceNo.get(i) + 1 }));
      if (spaceNo.has(i) && pos.lying[spaceNo.get(i)]) words.push(t("cv.sq_lying", { kind: pos.lying[spaceNo.get(i)] }));
      if (here.length) words.push(t("cv.sq_camels", { list: here.map(c => "P" + c.player + (cargoOf(c.cargo) ? " " + cargoOf(c.cargo).kind : "")).join(", ") }));
      if (targets.has(name)) words.push(t("cv.sq_target"));
      const active = legal.length > 0;
      root.append(svg("rect", { x, y, width: S, height: S, fill, stroke: "#c9b792", class: cls, "data-square": name,
        "data-space": spaceNo.has(i) ? spaceNo.get(i) + 1 : null, tabindex: active ? 0 : null, role: active ? "button" : "img",
        "aria-label": words.join(", "), "aria-pressed": selected === name ? "true" : null }));
      if (kind) root.append(svg("text", { x: x + 3, y: y + 11, "font-size": 10, "font-weight": 700, fill: "#4a3520", "pointer-events": "none" }, t("cv.city", { kind })));
      if (spaceNo.has(i)) {
        const n = spaceNo.get(i);
        root.append(svg("circle", { cx: x + S - 10, cy: y + 10, r: 8, fill: "#3b2a1a", "pointer-events": "none" }));
        root.append(svg("text", { x: x + S - 10, y: y + 14, "font-size": 11, "text-anchor": "middle", fill: "#fff", "pointer-events": "none" }, n + 1));
        const lying = pos.lying[n];
        if (lying) { const g = cube(x + 4, y + 4 + (kind ? 10 : 0), lying, 18, false); g.setAttribute("pointer-events", "none"); root.append(g); }
        const marks = pos.space_markers[n];
        for (let k = 0; k < marks; k++) root.append(svg("circle", { cx: x + 26 + (k % 4) * 7, cy: y + 8 + Math.floor(k / 4) * 7, r: 2.8, fill: "#111", "pointer-events": "none" }));
      }
    }
    // Chains: orthogonal links between squares that hold camels of one seat.
    for (let p = 0; p < players; p++) {
      const mine = new Set(pos.camels.filter(c => c.player === p).map(c => idx(c.square)));
      const off = (p - (players - 1) / 2) * 4;
      for (const i of mine) {
        for (const j of [i + 1, i + N]) {
          if (!mine.has(j) || (j === i + 1 && i % N === N - 1)) continue;
          const [x1, y1] = xy(i), [x2, y2] = xy(j);
          root.append(svg("line", { x1: x1 + S / 2 + off, y1: y1 + S / 2 + off, x2: x2 + S / 2 + off, y2: y2 + S / 2 + off,
            stroke: window.SEAT_COLORS[p], "stroke-width": 5, "stroke-opacity": 0.45, "stroke-linecap": "round", "pointer-events": "none", class: "chain" }));
        }
      }
    }
    for (const [i, list] of camelsAt) {
      const [x, y] = xy(i);
      list.sort((a, b) => a.player - b.player);
      const cols = list.length > 4 ? 4 : Math.max(list.length, 1);
      const w = (S - 8) / cols;
      list.forEach((c, k) => {
        const cx = x + 4 + w * (k % cols) + w / 2;
        const cy = y + 34 + Math.floor(k / cols) * 14;
        const load = cargoOf(c.cargo);
        const g = svg("g", { class: "camel", "data-player": c.player, "data-laden": load ? "1" : "0", "pointer-events": "none" });
        g.append(svg("ellipse", { cx, cy, rx: Math.min(8, w / 2 - 1), ry: 6, fill: window.SEAT_COLORS[c.player], stroke: "#222", "stroke-width": 1 }));
        g.append(svg("circle", { cx: cx + Math.min(7, w / 2 - 1), cy: cy - 5, r: 2.5, fill: window.SEAT_COLORS[c.player], stroke: "#222", "stroke-width": 0.8 }));
        // the seat's number on the camel: colour is not the only cue
        g.append(svg("text", { x: cx, y: cy + 3, "font-size": 8, "text-anchor": "middle", fill: "#fff", "font-weight": 700, stroke: "#000", "stroke-width": 0.4 }, c.player));
        if (load) g.append(cube(cx - 8, load.under ? cy + 4 : cy - 20, load.kind, 15, load.under));
        root.append(g);
      });
    }
    // Supplies, below the board; the mover's is a source for `move supply->…`.
    const camelsPer = cfg.camels;
    const y0 = M + N * S + 10;
    for (let p = 0; p < players; p++) {
      const x = M + p * ((N * S) / players);
      const onBoard = pos.camels.filter(c => c.player === p).length;
      const can = parsed.some(a => a.from === "supply") && p === (v.turn && v.turn.seat);
      const g = svg("g", {});
      g.append(svg("rect", { x, y: y0, width: (N * S) / players - 6, height: 50, rx: 6, fill: "#fffdf8", stroke: window.SEAT_COLORS[p], "stroke-width": can ? 3 : 1.5,
        class: can ? "sq" + (selected === "supply" ? " selected" : "") : null, "data-square": can ? "supply" : null, "data-supply": p,
        tabindex: can ? 0 : null, role: can ? "button" : "img", "aria-label": t("cv.supply", { p, n: camelsPer - onBoard }) }));
      g.append(svg("text", { x: x + 6, y: y0 + 16, "font-size": 12, "pointer-events": "none" }, t("cv.supply", { p, n: camelsPer - onBoard })));
      for (let k = 0; k < camelsPer - onBoard; k++) g.append(svg("ellipse", { cx: x + 14 + k * 18, cy: y0 + 34, rx: 7, ry: 5, fill: window.SEAT_COLORS[p], stroke: "#222", "pointer-events": "none" }));
      root.append(g);
    }
    root.querySelectorAll("[data-square]").forEach(n => {
      const go = onClick(n.getAttribute("data-square"));
      n.addEventListener("click", go);
      n.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); ctx.state.focus = n.getAttribute("data-square"); go(); } });
    });
    if (ctx.state && ctx.state.focus) {
      const f = root.querySelector('[data-square="' + ctx.state.focus + '"]');
      ctx.state.focus = null;
      if (f) setTimeout(() => f.focus(), 0);
    }

    const info = el("div", {});
    // Two small tables (scores and markers; goods delivered, the goods'
    // pictures as the legend) that fit a phone, side by side when there is room.
    const who = (p) => el("td", { class: "who" }, window.swatch(p), "P" + p + (p === v.seat ? " (" + t("seat.you") + ")" : ""));
    const marks = [el("tr", {}, el("th", {}, t("cv.seat")), el("th", {}, t("cv.score")), el("th", {}, t("cv.supply_h")), el("th", {}, t("cv.demand")), el("th", {}, t("cv.theft")))];
    const goods = [el("tr", {}, el("th", {}, t("cv.seat")), KINDS.map(k => el("th", { class: "kind", title: k, "aria-label": k }, goodIcon(k))))];
    for (let p = 0; p < players; p++) {
      const onBoard = pos.camels.filter(c => c.player === p).length;
      const score = v.seats && v.seats[p] ? v.seats[p].score : "";
      marks.push(el("tr", { "data-seat": p }, who(p), el("td", { class: "score" }, score), el("td", {}, camelsPer - onBoard),
        el("td", {}, pos.demand_markers[p]), el("td", {}, pos.theft_markers[p])));
      goods.push(el("tr", { "data-seat": p }, who(p), KINDS.map((k, ki) => el("td", { "data-kind": k }, pos.delivered[p][ki] || ""))));
    }
    const bagTotal = pos.bag.reduce((a, b) => a + b, 0);
    const allowance = Math.min(pos.turn_index + 1, 4);
    info.append(el("div", { class: "stats-wrap" },
        el("div", { class: "scroll-x stats-box" }, el("table", { class: "stats", id: "stats-markers" }, el("caption", { class: "muted" }, t("cv.markers")), marks)),
        el("div", { class: "scroll-x stats-box" }, el("table", { class: "stats", id: "stats-goods" }, el("caption", { class: "muted" }, t("cv.delivered")), goods))),
      el("p", {}, t("cv.bag", { n: bagTotal, list: KINDS.map((k, i) => k + "×" + pos.bag[i]).join(", ") })),
      el("p", {}, t("cv.turn", { t: pos.turn_index + 1, max: cfg.max_turns }) +
        (pos.end ? t("cv.ended", { how: pos.end }) : t("cv.to_move", { p: pos.turn_index % players, left: pos.actions_left, all: allowance })) +
        t("cv.picks", { n: pos.picks_since_refill }) +
        (pos.pending_draws ? t("cv.pending", { list: [0,1,2,3,4,5,6,7].filter(i => pos.pending_draws & (1 << i)).map(i => i + 1).join(", ") }) : "") +
        (pos.passes ? t("cv.passes", { n: pos.passes }) : "") + "."));
    box.replaceChildren(root, info);
  }

  // The view's legal entries (with their words) of parsed actions.
  function full(list, ctx) {
    const by = new Map((ctx.legal || []).map(a => [a.action, a]));
    return list.map(p => by.get(p.action) || { action: p.action });
  }

  function click(name, parsed, ctx) {
    const st = ctx.state;
    if (!parsed.length) return;
    if (st.selected) {
      const moves = parsed.filter(p => p.from === st.selected && p.to === name);
      if (moves.length) {
        st.selected = null;
        if (moves.length === 1) ctx.act(moves[0].action); else ctx.choose(full(moves, ctx), t("cv.which"));
        return;
      }
    }
    const from = parsed.filter(p => p.from === name);
    const at = parsed.filter(p => p.at === name);
    if (from.length) {
      st.selected = st.selected === name ? null : name;
      ctx.redraw();
      ctx.choose(full(at, ctx), t("cv.also"));
    } else if (at.length === 1) {
      st.selected = null;
      ctx.act(at[0].action);
    } else if (at.length > 1) {
      st.selected = null;
      ctx.redraw();
      ctx.choose(full(at, ctx), t("cv.at", { sq: name }));
    } else if (st.selected) {
      st.selected = null;
      ctx.redraw();
    }
  }

  window.Renderers = window.Renderers || {};
  window.Renderers.caravan = {
    render,
    // Moves, pick-ups and thefts are chosen on the board; the panel keeps the rest (`end`).
    onBoard: (a) => /^(move|good|pick|steal) /.test(a.action),
    hint: () => t("cv.hint"),
  };
})();
