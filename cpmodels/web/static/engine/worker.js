// One worker of the play page's pool (answers.js): the engine instantiated once from the
// compiled module the page sends, each puzzle's plan loaded once (by its key), and the
// page's questions about positions answered. A question is a message
//   {id, op, key, plan, args, delay}
// plan: the plan's JSON text (read only the first time its key is met); op and args:
//   "position" {prefix, ids}: the completions of prefix + ids and, when there are none,
//        whether each of ids taken back (and all of them) leaves a way out;
//   "count" {prefix}: the completions of prefix;
//   "solutions" {forced, skip, take}: the solutions from number skip on (engine.js).
//   "sweep" {task} on a board (plan: the JSON of {grid, cells, pieces, groups, faceUp,
//        labels, neighbours}, as counts.js makes it from the editor's fields): the core's
//        sweep cover of the board laid out by the core with the free groups' slack items
//        as tally items (made once per key), and task (a label index of each fixed group)
//        tallied: {rows: [{labels, count}], spent} in sweep order, spent = {built, kernel,
//        nodes}: the milliseconds the board took to make here (0 when made before) and
//        the search took, and its nodes; task null: {fixed, split} (the groups the tasks
//        fix, and whether the board's count splits in two parts: splitOf) and no search;
//        with preview, the one combination of the task and the first label of each free
//        group (TallyPlan.preview_tasks); with part (0 or 1, on a board that splits), that
//        part of the task's count alone, the two adding up to it.
//   "cut" {glyphs} on a board drawn in the editor (plan: the JSON of {grid, cells, pieces,
//        labels, sizes}): its laser cut file (engine.cutSheets), engraved in the glyph
//        table glyphs (an ArrayBuffer; null: nothing engraved);
//   "sets" {asked} on a design question about a board (both answered by design.js) (plan: the JSON of counts.js's
//        designInput: the board's fields as "sweep" reads them, each candidate piece with
//        its name and copies, the optional ones leftOut, nFixed, choose and the required
//        label combinations): its candidate sets, made by the core (engine.designSets):
//        {sets: piece indices each, skipped, learnFrom: how many of the first the order of
//        dates is learnt from, the core's rule for ``asked`` sets allowed};
//   "design" {sets, learn, learnt, passed, counts} on the same plan: each set's verdict as
//        `cpmodels design` writes it ({pieces, works, first_failure, min, argmin, max,
//        total}), on the board's sweep cover whose optional pieces each have a left-out
//        option (made once per key): a set forces the left-out options of the pieces it
//        does not hold, and the core's design decision (cpcore_design) names its first
//        failing combination in the order learnt; with learn, the sets are those the order
//        is learnt from (or the next of them, learnt the order learnt from those before),
//        and the answer is {learnt: the order, passed: whether each set passed}; else
//        learnt is that order (the same for every worker) and passed says
//        which sets are known to pass. A set that works is counted task by task as "sweep"
//        counts (unless counts is false): the fewest on a combination, the first such in
//        the required order, the most and the total (design.js's decide).
//   "fits" {} on a board drawn in the editor (plan: the JSON of drawn.js's board):
//        {nowhere: the first piece that fits nowhere on it ({index, size}), or null};
//   "layout" {} on a puzzle's parts (plan: api/puzzle/NAME's JSON, or drawn.js's board):
//        its layout as api/layout gives one (engine.playLayout);
//   "plan" {} (plan: the JSON of {parts, faceUp}): the puzzle's plan made by the core
//        (web/plans.py's puzzle_plan: the core's sweep cover, laid out by the core) and
//        loaded under key, and what the page reads of it: {options, slack, letters,
//        copies} as api/plan gives them. The questions above ask a plan by the same key
//        and text: a worker that has not met it makes it so.
// Making a layout or a plan is never held back by delay. A "plan" question without an id
// is made and not answered, and a "layout" question without an id is answered {made:
// "layout", answer} or {made: "layout", error} (the play page's head asks its first
// puzzle's layout and then its plan so, as soon as the engine is sent, before the page's
// scripts have loaded): the page draws the board while the plan is made, and its own
// question for the plan by the same key finds it made.
// The answer is {id, answer} or {id, error}; with delay (ms) it is held back that long.
// The first message is {module} (a compiled engine.wasm); {ready: true} says it loaded.
import {loadEngine} from "./engine.js";

const MAKING = new Set(["layout", "plan"]);  // what the delay does not hold back
const DESIGNING = new Set(["sets", "design"]);  // the design question's (design.js)
const MAX_COVERS = 4;  // plans kept loaded; a fifth drops them all (memory is a bump heap)
// A board's table of sub-board counts, as the server's editor sizes it (board.py): a
// board of 48 cells or more (the weekday calendar, 50) needs a large one to count fast.
// Its arena keeps a count vector for each state (up to one count a combination a task
// tallies): far more than four counts a slot.
const BOARD_TABLE_SLOTS = [1 << 20, 1 << 22];
const BOARD_ARENA = [1 << 23, 1 << 25];
const LARGE_BOARD = 48;
// A large board on the one-word kernel: a worker's tasks keep some 3 million states and 20
// million counts (the weekday calendar's half); a table that fills is emptied and its
// states counted again, so it holds them all. Its arena is committed only as it is used.
// The core probes 4 million of its slots from the start (first live), where it would grow
// them from 16,384, doubling (each state held put back) up to the 4 million those states
// fill: the doubling to 4 million alone took 200 to 350 ms of a worker's count. (Half the
// native sweep's first live slots: its one table holds both parts' states.)
const ONE_WORD_LARGE = {tableSlots: 1 << 23, arena: 1 << 26, firstLive: 1 << 22};
const SINGLE_TABLE_SLOTS = 1 << 18;  // one combination's search (the weekday's: 100,000 nodes)
// A design question's board on a small calendar: its sets' counts share sub-boards, as
// the native design's session does on its table of this size (memo.DEFAULT_MEMO_SLOTS);
// the month/day calendar's 792 sets counted in 0.8 of the time of the sweep's 1 << 20.
const DESIGN_TABLE_SLOTS = 1 << 22;

class Answerer {
  constructor(post) {
    this.post = post;
    this.engine = null;
    this.covers = new Map();
    this.queue = Promise.resolve();
    this.searched = false;  // whether a board's search ran here (see sweep)
    this.counted = false;   // whether a puzzle's position was counted here (see count)
    this.designing = null;  // design.js, once a design question is asked
  }

  receive(message) {
    // one message at a time, in order: the engine loads before the first question
    this.queue = this.queue.then(() => this.handle(message));
  }

  async handle(message) {
    if (message.module) {
      try {
        this.engine = await loadEngine(message.module);
        this.post({ready: true});
      } catch (err) {
        this.post({ready: false, error: String(err.message || err)});
      }
      return;
    }
    const {id, delay} = message;
    if (id === undefined) {  // made ahead (a plan not answered: the page asks it by its key)
      if (!MAKING.has(message.op)) return;
      let made;
      try {
        made = {made: message.op, answer: this.answer(message)};
      } catch (err) {  // (the page's own question meets the same refusal, and says it)
        made = {made: message.op, error: String(err.message || err)};
      }
      if (message.op === "layout") this.post(made);
      return;
    }
    let reply;
    try {
      // The design question's code, loaded the first time one is asked (design.js).
      if (DESIGNING.has(message.op)) this.designing ??= await import("./design.js");
      reply = {id, answer: this.answer(message)};
    } catch (err) {
      reply = {id, error: String(err.message || err)};
    }
    if (delay > 0 && !MAKING.has(message.op)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    this.post(reply);
  }

  // The cover of key, loaded by make() the first time it is met (by default a puzzle's
  // plan made from its parts, what the page reads of it kept as its listing).
  cover(key, make = (plan) => this.puzzle(plan), plan) {
    if (!this.engine) throw new Error("the engine did not load");
    let cover = this.covers.get(key);
    if (!cover) {
      if (this.covers.size >= MAX_COVERS) {
        const first = this.covers.values().next().value;
        (first.cover || first).release();  // (and every cover loaded after it)
        this.covers.clear();
      }
      cover = make(plan);
      this.covers.set(key, cover);
    }
    return cover;
  }

  // A puzzle's plan made from {parts, faceUp} and loaded, with its listing.
  puzzle(text) {
    const {parts, faceUp} = JSON.parse(text);
    const {plan, listing} = madePlan(this.engine, parts, faceUp);
    const cover = this.engine.load(plan);
    cover.listing = listing;
    return cover;
  }

  // A board's sweep cover made and laid out by the core, its slack options by group (with
  // ``design``, for a design question's sets: a table for their counts to share).
  board(text, {design = false, part = null} = {}) {
    const board = JSON.parse(text);
    const {cells, groups, labels} = board;
    const engine = this.engine;
    const whole = engine.sweepCover(board);
    const split = design ? null : splitOf(board, whole);
    // (the second part's cover: the split piece's early placements left out)
    const made = part === 1 && split ? without(whole, new Set(split)) : whole;
    const slackItems = [];
    made.items.kind.forEach((kind, i) => { if (kind === 2) slackItems.push(i); });
    const fixed = made.fixed;
    const free = groups.map((_, g) => g).filter((g) => !fixed.includes(g));
    const slack = groups.map(() => []);
    made.optionKind.forEach((kind, o) => { if (kind === 1) slack[made.optionOwner[o]].push(o); });
    const leftOut = new Map();  // an optional piece -> its left-out option
    made.optionKind.forEach((kind, o) => { if (kind === 2) leftOut.set(made.optionOwner[o], o); });
    const {plan, described} = boardPlan(engine, board, made, free.map((g) => slackItems[g]));
    const large = Number(cells.length >= LARGE_BOARD);
    const oneWordLarge = large && plan.tally.kernel === "tally_one_word";
    const slots = design ? Math.max(DESIGN_TABLE_SLOTS, BOARD_TABLE_SLOTS[large])
      : BOARD_TABLE_SLOTS[large];
    const cover = engine.load(plan, oneWordLarge
      ? ONE_WORD_LARGE : {tableSlots: slots, arena: BOARD_ARENA[large]});
    // One combination's search (a preview) shares next to nothing with the tasks' (its
    // holes are forced from the start): on such a board it runs on a small table of its
    // own, so as not to wait for the large one's memory.
    const single = oneWordLarge ? engine.load(plan, {tableSlots: SINGLE_TABLE_SLOTS}) : cover;
    return {cover, single, fixed, free, slack, labels, leftOut, tallies: plan.tally.tallies,
            described: design ? described : null, split: part === 0 ? split : null,
            whole: made === whole};
  }

  // A task of a board's sweep (see the head of this file); with ``part`` (0 or 1, where
  // the board has a split: splitOf), that part of its count alone: the two add up to it.
  sweep(key, plan, task, preview = false, part = null) {
    const mine = part === 1 ? `${key}${SECOND_PART}` : key;
    if (this.covers.size && ![key, `${key}${SECOND_PART}`].some((k) => this.covers.has(k))) {
      // a new board: the old ones let go
      const first = this.covers.values().next().value;
      (first.cover || first).release();
      this.covers.clear();
    }
    const began = performance.now();
    const board = this.cover(mine, (text) => this.board(text, {part: part ?? 0}), plan);
    const built = performance.now() - began;  // (0 when the board was made before)
    // (a board with no split is the whole board under both keys: made once here)
    if (part === 1 && board.whole && !this.covers.has(key)) this.covers.set(key, board);
    if (task === null) return {fixed: board.fixed, split: board.split !== null};
    if (preview) return {rows: [this.firstCombination(board, task)]};
    const prefix = board.fixed.map((g, k) => board.slack[g][task[k]]);
    // The browser runs a search's first call as compiled at once, and a faster build of it
    // only from the next call on (a call in progress keeps its code): a worker's first task
    // is led by a small search of its own (its first combination), so that the task's long
    // call runs the faster build.
    if (!this.searched) this.firstCombination(board, task);
    // the first part: each early placement of the split piece forced in a row of its own
    const prefixes = part === 0 ? board.split.map((o) => [...prefix, o]) : [prefix];
    const nodes = board.cover.nodes;
    const start = performance.now();
    const {rows, masks} = board.cover.tally(prefixes);
    const spent = {built, kernel: performance.now() - start, nodes: board.cover.nodes - nodes};
    const found = rows.map((row, r) => taskRows(board, task, row, masks[r]));
    const sum = found[0].map(({labels}, x) => ({
      labels, count: found.reduce((n, one) => n + one[x].count, 0)}));
    return {rows: sum, spent};
  }

  // The count of a puzzle's position (forced: its options). The browser runs a long call
  // of the kernel in the code it compiled first, and a faster build only from the next
  // call on: a worker's first count is the sum of the counts of each option of the
  // search's next branching step below the position (the core's split: each solution has
  // one of them), so that all but the first few run the faster build (the same nodes, the
  // same count, in about half the time).
  count(cover, forced) {
    if (this.counted) return cover.count([forced])[0];
    this.counted = true;
    const branches = cover.split(forced);
    if (!branches.length) return cover.count([forced])[0];  // (nothing open, or nothing fits)
    return branches.reduce((sum, o) => sum + cover.count([[...forced, o]])[0], 0n);  // a call each
  }

  // The count of one combination: a task's labels and the first of each free group.
  firstCombination(board, task) {
    const chosen = board.labels.map(() => 0);
    board.fixed.forEach((g, k) => { chosen[g] = task[k]; });
    const [count] = board.single.count([chosen.map((i, g) => board.slack[g][i])]);
    this.searched = true;
    return {labels: chosen.map((i, g) => board.labels[g][i]), count: Number(count)};
  }

  answer({op, key, plan, args}) {
    if (op === "sweep") return this.sweep(key, plan, args.task, args.preview, args.part ?? null);
    if (op === "sets") return this.designing.designSets(this, key, plan, args);
    if (op === "design") return this.designing.decide(this, key, plan, args, taskRows);
    if (op === "fits") return {nowhere: nowhere(this.engine, JSON.parse(plan))};
    if (op === "cut") return this.engine.cutSheets({...JSON.parse(plan), glyphs: args.glyphs ?? null});
    if (op === "layout") {
      const {spec, grid, cells, labels, pieces} = JSON.parse(plan);
      return this.engine.playLayout({spec, grid, cells, labels, pieces});
    }
    const cover = this.cover(key, undefined, plan);
    if (op === "plan") return cover.listing;
    if (op === "count") return {count: String(this.count(cover, args.prefix))};
    if (op === "position") {
      const {prefix, ids} = args;
      const count = this.count(cover, [...prefix, ...ids]);
      if (count > 0n || !ids.length) return {count: String(count), wayOut: []};
      const fewer = ids.map((_, k) => [...prefix, ...ids.slice(0, k), ...ids.slice(k + 1)]);
      return {count: "0", wayOut: cover.exists([...fewer, prefix], {remember: false})};
    }
    if (op === "solutions") {
      const {forced, skip, take} = args;
      return cover.solutions(forced, {skip, take});
    }
    throw new Error(`${op}: not a question the engine answers`);
  }
}

// A task's tally (the count vector row, its uncovered tally items mask) as the count of
// each combination of its fixed labels and one label of each free group, in sweep order
// (TallyPlan.rows): a combination's count is at the sum of its options' indices times
// their strides (EngineSession.tally's decoding).
function taskRows({fixed, free, slack, labels, tallies}, task, row, mask) {
  const {opt_tally: optTally, opt_index: optIndex, length, stride} = tallies;
  const cols = stride.shape[1];
  const out = [];
  const chosen = new Array(labels.length);
  fixed.forEach((g, k) => { chosen[g] = task[k]; });
  const visit = (k) => {
    if (k < free.length) {
      for (let i = 0; i < labels[free[k]].length; ++i) {
        chosen[free[k]] = i;
        visit(k + 1);
      }
      return;
    }
    let x = 0;
    for (const g of free) {
      const o = slack[g][chosen[g]];
      const t = Number(optTally[o]);
      if (mask >> t & 1) x += Number(optIndex[o]) * Number(stride.data[mask * cols + t]);
    }
    out.push({labels: chosen.map((i, g) => labels[g][i]),
              count: x < Number(length[mask]) ? Number(row[x]) : 0});
  };
  visit(0);
  return out;
}

// --- a large board's sweep split between two workers ------------------------------------

// The second part's cover is kept under the board's key and this (a worker keeps both).
const SECOND_PART = "\n(without the split's placements)";

// The split of a large board's tasks between two workers, or null: the placements of one
// piece that lie early in the scan (anchored, their first cell, before SPLIT_REACH times
// the fixed groups' label cells, when those are the first cells of the scan, as the months
// of calendar_week are its first two rows). Every solution holds that piece once, so
// each task's count is the sum of two parts, each searched on a table of its own: the
// first with one of those placements forced (a row each), the second on the board without
// them (without()). Below the fixed groups' rows the two meet different sub-boards (the
// piece placed there or not), so the two tables share little: on calendar_week (V5, 54
// placements) 2.45 and 2.51 million nodes, against 4.30 million on one table and 7.6
// million for the tasks dealt to two tables. The piece: one placed exactly once (count
// and low 1), the most cells, then the fewest such placements (the first on a tie).
const SPLIT_REACH = 1.6;
function splitOf(board, made) {
  if (board.cells.length < LARGE_BOARD || !made.fixed.length ||
      made.fixed.length === board.groups.length) return null;
  const {start, items} = made.options;
  const first = (o) => Math.min(...items.slice(start[o], start[o + 1]));
  const holes = new Set();  // the fixed groups' label cells (items: the cells in scan order first)
  made.optionKind.forEach((kind, o) => {
    if (kind === 1 && made.fixed.includes(made.optionOwner[o])) {
      for (const item of items.slice(start[o], start[o + 1])) {
        if (made.items.kind[item] === 0) holes.add(item);
      }
    }
  });
  // ... the first cells of the scan, or no split (calendar_week_11's weekdays, in its first
  // columns, are not: forced there, the placements' rows took 102 million nodes natively)
  if (Math.max(...holes) + 1 !== holes.size) return null;
  const reach = Math.floor(SPLIT_REACH * holes.size);
  let best = null;
  board.pieces.forEach((piece, p) => {
    if (piece.low !== 1 || piece.count !== 1) return;
    const mine = [];
    made.optionKind.forEach((kind, o) => { if (kind === 0 && made.optionOwner[o] === p) mine.push(o); });
    const early = mine.filter((o) => first(o) < reach);
    if (!early.length || early.length === mine.length) return;
    const size = piece.cells.length;
    if (!best || size > best.size || (size === best.size && early.length < best.early.length)) {
      best = {size, early};
    }
  });
  return best && best.early;
}

// A board's cover (engine.sweepCover's) without the options ``drop``.
function without(made, drop) {
  const {start, items} = made.options;
  const options = {start: [0], items: []};
  const optionKind = [], optionOwner = [];
  made.optionKind.forEach((kind, o) => {
    if (drop.has(o)) return;
    options.items.push(...items.slice(start[o], start[o + 1]));
    options.start.push(options.items.length);
    optionKind.push(kind);
    optionOwner.push(made.optionOwner[o]);
  });
  return {...made, options, optionKind, optionOwner};
}

// --- a board drawn in the editor, played from its link -----------------------------------

// The first piece of a drawn board that fits nowhere on it (spec/pieces.py's _fit_check):
// {index, size} (size: rows x columns of its first orientation on the square grid, else
// its cells), or null.
function nowhere(engine, {grid, cells, pieces}) {
  for (const [index, piece] of pieces.entries()) {
    const shapes = engine.orientations(grid, piece.cells, {rotate: piece.rotate, flip: piece.flip});
    if (engine.placements(grid, shapes, cells, {limit: 1}).length) continue;
    const first = shapes[0];
    const size = grid === "square"
      ? [0, 1].map((k) => 1 + Math.max(...first.map((c) => c[k]))).join("x")
      : `${first.length} cells`;
    return {index, size};
  }
  return null;
}

// The plan of a board's sweep cover (made: engine.sweepCover's), laid out by the core with
// the cells' neighbours (from the grid's table of offsets), and the cover's options as
// lists of items. Each search is the core's choice (engine.chooseSearch): with the cells'
// coordinates and the kinds, a board the one-word kernel suits gets the sweep's own plan
// (tally_one_word), any other the general one; tally: the items tallied (none: a plan
// that counts).
function boardPlan(engine, {grid, cells, neighbours}, made, tally = undefined) {
  const at = new Map(cells.map((cell, k) => [cell.join(","), k]));
  const near = cells.map(([a, b]) => neighbours[a & 1][b & 1].map(
    ([da, db]) => at.get(`${a + da},${b + db}`) ?? -1));
  const {start, items} = made.options;
  const options = made.optionKind.map((_, o) => items.slice(start[o], start[o + 1]));
  const described = {low: made.items.low, high: made.items.high, cell: made.items.cell,
                     neighbours: near, options, tally, grid, xy: cells, kinds: made.items.kind,
                     optionKinds: made.optionKind};
  const plan = engine.coverPlan(described);
  return {plan, options, described};
}

// A puzzle's plan made from its parts (api/puzzle/NAME, or a drawn board's), the pieces
// face up or not: the plan of the core's sweep cover, laid out by the core, and its listing
// as api/plan gives it (web/plans.py's puzzle_plan): each option's piece or group, cells
// and kind, each label's slack option, the hints' order of the pieces and their copies.
function madePlan(engine, parts, faceUp) {
  const {grid, cells, pieces, groups, groupNames, labels, letters, copies, neighbours} = parts;
  const labelAt = new Map(Object.entries(labels).map(([label, cell]) => [String(cell), label]));
  const made = engine.sweepCover({grid, cells, pieces, groups, faceUp});
  const {plan, options} = boardPlan(engine, {grid, cells, neighbours}, made);
  const slack = {};
  const listed = made.optionKind.map((kind, o) => {
    const owned = options[o].filter((item) => made.items.kind[item] === 0)
      .map((item) => cells[made.items.cell[item]]);
    if (kind === 1) slack[labelAt.get(String(owned[0]))] = o;
    return [kind === 1 ? groupNames[made.optionOwner[o]] : pieces[made.optionOwner[o]].name,
            owned, kind];
  });
  return {plan, listing: {options: listed, slack, letters, copies}};
}

const answerer = new Answerer((message) => self.postMessage(message));
self.onmessage = (event) => answerer.receive(event.data);
