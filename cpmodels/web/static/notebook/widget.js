// The play page's board in a notebook (cpmodels/widgets.py, an anywidget): the page's own
// modules, sent by Python as text, loaded here as they are (their imports of each other
// resolved to the copies loaded), and the page's answers (answers.js: its pool of engine
// workers and the engine's judgement of positions, hints and solutions) asked about the
// puzzle Python sends. No server: engine.wasm comes with the widget.
//
// The model's state: placements [{piece, cells}], labels, face_up (both ways); count,
// status and message (the verdict after each move, from here); mode "play", "sweep" (rows:
// [labels, count, real] drawn as a heatmap) or "design" (sets: the working sets, chosen).

const SVG_NS = "http://www.w3.org/2000/svg";
const TIME_LIMIT_S = 20;
const CELL_PX = 40;  // play mode's square cell; a heatmap cell is drawn at HEAT_PX
const HEAT_PX = 14;
const TRAY_SCALE = 0.5;

// The page's modules, each loaded from a blob of its text, imports resolved among them.
function loadModules(sources) {
  const urls = {};
  const load = (name) => {
    if (urls[name]) return urls[name];
    if (!(name in sources)) throw new Error(`the widget was not sent ${name}`);
    const dir = name.includes("/") ? name.slice(0, name.lastIndexOf("/") + 1) : "";
    const text = sources[name]
      .replace(/(from\s+)"\.\/([^"]+)"/g, (_, from, rel) => `${from}"${load(dir + rel)}"`)
      .replaceAll("import.meta.url", JSON.stringify(location.href));
    urls[name] = URL.createObjectURL(new Blob([text], {type: "text/javascript"}));
    return urls[name];
  };
  for (const name of Object.keys(sources)) load(name);
  return urls;
}

// The engine's answers over one pool of workers, made once per view.
async function openEngine(model) {
  const urls = loadModules(model.get("_modules"));
  const answers = await import(urls["answers.js"]);
  const wasm = model.get("_wasm");
  const bytes = wasm instanceof DataView ? wasm.buffer.slice(wasm.byteOffset,
    wasm.byteOffset + wasm.byteLength) : wasm;
  const module = WebAssembly.compile(bytes);
  const pool = new answers.Pool(null, 1, 0, TIME_LIMIT_S, urls["engine/worker.js"]);
  await pool.start(module);
  const refuse = () => Promise.reject(new Error("the engine could not answer, and a notebook " +
                                                "has no server to ask"));
  const server = {kind: "none", site: true, specs: refuse, layout: refuse, count: refuse,
                  check: refuse, hint: refuse, solution: refuse};
  return {answers, pool, server, urls};
}

function el(tag, attrs = {}, parent = null, ns = null) {
  const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}
const svg = (tag, attrs, parent) => el(tag, attrs, parent, SVG_NS);
const pathData = (loops, dx = 0, dy = 0) => loops.map((loop) => "M" +
  loop.map(([x, y]) => `${x + dx},${y + dy}`).join("L") + "Z").join("");
const cellKey = (c) => c.join(",");
// Several of the model's values set (the widget contract sets one at a time).
function setAll(model, values) {
  for (const [key, value] of Object.entries(values)) model.set(key, value);
}
const plural = (n, w) => `${n.toLocaleString("en-US")} ${w}${n === 1 ? "" : "s"}`;

const STYLE = `
.cpm-widget{font:14px system-ui,sans-serif;display:flex;flex-wrap:wrap;gap:12px;color:#222}
.cpm-widget svg{touch-action:none;user-select:none}
.cpm-board .cell{fill:#f4f1ea;stroke:#bbb}
.cpm-board .open{fill:#fff7c2}
.cpm-board text{font-size:11px;fill:#555;pointer-events:none;text-anchor:middle;dominant-baseline:middle}
.cpm-piece{stroke:#333;stroke-width:1.5;cursor:grab}
.cpm-ghost{opacity:.55;pointer-events:none}
.cpm-tray{display:flex;flex-wrap:wrap;gap:6px;max-width:360px}
.cpm-tray svg{border:1px solid #ddd;border-radius:4px;cursor:grab}
.cpm-tray svg.chosen{border-color:#1f77b4;box-shadow:0 0 0 2px #1f77b466}
.cpm-tools button{margin:0 4px 4px 0}
.cpm-status{min-height:1.4em;margin:6px 0}
.cpm-title{font-weight:600;margin-bottom:2px}
.cpm-goal,.cpm-legend{color:#555;margin-bottom:4px;max-width:420px}
.cpm-heat rect.none{fill:#222}
.cpm-heat rect.unreal{fill:#eee}
.cpm-heat rect.on{stroke:#d62728;stroke-width:2}
.cpm-sets td,.cpm-sets th{padding:2px 6px;text-align:right}
.cpm-sets tr.chosen{background:#dbe9f6}
.cpm-sets tbody tr{cursor:pointer}
`;

class View {
  constructor(model, root, engine) {
    this.model = model;
    this.engine = engine;
    this.serial = 0;     // each puzzle sent gets its own key (the workers' plans by key)
    this.checks = 0;     // the verdict shown is the newest move's
    this.placed = [];    // {piece, o, k}
    this.orient = {};
    this.chosen = null;  // the piece chosen in the tray
    this.drag = null;
    root.classList.add("cpm-widget");
    el("style", {}, root).textContent = STYLE;
    this.left = el("div", {class: "cpm-left"}, root);
    this.heat = el("div", {class: "cpm-heat"}, this.left);
    this.sets = el("div", {class: "cpm-sets"}, this.left);
    const right = el("div", {class: "cpm-right"}, root);
    this.title = el("div", {class: "cpm-title"}, right);
    this.goal = el("div", {class: "cpm-goal"}, right);
    this.board = svg("svg", {class: "cpm-board", role: "img"}, right);
    this.status = el("div", {class: "cpm-status", role: "status"}, right);
    const tools = el("div", {class: "cpm-tools"}, right);
    for (const [name, act] of [["Rotate", () => this.turn("rotate")],
                               ["Flip", () => this.turn("flip")], ["Hint", () => this.hint()],
                               ["Take back", () => this.setPlaced(this.placed.slice(0, -1))],
                               ["Clear", () => this.setPlaced([])]]) {
      el("button", {type: "button", class: `cpm-${name.toLowerCase().replace(" ", "-")}`}, tools)
        .append(name);
      tools.lastChild.addEventListener("click", act);
    }
    this.tray = el("div", {class: "cpm-tray"}, right);
    root.tabIndex = 0;
    root.addEventListener("keydown", (ev) => {
      if (ev.key === "r" || ev.key === "R") this.turn("rotate");
      else if (ev.key === "f" || ev.key === "F") this.turn("flip");
      else return;
      ev.preventDefault();
    });
    this.board.addEventListener("pointermove", (ev) => this.moveDrag(ev));
    // a drag ends wherever the button is let go, in the widget or out of it
    this.release = (ev) => this.drop(ev);
  }

  // --- the puzzle sent from Python ----------------------------------------------------------

  async loadPuzzle() {
    const listing = {...this.model.get("_listing")};
    this.name = listing.name;
    this.key = `${listing.name}#${++this.serial}`;
    listing.name = this.key;
    const answers = new this.engine.answers.EngineAnswers(this.engine.pool, this.engine.server,
                                                          null);
    answers.listed[this.key] = listing;
    answers.parts[this.key] = Promise.resolve(this.model.get("_parts"));
    this.answers = answers;
    this.listing = listing;
    this.layout = await answers.layout(this.key);
    this.pieces = Object.fromEntries(this.layout.pieces.map((p) => [p.name, p]));
    this.orient = Object.fromEntries(this.layout.pieces.map((p) => [p.name, 0]));
    this.chosen = null;
    this.fromModel();
    this.drawHeat();
    this.drawSets();
  }

  puzzle() {
    return {spec: this.key, labels: this.model.get("labels"),
            face_up: this.model.get("face_up")};
  }

  // The placements in the model read as {piece, o, k} (one that fits no place is dropped).
  fromModel() {
    this.placed = [];
    for (const {piece, cells} of this.model.get("placements")) {
      const found = this.findPlace(piece, cells);
      if (found) this.placed.push(found);
    }
    this.drawAll();
    this.check();
  }

  findPlace(piece, cells) {
    const info = this.pieces[piece];
    if (!info) return null;
    const want = new Set(cells.map(cellKey));
    for (const [o, shape] of info.orientations.entries()) {
      if (shape.cells.length !== want.size) continue;
      const k = shape.places.findIndex(([dr, dc]) =>
        shape.cells.every(([a, b]) => want.has(cellKey([a + dr, b + dc]))));
      if (k >= 0) return {piece, o, k};
    }
    return null;
  }

  cellsOf({piece, o, k}) {
    const shape = this.pieces[piece].orientations[o];
    const [dr, dc] = shape.places[k];
    return shape.cells.map(([a, b]) => [a + dr, b + dc]);
  }

  // A move made here: the model told, the position judged.
  setPlaced(placed) {
    this.placed = placed;
    this.model.set("placements", placed.map((p) => ({piece: p.piece, cells: this.cellsOf(p)})));
    this.model.save_changes();
    this.drawAll();
    this.check();
  }

  async check() {
    const mine = ++this.checks;
    const began = performance.now();
    this.say("Counting…", "busy");
    let verdict;
    try {
      verdict = await this.answers.check(this.puzzle(), this.model.get("placements"));
    } catch (err) {
      if (mine !== this.checks || err.name === "AbortError") return;
      setAll(this.model, {count: null, status: "invalid", message: err.message});
      this.model.save_changes();
      this.say(err.message, "invalid");
      return;
    }
    if (mine !== this.checks) return;
    this.root().dataset.countMs = String(performance.now() - began);
    const solved = verdict.status === "solved";
    const text = solved ? `${verdict.labels.join(" ")}: solved! Every piece fits.`
      : verdict.status === "open" ? `${plural(verdict.completions, "solution")} still possible ` +
        "from here" : verdict.message;
    setAll(this.model, {count: verdict.completions, status: verdict.status, message: text});
    this.model.save_changes();
    this.say(text, verdict.status);
  }

  root() { return this.board.closest(".cpm-widget"); }

  say(text, kind) {
    this.status.textContent = text[0].toUpperCase() + text.slice(1) +
      (/[.!…]$/.test(text) ? "" : ".");
    this.status.dataset.kind = kind;
  }

  async hint() {
    try {
      const {revealed} = await this.answers.hint(this.puzzle(), this.model.get("placements"));
      this.setPlaced(revealed.map(({piece, cells}) => this.findPlace(piece, cells))
        .filter(Boolean));
    } catch (err) {
      this.say(err.message, "invalid");
    }
  }

  // --- drawing ------------------------------------------------------------------------------

  drawAll() {
    this.drawBoard();
    this.drawTray();
    const flip = this.board.parentElement.querySelector(".cpm-flip");
    if (flip) flip.disabled = Boolean(this.model.get("face_up") || !this.listing.flip);
  }

  drawBoard() {
    const {origin, size, cells} = this.layout;
    const b = this.board;
    b.replaceChildren();
    b.setAttribute("viewBox", `${origin[0] - 4} ${origin[1] - 4} ${size[0] + 8} ${size[1] + 8}`);
    b.setAttribute("width", size[0] + 8);
    b.setAttribute("height", size[1] + 8);
    const open = new Set(this.model.get("labels"));
    this.title.textContent = `${this.name}: ${[...open].join(" ")}` +
      (this.model.get("face_up") ? ", pieces face up" : "");
    b.setAttribute("aria-label", `board, ${[...open].join(" ")} left open`);
    const pieces = this.layout.pieces.reduce((n, p) => n + p.count, 0);
    this.goal.textContent = `Cover every cell but ${[...open].join(" ")} with the ${pieces} ` +
      "pieces: drag one from the tray onto the board (R rotates it, F flips it).";
    for (const c of cells) {
      svg("polygon", {class: `cell${open.has(c.label) ? " open" : ""}`,
                      points: c.points.map((p) => p.join(",")).join(" ")}, b);
      if (c.label) svg("text", {x: c.centre[0], y: c.centre[1]}, b).textContent = c.label;
    }
    this.placed.forEach((p, index) => {
      const shape = this.pieces[p.piece].orientations[p.o];
      const [, , x, y] = shape.places[p.k];
      const path = svg("path", {class: "cpm-piece", d: pathData(shape.loops, x, y),
                                fill: this.pieces[p.piece].colour, "data-piece": p.piece}, b);
      path.addEventListener("pointerdown", (ev) => {
        const rest = this.placed.filter((_, i) => i !== index);
        this.placed = rest;
        this.startDrag(ev, p.piece, p.o, true);
      });
    });
    this.ghost = svg("path", {class: "cpm-ghost"}, b);
  }

  used(piece) { return this.placed.filter((p) => p.piece === piece).length; }

  drawTray() {
    this.tray.replaceChildren();
    for (const info of this.layout.pieces) {
      if (info.count - this.used(info.name) <= 0) continue;
      const shape = info.orientations[this.orient[info.name]];
      const xs = shape.loops.flat();
      const w = Math.max(...xs.map((p) => p[0])) - Math.min(...xs.map((p) => p[0]));
      const h = Math.max(...xs.map((p) => p[1])) - Math.min(...xs.map((p) => p[1]));
      const x0 = Math.min(...xs.map((p) => p[0]));
      const y0 = Math.min(...xs.map((p) => p[1]));
      const tile = svg("svg", {width: w * TRAY_SCALE + 8, height: h * TRAY_SCALE + 8,
                               viewBox: `${x0 - 8} ${y0 - 8} ${w + 16} ${h + 16}`,
                               "data-piece": info.name, role: "button", tabindex: 0,
                               "aria-label": `piece ${info.name}: Enter lays it on the ` +
                                 "board, R and F turn it",
                               class: this.chosen === info.name ? "chosen" : ""}, this.tray);
      svg("path", {d: pathData(shape.loops), fill: info.colour, class: "cpm-piece"}, tile);
      tile.addEventListener("pointerdown", (ev) => {
        this.chosen = info.name;
        this.startDrag(ev, info.name, this.orient[info.name], false);
      });
      tile.addEventListener("focus", () => { this.chosen = info.name; });
      tile.addEventListener("keydown", (ev) => {
        if (ev.key !== "Enter" && ev.key !== " ") return;
        ev.preventDefault();
        this.layChosen(info.name);
      });
    }
  }

  // The chosen piece laid, as it is turned, at its free place nearest the board's middle.
  layChosen(piece) {
    const {origin, size} = this.layout;
    const o = this.orient[piece];
    this.drag = {piece, o, x: origin[0] + size[0] / 2, y: origin[1] + size[1] / 2};
    const k = this.nearest(Infinity);
    this.drag = null;
    if (k === null) {
      this.say(`${piece} fits nowhere on the board turned this way: press R or F to turn it, ` +
               "or take a piece off", "note");
      return;
    }
    this.setPlaced([...this.placed, {piece, o, k}]);
    const next = this.tray.querySelector("svg[data-piece]");
    if (next) next.focus();
  }

  turn(how) {
    const piece = this.drag ? this.drag.piece : this.chosen;
    if (!piece) return;
    if (how === "flip" && (this.model.get("face_up") || !this.listing.flip)) return;
    const o = this.drag ? this.drag.o : this.orient[piece];
    const next = this.pieces[piece].orientations[o][how];
    this.orient[piece] = next;
    if (this.drag) {
      this.drag.o = next;
      this.showGhost();
    }
    const focused = this.tray.contains(document.activeElement);
    this.drawTray();
    const tile = this.tray.querySelector(`svg[data-piece="${CSS.escape(piece)}"]`);
    if (focused && tile) tile.focus();
  }

  // --- dragging: a piece follows the pointer over the board and snaps to the nearest place

  startDrag(ev, piece, o, fromBoard) {
    ev.preventDefault();
    this.drag = {piece, o, fromBoard, x: null, y: null};
    window.addEventListener("pointerup", this.release, {once: true});
    this.root().focus({preventScroll: true});
    if (fromBoard) { this.drawAll(); this.checkLater(); }
    this.moveDrag(ev);
  }

  checkLater() {
    this.model.set("placements", this.placed.map((p) => ({piece: p.piece, cells: this.cellsOf(p)})));
    this.model.save_changes();
  }

  boardPoint(ev) {
    const m = this.board.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  moveDrag(ev) {
    if (!this.drag) return;
    const at = this.boardPoint(ev);
    if (!at) return;
    [this.drag.x, this.drag.y] = at;
    this.showGhost();
  }

  // The legal place of the dragged piece nearest the pointer, within reach (a cell).
  nearest(reach = CELL_PX) {
    const {piece, o, x, y} = this.drag;
    if (x === null) return null;
    const shape = this.pieces[piece].orientations[o];
    const taken = new Set(this.layout.cells.filter((c) =>
      this.model.get("labels").includes(c.label)).map((c) => cellKey(c.cell)));
    for (const p of this.placed) for (const c of this.cellsOf(p)) taken.add(cellKey(c));
    let best = null;
    let bestDistance = reach;
    shape.places.forEach(([dr, dc, px, py], k) => {
      const d = Math.hypot(px + shape.mark[0] - x, py + shape.mark[1] - y);
      if (d >= bestDistance) return;
      if (shape.cells.some(([a, b]) => taken.has(cellKey([a + dr, b + dc])))) return;
      best = k;
      bestDistance = d;
    });
    return best;
  }

  showGhost() {
    if (!this.drag || !this.ghost) return;
    const {piece, o, x, y} = this.drag;
    const shape = this.pieces[piece].orientations[o];
    const k = this.nearest();
    const [px, py] = k === null ? [x - shape.mark[0], y - shape.mark[1]]
      : shape.places[k].slice(2);
    this.ghost.setAttribute("d", pathData(shape.loops, px, py));
    this.ghost.setAttribute("fill", this.pieces[piece].colour);
  }

  drop(ev) {
    window.removeEventListener("pointerup", this.release);
    if (!this.drag) return;
    this.moveDrag(ev);
    const k = this.nearest();
    const {piece, o} = this.drag;
    this.drag = null;
    this.orient[piece] = o;
    if (k === null) this.setPlaced(this.placed);  // off the board: back to the tray
    else this.setPlaced([...this.placed, {piece, o, k}]);
  }

  // --- a sweep's heatmap ----------------------------------------------------------------------

  drawHeat() {
    this.heat.replaceChildren();
    if (this.model.get("mode") !== "sweep") return;
    const groups = Object.entries(this.listing.groups);
    const rows = this.model.get("rows");
    const [[, down], [, across]] = groups;
    const panels = [...new Set(rows.map((r) => r[0].slice(2).join(" ")))];
    const top = Math.max(1, ...rows.map((r) => r[1]));
    const readout = el("div", {class: "cpm-readout", "aria-live": "polite"}, this.heat);
    readout.textContent = "Hover a combination for its count; click it for a solution.";
    const perRow = Math.min(panels.length, 4);
    const side = 3 * HEAT_PX;  // room for a row's label, and the panel's name and day numbers
    const pw = side + (across.length + 1) * HEAT_PX;
    const ph = (down.length + 3) * HEAT_PX;
    const map = svg("svg", {width: perRow * pw, height: Math.ceil(panels.length / perRow) * ph,
                            role: "img", "aria-label": "solutions per combination"}, this.heat);
    const chosen = this.model.get("labels").join(" ");
    panels.forEach((name, panel) => {
      const px = (panel % perRow) * pw;
      const py = Math.floor(panel / perRow) * ph;
      const text = (x, y, words, anchor = "start") => {
        const t = svg("text", {x, y, "font-size": 10, "text-anchor": anchor,
                               "dominant-baseline": "middle"}, map);
        t.textContent = words;
      };
      if (name) text(px + side, py + HEAT_PX * 0.5, name);
      down.forEach((label, r) => text(px + side - 4, py + (r + 2.5) * HEAT_PX, label, "end"));
      across.forEach((label, c) => {
        if (c % 5 === 0 || c === across.length - 1) {
          text(px + side + (c + 0.5) * HEAT_PX, py + 1.5 * HEAT_PX, label, "middle");
        }
      });
    });
    for (const [labels, count, real] of rows) {
      const panel = panels.indexOf(labels.slice(2).join(" "));
      const px = (panel % perRow) * pw + side;
      const py = Math.floor(panel / perRow) * ph + HEAT_PX;
      const shade = count ? Math.round(230 - 200 * Math.log1p(count) / Math.log1p(top)) : 0;
      const rect = svg("rect", {
        x: px + across.indexOf(labels[1]) * HEAT_PX, width: HEAT_PX - 1, height: HEAT_PX - 1,
        y: py + HEAT_PX + down.indexOf(labels[0]) * HEAT_PX,
        class: !real ? "unreal" : count ? "" : "none",
        "data-labels": labels.join(" "), "data-count": count}, map);
      if (real && count) rect.setAttribute("fill", `rgb(${shade},${shade + 20},255)`);
      if (labels.join(" ") === chosen) rect.classList.add("on");
      const text = `${labels.join(" ")}: ${count ? plural(count, "solution") : "no solution"}` +
        (real ? "" : " (not a real date)");
      svg("title", {}, rect).textContent = text;
      rect.addEventListener("pointerenter", () => { readout.textContent = text; });
      rect.addEventListener("click", () => this.showSolution(labels));
    }
    el("div", {class: "cpm-legend"}, this.heat).textContent = "Deeper blue: more " +
      "solutions (log scale); black: none; grey: not a real date.";
  }

  async showSolution(labels) {
    setAll(this.model, {labels, date: "", placements: []});
    this.model.save_changes();
    this.placed = [];
    this.drawAll();
    this.drawHeat();
    try {
      const found = await this.answers.solution(this.puzzle(), 0);
      if (this.model.get("labels").join(" ") !== labels.join(" ")) return;
      this.setPlaced(found.placements.map(({piece, cells}) => this.findPlace(piece, cells))
        .filter(Boolean));
    } catch (err) {
      this.say(err.message, "invalid");
    }
  }

  // --- a design's working sets ------------------------------------------------------------------

  drawSets() {
    this.sets.replaceChildren();
    if (this.model.get("mode") !== "design") return;
    const table = el("table", {}, this.sets);
    const head = el("tr", {}, el("thead", {}, table));
    for (const h of ["#", "pieces", "hardest", "fewest", "most", "total"]) {
      el("th", {}, head).textContent = h;
    }
    const body = el("tbody", {}, table);
    this.model.get("sets").forEach((set, k) => {
      const row = el("tr", {class: k === this.model.get("chosen") ? "chosen" : ""}, body);
      // the hardest date of a set counted (or measured); a set only decided has none
      const hardest = set.argmin || set.difficulty_argmax;
      for (const v of [k + 1, set.pieces.join(" "), hardest ? hardest.join(" ") : "",
                       set.min, set.max, set.total]) {
        el("td", {}, row).textContent = v === null || v === undefined ? "" :
          typeof v === "number" ? v.toLocaleString("en-US") : v;
      }
      row.addEventListener("click", () => {
        this.model.set("chosen", k);
        this.model.save_changes();
      });
    });
  }
}

async function render({model, el: root}) {
  const note = document.createElement("div");
  note.textContent = "Starting the puzzle engine…";
  root.append(note);
  let engine;
  try {
    engine = await openEngine(model);
  } catch (err) {
    note.textContent = `The puzzle engine did not start in this browser: ${err.message}`;
    return undefined;
  }
  note.remove();
  const view = new View(model, root, engine);
  let loading = view.loadPuzzle();
  loading.catch((err) => view.say(err.message, "invalid"));
  // what Python sets is shown (a move made here comes back as the same value: nothing to do)
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  model.on("change:_parts", () => { loading = view.loadPuzzle(); });
  model.on("change:placements", () => {
    const now = view.placed.map((p) => ({piece: p.piece, cells: view.cellsOf(p)}));
    if (!view.drag && !same(now, model.get("placements"))) loading.then(() => view.fromModel());
  });
  model.on("change:labels", () => loading.then(() => {
    view.drawAll(); view.drawHeat(); view.check();
  }));
  model.on("change:face_up", () => loading.then(() => { view.drawAll(); view.check(); }));
  model.on("change:rows", () => loading.then(() => view.drawHeat()));
  model.on("change:chosen", () => view.drawSets());
  return () => {
    for (const slot of engine.pool.slots) if (slot) slot.worker.terminate();
    for (const url of Object.values(engine.urls)) URL.revokeObjectURL(url);
  };
}

export default {render};
