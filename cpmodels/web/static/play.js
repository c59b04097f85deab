// Play mode: the player lays the pieces on the board; after every move the server judges
// the position (/api/check). The board and the pieces come from /api/layout: every place
// each orientation of each piece fits, so a dropped piece snaps to the nearest place and
// nothing here knows the grid's geometry. The position is kept in localStorage, per puzzle
// and date, and never sent anywhere but to be judged.
import {$, svgEl} from "./dom.js";
import {api, faceUp, puzzle, showError, showLabels, state} from "./puzzle.js";

const TILE_SCALE = 0.5;   // tray pieces are drawn at half the board's size
const DRAG_START_PX = 5;  // a press that moves less than this is a click
const play = {
  layouts: {}, layout: null, pieces: {}, cellSize: 40,
  placed: [],      // the position: {piece, o, k}, orientation o of the piece at its place k
  history: [],     // earlier positions, for undo
  orient: {},      // the orientation each piece shows in the tray
  selected: null,  // the piece chosen in the tray (keyboard and tap play)
  ghost: null,     // where the chosen piece would go: {piece, o, k}
  drag: null, press: null, dragged: false, labels: [], takeBack: [], checks: 0, loads: 0, key: null,
  status: null,    // the last verdict: solved, open, dead_end or invalid
};

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
  try { localStorage.setItem(play.key, JSON.stringify(placementsOf(play.placed))); }
  catch (err) { /* storage full or refused: the position still lives in the page */ }
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
  play.placed = placed;
  play.takeBack = [];
  save();
  drawAll();
  return check();
}

function undo() {
  if (!play.history.length) return;
  play.placed = play.history.pop();
  play.takeBack = [];
  save();
  drawAll();
  check();
}

function feedback(text, kind) {
  $("feedback").textContent = text;
  $("feedback").className = kind || "";
}

// The verdict on the position; #feedback's data-pieces says how many pieces it is about.
async function check() {
  const mine = ++play.checks;
  const load = play.loads;
  const pieces = String(play.placed.length);
  $("feedback").setAttribute("aria-busy", "true");
  try {
    const data = await api("/api/check", {...puzzle(), placements: placementsOf(play.placed)});
    if (mine !== play.checks || load !== play.loads) return;
    play.labels = data.labels;
    showLabels(data.labels);
    play.takeBack = data.take_back;
    play.status = data.status;
    feedback(data.status === "solved" ? `${data.labels.join(" ")}: solved! Every piece fits.` : data.message,
             data.status);
    drawBoard();
  } catch (err) {
    if (mine !== play.checks || load !== play.loads) return;
    play.status = "invalid";
    feedback(err.message, "invalid");
  }
  $("feedback").dataset.pieces = pieces;
  $("feedback").setAttribute("aria-busy", "false");
}

// --- the board, the tray, the ghost --------------------------------------------------------

function used(piece) { return play.placed.filter((p) => p.piece === piece).length; }

function pieceShape(parent, piece, o, dx, dy, attrs = {}, lettered = true) {
  const info = play.pieces[piece];
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

function drawBoard() {
  const board = $("play-board");
  const {origin, size} = play.layout;
  const pad = 4;
  board.setAttribute("viewBox",
                     `${origin[0] - pad} ${origin[1] - pad} ${size[0] + 2 * pad} ${size[1] + 2 * pad}`);
  board.replaceChildren();
  const open = openCells();
  for (const c of play.layout.cells) {
    const isOpen = open.has(cellKey(c.cell));
    svgEl("polygon", {points: c.points.map((p) => p.join(",")).join(" "),
                      class: isOpen ? "cell open" : "cell", "data-cell": cellKey(c.cell)}, board);
    if (c.label !== null) {
      svgEl("text", {x: c.centre[0], y: c.centre[1], class: isOpen ? "open" : ""}, board)
        .textContent = c.label;
    }
  }
  play.placed.forEach(({piece, o, k}, i) => {
    if (play.drag && play.drag.from === i) return;
    const [, , x, y] = orientation(piece, o).places[k];
    const g = pieceShape(board, piece, o, x, y, {
      class: play.takeBack.includes(i) ? "placed take-back" : "placed", tabindex: "0",
      "data-index": i, "data-piece": piece, role: "button",
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
    const g = pieceShape(board, piece, o, x, y, {class: "ghost"}, false);
    if (!legal(piece, o, k, null)) g.setAttribute("opacity", "0.3");
  }
}

function drawTray() {
  const tray = $("tray");
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
                              width: (box.w + 2 * pad) * TILE_SCALE,
                              height: (box.h + 2 * pad) * TILE_SCALE}, tile);
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
      choose(play.selected === info.name ? null : info.name, ev.detail === 0);
    });
    tray.append(tile);
  }
  toolButtons();
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
  $("clear").disabled = play.placed.length === 0;
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

// Why a place is refused, in words.
function refusal(piece, o, k, from) {
  const open = openCells();
  for (const c of cellsOf(piece, o, k)) {
    if (open.has(cellKey(c))) {
      const label = play.layout.cells.find((x) => cellKey(x.cell) === cellKey(c)).label;
      return `${piece} would cover ${label}, which stays open today`;
    }
  }
  return `${piece} would overlap a piece on the board`;
}

// The legal place of orientation o nearest to pixel offset (x, y), within reach.
function nearestPlace(piece, o, x, y, from, reach) {
  let best = null;
  let bestDistance = reach;
  let refused = null;
  orientation(piece, o).places.forEach(([, , px, py], k) => {
    const distance = Math.hypot(px - x, py - y);
    if (distance >= reach) return;
    if (!legal(piece, o, k, from)) { if (refused === null) refused = k; return; }
    if (distance < bestDistance) { best = k; bestDistance = distance; }
  });
  return {k: best, refused};
}

function choose(piece, byKeyboard = false) {
  play.selected = piece;
  play.ghost = null;
  if (piece !== null) {
    const o = play.orient[piece];
    const [cx, cy] = [play.layout.origin[0] + play.layout.size[0] / 2,
                      play.layout.origin[1] + play.layout.size[1] / 2];
    const mark = orientation(piece, o).mark;
    const {k} = nearestPlace(piece, o, cx - mark[0], cy - mark[1], null, Infinity);
    if (k !== null) play.ghost = {piece, o, k};
  }
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
  if (play.ghost && play.ghost.piece === piece) {
    const old = orientation(piece, o);
    const [, , x, y] = old.places[play.ghost.k];
    const [mx, my] = [x + old.mark[0], y + old.mark[1]];
    const mark = orientation(piece, next).mark;
    const {k} = nearestPlace(piece, next, mx - mark[0], my - mark[1], null, Infinity);
    play.ghost = k === null ? null : {piece, o: next, k};
  }
  drawAll();
}

// Move the ghost to the nearest place in an arrow's direction.
function moveGhost(dx, dy) {
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

function placeGhost() {
  if (!play.ghost) return;
  const {piece, o, k} = play.ghost;
  if (!legal(piece, o, k, null)) { feedback(refusal(piece, o, k, null), "invalid"); return; }
  const left = play.pieces[piece].count - used(piece) - 1;
  play.ghost = null;
  play.selected = left > 0 ? piece : null;
  setPosition([...play.placed, {piece, o, k}]);
  if (play.selected) choose(piece);
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

function pointerMove(ev) {
  if (play.press && !play.drag) {
    if (Math.hypot(ev.clientX - play.press.x, ev.clientY - play.press.y) < DRAG_START_PX) return;
    play.drag = play.press;
    play.press = null;
    play.ghost = null;
    floatPiece();
    drawBoard();
    toolButtons();
  }
  if (play.drag) { ev.preventDefault(); moveFloat(ev.clientX, ev.clientY); }
}

function pointerUp(ev) {
  play.press = null;
  if (!play.drag) return;
  const drag = play.drag;
  play.drag = null;
  play.dragged = true;
  $("drag").remove();
  const rect = $("play-board").getBoundingClientRect();
  const onBoard = ev.clientX >= rect.left && ev.clientX <= rect.right &&
    ev.clientY >= rect.top && ev.clientY <= rect.bottom;
  const without = play.placed.filter((_, i) => i !== drag.from);
  if (!onBoard) {  // dropped off the board: back to the tray
    if (drag.from !== null) setPosition(without);
    else drawAll();
    return;
  }
  const [bx, by] = boardPoint(ev.clientX, ev.clientY);
  const {k, refused} = nearestPlace(drag.piece, drag.o, bx - drag.grab[0], by - drag.grab[1],
                                    drag.from, play.cellSize);
  if (k === null) {  // nowhere to go: it goes back where it came from
    if (refused !== null) feedback(refusal(drag.piece, drag.o, refused, drag.from), "invalid");
    drawAll();
    return;
  }
  const moved = {piece: drag.piece, o: drag.o, k};
  if (drag.from === null) setPosition([...play.placed, moved]);
  else setPosition(play.placed.map((p, i) => (i === drag.from ? moved : p)));
}

function cancelDrag() {
  play.press = null;
  if (!play.drag) return;
  play.drag = null;
  $("drag").remove();
  drawAll();
}

// A tap on the board puts the chosen piece there.
function tapBoard(ev) {
  if (play.dragged || !play.selected || play.drag || ev.target.closest(".placed")) return;
  const piece = play.selected;
  const o = play.orient[piece];
  const mark = orientation(piece, o).mark;
  const [bx, by] = boardPoint(ev.clientX, ev.clientY);
  const {k} = nearestPlace(piece, o, bx - mark[0], by - mark[1], null, play.cellSize);
  if (k === null) return;
  play.ghost = {piece, o, k};
  placeGhost();
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
    const data = await api("/api/hint", {...puzzle(), revealed: placementsOf(placed)});
    if (!settled()) return;
    if (data.complete) { feedback(`${data.labels.join(" ")}: solved!`, "solved"); return; }
    const found = findPlace(data.revealed.at(-1).piece, data.revealed.at(-1).cells);
    if (found) setPosition([...play.placed, found]);
  } catch (err) {
    if (settled()) feedback(err.message, err.status === 409 ? "dead_end" : "invalid");
  }
}

function playKey(ev) {
  if (state.view !== "play") return;
  const target = ev.target;
  if (target.closest && target.closest("input, select, textarea")) return;
  if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "z") {
    ev.preventDefault(); undo(); return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const arrows = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === "r") turn("rotate");
  else if (key === "f") turn("flip");
  else if (key === "u") undo();
  else if (key === "Escape") { cancelDrag(); choose(null); }
  else if (key in arrows && play.ghost && target === $("play-board")) {
    ev.preventDefault(); moveGhost(...arrows[key]);
  } else if ((key === "Enter" || key === " ") && play.ghost && target === $("play-board")) {
    ev.preventDefault(); placeGhost();
  } else return;
}

// On a wide screen the board takes the height the window leaves below the controls above
// it, so the board, the tray and the tools are seen together without scrolling.
const WIDE = "(min-width: 56rem)";
const BOARD_MARGIN_PX = 12;

function fitBoard() {
  const board = $("play-board");
  if (!window.matchMedia(WIDE).matches || board.closest("[hidden]")) {
    board.style.height = "";
    return;
  }
  const top = board.getBoundingClientRect().top + window.scrollY;
  board.style.height = `${Math.max(256, window.innerHeight - top - BOARD_MARGIN_PX)}px`;
}

export function playSetUp() {
  window.addEventListener("resize", fitBoard);
  const above = new ResizeObserver(fitBoard);
  for (const el of document.querySelectorAll("h1, #error, #puzzle-box, .tabs")) above.observe(el);
  $("rotate").onclick = () => turn("rotate");
  $("flip").onclick = () => turn("flip");
  $("undo").onclick = () => undo();
  $("clear").onclick = () => { if (play.placed.length) setPosition([]); };
  $("play-hint").onclick = () => playHint();
  $("play-board").addEventListener("click", tapBoard);
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
  let layout = play.layouts[spec];
  if (!layout) {
    try { layout = await api(`/api/layout/${encodeURIComponent(spec)}`); }
    catch (err) { if (load === play.loads) showError(err.message); return; }
    play.layouts[spec] = layout;
  }
  if (load !== play.loads) return;
  if (play.layout !== layout) play.orient = {};
  play.layout = layout;
  play.pieces = Object.fromEntries(layout.pieces.map((p) => [p.name, p]));
  const c = layout.cells[0].points;
  let area = 0;
  c.forEach(([x, y], i) => { const [u, v] = c[(i + 1) % c.length]; area += x * v - u * y; });
  play.cellSize = Math.sqrt(Math.abs(area) / 2);
  for (const p of layout.pieces) {
    if (!allowed(p.name, play.orient[p.name] ?? 0)) play.orient[p.name] = 0;
    else play.orient[p.name] = play.orient[p.name] ?? 0;
  }
  play.key = storageKey();
  play.history = [];
  play.selected = null;
  play.ghost = null;
  play.labels = [];
  play.placed = restore();
  play.takeBack = [];
  drawAll();
  fitBoard();
  await check();
}
