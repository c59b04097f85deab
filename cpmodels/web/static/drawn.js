// A board drawn in the editor and shared as a link (#board=...), read for the play page
// where no server is (the static site): its fields checked as the server's editor checks
// them (board.board_spec: the spec's validation, worded as wording.py words it), and the
// puzzle it makes listed as the server lists it (puzzles.listing), with its pieces'
// letters (spec.letters) and colours (scene.piece_colours) and what the engine's workers
// need to lay it out and plan it (the core's play layout and sweep cover).
// A board refused throws an Error whose message is the server's sentence(s).
import {gridNeighbours, tokenCell} from "./cells.js";
import {sentence} from "./words.js";

// The server's bounds (board.py, spec/base.py, spec/pieces.py).
const MAX_CELLS = 400;
const MAX_COMBINATIONS = 20_000;
const MAX_PLACEMENTS = 250_000;
const TURNS = {square: 8, triangle: 12, hex: 12};
const MAX_BOARD_SIDE = 200;
const MAX_PIECE_SIDE = 50;
const MAX_COUNT = 1000;
const MAX_COORDINATE = 10_000;
const MAX_NAME = 40;
const MAX_PROBLEMS = 4;
const DATE_GROUPS = {month: 12, day: 31, weekday: 7};
const GRIDS = ["square", "triangle", "hex", "cube"];
const COORDINATES = {square: "[row, col]", triangle: "[row, col]", hex: "[q, r]",
                     cube: "[x, y, z]"};
const FIELDS = ["name", "description", "grid", "rotate", "flip", "pieces", "kind", "board",
                "groups"];
const PIECE_KEYS = ["name", "shape", "cells", "layers", "count", "rotate", "flip", "letter"];
const EMPTY = {
  pieces: "The board has no pieces yet: add at least one piece.",
  groups: "The board has no label groups yet: add a group and label cells with it.",
  board: "The board has no cells yet: put cells on the board.",
};
// scene.piece_colours: matplotlib's tab20, its light half first.
const COLOURS = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
  "#c7c7c7", "#dbdb8d", "#9edae5", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const LETTER_POOL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const DRAWN = "drawn-";

// --- words as the server's ----------------------------------------------------------------

// A capital first letter and a full stop (wording.sentence).

// A string as Python's repr writes it.
export function pyRepr(text) {
  const s = String(text);
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = [...s].map((ch) => {
    if (ch === "\\") return "\\\\";
    if (ch === quote) return `\\${quote}`;
    if (ch === "\n") return "\\n";
    if (ch === "\t") return "\\t";
    if (ch === "\r") return "\\r";
    const code = ch.codePointAt(0);
    if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, "0")}`;
    return ch;
  }).join("");
  return `${quote}${body}${quote}`;
}

const grouped = (n) => n.toLocaleString("en-US");
// A list as Python's str writes it ([0, 1]).
const listText = (cell) => `[${cell.join(", ")}]`;

// A field by what it is to a person (wording.place).
function place(path) {
  if (!path.length) return "The board";
  const [head, ...rest] = path;
  if (head === "pieces" && rest.length && typeof rest[0] === "number") {
    const names = rest.slice(1).filter((k) => typeof k === "string");
    return names.length ? `Piece ${rest[0] + 1}'s ${names[0]}` : `Piece ${rest[0] + 1}`;
  }
  if (head === "board" && rest.length && typeof rest[0] === "number") {
    return `Row ${rest[0] + 1} of the board`;
  }
  if (head === "groups" && rest.length) {
    const group = `the group "${String(rest[0]).slice(0, 40)}"`;
    if (rest.length > 1 && typeof rest[1] === "number") return `Label ${rest[1] + 1} of ${group}`;
    return group[0].toUpperCase() + group.slice(1);
  }
  const fields = {pieces: "The pieces", groups: "The label groups", board: "The board",
                  name: "The board's name", grid: "The grid", flip: "Turning pieces over",
                  rotate: "Turning pieces", kind: "The kind of puzzle",
                  description: "The description"};
  return fields[head] || `The board's ${String(head).replace(/_/g, " ").slice(0, 40)}`;
}

// A problem as wording.problem_sentence says it: a kind of its own ({kind, path, ...}) or a
// validator's reason (kind "value").
function said({path, kind, reason = "", min = 1, max = 0, expected = ""}) {
  const where = place(path);
  if ((kind === "too_short" || kind === "missing") && path.length === 1 && path[0] in EMPTY) {
    return EMPTY[path[0]];
  }
  if (kind === "missing") return sentence(`${where} is missing`);
  if (kind === "extra") {
    return sentence(`${place(path.slice(0, -1))} has ${pyRepr(String(path.at(-1)).slice(0, 40))}` +
                    ", which a board does not take");
  }
  if (kind === "too_short") {
    return sentence(min === 1 ? `${where} is empty` : `${where} needs at least ${min}`);
  }
  if (kind === "too_long") return sentence(`${where} is too long: at most ${max} characters`);
  if (kind === "pattern") return sentence(`${where} must be one word, with no spaces, '/' or '#'`);
  if (kind === "literal") return sentence(`${where} must be ${expected}`);
  if (kind === "type") return sentence(`${where} must be ${expected}`);
  if (reason.startsWith("the piece is not connected")) {
    return sentence(`${place(path.slice(0, 2))} is not connected: its cells must touch side ` +
                    "to side");
  }
  return sentence(path.length > 1 ? `${where}: ${reason}` : reason);
}

export {said as problemSentence};

// A refusal of the board: its problems said, four at most and the rest counted.
function refuse(problems) {
  const sentences = [...new Set(problems.map(said))];
  const more = sentences.length - MAX_PROBLEMS;
  const rest = more > 0 ? ` And ${more} more problem${more > 1 ? "s" : ""} after these.` : "";
  return new Error(sentences.slice(0, MAX_PROBLEMS).join(" ") + rest);
}

// --- what the server refuses of any body (limits.parse_json, files.lone_surrogate) -------

const MAX_JSON_DEPTH = 32;
const LONE_HALF = /[\ud800-\udfff]/u;  // (a pair's two halves are one character to it)
const LONE_SURROGATE = "The text holds half of a UTF-16 surrogate pair alone (an escape " +
  "such as \\ud800 without its other half), which is no character; write the character " +
  "itself.";

// A board's JSON that no request could carry, in the server's words, or "": nested too
// deeply, or a text (a key or a value) holding half of a surrogate pair, which no UTF-8
// text holds. Without recursion.
function unreadable(data) {
  let deepest = 0, lone = false;
  const todo = [[data, 1]];
  while (todo.length) {
    const [item, depth] = todo.pop();
    if (typeof item === "string") {
      lone ||= LONE_HALF.test(item);
    } else if (item !== null && typeof item === "object") {
      deepest = Math.max(deepest, depth);
      if (depth > MAX_JSON_DEPTH) continue;
      const values = Array.isArray(item) ? item : [...Object.keys(item), ...Object.values(item)];
      for (const value of values) todo.push([value, depth + 1]);
    }
  }
  if (deepest > MAX_JSON_DEPTH) {
    return `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`;
  }
  return lone ? LONE_SURROGATE : "";
}

// --- the spec's fields checked (spec/calendar.py, spec/pieces.py, spec/base.py) ----------

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isWhole = (v) => typeof v === "number" && Number.isInteger(v) && Math.abs(v) < 2 ** 63;
// A bool as the spec reads one (true or false alone), else undefined.
function boolOf(v) {
  return typeof v === "boolean" ? v : undefined;
}

// White space as the server reads it: Python's str.split() (PY_SPACE), and the validator's
// \s in a name's pattern (Unicode's White_Space: the same but U+001C-U+001F).
const UNICODE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
const SPACE_RUN = new RegExp(`[${UNICODE_SPACE}\x1c-\x1f]+`, "u");
const NAME = new RegExp(`^[^${UNICODE_SPACE}/#]+$`, "u");

// A name (spec/base.py's Name): its problem, or null.
function nameProblem(value, path) {
  if (typeof value !== "string") return {path, kind: "type", expected: "text"};
  if (!value.length) return {path, kind: "too_short"};
  if ([...value].length > MAX_NAME) return {path, kind: "too_long", max: MAX_NAME};
  if (!NAME.test(value)) return {path, kind: "pattern"};
  return null;
}

// A drawing given as one string (rows between '/' or newlines) as its rows.
function rowsOf(value) {
  if (typeof value !== "string") return value;
  const text = value.replace(/^\n+|\n+$/g, "");
  return text.includes("\n") ? text.split("\n") : text.split("/");
}

// A board row's tokens, between runs of what Python's str.split() takes for white space
// (JavaScript's \s differs: it takes U+FEFF, and not U+0085 nor U+001C-U+001F).
const tokens = (row) => row.split(SPACE_RUN).filter(Boolean);

// Cells joined by edges of grid (its neighbours' offsets by tile, api/grids).
function connected(cells, grid) {
  if (!cells.length) return false;
  const near = gridNeighbours(grid);
  const all = new Set(cells.map(String));
  const seen = new Set([String(cells[0])]);
  const stack = [cells[0]];
  while (stack.length) {
    const [a, b] = stack.pop();
    for (const [da, db] of near[a & 1][b & 1]) {
      const key = `${a + da},${b + db}`;
      if (all.has(key) && !seen.has(key)) {
        seen.add(key);
        stack.push([a + da, b + db]);
      }
    }
  }
  return seen.size === all.size;
}

function squareConnected(cells) {
  const all = new Set(cells.map(String));
  const seen = new Set([String(cells[0])]);
  const stack = [cells[0]];
  while (stack.length) {
    const [a, b] = stack.pop();
    for (const [da, db] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
      const key = `${a + da},${b + db}`;
      if (all.has(key) && !seen.has(key)) { seen.add(key); stack.push([a + da, b + db]); }
    }
  }
  return seen.size === all.size;
}

// A piece's fields: its problems appended; the piece read ({name, cells, form, low, high,
// rotate, flip, letter}) when it has none.
function readPiece(value, i, problems) {
  const at = (...rest) => ["pieces", i, ...rest];
  if (!isObject(value)) {
    problems.push({path: at(), kind: "type", expected: "named fields"});
    return null;
  }
  const before = problems.length;
  if (!("name" in value)) problems.push({path: at("name"), kind: "missing"});
  else {
    const bad = nameProblem(value.name, at("name"));
    if (bad) problems.push(bad);
  }
  let shapeCells = null;
  if ("shape" in value && value.shape !== null) {
    const rows = rowsOf(value.shape);
    if (!Array.isArray(rows)) problems.push({path: at("shape"), kind: "type", expected: "a list"});
    else if (!rows.length) problems.push({path: at("shape"), kind: "too_short"});
    else if (!rows.every((r) => typeof r === "string")) {
      rows.forEach((r, k) => {
        if (typeof r !== "string") problems.push({path: at("shape", k), kind: "type", expected: "text"});
      });
    } else {
      const badRow = rows.findIndex((r) => [...r].some((ch) => !"#. ".includes(ch)));
      if (badRow >= 0) {
        const bad = [...new Set([...rows[badRow]].filter((ch) => !"#. ".includes(ch)))].sort();
        problems.push({path: at("shape"), kind: "value", reason: `row ${badRow + 1} has ` +
          `${bad.map(pyRepr).join(", ")}; draw squares with '#' and empty places with '.'`});
      } else if (rows.length > MAX_PIECE_SIDE || Math.max(...rows.map((r) => [...r].length)) >
                 MAX_PIECE_SIDE) {
        problems.push({path: at("shape"), kind: "value",
                       reason: `a piece is at most ${MAX_PIECE_SIDE} squares on a side`});
      } else {
        shapeCells = [];
        rows.forEach((row, r) => [...row].forEach((ch, c) => {
          if (ch === "#") shapeCells.push([r, c]);
        }));
        if (!shapeCells.length) {
          problems.push({path: at("shape"), kind: "value",
                         reason: "the piece has no squares; draw them with '#'"});
        } else if (!squareConnected(shapeCells)) {
          problems.push({path: at("shape"), kind: "value", reason: "the piece is not connected"});
        }
      }
    }
  }
  let cells = null;
  if ("cells" in value && value.cells !== null) {
    cells = readCells(value.cells, at("cells"), problems);
  }
  let low = 1, high = 1;
  if ("count" in value) {
    const count = value.count;
    const whole = (x) => Number.isInteger(x);  // (however large: said to be too large below)
    if (!(whole(count) || (Array.isArray(count) && count.every(whole)))) {
      problems.push({path: at("count"), kind: "value", reason: "give a count: a number of " +
                     "copies, or [min, max] for a piece used a range of times"});
    } else if (!Array.isArray(count)) {
      if (count < 1 || count > MAX_COUNT) {
        problems.push({path: at("count"), kind: "value",
                       reason: `give a count from 1 to ${MAX_COUNT}, or a range [min, max]`});
      }
      low = high = count;
    } else {
      if (count.length !== 2 || !(count[0] >= 0 && count[0] <= count[1]) ||
          !(count[1] >= 1 && count[1] <= MAX_COUNT)) {
        problems.push({path: at("count"), kind: "value", reason: "a range is [min, max] with " +
                       `0 <= min <= max and 1 <= max <= ${MAX_COUNT}, e.g. [0, 1] for a piece ` +
                       "that may be left out"});
      }
      [low, high] = count;
    }
  }
  const turns = {};
  for (const key of ["rotate", "flip"]) {
    if (value[key] === undefined || value[key] === null) continue;
    turns[key] = boolOf(value[key]);
    if (turns[key] === undefined) {
      problems.push({path: at(key), kind: "type", expected: "true or false"});
    }
  }
  if ("letter" in value && value.letter !== null) {
    const letter = value.letter;
    if (typeof letter !== "string") {
      problems.push({path: at("letter"), kind: "type", expected: "text"});
    } else if (![...letter].length) {
      problems.push({path: at("letter"), kind: "too_short"});
    } else if ([...letter].length > 1) {
      problems.push({path: at("letter"), kind: "too_long", max: 1});
    }
  }
  for (const key of Object.keys(value)) {
    if (!PIECE_KEYS.includes(key)) problems.push({path: at(key), kind: "extra"});
  }
  if (problems.length > before) return null;
  const given = ["shape", "cells", "layers"].filter((k) => value[k] !== undefined &&
                                                          value[k] !== null);
  if (given.length !== 1) {
    problems.push({path: at(), kind: "value", reason: "give the piece as one of 'shape' (a " +
                   "drawing, square grid), 'cells' (coordinates, any grid) or 'layers' (cube " +
                   `grid)${given.length ? `, not ${given.join(" and ")}` : ""}`});
    return null;
  }
  if (given[0] === "layers") return {name: value.name, form: "layers", cells: [], low, high};
  const own = shapeCells ? normalizeSquare(shapeCells) : cells;
  // the piece as the spec keeps it (its JSON names the drawn puzzle)
  const kept = {name: value.name, shape: given[0] === "shape" ? rowsOf(value.shape) : null,
                cells: given[0] === "cells" ? value.cells : null, layers: null,
                count: value.count ?? 1, rotate: turns.rotate ?? null, flip: turns.flip ?? null,
                letter: value.letter ?? null};
  return {name: value.name, form: given[0], cells: own, low, high, rotate: turns.rotate,
          flip: turns.flip, letter: value.letter ?? null, kept};
}

function normalizeSquare(cells) {
  const r0 = Math.min(...cells.map((c) => c[0]));
  const c0 = Math.min(...cells.map((c) => c[1]));
  return cells.map(([r, c]) => [r - r0, c - c0]);
}

// A piece's cells given as coordinates (_check_coordinates), or null with a problem.
function readCells(value, path, problems) {
  if (!Array.isArray(value)) {
    problems.push({path, kind: "type", expected: "a list"});
    return null;
  }
  for (const cell of value) {
    if (!Array.isArray(cell)) {
      problems.push({path, kind: "type", expected: "a list"});
      return null;
    }
    if (!cell.every((x) => isWhole(x))) {
      problems.push({path, kind: "type", expected: "a whole number"});
      return null;
    }
  }
  const reason = (text) => { problems.push({path, kind: "value", reason: text}); return null; };
  if (!value.length) return reason("no cells; list them as coordinates, e.g. [[0, 0], [0, 1]]");
  const most = MAX_PIECE_SIDE ** 2;
  if (value.length > most) {
    return reason(`${grouped(value.length)} cells; at most ${grouped(most)}`);
  }
  const seen = new Set();
  for (const [i, cell] of value.entries()) {
    if (cell.length !== 2 && cell.length !== 3) {
      return reason(`cell ${i} is ${listText(cell)}: a cell is [a, b] on a plane grid or ` +
                    "[x, y, z] on the cube grid");
    }
    if (cell.length !== value[0].length) {
      return reason(`cell ${i} is ${listText(cell)} but cell 0 is ${listText(value[0])}: give ` +
                    "every cell the same number of coordinates");
    }
    if (cell.some((x) => Math.abs(x) > MAX_COORDINATE)) {
      return reason(`cell ${i} is ${listText(cell)}: coordinates are at most ` +
                    `${grouped(MAX_COORDINATE)} in size`);
    }
    if (seen.has(String(cell))) return reason(`cell ${listText(cell)} is listed twice`);
    seen.add(String(cell));
  }
  return value;
}

// The board's fields as the server's editor reads them (board.board_spec, but for the
// pieces' fit and checkLimits): the calendar {name, grid, rotate, flip, pieces, board,
// groups, cells, labelCells}, or an Error with the server's words.
export function readBoard(fields) {
  const unread = unreadable(fields);
  if (unread) throw new Error(unread);
  if (!isObject(fields)) throw new Error("A board is a JSON object of a calendar spec's fields.");
  if ((fields.kind === undefined ? "calendar" : fields.kind) !== "calendar") {
    throw new Error("The editor draws calendars: kind must be 'calendar'.");
  }
  const board = fields.board;
  if (Array.isArray(board) &&
      board.reduce((n, row) => n + tokens(pyStr(row)).length, 0) > MAX_CELLS * 4) {
    throw new Error(`The board has more than ${MAX_CELLS} cells.`);
  }
  const data = {name: "my-board", ...fields, kind: "calendar"};
  const problems = [];
  // The fields in the spec's order: name, description, grid, rotate, flip, pieces, board,
  // groups; then the fields it does not take.
  const bad = nameProblem(data.name, ["name"]);
  if (bad) problems.push(bad);
  if ("description" in data && typeof data.description !== "string") {
    problems.push({path: ["description"], kind: "type", expected: "text"});
  }
  const grid = data.grid === undefined ? "square" : data.grid;
  if (!GRIDS.includes(grid)) {
    problems.push({path: ["grid"], kind: "literal",  // (the editor draws no cube board)
                   expected: "'square', 'triangle' or 'hex'"});
  }
  const turns = {rotate: true, flip: grid !== "cube"};
  for (const key of ["rotate", "flip"]) {
    if (data[key] === undefined) continue;
    turns[key] = boolOf(data[key]);
    if (turns[key] === undefined) {
      problems.push({path: [key], kind: "type", expected: "true or false"});
    }
  }
  let pieces = null;
  if (data.pieces === undefined) problems.push({path: ["pieces"], kind: "missing"});
  else if (!Array.isArray(data.pieces)) {
    problems.push({path: ["pieces"], kind: "type", expected: "a list"});
  }
  else if (!data.pieces.length) problems.push({path: ["pieces"], kind: "too_short"});
  else {
    const before = problems.length;
    pieces = data.pieces.map((piece, i) => readPiece(piece, i, problems));
    if (problems.length === before) {
      const names = new Set();
      const letters = new Set();
      for (const p of pieces) {
        if (names.has(p.name)) {
          problems.push({path: ["pieces"], kind: "value",
                         reason: `two pieces are named ${pyRepr(p.name)}; names must be unique`});
          break;
        }
        names.add(p.name);
        if (p.letter !== null && p.letter !== undefined) {
          if (letters.has(p.letter)) {
            problems.push({path: ["pieces"], kind: "value",
                           reason: `two pieces are drawn with letter ${pyRepr(p.letter)}`});
            break;
          }
          letters.add(p.letter);
        }
      }
    }
  }
  const rows = boardRows(data.board);
  if (rows === undefined) problems.push({path: ["board"], kind: "missing"});
  else if (!Array.isArray(rows)) problems.push({path: ["board"], kind: "type", expected: "a list"});
  else if (!rows.length) problems.push({path: ["board"], kind: "too_short"});
  else if (!rows.every((r) => typeof r === "string")) {
    rows.forEach((r, k) => {
      if (typeof r !== "string") problems.push({path: ["board", k], kind: "type", expected: "text"});
    });
  } else {
    const widths = rows.map((r) => tokens(r).length);
    if (rows.length > MAX_BOARD_SIDE || Math.max(...widths) > MAX_BOARD_SIDE) {
      problems.push({path: ["board"], kind: "value",
                     reason: `a board is at most ${MAX_BOARD_SIDE} tokens on a side`});
    } else {
      const odd = widths.findIndex((w) => w !== widths[0]);
      if (odd >= 0) {
        problems.push({path: ["board"], kind: "value", reason: `row ${odd + 1} has ` +
                       `${widths[odd]} tokens but row 1 has ${widths[0]}; pad short rows ` +
                       "with '#' so every row has the same width"});
      }
    }
  }
  const groups = readGroups(data.groups, problems);
  for (const key of Object.keys(data)) {
    if (!FIELDS.includes(key)) problems.push({path: [key], kind: "extra"});
  }
  if (problems.length) throw refuse(problems);
  const spec = {name: data.name, description: data.description ?? "", grid, ...turns,
                pieces, board: rows, groups};
  checkLabels(spec);
  return spec;
}

// Python's str of a row (board_spec counts str(row).split() before validating).
function pyStr(value) {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return JSON.stringify(value) ?? "";
}

// A board given as one string (rows between newlines) as its rows (spec/pieces.py's
// _board_rows).
function boardRows(value) {
  return typeof value === "string" ? value.replace(/^\n+|\n+$/g, "").split("\n") : value;
}

// The label groups (names of lists of names; day numbers may be whole numbers).
function readGroups(value, problems) {
  if (value === undefined) { problems.push({path: ["groups"], kind: "missing"}); return null; }
  if (!isObject(value)) {
    problems.push({path: ["groups"], kind: "type", expected: "named fields"});
    return null;
  }
  const entries = Object.entries(value);
  if (!entries.length) { problems.push({path: ["groups"], kind: "too_short"}); return null; }
  const before = problems.length;
  const groups = {};
  for (const [name, labels] of entries) {
    const bad = nameProblem(name, ["groups", name]);
    if (bad) problems.push(bad);
    if (!Array.isArray(labels)) {
      problems.push({path: ["groups", name], kind: "type", expected: "a list"});
      continue;
    }
    groups[name] = labels.map((label, i) => {
      const text = isWhole(label) ? String(label) : label;
      const wrong = nameProblem(text, ["groups", name, i]);
      if (wrong) problems.push(wrong);
      return text;
    });
  }
  if (problems.length > before) return null;
  const seen = {};
  for (const [name, labels] of Object.entries(groups)) {
    const fail = (reason) => { problems.push({path: ["groups"], kind: "value", reason}); };
    if (!labels.length) { fail(`group ${pyRepr(name)} has no labels`); return null; }
    for (const label of labels) {
      if (label in seen) {
        const where = seen[label] === name ? "twice in" : `in ${pyRepr(seen[label])} and`;
        fail(`label ${pyRepr(label)} appears ${where} group ${pyRepr(name)}`);
        return null;
      }
      seen[label] = name;
    }
    if (name in DATE_GROUPS && labels.length !== DATE_GROUPS[name]) {
      fail(`group ${pyRepr(name)} must list ${DATE_GROUPS[name]} labels in calendar order, ` +
           `not ${labels.length}`);
      return null;
    }
  }
  return groups;
}

// The calendar's own checks (CalendarSpec._check_labels), in its order; the cells and the
// labels' cells added to the spec.
function checkLabels(spec) {
  const inGroup = new Set(Object.values(spec.groups).flat());
  const placed = {};
  spec.board.forEach((row, r) => tokens(row).forEach((token, c) => {
    if (token === "#" || token === ".") return;
    if (!inGroup.has(token)) {
      throw refuse([{path: ["board", r], kind: "value", reason: `label ${pyRepr(token)} ` +
        `(column ${c + 1}) is in no group; add it to 'groups' or draw a plain cell with '.'`}]);
    }
    if (token in placed) {
      throw refuse([{path: ["board", r], kind: "value",
                     reason: `label ${pyRepr(token)} is drawn twice`}]);
    }
    placed[token] = tokenCell(spec.grid, r, c);
  }));
  const missing = [...inGroup].filter((label) => !(label in placed)).sort();
  if (missing.length) {
    throw refuse([{path: ["groups"], kind: "value",
                   reason: `labels not drawn on the board: ${missing.join(", ")}`}]);
  }
  if (spec.grid === "cube") {
    throw refuse([{path: ["grid"], kind: "value",
                   reason: "a calendar is drawn in the plane: use grid square, triangle or hex"}]);
  }
  spec.pieces.forEach((piece, i) => {
    const path = ["pieces", i, piece.form];
    const geo = spec.grid;
    if (piece.form === "shape" && geo !== "square") {
      throw refuse([{path, kind: "value", reason: "a drawing is read on the square grid; on " +
                     `the ${geo} grid give the piece's 'cells' as ${COORDINATES[geo]}`}]);
    }
    if (piece.form === "layers") {
      throw refuse([{path, kind: "value", reason: `'layers' is for the cube grid; on the ` +
        `${geo} grid give the piece's 'cells' as ${COORDINATES[geo]}` +
        (geo === "square" ? " or draw it" : "")}]);
    }
    const odd = piece.cells.find((cell) => cell.length !== 2);
    if (odd) {
      throw refuse([{path, kind: "value", reason: `cell ${listText(odd)} has ${odd.length} ` +
                     `coordinates; on the ${geo} grid a cell is ${COORDINATES[geo]}`}]);
    }
    if (!connected(piece.cells, geo)) {
      throw refuse([{path, kind: "value", reason: "the piece is not connected"}]);
    }
  });
  spec.cells = [];
  spec.board.forEach((row, r) => tokens(row).forEach((token, c) => {
    if (token !== "#") spec.cells.push(tokenCell(spec.grid, r, c));
  }));
  spec.labelCells = placed;
  areaCheck(spec);
}

// Whether some choice of copies covers ``need`` cells (PieceSetSpec.covers_exactly).
function coversExactly(pieces, need) {
  let reachable = new Uint8Array(need + 1);
  reachable[0] = 1;
  for (const p of pieces) {
    const step = new Uint8Array(need + 1);
    const area = p.cells.length;
    for (let k = p.low; k <= p.high && k * area <= need; ++k) {
      for (let n = 0; n + k * area <= need; ++n) if (reachable[n]) step[n + k * area] = 1;
    }
    reachable = step;
  }
  return reachable[need] === 1;
}

function areaCheck(spec) {
  const cells = spec.cells.length;
  const uncovered = Object.keys(spec.groups).length;
  const need = cells - uncovered;
  if (need >= 0 && coversExactly(spec.pieces, need)) return;
  let detail = `${cells} cells`;
  if (uncovered) detail += `, ${uncovered} of them uncovered, leaving ${need} to fill`;
  const low = spec.pieces.reduce((n, p) => n + p.cells.length * p.low, 0);
  const high = spec.pieces.reduce((n, p) => n + p.cells.length * p.high, 0);
  const cover = low === high ? `cover ${high}`
    : low <= need && need <= high
      ? `cover from ${low} to ${high} (but no choice of copies within the counts covers ${need})`
      : `cover from ${low} to ${high}`;
  throw refuse([{path: ["pieces"], kind: "value", reason: `the pieces ${cover} cells but the ` +
                 `board has ${detail}; add or remove pieces or board cells`}]);
}

// The spec's last check (its _fit_check), said: piece ``index`` (of ``size``: its rows x
// columns on the square grid, else its cells) fits nowhere on the board, as a worker of
// the engine finds.
export function fitsNowhere(spec, {index, size}) {
  return refuse([{path: ["pieces", index], kind: "value",
                  reason: `piece ${pyRepr(spec.pieces[index].name)} (${size}) fits nowhere ` +
                    `on the board${spec.rotate ? "" : " (rotate is false)"}`}]);
}

// The editor's own limits (board.board_spec), past the spec's checks (and the pieces'
// fit, which the engine's workers check): an Error with the server's words.
export function checkLimits(spec) {
  const n = spec.cells.length;
  if (n > MAX_CELLS) {
    throw new Error(`The board has ${grouped(n)} cells; the editor takes at most ${MAX_CELLS}.`);
  }
  const placements = n * spec.pieces.length * (TURNS[spec.grid] ?? 12);
  if (placements > MAX_PLACEMENTS) {
    throw new Error(`${spec.pieces.length} kinds of piece on ${n} cells may have ` +
                    `${grouped(placements)} placements; the editor takes at most ` +
                    `${grouped(MAX_PLACEMENTS)} (fewer kinds of piece, or a smaller board).`);
  }
  const combos = Object.values(spec.groups).reduce((k, labels) => k * labels.length, 1);
  if (combos > MAX_COMBINATIONS) {
    throw new Error(`The groups make ${grouped(combos)} label combinations; the editor counts ` +
                    `at most ${grouped(MAX_COMBINATIONS)}.`);
  }
  return spec;
}

// --- the puzzle it makes -------------------------------------------------------------------

// One distinct letter per piece (PieceSetSpec.letters): its own, else a letter of its name,
// else one of the pool.
export function letters(pieces) {
  const taken = new Set(pieces.filter((p) => p.letter).map((p) => p.letter));
  const result = {};
  for (const p of pieces) {
    if (p.letter) { result[p.name] = p.letter; continue; }
    const upper = [...p.name.toUpperCase()].filter((ch) => /^\p{L}$/u.test(ch));
    const found = [...upper, ...LETTER_POOL].find((ch) => !taken.has(ch));
    if (found === undefined) { result[p.name] = "?"; continue; }
    taken.add(found);
    result[p.name] = found;
  }
  return result;
}

// A colour per piece, in order (scene.piece_colours).
export function colours(names) {
  return Object.fromEntries(names.map((name, i) => [name, COLOURS[i % COLOURS.length]]));
}

// SHA-256 of a text's UTF-8 bytes, in hex (FIPS 180-4; crypto.subtle is not on every
// static host: it needs https).
export function sha256(text) {
  const bytes = new TextEncoder().encode(text);
  const k = [];
  const h = [];
  const fraction = (x) => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
  for (let n = 2; k.length < 64; ++n) {
    if ([...Array(n - 2)].some((_, d) => n % (d + 2) === 0)) continue;
    if (h.length < 8) h.push(fraction(Math.sqrt(n)));
    k.push(fraction(Math.cbrt(n)));
  }
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 2 ** 29));
  view.setUint32(padded.length - 4, (bytes.length * 8) >>> 0);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < padded.length; at += 64) {
    for (let t = 0; t < 64; ++t) {
      if (t < 16) w[t] = view.getUint32(at + 4 * t);
      else {
        const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
        const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
      }
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let t = 0; t < 64; ++t) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                  k[t] + w[t]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((x, i) => { h[i] = (h[i] + x) >>> 0; });
  }
  return h.map((x) => x.toString(16).padStart(8, "0")).join("");
}

// The name Puzzles.drawn gives a drawn board: "drawn-" and the start of the SHA-256 of the
// spec's JSON (model_dump_json: every field in the spec's order, compact).
function drawnName(spec) {
  const kept = {name: spec.name, description: spec.description, grid: spec.grid,
                rotate: spec.rotate, flip: spec.flip, pieces: spec.pieces.map((p) => p.kept),
                kind: "calendar", board: spec.board, groups: spec.groups};
  return DRAWN + sha256(JSON.stringify(kept)).slice(0, 12);
}

const hasDates = (groups) => {
  const names = Object.keys(groups);
  return names.includes("month") && names.includes("day") &&
    names.every((g) => g in DATE_GROUPS);
};

// A link's board as the page plays it: the listing (puzzles.listing of the drawn spec,
// named as Puzzles.drawn names it) and what the
// engine's workers lay out and plan: {grid, cells, labels, pieces, groups, groupNames,
// letters, copies, flip}; and the spec read (for checkLimits). An Error with the server's
// words for a board it refuses.
export function drawnPuzzle(fields) {
  const spec = readBoard(fields);
  const name = drawnName(spec);
  const description = `${spec.name}, drawn in the editor`;
  const canFlip = spec.pieces.some((p) => (p.flip ?? spec.flip));
  const groupNames = Object.keys(spec.groups);
  const lettered = letters(spec.pieces);
  const coloured = colours(spec.pieces.map((p) => p.name));
  const listing = {name, title: description, description, groups: spec.groups, flip: canFlip,
                   today: Object.values(spec.groups).map((labels) => labels[0]),
                   dates: hasDates(spec.groups)};
  const board = {
    spec: name, grid: spec.grid, cells: spec.cells, labels: spec.labelCells,
    pieces: spec.pieces.map((p) => ({name: p.name, letter: lettered[p.name],
      colour: coloured[p.name], count: p.high, low: p.low, cells: p.cells,
      rotate: p.rotate ?? spec.rotate, flip: p.flip ?? spec.flip})),
    groups: groupNames.map((g) => spec.groups[g].map((label) => spec.labelCells[label])),
    groupNames,
    letters: spec.pieces.map((p) => p.name),
    copies: Object.fromEntries(spec.pieces.map((p) => [p.name, p.high])),
    flip: canFlip,
    neighbours: gridNeighbours(spec.grid),
  };
  return {spec, listing, board};
}
