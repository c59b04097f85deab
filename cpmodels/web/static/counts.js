// The editor's counts from the engine in this browser: a drawn board's fields read into the
// cells, pieces and label groups the core makes its sweep cover of (engine.sweepCover, in
// the workers of answers.js's pool), one task per label of the group the sweep fixes, the
// tasks dealt to the pool (a free worker takes the next), each task's rows handed on as it
// ends, in the shape of the server's stream (POST api/board/counts): {labels, count}.
// Nothing here places a piece or lays a cover out: the core does, in the workers.
import {openPool} from "./answers.js";
import {gridNeighbours, tokenCell} from "./cells.js";

export {openPool};

const plural = (n, word) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

// A piece's cells: its own list, or its square drawing's '#' read.
function pieceCells(piece) {
  if (piece.cells) return piece.cells;
  const rows = typeof piece.shape === "string" ? piece.shape.split("/") : piece.shape || [];
  const cells = [];
  rows.forEach((row, r) => [...row].forEach((ch, c) => { if (ch === "#") cells.push([r, c]); }));
  return cells;
}

const MAX_COMBINATIONS = 20_000;  // as the server's editor counts (board.MAX_COMBINATIONS)
const MAX_COPIES = 1000;
const DATE_GROUPS = {month: 12, day: 31, weekday: 7};  // the labels a date group holds
const whole = (n, most) => Number.isSafeInteger(n) && n >= 0 && n <= most;

// A piece's fewest and most copies, or a sentence saying its count does not read.
function bounds(piece) {
  const count = piece.count ?? 1;
  const [low, high] = Array.isArray(count) ? count : [count, count];
  if ([low, high].some((n) => Number.isInteger(n) && n > MAX_COPIES)) {
    throw new Error(`The count of ${piece.name} is too large: a piece has at most ` +
                    `${MAX_COPIES.toLocaleString("en-US")} copies.`);
  }
  if (!(whole(low, MAX_COPIES) && whole(high, MAX_COPIES) && low <= high) ||
      (Array.isArray(count) && count.length !== 2)) {
    throw new Error(`The count of ${piece.name} is not a whole number of copies (nor the ` +
                    "fewest and the most, in that order).");
  }
  return [low, high];
}

// The board's fields as the engine's sweep cover takes them, with each group's label
// names: {grid, cells, pieces, groups, faceUp, labels, neighbours}. A label of a group
// that is on no cell is refused in a sentence.
export function boardInput(fields) {
  const grid = fields.grid || "square";
  const cells = [];
  const at = {};
  (fields.board || []).forEach((row, r) => String(row).trim().split(/\s+/).forEach((t, c) => {
    if (t === "#" || t === "") return;
    const cell = tokenCell(grid, r, c);
    cells.push(cell);
    if (t === ".") return;
    if (t in at) throw new Error(`Label ${t} is drawn on two cells of the board.`);
    at[t] = cell;
  }));
  const names = Object.entries(fields.groups || {});
  const grouped = new Set(names.flatMap(([, labels]) => labels.map(String)));
  const loose = Object.keys(at).find((label) => !grouped.has(label));
  if (loose !== undefined) {
    throw new Error(`Label ${loose} is on the board but in no group: add it to a group, or ` +
                    "make its cell a plain one.");
  }
  for (const [group, labels] of names) {
    if (group in DATE_GROUPS && labels.length !== DATE_GROUPS[group]) {
      throw new Error(`The group ${group} must hold ${DATE_GROUPS[group]} labels in ` +
                      `calendar order, not ${labels.length}.`);
    }
  }
  const seen = {};
  const groups = names.map(([group, labels]) => labels.map((label) => {
    if (!(String(label) in at)) {
      throw new Error(`Label ${label} of the group ${group} is on no cell of the board.`);
    }
    if (String(label) in seen) {
      throw new Error(`Label ${label} is in two groups (${seen[label]} and ${group}); a ` +
                      "label belongs to one.");
    }
    seen[String(label)] = group;
    return at[String(label)];
  }));
  const combinations = groups.reduce((n, group) => n * group.length, 1);
  if (combinations > MAX_COMBINATIONS) {
    throw new Error(`The groups make ${combinations.toLocaleString("en-US")} label ` +
                    `combinations; the editor counts at most ` +
                    `${MAX_COMBINATIONS.toLocaleString("en-US")}.`);
  }
  const pieces = (fields.pieces || []).map((piece) => {
    const [low, high] = bounds(piece);
    const cells = pieceCells(piece);
    if (!cells.length || !cells.every((cell) => Array.isArray(cell) && cell.length === 2 &&
                                       cell.every((n) => Number.isSafeInteger(n)))) {
      throw new Error(`The cells of ${piece.name} are not pairs of whole numbers.`);
    }
    // (a piece's own turns, else the board's: as the spec reads them)
    return {cells, low, count: high, rotate: (piece.rotate ?? fields.rotate) !== false,
            flip: (piece.flip ?? fields.flip) !== false};
  });
  return {grid, cells, pieces, groups, faceUp: false,
          labels: names.map(([, labels]) => labels.map(String)),
          neighbours: gridNeighbours(grid)};
}

// The board's arithmetic as the server says it (board.arithmetic): the cells left to
// cover (the board less one label per group) against the pieces' area.
export function arithmetic(fields) {
  const input = boardInput(fields);
  const cells = input.cells.length;
  const cover = cells - input.groups.length;
  let low = 0, high = 0;
  for (const piece of fields.pieces || []) {
    const [a, b] = bounds(piece);
    const area = pieceCells(piece).length;
    low += area * a; high += area * b;
  }
  const area = low === high ? `${low}` : `${low} to ${high}`;
  const fits = low <= cover && cover <= high;
  const message = fits
    ? `the pieces cover ${area} cells and ${cover} are left to cover (${cells} cells less ` +
      "one label per group): the area matches"
    : cover > high
      ? `${cover} cells are left to cover but the pieces cover at most ${high}: ` +
        `${cover - high} cells too many, so no combination can be solved`
      : `${cover} cells are left to cover but the pieces cover at least ${low}: ` +
        `${low - cover} cells too few, so no combination can be solved`;
  const combinations = input.groups.reduce((n, group) => n * group.length, 1);
  return {fits, message, combinations};
}

let counted = 0;  // the counts asked: each count's questions are a kind of their own
// The cells of a board whose count may be split between two workers (worker.js's
// LARGE_BOARD, from which its splitOf splits a board).
const SPLIT_CELLS = 48;

// Where a sweep's tasks run, by the native sweep's rule (scheduling.py's tasks_stay_here,
// cold: a worker other than the first starts on an empty table, and meets the sub-boards
// the first one has kept again): the first task on one worker, the second there too, then
// the next ones there as long as those left would take less than TALLY_FORK_REST seconds
// and twice the first task's at the pace of the last one (the table warmed by the first
// makes them quick), or always when the first took less than TALLY_FORK_AFTER; then the
// rest shared among the workers. A task's seconds are its search's nodes at NODE_SECONDS
// each, not the clock's (the native rule counts CPU seconds: on a busy machine the clock
// runs on while the worker waits for a core, and would share the tasks out the more, the
// busier the machine), so a board's tasks are dealt the same way at any load.
const TALLY_FORK_AFTER = 1.0;  // as scheduling.TALLY_FORK_AFTER
const TALLY_FORK_REST = 8.0;   // as scheduling.TALLY_FORK_REST
// The WebAssembly build's CPU seconds a node on the weekday board: 0.7 to 1.3 millionths
// (the same JavaScript engine outside the browser, and the browser's workers, on the
// 2-core machine).
const NODE_SECONDS = 1e-6;
export function tasksStayHere(first, last, left) {
  return first < TALLY_FORK_AFTER || last === null ||
    left * last < TALLY_FORK_REST + 2 * first;
}

// Every label combination's count of the board, from the pool's workers: onRows(rows)
// with each task's rows ({labels, count}, labels in group order) as the task ends. Ends
// when all are counted; an aborted signal ends its workers' searches (AbortError). On
// two workers, a large board that the worker splits (the weekday calendar) is counted in
// its two parts, one a worker (countParts: 2.5 million nodes on each table against 4.3
// million on one); else the tasks run as tasksStayHere says: on the weekday calendar all
// on one worker's table, as the native sweep runs them in one process (two workers'
// tables would each meet the sub-boards below the months: 7 million nodes in all).
export async function countBoard(pool, fields, onRows, signal) {
  const input = boardInput(fields);
  const text = JSON.stringify(input);
  const serial = ++counted;
  const runs = [{}, {}];  // the workers the tasks run on (of each part), their tables warm
  const made = pool.ask(`board:${serial}`, "sweep", text, text, {task: null}, signal,
                        undefined, {run: runs[0]});
  // A large board on two workers or more: a second worker makes the board's second part
  // (worker.js's splitOf) beside the first, to count it at once if the board is split.
  if (pool.size >= 2 && input.cells.length >= SPLIT_CELLS) {
    pool.ask(`board:${serial}:second`, "sweep", text, text, {task: null, part: 1}, signal,
             undefined, {run: runs[1]}).catch(() => {});
  }
  const {fixed, split} = await made;
  const labels = JSON.parse(text).labels;
  let tasks = [[]];
  for (const g of fixed) {
    tasks = tasks.flatMap((task) => labels[g].map((_, i) => [...task, i]));
  }
  // First one combination of the first task, a small search, for a first row at once
  // (as the server's stream): its row is not handed on again with its task.
  const shown = new Set();
  const hand = ({rows}) => {
    if (signal.aborted) return;
    const fresh = rows.filter(({labels}) => !shown.has(labels.join("\n")));
    for (const {labels} of fresh) shown.add(labels.join("\n"));
    if (fresh.length) onRows(fresh);
  };
  // The preview and the first task wait for the worker that made the board (its engine
  // loaded, its plan made and its search compiled): a worker started for it would take
  // longer to begin.
  const run = runs[0];
  const preview = fixed.length < labels.length
    ? [pool.ask(`board:${serial}:preview`, "sweep", text, text,
                {task: tasks[0], preview: true}, signal, undefined, {run, waits: true})
      .then(hand)]
    : [];
  preview.forEach((asked) => asked.catch(() => {}));  // (awaited below)
  if (split && runs[1].slot && tasks.length > 1) {
    await Promise.all([...preview, countParts(pool, text, serial, tasks, runs, hand, signal)]);
    return;
  }
  const task = (k) => pool.ask(`board:${serial}:${k}`, "sweep", text, text, {task: tasks[k]},
                               signal, undefined, {run, waits: k === 0});
  // each next task asked before the rows of the one before are shown (the worker does not
  // wait for the drawing)
  let k = 0, first = null, next = task(0);
  while (next) {
    const answer = await next;
    const took = answer.spent.nodes * NODE_SECONDS;
    const left = tasks.length - ++k;
    let stays = left > 0;
    if (first === null) first = took;
    else if (left >= 2 && !tasksStayHere(first, took, left)) stays = false;
    next = stays ? task(k) : null;
    hand(answer);
  }
  const rest = tasks.slice(k).map((_, j) => task(k + j).then(hand));
  await Promise.all([...preview, ...rest]);
}

// A large board's tasks on two workers, each of its two parts (the worker's split: one
// piece's early placements forced, or left out) on one worker's table (``runs``: the one
// that made the board and the one that made its second part), task after task: a task's
// rows are the sum of its two parts', handed on once both are counted. Each next task is
// asked before the rows of the one before are shown (the worker does not wait for the
// drawing).
async function countParts(pool, text, serial, tasks, runs, hand, signal) {
  const found = [[], []];
  let failed = false;  // (the other part asks no more once one fails)
  const part = async (p) => {
    const ask = (k) => pool.ask(`board:${serial}:${p}:${k}`, "sweep", text, text,
                                {task: tasks[k], part: p}, signal, undefined,
                                {run: runs[p], waits: true});
    let next = ask(0);
    for (let k = 0; k < tasks.length && !failed; ++k) {
      const asked = next;
      next = k + 1 < tasks.length ? ask(k + 1) : null;
      next?.catch(() => {});  // (awaited in turn, unless this one fails first)
      found[p][k] = await asked;
      const other = found[1 - p][k];
      if (other) {
        hand({rows: other.rows.map(({labels, count}, x) => ({
          labels, count: count + found[p][k].rows[x].count}))});
      }
    }
  };
  await Promise.all([part(1), part(0)].map((asked) => asked.catch((err) => {
    failed = true;
    throw err;
  })));
}

// --- the design question: which sets of the candidates work --------------------------

// Sets the engine in this browser tries: the weekday designs' thousands included (a served
// editor's server tries at most designing.MAX_SETS). The verdicts come as they are decided,
// with the progress and the stop of any design question.
const MAX_SETS = 100_000;
const SETS_A_QUESTION = 4;  // sets a worker decides in one question
// ... and learns the order of dates from in one turn (a weekday calendar's first sets take
// a tenth of a second each or more: the progress moves every second or two)
const LEARNT_A_TURN = 16;
// ... one on a board this large (the weekday calendar, 50 cells: a working set counted in
// full takes half a minute), so that the progress moves set by set
const LARGE_DESIGN = 48;
let designed = 0;  // the design questions asked: each one's questions are a kind of their own

const choices = (n, k) => {
  let ways = 1;
  for (let i = 1; i <= k; i++) ways = ways * (n - k + i) / i;
  return Math.round(ways);
};

// A design question ({board: the fields with the candidates as pieces, always: names, choose,
// require}) as the workers read it: the board as boardInput reads it, each piece with its
// name and copies (its most), those not marked always leftOut, nFixed (those marked always
// lead, each in the board's order) and the required label combinations (indices, one a
// group, in the groups' order; real dates are those of a leap year). Refused before any work,
// in the server's words (web/designing.py): a board that is not square, too many sets, a
// calendar with no dates asked for its real dates.
export function designInput({board, always, choose, require}) {
  const grid = board.grid || "square";
  if (grid !== "square") {
    throw new Error(`the design question draws polyominoes: it needs a square board, not ` +
                    `a ${grid} one`);
  }
  const given = board.pieces || [];
  const fixed = given.filter((p) => always.includes(p.name));
  const others = given.filter((p) => !always.includes(p.name));
  for (const {name, count = 1} of fixed) {  // (as the design spec says it)
    if (Array.isArray(count)) {
      throw new Error(`piece '${name}' has a count range; in a design every ` +
                      "piece has one count (draw optional pieces with a pool's count range)");
    }
  }
  for (const {name, count = 1} of others) {  // (as web/designing.py says it)
    if (count === 1) continue;
    const copies = Array.isArray(count) ? `${count[0]} to ${count[1]}` : count;
    throw new Error(`${name} is a candidate with ${copies} copies: a set takes each ` +
                    "candidate once; mark it always to use its copies, or keep one");
  }
  const input = boardInput({...board, pieces: [...fixed, ...others]});
  const sets = choices(others.length, choose);
  if (sets > MAX_SETS) {
    throw new Error(`that is ${sets.toLocaleString("en-US")} sets to try; the editor tries ` +
                    `at most ${MAX_SETS.toLocaleString("en-US")} (run cpmodels design on the ` +
                    "saved board for more)");
  }
  const names = Object.keys(board.groups || {});
  let required = [[]];
  for (const labels of input.labels) {
    required = required.flatMap((combo) => labels.map((_, i) => [...combo, i]));
  }
  if (require !== "all-combinations") {
    const dates = names.includes("month") && names.includes("day") &&
      names.every((g) => g in DATE_GROUPS);
    if (!dates) throw new Error(`${board.name} has no dates; use require: all-combinations`);
    const [month, day] = ["month", "day"].map((g) => names.indexOf(g));
    required = required.filter((combo) => {
      const date = new Date(Date.UTC(2000, combo[month], combo[day] + 1));
      return date.getUTCMonth() === combo[month];
    });
  }
  const pieces = input.pieces.map((piece, k) => {
    const {name} = k < fixed.length ? fixed[k] : others[k - fixed.length];
    return {...piece, low: piece.count, name, leftOut: k >= fixed.length};
  });
  return {...input, pieces, nFixed: fixed.length, choose, required};
}

// The design question's answer from the pool's workers, in the shape of the server's
// stream (POST api/board/design): onLine({candidates, skipped_as_equal}), then, while the
// order of dates is learnt from the first sets, {learning, of} (the page's own line: the
// server learns it before its stream starts), then each set's verdict as a worker decides
// it (a few sets a question, the questions dealt to the pool), then {done, candidates,
// working: the working sets ranked (the most solutions on their hardest date, then the
// most in all), seconds}. An aborted signal ends its workers'
// searches (AbortError).
export async function designBoard(pool, question, onLine, signal) {
  // Its questions end with the caller's signal, and all of them once one fails: the rest
  // (thousands of untimed sets) would hold the workers with no one to stop them.
  const ending = new AbortController();
  const end = () => ending.abort();
  if (signal.aborted) end();
  else signal.addEventListener("abort", end, {once: true});
  try {
    await decideSets(pool, question, onLine, ending.signal);
  } catch (err) {
    end();
    throw err;
  } finally {
    signal.removeEventListener("abort", end);
  }
}

// designBoard's work, its questions asked with ``signal``.
async function decideSets(pool, question, onLine, signal) {
  const start = performance.now();
  const input = designInput(question);
  const text = JSON.stringify(input);
  const {counts = true, first = null} = question;
  const each = counts && input.cells.length >= LARGE_DESIGN ? 1 : SETS_A_QUESTION;
  const serial = ++designed;
  // (no time limit on the design question's answers: a weekday calendar's board takes
  // longer to make and a set of it to count than any one question of the heatmap; the
  // progress is shown and Stop ends it)
  const untimed = {untimed: true};
  // (and how many of the first sets the order of dates is learnt from: the core's rule)
  const asked_for = choices(input.pieces.length - input.nFixed, input.choose);
  const {sets, skipped, learnFrom} = await pool.ask(`design:${serial}`, "sets", text, text,
                                                    {asked: asked_for}, signal, undefined,
                                                    untimed);
  onLine({candidates: sets.length, skipped_as_equal: skipped});
  // The order of required combinations learnt first, by one worker, from the first sets
  // (as `cpmodels design` learns it, so every verdict names the same first failure); the
  // sets that passed while it was learnt are not decided again.
  const learnt_by = learnOrder(pool, serial, text, sets.slice(0, learnFrom), onLine, signal);
  // (meanwhile another worker makes the board, so that it starts deciding at once)
  const warm = pool.ask(`design:${serial}:warm`, "design", text, text, {sets: []}, signal,
                        undefined, untimed);
  warm.catch(() => {});  // (its failure is met below, after the learning's, if that passes)
  const {learnt, passed} = await learnt_by;
  const deciding = first === null ? sets : sets.slice(0, first);
  const verdicts = [];
  const asked = [];
  for (let k = 0; k < deciding.length; k += each) {
    asked.push(pool.ask(`design:${serial}:${k}`, "design", text, text,
                        {sets: deciding.slice(k, k + each), learnt, counts,
                         passed: passed.slice(k, k + each)}, signal, undefined, untimed)
      .then((found) => {
        if (signal.aborted) return;
        for (const verdict of found) { verdicts.push(verdict); onLine(verdict); }
      }));
  }
  await Promise.all([...asked, warm]);
  const working = verdicts.filter((v) => v.works).sort((a, b) =>
    (b.min - a.min) || (b.total - a.total) || earlierNames(a.pieces, b.pieces))
    .map((v) => Object.fromEntries(Object.entries(v).filter(([k]) => k !== "first_failure")));
  const line = {done: true, candidates: verdicts.length, working,
                seconds: Math.round(performance.now() - start) / 1000};
  if (!sets.length) {
    const cells = JSON.parse(text);
    line.message = `no set of the pieces asked for covers the ${cells.cells.length -
      cells.groups.length} cells the board leaves to cover: none has that area`;
  }
  onLine(line);
}

// The order of required combinations learnt from ``sets`` (the first candidates), in turns
// of LEARNT_A_TURN sets on one worker, each going on from the order the turns before it
// learnt, so that the order is the one a single question would learn; after each turn the
// progress: {learning: the sets tried, of: all of them}.
async function learnOrder(pool, serial, text, sets, onLine, signal) {
  let learnt = null;
  const passed = [];
  const run = {};  // (the turns go to the worker that took the last: its tables are warm)
  for (let k = 0; k < sets.length; k += LEARNT_A_TURN) {
    const turn = await pool.ask(`design:${serial}:learn:${k}`, "design", text, text,
                                {sets: sets.slice(k, k + LEARNT_A_TURN), learn: true, learnt},
                                signal, undefined, {untimed: true, run});
    learnt = turn.learnt;
    passed.push(...turn.passed);
    onLine({learning: passed.length, of: sets.length});
  }
  return {learnt, passed};
}

// -1, 0 or 1 as the names ``a`` come before, with or after ``b`` (as Python orders lists).
function earlierNames(a, b) {
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  return a.length - b.length;
}

// The footer's words for the editor whose counts come from the engine.
export function footerText(workers, staticSite) {
  const rest = staticSite
    ? ", and so does the design question (Try them); DXF and the prints need the cpmodels " +
      "server (cpmodels serve); the laser's SVG is made here."
    : "; the other answers from the cpmodels server.";
  return `Counts come from the engine in this browser (${plural(workers, "worker")})${rest}`;
}
