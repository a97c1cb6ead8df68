// Palace: the Review tab (docs/review.md). A record (a live session of the server, pasted
// or uploaded) is replayed by the server into one board per decision, then reviewed
// decision by decision (a stream of progress lines, then the report and its graph, the
// same SVG as `palace review --plot`). Tap the graph or a row to see that position as the
// mover saw it, with its analysis; the left and right arrow keys step. Uses app.js's h,
// api, renderTable and cardClass.
"use strict";

const Review = {
  text: "", session: "", nodes: "", frames: null, report: null, svg: null, sel: 0,
  error: "", status: "", running: null, sessions: null,

  async show(params) {
    App.view = "review";
    if (this.sessions === null) {
      const r = await api("/api/live");
      this.sessions = r.ok ? r.data.sessions : [];
    }
    const sid = params && params.get("session");
    if (sid && sid !== this.session) { this.session = sid; this.text = ""; this.frames = null; this.report = null; }
    this.render();
  },

  stop() { if (this.running) { this.running.abort(); this.running = null; } },

  source() {
    return this.session ? { session: this.session } : { record: this.text };
  },

  async load() {
    this.stop();
    this.error = ""; this.report = null; this.svg = null; this.frames = null; this.sel = 0;
    if (!this.session && !this.text.trim()) { this.error = "paste a record, upload one, or pick a session"; return this.render(); }
    const r = await api("/api/review/record", this.source());
    if (!r.ok) { this.error = r.data.error; return this.render(); }
    this.frames = r.data;
    if (this.session) this.text = r.data.text;
    this.render();
    await this.run();
  },

  async run() {
    const body = this.source();
    const nodes = parseInt(this.nodes, 10);
    if (nodes > 0) body.nodes = nodes;
    const ctl = new AbortController();
    this.running = ctl;
    this.status = "reviewing…";
    this.render();
    Busy.add(1);
    try {
      const res = await fetch("/api/review/stream", { method: "POST", signal: ctl.signal,
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      if (!res.ok) {
        let msg = `HTTP ${res.status}`;
        try { msg = (await res.json()).error || msg; } catch (e) { /* not JSON */ }
        this.error = msg; this.status = ""; return this.render();
      }
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i); buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          const msg = JSON.parse(line);
          if (msg.progress !== undefined) { this.status = `reviewing… ${msg.progress} of ${msg.total} decisions`; this.renderStatus(); }
          else if (msg.error) { this.error = msg.error; this.status = ""; }
          else if (msg.review) { this.report = msg.review; this.svg = msg.svg; this.status = ""; }
        }
      }
    } catch (e) {
      if (e.name !== "AbortError") this.error = "the server cannot be reached";
    } finally {
      Busy.add(-1);
      if (this.running === ctl) this.running = null;
    }
    this.render();
  },

  decisions() { return this.frames ? this.frames.decisions : []; },
  judged(ply) { return this.report ? this.report.decisions.find((d) => d.ply === ply) : null; },

  select(i) {
    const n = this.decisions().length;
    if (!n) return;
    this.sel = Math.max(0, Math.min(n - 1, i));
    this.renderFrame();
    const row = document.querySelector(`#review-moves tr[data-i="${this.sel}"]`);
    if (row && row.scrollIntoView) row.scrollIntoView({ block: "nearest" });
  },

  selectPly(ply) {
    const i = this.decisions().findIndex((d) => d.ply === ply);
    if (i >= 0) this.select(i);
  },

  key(ev) {
    if (App.view !== "review" || !this.frames) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (tag === "TEXTAREA" || tag === "INPUT" || tag === "SELECT") return;
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") { ev.preventDefault(); this.select(this.sel + 1); }
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") { ev.preventDefault(); this.select(this.sel - 1); }
  },

  renderStatus() {
    const el = document.getElementById("review-status");
    if (el) el.textContent = this.status;
  },

  // -- drawing --------------------------------------------------------------------------
  render() {
    if (App.view !== "review") return;
    const form = h("section", { class: "form", id: "review-form" }, h("h3", {}, "Review a game"),
      h("p", { class: "hint" }, "Every decision judged from what its player knew: the loss each move leaves, the best move, marks at 0.05 (inaccuracy), 0.10 (mistake) and 0.20 (blunder) unless the moves tie."),
      this.sessions && this.sessions.length ? h("label", {}, "A live session of this server",
        h("select", { id: "review-session", onchange: (ev) => { this.session = ev.target.value; } },
          h("option", { value: "" }, "— none: the record below —"),
          this.sessions.map((x) => h("option", { value: x.id, selected: x.id === this.session }, `${x.id} · ${(x.names || []).join(", ")}`)))) : null,
      h("label", {}, "or a record (docs/record.md), pasted",
        h("textarea", { id: "review-text", rows: 6, placeholder: "palace record 1\nseats: alice bob\n…",
                        oninput: (ev) => { this.text = ev.target.value; this.session = ""; const s = document.getElementById("review-session"); if (s) s.value = ""; } }, this.text)),
      h("div", { class: "row" },
        h("label", {}, "or uploaded ", h("input", { type: "file", id: "review-file", accept: ".txt,.json,.record,text/plain,application/json",
          onchange: async (ev) => { const f = ev.target.files[0]; if (!f) return; this.text = await f.text(); this.session = ""; this.render(); } })),
        h("label", {}, "nodes per decision ", h("input", { id: "review-nodes", size: 9, value: this.nodes, placeholder: "default",
          oninput: (ev) => { this.nodes = ev.target.value; } }))),
      h("div", { class: "row" },
        h("button", { class: "primary", id: "review-go", onclick: () => this.load() }, "Review"),
        this.running ? h("button", { onclick: () => { this.stop(); this.status = "stopped"; this.render(); } }, "Stop") : null,
        h("span", { id: "review-status", class: "hint" }, this.status),
        this.error ? h("span", { class: "err", id: "review-error" }, this.error) : null));
    const parts = [form];
    if (this.frames) parts.push(this.graphSection(), this.playersSection());
    const left = h("div", { class: "col" }, parts);
    const right = h("div", { class: "col" }, this.frames ? [h("div", { id: "review-frame" }), this.movesSection()] : []);
    document.getElementById("view").replaceChildren(h("div", { class: "review" }, left, right));
    if (this.frames) this.renderFrame();
  },

  graphSection() {
    const box = h("div", { class: "review-graph", id: "review-graph" });
    if (this.svg) {
      box.innerHTML = this.svg;
      box.addEventListener("click", (ev) => {
        const t = ev.target.closest("[data-ply]");
        if (t) return this.selectPly(parseInt(t.dataset.ply, 10));
        // a tap between columns: the nearest decision by x
        const svg = box.querySelector("svg");
        const cols = [...box.querySelectorAll("rect.hit")];
        if (!svg || !cols.length) return;
        const x = ev.clientX;
        let best = null, dist = Infinity;
        for (const c of cols) { const r = c.getBoundingClientRect(); const d = Math.abs(r.left + r.width / 2 - x); if (d < dist) { dist = d; best = c; } }
        if (best) this.selectPly(parseInt(best.dataset.ply, 10));
      });
    } else box.append(h("p", { class: "hint" }, this.running ? "The graph appears when the review is done." : "No review yet."));
    return h("section", {}, h("h3", {}, "Loss probability over the game"), box,
      h("p", { class: "hint" }, "Tap the graph or a move to see that position; ← → step through the game."));
  },

  playersSection() {
    if (!this.report) return h("section", { id: "review-players" }, h("p", { class: "hint" }, `${this.frames.reviewed.join(", ")}: ${this.decisions().length} decisions to judge.`));
    return h("section", { id: "review-players" },
      h("table", { class: "movetable" },
        h("thead", {}, h("tr", {}, ["seat", "accuracy", "inacc.", "mistakes", "blunders", "mean added"].map((x) => h("th", {}, x)))),
        h("tbody", {}, this.report.players.map((p) => h("tr", { dataset: { seat: p.name } },
          h("td", {}, p.name), h("td", { class: "acc" }, p.accuracy.toFixed(1)), h("td", {}, p.inaccuracies),
          h("td", {}, p.mistakes), h("td", {}, p.blunders), h("td", {}, p.loss_added.toFixed(3)))))),
      this.frames.result ? h("p", { class: "hint" }, this.frames.result) : null);
  },

  movesSection() {
    const rows = this.decisions().map((d, i) => {
      const j = this.judged(d.ply);
      const mark = j && j.mark;
      return h("tr", { dataset: { i, ply: d.ply }, class: (mark ? "m-" + mark : "") + (i === this.sel ? " sel" : ""),
                       onclick: () => this.select(i) },
        h("td", {}, d.ply), h("td", {}, d.player), h("td", { class: "mv" }, d.played),
        h("td", {}, j && j.best !== d.played && j.method !== "forced" ? j.best : ""),
        h("td", {}, j && j.loss_added ? "+" + j.loss_added.toFixed(3) : ""),
        h("td", {}, mark ? h("span", { class: "mark " + mark }, mark) : (d.forced ? h("small", {}, "forced") : "")));
    });
    return h("section", {}, h("h3", {}, "Moves"),
      h("div", { class: "review-moves" }, h("table", { class: "movetable", id: "review-moves" },
        h("thead", {}, h("tr", {}, ["ply", "player", "played", "best", "added", ""].map((x) => h("th", {}, x)))),
        h("tbody", {}, rows))));
  },

  renderFrame() {
    const el = document.getElementById("review-frame");
    const d = this.decisions()[this.sel];
    if (!el || !d) return;
    const j = this.judged(d.ply);
    for (const tr of document.querySelectorAll("#review-moves tr.sel")) tr.classList.remove("sel");
    const tr = document.querySelector(`#review-moves tr[data-i="${this.sel}"]`);
    if (tr) tr.classList.add("sel");
    for (const c of document.querySelectorAll("#review-graph rect.hit")) c.classList.toggle("sel", parseInt(c.dataset.ply, 10) === d.ply);
    let analysis;
    if (j && j.moves) {
      analysis = h("table", { class: "movetable", id: "review-analysis" },
        h("thead", {}, h("tr", {}, h("th", {}, "move"), h("th", {}, `loss ${d.player}`))),
        h("tbody", {}, j.moves.map((m, i) => h("tr", { class: (i === 0 ? "best" : "") + (m.move === d.played ? " played" : ""), dataset: { move: m.move } },
          h("td", { class: "mv" }, i === 0 ? "★ " : "", m.move, m.move === d.played ? h("small", {}, " ◀ played") : null),
          h("td", {}, pct(m.loss), m.ci && m.ci[1] > m.ci[0] ? h("small", {}, ` ±${(100 * (m.ci[1] - m.ci[0]) / 2).toFixed(1)}`) : null)))));
    } else {
      analysis = h("p", { class: "hint" }, d.forced ? "a forced move: nothing to choose" : (this.running ? "being judged…" : "not judged"));
    }
    const head = h("div", { class: "row" },
      h("button", { "aria-label": "previous decision", onclick: () => this.select(this.sel - 1), disabled: this.sel === 0 }, "◀"),
      h("b", { id: "review-ply" }, `ply ${d.ply}: ${d.player} played ${d.played}`),
      h("button", { "aria-label": "next decision", onclick: () => this.select(this.sel + 1), disabled: this.sel + 1 >= this.decisions().length }, "▶"),
      j && j.mark ? h("span", { class: "mark " + j.mark }, j.mark) : null,
      j && j.method ? h("small", {}, j.method) : null);
    el.replaceChildren(h("section", { id: "review-board", dataset: { ply: d.ply } }, head,
      renderTable(d.table), analysis,
      h("p", { class: "hint" }, "The table as ", d.player, " saw it before the move.")));
  },
};

document.addEventListener("keydown", (ev) => Review.key(ev));
