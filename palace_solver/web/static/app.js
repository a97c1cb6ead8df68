// Palace: the analysis board and the live companion. No build step, no library, nothing
// from the internet. Every rule is the server's: this file draws what the API answers and
// sends what the user taps (legal moves, chance outcomes and events come from the server).
"use strict";

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"];
const RANK_ORDER = Object.fromEntries(RANKS.map((r, i) => [r, i]));
const App = { info: null, view: null };

// -- small helpers ------------------------------------------------------------------------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value") el.value = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Requests in flight and edits waiting to be checked: body[data-busy] (tests wait for 0).
const Busy = {
  n: 0,
  add(k) { this.n += k; document.body.dataset.busy = String(this.n); },
};

async function api(path, body, opts = {}) {
  Busy.add(1);
  try { return await apiCall(path, body, opts); } finally { Busy.add(-1); }
}

async function apiCall(path, body, opts = {}) {
  const init = { method: body === undefined ? "GET" : "POST", signal: opts.signal,
                 headers: { "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    return { ok: false, status: 0, data: { error: "the server cannot be reached" } };
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: `HTTP ${res.status}` }; }
  return { ok: res.ok, status: res.status, data };
}

const pct = (x) => (100 * x).toFixed(2) + "%";
const sortCards = (cs) => cs.slice().sort((a, b) => RANK_ORDER[a] - RANK_ORDER[b]);
function cardClass(r) {
  if (r === "2" || r === "10" || r === "JK") return "card special";
  if (["J", "Q", "K", "A"].includes(r)) return "card high";
  return "card";
}
function card(r, attrs = {}) { return h("span", { class: cardClass(r), ...attrs }, r); }
function debounce(fn, ms) {
  let t = null;
  return (...a) => {
    if (t === null) Busy.add(1); else clearTimeout(t);
    t = setTimeout(async () => { t = null; try { await fn(...a); } finally { Busy.add(-1); } }, ms);
  };
}
function parseHash() {
  const hash = location.hash.replace(/^#/, "") || "/board";
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  return { path, params };
}

// -- the table picture (board, editor and live share it) -------------------------------------
// t: {players: [{name, hand, unknown, face_up, face_down, out, viewer}], pile, burned,
//     draw_pile, to_move}; opts.edit: the editor's callbacks; opts.errors: zone -> message.
function renderTable(t, opts = {}) {
  const edit = opts.edit;
  const errs = opts.errors || {};
  const isTarget = (zone, seat) => edit && edit.target.zone === zone && edit.target.seat === seat;
  const zone = (zoneName, seat, label, cards, extra) => {
    let chips;
    if (zoneName === "burned") {
      // Burned cards grouped by rank: "7 ×4"; a tap gives one back.
      const groups = [];
      cards.forEach((r, i) => { const g = groups.find((x) => x.r === r); if (g) g.k++; else groups.push({ r, k: 1, i }); });
      chips = groups.map((g) => h("span", { class: cardClass(g.r) + " group", role: "button", title: "tap to take one back",
        dataset: { rank: g.r }, onclick: (ev) => { ev.stopPropagation(); edit.remove(zoneName, seat, cards.lastIndexOf(g.r)); } },
        g.r, g.k > 1 ? h("small", {}, "×" + g.k) : null));
    } else chips = cards.map((r, i) => card(r, edit ? {
      role: "button", title: "tap to remove", dataset: { idx: i },
      onclick: (ev) => { ev.stopPropagation(); edit.remove(zoneName, seat, i); } } : {}));
    return h("div", { class: "zone" + (isTarget(zoneName, seat) ? " target" : ""),
                      dataset: { zone: zoneName, seat: seat ?? "" },
                      onclick: edit ? () => edit.select(zoneName, seat) : null },
      h("span", { class: "zlabel" }, label),
      h("span", { class: "cards" }, chips.length ? chips : (extra ? null : h("span", { class: "none" }, "–"))),
      extra || null);
  };
  const counter = (name, seat, value, label, symbol) => edit
    ? h("span", { class: "counter", dataset: { counter: name, seat: seat ?? "" } },
        h("button", { class: "step", "aria-label": `fewer ${label}`, onclick: (ev) => { ev.stopPropagation(); edit.count(name, seat, -1); } }, "−"),
        h("span", { class: "count" }, symbol + value),
        h("button", { class: "step", "aria-label": `more ${label}`, onclick: (ev) => { ev.stopPropagation(); edit.count(name, seat, 1); } }, "+"))
    : h("span", { class: "count" }, symbol + value);
  const players = t.players.map((p, i) => {
    const moving = t.to_move === i;
    const hand = zone("hand", i, "hand", p.hand,
      (p.unknown || edit) ? h("span", { class: "unknown" }, counter("unknown", i, p.unknown, "unknown hand cards", "?")) : null);
    const down = edit ? counter("down", i, p.face_down, "face-down cards", "")
      : h("span", { class: "downs" }, Array.from({ length: Math.min(p.face_down, 8) }, () => h("span", { class: "card back" }, "")),
          p.face_down > 8 ? `+${p.face_down - 8}` : null, p.face_down ? null : h("span", { class: "none" }, "–"));
    return h("section", { class: "player" + (moving ? " moving" : "") + (p.out ? " out" : "") + (errs[`player ${i}`] ? " bad" : ""),
                          dataset: { seat: i } },
      h("div", { class: "phead" },
        edit ? h("button", { class: "turn" + (moving ? " on" : ""), title: "to move", "aria-label": `${p.name || "player " + i} to move`,
                              onclick: () => edit.toMove(i) }, "▶")
             : h("span", { class: "turn" + (moving ? " on" : "") }, moving ? "▶" : ""),
        edit ? h("input", { class: "pname", value: p.name || "", placeholder: `player ${i}`, "aria-label": `name of player ${i}`,
                            onchange: (ev) => edit.rename(i, ev.target.value) })
             : h("span", { class: "pname" }, p.name, p.viewer ? h("small", {}, " (view)") : null),
        p.out ? h("span", { class: "tag" }, "out") : null,
        edit && t.players.length > 2 ? h("button", { class: "del", "aria-label": `remove player ${i}`, onclick: () => edit.removePlayer(i) }, "×") : null),
      p.out ? null : [hand, zone("up", i, "face-up", p.face_up),
        h("div", { class: "zone down" }, h("span", { class: "zlabel" }, "face-down"), down)],
      errs[`player ${i}`] ? h("div", { class: "err" }, errs[`player ${i}`]) : null);
  });
  const pile = zone("pile", null, "pile", t.pile);
  const burned = zone("burned", null, "burned", edit ? t.burned : [],
    edit ? null : h("span", { class: "count" }, String(t.burned.length)));
  const draw = h("div", { class: "zone", dataset: { zone: "draw" } }, h("span", { class: "zlabel" }, "draw pile"),
    counter("draw", null, t.draw_pile, "draw pile cards", ""),
    edit ? h("button", { class: "small", onclick: () => edit.fillDraw() }, "fill") : null);
  return h("div", { class: "table" },
    h("div", { class: "players" }, players),
    h("section", { class: "middle" + (errs.pile || errs.burned || errs.draw ? " bad" : "") },
      pile, errs.pile ? h("div", { class: "err" }, errs.pile) : null,
      burned, edit ? h("div", { class: "row" },
        h("button", { class: "small", onclick: () => edit.burnRest() }, "burn the rest"),
        h("button", { class: "small", onclick: () => edit.clear("burned") }, "clear burned")) : null,
      errs.burned ? h("div", { class: "err" }, errs.burned) : null,
      draw, errs.draw ? h("div", { class: "err" }, errs.draw) : null));
}

// The analysis as a table: a row per move, best first, loss % per player (± half the 95%
// interval when sampled), ties marked; onPlay(move) when a row is tapped.
function moveTable(a, names, onPlay) {
  const cis = (a.stats && a.stats.move_ci95) || {};
  const same = (x, y) => x && y && x.length === y.length && x.every((v, i) => v === y[i]);
  const st = a.stats || {};
  const info = [`method ${a.method}`];
  if (st.depth !== undefined) info.push(`depth ${st.depth}`);
  if (st.nodes !== undefined) info.push(`${Number(st.nodes).toLocaleString("en")} nodes`);
  if (a.samples || st.samples) info.push(`${a.samples || st.samples} samples`);
  if (st.seconds !== undefined) info.push(`${Number(st.seconds).toFixed(3)} s`);
  // A depth-limited search: which figures are proven, which are estimates (marked ~).
  const open = a.moves.filter((m) => m.resolved === false).length;
  if (open) info.push(`not resolved: ${a.moves.length - open} of ${a.moves.length} moves proven`);
  const ties = a.moves.some((m, i) => i > 0 && same(m.loss_probability, a.moves[i - 1].loss_probability));
  // Sampled figures: a move whose 95% interval (of the mover's loss) overlaps the best
  // move's cannot be told from it by these samples.
  const mover = a.to_move;
  const bestCi = a.moves.length && cis[a.moves[0].move] ? cis[a.moves[0].move][mover] : null;
  // A search over deals gives each move's loss minus the best's over the same deals: tied
  // when its 95% interval reaches 0 (the luck of the deal cancels in the difference).
  const pairs = st.vs_best_ci95;
  const overlaps = (m) => {
    if (pairs && pairs[m.move]) return pairs[m.move][0] <= 0;
    const c = cis[m.move] && cis[m.move][mover];
    return !!(bestCi && c && bestCi[1] > bestCi[0] && c[0] <= bestCi[1] && c[1] >= bestCi[0]);
  };
  const close = a.moves.some((m, i) => i > 0 && overlaps(m));
  return h("div", { class: "result", id: "result" },
    h("div", { class: "info", id: "result-info" }, info.join(" · ")),
    h("table", { class: "movetable", id: "movetable" },
      h("thead", {}, h("tr", {}, h("th", {}, "move"), names.map((n) => h("th", {}, "loss ", n)), open ? h("th", {}, "") : null)),
      h("tbody", {}, a.moves.map((m, i) => {
        const tie = (i > 0 && same(m.loss_probability, a.moves[i - 1].loss_probability))
                 || (i + 1 < a.moves.length && same(m.loss_probability, a.moves[i + 1].loss_probability));
        const ci = m.ci95 || cis[m.move];
        const est = m.resolved === false;
        return [h("tr", { class: (i === 0 ? "best" : "") + (tie ? " tie" : "") + (est ? " unresolved" : ""), dataset: { move: m.move },
                         title: onPlay ? "play " + m.move : null, onclick: onPlay ? () => onPlay(m.move) : null },
          h("td", { class: "mv" }, i === 0 ? "★ " : "", m.move, tie ? h("small", { class: "tiemark" }, " =") : null,
            !tie && i > 0 && overlaps(m) ? h("small", { class: "tiemark", title: pairs ? "the deals cannot tell it from the best move" : "its 95% interval overlaps the best move's" }, " ≈") : null),
          m.loss_probability.map((x, j) => h("td", { dataset: { loss: String(x) } }, est ? "~" : "", pct(x),
            ci && ci[j] && ci[j][1] > ci[j][0] ? h("small", {}, ` ±${(100 * (ci[j][1] - ci[j][0]) / 2).toFixed(1)}`) : null)),
          open ? h("td", { class: "status" }, est ? "estimate" : "proven") : null)];
      }))),
    h("div", { class: "hint" }, onPlay ? "Tap a move to play it. " : "", ties ? "= marks moves tied on value. " : "",
      close ? (pairs ? "≈ marks moves the deals cannot tell from the best (their loss minus the best's, over the same deals, has a 95% interval reaching 0). "
                     : "≈ marks moves whose 95% interval overlaps the best move's. ") : "",
      open ? `~ marks figures the search did not resolve (depth ${st.depth}): estimates at its horizon, and the order rests on them` +
             (st.loss_at_most !== undefined ? `; the mover's loss is at most ${pct(st.loss_at_most)} (the best proven move)` : "") +
             ". More time resolves more." : ""));
}

// -- the analysis board -------------------------------------------------------------------
const EXAMPLE = "standard | me: K K / - / 2 ; bob: - / - / 1 | pile 4 6 6 | burned 2 2 2 2 3 3 3 3 4 4 5 5 5 6 6 7 7 7 7 8 8 8 8 9 9 9 10 10 10 10 J J J J Q Q Q Q K K A A A A | draw 0 | to_move 0";

const Board = {
  ed: null, target: { zone: "hand", seat: 0 }, left: {}, deck: {}, check: null,
  line: [], cur: 0, result: null, analyses: {}, running: null, progress: null,
  // Empty: the server's default analysis, the same as `palace analyze` with no options.
  loaded: false, opts: { time: "", samples: "", seed: "0" },

  emptyPlayer(name) { return { name, hand: [], unknown: 0, face_up: [], face_down: 3 }; },

  fromJSON(j) {
    const rules = j.rules === "standard" || !j.rules ? [] : (j.rules.variants || []);
    return {
      variants: rules.slice(),
      players: j.players.map((p, i) => {
        const hand = Array.isArray(p.hand) ? p.hand : p.hand.known;
        const count = Array.isArray(p.hand) ? p.hand.length : p.hand.count;
        return { name: p.name || "", hand: hand.slice(), unknown: count - hand.length,
                 face_up: p.face_up.slice(), face_down: p.face_down };
      }),
      pile: j.pile.slice(), burned: (j.burned || []).slice(), draw_pile: j.draw_pile,
      to_move: j.to_move, perspective: j.perspective ?? null,
      direction: j.direction ?? 1, last_player: j.last_player ?? null,
    };
  },

  toJSON(ed) {
    const out = {
      rules: ed.variants.length ? { base: "standard", variants: ed.variants.slice() } : "standard",
      players: ed.players.map((p) => {
        const o = {};
        if (p.name) o.name = p.name;
        o.hand = p.unknown ? { known: p.hand.slice(), count: p.hand.length + p.unknown } : p.hand.slice();
        o.face_up = p.face_up.slice();
        o.face_down = p.face_down;
        return o;
      }),
      pile: ed.pile.slice(), burned: ed.burned.slice(), draw_pile: ed.draw_pile, to_move: ed.to_move,
    };
    if (ed.perspective !== null && ed.perspective !== undefined) out.perspective = ed.perspective;
    if (ed.direction && ed.direction !== 1) out.direction = ed.direction;
    if (ed.last_player !== null && ed.last_player !== undefined) out.last_player = ed.last_player;
    return out;
  },

  // The editor's callbacks (renderTable calls them).
  editApi() {
    const B = this;
    return {
      target: B.target,
      select(zone, seat) { B.target = { zone, seat }; B.render(); },
      remove(zone, seat, i) {
        const list = seat === null || seat === undefined ? B.ed[zone] : B.ed.players[seat][zone === "up" ? "face_up" : zone];
        list.splice(i, 1); B.changed();
      },
      count(name, seat, d) {
        if (name === "draw") B.ed.draw_pile = Math.max(0, B.ed.draw_pile + d);
        else if (name === "down") B.ed.players[seat].face_down = Math.max(0, B.ed.players[seat].face_down + d);
        else B.ed.players[seat].unknown = Math.max(0, B.ed.players[seat].unknown + d);
        B.changed();
      },
      toMove(i) { B.ed.to_move = i; B.changed(); },
      rename(i, v) { B.ed.players[i].name = v.trim(); B.changed(); },
      removePlayer(i) {
        B.ed.players.splice(i, 1);
        if (B.ed.to_move >= B.ed.players.length) B.ed.to_move = 0;
        B.ed.perspective = null; B.ed.last_player = null;
        B.target = { zone: "hand", seat: 0 }; B.changed();
      },
      async fillDraw() {
        await B.doValidate();
        const left = Object.values(B.left).reduce((a, b) => a + b, 0);
        const hidden = B.ed.players.reduce((a, p) => a + p.face_down + p.unknown, 0);
        B.ed.draw_pile = Math.max(0, left - hidden); B.changed();
      },
      async burnRest() {
        await B.doValidate();
        for (const r of RANKS) for (let k = 0; k < (B.left[r] || 0); k++) B.ed.burned.push(r);
        B.ed.burned = sortCards(B.ed.burned); B.changed();
      },
      clear(zone) { B.ed[zone] = []; B.changed(); },
    };
  },

  addCard(r) {
    const t = this.target;
    if (t.zone === "pile") this.ed.pile.push(r);
    else if (t.zone === "burned") { this.ed.burned.push(r); this.ed.burned = sortCards(this.ed.burned); }
    else {
      const p = this.ed.players[t.seat];
      const key = t.zone === "up" ? "face_up" : "hand";
      p[key].push(r); p[key] = sortCards(p[key]);
    }
    this.changed();
  },

  // An edit: the line starts again from the new position.
  changed() {
    this.line = []; this.cur = 0; this.result = null;
    this.render(); this.validate();
  },

  validate: null,   // set in init (debounced)

  async doValidate() {
    const seq = (this._seq = (this._seq || 0) + 1);
    const r = await api("/api/position", { position: this.toJSON(this.ed) });
    if (seq !== this._seq) return;
    this.left = r.data.left || this.left; this.deck = r.data.deck || this.deck;
    if (r.ok) {
      this.check = { ok: true, text: r.data.text, json: r.data.position };
      await this.refresh();
    } else {
      this.check = { ok: false, error: r.data.error, where: r.data.where };
      this.result = null; this.render();
    }
  },

  // Replay the line up to the cursor on the server.
  async refresh() {
    if (!this.check || !this.check.ok) return;
    const seq = (this._rseq = (this._rseq || 0) + 1);
    const r = await api("/api/board", { position: this.check.json, line: this.line.slice(0, this.cur) });
    if (seq !== this._rseq) return;
    if (!r.ok) { this.result = { error: r.data.error }; this.render(); return; }
    this.result = r.data;
    this.updateUrl(); this.render();
  },

  updateUrl() {
    if (!this.check || !this.check.ok) return;
    const q = new URLSearchParams();
    q.set("p", this.check.text);
    if (this.line.length) q.set("l", this.line.join(","));
    if (this.cur !== this.line.length) q.set("c", String(this.cur));
    const url = "#/board?" + q.toString();
    if (location.hash !== url) history.replaceState(null, "", url);
  },

  shareUrl() { return location.origin + location.pathname + location.hash; },

  play(step) {
    this.stop();
    this.line = this.line.slice(0, this.cur).concat([step]);
    this.cur = this.line.length;
    this.refresh();
  },
  go(k) {
    const c = Math.max(0, Math.min(this.line.length, k));
    if (c === this.cur) return;
    this.stop(); this.cur = c; this.refresh();
  },

  optionsBody(position) {
    const o = { position };
    const t = parseFloat(this.opts.time), s = parseInt(this.opts.samples, 10), seed = parseInt(this.opts.seed, 10);
    if (this.opts.time !== "" && !isNaN(t)) o.time = t;
    if (this.opts.samples !== "" && !isNaN(s)) o.samples = s;
    if (this.opts.seed !== "" && !isNaN(seed)) o.seed = seed;
    return o;
  },
  analysisKey(body) { return JSON.stringify(body); },

  async analyze() {
    const node = this.result && this.result.node;
    if (!node || node.kind !== "decision" || !node.position) return;
    this.stop();
    const body = this.optionsBody(node.position);
    const key = this.analysisKey(body);
    const ctrl = new AbortController();
    this.running = { ctrl, key };
    this.progress = { seconds: 0, done: null, total: body.samples || null };
    this.render();
    let final = null;
    try {
      const res = await fetch("/api/analyze/stream", { method: "POST", signal: ctrl.signal,
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      if (!res.ok) {
        let d = {}; try { d = await res.json(); } catch (e) { /* not JSON */ }
        final = { error: d.error || `HTTP ${res.status}` };
      } else {
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let nl;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const msg = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1);
            if ("progress" in msg) {
              this.progress = { seconds: msg.seconds, done: msg.progress ?? (this.progress && this.progress.done),
                                total: msg.total ?? (this.progress && this.progress.total) };
              this.renderProgress();
            } else if ("queued" in msg) {
              if (msg.queued) { this.progress.queued = true; this.renderProgress(); }
            } else final = msg;
          }
        }
      }
    } catch (e) {
      if (e.name === "AbortError") return;
      final = { error: "the connection to the server was lost" };
    }
    if (this.running && this.running.key === key) this.running = null;
    if (final) this.analyses[key] = final;
    this.render();
  },
  stop() {
    if (this.running) { this.running.ctrl.abort(); this.running = null; }
  },

  renderProgress() {
    const el = document.getElementById("progress");
    if (!el || !this.progress) return;
    const p = this.progress;
    el.replaceChildren(
      p.total && p.done !== null && p.done !== undefined ? h("progress", { max: p.total, value: p.done }) : h("progress", {}),
      h("span", {}, p.queued && !p.seconds ? " waiting for a free core…" :
        ` ${p.seconds.toFixed(1)} s` + (p.done ? ` · ${p.done}${p.total ? "/" + p.total : ""} samples` : "")));
  },

  // -- drawing --------------------------------------------------------------------------
  errors() {
    const c = this.check;
    if (!c || c.ok || !c.where) return {};
    return { [c.where]: c.error };
  },

  render() {
    if (App.view !== "board") return;
    const view = document.getElementById("view");
    const atStart = this.cur === 0;
    const res = this.result;
    const node = res && res.node;
    const editing = atStart;
    const errs = editing ? this.errors() : {};
    const table = editing ? {
      players: this.ed.players.map((p) => ({ ...p, out: false })), pile: this.ed.pile,
      burned: this.ed.burned, draw_pile: this.ed.draw_pile, to_move: this.ed.to_move,
    } : (res && res.table);
    const focus = document.activeElement && document.activeElement.id;
    view.replaceChildren(h("div", { class: "board" },
      h("div", { class: "col left" },
        editing ? this.renderRules(errs) : h("div", { class: "rules-line" }, "rules: " + this.rulesText()),
        table ? renderTable(table, editing ? { edit: this.editApi(), errors: errs } : {}) : null,
        editing ? this.renderPalette(errs) : null,
        this.renderCheck(),
        editing ? this.renderPlayersRow() : null),
      h("div", { class: "col right" },
        this.renderLine(),
        this.renderNode(node),
        this.renderAnalysis(node),
        this.renderExport())));
    if (focus) { const f = document.getElementById(focus); if (f) f.focus(); }
    this.renderProgress();
  },

  rulesText() { return this.ed.variants.length ? "standard+" + this.ed.variants.join("+") : "standard"; },

  renderRules(errs) {
    const variants = (App.info && App.info.variants) || [];
    return h("details", { class: "rules" + (errs.rules ? " bad" : ""), open: !!this.rulesOpen,
                          ontoggle: (ev) => { this.rulesOpen = ev.target.open; } },
      h("summary", {}, "Rules: ", h("b", { id: "rules-name" }, this.rulesText())),
      h("div", { class: "variants" }, variants.map((v) => h("label", {},
        h("input", { type: "checkbox", checked: this.ed.variants.includes(v), dataset: { variant: v },
                     onchange: (ev) => {
                       if (ev.target.checked) this.ed.variants.push(v);
                       else this.ed.variants = this.ed.variants.filter((x) => x !== v);
                       this.ed.variants.sort((a, b) => variants.indexOf(a) - variants.indexOf(b));
                       this.changed();
                     } }), " ", v))),
      errs.rules ? h("div", { class: "err" }, errs.rules) : null);
  },

  renderPalette(errs) {
    const t = this.target;
    const where = t.zone === "pile" ? "the pile" : t.zone === "burned" ? "burned"
      : `${this.ed.players[t.seat] ? (this.ed.players[t.seat].name || "player " + t.seat) : "?"}'s ${t.zone === "up" ? "face-up cards" : "hand"}`;
    const ranks = RANKS.filter((r) => r !== "JK" || this.ed.variants.includes("jokers"));
    return h("div", { class: "palette" + (errs.cards ? " bad" : "") },
      h("div", { class: "ptitle" }, "Tap a card to add it to ", h("b", { id: "target" }, where)),
      h("div", { class: "prow" }, ranks.map((r) => {
        const left = this.left[r];
        return h("button", { class: cardClass(r) + " pick", dataset: { rank: r }, "aria-label": `add ${r}`,
                             onclick: () => this.addCard(r) },
          r, left !== undefined ? h("small", {}, String(left)) : null);
      })),
      errs.cards ? h("div", { class: "err" }, errs.cards) : null);
  },

  renderPlayersRow() {
    return h("div", { class: "row" },
      h("button", { id: "add-player", onclick: () => {
        if (this.ed.players.length >= 10) return;
        this.ed.players.push(this.emptyPlayer(`p${this.ed.players.length}`)); this.changed(); } }, "+ player"),
      h("label", {}, "view of ",
        h("select", { id: "perspective", onchange: (ev) => {
          this.ed.perspective = ev.target.value === "" ? null : parseInt(ev.target.value, 10); this.changed(); } },
          h("option", { value: "" }, "player to move"),
          this.ed.players.map((p, i) => h("option", { value: String(i), selected: this.ed.perspective === i }, p.name || `player ${i}`)))),
      h("button", { id: "new", onclick: () => {
        this.ed = { variants: [], players: [this.emptyPlayer("me"), this.emptyPlayer("bob")], pile: [], burned: [],
                    draw_pile: 0, to_move: 0, perspective: null, direction: 1, last_player: null };
        this.target = { zone: "hand", seat: 0 }; this.changed(); } }, "clear all"));
  },

  renderCheck() {
    const c = this.check;
    if (!c) return h("div", { id: "check", class: "check" }, "…");
    if (this.cur === 0 && !c.ok) return h("div", { id: "check", class: "check bad" }, "✗ ", c.error);
    if (this.result && this.result.error) return h("div", { id: "check", class: "check bad" }, "✗ ", this.result.error);
    return h("div", { id: "check", class: "check ok" }, "✓ valid position");
  },

  renderLine() {
    const n = this.line.length;
    const steps = (this.result && this.result.steps) || [];
    return h("section", { class: "line" },
      h("div", { class: "nav" },
        h("button", { id: "first", "aria-label": "to the start", disabled: this.cur === 0, onclick: () => this.go(0) }, "«"),
        h("button", { id: "back", "aria-label": "back", disabled: this.cur === 0, onclick: () => this.go(this.cur - 1) }, "◀"),
        h("span", { id: "stepno" }, `step ${this.cur} of ${n}`),
        h("button", { id: "forward", "aria-label": "forward", disabled: this.cur >= n, onclick: () => this.go(this.cur + 1) }, "▶"),
        h("button", { id: "last", "aria-label": "to the end", disabled: this.cur >= n, onclick: () => this.go(n) }, "»")),
      n ? h("ol", { class: "steps" }, this.line.map((s, i) => h("li", {
        class: i < this.cur ? "done" : "ahead", onclick: () => this.go(i + 1) },
        i < steps.length ? steps[i].text + (steps[i].notes.length ? " · " + steps[i].notes.join(", ") : "") : s))) : null);
  },

  renderNode(node) {
    if (!node) return null;
    if (node.kind === "over") {
      return h("section", { class: "node over", id: "node" }, h("b", {}, node.message),
        h("div", {}, node.names.map((nm, i) => `${nm} ${pct(node.loss_probability[i])}`).join(" · ")));
    }
    if (node.kind === "chance") {
      const c = node.chance;
      const what = c.kind === "flip" ? `${c.player} flips a face-down card` : `${c.player} draws (${c.cards} to come)`;
      return h("section", { class: "node chance", id: "node" },
        h("div", {}, h("b", {}, what), ": which card?"),
        h("div", { class: "outcomes" }, c.outcomes.map((o) => h("button", {
          class: cardClass(o.card) + " outcome", dataset: { card: o.card }, onclick: () => this.play(o.card) },
          o.card, h("small", {}, (100 * o.probability).toFixed(1) + "%")))));
    }
    return h("section", { class: "node", id: "node" },
      h("div", {}, h("b", {}, node.to_move), " to move", node.message ? " · " + node.message : ""),
      h("div", { class: "moves" }, node.moves.map((m) => h("button", { class: "move", dataset: { move: m }, onclick: () => this.play(m) }, m))));
  },

  renderAnalysis(node) {
    if (!node || node.kind !== "decision" || !node.position) return null;
    const body = this.optionsBody(node.position);
    const a = this.analyses[this.analysisKey(body)];
    const opt = (key, label, title) => h("label", { title }, label, " ",
      h("input", { id: "opt-" + key, inputmode: "decimal", size: 4, value: this.opts[key], placeholder: "default",
                   onchange: (ev) => { this.opts[key] = ev.target.value.trim(); this.render(); } }));
    return h("section", { class: "analysis" },
      h("div", { class: "row" },
        h("button", { id: "analyze", class: "primary", disabled: !!this.running, onclick: () => this.analyze() }, "Analyze"),
        this.running ? h("button", { id: "stop", onclick: () => { this.stop(); this.render(); } }, "Stop") : null,
        opt("time", "time s", "time budget in seconds (empty: the default, as palace analyze: no limit)"),
        opt("samples", "samples", "deals of the hidden cards (empty: the default, as palace analyze)"),
        opt("seed", "seed", "seed of the sampled analysis")),
      this.running ? h("div", { id: "progress", class: "progress" }) : null,
      a ? (a.error ? h("div", { class: "err", id: "analysis-error" }, a.error) : this.renderResult(a.analysis)) : null);
  },

  renderResult(a) {
    const names = this.result.table.players.filter((p) => !p.out).map((p) => p.name);
    return moveTable(a, names, (m) => this.play(m));
  },

  renderExport() {
    const c = this.check && this.check.ok ? this.check : null;
    const node = this.result && this.result.node;
    const text = node && node.text ? node.text : c ? c.text : "";
    const json = node && node.position ? JSON.stringify(node.position, null, 1) : c ? JSON.stringify(c.json, null, 1) : "";
    return h("details", { class: "export", id: "export", open: !!this.exportOpen,
                          ontoggle: (ev) => { this.exportOpen = ev.target.open; } },
      h("summary", {}, "Paste, export, share"),
      h("label", { class: "block" }, "Paste a position (text form or JSON)",
        h("textarea", { id: "paste", rows: 3, placeholder: "e.g. standard | me: 7 7 / A / 1 ; bob: K / 2 / 1 | pile 5 | to_move 0",
                        oninput: (ev) => { this.pasteText = ev.target.value; } }, this.pasteText || "")),
      h("div", { class: "row" }, h("button", { id: "load", onclick: () => this.loadPasted() }, "Load"),
        h("span", { id: "paste-error", class: "err" }, this.pasteError || "")),
      h("label", { class: "block" }, node && !node.position ? "Text form (of the start)" : "Text form",
        h("input", { id: "export-text", readonly: true, value: text })),
      h("label", { class: "block" }, node && !node.position ? "JSON (of the start)" : "JSON", h("textarea", { id: "export-json", rows: 6, readonly: true }, json)),
      h("div", { class: "row" },
        h("button", { id: "copy-link", onclick: () => this.copy(this.shareUrl()) }, "Copy link"),
        h("a", { href: this.shareUrl(), id: "share" }, "shareable link")));
  },

  copy(text) {
    if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
  },

  async loadPasted() {
    const text = document.getElementById("paste").value;
    const r = await api("/api/position", { position: text });
    if (!r.ok) { this.pasteError = r.data.error; this.render(); return; }
    this.pasteError = "";
    this.ed = this.fromJSON(r.data.position);
    this.target = { zone: "hand", seat: 0 };
    this.changed();
  },

  async show(params) {
    App.view = "board";
    const p = params.get("p");
    if (p !== null && (!this.check || !this.check.ok || this.check.text !== p)) {
      const r = await api("/api/position", { position: p });
      if (r.ok) this.ed = this.fromJSON(r.data.position);
      else this.pasteError = r.data.error;
    }
    if (!this.ed) {
      const r = await api("/api/position", { position: EXAMPLE });
      this.ed = this.fromJSON(r.data.position);
    }
    const l = params.get("l");
    this.line = l ? l.split(",").filter((s) => s) : [];
    const c = params.get("c");
    this.cur = c !== null ? Math.max(0, Math.min(this.line.length, parseInt(c, 10) || 0)) : this.line.length;
    this.render();
    await this.doValidate();
  },
};
Board.validate = debounce(() => Board.doValidate(), 120);


// -- the live companion -------------------------------------------------------------------
const Live = {
  sid: null, st: null, reply: null, who: null, count: 1, hint: null, hinting: null,
  opts: { time: "2", seed: "0" }, form: null, formError: "", lastField: null, list: null,

  async show(path, params) {
    App.view = "live";
    const m = path.match(/^\/live\/(.+)$/);
    this.sid = m ? decodeURIComponent(m[1]) : null;
    this.reply = null; this.hint = null; this.who = null;
    if (this.hinting) { this.hinting.abort(); this.hinting = null; }
    if (!this.sid) return this.showList();
    const r = await api(`/api/live/${encodeURIComponent(this.sid)}`);
    if (!r.ok) { this.st = null; this.reply = { ok: false, message: r.data.error }; }
    else this.st = r.data;
    this.render();
  },

  // -- the list and the new-game form ---------------------------------------------------
  async showList() {
    const r = await api("/api/live");
    this.list = r.ok ? r.data : { sessions: [], directory: "?" };
    if (!this.form) this.form = { names: "me bob", me: "", rules: "standard", hand: "", up: {}, deal: "", first: "", file: "", position: "" };
    this.renderList();
  },

  formNames() { return this.form.names.replace(/,/g, " ").split(/\s+/).filter((x) => x); },

  renderList() {
    if (App.view !== "live" || this.sid) return;
    const f = this.form;
    const field = (key, label, placeholder, attrs = {}) => h("label", {}, label,
      h("input", { id: "new-" + key, value: f[key], placeholder, ...attrs,
                   onfocus: (ev) => { this.lastField = ev.target; },
                   oninput: (ev) => {
                     const had = !!f.deal.trim();
                     f[key] = ev.target.value;
                     if (key === "names" || (key === "deal" && had !== !!f.deal.trim())) this.renderList();
                   } }));
    const names = this.formNames();
    const sessions = this.list.sessions;
    const focus = document.activeElement && document.activeElement.id;
    document.getElementById("view").replaceChildren(h("div", { class: "live" },
      h("div", { class: "col" },
        h("section", { class: "form" }, h("h3", {}, "New game"),
          h("p", { class: "hint" }, "The table as you see it after the deal and the swap. Names in turn order, from the dealer's left."),
          field("names", "Players", "e.g. me bob ann"),
          field("me", "You are (default: 'me', else the first)", ""),
          field("rules", "Rules", "e.g. standard or standard+seven_low"),
          field("deal", "Your cards as dealt, to choose your face-up cards here (or leave empty and give the hand and face-up cards after the swap)", "e.g. 3 7 A 10 2 K"),
          f.deal.trim() ? null : field("hand", "Your hand", "e.g. 3 7 K"),
          f.deal.trim() ? null : names.map((nm) => h("label", {}, `Face-up cards of ${nm}`,
            h("input", { id: "new-up-" + nm, value: f.up[nm] || "", placeholder: "e.g. 2 J Q", dataset: { up: nm },
                         onfocus: (ev) => { this.lastField = ev.target; },
                         oninput: (ev) => { f.up[nm] = ev.target.value; } }))),
          field("first", "Who plays first (empty: the rule decides)", ""),
          field("file", "Session file name (empty: by the date)", "e.g. palace-live-….json"),
          h("details", { open: !!f.position }, h("summary", {}, "or start mid-game from a position"),
            h("label", {}, "Position (text form or JSON) as you see it",
              h("textarea", { id: "new-position", rows: 3, oninput: (ev) => { f.position = ev.target.value; } }, f.position))),
          h("div", { class: "ptitle" }, "Tap a card to type it into the field you are in"),
          h("div", { class: "prow" }, RANKS.slice(0, 13).map((r) => h("button", {
            class: cardClass(r) + " pick", "aria-label": `type ${r}`,
            onmousedown: (ev) => ev.preventDefault(),
            onclick: () => {
              const el = this.lastField; if (!el) return;
              el.value = (el.value.trim() + " " + r).trim(); el.dispatchEvent(new Event("input"));
              el.focus();
            } }, r))),
          h("div", { class: "row" }, h("button", { id: "start-game", class: "primary", onclick: () => this.create() }, "Start"),
            h("span", { class: "err", id: "new-error" }, this.formError))),
      ),
      h("div", { class: "col" },
        h("section", {}, h("h3", {}, "Sessions"),
          h("p", { class: "hint" }, "In ", h("code", {}, this.list.directory), ": the files of palace live --resume."),
          sessions.length ? h("ul", { class: "sessions" }, sessions.map((x) => h("li", {},
            h("a", { href: `#/live/${encodeURIComponent(x.id)}` }, x.id), ` · ${(x.names || []).join(", ")} · ${x.events} events`)))
            : h("p", {}, "No session yet.")))));
    if (focus) { const el = document.getElementById(focus); if (el) el.focus(); }
  },

  async create() {
    const f = this.form;
    let body;
    if (f.position.trim()) body = { position: f.position.trim(), me: f.me || null, file: f.file || null };
    else if (f.deal.trim()) body = { names: f.names, me: f.me || null, rules: f.rules || null, deal: f.deal, first: f.first || null, file: f.file || null };
    else {
      const up = this.formNames().map((nm) => `${nm}: ${f.up[nm] || ""}`).join("; ");
      body = { names: f.names, me: f.me || null, rules: f.rules || null, hand: f.hand, up, first: f.first || null, file: f.file || null };
    }
    const r = await api("/api/live", body);
    if (!r.ok) { this.formError = r.data.error; this.renderList(); return; }
    this.formError = "";
    location.hash = `#/live/${encodeURIComponent(r.data.id)}`;
  },

  // -- one session ----------------------------------------------------------------------
  async send(line) {
    const r = await api(`/api/live/${encodeURIComponent(this.sid)}/event`, { event: line });
    this.afterChange(r, line);
  },
  async undo() {
    const r = await api(`/api/live/${encodeURIComponent(this.sid)}/undo`, { count: 1 });
    this.afterChange(r, "undo");
  },
  afterChange(r, line) {
    if (r.data && r.data.state) this.st = r.data.state;
    this.reply = r.ok ? { ok: true, message: r.data.message, line } : { ok: false, message: r.data.error, line };
    if (r.ok) { this.count = 1; this.who = null; this.hint = null; }
    this.render();
  },

  async askHint() {
    if (this.hinting) this.hinting.abort();
    const ctrl = new AbortController();
    this.hinting = ctrl;
    this.hint = { running: true };
    this.render();
    const body = {};
    const t = parseFloat(this.opts.time), seed = parseInt(this.opts.seed, 10);
    if (!isNaN(t)) body.time = t;
    if (!isNaN(seed)) body.seed = seed;
    let r;
    try { r = await api(`/api/live/${encodeURIComponent(this.sid)}/hint`, body, { signal: ctrl.signal }); }
    catch (e) { return; }
    if (this.hinting !== ctrl) return;
    this.hinting = null;
    this.hint = r.ok ? r.data : { error: r.data.error };
    this.render();
  },

  selected() {
    const st = this.st;
    const e = st.expect;
    if (e.kind === "layout") {
      if (this.who && e.waiting.includes(this.who)) return this.who;
      return e.waiting.includes(st.me) ? st.me : e.waiting[0];
    }
    return this.who || e.player || (st.table.to_move !== null ? st.names[st.table.to_move] : st.names[0]);
  },

  render() {
    if (App.view !== "live" || !this.sid) return;
    const view = document.getElementById("view");
    const st = this.st;
    if (!st) {
      view.replaceChildren(h("section", {}, h("div", { class: "reply bad", id: "reply" }, this.reply ? this.reply.message : "…"),
        h("a", { href: "#/live" }, "all sessions")));
      return;
    }
    const e = st.expect;
    const who = this.selected();
    const seat = st.names.indexOf(who);
    const pl = st.table.players[seat];
    const mode = e.kind === "draw" || e.kind === "start" || e.kind === "layout" ? e.kind
      : (pl && pl.source === "face_down") ? "flip" : "play";
    // At the deal: the face-up cards a player lays, tapped one by one, sent as 'bob up 5 9 J'.
    if (!this.upSel || this.upSel.who !== who) this.upSel = { who, cards: [] };
    const sel = this.upSel;
    const tapUp = (r) => {
      sel.cards.push(r);
      if (sel.cards.length >= e.cards) { const line = `${meWord(who)} up ${sel.cards.join(" ")}`; sel.cards = []; this.send(line); }
      else this.render();
    };
    const meWord = (nm) => (nm === st.me ? "me" : nm);
    const ranks = RANKS.filter((r) => r !== "JK" || (st.rules || "").includes("jokers"));
    const rankTap = (r) => (mode === "layout" ? tapUp(r) : this.send(rankEvent(r)));
    const rankEvent = (r) => mode === "draw" ? `draw ${r}` : mode === "start" ? `start ${r}`
      : mode === "flip" ? `${meWord(who)} flip ${r}` : `${meWord(who)} ${this.count > 1 ? `${r}x${this.count}` : r}`;
    const modeText = { draw: `you drew (${e.cards} to enter): tap each card`, start: "the start card",
                       flip: `${who} flips a face-down card: which?`, play: `${who} plays`,
                       layout: `${who === st.me ? "your" : who + "'s"} face-up cards (${e.cards}): `
                         + (sel.cards.length ? sel.cards.join(" ") + " …" : "tap them") }[mode];
    const focus = document.activeElement && document.activeElement.id;
    const ups = pl && pl.source === "face_up" ? [...new Set(pl.face_up)] : [];
    const tableCol = h("div", { class: "col tablecol" },
        renderTable(st.table),
        h("section", {}, h("div", { class: "zlabel wide" }, "unseen cards (", String(st.unseen_total), ")"),
          h("div", { class: "unseen", id: "unseen" }, Object.entries(st.unseen).map(([r, k]) =>
            h("span", { class: cardClass(r), dataset: { rank: r } }, r, h("small", {}, "×" + k))))),
        h("section", {}, h("div", { class: "row" }, h("b", {}, `Events (${st.events.length})`), h("a", { href: "#/live" }, "all sessions"),
          h("a", { id: "export", href: `/api/live/${encodeURIComponent(this.sid)}/record.txt`, download: this.sid.replace(/\.json$/, "") + ".txt", title: "the game as a record (docs/record.md): what your seat saw" }, "export record"),
          h("a", { id: "review-this", href: `#/review?session=${encodeURIComponent(this.sid)}` }, "review")),
          st.events.length ? h("ol", { class: "events", id: "events" }, st.events.map((x) => h("li", {}, x))) : h("p", { class: "hint" }, "none yet")));
    view.replaceChildren(h("div", { class: "live" },
      h("div", { class: "col entercol" },
        h("div", { class: "rules-line" }, `${st.rules} · you are ${st.me} · file `, h("code", { id: "live-file" }, st.file)),
        h("section", { class: "status", id: "live-status" }, h("b", {}, st.status)),
        this.reply ? h("div", { class: "reply " + (this.reply.ok ? "ok" : "bad"), id: "reply" },
          this.reply.ok ? "" : "refused: ", this.reply.message) : null,
        e.kind === "over" ? h("section", {}, h("b", {}, "The game is over."), " ", h("a", { href: "#/live" }, "all sessions")) :
        h("section", { class: "enter" },
          mode === "layout" ? h("div", { class: "who" }, e.waiting.map((nm) =>
            h("button", { class: nm === who ? "on" : "", dataset: { who: nm }, onclick: () => { this.who = nm; this.render(); } }, nm))) : null,
          mode === "play" || mode === "flip" ? h("div", { class: "who" }, st.names.map((nm, i) => st.table.players[i].out ? null :
            h("button", { class: nm === who ? "on" : "", dataset: { who: nm }, onclick: () => { this.who = nm; this.render(); } }, nm))) : null,
          h("div", { class: "ptitle", id: "mode" }, modeText),
          mode === "play" ? h("div", { class: "who" }, [1, 2, 3, 4].map((k) => h("button", {
            class: k === this.count ? "on" : "", dataset: { count: k }, onclick: () => { this.count = k; this.render(); } }, "×" + k))) : null,
          h("div", { class: "bigbuttons", id: "ranks" }, ranks.map((r) => h("button", {
            class: cardClass(r), dataset: { rank: r }, onclick: () => rankTap(r) }, r))),
          h("div", { class: "bigbuttons" },
            mode === "layout" && sel.cards.length ? h("button", { class: "wide", id: "clear-up", onclick: () => { sel.cards = []; this.render(); } }, "clear") : null,
            mode === "play" && pl && pl.source === "hand" ? h("button", { class: "wide", id: "pickup", onclick: () => this.send(`${meWord(who)} pickup`) }, "pickup") : null,
            ups.map((r) => h("button", { class: "wide", dataset: { pickup: r }, onclick: () => this.send(`${meWord(who)} pickup ${r}`) }, `pickup ${r}`)),
            e.kind === "first" ? h("button", { class: "wide", id: "first", onclick: () => this.send(`first ${who}`) }, `${who} first`) : null,
            mode !== "layout" ? h("button", { class: "wide", id: "burn", title: "check: did the last event burn the pile?", onclick: () => this.send("burn") }, "burn?") : null,
            h("button", { class: "wide", id: "undo", onclick: () => this.undo() }, "undo"),
            h("button", { class: "wide primary", id: "hint", onclick: () => this.askHint() }, "hint")),
          h("div", { class: "typed" },
            h("input", { id: "typed", placeholder: "or type an event, e.g. bob 7x2, draw 7 K, bob flip 9",
                         onkeydown: (ev) => { if (ev.key === "Enter" && ev.target.value.trim()) { this.send(ev.target.value.trim()); } } }),
            h("button", { onclick: () => { const v = document.getElementById("typed").value.trim(); if (v) this.send(v); } }, "Send"))),
        this.renderHint()),
      tableCol));
    if (focus && focus !== "typed") { const el = document.getElementById(focus); if (el) el.focus(); }
  },

  renderHint() {
    const opt = (key, label) => h("label", {}, label, " ", h("input", { id: "hint-" + key, size: 3, value: this.opts[key],
      onchange: (ev) => { this.opts[key] = ev.target.value.trim(); } }));
    const res = this.hint;
    return h("section", { class: "analysis", id: "hint-panel" },
      h("div", { class: "row" }, h("b", {}, "Hint"), opt("time", "time s"), opt("seed", "seed")),
      !res ? null : res.running ? h("div", { class: "progress" }, h("progress", {}), " thinking…")
        : res.error ? h("div", { class: "err", id: "hint-error" }, res.error)
        : this.renderHintData(res.hint));
  },

  // The hint of palace live, as data: moves best first with the mover's loss (± half the
  // 95% interval), ties with the best, the expected continuation, the others' odds, notes.
  renderHintData(hd) {
    if (!hd.ok) return h("div", { class: "err", id: "hint-error" }, hd.message);
    const st = this.st;
    const actor = hd.mover === st.me ? "me" : hd.mover;
    const play = (m) => {
      if (m === "flip") return;
      this.send(m.startsWith("up ") ? `me ${m}` : `${actor} ${m}`);
    };
    const rows = hd.moves.map((m, i) => h("tr", { class: (i === 0 ? "best" : "") + (m.tied ? " tie" : ""), dataset: { move: m.move },
                                                title: "play " + m.move, onclick: () => play(m.move) },
      h("td", { class: "mv" }, i === 0 ? "★ " : "", m.move, m.tied ? h("small", { class: "tiemark" }, " tied") : null,
        m.deals ? h("small", {}, ` [${m.deals} deals]`) : null),
      h("td", { dataset: { loss: m.mover_loss === null ? "" : String(m.mover_loss) } },
        m.mover_loss === null ? "–" : pct(m.mover_loss),
        m.ci95 && m.ci95[1] > m.ci95[0] ? h("small", {}, ` ±${(100 * (m.ci95[1] - m.ci95[0]) / 2).toFixed(1)}`) : null)));
    const what = hd.method === "swap" ? "layouts" : "moves";
    const cont = hd.continuation && hd.continuation.plies && hd.continuation.plies.length ? hd.continuation : null;
    return h("div", { class: "result", id: "hint-result" },
      h("div", { class: "info" }, hd.forced ? hd.message : `${what} for ${hd.mover} · ${hd.method} · ${Number(hd.seconds || 0).toFixed(2)} s`),
      hd.forced ? null : h("table", { class: "movetable", id: "hinttable" },
        h("thead", {}, h("tr", {}, h("th", {}, hd.method === "swap" ? "face-up" : "move"), h("th", {}, `loss ${hd.mover}`))),
        h("tbody", {}, rows)),
      hd.moves.some((m) => m.tied) ? h("div", { class: "hint" }, hd.tie_rule === "paired" ? "tied: over the same deals, the loss minus the best's has a 95% interval reaching 0" : "tied: the 95% interval overlaps the best's") : null,
      cont ? h("div", { class: "cont" }, h("b", {}, `expected after ${hd.moves[0].move}`), ` (over ${cont.deals} sampled deals):`,
        h("ul", {}, cont.plies.map((ply, j) => h("li", {}, j ? "then: " : "reply: ",
          ply.slice(0, 3).map((x) => `${x.player} ${x.move} ${(100 * x.count / cont.deals).toFixed(0)}%`).join(", "))))) : null,
      hd.odds && hd.odds.length ? h("div", { class: "cont" }, h("b", {}, "the others hold"), " (unseen cards dealt at random):",
        h("ul", {}, hd.odds.map((o) => h("li", {}, `${o.player}: `,
          Object.entries(o.ranks).map(([r, p]) => `a ${r} ${(100 * p).toFixed(0)}%`).join(", "),
          o.beats !== null && o.beats !== undefined ? `, a card that beats the pile ${(100 * o.beats).toFixed(0)}%` : "")))) : null,
      (hd.notes || []).map((n) => h("div", { class: "hint" }, "note: ", n)),
      h("div", { class: "hint" }, "Tap a row to enter it."));
  },
};

// -- routing ------------------------------------------------------------------------------
async function route() {
  const { path, params } = parseHash();
  for (const a of document.querySelectorAll("header nav a")) a.classList.toggle("on", path.startsWith(a.getAttribute("href").slice(1)));
  if (path !== "/review") Review.stop();
  if (path.startsWith("/live")) { Board.stop(); await Live.show(path, params); }
  else if (path === "/review") { Board.stop(); await Review.show(params); }
  else await Board.show(params);
}

async function init() {
  const r = await api("/api/info");
  App.info = r.ok ? r.data : { variants: [] };
  if (App.info.exposed) {
    const w = document.getElementById("exposed");
    w.textContent = App.info.token_required
      ? `This server listens on ${App.info.host}: only a browser opened with its access token (the URL or QR code it printed) can use it. Keep the URL to yourself.`
      : `Warning: this server listens on ${App.info.host}, not only on this machine: anyone who can reach it can use it and its session files.`;
    w.hidden = false;
  }
  if (!App.info.live) document.getElementById("nav-live").hidden = true;
  window.addEventListener("hashchange", () => {
    // The board rewrites its own URL; only a change from outside (back button, link) routes.
    const { path, params } = parseHash();
    if (path.startsWith("/board") && App.view === "board" && Board.check && Board.check.ok
        && params.get("p") === Board.check.text && (params.get("l") || "") === Board.line.join(",")) return;
    route();
  });
  await route();
}
document.addEventListener("DOMContentLoaded", () => { document.body.dataset.busy = "0"; init(); });
