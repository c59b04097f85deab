// The play page's one door to answers: openAnswers() gives an object whose kind is "engine"
// (the engine core in this browser, engine.wasm in a pool of workers) or "server" (the
// cpmodels server's API), and whose methods answer as the API does, in the same words:
// specs(listing), layout(name), count(puzzle), check(puzzle, placements),
// hint(puzzle, revealed) and solution(puzzle, index), each with an optional AbortSignal.
// The engine answers a puzzle from its plan, which a worker makes with the core from the
// puzzle's parts (api/puzzle/{spec}, a few KB; its layout too): a puzzle whose parts do not
// load (a server run with --no-browser-engine) is asked of the server, as every puzzle is
// when the engine or its worker does not load, or fails. On the static site there is no
// server: a question the engine cannot answer is refused with NO_ENGINE (NOT_KEPT for a
// puzzle not kept offline, with no network), and the kind is "none"; a board drawn in the
// editor is made a puzzle here (drawn(fields)).
//
// The pool: a worker per core the browser reports, as many as its memory holds (poolSize),
// each made when a question finds no free one. A question goes to a free worker; a newer question of the same kind
// (the next move's verdict) cancels the one before: a running one by ending its worker (a
// fresh one takes its place when needed), a waiting one before it starts.
import {onStaticSite} from "./dom.js";
import {api, localToday} from "./puzzle.js";
import {sentence} from "./words.js";

const WORKER = new URL("engine/worker.js", import.meta.url);
const WASM = new URL("engine/engine.wasm", import.meta.url);
const MAX_SOLUTION = 100_000;  // solutions the page steps through, as the server
// A slowed engine for trying the page's waiting states: ?engine_delay=MS (at most 10 s).
const MAX_DELAY_MS = 10_000;
// Seconds a question may take, as the server's (app.create_app's time_limit): a worker
// still working then is ended, and the question answered as the server answers one out of
// time (504). ?engine_time_limit=S asks for less, to try the page's waiting states.
export const TIME_LIMIT_S = 20;
// What the server says of a search out of time, by the engine's question (play.py's
// check_position and next_hint, limits.check_deadline; a count names its labels).
const LATE = {
  check: "counting the solutions left from this position took longer than the server " +
    "allows; place a few more pieces and try again",
  hint: "the search ran out of time; try again with more pieces placed",
  solution: "the search ran out of time; try again, or ask for an earlier solution",
};

// What the static site says when its engine does not answer: it has no server to ask.
export const NO_ENGINE = "This browser could not start the puzzle engine (WebAssembly or " +
  "workers may be blocked, or a file of the site is missing), and this site has no server " +
  "to ask.";
// What the static site says of a puzzle it cannot reach with no network: not kept.
export const NOT_KEPT = "This puzzle was not kept for play offline, and there is no " +
  "network: open it once online (or choose Keep every puzzle offline), and it plays offline " +
  "from then on.";

// A moment of the page's first answers marked in its timeline (cpmodels:NAME, the first time
// only), for benchmarks/site_first_visit.py to read.
export function mark(name) {
  if (!performance.getEntriesByName(`cpmodels:${name}`, "mark").length) {
    performance.mark(`cpmodels:${name}`);
  }
}

class Cancelled extends Error {
  constructor() {
    super("a newer question took this one's place");
    this.name = "AbortError";
  }
}

// --- the pool of workers --------------------------------------------------------------

class Pool {
  constructor(module, size, delay, timeLimit = TIME_LIMIT_S, script = WORKER) {
    this.module = module;
    this.script = script;  // the worker's script (a host that loads the modules gives its own)
    this.size = size;
    this.delay = delay;
    this.timeLimit = timeLimit;
    this.slots = Array.from({length: size}, () => null);  // {worker, question} or null
    this.waiting = [];
    this.serial = 0;
  }

  // A worker with the engine loaded (resolves once it says so; rejects when it cannot);
  // made: one started already.
  spawn(index, made = null) {
    const worker = made || new Worker(this.script, {type: "module"});
    const slot = {worker, question: null, keys: new Set()};  // keys: the plans it has met
    slot.ready = new Promise((resolve, reject) => {
      worker.onmessage = ({data}) => {
        if (data.ready === true) resolve();
        else if (data.ready === false) reject(new Error(data.error));
        else this.answered(slot, data);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        const err = new Error(`the engine's worker failed: ${event.message || "no message"}`);
        reject(err);
        this.failed(slot, err);
      };
    });
    slot.ready.catch(() => {});
    if (this.module) worker.postMessage({module: this.module});  // (else start sends it)
    this.slots[index] = slot;
    return slot;
  }

  // The first worker made (or the one the page started, early: index.html's engineStart,
  // which sends it the engine as soon as it compiles, keeps its first word until the
  // pool takes it, and may have asked it the first puzzle's layout and plan, known by its
  // key; told when the pool ends that worker, lost) and its
  // engine loaded from ``module`` (a promise of the compiled engine.wasm, null when it does
  // not compile): the pool works (else it throws). The worker's scripts load while the
  // page compiles the engine.
  async start(module, early = null) {
    const taken = early && early.worker ? early : null;
    const slot = this.spawn(0, taken && taken.worker);
    if (taken && taken.planned) taken.planned.then((key) => { if (key) slot.keys.add(key); });
    if (taken && taken.lost) slot.lost = taken.lost;
    try {
      if (taken && taken.failed) throw new Error("the engine's worker did not load");
      this.module = await module;
      if (!this.module) throw new Error("engine.wasm did not load");
      if (!taken) slot.worker.postMessage({module: this.module});
      // (the worker's word came before the pool took it, or comes to the pool)
      const said = taken ? taken.ready.then(({ready, error}) => {
        if (ready !== true) throw new Error(error);
      }) : slot.ready;
      await Promise.race([slot.ready, said]);
      mark("engine-loaded");
    } catch (err) {
      slot.worker.terminate();
      this.slots[0] = null;
      throw err;
    }
  }

  // Every worker of the pool made now, each loading the engine, rather than when a
  // question first finds no free one: for a page whose counts start on them all at once
  // (the editor's: a large board's two parts, counts.js).
  fill() {
    this.slots.forEach((slot, k) => { if (!slot) this.spawn(k); });
  }

  // Ask a worker; a question of the same kind asked before is cancelled. One still
  // unanswered after the time limit ends its worker and is refused (504) with ``late``;
  // ``untimed`` asks without a limit (a question the page shows the progress of and can
  // stop, such as a design's sets). ``run``: an object the questions of a run share (a
  // sweep's tasks): each goes to the worker that took the run's last one when that worker
  // is free (its table holds what they share), or with ``waits`` waits for it (the
  // questions after it may start meanwhile), and run.slot is the worker that takes it.
  ask(kind, op, key, plan, args, signal, late = `no answer within ${this.timeLimit} s; try again`,
      {untimed = false, run = null, waits = false} = {}) {
    return new Promise((resolve, reject) => {
      this.cancel(kind);
      const question = {kind, message: {id: ++this.serial, op, key, plan, args,
                                        delay: this.delay}, resolve, reject, late, untimed,
                        signal, run, waits};
      if (signal) {
        if (signal.aborted) { reject(new Cancelled()); return; }
        signal.addEventListener("abort", () => this.drop(question), {once: true});
      }
      this.waiting.push(question);
      this.pump();
    });
  }

  cancel(kind) {
    for (const question of [...this.waiting, ...this.slots.map((s) => s && s.question)]) {
      if (question && question.kind === kind) this.drop(question);
    }
  }

  // A question given up: taken from the queue, or its worker ended.
  drop(question) {
    const at = this.waiting.indexOf(question);
    if (at >= 0) this.waiting.splice(at, 1);
    this.end(question);
    question.reject(new Cancelled());
    this.pump();
  }

  // The worker of a question asked, if any, ended (and its place freed).
  end(question) {
    const k = this.slots.findIndex((s) => s && s.question === question);
    if (k >= 0) {
      clearTimeout(this.slots[k].timer);
      this.slots[k].worker.terminate();
      if (this.slots[k].lost) this.slots[k].lost();
      this.slots[k] = null;
    }
  }

  // A question out of time: its worker ended, refused as the server refuses one.
  late(question) {
    this.end(question);
    question.reject(refusal(sentence(question.late), 504));
    this.pump();
  }

  pump() {
    for (let at = 0; at < this.waiting.length;) {
      const question = this.waiting[at];
      // a question whose signal ended is not started: a stop that ends thousands of them
      // (a design's sets) ends each running one's worker once, not a new worker each
      if (question.signal?.aborted) {
        this.waiting.splice(at, 1);
        question.reject(new Cancelled());
        continue;
      }
      // the run's last worker when it is free (a question that waits for it: when it is
      // there, the questions after it going on meanwhile), else a free worker that has
      // made the question's plan, else any free one, else a new one; a question for the
      // plan alone waits for a busy worker that has met it rather than start one that
      // would fetch the engine's script and make the plan again
      const {message: {key, op}, run, waits} = question;
      const met = (s) => s && key !== null && s.keys.has(key);
      const last = run && run.slot && this.slots.includes(run.slot) ? run.slot : null;
      if (last && last.question && waits) {
        at += 1;
        continue;
      }
      let k = last && !last.question ? this.slots.indexOf(last) : -1;
      if (k < 0) k = this.slots.findIndex((s) => met(s) && !s.question);
      if (k < 0 && op === "plan" && this.slots.some(met)) return;
      if (k < 0) k = this.slots.findIndex((s) => s && !s.question);
      if (k < 0) k = this.slots.indexOf(null);
      if (k < 0) return;
      const slot = this.slots[k] || this.spawn(k);
      this.waiting.splice(at, 1);
      if (key !== null) slot.keys.add(key);
      if (question.run) question.run.slot = slot;
      slot.question = question;
      slot.timer = question.untimed ? null
        : setTimeout(() => this.late(question), this.timeLimit * 1000);
      slot.worker.postMessage(question.message);
    }
  }

  answered(slot, data) {
    const question = slot.question;
    if (!question || question.message.id !== data.id) return;
    clearTimeout(slot.timer);
    slot.question = null;
    if (data.error !== undefined) question.reject(new Error(data.error));
    else question.resolve(data.answer);
    this.pump();
  }

  failed(slot, err) {
    const k = this.slots.indexOf(slot);
    if (k >= 0) this.slots[k] = null;
    clearTimeout(slot.timer);
    slot.worker.terminate();
    if (slot.lost) slot.lost();
    if (slot.question) slot.question.reject(err);
    this.pump();
  }
}

// --- what both kinds share ----------------------------------------------------------------

// A message as the server says it for a person: a capital first letter and a full stop.

function refusal(message, status, extra = {}) {
  const err = new Error(message);
  err.status = status;
  Object.assign(err, extra);
  return err;
}

const plural = (n, word) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
const where = (cell) => `[${cell.join(", ")}]`;
const byCell = (a, b) => a[0] - b[0] || a[1] - b[1];
const cellsKey = (cells) => [...cells].sort(byCell).map((c) => c.join(",")).join(";");
const repr = (text) => (text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text}'`);

// The labels a date leaves open, in group order (CalendarSpec.date_labels): the month,
// the day and the weekday (Monday first) of the date in the page's calendar.
export function dateLabels(spec, date) {
  const [year, month, day] = date.split("-").map(Number);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  const index = {month: month - 1, day: day - 1, weekday: (d.getUTCDay() + 6) % 7};
  return Object.entries(spec.groups).map(([group, labels]) => labels[index[group]])
    .filter((label) => label !== undefined);
}

// The labels a puzzle chosen leaves open ({date} or {labels}), known before any answer.
export function queryLabels(spec, query) {
  if (!spec || !query) return [];
  return query.date !== undefined ? dateLabels(spec, query.date) : [...(query.labels || [])];
}

class ServerAnswers {
  constructor() {
    this.site = onStaticSite();
    this.kind = this.site ? "none" : "server";
  }

  // A question posted to the server; the static site has none to post to.
  post(url, body, signal) {
    if (this.site) return Promise.reject(refusal(NO_ENGINE, 503, {verdict: "invalid"}));
    return api(url, body, signal);
  }

  // The puzzles listed (listing: the answer of api/specs when already asked).
  specs(listing = null) { return listing || api("api/specs"); }

  layout(name) { return api(`api/layout/${encodeURIComponent(name)}`); }

  async prepare() {}  // (the server has nothing to make ahead)

  count(puzzle, signal) { return this.post("api/count", puzzle, signal); }

  check(puzzle, placements, signal) { return this.post("api/check", {...puzzle, placements}, signal); }

  hint(puzzle, revealed, signal) { return this.post("api/hint", {...puzzle, revealed}, signal); }

  solution(puzzle, index, signal) { return this.post("api/solution", {...puzzle, index}, signal); }
}

// --- the engine's answers ---------------------------------------------------------------

// A puzzle's plan as the page reads it, from what the worker that made it listed (each
// option's piece or group, cells and kind, each label's slack option, the hints' order,
// the pieces' copies): with the option id of each placement, and the key and the text
// ({parts, faceUp}) by which a worker that has not met it makes it.
// The ids are listed when first asked for (a position with pieces): the first count of a
// puzzle, of its empty board, does not wait for them.
function readPlan(listing, key, text) {
  let ids = null;
  return {text, key, options: listing.options, slack: listing.slack, letters: listing.letters,
          copies: listing.copies,
          get ids() {
            if (ids === null) {
              ids = new Map();
              listing.options.forEach(([piece, cells, kind], j) => {
                if (kind === 0) ids.set(`${piece}|${cellsKey(cells)}`, j);
              });
            }
            return ids;
          }};
}

const planKey = (name, faceUp) => `${name}:${faceUp ? "face-up" : "any"}`;

class EngineAnswers {
  constructor(pool, server, onKind, first = null, layout = null) {
    this.pool = pool;
    // a promise of the parts the page's head read ({name, text}, or null), as it opened
    this.first = first;
    // a promise of the layout of those parts, as the worker posts it once made (null: none)
    this.ahead = layout;
    this.server = server;
    this.onKind = onKind;
    this.kind = "engine";
    this.workers = pool.size;
    this.listed = {};    // the specs as listed, by name
    this.parts = {};     // a promise of each puzzle's parts as JSON text (null: none), by name
    this.plans = {};     // a promise of each puzzle's plan (null: none), by key (planKey)
    this.layouts = {};
    this.unreached = new Set();  // the puzzles whose parts the network did not bring
    this.broken = false; // the engine failed: the server answers from then on
  }

  async specs(listing = null) {
    const data = await this.server.specs(listing);
    const today = localToday();
    data.today = today;  // the browser's date, not the one the listing was made on
    for (const spec of data.specs) {
      if (spec.dates) spec.today = dateLabels(spec, today);
      this.listed[spec.name] = spec;
    }
    return data;
  }

  // A board drawn in the editor (a link's fields) made a puzzle in this browser, as the
  // server's api/board/play, api/layout and api/plan make one: checked in the server's
  // words (drawn.js, loaded when a board comes; the pieces' fit by a worker), laid out and
  // planned by the core in a worker; its listing returned (an Error with the server's
  // words when it is refused).
  async drawn(fields) {
    const {checkLimits, drawnPuzzle, fitsNowhere} = await import("./drawn.js");
    const {spec, listing, board} = drawnPuzzle(fields);
    const text = JSON.stringify(board);
    const fits = await this.pool.ask("drawn", "fits", null, text, {});
    if (fits.nowhere) throw fitsNowhere(spec, fits.nowhere);
    checkLimits(spec);
    const name = listing.name;
    this.parts[name] = Promise.resolve(text);
    this.layouts[name] = this.pool.ask("drawn", "layout", null, text, {});
    const key = planKey(name, false);
    this.plans[key] = this.madePlan(name, false);
    try {
      await this.layouts[name];
      await this.plans[key];
    } catch (err) {
      delete this.layouts[name];
      delete this.plans[key];
      throw err;
    }
    if (listing.dates) listing.today = dateLabels(listing, localToday());
    this.listed[name] = listing;
    return listing;
  }

  // The puzzle's parts (api/puzzle/NAME) as JSON text, read once; null where it has none
  // (asked again next time).
  partsOf(name) {
    if (!(name in this.parts)) {
      const first = this.first;  // (the page's head's, taken once)
      this.first = null;
      const read = (first || Promise.resolve(null)).then((got) => {
        if (got && got.name === name && got.text !== null) return got.text;
        return fetch(`api/puzzle/${encodeURIComponent(name)}`)
          .then((response) => {
            this.unreached.delete(name);
            return response.ok ? response.text() : null;
          })
          .catch(() => { this.unreached.add(name); return null; });
      });
      this.parts[name] = read;
      read.then((text) => {
        if (text === null && this.parts[name] === read) delete this.parts[name];
      });
    }
    return this.parts[name];
  }

  // The board and pieces as play mode draws them: made by the core in a worker from the
  // puzzle's parts (the first puzzle's made ahead, as the page's head asked), else the
  // server's (api/layout/NAME).
  layout(name) {
    if (!this.layouts[name]) {
      const ahead = this.ahead;  // (taken once)
      this.ahead = null;
      mark("layout-asked");
      const made = Promise.resolve(ahead).then((laid) => {
        if (laid && laid.spec === name) return laid;
        return this.partsOf(name).then((text) => {
          if (text === null || this.broken) {
            return this.unreachable(name) || this.server.layout(name);
          }
          return this.pool.ask(`layout ${name}`, "layout", null, text, {})
            .catch(() => this.server.layout(name));
        });
      }).then((layout) => { mark("layout-made"); return layout; });
      this.layouts[name] = made;
      made.catch(() => { if (this.layouts[name] === made) delete this.layouts[name]; });
    }
    return this.layouts[name];
  }

  // On the static site with no network, a puzzle whose parts were not kept is refused in a
  // sentence that says so (null otherwise).
  unreachable(name) {
    if (!this.server.site || !this.unreached.has(name) || navigator.onLine) return null;
    return Promise.reject(refusal(NOT_KEPT, 503, {verdict: "invalid"}));
  }

  // The puzzle's plan begun (its parts read), for the engine to make while the page draws
  // the puzzle's layout: resolves once the worker has been asked.
  prepare(puzzle) {
    this.plan(puzzle).catch(() => {});
    const spec = this.listed[puzzle.spec];
    return spec ? this.partsOf(spec.name).then(() => {}) : Promise.resolve();
  }

  // The plan of the puzzle (null: it has none, and the server answers it).
  async plan(puzzle) {
    const spec = this.listed[puzzle.spec];
    let found = null;
    if (spec) {
      const faceUp = Boolean(puzzle.face_up && spec.flip);
      const key = planKey(spec.name, faceUp);
      if (!(key in this.plans)) {
        this.plans[key] = this.madePlan(spec.name, faceUp).catch(() => null);
      }
      found = await this.plans[key];
      if (found === null) delete this.plans[key];  // (asked again next time)
    }
    this.kind = found ? "engine" : this.server.kind;
    if (this.onKind) this.onKind(this.kind);
    return found;
  }

  // A puzzle's plan made by the core in a worker from its parts (null where it has none);
  // a refusal of the core's throws.
  async madePlan(name, faceUp) {
    const parts = await this.partsOf(name);
    if (parts === null) return null;
    const key = planKey(name, faceUp);
    const text = `{"faceUp":${faceUp},"parts":${parts}}`;
    mark("plan-asked");
    const listing = await this.pool.ask(`plan ${key}`, "plan", key, text, {});
    mark("plan-made");
    return readPlan(listing, key, text);
  }

  // The puzzle's spec listed, its labels in group order, and whether it is face up.
  read(puzzle) {
    const spec = this.listed[puzzle.spec];
    const labels = puzzle.date !== undefined ? dateLabels(spec, puzzle.date)
      : Object.values(spec.groups).map((names) => puzzle.labels.find((l) => names.includes(l)));
    return {spec, labels, faceUp: Boolean(puzzle.face_up && spec.flip)};
  }

  ask(kind, op, plan, args, signal, late = LATE[kind]) {
    return this.pool.ask(kind, op, plan.key, plan.text, args, signal, late);
  }

  // The option id of each placement, or a refusal (422, status invalid) naming the first
  // that could not be on the board and why, in the server's words (play.validate).
  async validate(puzzle, plan, placements) {
    const {spec, labels, faceUp} = this.read(puzzle);
    const layout = await this.layout(spec.name);
    const pieces = Object.fromEntries(layout.pieces.map((p) => [p.name, p]));
    const board = new Set(layout.cells.map((c) => c.cell.join(",")));
    const open = new Map(layout.cells.filter((c) => labels.includes(c.label))
      .map((c) => [c.cell.join(","), c.label]));
    const owner = new Map();
    const used = {};
    const ids = [];
    const invalid = (message) => refusal(message, 422, {verdict: "invalid"});
    placements.forEach(({piece, cells: given}, i) => {
      const n = i + 1;
      const what = `placement ${n} (${piece})`;
      if (!(piece in pieces)) {
        throw invalid(`placement ${n}: there is no piece ${repr(piece)} in ${spec.name}; ` +
                      `pieces: ${Object.keys(pieces).join(", ")}`);
      }
      const cells = [...given].sort(byCell);
      const keys = cells.map((c) => c.join(","));
      const twice = keys.find((k, j) => keys.indexOf(k) !== j);
      if (twice !== undefined) {
        throw invalid(`${what}: cell [${twice.replace(",", ", ")}] is listed twice`);
      }
      for (const cell of cells) {
        const k = cell.join(",");
        if (!board.has(k)) throw invalid(`${what}: cell ${where(cell)} is not on the board`);
        if (open.has(k)) {
          throw invalid(`${what} covers ${open.get(k)}, which ${labels.join(" ")} leaves open`);
        }
      }
      const want = new Set(keys);
      const shape = pieces[piece].orientations.find((o) => o.cells.length === want.size &&
        o.places.some(([dr, dc]) => o.cells.every(([a, b]) => want.has(`${a + dr},${b + dc}`))));
      if (!shape) {
        throw invalid(`${what}: cells ${cells.map(where).join(", ")} are not the shape of ` +
                      piece);
      }
      if (faceUp && !shape.face_up) {
        throw invalid(`${what} is turned over, and the pieces are face up`);
      }
      used[piece] = (used[piece] || 0) + 1;
      const copies = pieces[piece].count;
      if (used[piece] > copies) {
        throw invalid(copies > 1
          ? `${what}: ${piece} is placed ${used[piece]} times; the puzzle has ${copies} of it`
          : `${what}: ${piece} is placed twice; the puzzle has one`);
      }
      for (const cell of cells) {
        const k = cell.join(",");
        if (owner.has(k)) {
          const m = owner.get(k);
          throw invalid(`${what} overlaps placement ${m} (${placements[m - 1].piece}) at ` +
                        where(cell));
        }
        owner.set(k, n);
      }
      ids.push(plan.ids.get(`${piece}|${cellsKey(cells)}`));
    });
    const covered = placements.reduce((sum, p) => sum + p.cells.length, 0);
    const solved = covered === board.size - open.size &&
      layout.pieces.every((p) => (used[p.name] || 0) >= p.low);
    return {ids, solved, spec, labels, faceUp};
  }

  prefix(plan, labels) { return labels.map((label) => plan.slack[label]); }

  // The engine's answer (engine(plan)), or the server's (server()) for a puzzle without a
  // plan. An engine that fails (its worker lost: no refusal, nothing cancelled) leaves this
  // question and every later one to the server.
  async answer(puzzle, engine, server) {
    const plan = this.broken ? null : await this.plan(puzzle);
    if (!plan) return (this.unreachable(puzzle.spec) || server());
    try {
      return await engine(plan);
    } catch (err) {
      if (err.name === "AbortError" || err.status !== undefined) throw err;
      this.broken = true;
      this.kind = this.server.kind;
      if (this.onKind) this.onKind(this.kind);
      return server();
    }
  }

  count(puzzle, signal) {
    return this.answer(puzzle, (plan) => this.engineCount(plan, puzzle, signal),
                       () => this.server.count(puzzle, signal));
  }

  check(puzzle, placements, signal) {
    return this.answer(puzzle, (plan) => this.engineCheck(plan, puzzle, placements, signal),
                       () => this.server.check(puzzle, placements, signal));
  }

  hint(puzzle, revealed, signal) {
    return this.answer(puzzle, (plan) => this.engineHint(plan, puzzle, revealed, signal),
                       () => this.server.hint(puzzle, revealed, signal));
  }

  solution(puzzle, index, signal) {
    return this.answer(puzzle, (plan) => this.engineSolution(plan, puzzle, index, signal),
                       () => this.server.solution(puzzle, index, signal));
  }

  async engineCount(plan, puzzle, signal) {
    const {spec, labels, faceUp} = this.read(puzzle);
    const {count} = await this.ask("count", "count", plan, {prefix: this.prefix(plan, labels)},
                                   signal, `counting ${labels.join(" ")} took longer than ` +
                                   "the server allows");
    return {spec: spec.name, labels, face_up: faceUp, count: Number(count)};
  }

  // A position judged as the server judges it (play.check_position).
  async engineCheck(plan, puzzle, placements, signal) {
    const {ids, solved, spec, labels, faceUp} = await this.validate(puzzle, plan, placements);
    const answer = (status, completions, message, takeBack = []) => ({
      spec: spec.name, labels, face_up: faceUp, status, completions, message,
      take_back: takeBack});
    if (solved) return answer("solved", 1, "solved!");
    mark("count-asked");
    const {count, wayOut} = await this.ask("check", "position", plan,
                                           {prefix: this.prefix(plan, labels), ids}, signal);
    mark("count-answered");
    const found = Number(count);
    if (found) {
      return answer("open", found, `${plural(found, "solution")} still possible from here`);
    }
    const named = labels.join(" ") + (faceUp ? " with the pieces face up" : "");
    if (!ids.length) return answer("dead_end", 0, `${named} has no solution`);
    const takeBack = ids.map((_, k) => k).filter((k) => wayOut[k]);
    let message = "dead end: no solution contains these pieces";
    if (takeBack.length) {
      const names = takeBack.map((k) => placements[k].piece);
      message += "; take back " + (names.length === 1 ? names[0]
        : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`) + " to get out of it";
    } else if (!wayOut.at(-1)) {
      message = `dead end: ${named} has no solution`;
    } else {
      message += "; taking back one piece is not enough";
    }
    return answer("dead_end", 0, message, takeBack);
  }

  // One more piece of a solution that keeps the pieces shown (play.next_hint): the first,
  // in the order of the pieces' letters, of the first solution's pieces not shown.
  async engineHint(plan, puzzle, revealed, signal) {
    const {ids, spec, labels} = await this.validate(puzzle, plan, revealed);
    const prefix = this.prefix(plan, labels);
    const {solutions} = await this.ask("hint", "solutions", plan,
                                       {forced: [...prefix, ...ids], skip: 0, take: 1}, signal);
    if (!solutions.length) {
      throw refusal(sentence(revealed.length ? "no solution has the pieces shown; take some back"
        : `${labels.join(" ")} has no solution`), 409);
    }
    const order = new Map(plan.letters.map((name, k) => [name, k]));
    const shown = new Set([...prefix, ...ids]);
    const rest = solutions[0].filter((j) => !shown.has(j) && plan.options[j][2] === 0)
      .sort((i, j) => (order.get(plan.options[i][0]) ?? 0) - (order.get(plan.options[j][0]) ?? 0) ||
            i - j);
    const more = rest.length ? plan.options[rest[0]] : null;
    return {spec: spec.name, labels,
            revealed: [...revealed.map(({piece, cells}) => ({piece,
                                                            cells: [...cells].sort(byCell)})),
                       ...(more ? [{piece: more[0], cells: [...more[1]].sort(byCell)}] : [])],
            complete: more === null};
  }

  // Solution index of the puzzle, its placements for the page to draw (no SVG).
  async engineSolution(plan, puzzle, index, signal) {
    const {spec, labels, faceUp} = this.read(puzzle);
    if (index >= MAX_SOLUTION) {
      const most = MAX_SOLUTION.toLocaleString("en-US");
      throw refusal(sentence(`the page steps through the first ${most} solutions only`), 422);
    }
    // one past the one asked: whether there is a next
    const {solutions, found, exhausted} = await this.ask(
      "solution", "solutions", plan, {forced: this.prefix(plan, labels), skip: index, take: 2},
      signal);
    const count = exhausted ? found : null;
    if (!solutions.length && index > 0) {
      throw refusal(sentence(`there is no solution ${index + 1}: ${labels.join(" ")} has ` +
                             (found ? found.toLocaleString("en-US") : "no solution")), 404);
    }
    const answer = {spec: spec.name, labels, index, found: Math.min(found, MAX_SOLUTION),
                    exhausted, count, face_up: faceUp};
    if (!solutions.length) {
      return {...answer, status: "unsolvable", placements: [],
              message: `${labels.join(" ")} has no solution` +
                (faceUp ? " with the pieces face up" : "")};
    }
    const prefix = new Set(this.prefix(plan, labels));
    const placements = solutions[0].filter((j) => !prefix.has(j) && plan.options[j][2] === 0)
      .map((j) => ({piece: plan.options[j][0], cells: plan.options[j][1]}));
    return {...answer, status: "solved", placements};
  }
}

// For a host that loads these modules itself (the notebook widget, notebook/widget.js): the
// pool, given its worker's script, and the engine's answers over it.
export {EngineAnswers, Pool};

// The answers the page uses: the engine's when engine.wasm compiles and a worker loads it,
// else the server's. onKind(kind) is told which answered each puzzle asked about.
export async function openAnswers({onKind = null} = {}) {
  const server = new ServerAnswers();
  const early = self.engineStart || null;
  const pool = await openPool();
  return pool ? new EngineAnswers(pool, server, onKind, early && early.first,
                                  early && early.layout) : server;
}

// A worker counting a large board (the weekday calendar's heatmap) keeps up to about this
// many MB of tables; a page takes at most a quarter of the device's memory in them.
const WORKER_MB = 400;
const UNKNOWN_MEMORY_GB = 4;  // where the browser does not say (navigator.deviceMemory)

// The workers a pool holds: one per core (cores: navigator.hardwareConcurrency), at least
// one, and no more than a quarter of the device's memory (memoryGB: navigator.deviceMemory,
// which only some browsers give) holds at WORKER_MB each.
export function poolSize(cores = navigator.hardwareConcurrency,
                         memoryGB = navigator.deviceMemory) {
  const byCores = Math.max(1, Math.floor(cores) || 1);
  const gb = Number.isFinite(memoryGB) && memoryGB > 0 ? memoryGB : UNKNOWN_MEMORY_GB;
  return Math.min(byCores, Math.max(1, Math.floor(gb * 1024 / 4 / WORKER_MB)));
}

// A pool of workers running the engine (poolSize of them), its first worker loaded; null when engine.wasm does not compile or a worker cannot load it.
export async function openPool() {
  if (typeof Worker !== "function" || typeof WebAssembly !== "object") return null;
  try {
    // what the play page started as it opened (taken once, and no global name is left),
    // else the engine compiled now
    const early = self.engineStart || null;
    delete self.engineStart;
    const module = early ? early.module : fetch(WASM).then(async (response) => (response.ok
      ? WebAssembly.compile(await response.arrayBuffer()) : null));
    module.catch(() => {});
    const size = poolSize();
    const asked = Number(new URLSearchParams(location.search).get("engine_delay"));
    const delay = Number.isFinite(asked) ? Math.min(Math.max(asked, 0), MAX_DELAY_MS) : 0;
    const limit = Number(new URLSearchParams(location.search).get("engine_time_limit"));
    const pool = new Pool(null, size, delay,
                          limit > 0 && limit < TIME_LIMIT_S ? limit : TIME_LIMIT_S);
    await pool.start(module, early);
    return pool;
  } catch (err) {
    return null;
  }
}

// The footer's sentence: where the answers come from.
export function answersText(answers) {
  if (answers.kind === "none") {
    return "The puzzle engine did not load in this browser, and this site has no server: " +
      "no answers can be given here.";
  }
  if (answers.kind !== "engine") return "Answers come from the cpmodels server.";
  return enginesText(answers.workers);
}

export function enginesText(workers) {
  return `Answers come from the engine in this browser (${plural(workers, "worker")}).`;
}
