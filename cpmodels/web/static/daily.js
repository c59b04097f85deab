// The daily game kept in this browser, and nowhere else: for each puzzle (its pieces face up
// or not), the dates (or labels) played and solved, with the time, the moves and the hints
// of each solve. The stats, the streaks and the calendar of dates solved are made from it;
// the share (a text and a picture) says what a solve took and never where a piece went.
import {$} from "./dom.js";

const PREFIX = "cpmodels-daily:";
const DAY_MS = 86400000;
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"];

// What a puzzle's record is kept under.
export function recordKey(spec, faceUp) {
  return `${PREFIX}${spec}:${faceUp ? "face-up" : "any"}`;
}

const isDate = (text) => /^\d{4}-\d{2}-\d{2}$/.test(text);
const count = (n) => (Number.isSafeInteger(n) && n >= 0 ? n : null);

// A puzzle's record, {days: {which: {played, solved, ms, moves, hints, onTheDay}}}: which is
// a date (YYYY-MM-DD) or "labels:A,B,C"; anything else kept there is left out.
export function readRecord(key) {
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(key) || "null"); } catch (err) { kept = null; }
  const days = {};
  const given = kept && typeof kept.days === "object" && kept.days !== null ? kept.days : {};
  for (const [which, day] of Object.entries(given)) {
    if (!day || typeof day !== "object" || !Number.isFinite(day.played)) continue;
    days[which] = {played: day.played};
    if (Number.isFinite(day.solved)) {
      Object.assign(days[which], {solved: day.solved, ms: count(day.ms), moves: count(day.moves),
                                  hints: count(day.hints), onTheDay: day.onTheDay === true});
    }
  }
  return {days};
}

function writeRecord(key, record) {
  try { localStorage.setItem(key, JSON.stringify(record)); }
  catch (err) { /* storage full or refused: the game goes on unrecorded */ }
}

// A puzzle played (its first move): counted once.
export function markPlayed(key, which) {
  const record = readRecord(key);
  if (record.days[which]) return;
  record.days[which] = {played: Date.now()};
  writeRecord(key, record);
}

// A puzzle solved, with what it took ({ms, moves, hints}); today says whether it was solved
// on its own day (what a streak counts). Its first solve is the one kept.
export function markSolved(key, which, took, today) {
  const record = readRecord(key);
  const day = record.days[which] || {played: Date.now()};
  if (day.solved !== undefined) return;
  record.days[which] = {...day, solved: Date.now(), ms: count(took.ms), moves: count(took.moves),
                        hints: count(took.hints), onTheDay: which === today};
  writeRecord(key, record);
}

function dayAfter(date, step = 1) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + step * DAY_MS).toISOString().slice(0, 10);
}

// The numbers of a record on the day today: played, solved, the current and the longest
// streak (days in a row on which that day's puzzle was solved), the best and the last time.
export function statsOf(record, today) {
  const days = Object.entries(record.days);
  const solved = days.filter(([, d]) => d.solved !== undefined);
  const times = solved.map(([, d]) => d.ms).filter((ms) => ms !== null);
  const last = solved.reduce((a, b) => (a === null || b[1].solved > a[1].solved ? b : a), null);
  const onTheDay = new Set(solved.filter(([w, d]) => d.onTheDay && isDate(w)).map(([w]) => w));
  let longest = 0;
  for (const date of onTheDay) {
    if (onTheDay.has(dayAfter(date, -1))) continue;  // counted from the first of its run
    let run = 0;
    for (let d = date; onTheDay.has(d); d = dayAfter(d)) run += 1;
    longest = Math.max(longest, run);
  }
  let current = 0;  // up to today, or to yesterday while today's is still to solve
  let d = onTheDay.has(today) ? today : dayAfter(today, -1);
  for (; onTheDay.has(d); d = dayAfter(d, -1)) current += 1;
  return {played: days.length, solved: solved.length, current, longest,
          best: times.length ? Math.min(...times) : null, last: last ? last[1].ms : null};
}

// A length of time as a clock shows it: 4:05, 1:02:03.
export function clockText(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

// The stats panel (a dialog): the numbers, and a month's calendar whose solved dates link to
// their puzzles. how: {key, title, today, month (YYYY-MM), link(date)}.
export function showStats(how) {
  const record = readRecord(how.key);
  const numbers = statsOf(record, how.today);
  $("stats-title").textContent = `${how.title}: your games in this browser`;
  const rate = numbers.played ? Math.round((100 * numbers.solved) / numbers.played) : 0;
  const time = (ms) => (ms === null ? "none yet" : clockText(ms));
  const rows = [["Played", numbers.played], ["Solved", `${numbers.solved} (${rate}%)`],
                ["Current streak", numbers.current], ["Longest streak", numbers.longest],
                ["Best time", time(numbers.best)], ["Last time", time(numbers.last)]];
  $("stats-numbers").replaceChildren(...rows.flatMap(([name, value]) => {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = String(value);
    dd.dataset.stat = name.toLowerCase().replace(/ /g, "-");
    return [dt, dd];
  }));
  showMonth(how, record);
  const dialog = $("stats-panel");
  if (!dialog.open) dialog.showModal();
}

// One month of the calendar: its dates solved are links, today is marked.
function showMonth(how, record) {
  const [year, month] = how.month.split("-").map(Number);
  $("stats-month").textContent = `${MONTHS[month - 1]} ${year}`;
  const first = new Date(Date.UTC(year, month - 1, 1));
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const grid = $("stats-calendar");
  grid.replaceChildren();
  for (const name of ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]) {
    const head = document.createElement("span");
    head.className = "weekday";
    head.textContent = name;
    grid.append(head);
  }
  for (let blank = (first.getUTCDay() + 6) % 7; blank > 0; blank--) {
    grid.append(document.createElement("span"));
  }
  for (let day = 1; day <= length; day++) {
    const date = `${how.month}-${String(day).padStart(2, "0")}`;
    const kept = record.days[date];
    const solved = kept && kept.solved !== undefined;
    const cell = document.createElement(solved ? "a" : "span");
    cell.textContent = String(day);
    if (solved) {
      cell.href = how.link(date);
      cell.className = "solved";
      cell.title = `${date}: solved` + (kept.ms !== null ? ` in ${clockText(kept.ms)}` : "");
    } else if (kept) {
      cell.className = "played";
      cell.title = `${date}: played, not solved yet`;
    }
    if (date === how.today) cell.classList.add("today");
    grid.append(cell);
  }
  const step = (by) => {
    const next = new Date(Date.UTC(year, month - 1 + by, 1)).toISOString().slice(0, 7);
    showMonth({...how, month: next}, readRecord(how.key));
  };
  $("stats-prev").onclick = () => step(-1);
  $("stats-next").onclick = () => step(1);
}

// --- the share: what a solve took, never where a piece went -------------------------------

// The share's row of squares (block characters, which every font draws): a filled one for
// each piece laid by the player, an open one for each laid by a hint, in no order of the
// board's.
export function squaresText(pieces, hints) {
  const hinted = Math.min(hints, pieces);
  return "\u25a0".repeat(pieces - hinted) + "\u25a1".repeat(hinted);
}

// The share's picture (a PNG): two lines of text, a square for each piece (green, or yellow
// for a hint, as squaresText's filled and open ones), and the board's outline wholly covered in one
// colour with the cells the puzzle leaves open and their labels. No piece is drawn, so the
// picture gives no placement away. layout: the board's, open: the keys of its open cells,
// cell: a cell's size in the layout's pixels. Resolves to a Blob.
export function sharePicture({layout, open, cell, lines, pieces, hints, dark}) {
  const width = 600;
  const pad = 24;
  const boardTop = 150;
  const scale = Math.min((width - 2 * pad) / layout.size[0], 420 / layout.size[1]);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = Math.ceil(boardTop + layout.size[1] * scale + pad);
  const g = canvas.getContext("2d");
  const [bg, fg, covered, openFill, laid, hinted] = dark
    ? ["#17181a", "#e9e6e1", "#3f6fb8", "#8a6d14", "#4caf50", "#e0b400"]
    : ["#f4f1ec", "#222", "#1d4fa8", "#ffe7a3", "#2e9d44", "#e8b100"];
  g.fillStyle = bg;
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = fg;
  lines.forEach((line, i) => {  // each line as large as fits the width, up to its size
    let size = i ? 22 : 26;
    const font = () => `${i ? "" : "bold "}${size}px system-ui, sans-serif`;
    g.font = font();
    while (size > 10 && g.measureText(line).width > width - 2 * pad) {
      size -= 1;
      g.font = font();
    }
    g.fillText(line, pad, 44 + 38 * i);
  });
  const hintCount = Math.min(hints, pieces);
  const side = Math.min(26, (width - 2 * pad) / Math.max(1, pieces) - 6);
  for (let i = 0; i < pieces; i++) {
    g.fillStyle = i < pieces - hintCount ? laid : hinted;
    g.fillRect(pad + i * (side + 6), 104, side, side);
  }
  const left = (width - layout.size[0] * scale) / 2 - layout.origin[0] * scale;
  const top = boardTop - layout.origin[1] * scale;
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.lineWidth = 1;
  for (const c of layout.cells) {
    const isOpen = open.has(c.cell.join(","));
    g.beginPath();
    c.points.forEach(([x, y], i) => g[i ? "lineTo" : "moveTo"](left + x * scale, top + y * scale));
    g.closePath();
    g.fillStyle = isOpen ? openFill : covered;
    g.fill();
    g.strokeStyle = isOpen ? fg : covered;  // covered cells run into one another: no seams
    g.stroke();
    if (isOpen && c.label !== null) {
      g.fillStyle = fg;
      g.font = `bold ${Math.round(cell * scale * 0.32)}px system-ui, sans-serif`;
      g.fillText(c.label, left + c.centre[0] * scale, top + c.centre[1] * scale);
    }
  }
  return new Promise((resolve, reject) => canvas.toBlob(
    (blob) => (blob ? resolve(blob) : reject(new Error("the picture could not be made"))),
    "image/png"));
}
