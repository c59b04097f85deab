// What the pages say when something goes wrong: an error answer of the API for a person,
// and a board in a link (#board=...) read, or refused in words.
import {unbase64url} from "./base64url.js";

// Characters of a link's board: a board the server takes (64 KB of JSON) is well within.
const MAX_LINK_BOARD = 100_000;

// ``text`` as one sentence, as the server says its messages (web/wording.py's sentence): the
// spaces made one, a capital first letter and a full stop.
export function sentence(text) {
  const t = String(text).split(/\s+/).join(" ").trim().replace(/[;,: ]+$/, "");
  if (!t) return "Something went wrong; try again.";
  const s = t[0].toUpperCase() + t.slice(1);
  return /[.?!]$/.test(s) ? s : `${s}.`;
}

// What an error answer says for a person: its message, else its error, else "".
export function said(data) {
  if (data === null || typeof data !== "object") return "";
  for (const key of ["message", "error"]) {
    if (typeof data[key] === "string" && data[key]) return data[key];
  }
  return "";
}

// The board a link holds (#board=...) as its fields, or null when it holds none. A board
// that cannot be read (too long, cut short, changed by hand, not a board's JSON) throws an
// Error saying so, for the page to say what it shows instead.
export function linkedBoard(hash) {
  const found = /^#board=(.*)$/s.exec(hash || "");
  if (!found) return null;
  if (found[1].length > MAX_LINK_BOARD) {
    throw new Error(`This link's board is too long to read: it has ` +
                    `${found[1].length.toLocaleString("en-US")} characters, and a board's ` +
                    `link has at most ${MAX_LINK_BOARD.toLocaleString("en-US")}.`);
  }
  let board = null;
  try {
    board = JSON.parse(unbase64url(found[1]));
  } catch (err) {
    board = null;
  }
  if (board === null || typeof board !== "object" || Array.isArray(board)) {
    throw new Error("This link's board could not be read (the link may have been cut " +
                    "short or changed).");
  }
  return board;
}
