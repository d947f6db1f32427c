// Korovan's road: one row of three cards per competitor, face down or up,
// the token and the route, the cards the viewer knows, peeks, scouts and
// spies, cows per seat, the driver's helper hand (for the driver only) and
// the helpers played. Clicks: a card peeks, places, switches, scouts or
// flares (a chooser asks when several fit); a row's label spies; the lay
// choices are drawn as rows.
"use strict";
(function () {
  const HELPERS = ["scout", "spy", "flare", "second_thought", "guard", "haggle"].map(k => [k, t("ko.h." + k)]);
  // Enter or Space on a focused element does what a click does.
  function keyed(node, go) {
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.addEventListener("click", go);
    node.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
  }

  function cellActions(legal, row, pos, current) {
    return legal.filter(a => {
      const t = a.action;
      if (t === "peek " + row + "." + pos || t === "scout " + row + "." + pos || t === "flare " + row + "." + pos) return true;
      if (current === row && (t === "place " + pos || t === "switch " + pos)) return true;
      return false;
    });
  }

  function render(box, ctx) {
    const v = ctx.view;
    const o = v.observation;
    if (!o) { window.genericRenderer.render(box, ctx); return; }
    const n = o.players;
    const legal = ctx.legal || [];
    const parts = [];
    const phaseText = t("ko.phase." + o.phase);
    const who = (s) => s === v.seat ? t("seat.you") : t("seat.n", { n: s });
    parts.push(el("p", { id: "korovan-phase" }, t("ko.round", { r: o.round + 1, n: n * (v.config ? v.config.laps : 1) }) +
      " — " + t("ko.driver", { who: who(o.driver) }) + " — " + phaseText +
      (o.pending_fine ? t("ko.fine", { n: o.pending_fine }) : "") + (o.current_row ? t("ko.row_now", { r: o.current_row, n: o.switches_left }) : "")));
    // Cows: at a table the seat chips above the board show them (chipData,
    // score); the replay has no chips, so its board shows them.
    if (ctx.replay) {
      const cows = el("div", { class: "cows" });
      for (let s = 0; s < n; s++) cows.append(el("span", { "data-seat": s, "data-cows": o.cows[s], class: "cow-count" }, window.swatch(s),
        t("ko.cows", { who: who(s) + (s === o.driver ? t("ko.driver_mark") : ""), n: o.cows[s] })));
      parts.push(cows);
    }
    // The road; while some cards are playable, the others are dimmed.
    const road = el("div", { class: "road", id: "road" });
    let playable = 0;
    const rows = n - 1;
    for (let r = 1; r <= rows; r++) {
      const owner = (o.driver + r) % n;
      const laid = r <= o.rows_laid;
      const here = o.current_row === r;
      const spy = legal.filter(a => a.action === "spy " + r);
      const hk = (o.hand_known >> (r - 1)) & 1, ha = (o.hand_ambush >> (r - 1)) & 1;
      const label = el("div", { class: "label" + (spy.length ? " clickable" : ""), "data-row": r },
        window.swatch(owner), t("ko.row", { r, who: owner === v.seat ? t("ko.yours") : t("seat.n", { n: owner }) }),
        el("br"), el("span", { class: "muted" }, laid ? t("ko.hand", { what: hk ? (ha ? t("ko.hand_amb") : t("ko.hand_empty")) : "?" }) : t("ko.not_laid")),
        ((o.spied >> (r - 1)) & 1) ? el("span", { class: "muted" }, t("ko.spied")) : null);
      if (spy.length) {
        label.style.cursor = "pointer"; label.title = window.said(spy[0]);
        label.setAttribute("aria-label", window.said(spy[0]));
        keyed(label, () => ctx.act(spy[0].action));
      }
      const cards = [];
      for (let p = 0; p < 3; p++) {
        const c = 3 * (r - 1) + p, bit = 1 << c;
        if (!laid) { cards.push(el("div", { class: "kcard unlaid", "aria-label": t("ko.card", { r, pos: t("ko.pos." + p) }) + ": " + t("ko.not_laid") }, "—")); continue; }
        const up = o.face_up & bit, known = o.known & bit, amb = o.known_ambush & bit;
        const cls = ["kcard"];
        if (up) cls.push("up"); else if (known) cls.push("known");
        if (known) cls.push(amb ? "ambush" : "empty");
        if (o.route & bit) cls.push("route");
        const acts = cellActions(legal, r, p, o.current_row);
        // Playable: a click plays; only a helper card's moves (scout, flare): a dashed frame.
        if (acts.length) { cls.push("playable"); playable++; }
        if (acts.length && !acts.some(a => /^(peek|place|switch) /.test(a.action))) cls.push("by-helper");
        const marks = [];
        if (o.peeks.some(x => x === c)) marks.push("peeked");
        if (o.scouted & bit) marks.push("scouted");
        const face = known ? (amb ? t("ko.ambush") : t("ko.empty")) : "?";
        const state = up ? t("ko.face_up") : (known ? t("ko.you_know") : t("ko.face_down"));
        const name = t("ko.card", { r, pos: t("ko.pos." + p) });
        const aria = [name, face === "?" ? null : face, state, here && o.token === p ? t("ko.caravan") : null, ...marks.map(m => t("ko." + m))].filter(Boolean).join(", ") +
          (acts.length ? ": " + acts.map(a => window.said(a)).join("; ") : "");
        // What a click does, written on the card (several: the chooser asks).
        const verbs = [...new Set(acts.map(a => t("ko.do." + a.action.split(" ")[0])))];
        const card = el("div", { class: cls.join(" "), "data-cell": r + "." + p, title: acts.map(a => window.said(a)).join("\n"), "aria-label": aria },
          here && o.token === p ? el("span", { class: "tokenmark", title: t("ko.caravan") }, "▼") : null,
          verbs.length ? el("span", { class: "does" }, verbs.join(" / ")) : null,
          el("span", { class: "face" }, face),
          el("span", {}, state),
          el("span", { class: "marks" }, marks.map(m => t("ko." + m)).join(" · ")));
        if (acts.length) keyed(card, () => acts.length === 1 ? ctx.act(acts[0].action) : ctx.choose(acts, name));
        cards.push(card);
      }
      road.append(el("div", { class: "road-row" + (here ? " current" : ""), "data-row": r }, label, cards));
    }
    if (playable) road.classList.add("choosing");
    parts.push(road);
    // Lay choices, drawn as rows.
    const lays = legal.filter(a => a.action.startsWith("lay "));
    if (lays.length) {
      const box2 = el("div", { id: "lay-choices" }, el("p", {}, t("ko.lay")));
      for (const a of lays) {
        const set = a.action.slice(4).split("+").map(Number);
        box2.append(el("button", { class: "lay-choice", "data-action": a.action, title: window.said(a), "aria-label": window.said(a), onclick: () => ctx.act(a.action) },
          [0, 1, 2].map(p => el("span", { class: set.includes(p) ? "a" : "e" }, set.includes(p) ? t("ko.A") : t("ko.E")))));
      }
      parts.push(box2);
    }
    // Helpers.
    const helpers = el("div", { class: "helpers" });
    if (o.helper_hand) {
      helpers.append(el("span", {}, t("ko.your_helpers")));
      for (const [k, name] of HELPERS) if (o.helper_hand[k]) helpers.append(el("span", { class: "helper-card", "data-helper": k }, name + " ×" + o.helper_hand[k]));
      if (!o.helpers_in_hand) helpers.append(el("span", { class: "muted" }, t("ko.none")));
    } else {
      helpers.append(el("span", {}, t("ko.driver_holds", { n: o.helpers_in_hand })));
    }
    const played = HELPERS.filter(([k]) => o.played[k]).map(([k, name]) => name + " ×" + o.played[k]);
    if (played.length) helpers.append(el("span", { class: "muted" }, t("ko.played", { list: played.join(", ") })));
    parts.push(helpers);
    const single = legal.filter(a => ["reveal", "pay", "guard", "haggle", "second", "second_thought"].includes(a.action));
    if (single.length) parts.push(el("div", {}, single.map(a => el("button", { class: "primary", "data-action": a.action, title: a.action, onclick: () => ctx.act(a.action) }, window.said(a)))));
    box.replaceChildren(...parts);
  }

  window.Renderers = window.Renderers || {};
  window.Renderers.korovan = {
    render,
    // Every move is on the road: its cards, its row labels (spy), the lay
    // choices and the buttons below it.
    onBoard: () => true,
    hint: () => t("ko.hint"),
    // The seat chips carry the cows (the board does not repeat them).
    score: (s, v) => {
      const o = v.observation;
      if (!o) return t("ko.cows_n", { n: s.score });
      return t("ko.cows_n", { n: o.cows[s.seat] }) + (s.seat === o.driver ? t("ko.driver_mark") : "");
    },
    chipData: (s, v) => ({ "data-cows": v.observation ? v.observation.cows[s.seat] : s.score }),
  };
})();
