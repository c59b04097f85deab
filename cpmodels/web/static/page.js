// The play page: which puzzle (spec, date or labels, face up), kept in the URL; the
// solutions view (step through solutions, hints, the count). Play mode is in play.js, what
// both views share in puzzle.js.
import {answersText, openAnswers, queryLabels} from "./answers.js";
import {$, offerOffline, onStaticSite} from "./dom.js";
import {playLoad, playSetUp, positionPicture} from "./play.js";
import {
  api, faceUp, goal, isRealDate, localToday, puzzle, showError, showLabels, solutionIndex,
  state, title,
} from "./puzzle.js";
import {loadDrawings} from "./cells.js";
import {linkedBoard} from "./words.js";

// What the static site says of a linked board when its engine did not load.
const NEEDS_ENGINE = "This link's board is played by the puzzle engine in the browser, " +
  "which did not load here (WebAssembly or workers may be blocked, or a file of the site " +
  "is missing), and this site has no server to play it.";

// Each question for the board takes a new number, and a newer one aborts the one before:
// an answer that comes back after a newer question was asked (a slow first load, a quick
// change of date) is dropped. The question is built (from settled state) before the number
// is taken, so one that cannot be built leaves the one in flight alone: ask(answers,
// signal) is called with it built.
let latest = 0;
let inFlight = null;

async function current(ask) {
  const mine = ++latest;
  if (inFlight) inFlight.abort();
  const controller = new AbortController();
  inFlight = controller;
  let data;
  try {
    data = await ask(state.answers, controller.signal);
  } catch (err) {
    if (mine !== latest || err.name === "AbortError") throw new Stale();
    throw err;
  } finally {
    if (inFlight === controller) inFlight = null;
  }
  if (mine !== latest) throw new Stale();
  if (Array.isArray(data.labels)) showLabels(data.labels);
  return data;
}

class Stale extends Error {}

function failed(err) { if (!(err instanceof Stale)) showError(err.message); }

// --- the URL follows the selection, so a link opens what its sender sees ---------------

function syncUrl() {
  const parts = [`spec=${encodeURIComponent(state.spec)}`];
  if (state.query.date !== undefined) parts.push(`date=${encodeURIComponent(state.query.date)}`);
  else parts.push(`labels=${state.query.labels.map(encodeURIComponent).join(",")}`);
  if (faceUp()) parts.push("face_up=1");
  if (state.view === "solutions") parts.push("view=solutions");
  if (state.view === "solutions" && state.mode === "solution" && state.index > 0) {
    parts.push(`solution=${state.index + 1}`);
  }
  history.replaceState(null, "", `${location.pathname}?${parts.join("&")}${location.hash}`);
  const which = state.query.date !== undefined ? state.query.date : state.query.labels.join(" ");
  const named = `${title(state.specs[state.spec])}, ${which}` + (faceUp() ? ", face up" : "");
  $("puzzle-summary").textContent = named;
  document.title = `${named}: calendar puzzle`;
  $("goal").textContent = goal(state.query.labels || null);
}

// On a phone (either way up) the puzzle's choices fold into one line, so that the board and
// the tray fit the screen; a tap on the line opens them.
const NARROW = "(max-width: 40rem), (orientation: landscape) and (max-height: 34rem)";

function fromUrl() {
  const params = new URLSearchParams(location.search);
  const truthy = (v) => v !== null && ["1", "true", "yes", "on"].includes(v.toLowerCase());
  const labels = linkLabels(location.search);
  const solution = params.get("solution");
  const numbered = /^[1-9][0-9]{0,5}$/.test(solution || "");
  return {spec: params.get("spec"), date: params.get("date"), face_up: truthy(params.get("face_up")),
          labels,
          view: params.get("view") === "solutions" ? "solutions" : "play",
          index: numbered ? Number(solution) - 1 : 0,
          badIndex: solution !== null && !numbered
            ? `there is no solution ${JSON.stringify(solution.slice(0, 20))}: solutions are ` +
              "numbered from 1; showing solution 1" : ""};
}

// The link's labels (labels=...), or null when it names none: its text as written split at
// the commas, and then each part decoded, so that a label holding a comma (written %2C)
// stays one label.
function linkLabels(search) {
  const written = search.replace(/^\?/, "").split("&").find((p) => p.startsWith("labels="));
  if (written === undefined) return null;
  return written.slice("labels=".length).split(",").map((part) => {
    const text = part.replace(/\+/g, " ");
    try { return decodeURIComponent(text).trim(); } catch (err) { return text.trim(); }
  }).filter(Boolean);
}

// --- the solutions view -----------------------------------------------------------------

function buttons() {
  const solution = state.mode === "solution" && state.shown;
  $("prev").disabled = !solution || state.index === 0 || !state.solvable;
  $("next").disabled = !solution || !state.solvable ||
    (state.exhausted && state.index + 1 >= state.found);
  $("hint").disabled = !state.solvable;
  $("count").disabled = false;
}

function status(text) {
  $("status").textContent = text;
}

// The solutions view opens on a step the player confirms: a solution gives the puzzle away.
function askToShow(index) {
  state.shown = false;
  state.index = index;
  state.mode = "solution";
  $("board").replaceChildren();
  $("reveal").textContent = `Show me solution ${index + 1}`;
  $("reveal-box").hidden = false;
  syncUrl();
  status("");
  buttons();
}

// Solution index of the puzzle drawn; one past the last (a link's solution=999999) says so
// and shows the first, so the board, the selectors and the URL agree.
async function showSolution(index, warning = "") {
  showError("");
  state.shown = true;
  $("reveal-box").hidden = true;
  try {
    const asked = puzzle();
    const number = solutionIndex(index);
    const data = await current((answers, signal) => answers.solution(asked, number, signal));
    state.index = index; state.mode = "solution"; state.revealed = [];
    state.found = data.found; state.exhausted = data.exhausted;
    state.solvable = data.status === "solved";
    if (data.count !== null) state.count = data.count;
    if (data.svg !== undefined) {  // the server's drawing
      $("board").innerHTML = data.svg;
      letterPieces($("board"));
    } else {  // the engine's placements, drawn as play draws a position
      const mine = latest;
      const picture = await positionPicture(data.placements, data.labels);
      if (mine !== latest) return undefined;
      $("board").replaceChildren(picture);
    }
    syncUrl();
    const labels = data.labels.join(" ");
    if (data.status === "solved") {
      const of = state.count !== null ? ` of ${state.count.toLocaleString()}` : "";
      status(`${labels}: solution ${index + 1}${of}`);
      retitle(`${title(state.specs[state.spec])}, ${labels}: solution ${index + 1}${of}`);
    } else {
      status(labels);
      retitle(`${title(state.specs[state.spec])}, ${labels}: no solution`);
      showError(data.message);
    }
    if (warning) showError(warning);
    buttons();
  } catch (err) {
    if ((err.status === 404 || err.status === 422) && index > 0) {
      const past = err.status === 422 ? await pastTheCount(index) : "";
      if (past === null) return undefined;  // a newer request took its place
      const said = past || (/^there is no solution/i.test(err.message) ? clause(err.message)
        : `there is no solution ${index + 1} to show: ${clause(err.message)}`);
      return showSolution(0, `${said}; showing solution 1`);
    }
    failed(err);
  }
}

// A solution number the page does not step to (past its first 100,000): "there is no
// solution N: ... has C" when the puzzle has fewer, else "" (null: the answer is stale).
async function pastTheCount(index) {
  try {
    const asked = puzzle();
    const data = await current((answers, signal) => answers.count(asked, signal));
    state.count = data.count;
    return index >= data.count ? `there is no solution ${index + 1}: ` +
      `${data.labels.join(" ")} has ${data.count ? data.count.toLocaleString() : "no solution"}`
      : "";
  } catch (err) { return err instanceof Stale ? null : ""; }
}

// A sentence of the server's said as a clause of one of the page's own: its first word in
// lower case (not an acronym) and its full stop dropped.
function clause(sentence) {
  const text = sentence.replace(/\.$/, "");
  return /^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}

// The drawing's title (a tooltip) names the puzzle by its title, as the page does.
function retitle(text) {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  let head = svg.querySelector(":scope > title");
  if (!head) {
    head = document.createElementNS("http://www.w3.org/2000/svg", "title");
    svg.prepend(head);
  }
  head.textContent = text;
}

// The pieces of a drawn solution lettered as in play: each name at the point of a grid over
// its piece that lies deepest inside it (ties: the nearest the middle of its box).
const LETTER_GRID = 10;
const CLEARANCES = [4, 8, 12, 16, 20, 24];  // px: how far inside a point is tested to be

function letterPieces(box) {
  for (const path of box.querySelectorAll("svg path.piece")) {
    const b = path.getBBox();
    const middle = [b.x + b.width / 2, b.y + b.height / 2];
    let best = null;
    let bestKey = [-1, 0];
    for (let i = 0; i <= LETTER_GRID; i++) {
      for (let j = 0; j <= LETTER_GRID; j++) {
        const x = b.x + (b.width * i) / LETTER_GRID;
        const y = b.y + (b.height * j) / LETTER_GRID;
        const depth = clearance(path, x, y);
        const near = -Math.hypot(x - middle[0], y - middle[1]);
        if (depth > bestKey[0] || (depth === bestKey[0] && near > bestKey[1])) {
          best = [x, y]; bestKey = [depth, near];
        }
      }
    }
    if (!best || bestKey[0] < 0) continue;
    const text = document.createElementNS("http://www.w3.org/2000/svg", "text");
    text.setAttribute("x", best[0]); text.setAttribute("y", best[1]);
    text.setAttribute("class", "piece-letter");
    text.setAttribute("text-anchor", "middle"); text.setAttribute("dominant-baseline", "central");
    const name = path.dataset.piece;
    text.textContent = name.length <= 3 ? name : name.slice(0, 1);
    path.after(text);
  }
}

// How many of CLEARANCES a point clears: the point and eight around it at that distance
// all in the piece's fill (-1: the point is outside).
function clearance(path, x, y) {
  const isIn = (px, py) => path.isPointInFill(new DOMPoint(px, py));
  if (!isIn(x, y)) return -1;
  let depth = 0;
  for (const r of CLEARANCES) {
    const d = r * Math.SQRT1_2;
    const ring = [[r, 0], [-r, 0], [0, r], [0, -r], [d, d], [d, -d], [-d, d], [-d, -d]];
    if (!ring.every(([dx, dy]) => isIn(x + dx, y + dy))) break;
    depth += 1;
  }
  return depth;
}

async function hint() {
  showError("");
  try {
    const asked = puzzle();
    const revealed = state.revealed;
    const data = await current((answers, signal) => answers.hint(asked, revealed, signal));
    const mine = latest;
    const picture = await positionPicture(data.revealed, data.labels);
    if (mine !== latest) return;
    state.mode = "hint"; state.revealed = data.revealed;
    $("reveal-box").hidden = true;
    $("board").replaceChildren(picture);
    const said = `${data.labels.join(" ")}: hint, ${data.revealed.length} piece` +
      `${data.revealed.length === 1 ? "" : "s"} shown` + (data.complete ? " (solved)" : "");
    status(said);
    retitle(`${title(state.specs[state.spec])}, ${said}`);
    buttons();
  } catch (err) { failed(err); }
}

async function count() {
  showError("");
  status("counting ...");
  try {
    const asked = puzzle();
    const data = await current((answers, signal) => answers.count(asked, signal));
    state.count = data.count;
    status(`${data.labels.join(" ")}: ${data.count.toLocaleString()} solutions` +
           (faceUp() ? " with the pieces face up" : ""));
  } catch (err) { if (!(err instanceof Stale)) { showError(err.message); status(""); } }
}

// --- choosing the puzzle and the view ---------------------------------------------------

function fillLabels(spec, chosen) {
  const box = $("labels-box");
  box.innerHTML = "";
  Object.entries(spec.groups).forEach(([group, labels], k) => {
    const select = document.createElement("select");
    select.id = `group-${group}`;
    select.dataset.group = group;
    for (const label of labels) select.add(new Option(label, label));
    select.value = chosen.find((label) => labels.includes(label)) ?? spec.today[k];
    const wrap = document.createElement("label");
    wrap.append(`${group} `, select);
    box.append(wrap);
  });
}

// The puzzle changed: keep it in the URL and show it in the open view (solution index of
// it in the solutions view: called by handlers as refresh(), never with their event).
function refresh(index = 0) {
  state.count = null;
  showError("");
  state.mode = "solution";
  state.index = 0;
  syncUrl();
  showLabels(queryLabels(state.specs[state.spec], state.query));  // before any answer
  if (state.view === "play") return playLoad();
  $("board").innerHTML = "";
  status("");
  if (!state.shown) return askToShow(index);
  return showSolution(index);
}

function selectSpec(name, query = null, index = 0) {
  const spec = state.specs[name];
  state.spec = name;
  $("spec").value = name;
  $("face-up").disabled = !spec.flip;
  if (!spec.flip) $("face-up").checked = false;
  $("date-box").hidden = !spec.dates;
  $("use-date").hidden = !spec.dates;
  if (query && query.labels) state.query = {labels: query.labels};
  else if (query && query.date && spec.dates) state.query = {date: query.date};
  else if (spec.dates && isRealDate($("date").value)) state.query = {date: $("date").value};
  else state.query = {labels: spec.today};
  if (state.query.date !== undefined) $("date").value = state.query.date;
  fillLabels(spec, queryLabels(spec, state.query));
  return refresh(index);
}

function markView(view) {
  state.view = view;
  for (const [name, tab] of [["play", "tab-play"], ["solutions", "tab-solutions"]]) {
    $(tab).setAttribute("aria-selected", String(name === view));
    $(`${name}-view`).hidden = name !== view;
  }
}

function showView(view) {
  markView(view);
  state.shown = false;
  return refresh();
}

// A screen whose main pointer is a finger: the help says how to play by touch, and the
// buttons carry no keys.
const TOUCH = "(hover: none) and (pointer: coarse)";

async function start() {
  document.documentElement.classList.toggle("touch", window.matchMedia(TOUCH).matches);
  const asked = fromUrl();
  const narrow = window.matchMedia(NARROW);
  $("puzzle-box").open = !narrow.matches;
  narrow.addEventListener("change", () => { if (!narrow.matches) $("puzzle-box").open = true; });
  $("date").value = localToday();
  // the list of puzzles the page's head asked for as it opened (else asked now), read
  // while the engine loads
  const early = self.engineStart ? self.engineStart.specs : null;
  const listing = early ? early.then((data) => data || api("api/specs")) : api("api/specs");
  listing.catch(() => {});
  state.answers = await openAnswers({onKind: () => footer()});
  if (state.answers.kind !== "engine") footer();  // (the engine's: once a puzzle's plan is read)
  const data = await state.answers.specs(listing);
  // A board drawn in the editor comes in the address (#board=...), played as a puzzle
  // of its own for as long as the link is open. One that cannot be read or played is
  // said so, and the page shows the puzzle it would show without it.
  let unreadable = "";
  try {
    const board = linkedBoard(location.hash);
    if (board !== null && onStaticSite() && state.answers.kind !== "engine") {
      throw new Error(NEEDS_ENGINE);
    }
    if (board !== null) {
      // On the static site the engine in this browser makes the puzzle; else the server.
      const made = onStaticSite()
        ? loadDrawings().then(() => state.answers.drawn(board))
        : api("api/board/play", board);
      const spec = await made.catch((err) => {
        throw new Error(`This link's board cannot be played. ${err.message}`);
      });
      data.specs.unshift(spec);
      if (asked.spec === null || asked.spec.startsWith("drawn-")) asked.spec = spec.name;
    }
  } catch (err) {
    unreadable = err.message;
    // the board refused leaves the address: a reload or a link shared does not repeat it
    history.replaceState(null, "", `${location.pathname}${location.search}`);
  }
  for (const spec of data.specs) {
    state.specs[spec.name] = spec;
    const option = new Option(title(spec), spec.name);
    option.title = spec.description || spec.name;
    $("spec").add(option);
  }
  // Every handler calls with arguments of its own (never the event), and changes the
  // puzzle only to a settled one: a date box being changed (empty, or not yet a real
  // date) leaves the puzzle as it is.
  $("spec").onchange = () => selectSpec($("spec").value);
  const useDate = () => {
    const date = $("date").value;
    if (!isRealDate(date)) return;
    state.query = {date};
    refresh();
  };
  $("use-date").onclick = () => useDate();
  $("date").onchange = () => useDate();
  $("use-labels").onclick = () => {
    const labels = [...document.querySelectorAll("#labels-box select")].map((s) => s.value);
    state.query = {labels}; refresh();
  };
  $("face-up").onchange = () => refresh();
  $("prev").onclick = () => showSolution(Math.max(0, state.index - 1));
  $("next").onclick = () => showSolution(state.index + 1);
  $("show").onclick = () => showSolution(state.mode === "hint" || !state.shown ? 0 : state.index);
  $("reveal").onclick = () => {  // a link's bad solution number is said once, when shown
    const warning = asked.badIndex;
    asked.badIndex = "";
    showSolution(state.index, warning);
  };
  $("hint").onclick = () => hint();
  $("count").onclick = () => count();
  $("tab-play").onclick = () => showView("play");
  $("tab-solutions").onclick = () => showView("solutions");
  playSetUp((query) => {  // the solved board's "Play yesterday" and "Another date"
    if (query.date !== undefined) $("date").value = query.date;
    state.query = query;
    return refresh();
  });
  let name = data.specs[0].name;
  let warning = "";
  if (asked.spec !== null && asked.spec in state.specs) name = asked.spec;
  else if (asked.spec !== null) {
    warning = `There is no puzzle named ${quoted(asked.spec)}. ` +
      `Showing ${title(state.specs[name])} instead.`;
  }
  if (asked.face_up && state.specs[name].flip) $("face-up").checked = true;
  markView(asked.view);
  let query = null;
  if (asked.labels || asked.date) {
    const problem = asked.labels ? badLabels(state.specs[name], asked.labels)
                                 : badDate(state.specs[name], asked.date);
    if (problem) warning = warning || `${problem} ${shownInstead(state.specs[name])}`;
    else query = asked.labels ? {labels: asked.labels} : {date: asked.date};
  }
  // a solution number is kept for the puzzle asked (a link with no date: today's)
  const asIs = query !== null || (!asked.labels && !asked.date && !warning);
  const said = unreadable ? `${unreadable} Here is ${title(state.specs[name])} instead.`
    : warning;
  const loading = selectSpec(name, query, asIs ? asked.index : 0);  // (clears the messages)
  if (said) showError(said);  // with the board it explains, not a count later under it
  await loading;
  if (said) showError(said);  // over what the first answer said
  else if (asked.badIndex && asked.view === "solutions") showError(asked.badIndex);  // at once
}

// The footer says where the answers come from.
function footer() { $("answers-by").textContent = answersText(state.answers); }

// A link's text in a message: quoted, and cut short where it is long.
function quoted(text) {
  const shown = [...String(text)];
  return JSON.stringify(shown.length > 40 ? `${shown.slice(0, 40).join("")}\u2026` : text);
}

// What the page shows when a link's labels or date cannot be played: today's date, or a
// puzzle without dates its first labels (selectSpec), said as a sentence.
function shownInstead(spec) {
  return spec.dates ? "Showing today's puzzle instead."
    : `Showing its labels ${spec.today.join(" ")} instead.`;
}

// What is wrong with a link's labels or date, before anything is asked of the server: a
// sentence, or "".
function badLabels(spec, labels) {
  const groups = Object.entries(spec.groups);
  const seen = new Set();
  for (const label of labels) {
    const group = groups.find(([, names]) => names.includes(label));
    if (!group) return `${title(spec)} has no label ${quoted(label)}.`;
    if (seen.has(group[0])) {
      return `The link gives two labels of the group ${group[0]}; a puzzle takes one of each.`;
    }
    seen.add(group[0]);
  }
  const missing = groups.filter(([group]) => !seen.has(group)).map(([group]) => group);
  return missing.length ? `The link gives no label for ${missing.join(", ")}.` : "";
}

function badDate(spec, date) {
  if (!spec.dates) return `${title(spec)} has no dates: its puzzles are chosen by labels.`;
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!parts) return `${quoted(date)} is not a date: write it as YYYY-MM-DD.`;
  const [year, month, day] = parts.slice(1).map(Number);
  if (year < 1) return `${quoted(date)} is not a real date (years start at 1).`;
  if (!isRealDate(date)) {
    const name = month >= 1 && month <= 12
      ? new Date(Date.UTC(2000, month - 1, 1)).toLocaleString("en", {month: "long",
                                                                      timeZone: "UTC"})
      : null;
    const why = name ? `${year} has no ${name} ${day}` : `there is no month ${month}`;
    return `${quoted(date)} is not a real date (${why}).`;
  }
  return "";
}

// (the site's files kept offline once the first answer has come)
start().catch((err) => showError(err.message)).finally(() => offerOffline());
