// Play mode: the player lays the pieces on the board; after every move the page's answers
// (answers.js: the engine in this browser, or the server's /api/check) judge the position.
// The board and the pieces come from api/layout: every place
// each orientation of each piece fits, so a dropped piece snaps to the nearest place and
// nothing here knows the grid's geometry. The position is kept in localStorage, per puzzle
// and date, and never sent anywhere but to be judged; so are the time and the moves it took
// (the share text of a solved board says those, never where the pieces lie). Each puzzle's
// record of days played and solved is daily.js's; so are the stats and the share picture.
// The board's size is set here (fitBoard), its arrangement by the window's shape in
// index.html's style sheet.
import {$, svgEl} from "./dom.js";
import {queryLabels} from "./answers.js";
import {
  clockText, markPlayed, markSolved, recordKey, sharePicture, showStats, squaresText,
} from "./daily.js";
import {
  faceUp, isRealDate, localToday, puzzle, showError, showLabels, state, title,
} from "./puzzle.js";

const DRAG_START_PX = 5;  // a press that moves less than this is a click
const play = {
  layouts: {}, layout: null, pieces: {}, cellSize: 40,
  placed: [],      // the position: {piece, o, k}, orientation o of the piece at its place k
  history: [],     // earlier positions, for undo
  future: [],      // positions undone, for redo (a new move forgets them)
  orient: {},      // the orientation each piece shows in the tray
  selected: null,  // the piece chosen in the tray (keyboard and tap play)
  ghost: null,     // where the chosen piece would go: {piece, o, k}
  drag: null, press: null, dragged: false, labels: [], takeBack: [], checks: 0, loads: 0, key: null,
  boardPress: false,  // a finger (or the button) down on the board with a piece chosen
  centres: new Map(), // each cell's centre in the board's pixels, by its key
  grabbed: {},        // the cell each piece was last dragged by: {o, i}, by its name
  status: null,    // the last verdict: solved, open, dead_end or invalid
  verdict: ["", ""],  // its words and kind, shown again once a note about a move is read
  clock: null,     // {start, end, moves, hints}: when play began and ended, what it took
  trayFocus: null, // the tile the tray's one Tab stop is on
  clockHidden: false,  // the player hid the running clock (kept in the browser)
  shareFile: null,     // the share picture of the board solved, as a file for the share sheet
};

// --- the page's settings kept in the browser: the colours, the clock shown or hidden --------

const THEME_KEY = "cpmodels-theme";
const CLOCK_KEY = "cpmodels-clock";
const THEMES = ["system", "light", "dark"];

function setting(key, fallback) {
  try { return localStorage.getItem(key) ?? fallback; } catch (err) { return fallback; }
}

function keep(key, value) {
  try { localStorage.setItem(key, value); } catch (err) { /* refused: kept for this page */ }
}

// The colours: the system's scheme, or light or dark as the player chose (html[data-theme]).
function showTheme(theme) {
  const chosen = THEMES.includes(theme) ? theme : "system";
  if (chosen === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = chosen;
  const select = $("theme");
  if (select) select.value = chosen;
}

showTheme(setting(THEME_KEY, "system"));  // before the first answer, so the page opens in them

function pathData(loops, dx = 0, dy = 0) {
  return loops.map((loop) => "M" + loop.map(([x, y]) => `${x + dx},${y + dy}`).join("L") + "Z")
    .join("");
}

function orientation(piece, o) { return play.pieces[piece].orientations[o]; }

function cellsOf(piece, o, k) {
  const shape = orientation(piece, o);
  const [dr, dc] = shape.places[k];
  return shape.cells.map(([a, b]) => [a + dr, b + dc]);
}

const cellKey = (cell) => cell.join(",");

function allowed(piece, o) {
  return o !== null && o !== undefined && (!faceUp() || orientation(piece, o).face_up);
}

function bbox(loops) {
  const xs = loops.flat().map((p) => p[0]);
  const ys = loops.flat().map((p) => p[1]);
  return {x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs),
          h: Math.max(...ys) - Math.min(...ys)};
}

// --- the position: kept, judged, undone ---------------------------------------------------

function storageKey() {
  const which = state.query.date !== undefined ? state.query.date : state.query.labels.join(",");
  return `cpmodels-play:${state.spec}:${which}:${faceUp() ? "face-up" : "any"}`;
}

function placementsOf(placed) {
  return placed.map(({piece, o, k}) => ({piece, cells: cellsOf(piece, o, k)}));
}

function save() {
  try {
    localStorage.setItem(play.key, JSON.stringify(placementsOf(play.placed)));
    localStorage.setItem(`${play.key}:clock`, JSON.stringify(play.clock));
  } catch (err) { /* storage full or refused: the position still lives in the page */ }
}

// The clock kept with a position: read back only when every field is a number in range.
function restoreClock() {
  const fresh = {start: null, end: null, moves: 0, hints: 0};
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(`${play.key}:clock`) || "null"); }
  catch (err) { kept = null; }
  if (!kept || typeof kept !== "object") return fresh;
  const time = (t) => (Number.isFinite(t) && t > 0 && t <= Date.now() ? t : null);
  const tally = (n) => (Number.isSafeInteger(n) && n >= 0 && n < 1e6 ? n : 0);
  const start = time(kept.start);
  const end = start !== null && time(kept.end) !== null && kept.end >= start ? kept.end : null;
  return {start, end, moves: tally(kept.moves), hints: tally(kept.hints)};
}

// A move made: the clock starts at the first, and counts each.
function tick() {
  if (play.clock.start === null) {
    play.clock.start = Date.now();
    markPlayed(recordKey(state.spec, faceUp()), which());
  }
  play.clock.moves += 1;
  showClock();
}

// The orientation and place of a piece laid on these cells, or null.
function findPlace(piece, cells) {
  const info = play.pieces[piece];
  if (!info || !Array.isArray(cells)) return null;
  const want = new Set(cells.map(cellKey));
  for (let o = 0; o < info.orientations.length; o++) {
    const shape = info.orientations[o];
    if (shape.cells.length !== want.size) continue;
    for (let k = 0; k < shape.places.length; k++) {
      if (cellsOf(piece, o, k).every((c) => want.has(cellKey(c)))) return {piece, o, k};
    }
  }
  return null;
}

function restore() {
  let kept = [];
  try { kept = JSON.parse(localStorage.getItem(play.key) || "[]"); } catch (err) { kept = []; }
  if (!Array.isArray(kept)) kept = [];
  return kept.map((p) => p && findPlace(p.piece, p.cells)).filter(Boolean);
}

function setPosition(placed, {remember = true} = {}) {
  if (remember) play.history.push(play.placed);
  play.future = [];
  tick();
  play.placed = placed;
  play.takeBack = [];
  if (play.selected && used(play.selected) >= play.pieces[play.selected].count) {
    play.selected = null;  // (a hint laid its last copy)
    play.ghost = null;
  }
  save();
  drawAll();
  return check();
}

function undo() { travel(play.history, play.future); }

function redo() { travel(play.future, play.history); }

// Undo (from history to future) or redo (the other way): a move of its own, counted.
function travel(from, to) {
  if (!from.length) return;
  tick();
  to.push(play.placed);
  play.placed = from.pop();
  play.takeBack = [];
  save();
  drawAll();
  check();
}

function feedback(text, kind) {
  $("feedback").textContent = text;
  $("feedback").className = kind || "";
}

// The verdict on the position, kept to be shown again after a note about a move.
function verdict(text, kind) {
  play.verdict = [text, kind];
  feedback(text, kind);
}

// A note about the move in hand (why a drop missed, how a piece was turned): in the
// verdict's place until the next move or choice.
function note(text) { feedback(text, "note"); }

function restoreVerdict() { feedback(...play.verdict); }

// The verdict on the position; #feedback's data-pieces says how many pieces it is about.
async function check() {
  const mine = ++play.checks;
  const load = play.loads;
  const pieces = String(play.placed.length);
  $("feedback").setAttribute("aria-busy", "true");
  try {
    const data = await state.answers.check(puzzle(), placementsOf(play.placed));
    if (mine !== play.checks || load !== play.loads) return;
    play.labels = data.labels;
    showLabels(data.labels);
    play.takeBack = data.take_back;
    const before = play.status;
    play.status = data.status;
    verdict(data.status === "solved" ? `${data.labels.join(" ")}: solved! Every piece fits.`
      : data.message, data.status);
    if (data.status === "solved" && play.clock.end === null) {
      play.clock.end = Date.now();
      save();
      showClock();
      const {start, end, moves, hints} = play.clock;
      markSolved(recordKey(state.spec, faceUp()), which(),
                 {ms: start === null ? null : end - start, moves, hints}, localToday());
    }
    // a board solved by the move just made celebrates; one solved before opens quietly
    $("play-board").classList.toggle("celebrate", data.status === "solved" &&
                                     before !== null && before !== "solved");
    const unchoose = data.status === "solved" && (play.selected !== null || play.ghost !== null);
    if (unchoose) {  // however it was solved, no piece is left to choose
      play.selected = null;
      play.ghost = null;
    }
    drawBoard();
    if (unchoose) drawTray();
    else toolButtons();
    solvedPanel();
  } catch (err) {
    if (mine !== play.checks || load !== play.loads) return;
    play.status = "invalid";
    verdict(err.message, "invalid");
    solvedPanel();
  }
  $("feedback").dataset.pieces = pieces;
  $("feedback").setAttribute("aria-busy", "false");
}

// --- a solved board: the time, the moves, a share text, what to play next ---------------------

function plural(n, word) { return `${n.toLocaleString()} ${word}${n === 1 ? "" : "s"}`; }

// The running clock: the time since the first move, stopped when solved; "Time" while the
// player keeps it hidden.
function showClock() {
  const {start = null, end = null} = play.clock || {};
  const ms = start === null ? 0 : (end ?? Date.now()) - start;
  const shown = play.clockHidden ? "Time" : clockText(ms);
  const button = $("clock");
  if (button.textContent !== shown) button.textContent = shown;
  button.setAttribute("aria-pressed", String(!play.clockHidden));
}

// What the solve took: "in 3:24 with 14 moves and 1 hint".
function tookText() {
  const {start, end, moves, hints} = play.clock;
  const time = start !== null && end !== null ? `in ${clockText(end - start)} ` : "";
  return `${time}with ${plural(moves, "move")}` + (hints ? ` and ${plural(hints, "hint")}` : "");
}

// A link to the puzzle (never to the position: that stays on this device).
function puzzleLink() { return linkTo(state.query); }

// A link to the puzzle open for a date ({date}) or labels ({labels}).
function linkTo(query) {
  const parts = [`spec=${encodeURIComponent(state.spec)}`];
  if (query.date !== undefined) parts.push(`date=${encodeURIComponent(query.date)}`);
  else parts.push(`labels=${query.labels.map(encodeURIComponent).join(",")}`);
  if (faceUp()) parts.push("face_up=1");
  const board = /^#board=/.test(location.hash) ? location.hash : "";
  return `${location.origin}${location.pathname}?${parts.join("&")}${board}`;
}

// The puzzle played as the daily record keeps it: its date, or its labels.
function which() {
  return state.query.date !== undefined ? state.query.date
    : `labels:${state.query.labels.join(",")}`;
}

// The puzzle and its date in words: "2024-10-06 (Oct 6)", or its labels.
function named() {
  return state.query.date !== undefined
    ? `${state.query.date} (${play.labels.join(" ")})` : play.labels.join(" ");
}

// The share text: the puzzle and its date, the time and the moves, and a square for each
// piece (an open one for each hint); no placement.
function shareText() {
  return `I solved the ${title(state.specs[state.spec])} puzzle for ${named()} ${tookText()}` +
    `${faceUp() ? ", the pieces face up" : ""}. Try it: ${puzzleLink()}\n` +
    squaresText(play.placed.length, play.clock.hints);
}

// The share picture: the board wholly covered in one colour, its open cells, the lines.
function picture() {
  const theme = document.documentElement.dataset.theme;
  const dark = theme === "dark" ||
    (theme === undefined && window.matchMedia("(prefers-color-scheme: dark)").matches);
  return sharePicture({
    layout: play.layout, open: openCells(), cell: play.cellSize, dark,
    lines: [`${title(state.specs[state.spec])}, ${named()}`, `Solved ${tookText()}`],
    pieces: play.placed.length, hints: play.clock.hints});
}

function pictureName() {
  return `${state.spec}-${which().replace(/[^\w-]+/g, "-")}.png`;
}

async function downloadPicture() {
  const url = URL.createObjectURL(await picture());
  const link = document.createElement("a");
  link.href = url;
  link.download = pictureName();
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// The stats panel of the puzzle open, at the month of the date played (else today's).
function openStats() {
  const date = state.query.date !== undefined ? state.query.date : localToday();
  showStats({key: recordKey(state.spec, faceUp()), title: title(state.specs[state.spec]),
             today: localToday(), month: date.slice(0, 7),
             link: (day) => linkTo({date: day})});
}

function solvedPanel() {
  const solved = play.status === "solved";
  $("solved").hidden = !solved;
  if (!solved) return;
  $("solved-line").textContent = `Solved ${tookText()}!`;
  $("share-text").textContent = shareText();
  $("copy-share").textContent = "Copy";
  $("share").hidden = typeof navigator.share !== "function";
  if (!$("share").hidden) readyPicture();
  // no day before the first (a link to it is refused)
  $("yesterday").hidden = state.query.date === undefined ||
    !isRealDate(dayBefore(state.query.date));
  $("another-date").textContent = state.query.date === undefined ? "Other labels" : "Another date";
}

async function copyShare() {
  try {
    await navigator.clipboard.writeText(shareText());
    $("copy-share").textContent = "Copied";
  } catch (err) {
    const range = document.createRange();  // no clipboard: the text selected, to copy by hand
    range.selectNodeContents($("share-text"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    $("copy-share").textContent = "Selected: copy it";
  }
}

// The share sheet, with the picture where the browser takes files (made when the board was
// solved, so that the sheet opens at once, while the press still counts as the player's).
async function share() {
  const data = {title: document.title, text: shareText()};
  const file = play.shareFile;
  if (file && navigator.canShare && navigator.canShare({files: [file]})) data.files = [file];
  try { await navigator.share(data); }
  catch (err) { /* the share sheet closed: nothing to say */ }
}

// The picture made ready for the share sheet, for the board solved now.
function readyPicture() {
  const load = play.loads;
  play.shareFile = null;
  picture().then((blob) => {
    if (load === play.loads && play.status === "solved") {
      play.shareFile = new File([blob], pictureName(), {type: "image/png"});
    }
  }).catch(() => { /* no picture: the text alone */ });
}

// The day before the date played, written YYYY-MM-DD.
function dayBefore(date) {
  return new Date(Date.parse(`${date}T00:00:00Z`) - 86400000).toISOString().slice(0, 10);
}

// Another date of the same year (a date puzzle), or other labels, chosen at random.
function another() {
  const spec = state.specs[state.spec];
  if (state.query.date !== undefined) {  // one of the year's other days
    const year = Number(state.query.date.slice(0, 4));
    const newYear = (y) => { const d = new Date(0); d.setUTCFullYear(y, 0, 1); return d; };
    const DAY_MS = 86400000;
    const days = Math.round((newYear(year + 1) - newYear(year)) / DAY_MS);
    const played = Math.round((Date.parse(`${state.query.date}T00:00:00Z`) - newYear(year)) / DAY_MS);
    let day = Math.floor(Math.random() * (days - 1));
    if (day >= played) day += 1;
    return {date: new Date(newYear(year).getTime() + day * DAY_MS).toISOString().slice(0, 10)};
  }
  const groups = Object.values(spec.groups);
  const pick = () => groups.map((names) => names[Math.floor(Math.random() * names.length)]);
  const same = (labels) => labels.every((label, i) => label === state.query.labels[i]);
  let labels = pick();
  for (let tries = 0; tries < 20 && same(labels); tries++) labels = pick();
  return {labels};
}

// --- the board, the tray, the ghost --------------------------------------------------------

function used(piece) { return play.placed.filter((p) => p.piece === piece).length; }

function pieceShape(parent, piece, o, dx, dy, attrs = {}, lettered = true) {
  return shapeOf(parent, play.pieces[piece], o, dx, dy, attrs, lettered);
}

// Orientation o of a piece of a layout (info), its outline moved by (dx, dy) pixels.
function shapeOf(parent, info, o, dx, dy, attrs = {}, lettered = true) {
  const shape = info.orientations[o];
  const g = svgEl("g", attrs, parent);
  svgEl("path", {d: pathData(shape.loops, dx, dy), fill: info.colour, "fill-rule": "evenodd"}, g);
  if (!lettered) return g;
  const letter = svgEl("text", {x: shape.mark[0] + dx, y: shape.mark[1] + dy, class: "letter",
                                "text-anchor": "middle", "dominant-baseline": "central"}, g);
  letter.textContent = mark(info);
  return g;
}

// What a piece is lettered with: its name when that is short enough to read on one cell
// (so "L5" on the board is the L5 of "take back L5"), else its one-letter mark.
function mark(info) { return info.name.length <= 3 ? info.name : info.letter; }

function openCells() {
  const open = new Set(play.labels);
  return new Set(play.layout.cells.filter((c) => c.label !== null && open.has(c.label))
    .map((c) => cellKey(c.cell)));
}

// A layout's cells drawn in board (an svg), the labels in open left open.
function drawCells(board, layout, open) {
  const {origin, size} = layout;
  const pad = 6;  // room for a piece's focus outline at the board's edge
  board.setAttribute("viewBox",
                     `${origin[0] - pad} ${origin[1] - pad} ${size[0] + 2 * pad} ${size[1] + 2 * pad}`);
  board.replaceChildren();
  for (const c of layout.cells) {
    const isOpen = open.has(cellKey(c.cell));
    svgEl("polygon", {points: c.points.map((p) => p.join(",")).join(" "),
                      class: isOpen ? "cell open" : "cell", "data-cell": cellKey(c.cell)}, board);
    if (c.label !== null) {
      svgEl("text", {x: c.centre[0], y: c.centre[1], class: isOpen ? "open" : ""}, board)
        .textContent = c.label;
    }
  }
}

function drawBoard() {
  const board = $("play-board");
  drawCells(board, play.layout, openCells());
  play.placed.forEach(({piece, o, k}, i) => {
    if (play.drag && play.drag.from === i) return;
    const [, , x, y] = orientation(piece, o).places[k];
    const g = pieceShape(board, piece, o, x, y, {
      class: play.takeBack.includes(i) ? "placed take-back" : "placed", tabindex: "-1",
      "data-index": i, "data-piece": piece, role: "button", style: `--i: ${i}`,
      "aria-label": `${piece}, placed; Delete takes it off`});
    g.addEventListener("pointerdown", (ev) => pressPlaced(ev, i));
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Delete" || ev.key === "Backspace") {
        ev.preventDefault();
        setPosition(play.placed.filter((_, j) => j !== i));
        board.focus();
      }
    });
  });
  if (play.ghost) {
    const {piece, o, k} = play.ghost;
    const [, , x, y] = orientation(piece, o).places[k];
    const fits = legal(piece, o, k, null);
    pieceShape(board, piece, o, x, y, {class: `ghost ${fits ? "fits" : "misses"}`,
                                      "data-cells": JSON.stringify(cellsOf(piece, o, k))}, false);
  }
  const landing = play.drag && play.drag.landing;
  if (landing && landing.k !== null) {  // where the dragged piece would land, and whether it fits
    const {piece, o} = play.drag;
    const [, , x, y] = orientation(piece, o).places[landing.k];
    pieceShape(board, piece, o, x, y, {class: `landing ${landing.state}`,
                                      "data-state": landing.state,
                                      "data-cells": JSON.stringify(cellsOf(piece, o, landing.k))},
               false);
  }
}

function drawTray() {
  const tray = $("tray");
  const focused = tray.contains(document.activeElement) ? document.activeElement.dataset.piece
    : null;
  tray.replaceChildren();
  for (const info of play.layout.pieces) {
    const left = info.count - used(info.name);
    const o = play.orient[info.name];
    const shape = info.orientations[o];
    const box = bbox(shape.loops);
    const tile = document.createElement("button");
    tile.type = "button";
    tile.className = "tile";
    tile.dataset.piece = info.name;
    tile.dataset.orientation = o;
    tile.hidden = left <= 0;
    tile.setAttribute("aria-pressed", String(play.selected === info.name));
    tile.setAttribute("aria-label", `piece ${info.name}` + (left > 1 ? `, ${left} left` : ""));
    const pad = 2;
    const svg = svgEl("svg", {viewBox: `${box.x - pad} ${box.y - pad} ${box.w + 2 * pad} ${box.h + 2 * pad}`,
                              style: `width: calc(${box.w + 2 * pad}px * var(--tile-scale)); ` +
                                `height: calc(${box.h + 2 * pad}px * var(--tile-scale))`}, tile);
    pieceShape(svg, info.name, o, 0, 0);
    if (info.count > 1) {
      const copies = document.createElement("span");
      copies.className = "copies";
      copies.textContent = `×${left}`;
      tile.append(copies);
    }
    tile.addEventListener("pointerdown", (ev) => pressTile(ev, info.name, svg));
    tile.addEventListener("click", (ev) => {
      if (play.dragged && ev.detail !== 0) return;  // the end of a drag, not a click
      play.trayFocus = info.name;
      choose(play.selected === info.name ? null : info.name, ev.detail === 0);
    });
    tray.append(tile);
  }
  roving(tray, ".tile:not([hidden])", `.tile[data-piece="${play.trayFocus}"]`);
  if (focused !== null) {  // the focus stays on the piece it was on, drawn anew
    const tile = tray.querySelector(`.tile[data-piece="${focused}"]:not([hidden])`);
    if (tile) tile.focus();
  }
  toolButtons();
}

// One Tab stop per area: the item chosen (else the first) takes Tab, the others -1.
function roving(area, items, chosen) {
  const all = [...area.querySelectorAll(items)];
  const current = area.querySelector(`${chosen}:not([hidden])`) || all[0];
  for (const item of all) item.tabIndex = item === current ? 0 : -1;
}

// The arrow keys (and Home, End) move the focus within an area's items, in their order.
function roveKey(ev, items) {
  const steps = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
  if (!(ev.key in steps) && ev.key !== "Home" && ev.key !== "End") return null;
  const at = items.indexOf(document.activeElement);
  if (at < 0 || !items.length) return null;
  ev.preventDefault();
  const next = ev.key === "Home" ? 0 : ev.key === "End" ? items.length - 1
    : (at + steps[ev.key] + items.length) % items.length;
  for (const item of items) item.tabIndex = item === items[next] ? 0 : -1;
  items[next].focus();
  return items[next];
}

function trayKey(ev) {
  const moved = roveKey(ev, [...$("tray").querySelectorAll(".tile:not([hidden])")]);
  if (moved) play.trayFocus = moved.dataset.piece;
}

const TOOLS = "button:not([hidden]):not(:disabled)";

function toolsKey(ev) { roveKey(ev, [...$("tool-row").querySelectorAll(TOOLS)]); }

// The focus back on the tray's Tab stop (after a piece was laid by keyboard).
function focusTray() {
  const tile = $("tray").querySelector('.tile[tabindex="0"]');
  if (tile) tile.focus();
  else $("play-board").focus();
}

function drawAll() { drawBoard(); drawTray(); }

function activePiece() {
  if (play.drag) return play.drag.piece;
  return play.selected;
}

function toolButtons() {
  const piece = activePiece();
  const o = piece ? (play.drag ? play.drag.o : play.orient[piece]) : null;
  const shape = piece ? orientation(piece, o) : null;
  $("rotate").disabled = !shape || !allowed(piece, shape.rotate) || shape.rotate === o;
  const spec = state.specs[state.spec];
  $("flip").hidden = faceUp() || !spec.flip;
  $("flip").disabled = !shape || !allowed(piece, shape.flip) || shape.flip === o;
  $("undo").disabled = play.history.length === 0;
  $("redo").disabled = play.future.length === 0;
  $("clear").disabled = play.placed.length === 0;
  // a solved board: nothing to hint, and no empty tray left in view
  const solved = play.status === "solved";
  $("play-hint").disabled = solved;
  $("tray").hidden = solved && play.layout.pieces.every((p) => p.count - used(p.name) <= 0);
  roving($("tool-row"), TOOLS, `button[tabindex="0"]:not(:disabled)`);
}

// Whether a piece may go on place k: no overlap with the others (the piece moved, from,
// left out) and no label the puzzle leaves open.
function legal(piece, o, k, from) {
  const taken = openCells();
  play.placed.forEach((p, i) => {
    if (i !== from) for (const c of cellsOf(p.piece, p.o, p.k)) taken.add(cellKey(c));
  });
  return cellsOf(piece, o, k).every((c) => !taken.has(cellKey(c)));
}

// What is in the way of place k: "covers" (a cell the puzzle leaves open) or "overlaps"
// (a piece on the board, the piece moved, from, left out), with the label or the piece.
function obstacle(piece, o, k, from) {
  const open = openCells();
  for (const c of cellsOf(piece, o, k)) {
    if (open.has(cellKey(c))) {
      const label = play.layout.cells.find((x) => cellKey(x.cell) === cellKey(c)).label;
      return {state: "covers", what: label};
    }
  }
  const mine = new Set(cellsOf(piece, o, k).map(cellKey));
  const other = play.placed.find((p, i) => i !== from &&
    cellsOf(p.piece, p.o, p.k).some((c) => mine.has(cellKey(c))));
  return {state: "overlaps", what: other ? other.piece : "another piece"};
}

// Why a place is refused, in words.
function refusal(piece, o, k, from) {
  const {state: why, what} = obstacle(piece, o, k, from);
  return why === "covers" ? `it would cover ${what}, a cell the puzzle leaves uncovered`
    : `it would overlap ${what}`;
}

// The legal place of orientation o nearest to pixel offset (x, y), within reach, and the
// nearest refused one. A place a whole reach away is out of it, however the board's scale
// rounds the pointer's position.
function nearestPlace(piece, o, x, y, from, within) {
  const reach = within * (1 - 1e-6);
  let best = null;
  let bestDistance = reach;
  let refused = null;
  let refusedDistance = reach;
  orientation(piece, o).places.forEach(([, , px, py], k) => {
    const distance = Math.hypot(px - x, py - y);
    if (distance >= reach) return;
    if (!legal(piece, o, k, from)) {
      if (distance < refusedDistance) { refused = k; refusedDistance = distance; }
      return;
    }
    if (distance < bestDistance) { best = k; bestDistance = distance; }
  });
  return {k: best, refused};
}

// The first orientation from o on (in the layout's order) that has a legal place, or null.
function fittingOrientation(piece, o) {
  const count = play.pieces[piece].orientations.length;
  for (let step = 0; step < count; step++) {
    const next = (o + step) % count;
    if (!allowed(piece, next)) continue;
    if (orientation(piece, next).places.some((_, k) => legal(piece, next, k, null))) return next;
  }
  return null;
}

// The middle of the board's drawing (pixels of the layout).
function boardMiddle() {
  return [play.layout.origin[0] + play.layout.size[0] / 2,
          play.layout.origin[1] + play.layout.size[1] / 2];
}

// The point of the board a ghost's mark is on.
function ghostMark({piece, o, k}) {
  const shape = orientation(piece, o);
  const [, , x, y] = shape.places[k];
  return [x + shape.mark[0], y + shape.mark[1]];
}

// The ghost of the chosen piece at its legal place nearest the board's middle: turned on to
// the next orientation that fits when it fits nowhere as it is, saying so.
function placeChosen(piece) {
  const o = play.orient[piece];
  const fits = fittingOrientation(piece, o);
  play.ghost = null;
  if (fits === null) {
    note(`${piece} fits nowhere on the board now, however it is turned: take a piece off ` +
         "or choose another");
    return;
  }
  if (fits !== o) {
    play.orient[piece] = fits;
    note(`${piece} does not fit anywhere turned that way, so it was turned to the next way ` +
         "that fits (R and F turn it further)");
  } else restoreVerdict();
  const [cx, cy] = boardMiddle();
  const mark = orientation(piece, fits).mark;
  const {k} = nearestPlace(piece, fits, cx - mark[0], cy - mark[1], null, Infinity);
  play.ghost = {piece, o: fits, k};
}

function choose(piece, byKeyboard = false) {
  play.selected = piece;
  play.ghost = null;
  if (piece !== null) placeChosen(piece);
  else restoreVerdict();
  drawAll();
  if (byKeyboard && piece !== null) $("play-board").focus();
}

// Turn the chosen (or dragged) piece: "rotate" or "flip".
function turn(how) {
  const piece = activePiece();
  if (!piece || (how === "flip" && (faceUp() || !state.specs[state.spec].flip))) return;
  const o = play.drag ? play.drag.o : play.orient[piece];
  const next = orientation(piece, o)[how];
  if (!allowed(piece, next)) return;
  play.orient[piece] = next;
  if (play.drag) {
    play.drag.o = next;
    play.drag.grab = orientation(piece, next).mark;
    floatPiece();
    moveFloat(play.drag.clientX, play.drag.clientY);
  }
  const ghosted = play.ghost && play.ghost.piece === piece;
  if (ghosted || (!play.drag && play.selected === piece)) {
    // the ghost turned about its mark; a chosen piece with no ghost (turned through a way
    // it fits nowhere) comes back nearest the board's middle once it fits again
    const [mx, my] = ghosted ? ghostMark(play.ghost) : boardMiddle();
    const mark = orientation(piece, next).mark;
    const {k} = nearestPlace(piece, next, mx - mark[0], my - mark[1], null, Infinity);
    play.ghost = k === null ? null : {piece, o: next, k};
  }
  if (!play.drag && play.selected === piece) {
    if (play.ghost === null || play.ghost.piece !== piece) {  // fits nowhere turned so
      play.ghost = null;
      note(fittingOrientation(piece, next) === null
        ? `${piece} fits nowhere on the board now, however it is turned: take a piece off ` +
          "or choose another"
        : `${piece} fits nowhere turned this way: press R or F to turn it on, or Enter to ` +
          "turn it to the next way it fits");
    } else restoreVerdict();
  }
  drawAll();
}

// Move the ghost to the nearest place in an arrow's direction (a chosen piece with no ghost
// is turned to a way it fits first).
function moveGhost(dx, dy) {
  if (!play.ghost && play.selected) { placeChosen(play.selected); drawAll(); return; }
  if (!play.ghost) return;
  const {piece, o, k} = play.ghost;
  const places = orientation(piece, o).places;
  const [, , x0, y0] = places[k];
  let best = null;
  let bestScore = Infinity;
  places.forEach(([, , x, y], j) => {
    const along = (x - x0) * dx + (y - y0) * dy;
    const across = Math.abs((x - x0) * dy - (y - y0) * dx);
    if (along <= 0.5) return;
    const score = along + 2 * across;
    if (score < bestScore) { best = j; bestScore = score; }
  });
  if (best !== null) { play.ghost = {piece, o, k: best}; drawBoard(); }
}

// Lay the chosen piece where its ghost is (by keyboard, the focus goes back to the tray
// when no copy of it is left to lay).
function placeGhost(byKeyboard = false) {
  if (!play.ghost && play.selected) { placeChosen(play.selected); drawAll(); return; }
  if (!play.ghost) return;
  const {piece, o, k} = play.ghost;
  if (!legal(piece, o, k, null)) {
    note(`${piece} does not fit there: ${refusal(piece, o, k, null)}`);
    return;
  }
  const left = play.pieces[piece].count - used(piece) - 1;
  play.ghost = null;
  play.selected = left > 0 ? piece : null;
  setPosition([...play.placed, {piece, o, k}]);
  if (play.selected) choose(piece);
  else if (byKeyboard) {
    const next = play.layout.pieces.find((p) => p.count - used(p.name) > 0);
    play.trayFocus = next ? next.name : null;
    drawTray();
    focusTray();
  }
}

// --- dragging (mouse, pen and touch alike) -----------------------------------------------

function boardPoint(clientX, clientY) {
  const m = $("play-board").getScreenCTM().inverse();
  return [m.a * clientX + m.c * clientY + m.e, m.b * clientX + m.d * clientY + m.f];
}

function boardScale() { return $("play-board").getScreenCTM().a; }

function pressTile(ev, piece, svg) {
  if (ev.button !== 0) return;
  const m = svg.getScreenCTM().inverse();
  const grab = [m.a * ev.clientX + m.c * ev.clientY + m.e, m.b * ev.clientX + m.d * ev.clientY + m.f];
  play.press = {piece, o: play.orient[piece], from: null, grab, x: ev.clientX, y: ev.clientY};
}

function pressPlaced(ev, index) {
  if (ev.button !== 0) return;
  ev.preventDefault();
  const {piece, o, k} = play.placed[index];
  const [, , x, y] = orientation(piece, o).places[k];
  const [bx, by] = boardPoint(ev.clientX, ev.clientY);
  play.press = {piece, o, from: index, grab: [bx - x, by - y], x: ev.clientX, y: ev.clientY};
}

function floatPiece() {
  let float = $("drag");
  if (!float) {
    float = svgEl("svg", {id: "drag", "aria-hidden": "true"});
    document.body.append(float);
  }
  float.replaceChildren();
  const {piece, o} = play.drag;
  const box = bbox(orientation(piece, o).loops);
  const scale = boardScale();
  play.drag.box = box;
  play.drag.scale = scale;
  float.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
  float.setAttribute("width", box.w * scale);
  float.setAttribute("height", box.h * scale);
  pieceShape(float, piece, o, 0, 0);
}

function moveFloat(clientX, clientY) {
  const {grab, box, scale} = play.drag;
  play.drag.clientX = clientX;
  play.drag.clientY = clientY;
  $("drag").style.transform =
    `translate(${clientX - (grab[0] - box.x) * scale}px, ${clientY - (grab[1] - box.y) * scale}px)`;
}

// Where the dragged piece would land if dropped at (clientX, clientY): the place it snaps
// to and its state, "fits", "overlaps" (another piece), "covers" (a cell left open), or
// "off" (off the board: no place within reach, k null).
function landingAt(drag, clientX, clientY) {
  const rect = $("play-board").getBoundingClientRect();
  const onBoard = clientX >= rect.left && clientX <= rect.right &&
    clientY >= rect.top && clientY <= rect.bottom;
  if (!onBoard) return {state: "off", k: null, onBoard};
  const [bx, by] = boardPoint(clientX, clientY);
  const {k, refused} = nearestPlace(drag.piece, drag.o, bx - drag.grab[0], by - drag.grab[1],
                                    drag.from, play.cellSize);
  if (k !== null) return {state: "fits", k, onBoard};
  if (refused !== null) {
    return {state: obstacle(drag.piece, drag.o, refused, drag.from).state, k: refused, onBoard};
  }
  return {state: "off", k: null, onBoard};
}

// The landing preview follows the pointer: redrawn only when it changes.
function showLanding(clientX, clientY) {
  const was = play.drag.landing;
  const now = landingAt(play.drag, clientX, clientY);
  play.drag.landing = now;
  $("drag").dataset.state = now.state;
  if (!was || was.k !== now.k || was.state !== now.state) drawBoard();
}

function pointerMove(ev) {
  if (play.boardPress) {
    ev.preventDefault();
    previewAt(ev.clientX, ev.clientY);
    return;
  }
  if (play.press && !play.drag) {
    if (Math.hypot(ev.clientX - play.press.x, ev.clientY - play.press.y) < DRAG_START_PX) return;
    play.drag = play.press;
    play.press = null;
    play.ghost = null;
    restoreVerdict();
    floatPiece();
    drawBoard();
    toolButtons();
  }
  if (play.drag) {
    ev.preventDefault();
    moveFloat(ev.clientX, ev.clientY);
    showLanding(ev.clientX, ev.clientY);
  }
}

function pointerUp(ev) {
  if (play.boardPress) { liftOnBoard(ev); return; }
  play.press = null;
  if (!play.drag) return;
  const drag = play.drag;
  const landing = landingAt(drag, ev.clientX, ev.clientY);
  play.drag = null;
  play.dragged = true;
  play.grabbed[drag.piece] = {o: drag.o, i: grabbedCell(drag)};
  $("drag").remove();
  const without = play.placed.filter((_, i) => i !== drag.from);
  const back = drag.from === null ? "went back to the tray" : "went back where it was";
  if (!landing.onBoard) {  // dropped off the board: back to the tray
    if (drag.from !== null) setPosition(without);
    else {
      note(`${drag.piece} ${back}: it was dropped off the board`);
      drawAll();
    }
    return;
  }
  if (landing.state !== "fits") {  // nowhere to go: it goes back where it came from
    note(`${drag.piece} ${back}: ` + (landing.k === null
      ? "part of it would be off the board there"
      : refusal(drag.piece, drag.o, landing.k, drag.from)));
    drawAll();
    return;
  }
  const moved = {piece: drag.piece, o: drag.o, k: landing.k};
  if (drag.from === null) setPosition([...play.placed, moved]);
  else setPosition(play.placed.map((p, i) => (i === drag.from ? moved : p)));
}

function cancelDrag() {
  play.press = null;
  play.boardPress = false;
  if (!play.drag) return;
  play.drag = null;
  $("drag").remove();
  drawAll();
}

// A tap on a piece laid, with a piece chosen: said as a drop there is.
function tapBoard(ev) {
  if (play.dragged || !play.selected || play.drag) return;
  const covering = ev.target.closest(".placed");
  if (covering) note(`${play.selected} does not fit there: it would overlap ` +
                     `${covering.dataset.piece}`);
}

// --- tapping a cell with a piece chosen: pressed, the preview; lifted, the piece laid -------

// The cell under a point of the screen, within a cell's reach of its centre: {key, x, y}
// (x, y: the point in the board's pixels), or null.
function cellAt(clientX, clientY) {
  const [x, y] = boardPoint(clientX, clientY);
  let best = null;
  let bestDistance = play.cellSize * 0.75;
  for (const c of play.layout.cells) {
    const distance = Math.hypot(c.centre[0] - x, c.centre[1] - y);
    if (distance < bestDistance) { best = c; bestDistance = distance; }
  }
  return best && {key: cellKey(best.cell), x, y};
}

// Which of a dragged piece's cells (an index into its orientation's cells) it was held by.
function grabbedCell({piece, o, grab}) {
  const [, , x, y] = orientation(piece, o).places[0];
  const centres = cellsOf(piece, o, 0).map((c) => play.centres.get(cellKey(c)));
  let best = 0;
  centres.forEach(([cx, cy], i) => {
    const [bx, by] = centres[best];
    if (Math.hypot(cx - x - grab[0], cy - y - grab[1]) <
        Math.hypot(bx - x - grab[0], by - y - grab[1])) best = i;
  });
  return best;
}

// The place of orientation o that lays the piece on the cell tapped: by the cell the player
// last held it by in a drag, turned as it is now; else with the piece's centre nearest the
// finger, so that the cell under the finger is the piece's cell nearest its centre (of two
// as near, the one on the finger's side). null when no place of it covers that cell.
function placeByCell(piece, o, at) {
  const held = play.grabbed[piece];
  if (held && held.o === o) {
    const k = orientation(piece, o).places
      .findIndex((_, j) => cellKey(cellsOf(piece, o, j)[held.i]) === at.key);
    if (k >= 0) return k;
  }
  let best = null;
  let bestDistance = Infinity;
  orientation(piece, o).places.forEach((_, k) => {
    const cells = cellsOf(piece, o, k);
    if (!cells.some((c) => cellKey(c) === at.key)) return;
    const centres = cells.map((c) => play.centres.get(cellKey(c)));
    const cx = centres.reduce((t, p) => t + p[0], 0) / centres.length;
    const cy = centres.reduce((t, p) => t + p[1], 0) / centres.length;
    const distance = Math.hypot(cx - at.x, cy - at.y);
    if (distance < bestDistance - 1e-9) { best = k; bestDistance = distance; }
  });
  return best;
}

// The chosen piece shown where a tap at this point would lay it: {at, k}.
function previewAt(clientX, clientY) {
  const piece = play.selected;
  const o = play.orient[piece];
  const at = cellAt(clientX, clientY);
  const k = at ? placeByCell(piece, o, at) : null;
  const ghost = k === null ? null : {piece, o, k};
  const same = ghost && play.ghost && ghost.k === play.ghost.k && ghost.o === play.ghost.o &&
    ghost.piece === play.ghost.piece;
  if (!same && (ghost || play.ghost)) {
    play.ghost = ghost;
    drawBoard();
  }
  return {at, k};
}

function pressBoard(ev) {
  if (ev.button !== 0 || !play.selected || play.drag || ev.target.closest(".placed")) return;
  play.boardPress = true;
  previewAt(ev.clientX, ev.clientY);
}

// The finger (or the button) lifted: the piece laid where the preview showed it.
function liftOnBoard(ev) {
  play.boardPress = false;
  const piece = play.selected;
  if (!piece) return;
  const {at, k} = previewAt(ev.clientX, ev.clientY);
  if (!at) return;  // lifted off the board: nothing laid
  if (k === null) {
    note(`${piece} does not fit there: part of it would be off the board`);
    return;
  }
  placeGhost();
}

// A puzzle's layout, asked of the server once.
async function layoutOf(spec) {
  if (!play.layouts[spec]) play.layouts[spec] = await state.answers.layout(spec);
  return play.layouts[spec];
}

// Some placements ({piece, cells}) drawn on the cells of the puzzle chosen, the cells of
// labels left open: the solutions view's hints, drawn as play draws a position.
export async function positionPicture(placements, labels) {
  const layout = await layoutOf(state.spec);
  const svg = svgEl("svg", {class: "position", role: "img"});
  const open = new Set(labels);
  drawCells(svg, layout, new Set(layout.cells.filter((c) => open.has(c.label))
    .map((c) => cellKey(c.cell))));
  for (const {piece, cells} of placements) {
    const info = layout.pieces.find((p) => p.name === piece);
    const want = new Set(cells.map(cellKey));
    const found = info && info.orientations.flatMap((shape, o) => shape.places
      .filter(([dr, dc]) => shape.cells.length === want.size &&
              shape.cells.every(([a, b]) => want.has(cellKey([a + dr, b + dc]))))
      .map(([, , x, y]) => [o, x, y]))[0];
    if (found) {
      shapeOf(svg, info, found[0], found[1], found[2],
              {class: "shown", "data-piece": piece, "data-cells": JSON.stringify(cells)});
    }
  }
  return svg;
}

// --- hints, keys, loading -----------------------------------------------------------------

async function playHint() {
  showError("");
  if (play.status === "dead_end") {  // no hint extends a dead end: show the way out of it
    const names = play.takeBack.map((i) => play.placed[i].piece);
    feedback(names.length
      ? `hint: no piece can be added here; take back ${names.join(" or ")} (outlined in ` +
        "red): drag it to the tray, or press Undo"
      : "hint: no piece can be added here; press Undo or Clear and try another way", "dead_end");
    for (const i of play.takeBack) {
      $("play-board").querySelector(`.placed[data-index="${i}"]`)?.focus();
      break;
    }
    return;
  }
  // The answer is for this puzzle and this position: dropped if either changed meanwhile.
  const load = play.loads;
  const placed = play.placed;
  const settled = () => load === play.loads && placed === play.placed;
  try {
    const data = await state.answers.hint(puzzle(), placementsOf(placed));
    if (!settled()) return;
    if (data.complete) { verdict(`${data.labels.join(" ")}: solved!`, "solved"); return; }
    const found = findPlace(data.revealed.at(-1).piece, data.revealed.at(-1).cells);
    if (found) {
      play.clock.hints += 1;
      setPosition([...play.placed, found]);
    }
  } catch (err) {
    if (settled()) feedback(err.message, err.status === 409 ? "dead_end" : "invalid");
  }
}

function playKey(ev) {
  if (state.view !== "play") return;
  const target = ev.target;
  if (target.closest && target.closest("input, select, textarea")) return;
  const letter = ev.key.toLowerCase();
  if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && (letter === "z" || letter === "y")) {
    ev.preventDefault();
    if (letter === "y" || ev.shiftKey) redo();
    else undo();
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const arrows = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === "r") turn("rotate");
  else if (key === "f") turn("flip");
  else if (key === "u") undo();
  else if (key === "Escape") {
    cancelDrag();
    choose(null);
    if (target.closest && target.closest(".placed")) $("play-board").focus();
  } else if (key in arrows && (play.ghost || play.selected) && target === $("play-board")) {
    ev.preventDefault(); moveGhost(...arrows[key]);
  } else if (key in arrows && target.closest && target.closest("#play-board")) {
    ev.preventDefault(); roveBoard(target, arrows[key][0] + arrows[key][1]);
  } else if ((key === "Enter" || key === " ") && play.selected && target === $("play-board")) {
    ev.preventDefault(); placeGhost(true);
  }
}

// With no piece chosen, the arrow keys move the focus over the pieces on the board (Delete
// takes off the one in focus); the board itself stays the area's one Tab stop.
function roveBoard(target, step) {
  const pieces = [...$("play-board").querySelectorAll(".placed")];
  if (!pieces.length) return;
  const at = pieces.indexOf(target.closest(".placed"));
  const next = at < 0 ? (step > 0 ? 0 : pieces.length - 1)
    : (at + step + pieces.length) % pieces.length;
  pieces[next].focus();
}

// The board's size: the room the window leaves it, at the drawing's own proportions. Side
// by side (index.html's landscape arrangement, #play-view a grid) it is as tall as the
// window below its top, leaving the tools' column its least width; stacked, as tall as
// leaves the whole tray in view under it. The arrangement itself is the style sheet's.
const SHORT = "(orientation: landscape) and (max-height: 34rem)";
const BOARD_MARGIN_PX = 8;
const BOARD_LEAST_PX = 160;
const BOARD_MOST_PX = 720;  // side by side, the tools' column takes the rest of a wide window

function fitBoard() {
  const board = $("play-board");
  const box = board.viewBox.baseVal;
  if (board.closest("[hidden]") || !box || !box.width) return;
  const style = getComputedStyle(board);
  const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const view = $("play-view");
  const side = getComputedStyle(view).display === "grid";
  const top = board.getBoundingClientRect().top + window.scrollY;
  let width;
  let height;
  if (side) {
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
    const column = parseFloat(getComputedStyle(view).getPropertyValue("--side")) * rem;
    const gap = parseFloat(getComputedStyle(view).columnGap) || 0;
    // the footer in view below it, unless the window is too low to spare it the room
    const footer = window.matchMedia(SHORT).matches ? 0 : $("answers-by").offsetHeight;
    width = view.clientWidth - column - gap - padX;
    height = Math.min(BOARD_MOST_PX,
                      window.innerHeight - top - BOARD_MARGIN_PX - footer - padY);
  } else {
    const area = board.parentElement;
    const areaStyle = getComputedStyle(area);
    const tray = $("tray");
    const below = (tray.hidden ? 0 : tray.offsetHeight + parseFloat(getComputedStyle(tray).marginTop)) +
      parseFloat(areaStyle.paddingBottom);
    width = area.clientWidth - parseFloat(areaStyle.paddingLeft) -
      parseFloat(areaStyle.paddingRight) - padX;
    height = window.innerHeight - top - below - BOARD_MARGIN_PX - padY;
  }
  const aspect = box.height / box.width;
  height = Math.max(BOARD_LEAST_PX, Math.min(height, width * aspect));
  board.style.height = `${Math.floor(height + padY)}px`;
  board.style.width = `${Math.floor(height / aspect + padX)}px`;
  board.style.maxHeight = "none";
}

// onOther(query) opens the same puzzle for another date ({date}) or labels ({labels}).
export function playSetUp(onOther) {
  window.addEventListener("resize", fitBoard);
  // what lies above the board, and the tray under it, change its room
  const around = new ResizeObserver(() => fitBoard());
  for (const el of document.querySelectorAll("#goal, #error, #bar, #tools, #tray, footer")) {
    around.observe(el);
  }
  $("rotate").onclick = () => turn("rotate");
  $("flip").onclick = () => turn("flip");
  $("undo").onclick = () => undo();
  $("theme").onchange = () => { keep(THEME_KEY, $("theme").value); showTheme($("theme").value); };
  play.clockHidden = setting(CLOCK_KEY, "shown") === "hidden";
  $("clock").onclick = () => {
    play.clockHidden = !play.clockHidden;
    keep(CLOCK_KEY, play.clockHidden ? "hidden" : "shown");
    showClock();
  };
  setInterval(showClock, 1000);
  showClock();
  $("redo").onclick = () => redo();
  $("clear").onclick = () => { if (play.placed.length) setPosition([]); };
  $("play-hint").onclick = () => playHint();
  $("play-board").addEventListener("click", tapBoard);
  $("play-board").addEventListener("pointerdown", pressBoard);
  $("tray").addEventListener("keydown", trayKey);
  $("tool-row").addEventListener("keydown", toolsKey);
  $("copy-share").onclick = () => copyShare();
  $("share").onclick = () => share();
  $("download-share").onclick = () => downloadPicture();
  $("stats-button").onclick = () => openStats();
  $("solved-stats").onclick = () => openStats();
  // the next puzzle opened, the focus goes to its tray (the buttons pressed are hidden)
  const next = async (query) => {
    await onOther(query);
    const at = document.activeElement;
    if (state.view === "play" && (!at || at === document.body || at.closest("#solved"))) {
      focusTray();
    }
  };
  $("yesterday").onclick = () => next({date: dayBefore(state.query.date)});
  $("another-date").onclick = () => next(another());
  // a press starts afresh: the click that ends a drag is not a click
  window.addEventListener("pointerdown", () => { play.dragged = false; }, {capture: true});
  window.addEventListener("pointermove", pointerMove, {passive: false});
  window.addEventListener("pointerup", pointerUp);
  window.addEventListener("pointercancel", cancelDrag);
  document.addEventListener("keydown", playKey);
}

// The puzzle changed (or play mode opened): its board, its pieces, the kept position.
export async function playLoad() {
  const load = ++play.loads;
  feedback("", "");
  const spec = state.spec;  // (the layout asked for is kept under its own name)
  let layout;
  try { layout = await layoutOf(spec); }
  catch (err) { if (load === play.loads) showError(err.message); return; }
  if (load !== play.loads) return;
  // the puzzle's plan asked of the engine before the board is drawn, so made meanwhile
  try { await state.answers.prepare(puzzle()); } catch { /* (no puzzle to plan) */ }
  if (load !== play.loads) return;
  if (play.layout !== layout) {
    play.orient = {};
    play.grabbed = {};
  }
  play.layout = layout;
  play.pieces = Object.fromEntries(layout.pieces.map((p) => [p.name, p]));
  const c = layout.cells[0].points;
  let area = 0;
  c.forEach(([x, y], i) => { const [u, v] = c[(i + 1) % c.length]; area += x * v - u * y; });
  play.cellSize = Math.sqrt(Math.abs(area) / 2);
  play.centres = new Map(layout.cells.map((cell) => [cellKey(cell.cell), cell.centre]));
  for (const p of layout.pieces) {
    if (!allowed(p.name, play.orient[p.name] ?? 0)) play.orient[p.name] = 0;
    else play.orient[p.name] = play.orient[p.name] ?? 0;
  }
  play.key = storageKey();
  play.history = [];
  play.future = [];
  play.selected = null;
  play.ghost = null;
  play.labels = queryLabels(state.specs[spec], state.query);  // its cells open at once
  play.placed = restore();
  play.clock = restoreClock();
  showClock();
  play.takeBack = [];
  play.status = null;
  play.verdict = ["", ""];
  $("play-board").classList.remove("celebrate");
  solvedPanel();
  drawAll();
  fitBoard();
  feedback(`${play.labels.join(" ")}: counting the solutions ...`, "");
  await check();
}
