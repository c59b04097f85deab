// The design question in a worker of the pool (worker.js's "sets" and "design" questions),
// loaded the first time one is asked: a first visit does not fetch it. Nothing here places
// a piece or decides a search: the core makes the candidate sets (cpcore_design_sets) and
// the board's sweep cover with its left-out options (engine.sweepCover), and the engine's
// searches answer for each set.

function check(ok, message) {
  if (!ok) throw new RangeError(message);
}

// A design's candidate sets (cpcore_design_sets, as Design.candidates asks them) on
// ``engine``: ``pieces`` [{cells (square grid), flip, rotate, copies, name}] (rotate true
// unless told), the fixed ones first
// (``nFixed``), ``draws`` [{pieces: indices, low, high}] (k from low to high of each),
// ``area`` the cells a set covers, ``board`` its cells and ``holes`` each required date's
// label cells (indices in board). Returns {sets: each an array of piece indices, skipped:
// the sets left out as equal to an earlier one}.
export function candidateSets(engine, {pieces, nFixed, draws, area, board, holes}) {
  check(Array.isArray(pieces) && Array.isArray(draws) && Array.isArray(holes),
    "a design's pieces, draws and dates are arrays");
  const copies = new Map();  // a piece's copies -> their id
  const cellStart = [0n], nameStart = [0n], names = [], cells = [];
  for (const piece of pieces) {
    cells.push(...engine.cellsIn(piece.cells, 2, "a piece"));
    cellStart.push(BigInt(cells.length / 2));
    names.push(...new TextEncoder().encode(piece.name));
    nameStart.push(BigInt(names.length));
    if (!copies.has(piece.copies)) copies.set(piece.copies, copies.size);
  }
  const drawn = draws.flatMap((draw) => draw.pieces);
  const drawStart = [0n];
  draws.forEach((draw, k) => { drawStart.push(drawStart[k] + BigInt(draw.pieces.length)); });
  const setCols = nFixed + draws.reduce((n, draw) => n + draw.high, 0);
  const holeCols = Math.max(1, ...holes.map((row) => row.length));
  const holeRows = holes.flatMap((row) => [...row, ...new Array(holeCols - row.length).fill(-1)]);
  // (an empty array is one word: the core reads none of it)
  const words = (list) => engine.copy(BigInt64Array.from(list.length ? list : [0], BigInt));
  return engine.scoped(() => {
    const input = engine.struct("design_sets_input", {
      n_pieces: pieces.length, n_fixed: nFixed, n_cells: cells.length / 2,
      cells: words(cells), cell_start: words(cellStart),
      flip: engine.copy(Uint8Array.from(pieces, (piece) => (piece.flip ? 1 : 0))),
      rotate: engine.copy(Uint8Array.from(pieces, (piece) => (piece.rotate === false ? 0 : 1))),
      count_id: words(pieces.map((piece) => copies.get(piece.copies))),
      area: words(pieces.map((piece) => piece.cells.length)),
      high: words(pieces.map((piece) => piece.copies)),
      names: engine.copy(Uint8Array.from(names.length ? names : [0])),
      name_start: words(nameStart), n_names: names.length,
      n_draws: draws.length, n_drawn: drawn.length, draw_pieces: words(drawn),
      draw_start: words(drawStart), k_low: words(draws.map((draw) => draw.low)),
      k_high: words(draws.map((draw) => draw.high)), board_area: area, set_cols: setCols,
      board: engine.copy(engine.cellsIn(board, 2, "the board")), n_board: board.length,
      n_dates: holes.length, hole_cols: holeCols, holes: words(holeRows),
      n_area: 0, n_sets: 0, skipped: 0 });
    const flat = engine.stream((buffers) => engine.exports.cpcore_design_sets(input, buffers),
      (status) => {
        check(status !== BigInt(engine.constants.CPCORE_SETS_INPUT),
          "the design's pieces, draws or dates are out of range");
        return engine.geometryStatus(status);
      }, { most: Infinity });
    const sets = [];
    for (let at = 0; at < flat.length; at += setCols) {
      sets.push(flat.slice(at, at + setCols).filter((i) => i >= 0));
    }
    return { sets, skipped: Number(engine.sizesAt(input, "design_sets_input").skipped) };
  });
}

// A design question's board on ``answerer`` (worker.js's: its plan, counts.js's
// designInput): its sweep cover with the optional pieces' left-out options, each required
// combination's holes (its labels' slack options) and the core's design decision on it
// (engine.reachDesign: null where the reach search does not suit the cover), made once per
// key.
function designBoard(answerer, key, text) {
  return answerer.cover(key, (made) => {
    const board = answerer.board(made, {design: true});
    const question = JSON.parse(made);
    const holes = question.required.map((combo) => combo.map((i, g) => board.slack[g][i]));
    const reach = answerer.engine.reachDesign(board.described, holes);
    return {...board, question, holes, reach, order: holes.map((_, d) => d)};
  }, text);
}

// The sets a design question tries, made by the core, and how many of the first the order
// of dates is learnt from (learnFrom: cpcore_design_learning_sets of the ``asked`` sets the
// draws allow, as Design.learning_sets).
export function designSets(answerer, key, text, {asked = 0} = {}) {
  const {question} = designBoard(answerer, key, text);
  const {cells, groups, pieces, nFixed, choose, required} = question;
  const at = new Map(cells.map((cell, k) => [cell.join(","), k]));
  check(Number.isSafeInteger(asked) && asked >= 0, "asked: a whole number of sets");
  const learnFrom = Number(answerer.engine.exports.cpcore_design_learning_sets(asked));
  return {learnFrom, ...candidateSets(answerer.engine, {
    pieces: pieces.map((p) => ({cells: p.cells, flip: p.flip, rotate: p.rotate, copies: p.count,
                                name: p.name})),
    nFixed, area: cells.length - groups.length, board: cells,
    draws: [{pieces: pieces.map((_, k) => k).slice(nFixed), low: choose, high: choose}],
    holes: required.map((combo) => combo.map((i, g) => at.get(groups[g][i].join(","))))})};
}

// Each set's first failing required combination (its index), or null, decided by the core
// (cpcore_design, on the reach search) as `cpmodels design` decides it: with ``learning``,
// a failure moves its combination to the front of the order, for the sets after it. A
// board the reach search does not suit searches each set's combinations in the order, one
// existence search a set stopping at its first failure, as natively.
function failures(design, sets, learning) {
  const {question, leftOut, holes, reach} = design;
  const lefts = sets.map((set) => [...leftOut].filter(([p]) => !set.includes(p))
    .map(([, o]) => o));
  if (reach !== null) {
    const areas = sets.map((set) => set.flatMap((p) => {
      const piece = question.pieces[p];
      return new Array(piece.count).fill(piece.cells.length);
    }));
    return reach.decide(lefts, areas, {learning});
  }
  const order = design.order;
  return lefts.map((left) => {
    const found = design.cover.exists(order.map((d) => [...left, ...holes[d]]),
                                      {firstFailure: true});
    const k = found.indexOf(false);
    if (k < 0) return null;
    const failed = order[k];
    if (learning) {
      order.splice(k, 1);
      order.unshift(failed);
    }
    return failed;
  });
}

// Each set's verdict (worker.js's "design" question) as `cpmodels design` writes it.
// With ``learn``, the sets are those the order of required combinations is learnt from
// (Design.learn_order), or the next of them, ``learnt`` the order learnt from those before
// (null: none): the answer is {learnt: the order learnt, passed: whether each set solves
// every combination}, so the learning goes on in turns, as one call would learn it, on
// whichever worker. Else ``learnt`` is that order (the same for every worker, so
// that a set's first failure is the first in it, whichever worker decides it), and
// ``passed`` (optional) says which sets are known to pass: their existence is not decided
// again. A set that works is counted task by task as "sweep" counts (each task's rows read
// by ``taskRows``), unless ``counts`` is false (`cpmodels design --no-counts`).
export function decide(answerer, key, text, {sets, learn = false, learnt = null, passed = [],
                                             counts = true}, taskRows) {
  const design = designBoard(answerer, key, text);
  const {question, leftOut, labels} = design;
  if (learnt !== null) takeLearnt(design, learnt);
  if (learn) {
    const found = failures(design, sets, true);
    const order = design.reach !== null ? design.reach.learntOrder : {order: [...design.order]};
    return {learnt: order, passed: found.map((d) => d === null)};
  }
  const asked = sets.filter((_, k) => !passed[k]);
  const found = failures(design, asked, false);
  let next = 0;
  return sets.map((set, k) => {
    const failed = passed[k] ? null : found[next++];
    const pieces = set.map((p) => question.pieces[p].name);
    const named = (d) => question.required[d].map((i, g) => labels[g][i]);
    if (failed !== null) {
      return {pieces, works: false, first_failure: named(failed), min: null, argmin: null,
              max: null, total: null};
    }
    if (!counts) {
      return {pieces, works: true, first_failure: null, min: null, argmin: null, max: null,
              total: null};
    }
    const left = [...leftOut].filter(([p]) => !set.includes(p)).map(([, o]) => o);
    // the fewest (the first such in the required order), the most, the total: the core's
    const {low, min, max, total} = answerer.engine.designSummary(setCounts(design, left,
                                                                           taskRows));
    return {pieces, works: true, first_failure: null, min, argmin: named(low), max, total};
  });
}
// The order another worker learnt (or this one, in an earlier turn), held for the next sets.
function takeLearnt(design, learnt) {
  if (design.reach !== null) design.reach.setLearnt(learnt);
  else design.order = [...learnt.order];
}

// A set's count of each required combination (its left-out options ``left`` forced),
// tallied task by task as a sweep tallies them, in one call.
function setCounts(design, left, taskRows) {
  const {question, fixed, slack, labels} = design;
  const count = new Map();
  let tasks = [[]];
  for (const g of fixed) tasks = tasks.flatMap((task) => labels[g].map((_, i) => [...task, i]));
  // (one call of the kernel for every task, as Design.counts asks them)
  const {rows, masks} = design.cover.tally(tasks.map((task) =>
    [...left, ...fixed.map((g, k) => slack[g][task[k]])]));
  tasks.forEach((task, t) => {
    for (const row of taskRows(design, task, rows[t], masks[t])) {
      count.set(row.labels.join("\n"), row.count);
    }
  });
  return question.required.map((combo) =>
    count.get(combo.map((i, g) => labels[g][i]).join("\n")) ?? 0);
}
