// What the play page's views share: the puzzle chosen (spec, date or labels, face up) and
// where the solutions view stands, the server's API, and the messages under the controls.
import {$} from "./dom.js";
import {said} from "./words.js";

export const state = {answers: null, specs: {}, spec: null, query: null, index: 0, revealed: [],
                      mode: "solution", found: 0, exhausted: false, count: null,
                      solvable: true, view: "play", shown: false};

// A GET (no body) or a POST of body as JSON to the API: its JSON answer, or an Error with
// a sentence a person can read (the server's message for a person, or what went wrong on
// the way) and the HTTP status. A request aborted by its signal (a newer one took its
// place) rejects with the AbortError.
export async function api(path, body, signal) {
  let response;
  try {
    response = await fetch(path, body === undefined ? {signal} : {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
      signal});
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new Error("the server cannot be reached; check the connection and try again");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok || data === null) {
    const err = new Error(said(data) || `The server could not answer (HTTP ${response.status}); ` +
                          "try again in a moment.");
    err.status = response.status;
    throw err;
  }
  return data;
}

export function faceUp() { return $("face-up").checked; }

// A puzzle's title as people read it ("10-piece weekday calendar"), as the server lists it.
export function title(spec) {
  return spec ? spec.title || spec.name : "";
}

// Today's date where the page is, written YYYY-MM-DD.
export function localToday() {
  const d = new Date();
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 10);
}

// The goal of the puzzle chosen, in one line worded from it: its groups, and its date or
// the labels left open.
export function goal(labels = null) {
  const spec = state.specs[state.spec];
  if (!spec || !state.query) return "";
  const groups = Object.keys(spec.groups);
  const named = groups.length > 1
    ? `${groups.slice(0, -1).join(", ")} and ${groups.at(-1)}` : groups.join("");
  const date = state.query.date;
  if (date === undefined) {
    const shown = labels && labels.length ? `: ${labels.join(" ")}` : "";
    return `Cover every cell but the ${named} chosen${shown}.`;
  }
  return `Cover every cell but ${date === localToday() ? "today's" : "the"} ${named}` +
    (date === localToday() ? "." : ` of ${date}.`);
}

// Whether text is a real date written YYYY-MM-DD, from year 1 (a date box being changed
// holds "").
export function isRealDate(text) {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text || "");
  if (!parts) return false;
  const [year, month, day] = parts.slice(1).map(Number);
  const real = new Date(0);
  real.setUTCFullYear(year, month - 1, day);  // years 1 to 99 too (Date.UTC reads 19xx)
  return year >= 1 && real.getUTCFullYear() === year && real.getUTCMonth() === month - 1 &&
    real.getUTCDate() === day;
}

// The puzzle as the API takes it, built from settled state alone: a spec the server
// listed, a real date or one label per group of it, face up or not. Anything else throws
// an Error saying what to choose, and nothing is sent.
export function puzzle() {
  const spec = state.specs[state.spec];
  if (!spec) throw new Error("choose a puzzle");
  const query = state.query || {};
  if (query.date !== undefined) {
    if (!spec.dates || !isRealDate(query.date)) throw new Error("pick a date");
    return {spec: state.spec, date: query.date, face_up: faceUp()};
  }
  const groups = Object.values(spec.groups);
  const labels = query.labels;
  if (!Array.isArray(labels) || labels.length !== groups.length ||
      !labels.every((label) => groups.some((names) => names.includes(label)))) {
    throw new Error("choose one label of each group");
  }
  return {spec: state.spec, labels: [...labels], face_up: faceUp()};
}

// A solution's index as the API takes it: a whole number from 0.
export function solutionIndex(index) {
  if (!Number.isSafeInteger(index) || index < 0) throw new Error("there is no such solution");
  return index;
}

export function showError(message) { $("error").textContent = message || ""; }

// The label selectors show the puzzle on the board: a date's labels as the server read it,
// so "Use these labels" keeps the puzzle a deep link or a date opened.
export function showLabels(labels) {
  for (const select of document.querySelectorAll("#labels-box select")) {
    const options = [...select.options].map((o) => o.value);
    const label = labels.find((l) => options.includes(l));
    if (label !== undefined) select.value = label;
  }
}
