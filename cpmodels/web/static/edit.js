// The board editor: draw a calendar board, label its cells in groups, pick its pieces;
// every edit checks the board's arithmetic at once and streams every label combination's
// count (POST /api/board/counts), the previous stream cancelled.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { grid: "square", rows: 7, cols: 7, tokens: [], groups: {}, pieces: [],
                name: "my-calendar" };
let stream = null;      // the AbortController of the running count
let designing = null;   // ... and of the running design question
let pending = null;     // the debounce timer of the next check
let painting = null;    // while dragging over cells: the state being painted
let focused = [0, 0];   // the cell the keyboard is on
let pools = {};
const stats = {};       // label -> {min, sum, zero}

function emptyTokens(rows, cols) {
  return Array.from({ length: rows }, () => Array(cols).fill("#"));
}

// A cell's corners in pixels: token (row, col) of a drawing, as the spec reads it (on the
// hex grid the token (row, col) is the axial cell (q = col, r = row)).
function corners(grid, r, c, unit = 40) {
  if (grid === "square") return [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]].map(([x, y]) => [x * unit, y * unit]);
  if (grid === "triangle") {
    const sx = unit * 0.65, sy = unit * 1.125;
    const pts = (r + c) % 2 === 0 ? [[c + 1, r], [c + 2, r + 1], [c, r + 1]]
                                  : [[c, r], [c + 2, r], [c + 1, r + 1]];
    return pts.map(([x, y]) => [x * sx, y * sy]);
  }
  const sx = unit * 0.625 * Math.sqrt(3) / 2, sy = unit * 0.3125;
  const x = 2 * c + r + 1, y = 3 * r + 2;
  return [[x, y - 2], [x + 1, y - 1], [x + 1, y + 1], [x, y + 2], [x - 1, y + 1], [x - 1, y - 1]]
    .map(([a, b]) => [a * sx, b * sy]);
}

function labelGroup(label) {
  return Object.keys(state.groups).find((g) => state.groups[g].includes(label));
}

function removeLabel(label) {
  for (const g of Object.keys(state.groups)) state.groups[g] = state.groups[g].filter((l) => l !== label);
}

function heat(label) {
  const s = stats[label];
  if (!s) return null;
  if (s.zero) return "#e0606b";
  const top = Math.max(...Object.values(stats).map((t) => t.min), 1);
  const t = Math.sqrt(s.min / top);
  return `hsl(${Math.round(30 + 100 * t)}, 70%, ${Math.round(72 - 20 * t)}%)`;
}

function draw() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  let maxX = 0, maxY = 0;
  state.tokens.forEach((row, r) => row.forEach((token, c) => {
    const pts = corners(state.grid, r, c);
    pts.forEach(([x, y]) => { maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); });
    const g = document.createElementNS(ns, "g");
    g.dataset.row = r; g.dataset.col = c; g.dataset.token = token;
    g.setAttribute("class", "cellgroup");
    g.setAttribute("tabindex", r === focused[0] && c === focused[1] ? "0" : "-1");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", `row ${r + 1}, column ${c + 1}: ${token === "#" ? "not on the board" : token === "." ? "a plain cell" : token}`);
    const poly = document.createElementNS(ns, "polygon");
    poly.setAttribute("points", pts.map((p) => p.join(",")).join(" "));
    poly.setAttribute("class", "cell " + (token === "#" ? "off" : "on"));
    if (token !== "#" && token !== ".") {
      const colour = heat(token);
      if (colour) poly.style.fill = colour;
      const s = stats[token];
      if (s) { g.dataset.min = s.min; g.dataset.sum = s.sum; g.dataset.zero = s.zero; }
      const title = document.createElementNS(ns, "title");
      title.textContent = s ? `${token} (${labelGroup(token)}): fewest ${s.min.toLocaleString()}, ` +
        `${s.sum.toLocaleString()} in all, ${s.zero} unsolvable` : `${token} (${labelGroup(token) || "no group"})`;
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
  svg.setAttribute("viewBox", `-2 -2 ${maxX + 4} ${maxY + 4}`);
  svg.setAttribute("width", maxX + 4);
  svg.addEventListener("keydown", keyed);
  svg.addEventListener("pointerdown", (e) => { const g = e.target.closest(".cellgroup"); if (g) { e.preventDefault(); press(g, true); } });
  svg.addEventListener("pointerover", (e) => { const g = e.target.closest(".cellgroup"); if (g && painting !== null && e.buttons) press(g, false); });
  const hadFocus = $("board").contains(document.activeElement);
  $("board").replaceChildren(svg);
  if (hadFocus) svg.querySelector('.cellgroup[tabindex="0"]')?.focus();
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
    press(g, true);
  }
}

document.addEventListener("pointerup", () => { painting = null; });

function press(g, first) {
  const r = +g.dataset.row, c = +g.dataset.col, token = state.tokens[r][c];
  const tool = document.querySelector("input[name=tool]:checked").value;
  if (tool === "cells") {
    if (first) painting = token === "#" ? "." : "#";
    if (token !== "#" && token !== ".") removeLabel(token);
    state.tokens[r][c] = painting;
  } else {
    const label = $("label").value.trim();
    const group = $("group").value;
    if (!label || /\s/.test(label) || label === "#" || label === "." || !group) {
      $("errors").textContent = "type a label (no spaces) and choose its group first";
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

function nextLabel(label) {  // 1 -> 2, so a run of days is typed by clicking alone
  return /^\d+$/.test(label) ? String(+label + 1) : "";
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
function pieceSvg(cells, unit = 11) {
  const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
  const polys = cells.map(([a, b]) => state.grid === "hex" ? corners("hex", b, a, unit) : corners(state.grid, a, b, unit));
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
  const box = $("inuse");
  box.replaceChildren(...state.pieces.map((p, k) => {
    const div = document.createElement("div");
    div.className = "piece"; div.dataset.piece = p.name;
    const input = document.createElement("input");
    input.value = countText(p.count); input.title = "how many: 1, 0-2 (a range); 0 takes it out";
    input.setAttribute("aria-label", `how many ${p.name}`);
    input.addEventListener("change", () => {
      const m = input.value.trim().match(/^(\d+)(?:\s*-\s*(\d+))?$/);
      if (!m) { input.value = countText(p.count); return; }
      const count = m[2] === undefined ? +m[1] : [+m[1], +m[2]];
      if (count === 0) state.pieces.splice(k, 1); else p.count = count;
      drawPieces(); edited();
    });
    const always = document.createElement("label");
    const tick = document.createElement("input");
    tick.type = "checkbox"; tick.checked = !!p.always; tick.className = "always";
    tick.addEventListener("change", () => { p.always = tick.checked; });
    always.append(tick, document.createTextNode("always"));
    always.title = "in every set the design question tries";
    div.append(pieceSvg(pieceCells(p)), document.createTextNode(p.name), input, always);
    return div;
  }));
}

async function loadPools() {
  pools = await (await fetch(`/api/board/pools/${state.grid}`)).json();
  $("pool").replaceChildren(...Object.keys(pools).map((n) => new Option(n, n)));
  drawPool();
}

function drawPool() {
  const list = pools[$("pool").value] || [];
  $("poolpieces").replaceChildren(...list.map((p) => {
    const b = document.createElement("button");
    b.className = "add-piece"; b.dataset.piece = p.name; b.title = `add ${p.name}`;
    b.append(pieceSvg(p.cells));
    b.append(document.createTextNode(p.name));
    b.addEventListener("click", () => {
      const have = state.pieces.find((q) => q.name === p.name);
      if (have) have.count = (Array.isArray(have.count) ? have.count[1] : have.count) + 1;
      else state.pieces.push(state.grid === "square" ? { name: p.name, shape: p.shape, count: 1 }
                                                    : { name: p.name, cells: p.cells, count: 1 });
      drawPieces(); edited();
    });
    return b;
  }));
}

function spec() {
  const out = { kind: "calendar", name: $("name").value.trim() || "my-calendar", grid: state.grid,
                board: state.tokens.map((row) => row.join(" ")), groups: state.groups,
                pieces: state.pieces.map((p) => ({ name: p.name, ...(p.shape ? { shape: p.shape } : { cells: p.cells }),
                                                   ...(countText(p.count) === "1" ? {} : { count: p.count }) })) };
  if (!$("flip").checked) out.flip = false;
  return out;
}

let generation = 0;     // each edit's number: answers to an older board are dropped

function edited() {
  generation += 1;
  draw(); drawGroups();
  if (stream) { stream.abort(); stream = null; }
  if (designing) designing.abort();  // its sets were of the board before the edit
  clearTimeout(pending);
  pending = setTimeout(check, 120);
}

async function check() {
  const mine = generation;
  for (const k of Object.keys(stats)) delete stats[k];
  $("summary").textContent = ""; $("unsolvable").textContent = ""; $("progress").value = 0;
  delete $("summary").dataset.done;
  let answer;
  try {
    answer = await (await post("/api/board/check", spec())).json();
  } catch (e) {
    if (mine === generation) $("errors").textContent = `the server did not answer: ${e.message}`;
    return;
  }
  if (mine !== generation) return;  // the board changed while it was checked
  $("errors").textContent = answer.valid ? "" : answer.errors.map((e) => (e.field ? e.field + ": " : "") + e.message).join("\n");
  $("arith").textContent = answer.valid ? answer.message : "";
  if (answer.valid && answer.fits) count(answer.combinations, mine);
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

function post(url, body, signal) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" },
                      body: JSON.stringify(body), signal });
}

async function count(total, mine) {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  $("progress").max = total;
  let seen = 0;
  try {
    const response = await post("/api/board/counts", spec(), controller.signal);
    if (!response.ok) { $("errors").textContent = (await response.json()).error; return; }
    await readLines(response, (lines) => {
      if (mine !== generation) { controller.abort(); return false; }
      for (const line of lines) {
        if (line.labels) {
          seen += 1;
          for (const label of line.labels) {
            const s = stats[label] || (stats[label] = { min: Infinity, sum: 0, zero: 0 });
            s.min = Math.min(s.min, line.count); s.sum += line.count; s.zero += line.count === 0;
          }
        } else finish(line);
      }
      $("progress").value = seen;
      if (!$("summary").dataset.done) $("summary").textContent = `${seen.toLocaleString()} of ${total.toLocaleString()} combinations counted`;
      draw();
      return true;
    });
  } catch (e) {
    if (e.name !== "AbortError") $("errors").textContent = String(e);
  } finally {
    if (stream === controller) stream = null;
  }
}

function finish(line) {
  const summary = $("summary");
  if (!line.done) { summary.textContent = line.error || "stopped"; return; }
  summary.dataset.done = "1";
  const every = line.unsolvable.length === 0;
  const hard = line.fewest ? `hardest ${line.fewest.labels.join(" ")} (${line.fewest.count.toLocaleString()})` : "";
  const easy = line.most ? `easiest ${line.most.labels.join(" ")} (${line.most.count.toLocaleString()})` : "";
  let said = every ? "every combination is solvable"
                   : `${line.unsolvable.length} of ${line.combinations} combinations have no solution`;
  if (!every && line.unsolvable_real_dates) {
    const real = line.unsolvable_real_dates.length;
    said += real ? ` (${real} of them real dates)` : "; every real date is solvable";
  }
  summary.textContent = `${said}; ${hard}; ${easy}; ${line.seconds} s`;
  $("unsolvable").textContent = line.unsolvable.map((l) => l.join(" ")).join(", ");
}

function load(fields) {
  state.grid = fields.grid || "square";
  state.name = fields.name || "my-calendar";
  const rows = (fields.board || []).map((r) => String(r).trim().split(/\s+/));
  state.rows = Math.max(1, rows.length); state.cols = Math.max(1, ...rows.map((r) => r.length));
  state.tokens = emptyTokens(state.rows, state.cols);
  rows.forEach((row, r) => row.forEach((t, c) => { state.tokens[r][c] = t; }));
  state.groups = {};
  for (const [g, labels] of Object.entries(fields.groups || {})) state.groups[g] = labels.map(String);
  state.pieces = (fields.pieces || []).map((p) => ({ name: p.name, count: p.count ?? 1,
    ...(p.cells ? { cells: p.cells } : { shape: typeof p.shape === "string" ? p.shape.split("/") : p.shape }) }));
  $("flip").checked = fields.flip !== false;
  $("grid").value = state.grid; $("rows").value = state.rows; $("cols").value = state.cols;
  $("name").value = state.name;
  drawPieces(); loadPools(); edited();
}

function resize() {
  const rows = Math.max(1, Math.min(20, +$("rows").value || 1)), cols = Math.max(1, Math.min(20, +$("cols").value || 1));
  const tokens = emptyTokens(rows, cols);
  state.tokens.forEach((row, r) => row.forEach((t, c) => { if (r < rows && c < cols) tokens[r][c] = t; else if (t !== "#" && t !== ".") removeLabel(t); }));
  Object.assign(state, { rows, cols, tokens });
  edited();
}

function base64url(text) { return btoa(unescape(encodeURIComponent(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""); }
function unbase64url(text) { return decodeURIComponent(escape(atob(text.replace(/-/g, "+").replace(/_/g, "/")))); }

async function init() {
  const specs = await (await fetch("/api/specs")).json();
  for (const s of specs.specs) $("start").append(new Option(s.name, s.name));
  $("start").addEventListener("change", async () => {
    if (!$("start").value) { load({ board: [], groups: {}, pieces: [] }); resize(); return; }
    load(await (await fetch(`/api/board/start/${$("start").value}`)).json());
  });
  $("grid").addEventListener("change", () => { state.grid = $("grid").value; state.pieces = []; drawPieces(); loadPools(); clearPad(); edited(); });
  $("flip").addEventListener("change", edited);
  $("padadd").addEventListener("click", addDrawnPiece);
  $("padclear").addEventListener("click", clearPad);
  $("play").addEventListener("click", () => { window.open("/#board=" + base64url(JSON.stringify(spec())), "_blank"); });
  $("make").addEventListener("click", makeFiles);
  $("design").addEventListener("click", runDesign);
  $("designstop").addEventListener("click", () => { if (designing) designing.abort(); });
  $("rows").addEventListener("change", resize);
  $("cols").addEventListener("change", resize);
  $("name").addEventListener("change", edited);
  $("pool").addEventListener("change", drawPool);
  $("addgroup").addEventListener("click", () => {
    const g = $("newgroup").value.trim();
    if (g && !(g in state.groups)) { state.groups[g] = []; $("newgroup").value = ""; drawGroups(); $("group").value = g; }
  });
  $("save").addEventListener("click", async () => {
    const response = await post("/api/board/yaml", spec());
    if (!response.ok) { $("errors").textContent = (await response.json()).error; return; }
    const a = document.createElement("a");
    a.href = URL.createObjectURL(await response.blob());
    a.download = `${spec().name}.yaml`; a.click();
  });
  $("open").addEventListener("change", async () => {
    const file = $("open").files[0];
    if (!file) return;
    const response = await fetch("/api/board/open", { method: "POST", body: await file.text() });
    const answer = await response.json();
    if (!response.ok) { $("errors").textContent = answer.error; return; }
    load(answer);
  });
  $("share").addEventListener("click", () => {
    location.hash = "board=" + base64url(JSON.stringify(spec()));
    $("shared").textContent = "the address now holds the board";
  });
  const shared = location.hash.match(/^#board=(.+)$/);
  if (shared) { try { load(JSON.parse(unbase64url(shared[1]))); return; } catch (e) { $("errors").textContent = "the link's board cannot be read"; } }
  state.tokens = emptyTokens(state.rows, state.cols);
  clearPad();
  await loadPools();
  edited();
}

// --- a piece drawn cell by cell ---------------------------------------------------------

const PAD = { square: [5, 5], triangle: [4, 8], hex: [5, 5] };
let pad = [];

function clearPad() {
  const [rows, cols] = PAD[state.grid];
  pad = Array.from({ length: rows }, () => Array(cols).fill(false));
  drawPad();
}

function drawPad() {
  const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
  let maxX = 0, maxY = 0;
  pad.forEach((row, r) => row.forEach((on, c) => {
    const pts = corners(state.grid, r, c, 22);
    pts.forEach(([x, y]) => { maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); });
    const poly = document.createElementNS(ns, "polygon");
    poly.setAttribute("points", pts.map((p) => p.join(",")).join(" "));
    poly.setAttribute("class", "padcell " + (on ? "on" : "off"));
    poly.dataset.row = r; poly.dataset.col = c;
    poly.addEventListener("click", () => { pad[r][c] = !pad[r][c]; drawPad(); });
    svg.appendChild(poly);
  }));
  svg.setAttribute("width", maxX + 2); svg.setAttribute("height", maxY + 2);
  $("pad").replaceChildren(svg);
}

function addDrawnPiece() {
  const name = $("padname").value.trim();
  const cells = [];
  pad.forEach((row, r) => row.forEach((on, c) => { if (on) cells.push(state.grid === "hex" ? [c, r] : [r, c]); }));
  if (!cells.length) { $("errors").textContent = "draw the piece's cells first"; return; }
  if (!/^[A-Za-z0-9_-]+$/.test(name) || state.pieces.some((p) => p.name === name)) {
    $("errors").textContent = "give the drawn piece a new name (letters, digits, - or _)"; return;
  }
  if (state.grid === "square") {
    const r0 = Math.min(...cells.map((c) => c[0])), c0 = Math.min(...cells.map((c) => c[1]));
    const rows = Math.max(...cells.map((c) => c[0])) - r0 + 1, cols = Math.max(...cells.map((c) => c[1])) - c0 + 1;
    const shape = Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) =>
      cells.some(([a, b]) => a === r + r0 && b === c + c0) ? "#" : ".").join(""));
    state.pieces.push({ name, shape, count: 1 });
  } else state.pieces.push({ name, cells, count: 1 });
  $("padname").value = "";
  clearPad(); drawPieces(); edited();
}

// --- Play it, and the files to make it --------------------------------------------------

async function makeFiles() {
  $("shared").textContent = "making the files...";
  const response = await post("/api/board/make", spec());
  if (!response.ok) { $("errors").textContent = (await response.json()).error; $("shared").textContent = ""; return; }
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await response.blob());
  a.download = `${spec().name}.zip`; a.click();
  $("shared").textContent = "";
}

// --- which sets of the pieces work ------------------------------------------------------


async function runDesign() {
  if (designing) designing.abort();
  const controller = new AbortController();
  designing = controller;
  $("designstop").disabled = false;
  $("sets").replaceChildren(); $("designsummary").textContent = ""; $("designprogress").value = 0;
  delete $("designsummary").dataset.done;
  const body = { board: spec(), always: state.pieces.filter((p) => p.always).map((p) => p.name),
                 choose: +$("choose").value, require: $("require").value };
  let total = 1, seen = 0, working = 0;
  try {
    const response = await post("/api/board/design", body, controller.signal);
    if (!response.ok) { $("designsummary").textContent = (await response.json()).error; return; }
    await readLines(response, (lines) => {
      for (const line of lines) {
        if (line.candidates !== undefined && !line.done) { total = Math.max(1, line.candidates); $("designprogress").max = total; }
        else if (line.pieces) {
          seen += 1;
          if (line.works) { working += 1; showSet(line); }
        } else if (line.done) showRanking(line);
        else if (line.error) $("designsummary").textContent = line.error;
      }
      $("designprogress").value = seen;
      if (!$("designsummary").dataset.done) $("designsummary").textContent = `${seen.toLocaleString()} of ${total.toLocaleString()} sets decided, ${working} work`;
      return true;
    });
  } catch (e) {
    if (e.name !== "AbortError") $("designsummary").textContent = String(e);
    else $("designsummary").textContent += " (stopped)";
  } finally {
    if (designing === controller) { designing = null; $("designstop").disabled = true; }
  }
}

function setText(v) {
  return `${v.pieces.join(" ")}: ${v.min === null ? "works" : `fewest ${v.min.toLocaleString()} solutions (${(v.argmin || []).join(" ")}), ${v.total.toLocaleString()} in all`}`;
}

// A working set, listed; clicked, it becomes the board's pieces (to count, save or make).
function setItem(v) {
  const li = document.createElement("li");
  li.className = "works"; li.textContent = setText(v); li.dataset.pieces = v.pieces.join(" ");
  li.title = "use this set"; li.style.cursor = "pointer";
  li.addEventListener("click", () => {
    state.pieces = state.pieces.filter((p) => v.pieces.includes(p.name)).map((p) => ({ ...p, always: false }));
    drawPieces(); edited();
  });
  return li;
}

function showSet(v) { $("sets").append(setItem(v)); }

function showRanking(line) {
  $("sets").replaceChildren(...line.working.map(setItem));
  $("designsummary").dataset.done = "1";
  $("designsummary").textContent = `${line.working.length} of ${line.candidates.toLocaleString()} sets work, ranked by their hardest date; ${line.seconds} s`;
}

init();
