// Korovan's road: one row of three cards per competitor, face down or up,
// the token and the route, the cards the viewer knows, peeks, scouts and
// spies, cows per seat, the driver's helper hand (for the driver only) and
// the helpers played. Clicks: a card peeks, places, switches, scouts or
// flares (a chooser asks when several fit); a row's label spies; the lay
// choices are drawn as rows.
"use strict";
(function () {
  const HELPERS = [["scout", "Scout"], ["spy", "Spy"], ["flare", "Flare"], ["second_thought", "Second thought"], ["guard", "Guard"], ["haggle", "Haggle"]];

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
    const phaseText = { Deal: "the driver is dealt helpers", Peek: "a competitor peeks", Lay: "a competitor lays an ambush row",
      Place: "the driver places the token", Decide: "the driver decides: switch, reveal or a helper", Defend: "an ambush! pay or defend", Over: "the game is over" }[o.phase] || o.phase;
    parts.push(el("p", { id: "korovan-phase" }, "Round " + (o.round + 1) + " of " + n * (v.config ? v.config.laps : 1) +
      " — driver: " + (o.driver === v.seat ? "you" : "seat " + o.driver) + " — " + phaseText +
      (o.pending_fine ? " (fine " + o.pending_fine + ")" : "") + (o.current_row ? " — row " + o.current_row + ", switches left " + o.switches_left : "")));
    // Cows.
    const cows = el("div", { class: "cows" });
    for (let s = 0; s < n; s++) cows.append(el("span", { "data-seat": s, class: "cow-count" }, window.swatch(s),
      (s === v.seat ? "you" : "seat " + s) + (s === o.driver ? " (driver)" : "") + ": " + o.cows[s] + " cows"));
    parts.push(cows);
    // The road.
    const road = el("div", { class: "road", id: "road" });
    const rows = n - 1;
    for (let r = 1; r <= rows; r++) {
      const owner = (o.driver + r) % n;
      const laid = r <= o.rows_laid;
      const here = o.current_row === r;
      const spy = legal.filter(a => a.action === "spy " + r);
      const hk = (o.hand_known >> (r - 1)) & 1, ha = (o.hand_ambush >> (r - 1)) & 1;
      const label = el("div", { class: "label" + (spy.length ? " clickable" : ""), "data-row": r },
        window.swatch(owner), "Row " + r + " — " + (owner === v.seat ? "yours" : "seat " + owner),
        el("br"), el("span", { class: "muted" }, laid ? ("hand: " + (hk ? (ha ? "Ambush (fine 3)" : "Empty (fine 2)") : "?")) : "not laid yet"),
        ((o.spied >> (r - 1)) & 1) ? el("span", { class: "muted" }, " · spied") : null);
      if (spy.length) { label.style.cursor = "pointer"; label.title = "spy " + r; label.addEventListener("click", () => ctx.act(spy[0].action)); }
      const cards = [];
      for (let p = 0; p < 3; p++) {
        const c = 3 * (r - 1) + p, bit = 1 << c;
        if (!laid) { cards.push(el("div", { class: "kcard unlaid" }, "—")); continue; }
        const up = o.face_up & bit, known = o.known & bit, amb = o.known_ambush & bit;
        const cls = ["kcard"];
        if (up) cls.push("up"); else if (known) cls.push("known");
        if (known) cls.push(amb ? "ambush" : "empty");
        if (o.route & bit) cls.push("route");
        const acts = cellActions(legal, r, p, o.current_row);
        if (acts.length) cls.push("clickable");
        const marks = [];
        if (o.peeks.some(x => x === c)) marks.push("peeked");
        if (o.scouted & bit) marks.push("scouted");
        const card = el("div", { class: cls.join(" "), "data-cell": r + "." + p, title: acts.map(a => a.action).join(", ") },
          here && o.token === p ? el("span", { class: "tokenmark", title: "the caravan" }, "▼") : null,
          el("span", { class: "face" }, known ? (amb ? "AMBUSH" : "empty") : "?"),
          el("span", {}, up ? "face up" : (known ? "you know" : "face down")),
          el("span", { class: "marks" }, marks.join(" · ")));
        if (acts.length) card.addEventListener("click", () => acts.length === 1 ? ctx.act(acts[0].action) : ctx.choose(acts, "Card " + r + "." + p));
        cards.push(card);
      }
      road.append(el("div", { class: "road-row" + (here ? " current" : ""), "data-row": r }, label, cards));
    }
    parts.push(road);
    // Lay choices, drawn as rows.
    const lays = legal.filter(a => a.action.startsWith("lay "));
    if (lays.length) {
      const box2 = el("div", { id: "lay-choices" }, el("p", {}, "Lay your row: red = Ambush. One ambush laid means you keep an Ambush in hand (fine 3); two mean you keep an Empty (fine 2)."));
      for (const a of lays) {
        const set = a.action.slice(4).split("+").map(Number);
        box2.append(el("span", { class: "lay-choice", "data-action": a.action, title: a.action, onclick: () => ctx.act(a.action) },
          [0, 1, 2].map(p => el("span", { class: set.includes(p) ? "a" : "e" }, set.includes(p) ? "A" : "E"))));
      }
      parts.push(box2);
    }
    // Helpers.
    const helpers = el("div", { class: "helpers" });
    if (o.helper_hand) {
      helpers.append(el("span", {}, "Your helpers: "));
      for (const [k, name] of HELPERS) if (o.helper_hand[k]) helpers.append(el("span", { class: "helper-card", "data-helper": k }, name + " ×" + o.helper_hand[k]));
      if (!o.helpers_in_hand) helpers.append(el("span", { class: "muted" }, "none"));
    } else {
      helpers.append(el("span", {}, "The driver holds " + o.helpers_in_hand + " helper" + (o.helpers_in_hand === 1 ? "" : "s") + "."));
    }
    const played = HELPERS.filter(([k]) => o.played[k]).map(([k, name]) => name + " ×" + o.played[k]);
    if (played.length) helpers.append(el("span", { class: "muted" }, " Played this round: " + played.join(", ")));
    parts.push(helpers);
    const single = legal.filter(a => ["reveal", "pay", "guard", "haggle", "second", "second_thought"].includes(a.action));
    if (single.length) parts.push(el("div", {}, single.map(a => el("button", { class: "primary", "data-action": a.action, onclick: () => ctx.act(a.action) }, a.action))));
    box.replaceChildren(...parts);
  }

  window.Renderers = window.Renderers || {};
  window.Renderers.korovan = { render };
})();
