// What the play page's views share: the puzzle chosen (spec, date or labels, face up) and
// where the solutions view stands, the server's API, and the messages under the controls.
import {$} from "./dom.js";

export const state = {specs: {}, spec: null, query: null, index: 0, revealed: [],
                      mode: "solution", found: 0, exhausted: false, count: null,
                      solvable: true, view: "play"};

// A GET (no body) or a POST of body as JSON to the API: its JSON answer, or an Error with
// the server's message and the HTTP status.
export async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  if (!response.ok) {
    const err = new Error(data.error || `HTTP ${response.status}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

export function faceUp() { return $("face-up").checked; }

// The puzzle as the API takes it.
export function puzzle() {
  return {spec: state.spec, face_up: faceUp(), ...state.query};
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
