// The board editor: draw a calendar board, label its cells in groups, pick its pieces;
// every edit checks the board's arithmetic at once and counts every label combination:
// with the engine in this browser when it loads (counts.js: the tasks in a pool of
// workers), else streamed by the server (POST api/board/counts); the previous count is
// cancelled. On a static site the check is what the page can say itself (the board's
// arithmetic, the core's refusals). Cells are drawn where
// the server draws them (cells.js). The board's fields (spec), the state, and the pure
// helpers the tests call are exported.
import {base64url} from "./base64url.js";
import {bounds, cellCorners, loadDrawings, tokenCell} from "./cells.js";
import {arithmetic, countBoard, designBoard, footerText, openPool} from "./counts.js";
import {$, SVG_NS, onStaticSite, registerOffline} from "./dom.js";
import {linkedBoard, said, sentence} from "./words.js";

// pieces: the board's own; candidates: the pool the design question chooses sets from,
// kept apart so that asking never changes the board.
export const state = { grid: "square", rows: 7, cols: 7, tokens: [], groups: {}, pieces: [],
                candidates: [], name: "my-calendar" };
let stream = null;      // the AbortController of the running count
let engine = Promise.resolve(null);  // the engine's pool of workers (null: the server counts)
let designing = null;   // ... and of the running design question
let pending = null;     // the debounce timer of the next check
let painting = null;    // while dragging over cells: the state being painted
let focused = [0, 0];   // the cell the keyboard is on
let pools = {};
const stats = {};       // label -> {min, sum, zero}
let combos = [];        // [labels, count] of every combination counted on this board
let unsolvableShown = null;  // the unsolvable combination marked on the board, or null
const edits = { past: [], future: [], shown: null };  // snapshots, for undo and redo
let revealNext = false;  // whether the count the last action started is brought into view
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const DATE_GROUPS = { month: 12, day: 31, weekday: 7 };  // the groups a real date fills

function emptyTokens(rows, cols) {
  return Array.from({ length: rows }, () => Array(cols).fill("#"));
}

const BOARD_SCALE = 1;    // the board's cells as the server draws them (a square: 40 px)
const PAD_SCALE = 0.55;   // the drawing pad's (22 px)
const PIECE_SCALE = 0.275;  // a piece's picture's (11 px)

// The corners of the cell of the token in row r and column c, in pixels.
function corners(r, c, scale) { return cellCorners(state.grid, tokenCell(state.grid, r, c), scale); }

function labelGroup(label) {
  return Object.keys(state.groups).find((g) => state.groups[g].includes(label));
}

function removeLabel(label) {
  for (const g of Object.keys(state.groups)) state.groups[g] = state.groups[g].filter((l) => l !== label);
}

// The heatmap's scale: a label's fewest solutions, from the smallest fewest of the board's
// solvable labels to the largest, in five steps on a square-root scale, each a green a clear
// step darker than the one before (their labels' text white on the two darkest); the legend
// prints the numbers of each step that colours a label.
function topOfScale() { return Math.max(...Object.values(stats).map((t) => t.min), 1); }
function bottomOfScale() {
  const solvable = Object.values(stats).filter((t) => !t.zero).map((t) => t.min);
  return Math.max(1, Math.min(...solvable, topOfScale()));
}

const HEAT_STEPS = ["#f7fcb9", "#bde293", "#78c679", "#238443", "#004529"];
const DARK_STEPS = 3;        // the steps from this one on carry white text
const UNSOLVABLE = "#e0606b";

// The fewest solutions each step starts at (the first: bottom), for a scale from bottom to
// top.
function stepStarts(bottom, top) {
  return HEAT_STEPS.map((_, k) => (k === 0 ? bottom
    : Math.max(bottom, bottom + Math.ceil((top - bottom) * (k / HEAT_STEPS.length) ** 2))));
}

function heatStep(min, starts) { return starts.filter((start) => start <= min).length - 1; }

function heat(label) {
  const s = stats[label];
  if (!s) return null;
  if (s.zero) return { colour: UNSOLVABLE, step: -1 };
  const step = heatStep(s.min, stepStarts(bottomOfScale(), topOfScale()));
  return { colour: HEAT_STEPS[step], step };
}

function countsText(token) {
  const s = stats[token];
  const group = labelGroup(token) || "no group";
  if (!s) return `${token} (${group})`;
  return `${token} (${group}): fewest ${s.min.toLocaleString()} solutions, ` +
    `${s.sum.toLocaleString()} in all` + (s.zero ? `, ${s.zero} combination${s.zero === 1 ? "" : "s"} with none` : "");
}

// The legend: the colours and the numbers they stand for.
function drawLegend() {
  const legend = $("legend");
  const labels = Object.keys(stats);
  if (!labels.length) { legend.replaceChildren(); legend.hidden = true; return; }
  legend.hidden = false;
  const top = topOfScale(), starts = stepStarts(bottomOfScale(), top);
  const used = new Set(labels.map((label) => heat(label).step));
  const swatch = (colour, text) => {
    const item = document.createElement("span");
    item.className = "swatch";
    const box = document.createElement("i");
    if (colour) box.style.background = colour; else box.className = "chosen";
    item.append(box, document.createTextNode(text));
    return item;
  };
  // each step that colours a label, with the numbers it stands for
  const items = HEAT_STEPS.map((colour, k) => {
    const last = k + 1 < starts.length ? starts[k + 1] - 1 : top;
    if (last < starts[k] || !used.has(k)) return null;  // a step that colours no label
    const text = last === starts[k] ? last.toLocaleString()
                                    : `${starts[k].toLocaleString()}\u2013${last.toLocaleString()}`;
    const item = swatch(colour, text);
    item.dataset.step = k;
    return item;
  }).filter(Boolean);
  const none = swatch(UNSOLVABLE, "a combination with no solution");
  const title = document.createElement("span");
  title.textContent = "fewest solutions:";
  const chosen = unsolvableShown ? [swatch(null, `chosen: ${unsolvableShown.join(" ")}`)] : [];
  legend.replaceChildren(title, ...items, none, ...chosen);
}

function draw() {
  const ns = SVG_NS;
  const svg = document.createElementNS(ns, "svg");
  const polygons = [];
  state.tokens.forEach((row, r) => row.forEach((token, c) => {
    const pts = corners(r, c, BOARD_SCALE);
    polygons.push(pts);
    const g = document.createElementNS(ns, "g");
    g.dataset.row = r; g.dataset.col = c; g.dataset.token = token;
    g.setAttribute("class", "cellgroup");
    g.setAttribute("tabindex", r === focused[0] && c === focused[1] ? "0" : "-1");
    g.setAttribute("role", "button");
    const labelled = token !== "#" && token !== ".";
    g.setAttribute("aria-label", `row ${r + 1}, column ${c + 1}: ${token === "#" ? "not on the board" : token === "." ? "a plain cell" : countsText(token)}`);
    const poly = document.createElementNS(ns, "polygon");
    poly.setAttribute("points", pts.map((p) => p.join(",")).join(" "));
    poly.setAttribute("class", "cell " + (token === "#" ? "off" : "on"));
    if (labelled) {
      const shown = heat(token);
      if (shown) {
        poly.style.fill = shown.colour;
        g.dataset.step = shown.step;
        if (shown.step >= DARK_STEPS) g.classList.add("dark");
      }
      const s = stats[token];
      if (s) { g.dataset.min = s.min; g.dataset.sum = s.sum; g.dataset.zero = s.zero; }
      if (s && s.zero) g.classList.add("unsolvable");
      if (unsolvableShown && unsolvableShown.includes(token)) g.classList.add("marked");
      const title = document.createElementNS(ns, "title");
      title.textContent = countsText(token);
      g.appendChild(title);
    }
    g.appendChild(poly);
    if (token !== "#" && token !== ".") {
      const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
      const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
      const text = document.createElementNS(ns, "text");
      text.setAttribute("x", cx); text.setAttribute("y", cy);
      text.setAttribute("class", "label-text"); text.textContent = token;
      g.appendChild(text);
    }
    svg.appendChild(g);
  }));
  for (const g of [...svg.querySelectorAll(".marked")]) svg.appendChild(g);  // drawn on top
  const box = bounds(polygons);
  svg.setAttribute("viewBox", `${box.x - 2} ${box.y - 2} ${box.w + 4} ${box.h + 4}`);
  svg.setAttribute("width", box.w + 4);
  svg.addEventListener("keydown", keyed);
  svg.addEventListener("focusin", (e) => { const g = e.target.closest(".cellgroup"); if (g) showCell(g); });
  svg.addEventListener("pointerdown", (e) => { const g = e.target.closest(".cellgroup"); if (g) { e.preventDefault(); press(g, true); } });
  svg.addEventListener("pointerover", (e) => { const g = e.target.closest(".cellgroup"); if (g && painting !== null && e.buttons) press(g, false); });
  const hadFocus = $("board").contains(document.activeElement);
  $("board").replaceChildren(svg);
  if (hadFocus) svg.querySelector('.cellgroup[tabindex="0"]')?.focus();
  drawLegend();
}

// A cell's counts in words, under the board: on a tap with the counts tool, and on
// keyboard focus (a phone has no hover for the tooltip).
function showCell(g) {
  const token = g.dataset.token;
  $("cellinfo").textContent = token === "#" ? "" : token === "." ? "a plain cell, to be covered"
                                                                 : countsText(token);
}

// By keyboard: the arrow keys move between cells, Enter or Space uses the tool on one.

function keyed(e) {
  const g = e.target.closest(".cellgroup");
  if (!g) return;
  const r = +g.dataset.row, c = +g.dataset.col;
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (e.key in moves) {
    const [dr, dc] = moves[e.key];
    focused = [Math.max(0, Math.min(state.rows - 1, r + dr)), Math.max(0, Math.min(state.cols - 1, c + dc))];
    e.preventDefault();
    draw();
    $("board").querySelector(`.cellgroup[data-row="${focused[0]}"][data-col="${focused[1]}"]`).focus();
  } else if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    focused = [r, c];
    const token = state.tokens[r][c];
    if (tool() === "cells" && token !== "#" && token !== ".") {
      $("cellinfo").textContent = `${token} is a label: Delete takes its cell off the board`;
      return;
    }
    press(g, true);
    painting = null;
    commit();
  } else if (e.key === "Delete" || e.key === "Backspace") {
    e.preventDefault();
    focused = [r, c];
    const token = state.tokens[r][c];
    if (token === "#") return;
    if (token !== ".") removeLabel(token);
    state.tokens[r][c] = "#";
    edited();
  }
}

function tool() { return document.querySelector("input[name=tool]:checked").value; }

// A stroke of the cells tool is one step to undo.
document.addEventListener("pointerup", () => { if (painting !== null) { painting = null; commit(); } });

function press(g, first) {
  const r = +g.dataset.row, c = +g.dataset.col, token = state.tokens[r][c];
  if (tool() === "counts") { showCell(g); reveal($("cellinfo")); return; }
  if (tool() === "cells") {
    if (first) painting = token === "#" ? "." : "#";
    if (token !== "#" && token !== "." && painting === "#") {
      removeLabel(token);
      $("cellinfo").textContent = `${token} taken off the board with its cell; Undo brings it back`;
    } else if (token !== "#" && token !== ".") return;  // a stroke putting cells in keeps labels
    state.tokens[r][c] = painting;
  } else {
    const label = $("label").value.trim();
    const group = $("group").value;
    if (!label || /\s/.test(label) || label === "#" || label === "." || !group) {
      sayError("type a label (no spaces) and choose its group first");
      return;
    }
    removeLabel(label);
    state.tokens.forEach((row, rr) => row.forEach((t, cc) => { if (t === label) state.tokens[rr][cc] = "."; }));
    if (token !== "#" && token !== ".") removeLabel(token);
    state.tokens[r][c] = label;
    state.groups[group].push(label);
    $("label").value = nextLabel(label);
  }
  edited();
}

// The label after this one: 1 -> 2, Jan -> Feb, Mon -> Tue, so a run of days, months or
// weekdays is labelled by clicking alone.
function nextLabel(label) {
  if (/^\d+$/.test(label)) return String(+label + 1);
  for (const run of [MONTHS, WEEKDAYS]) {
    const k = run.findIndex((name) => name.toLowerCase() === label.toLowerCase());
    if (k >= 0) return k + 1 < run.length ? run[k + 1] : "";
  }
  return "";
}

// --- what the page says: errors, refused fields, notices, answers brought into view -----

// Every error the editor shows passes here. For a field with a sentence of its own
// (#ID-problem), the field is marked invalid and the sentence said next to it; else the
// message goes in the box where (the errors under the board unless said). "" clears it.
function sayError(message, where = $("errors")) {
  const problem = where.id ? document.getElementById(`${where.id}-problem`) : null;
  if (!problem) { where.textContent = message; return; }
  problem.textContent = message;
  problem.hidden = !message;
  if (message) {
    where.setAttribute("aria-invalid", "true");
    where.setAttribute("aria-describedby", problem.id);
  } else {
    where.removeAttribute("aria-invalid");
    where.removeAttribute("aria-describedby");
  }
}

// What each number field takes: whole numbers (rows, columns, how many to choose) or
// decimals (the make's sizes, in mm), from min to max.
const NUMBER_FIELDS = { rows: { min: 1, max: 20, whole: true }, cols: { min: 1, max: 20, whole: true },
                        choose: { min: 1, max: 99, whole: true }, cellmm: { min: 5, max: 100 },
                        kerf: { min: 0, max: 1 } };
const SHEET_SIDE = 10000;  // mm, the longest side of a sheet the make takes
// make's sizes (cpmodels.make.MakeOptions' defaults: cell, kerf, clearance, sheet, gap,
// margin, in mm), written into the page by the server (web/routes/pages.py's editor_page).
const MAKE_SIZES = JSON.parse(document.getElementById("make-sizes").textContent);
const SHEET_MARGIN = MAKE_SIZES.margin;  // mm the files keep clear along a sheet's edges

// The number a field's text says, or null: digits alone (and one decimal point where
// fractions are taken), from min to max. Nothing else is read as a number.
export function numberIn(text, { min, max, whole = false }) {
  const t = String(text).trim();
  const form = whole ? /^\d{1,6}$/ : /^(?:\d{1,6}(?:\.\d{0,6})?|\.\d{1,6})$/;
  if (!form.test(t)) return null;
  const n = Number(t);
  return n >= min && n <= max ? n : null;
}

function rangeSentence({ min, max, whole = false }) {
  return `type ${whole ? "a whole number" : "a number"} from ${min} to ${max.toLocaleString()}`;
}

// A number field's value, or null with the field refused in place (marked, and why).
function fieldNumber(id, limits = NUMBER_FIELDS[id]) {
  const n = numberIn($(id).value, limits);
  sayError(n === null ? rangeSentence(limits) : "", $(id));
  return n;
}

// A sheet's size as WxH in mm (600x400), each side 1 to SHEET_SIDE, or null.
export function sheetIn(text) {
  const m = String(text).trim().match(/^(\d{1,5}(?:\.\d{1,3})?)\s*[x\u00d7]\s*(\d{1,5}(?:\.\d{1,3})?)$/i);
  if (!m || [m[1], m[2]].some((side) => !(+side >= 1 && +side <= SHEET_SIDE))) return null;
  return `${+m[1]}x${+m[2]}`;
}

// The sheet field's size, or null with the field refused in place: a size it cannot read,
// or a sheet no larger than its margins (the make keeps SHEET_MARGIN mm clear on each side).
function fieldSheet(cell) {
  const sheet = sheetIn($("sheet").value);
  const least = 2 * SHEET_MARGIN;
  let problem = "";
  if (sheet === null) {
    problem = `type the sheet's width x height in mm, each from 1 to ` +
              `${SHEET_SIDE.toLocaleString()}, such as 600x400`;
  } else if (Math.min(...sheet.split("x").map(Number)) <= least) {
    problem = `The sheet must be larger than ${least} x ${least} mm${cell === null ? "" : ` for cells of ${cell} mm`}: ` +
              `the files keep ${SHEET_MARGIN} mm clear along each of its edges.`;
  }
  sayError(problem, $("sheet"));
  return problem ? null : sheet;
}

// A note on what an edit took away and how to get it back; "" takes the note away.
function notify(text) { $("notice").textContent = text; $("notice").hidden = !text; }

// The answer to the last action, brought into view where it is out of it (a phone): its
// bottom at the window's, so that the board above it shows too where there is room.
function reveal(box) {
  const r = box.getBoundingClientRect();
  if (r.top >= 0 && r.bottom <= window.innerHeight) return;
  box.scrollIntoView({ block: r.height > window.innerHeight ? "start" : "end" });
}

function drawGroups() {
  const chosen = $("group").value;
  $("group").replaceChildren(...Object.keys(state.groups).map((g) => new Option(g, g)));
  if (chosen in state.groups) $("group").value = chosen;
}

// A piece's cells in the spec's grid: its own list, or its square drawing read.
function pieceCells(piece) {
  if (piece.cells) return piece.cells;
  const cells = [];
  (piece.shape || []).forEach((row, r) => [...row].forEach((ch, c) => { if (ch === "#") cells.push([r, c]); }));
  return cells;
}

// A small picture of a piece on the current grid.
function pieceSvg(cells) {
  const ns = SVG_NS, svg = document.createElementNS(ns, "svg");
  const polys = cells.map((cell) => cellCorners(state.grid, cell, PIECE_SCALE));
  const xs = polys.flat().map((p) => p[0]), ys = polys.flat().map((p) => p[1]);
  const x0 = Math.min(...xs), y0 = Math.min(...ys);
  svg.setAttribute("width", Math.max(...xs) - x0 + 2); svg.setAttribute("height", Math.max(...ys) - y0 + 2);
  for (const pts of polys) {
    const poly = document.createElementNS(ns, "polygon");
    poly.setAttribute("points", pts.map(([x, y]) => `${x - x0 + 1},${y - y0 + 1}`).join(" "));
    poly.setAttribute("fill", "#c9a46a"); poly.setAttribute("stroke", "#fff");
    svg.appendChild(poly);
  }
  return svg;
}

function countText(count) { return Array.isArray(count) ? `${count[0]}-${count[1]}` : String(count); }

function drawPieces() {
  drawList($("inuse"), state.pieces, false);
  drawList($("candidates"), state.candidates, true);
  $("inuse-empty").hidden = state.pieces.length > 0;
  $("candidates-empty").hidden = state.candidates.length > 0;
}

// The board's pieces or the candidates: each with how many, and the candidates with
// "always" (in every set the design question tries).
function drawList(box, list, candidates) {
  box.replaceChildren(...list.map((p, k) => {
    const div = document.createElement("div");
    div.className = "piece"; div.dataset.piece = p.name;
    const input = document.createElement("input");
    input.value = countText(p.count); input.title = "how many: 1, 0-2 (a range); 0 takes it out";
    input.id = `count-${candidates ? "candidate" : "board"}-${p.name}`;
    input.inputMode = "numeric"; input.size = 4;
    input.setAttribute("aria-label", `how many ${p.name}${candidates ? " (candidate)" : ""}`);
    const problem = document.createElement("span");
    problem.className = "field-problem"; problem.id = `${input.id}-problem`; problem.hidden = true;
    input.addEventListener("change", () => {
      const m = input.value.trim().match(/^(\d{1,3})(?:\s*-\s*(\d{1,3}))?$/);
      if (!m || (m[2] !== undefined && +m[2] < +m[1])) {
        sayError("type how many: a number such as 2, or a range such as 0-2", input);
        return;
      }
      const count = m[2] === undefined ? +m[1] : [+m[1], +m[2]];
      if (count === 0) list.splice(k, 1); else p.count = count;
      drawPieces(); edited();
    });
    div.append(pieceSvg(pieceCells(p)), document.createTextNode(p.name), input, problem);
    if (candidates) {
      const always = document.createElement("label");
      const tick = document.createElement("input");
      tick.type = "checkbox"; tick.checked = !!p.always; tick.className = "always";
      tick.addEventListener("change", () => { p.always = tick.checked; commit(); });
      always.append(tick, document.createTextNode("always"));
      always.title = "in every set the design question tries";
      div.append(always);
    }
    return div;
  }));
}

function addPiece(list, piece) {
  const have = list.find((q) => q.name === piece.name);
  if (have) have.count = (Array.isArray(have.count) ? have.count[1] : have.count) + 1;
  else list.push({ ...piece, count: 1 });
}

function target() { return $("addto").value === "candidates" ? state.candidates : state.pieces; }

// The pools of the grid chosen; an answer for a grid no longer chosen is dropped.
async function loadPools() {
  const grid = state.grid;
  let answer;
  try { answer = await getJson(`api/board/pools/${encodeURIComponent(grid)}`); }
  catch (e) { if (grid === state.grid) sayError(e.message); return; }
  if (grid !== state.grid) return;
  pools = answer;
  const chosen = $("pool").value;  // the pool the designer chose stays chosen where it is one
  $("pool").replaceChildren(...Object.keys(pools).map((n) => new Option(n, n)));
  if (chosen in pools) $("pool").value = chosen;
  drawPool();
}

const MAX_YAML_BYTES = 64 * 1024;  // the server's body limit (app.MAX_BODY_BYTES)
const UNREACHABLE = "The server cannot be reached; check the connection and try again.";
const SERVER_ONLY = "This needs the cpmodels server: run cpmodels serve and open the " +
  "editor there (drawing works here without it).";
const MAKE_ON_SERVER = "The laser's SVG is made here, engraving and all; the DXF and the 3-D " +
  "prints (STL, 3MF) are made by the cpmodels server: Save YAML, then run cpmodels make on the " +
  "file, or run cpmodels serve and make them in its editor.";
const NO_GLYPHS = "The engraving's font could not be loaded, so the cut file was not made; " +
  "try again.";
// The glyph table the engraving is laid out in (make/glyphs.py's, DejaVu Sans Bold),
// fetched the first time a cut file is made.
const GLYPHS = new URL("engine/glyphs.bin", import.meta.url);
let glyphTable = null;
const NO_ENGINE_CUT = "This browser cannot run the engine (WebAssembly in workers), so the " +
  "cut file cannot be made here: " + "Save YAML, then run cpmodels make on the file.";
const SITE_CHECK = "Checking the board and counting its dates need the cpmodels server: " +
  "run cpmodels serve and open the editor there.";
const LOST = "The connection to the server was lost before the answer came; try again.";

// What went wrong with an answer that is not ok, as a sentence: the server's message.
async function failure(response) {
  const data = await response.json().catch(() => null);
  return said(data) || `The server could not answer (HTTP ${response.status}); try again in a moment.`;
}

// A GET's JSON answer, or an Error saying what went wrong.
async function getJson(url) {
  let response;
  try { response = await fetch(url); }
  catch (e) { throw new Error(UNREACHABLE); }
  if (!response.ok) throw new Error(await failure(response));
  return response.json();
}

function drawPool() {
  const list = pools[$("pool").value] || [];
  $("poolpieces").replaceChildren(...list.map((p) => {
    const b = document.createElement("button");
    b.className = "add-piece"; b.dataset.piece = p.name; b.title = `add ${p.name}`;
    b.append(pieceSvg(p.cells));
    b.append(document.createTextNode(p.name));
    b.addEventListener("click", () => {
      addPiece(target(), state.grid === "square" ? { name: p.name, shape: p.shape }
                                                 : { name: p.name, cells: p.cells });
      drawPieces(); edited();
    });
    return b;
  }));
}

function pieceFields(p) {
  return { name: p.name, ...(p.shape ? { shape: p.shape } : { cells: p.cells }),
           ...(countText(p.count) === "1" ? {} : { count: p.count }), ...turns(p) };
}

// A piece's own rotate and flip, where it gives them (a board opened keeps its pieces' turns).
function turns(p) {
  return Object.fromEntries(["rotate", "flip"].filter((k) => typeof p[k] === "boolean")
    .map((k) => [k, p[k]]));
}

// The board as a calendar spec's fields; with pieces given, those pieces instead of its own.
export function spec(pieces = state.pieces) {
  const out = { kind: "calendar", name: $("name").value.trim() || "my-calendar", grid: state.grid,
                board: state.tokens.map((row) => row.join(" ")), groups: state.groups,
                pieces: pieces.map(pieceFields) };
  if (!$("flip").checked) out.flip = false;
  if (state.rotate === false) out.rotate = false;
  return out;
}

// Whether the board's groups make a date calendar (as the spec reads it): month and day,
// and weekday at most besides.
function hasDates() {
  const names = Object.keys(state.groups);
  return "month" in state.groups && "day" in state.groups && names.every((g) => g in DATE_GROUPS);
}

// --- undo and redo: a snapshot of everything edited, after each step ------------------

function snapshot() {
  return JSON.stringify({ grid: state.grid, rows: state.rows, cols: state.cols, tokens: state.tokens,
                          groups: state.groups, pieces: state.pieces, candidates: state.candidates,
                          name: $("name").value, flip: $("flip").checked, rotate: state.rotate !== false });
}

const HISTORY_STEPS = 200;

function commit() {
  const now = snapshot();
  if (edits.shown === null) { edits.shown = now; return; }
  if (now === edits.shown) return;
  edits.past.push(edits.shown);
  if (edits.past.length > HISTORY_STEPS) edits.past.shift();
  edits.future = [];
  edits.shown = now;
  undoButtons();
}

function undoButtons() {
  $("undo").disabled = edits.past.length === 0;
  $("redo").disabled = edits.future.length === 0;
}

function travel(from, to) {
  if (!from.length) return;
  to.push(edits.shown);
  edits.shown = from.pop();
  const s = JSON.parse(edits.shown);
  const pooled = s.grid !== state.grid;
  Object.assign(state, { grid: s.grid, rows: s.rows, cols: s.cols, tokens: s.tokens, groups: s.groups,
                         pieces: s.pieces, candidates: s.candidates, rotate: s.rotate });
  showSize();
  $("name").value = s.name; $("flip").checked = s.flip;
  drawPieces();
  if (pooled) { loadPools(); clearPad(); }
  edited();
  undoButtons();
}

function undo() { travel(edits.past, edits.future); }
function redo() { travel(edits.future, edits.past); }

let generation = 0;     // each edit's number: answers to an older board are dropped
let askedAbout = null;  // the questionKey() of the sets listed, or null

// What the design question's answer depends on: everything but the board's own pieces.
function questionKey() {
  return JSON.stringify([state.grid, state.tokens, state.groups, $("flip").checked, state.rotate,
                         state.candidates, $("choose").value, $("require").value]);
}

// The ranked sets hold while only the board's pieces change (choosing a set is such an
// edit); a change of the cells, groups, turning over, candidates, the size of a set or the
// piece every set keeps makes them stale, and a question still running is ended.
function questionEdited() {
  if (askedAbout === null || askedAbout === questionKey()) return;
  if (designing) designing.abort();
  askedAbout = null;
  $("sets").replaceChildren(); $("designprogress").value = 0;
  delete $("designsummary").dataset.done;
  $("designsummary").textContent = "the board, the candidates or the sets asked for changed: ask again";
}

// The board changed: its counts and checks begin again, 120 ms after the last of a run of
// drawn changes, or at once (``atOnce``) for a board loaded whole.
function edited(atOnce = false) {
  generation += 1;
  revealNext = false; notify("");
  if (painting === null) commit();
  for (const k of Object.keys(stats)) delete stats[k];  // the old board's colours go at once
  combos = []; unsolvableShown = null;
  $("summary").textContent = ""; delete $("summary").dataset.done;
  $("unsolvable").replaceChildren(); $("progress").value = 0;
  draw(); drawGroups(); requireChoices();
  if (stream) { stream.abort(); stream = null; }
  questionEdited();
  markChosenSet();
  clearTimeout(pending);
  pending = setTimeout(check, atOnce ? 0 : 120);
}

async function check() {
  const mine = generation;
  $("summary").textContent = ""; $("unsolvable").replaceChildren(); $("progress").value = 0;
  delete $("summary").dataset.done;
  let answer;
  try {
    if (onStaticSite()) {  // what the page can say itself, with the engine; else nothing
      answer = (await engine) ? localCheck() : { valid: false, errors: [], message: "", site: true };
    } else {
      const response = await post("api/board/check", spec());
      answer = response.ok ? await response.json() : {failed: await failure(response)};
    }
  } catch (e) {
    if (mine === generation) sayError(UNREACHABLE);
    return;
  }
  if (mine !== generation) return;  // the board changed while it was checked
  if (answer.failed) { sayError(answer.failed); return; }
  const steps = nextSteps();
  $("guide").replaceChildren(...steps.map((step) => {
    const li = document.createElement("li"); li.textContent = step; return li;
  }));
  $("guide-box").hidden = steps.length === 0;
  // What the next steps already say is not repeated as an error.
  const errors = answer.valid ? [] : answer.errors
    .filter((e) => !(steps.length && isMissing(e))).map((e) => said(e));
  sayError(errors.join("\n"));
  $("arith").textContent = answer.site ? SITE_CHECK : answer.valid ? answer.message : "";
  if (answer.valid && answer.fits) count(answer.combinations, mine);
}

// The board's check without the server: its arithmetic once nothing is missing, or why
// it cannot be counted (counts.js: a label on no cell, drawn twice or in no group, ...).
function localCheck() {
  if (nextSteps().length) return { valid: false, errors: [] };
  try {
    return { valid: true, errors: [], ...arithmetic(spec()) };
  } catch (e) {
    return { valid: false, errors: [{ message: e.message }] };
  }
}

// The steps still to take, first to last, while the board is being made.
function nextSteps() {
  const cells = state.tokens.flat().filter((t) => t !== "#").length;
  const labels = state.tokens.flat().filter((t) => t !== "#" && t !== ".").length;
  const steps = [];
  if (!cells) steps.push("Put cells on the board: with \u201ccells in or out\u201d, click or drag over the grid.");
  if (!Object.keys(state.groups).length) {
    steps.push("Add a label group (type its name, then Add group): month and day make a date calendar.");
  }
  if (!labels) steps.push("Label cells: choose \u201clabel\u201d, a group and a label, then click a cell.");
  if (!state.pieces.length) steps.push("Add pieces: click them under Pieces; their cells must cover the board but one label per group.");
  return steps;
}

// Whether a board's error is that a part of it is still empty (the next steps say so).
function isMissing(e) {
  return ["pieces", "groups", "board"].includes(e.field) &&
    /at least 1 item|required field is missing/.test(String(e.error));
}

// A response's newline-delimited JSON, read as it comes: each chunk's whole lines go to
// onLines, which returns false to stop reading.
async function readLines(response, onLines) {
  const reader = response.body.getReader(), decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    const whole = buffer.split("\n");
    buffer = whole.pop();
    if (onLines(whole.filter((l) => l.trim()).map((l) => JSON.parse(l))) === false) return;
  }
}

// A POST to the server; on a static site (no server) an answer that says what the action
// needs, in the words the other refusals are said in.
function post(url, body, signal, raw = false) {
  if (onStaticSite()) {
    return Promise.resolve(new Response(JSON.stringify({ message: SERVER_ONLY }), {
      status: 503, headers: { "content-type": "application/json" } }));
  }
  return fetch(url, raw ? { method: "POST", body, signal } : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    signal });
}

async function count(total, mine) {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  $("progress").max = total;
  $("summary").textContent = `counting ${total.toLocaleString()} combinations\u2026`;
  const pool = await engine;
  if (mine !== generation) return;
  if (pool) { await engineCount(pool, total, mine, controller); return; }
  try {
    const response = await post("api/board/counts", spec(), controller.signal);
    if (!response.ok) { sayError(await failure(response)); return; }
    await readLines(response, (lines) => {
      if (mine !== generation) { controller.abort(); return false; }
      showRows(lines.filter((line) => line.labels), total);
      for (const line of lines) if (!line.labels) finish(line);
      return true;
    });
  } catch (e) {
    if (e.name !== "AbortError") sayError(LOST);
  } finally {
    if (stream === controller) stream = null;
  }
}

// The rows counted on this board so far ([labels, count] each, in the order they came).
export function countedRows() { return combos.map(([labels, n]) => [[...labels], n]); }

// Rows of the count ({labels, count}) on the heatmap, the legend and the progress.
function showRows(rows, total) {
  for (const line of rows) {
    combos.push([line.labels, line.count]);
    for (const label of line.labels) {
      const s = stats[label] || (stats[label] = { min: Infinity, sum: 0, zero: 0 });
      s.min = Math.min(s.min, line.count); s.sum += line.count; s.zero += line.count === 0;
    }
  }
  $("progress").value = combos.length;
  if (!$("summary").dataset.done) $("summary").textContent = `counting\u2026 ${combos.length.toLocaleString()} of ${total.toLocaleString()} combinations counted`;
  draw();
}

// The count by the engine in this browser: the same rows and summary as the server's
// stream. A count the engine cannot make is said (on the server, the server counts it).
async function engineCount(pool, total, mine, controller) {
  const start = performance.now();
  try {
    await countBoard(pool, spec(), (rows) => { if (mine === generation) showRows(rows, total); },
                     controller.signal);
    if (mine !== generation) return;
    const unsolvable = combos.filter(([, n]) => n === 0).map(([labels]) => labels)
      .sort((a, b) => (earlier(a, b, state.groups) ? -1 : earlier(b, a, state.groups) ? 1 : 0));
    const line = { done: true, combinations: combos.length, unsolvable,
                   seconds: Math.round(performance.now() - start) / 1000 };
    if (hasDates()) line.unsolvable_real_dates = unsolvable.filter(realDate);
    finish(line);
  } catch (e) {
    if (e.name === "AbortError" || mine !== generation) return;
    if (!onStaticSite()) {  // the server counts what the engine could not, and the rest
      engine = Promise.resolve(null);
      $("answers-by").textContent = "Answers come from the cpmodels server.";
      count(total, mine);
      return;
    }
    sayError(countSentence(e.message));
  } finally {
    if (stream === controller) stream = null;
  }
}

// Whether a month/day combination is a real date (of a leap year: Feb 29 is).
function realDate(labels) {
  const [month, day] = ["month", "day"].map((g) => state.groups[g].indexOf(
    labels.find((l) => state.groups[g].includes(l))));
  const date = new Date(Date.UTC(2000, month, day + 1));
  return month < 12 && date.getUTCMonth() === month;
}

// A message as a sentence for a person: a capital first letter and a full stop.
function countSentence(text) {
  return sentence(String(text).trim() || "The engine could not count this board");
}

function finish(line) {
  const summary = $("summary");
  if (!line.done) { summary.textContent = said(line) || "stopped"; return; }
  summary.dataset.done = "1";
  const every = line.unsolvable.length === 0;
  const [fewest, most] = extremes(combos, state.groups);
  const hard = fewest ? `hardest ${fewest[0].join(" ")} (${fewest[1].toLocaleString()})` : "";
  const easy = most ? `easiest ${most[0].join(" ")} (${most[1].toLocaleString()})` : "";
  let said = every ? "every combination is solvable"
                   : `${line.unsolvable.length} of ${line.combinations} combinations have no solution`;
  if (!every && line.unsolvable_real_dates) {
    const real = line.unsolvable_real_dates.length;
    said += real ? ` (${real} of them real dates)` : "; every real date is solvable";
  }
  summary.textContent = `${said}; ${hard}; ${easy} (ties go to the first in the groups' ` +
    `order); ${line.seconds} s`;
  showUnsolvable(line.unsolvable);
  if (revealNext) { revealNext = false; reveal($("count-answer")); }
}

// The order of a combination in groups (the board's): the first group's labels first.
function rank(labels, groups) {
  return Object.values(groups).map((names) => {
    const k = labels.findIndex((l) => names.includes(l));
    return k < 0 ? -1 : names.indexOf(labels[k]);
  });
}

function earlier(a, b, groups) {
  const [x, y] = [rank(a, groups), rank(b, groups)];
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k] < y[k];
  return false;
}

// The hardest solvable combination of combos ([labels, count] each) and the easiest, ties
// going to the first in the groups' order, so that the same board always names the same ones.
export function extremes(combos, groups) {
  let fewest = null, most = null;
  for (const combo of combos) {
    const [labels, n] = combo;
    if (n > 0 && (!fewest || n < fewest[1] || (n === fewest[1] && earlier(labels, fewest[0], groups)))) fewest = combo;
    if (!most || n > most[1] || (n === most[1] && earlier(labels, most[0], groups))) most = combo;
  }
  return [fewest, most];
}

// The unsolvable combinations, each a button that marks its labels on the board.
function showUnsolvable(unsolvable) {
  const box = $("unsolvable");
  if (!unsolvable.length) { box.replaceChildren(); return; }
  const head = document.createElement("span");
  head.textContent = "No solution (choose one to mark it on the board): ";
  box.replaceChildren(head, ...unsolvable.map((labels) => {
    const b = document.createElement("button");
    b.type = "button"; b.className = "combo"; b.textContent = labels.join(" ");
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => {
      const same = unsolvableShown && unsolvableShown.join(" ") === labels.join(" ");
      unsolvableShown = same ? null : labels;
      for (const other of box.querySelectorAll("button")) other.setAttribute("aria-pressed", String(!same && other === b));
      draw();
      reveal($("board"));
    });
    return b;
  }));
}

function load(fields) {
  $("link-notice").hidden = true;  // a link's board that could not be read is no longer shown
  state.grid = fields.grid || "square";
  state.name = fields.name || "my-calendar";
  const rows = (fields.board || []).map((r) => String(r).trim().split(/\s+/));
  state.rows = Math.max(1, rows.length); state.cols = Math.max(1, ...rows.map((r) => r.length));
  state.tokens = emptyTokens(state.rows, state.cols);
  rows.forEach((row, r) => row.forEach((t, c) => { state.tokens[r][c] = t; }));
  state.groups = {};
  for (const [g, labels] of Object.entries(fields.groups || {})) state.groups[g] = labels.map(String);
  state.pieces = (fields.pieces || []).map((p) => ({ name: p.name, count: p.count ?? 1,
    ...(p.cells ? { cells: p.cells } : { shape: typeof p.shape === "string" ? p.shape.split("/") : p.shape }),
    ...turns(p) }));
  state.rotate = fields.rotate !== false;
  state.candidates = [];
  $("flip").checked = fields.flip !== false;
  showSize();
  $("name").value = state.name;
  const had = edits.shown !== null && hadWork(JSON.parse(edits.shown));
  drawPieces(); loadPools(); edited(true);
  if (had) notify("The board you had was replaced; Undo (Ctrl+Z) brings it back.");
  revealNext = true;
}

// The grid and size fields as the state has them, no longer refused.
function showSize() {
  $("grid").value = state.grid; $("rows").value = state.rows; $("cols").value = state.cols;
  sayError("", $("rows")); sayError("", $("cols"));
}

// Whether a snapshot holds anything drawn or chosen.
function hadWork(s) {
  return s.tokens.flat().some((t) => t !== "#") || s.pieces.length > 0 || s.candidates.length > 0;
}

// The board at the size the fields say; a size refused leaves the board as it is.
function resize() {
  const rows = fieldNumber("rows"), cols = fieldNumber("cols");
  if (rows === null || cols === null || (rows === state.rows && cols === state.cols)) return;
  const tokens = emptyTokens(rows, cols), dropped = [];
  state.tokens.forEach((row, r) => row.forEach((t, c) => {
    if (r < rows && c < cols) tokens[r][c] = t;
    else if (t !== "#" && t !== ".") { removeLabel(t); dropped.push(t); }
  }));
  Object.assign(state, { rows, cols, tokens });
  edited();
  if (dropped.length) notify(`${dropped.join(" ")} fell outside the board and went with their cells; Undo (Ctrl+Z) brings them back.`);
}

async function init() {
  registerOffline();
  $("answers-by").textContent = onStaticSite()
    ? "A copy of the editor on a static site: drawing, saving and opening work here; " +
      "checking, counting, designing and the cut and print files need the cpmodels server " +
      "(cpmodels serve)."
    : "Answers come from the cpmodels server.";
  if (onStaticSite()) $("make").textContent = "Laser cut file (SVG)";
  engine = openPool();
  engine.then((pool) => {
    if (!pool) return;
    $("answers-by").textContent = footerText(pool.size, onStaticSite());
    pool.fill();  // (a large board's count starts on two workers at once: counts.js)
  });
  const [specs] = await Promise.all([getJson("api/specs"), loadDrawings()]);
  for (const s of specs.specs) {  // by title, as the play page lists them
    const option = new Option(s.title || s.name, s.name);
    option.title = s.description || s.name;
    $("start").append(option);
  }
  // The calendar to start from: the answer for the one chosen last, others dropped.
  $("start").addEventListener("change", async () => {
    const name = $("start").value;
    if (!name) { load({ board: [], groups: {}, pieces: [] }); return; }
    let fields;
    try { fields = await getJson(`api/board/start/${encodeURIComponent(name)}`); }
    catch (e) { if (name === $("start").value) sayError(e.message); return; }
    if (name === $("start").value) load(fields);
  });
  // A piece of one grid is no piece of another: switching grids takes them off, says so,
  // and Undo brings them back.
  $("grid").addEventListener("change", () => {
    const from = state.grid, dropped = state.pieces.length + state.candidates.length;
    state.grid = $("grid").value; state.pieces = []; state.candidates = [];
    drawPieces(); loadPools(); clearPad(); edited();
    if (dropped) {
      notify(`The ${from} grid's pieces (${dropped}) were taken off: they are not pieces of ` +
             `the ${state.grid} grid. Undo (Ctrl+Z) brings them back.`);
    }
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  document.addEventListener("keydown", (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.target.closest("input[type=text], input:not([type]), input[type=number], textarea")) return;
    const key = e.key.toLowerCase();
    if (key === "z" && !e.shiftKey) { e.preventDefault(); undo(); }
    else if (key === "y" || (key === "z" && e.shiftKey)) { e.preventDefault(); redo(); }
  });
  for (const radio of document.querySelectorAll("input[name=tool]")) {
    radio.addEventListener("change", () => { $("cellinfo").textContent = ""; });
  }
  $("flip").addEventListener("change", edited);
  $("padadd").addEventListener("click", addDrawnPiece);
  $("padclear").addEventListener("click", clearPad);
  $("play").addEventListener("click", playIt);
  $("make").addEventListener("click", makeFiles);
  $("design").addEventListener("click", runDesign);
  $("require").addEventListener("change", () => {
    $("require").dataset.chosen = "1"; questionEdited();
  });
  $("choose").addEventListener("input", questionEdited);
  $("savequestion").addEventListener("click", saveQuestion);
  $("designstop").addEventListener("click", () => { if (designing) designing.abort(); });
  $("rows").addEventListener("change", resize);
  $("cols").addEventListener("change", resize);
  // A field is checked when it is used (the size at once, the others by Try them and the
  // files); refused, it stays marked until what it holds is taken, checked as it is typed.
  for (const id of Object.keys(NUMBER_FIELDS)) {
    $(id).addEventListener("input", () => {
      if ($(id).hasAttribute("aria-invalid") && numberIn($(id).value, NUMBER_FIELDS[id]) !== null) sayError("", $(id));
    });
  }
  $("sheet").addEventListener("input", () => {
    const sheet = sheetIn($("sheet").value);
    if ($("sheet").hasAttribute("aria-invalid") && sheet !== null &&
        Math.min(...sheet.split("x").map(Number)) > 2 * SHEET_MARGIN) sayError("", $("sheet"));
  });
  $("name").addEventListener("change", () => { sayError("", $("name")); edited(); });
  $("pool").addEventListener("change", drawPool);
  $("addgroup").addEventListener("click", () => {
    const g = $("newgroup").value.trim();
    if (g && !(g in state.groups)) { state.groups[g] = []; $("newgroup").value = ""; drawGroups(); $("group").value = g; }
  });
  $("save").addEventListener("click", saveYaml);
  $("open").addEventListener("change", () => {
    const file = $("open").files[0];
    $("open").value = "";  // the same file chosen again opens again
    if (file) openFile(file);
  });
  // A file dropped anywhere on the editor opens as Open YAML opens it.
  document.addEventListener("dragover", (e) => {
    if (e.dataTransfer && [...e.dataTransfer.types].includes("Files")) e.preventDefault();
  });
  document.addEventListener("drop", (e) => {
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (!file) return;
    e.preventDefault();
    openFile(file);
  });
  $("share").addEventListener("click", () => {
    location.hash = "board=" + base64url(JSON.stringify(spec()));
    $("shared").textContent = "the address now holds the board";
  });
  clearPad();
  // A board in the link (#board=...): drawn, or said why not above an empty board.
  try {
    const linked = drawable(linkedBoard(location.hash));
    if (linked !== null) { load(linked); return; }
  } catch (e) {
    sayError(`${e.message} Here is an empty board instead.`, $("link-notice"));
    $("link-notice").hidden = false;
    // the board refused leaves the address: a reload or a link shared shows what is drawn
    history.replaceState(null, "", `${location.pathname}${location.search}`);
  }
  state.tokens = emptyTokens(state.rows, state.cols);
  await loadPools();
  edited();
}

const NOT_YAML = "This file is not a YAML text file.";

// Save YAML: the board as the YAML api/board/yaml writes, downloaded as NAME.yaml; on a
// static site written here (yamlfile.js) once the board is checked as the server checks
// it. A board refused is said beside the button, in the server's words.
async function saveYaml() {
  const tell = (text) => { sayError(text, $("shared")); if (text) reveal($("shared")); };
  tell("");
  const fields = spec();
  let blob;
  if (onStaticSite()) {
    try {
      const [{boardYaml}, read] = await Promise.all([import("./yamlfile.js"), checkedBoard(fields)]);
      blob = new Blob([boardYaml(fields, read.name)], {type: "application/yaml"});
    } catch (e) { tell(e.message); return; }
  } else {
    let response;
    try { response = await post("api/board/yaml", fields); }
    catch (e) { tell(UNREACHABLE); return; }
    if (!response.ok) { tell(await failure(response)); return; }
    blob = await response.blob();
  }
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${fields.name}.yaml`; a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

// A calendar spec's YAML file (chosen with Open YAML, or dropped on the editor) drawn, as
// api/board/open reads it; on a static site read here (yamlfile.js) and checked as the
// server checks it, before anything is drawn. A file refused is said beside the buttons,
// in the server's words, and the board stays as it was.
let opening = 0;  // each file opened's number: only the last one opened is drawn or said
async function openFile(file) {
  const mine = ++opening;
  const tell = (text) => {
    if (mine !== opening) return;
    sayError(text, $("shared")); if (text) reveal($("shared"));
  };
  tell("");
  const site = onStaticSite();
  if (site && file.size > MAX_YAML_BYTES) {
    tell(`The request body is larger than ${MAX_YAML_BYTES.toLocaleString("en-US")} bytes.`);
    return;
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = yamlText(bytes);
  if (text === null) { tell(NOT_YAML); return; }
  let fields;
  if (site) {
    try {
      const {readYaml} = await import("./yamlfile.js");
      fields = readYaml(text);
      await checkedBoard(fields);
    } catch (e) { tell(e.message); return; }
  } else {
    let response;
    try { response = await post("api/board/open", text, undefined, true); }
    catch (e) { tell(UNREACHABLE); return; }
    if (!response.ok) { tell(await failure(response)); return; }
    fields = await response.json();
  }
  if (mine === opening) load(fields);
}

// The engine that checks the files' boards: a pool of its own (its one worker made when
// first asked, from the same engine.wasm), so that a check never waits behind a count.
let checker = null;
function fileEngine() {
  checker ??= engine.then((pool) => (pool ? openPool() : null));
  return checker;
}

// A board's fields checked where no server is, as the server's board.board_spec checks
// them (drawn.js: the spec's checks and the editor's limits, in its words; the pieces' fit
// by a worker when the engine loaded): the spec read, or an Error with the server's words.
async function checkedBoard(fields) {
  const {checkLimits, drawnPuzzle, fitsNowhere} = await import("./drawn.js");
  const {spec: read, board} = drawnPuzzle(fields);
  const pool = await fileEngine();
  if (pool) {
    const fits = await pool.ask("fits", "fits", null, JSON.stringify(board), {});
    if (fits.nowhere) throw fitsNowhere(read, fits.nowhere);
  }
  return checkLimits(read);
}

// A file's bytes as text, or null when they are no YAML text (a NUL byte, or not UTF-8).
export function yamlText(bytes) {
  if (bytes.includes(0)) return null;
  try { return new TextDecoder("utf-8", { fatal: true }).decode(bytes); }
  catch (e) { return null; }
}

// A linked board's fields, when the editor can draw them (null stays null), else an Error
// saying why not: at most 20 rows of 20 cells, each field of the type the editor writes.
function drawable(fields) {
  if (fields === null) return null;
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const rows = fields.board ?? [];
  const fits = Array.isArray(rows) && rows.length <= 20 &&
    rows.every((r) => typeof r === "string" && r.trim().split(/\s+/).length <= 20) &&
    [undefined, "square", "triangle", "hex"].includes(fields.grid) &&
    (fields.groups === undefined || (isObject(fields.groups) &&
      Object.values(fields.groups).every((l) => Array.isArray(l) && l.length <= 400))) &&
    (fields.pieces === undefined || (Array.isArray(fields.pieces) && fields.pieces.length <= 400 &&
      fields.pieces.every((p) => isObject(p) && typeof p.name === "string" &&
        (Array.isArray(p.cells) || typeof p.shape === "string" || Array.isArray(p.shape)))));
  if (!fits) {
    throw new Error("This link's board is not one the editor can draw (at most 20 rows of " +
                    "20 cells, with the fields the editor writes).");
  }
  if (!rows.some((r) => r.trim() !== "")) {
    throw new Error("This link holds no board: it has no rows of cells.");
  }
  return fields;
}

// --- a piece drawn cell by cell ---------------------------------------------------------

const PAD = { square: [5, 5], triangle: [4, 8], hex: [5, 5] };
let pad = [];

function clearPad() {
  sayError("", $("pad"));
  const [rows, cols] = PAD[state.grid];
  pad = Array.from({ length: rows }, () => Array(cols).fill(false));
  drawPad();
}

function drawPad() {
  const ns = SVG_NS, svg = document.createElementNS(ns, "svg");
  const polygons = pad.map((row, r) => row.map((on, c) => corners(r, c, PAD_SCALE)));
  const box = bounds(polygons.flat());
  pad.forEach((row, r) => row.forEach((on, c) => {
    const pts = polygons[r][c].map(([x, y]) => [x - box.x, y - box.y]);
    const poly = document.createElementNS(ns, "polygon");
    poly.setAttribute("points", pts.map((p) => p.join(",")).join(" "));
    poly.setAttribute("class", "padcell " + (on ? "on" : "off"));
    poly.dataset.row = r; poly.dataset.col = c;
    poly.addEventListener("click", () => { pad[r][c] = !pad[r][c]; drawPad(); });
    svg.appendChild(poly);
  }));
  svg.setAttribute("width", box.w + 2); svg.setAttribute("height", box.h + 2);
  $("pad").replaceChildren(svg);
}

function addDrawnPiece() {
  const name = $("padname").value.trim();
  const cells = [];
  pad.forEach((row, r) => row.forEach((on, c) => { if (on) cells.push(tokenCell(state.grid, r, c)); }));
  if (!cells.length) { sayError("Draw the piece's cells first: click them on the small grid.", $("pad")); return; }
  if (!connected(cells)) {
    sayError("The drawn cells are in more than one part: every cell of a piece must share " +
             "an edge with another. Join them or clear a part.", $("pad"));
    return;
  }
  sayError("", $("pad"));
  if (!/^[A-Za-z0-9_-]{1,20}$/.test(name) || target().some((p) => p.name === name)) {
    sayError("give the drawn piece a new name (letters, digits, - or _)", $("padname")); return;
  }
  sayError("", $("padname"));
  if (state.grid === "square") {
    const r0 = Math.min(...cells.map((c) => c[0])), c0 = Math.min(...cells.map((c) => c[1]));
    const rows = Math.max(...cells.map((c) => c[0])) - r0 + 1, cols = Math.max(...cells.map((c) => c[1])) - c0 + 1;
    const shape = Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) =>
      cells.some(([a, b]) => a === r + r0 && b === c + c0) ? "#" : ".").join(""));
    target().push({ name, shape, count: 1 });
  } else target().push({ name, cells, count: 1 });
  $("padname").value = "";
  clearPad(); drawPieces(); edited();
}

// Whether cells of the current grid make one piece: each reached from the first through
// cells that share an edge (two corners, as the server draws them).
export function connected(cells) {
  const point = ([x, y]) => `${Math.round(x * 10)},${Math.round(y * 10)}`;
  const edges = cells.map((cell) => {
    const pts = cellCorners(state.grid, cell).map(point);
    return new Set(pts.map((p, k) => [p, pts[(k + 1) % pts.length]].sort().join(" ")));
  });
  const reached = new Set([0]), todo = [0];
  while (todo.length) {
    const a = todo.pop();
    edges.forEach((mine, b) => {
      if (!reached.has(b) && [...edges[a]].some((edge) => mine.has(edge))) { reached.add(b); todo.push(b); }
    });
  }
  return reached.size === cells.length;
}

// --- Play it, and the files to make it --------------------------------------------------

async function makeFiles() {
  // What became of the files, said beside the button and brought into view.
  const tell = (text) => { sayError(text, $("shared")); if (text) reveal($("shared")); };
  const cell = fieldNumber("cellmm"), kerf = fieldNumber("kerf"), sheet = fieldSheet(cell);
  if (cell === null || kerf === null || sheet === null) {
    tell("the files need the sizes marked above");
    return;
  }
  if (onStaticSite()) { cutSheets(cell, kerf, sheet, tell); return; }
  tell("making the files...");
  const sizes = new URLSearchParams({ cell, kerf, sheet });
  let response;
  try { response = await post(`api/board/make?${sizes}`, spec()); }
  catch (e) { tell(UNREACHABLE); return; }
  if (!response.ok) { tell(await failure(response)); return; }
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await response.blob());
  a.download = `${spec().name}.zip`; a.click();
  tell("");
}

// make's sizes other than those the page asks for (MAKE_SIZES: the clearance, the gap
// between parts, the sheet's margin; the border is half a cell, as make's default).
const MAKE_DEFAULTS = { clearance: MAKE_SIZES.clearance, gap: MAKE_SIZES.gap,
                        margin: MAKE_SIZES.margin };

// The laser's cut file made in this browser (the engine's cpcore_cut_sheets, as cpmodels
// make writes sheet-N.svg), once the board is checked as the server checks it: one sheet
// downloaded as NAME-sheet-1.svg, more offered as links. What cannot be made is said.
async function cutSheets(cell, kerf, sheet, tell) {
  const fields = spec();
  let read, pool;
  try { [read, pool] = await Promise.all([checkedBoard(fields), fileEngine()]); }
  catch (e) { tell(e.message); return; }
  if (!pool) { tell(NO_ENGINE_CUT); return; }
  tell("making the cut file...");
  glyphTable ??= fetch(GLYPHS).then((r) => (r.ok ? r.arrayBuffer() : null), () => null);
  const glyphs = await glyphTable;
  if (!glyphs) { glyphTable = null; tell(NO_GLYPHS); return; }
  const [width, height] = sheet.split("x").map(Number);
  const pieces = read.pieces.map((p) => ({ name: p.name, cells: p.cells, count: p.high }));
  const plan = { grid: read.grid, cells: read.cells, pieces, labels: read.labelCells,
                 sizes: { cell, kerf, width, height, border: cell / 2, ...MAKE_DEFAULTS } };
  let made;
  try { made = await pool.ask("cut", "cut", null, JSON.stringify(plan), { glyphs }); }
  catch (e) { tell(e.message); return; }
  if (made.noGlyph) {
    tell(`The engraving's font here has no outline for ${JSON.stringify(made.noGlyph)}: Save ` +
         "YAML, then run cpmodels make on the file (it finds a font that has one).");
    return;
  }
  if (made.tooLarge) {
    const { part, width: w, height: h } = made.tooLarge;
    const copies = pieces.flatMap((p) => Array.from({ length: p.count },
      (_, k) => ["piece", p.count === 1 ? p.name : `${p.name} ${k + 1}`]));
    const [kind, name] = [...copies, ["frame", "frame"], ["base", "base"]][part];
    const {pyRepr} = await import("./drawn.js");  // make names the part as Python's repr
    tell(`The ${kind} ${pyRepr(name)} (${w.toFixed(1)} x ${h.toFixed(1)} mm with the kerf) does not ` +
         `fit on a ${width} x ${height} mm sheet with ${SHEET_MARGIN} mm margins, turned any ` +
         "way the grid allows.");
    return;
  }
  const links = made.sheets.map((text, k) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    a.download = `${fields.name}-sheet-${k + 1}.svg`;
    a.textContent = a.download;
    return a;
  });
  if (links.length === 1) { links[0].click(); tell(""); }
  const said = [`The cut file: ${links.length} sheet${links.length > 1 ? "s" : ""} `, ...links.flatMap(
    (a, k) => (k ? [", ", a] : [a])), `. ${MAKE_ON_SERVER}`];
  $("shared").replaceChildren(...said);
  reveal($("shared"));
}

// The board played in a new tab, when it can be played (as /api/board/check finds it);
// else refused here: the name field marked when the name is the problem, and what is
// missing said beside the button. On a static site the play page checks the board
// itself (in the server's words) and plays it with the engine in the browser.
async function playIt() {
  const tell = (text) => { sayError(text, $("shared")); if (text) reveal($("shared")); };
  const board = spec(), mine = generation;
  if (onStaticSite()) { openPlay(board); return; }
  tell("checking the board...");
  let answer;
  try {
    const response = await post("api/board/check", board);
    answer = response.ok ? await response.json() : { failed: await failure(response) };
  } catch (e) { tell(UNREACHABLE); return; }
  if (mine !== generation) { tell("the board changed while it was checked: press Play it again"); return; }
  if (answer.failed) { tell(answer.failed); return; }
  const errors = answer.valid ? [] : answer.errors;
  const named = errors.some((e) => e.field === "name");
  sayError(named ? NAME_RULE : "", $("name"));
  const others = errors.filter((e) => e.field !== "name").map((e) => said(e));
  if (errors.length) {
    tell(`This board cannot be played yet: ${[...(named ? ["its name needs mending (marked above)."] : []), ...others].join(" ")}`);
    return;
  }
  tell("");
  openPlay(board);
}

// The play page with the board in its address, in a new tab.
function openPlay(board) {
  const address = "./#board=" + base64url(JSON.stringify(board));
  if (window.open(address, "_blank")) return;
  // a browser that lets a tab open only at once on a click: a link to click instead
  const link = document.createElement("a");
  link.href = address; link.target = "_blank"; link.textContent = "play the board in a new tab";
  $("shared").replaceChildren("The browser kept the new tab closed: ", link);
}

const NAME_RULE = "A name is one word, such as my-calendar: letters, digits and signs, but no spaces, '/' or '#'.";

// --- which sets of the pieces work ------------------------------------------------------


async function runDesign() {
  if (designing) designing.abort();
  const controller = new AbortController();
  designing = controller;
  $("designstop").disabled = false;
  $("sets").replaceChildren(); $("designsummary").textContent = ""; $("designprogress").value = 0;
  delete $("designsummary").dataset.done;
  if (!state.candidates.length) {
    sayError("add candidate pieces first: choose \u201cthe candidates\u201d under Pieces, then click pieces", $("designsummary"));
    designing = null; $("designstop").disabled = true;
    return;
  }
  const problem = designProblem();
  if (problem) {
    sayError(problem, $("designsummary"));
    designing = null; $("designstop").disabled = true;
    reveal($("design-answer"));
    return;
  }
  askedAbout = questionKey();
  reveal($("design-answer"));
  const body = { board: spec(state.candidates), always: state.candidates.filter((p) => p.always).map((p) => p.name),
                 choose: +$("choose").value, require: $("require").value };
  let total = 1, seen = 0, working = 0, learnt = null;
  // The answer's lines, the server's or the engine's (the same shape): the progress, each
  // working set as it comes, then the ranking.
  const take = (lines) => {
    for (const line of lines) {
      if (line.candidates !== undefined && !line.done) { total = Math.max(1, line.candidates); $("designprogress").max = total; }
      else if (line.learning !== undefined) { learnt = line; continue; }
      else if (line.pieces) {
        seen += 1;
        if (line.works) { working += 1; showSet(line); }
      } else if (line.done) showRanking(line);
      else if (line.error) sayError(said(line), $("designsummary"));
    }
    $("designprogress").value = seen;
    if (!$("designsummary").dataset.done) {
      // (while the order of dates is learnt, before any set is decided: how far it is)
      const learning = !seen && learnt ? `; learning which dates fail most often from the first ${learnt.of.toLocaleString()} sets: ${learnt.learning.toLocaleString()} tried` : "";
      $("designsummary").textContent = `${seen.toLocaleString()} of ${total.toLocaleString()} sets decided, ${working} work${learning}`;
    }
    return true;
  };
  // On a static site the engine's workers decide the sets (counts.js); a refusal before
  // any work is said in the server's words.
  const pool = onStaticSite() ? await engine : null;
  if (designing !== controller) return;  // asked again (or stopped) while the engine loaded
  try {
    if (pool) {
      // the board checked as the server checks it, each candidate as one it may leave out
      const {readBoard} = await import("./drawn.js");
      readBoard({...body.board, pieces: (body.board.pieces || []).map((p) =>
        (Array.isArray(p.count) ? p : {...p, count: [0, p.count ?? 1]}))});
      await designBoard(pool, body, (line) => take([line]), controller.signal);
      return;
    }
    const response = await post("api/board/design", body, controller.signal);
    if (!response.ok) {
      sayError(setsMissArea(body.choose) ? noSetSentence() : await failure(response), $("designsummary"));
      return;
    }
    await readLines(response, take);
  } catch (e) {
    if (e.name === "AbortError") {
      // (stopped, not ended by an edit, whose sentence stands, nor by a question asked anew)
      if (designing === controller && askedAbout !== null) $("designsummary").textContent += " (stopped)";
    }
    else if (pool && !controller.signal.aborted) {  // in the words the server's refusal gets
      sayError(setsMissArea(body.choose) ? noSetSentence() : sentence(e.message),
               $("designsummary"));
    }
    else if (!pool) sayError(LOST, $("designsummary"));
  } finally {
    if (designing === controller) { designing = null; $("designstop").disabled = true; }
  }
}

// What keeps the question from being asked, in the page's words, or "".
function designProblem() {
  const free = state.candidates.filter((p) => !p.always).length;
  if (!free) return "every candidate is marked always: leave some to choose from";
  const limits = { min: 1, max: Math.min(free, NUMBER_FIELDS.choose.max), whole: true };
  if (fieldNumber("choose", limits) === null) {
    return `choose a number from 1 to ${limits.max}: there ${free === 1 ? "is 1 candidate" : `are ${free} candidates`} not marked always`;
  }
  return "";
}

function setText(v) {
  return `${v.pieces.join(" ")}: ${v.min === null ? "works" : `fewest ${v.min.toLocaleString()} solutions (${(v.argmin || []).join(" ")}), ${v.total.toLocaleString()} in all`}`;
}

// A working set, listed; chosen (a button: by mouse or keyboard), it becomes the board's
// pieces, to count, save or make; the candidates stay as they were.
function setItem(v) {
  const li = document.createElement("li");
  li.className = "works"; li.dataset.pieces = v.pieces.join(" ");
  const use = document.createElement("button");
  use.type = "button"; use.className = "use-set"; use.textContent = setText(v);
  use.title = "put this set on the board";
  use.addEventListener("click", () => {
    state.pieces = useSet(v.pieces);
    drawPieces(); edited();  // which set is pressed follows the board's pieces
    revealNext = true;
    reveal($("count-answer"));
  });
  use.setAttribute("aria-pressed", "false");
  li.append(use);
  return li;
}

// The working set the board's pieces are, if one is, pressed; the others not (so the
// highlight follows undo and redo).
function markChosenSet() {
  const pieces = JSON.stringify(state.pieces);
  for (const li of $("sets").children) {
    const same = JSON.stringify(useSet(li.dataset.pieces.split(" "))) === pieces;
    li.querySelector("button").setAttribute("aria-pressed", String(same));
  }
}

// A set's pieces, as board pieces: a name listed n times is n copies of that candidate.
function useSet(names) {
  const copies = {};
  for (const name of names) copies[name] = (copies[name] || 0) + 1;
  return state.candidates.filter((p) => p.name in copies).map((p) => {
    const { always, ...piece } = p;
    return { ...piece, count: copies[p.name] };
  });
}

// The design question as a design file for `cpmodels design`, its board the YAML that
// Save writes (NAME.yaml, next to it): JSON, which YAML reads as it is.
function saveQuestion() {
  if (!state.candidates.length) {
    sayError("add candidate pieces first: choose \u201cthe candidates\u201d under Pieces, then click pieces", $("designsummary"));
    return;
  }
  const name = spec().name;
  const always = state.candidates.filter((p) => p.always).map(pieceFields);
  const others = state.candidates.filter((p) => !p.always).map(pieceFields);
  const question = { kind: "design", name: `${name}-design`, board: `${name}.yaml`,
                     ...(always.length ? { fixed: always } : {}),
                     choose: [{ pool: others, count: +$("choose").value }],
                     require: $("require").value };
  const text = `# cpmodels design ${name}-design.yaml (with ${name}.yaml, the board Save YAML ` +
    `writes, next to it)\n${JSON.stringify(question, null, 2)}\n`;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "application/yaml" }));
  a.download = `${name}-design.yaml`; a.click();
}

// "every real date" only where the board's groups make dates; else every combination.
function requireChoices() {
  const real = $("require").querySelector('option[value="real-dates"]');
  const dates = hasDates();
  real.disabled = !dates;
  real.textContent = dates ? "every real date" : "every real date (needs month and day groups)";
  if (!dates) $("require").value = "all-combinations";
  else if (!$("require").dataset.chosen) $("require").value = "real-dates";
}

function noSetSentence() {
  return `no set of ${$("choose").value} of the candidates (with those marked always) has the ` +
    "area the board leaves to cover; try another number";
}

// Whether no set of `choose` candidates (each as many times as its count allows, with those
// marked always) covers the cells the board leaves to cover: its cells but one per group.
function setsMissArea(choose) {
  const cells = state.tokens.flat().filter((t) => t !== "#").length;
  const area = cells - Object.keys(state.groups).length;
  const most = (p) => (Array.isArray(p.count) ? p.count[1] : p.count);
  const least = (p) => (Array.isArray(p.count) ? p.count[0] : p.count);
  let fixed = new Set([0]);  // the areas the pieces marked always can cover
  for (const p of state.candidates.filter((q) => q.always)) {
    const size = pieceCells(p).length, next = new Set();
    for (const a of fixed) for (let n = least(p); n <= most(p); n++) if (a + n * size <= area) next.add(a + n * size);
    fixed = next;
  }
  // reach[k]: the areas k chosen copies can cover, at most the area
  let reach = Array.from({ length: choose + 1 }, (_, k) => new Set(k ? [] : [0]));
  for (const p of state.candidates.filter((q) => !q.always)) {
    const size = pieceCells(p).length, next = reach.map((s) => new Set(s));
    for (let k = 0; k < reach.length; k++) {
      for (const a of reach[k]) {
        for (let n = 1; n <= most(p) && k + n <= choose && a + n * size <= area; n++) {
          next[k + n].add(a + n * size);
        }
      }
    }
    reach = next;
  }
  return ![...reach[choose]].some((a) => fixed.has(area - a));
}

function showSet(v) { $("sets").append(setItem(v)); markChosenSet(); }

function showRanking(line) {
  $("sets").replaceChildren(...line.working.map(setItem));
  markChosenSet();
  $("designsummary").dataset.done = "1";
  $("designsummary").textContent = line.candidates === 0 ? noSetSentence() : `${line.working.length} of ${line.candidates.toLocaleString()} sets work, ranked by their hardest date; ${line.seconds} s`;
  reveal($("design-answer"));
}

init().catch((e) => { sayError(e.message); });
