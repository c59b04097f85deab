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
    return {cells, low, count: high, flip: fields.flip !== false};
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

// Every label combination's count of the board, from the pool's workers: onRows(rows)
// with each task's rows ({labels, count}, labels in group order) as the task ends. Ends
// when all are counted; an aborted signal ends its workers' searches (AbortError).
export async function countBoard(pool, fields, onRows, signal) {
  const text = JSON.stringify(boardInput(fields));
  const serial = ++counted;
  const {fixed} = await pool.ask(`board:${serial}`, "sweep", text, text, {task: null},
                                 signal);
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
  const preview = fixed.length < labels.length
    ? [pool.ask(`board:${serial}:preview`, "sweep", text, text,
                {task: tasks[0], preview: true}, signal).then(hand)]
    : [];
  await Promise.all([...preview, ...tasks.map((task, k) =>
    pool.ask(`board:${serial}:${k}`, "sweep", text, text, {task}, signal).then(hand))]);
}

// The footer's words for the editor whose counts come from the engine.
export function footerText(workers, staticSite) {
  const rest = staticSite
    ? "designing, DXF and the prints need the cpmodels server (cpmodels serve); the " +
      "laser's SVG is made here."
    : "the other answers from the cpmodels server.";
  return `Counts come from the engine in this browser (${plural(workers, "worker")}); ${rest}`;
}
