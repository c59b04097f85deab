// The engine core in the browser: engine.wasm (the same C++ searches as the Python module,
// built for wasm32 by the package's install) instantiated, its memory laid out by a bump
// allocator here, and a cover's searches asked as the Python side asks the native module.
//
//   const engine = await loadEngine(new URL("engine.wasm", import.meta.url));
//   const cover = engine.load(decodePlan(json));  // json: EngineSession.browser_plan()
//   cover.count([[], [12, 40]]);      // [BigInt, BigInt]: the completions of each row
//   cover.tally([[]]);                // {rows, masks}: count vectors, as the core writes them
//   cover.exists([[], [3]]);          // [true, false]: decided by a first solution
//   cover.firstSolution([]);          // option ids of one solution, or null
//   cover.split([12]);                // the options of the search's next branching step
//   engine.orientations("hex", [[0, 0], [1, 0]]);   // a piece's orientations: arrays of cells
//   engine.placements("triangle", shapes, board);   // [{shape, cells}]: board cell indices
//   engine.sweepCover({grid, cells, pieces, groups}); // a board's exact cover, as arrays
//   engine.playLayout({spec, grid, cells, labels, pieces}); // play mode's board, in pixels
//   engine.load(engine.coverPlan({low, high, cell, neighbours, options, tally}));
//                                     // a cover the page made, laid out by the core
//                                     // (with grid, xy, kinds: for the one-word kernel)
//
// It uses nothing of a page (no document, no window), so a worker can run it too.
//
// A plan names, for each question, the entry point of cpcore/entry.h that answers it and the
// layouts it reads: named tuples of numpy arrays on the Python side, here objects of the same
// field names whose arrays are typed arrays (BigUint64Array for uint64, BigInt64Array for
// int64, Uint8Array for bool) or {data, shape} for more than one dimension. Each array is
// checked as the Python module's bindings check it, then copied into the engine's memory
// once; a cover keeps its tables of sub-board counts and of dead states from call to call.
// The module keeps no state of its own: everything lives in the object loadEngine returns.

const PAGE = 65536;
// memo.py's statistics: USED, HITS, MISSES, NODES, ARENA_USED, (memo.py's stop flag), FLUSHES.
const STATS = 7;
const NODES = 3;
const MAX_TALLY_ITEMS = 16;
const DEFAULT_TABLE_SLOTS = 1 << 16;
const DEAD_SLOTS = 1 << 16;
const MAX_PREFIX_IDS = 1 << 24;  // option ids one call takes, in all its rows
// A cover the page makes (Engine.coverPlan): at most this many items, options and option
// items in all.
const MAX_COVER_ITEMS = 1 << 16;
const MAX_COVER_OPTIONS = 1 << 20;
const MAX_OPTION_ITEMS = 1 << 24;
// The arrays a layout's struct points to (cpcore_cover_layout, cpcore_tally_layout,
// cpcore_one_word_layout) take their types and shapes from entry.h: what C type each points
// to, and the extents its comment gives in brackets, in the sizes the core measured.
const ARRAY_TYPES = { uint64_t: "uint64", int64_t: "int64", uint8_t: "bool" };

// What each kind of field and parameter holds (entry.h's kinds: see cpmodels/_core/interface.py).
const RANGE = { u64: [0n, 2n ** 64n - 1n], i64: [-(2n ** 63n), 2n ** 63n - 1n],
  i32: [-(2n ** 31n), 2n ** 31n - 1n], u32: [0n, 2n ** 32n - 1n], p: [0n, 2n ** 32n - 1n] };
const WIDE = new Set(["u64", "i64"]);

const TYPES = { uint64: BigUint64Array, int64: BigInt64Array, bool: Uint8Array };
// The cells a shape or a board may have here, and what the core's geometry calls say
// instead of a count (by the names of entry.h's statuses; the grids, the coordinates a cell
// may have and the statuses' values are entry.h's, read from the engine).
const MAX_GEOMETRY_CELLS = 1 << 20;
const GEOMETRY_REFUSED = {
  CPCORE_GEOMETRY_SMALL_BUFFER: "the core's buffers are too small",
  CPCORE_GEOMETRY_UNKNOWN_GRID: "unknown grid",
  CPCORE_GEOMETRY_COORDINATE: "a cell's coordinate is too large (more than 2**30 from 0)",
  CPCORE_GEOMETRY_TOO_MANY_CELLS: "a shape or a board has too many cells",
  CPCORE_GEOMETRY_EMPTY_SHAPE: "a shape has no cells",
  CPCORE_GEOMETRY_BAD_SHAPES: "the shapes do not run up their cells",
  CPCORE_COVER_BAD_PIECES: "a piece's copies must be whole numbers with 0 <= low <= high",
  CPCORE_COVER_BAD_GROUPS: "the label groups do not run up their cells",
  CPCORE_COVER_EMPTY_GROUP: "a label group has no labels",
  CPCORE_COVER_LABEL_OFF_BOARD: "a label's cell is not on the board",
};
// cover.py's MAX_PLACEMENTS: past this many placements a cover is refused before any is made.
const MAX_PLACEMENTS = 500000;
const MAX_COPIES = 2 ** 31;

// Play mode's drawing of each plane grid (render/scene.py's DRAWINGS): a drawing unit in
// pixels across and down; the core's points are in sixths of a unit. What its play layout
// returns instead of a count besides the geometry calls' statuses, and the words of the
// layout it may write.
const PLAY_UNITS = { square: [40, 40], triangle: [52 / 2, 52 * Math.sqrt(3) / 2],
  hex: [24.8 * Math.sqrt(3) / 2, 24.8 / 2] };
const SIXTHS = 6;
const PLAY_REFUSED = {
  ...GEOMETRY_REFUSED,
  CPCORE_GEOMETRY_TOO_MANY_CELLS: "the board or a piece has too many cells for play mode",
  CPCORE_LAYOUT_NOT_PLANE: "play mode draws the plane grids, not cubes",
  CPCORE_LAYOUT_NO_CELLS: "the board has no cells",
  CPCORE_LAYOUT_COORDINATE:
    "a cell's coordinate is too large for play mode (more than 2**20 from 0)",
};
const MAX_PLAY_WORDS = 2 ** 26;
// cpcore_cut_sheets' refusals, in the words of the Python module's (geometry.cpp).
const CUT_REFUSED = {
  ...GEOMETRY_REFUSED,
  CPCORE_CUT_NOT_PLANE: "the cube grid's parts are printed, not cut",
  CPCORE_CUT_NO_CELLS: "the board has no cells",
  CPCORE_CUT_COORDINATE: "a cell's coordinate is too large for a cut file (more than 2**20 from 0)",
  CPCORE_CUT_BAD_SIZES: "a size is out of make's bounds",
  CPCORE_CUT_BAD_PARTS: "a cell is given twice, or the copies or names do not read",
  CPCORE_CUT_BAD_ENGRAVING: "the engraving does not read",
};
// cpcore_engrave's refusals, in the words of the Python module's (geometry.cpp).
const ENGRAVE_REFUSED = {
  ...CUT_REFUSED,
  CPCORE_CUT_BAD_PARTS: "a piece has a cell twice, or a cell two labels",
  CPCORE_ENGRAVE_BAD_TEXT:
    "a label or a name is longer than 256 characters, or holds NUL or a lone surrogate",
  CPCORE_ENGRAVE_BAD_GLYPHS: "the glyph table does not read",
};
// cut sheets' sizes in cpcore_cut_input's order.
const CUT_SIZES = ["cell", "kerf", "clearance", "width", "height", "border", "gap", "margin"];

function fail(message) {
  throw new RangeError(message);
}

function check(ok, message) {
  if (!ok) fail(message);
}

// The interface engine.wasm describes (cpcore_interface, generated from entry.h by the
// build): each struct's size and fields ({name: [offset, kind]}, by the name entry.h gives it
// less "cpcore_"), each entry point's parameter kinds, each constant's value.
function describe(instance) {
  const x = instance.exports;
  check(typeof x.cpcore_interface === "function", "engine.wasm does not describe its interface");
  const base = Math.ceil(Number(x.__heap_base.value) / 8) * 8;
  const length = Number(x.cpcore_interface(0, 0n));
  const have = x.memory.buffer.byteLength;
  if (base + length > have) x.memory.grow(Math.ceil((base + length - have) / PAGE));
  x.cpcore_interface(base, BigInt(length));
  const text = new TextDecoder().decode(new Uint8Array(x.memory.buffer, base, length).slice());
  const { structs, functions, constants } = JSON.parse(text);
  return {
    structs: Object.fromEntries(Object.entries(structs).map(([name, { size, fields }]) => [
      name.replace(/^cpcore_/, ""),
      { size, fields, offsets: Object.fromEntries(fields.map(([f, kind, at]) => [f, [at, kind]])) },
    ])),
    functions, constants,
  };
}

// The value of one extent of an array's shape in entry.h (whole numbers and names, + - * **
// and max), its names read from ``sizes``.
function extent(text, sizes) {
  const tokens = text.match(/\*\*|\w+|[-+*(),]/g) || [];
  let at = 0;
  const take = () => tokens[at++];
  const expect = (token) => check(take() === token, `${text}: not an extent`);
  let sum;
  const atom = () => {
    const token = take();
    if (token === "(") {
      const value = sum();
      expect(")");
      return value;
    }
    if (token === "max") {
      expect("(");
      const values = [sum()];
      while (tokens[at] === ",") { at++; values.push(sum()); }
      expect(")");
      return Math.max(...values);
    }
    if (/^\d+$/.test(token)) return Number(token);
    check(Object.hasOwn(sizes, token), `${text}: ${token} is not a size`);
    return Number(sizes[token]);
  };
  const power = () => {
    const base = atom();
    if (tokens[at] !== "**") return base;
    at++;
    return base ** power();
  };
  const product = () => {
    let value = power();
    while (tokens[at] === "*") { at++; value *= power(); }
    return value;
  };
  sum = () => {
    let value = product();
    while (tokens[at] === "+" || tokens[at] === "-") {
      const plus = take() === "+";
      value = plus ? value + product() : value - product();
    }
    return value;
  };
  const value = sum();
  check(at === tokens.length && Number.isSafeInteger(value) && value >= 0,
    `${text}: not an extent`);
  return value;
}

// The entry points as functions that take Numbers or BigInts alike: each argument made what
// its parameter's kind needs (a BigInt for a 64-bit one), their number checked.
function entryPoints(instance, functions) {
  const x = instance.exports;
  return Object.fromEntries(Object.entries(functions).map(([name, [, kinds]]) => {
    const f = x[name];
    check(typeof f === "function", `engine.wasm lacks ${name}`);
    return [name, (...args) => {
      check(args.length === kinds.length, `${name}: expected ${kinds.length} arguments`);
      return f(...args.map((a, k) => (WIDE.has(kinds[k]) ? BigInt(a) : Number(a))));
    }];
  }));
}

// An array field as {data, shape}: a typed array of the type named, or {data, shape}.
function arrayOf(owner, name, type, ndim = 1) {
  const value = owner[name];
  const data = value instanceof TYPES[type] ? value : value && value.data;
  if (!(data instanceof TYPES[type])) fail(`${name}: expected a ${TYPES[type].name}`);
  const shape = value === data ? [data.length] : Array.from(value.shape || [data.length]);
  check(shape.length === ndim, `${name}: expected ${ndim} dimension(s)`);
  check(shape.reduce((a, b) => a * b, 1) === data.length, `${name}: shape and length differ`);
  return { data, shape };
}

// A whole number field (a number, a BigInt or a decimal string) as a BigInt.
function numberOf(owner, name) {
  const value = owner[name];
  if (typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1n : 0n;
  if ((typeof value === "number" && Number.isSafeInteger(value)) ||
      (typeof value === "string" && /^-?\d{1,20}$/.test(value))) return BigInt(value);
  return fail(`${name}: expected a whole number`);
}

function small(value, name, most = 2 ** 31) {
  check(value >= 0n && value <= BigInt(most), `${name}: out of range`);
  return Number(value);
}

// Rows of forced option ids (-1 pads) as a BigInt64Array and its width: every id -1 or an
// option of the cover.
function prefixRows(prefixes, nOptions) {
  check(Array.isArray(prefixes), "prefixes: expected an array of rows");
  const width = prefixes.reduce(
    (most, row) => Math.max(most, Array.isArray(row) ? row.length : 0), 1);
  check(prefixes.length * width <= MAX_PREFIX_IDS, `prefixes: more than ${MAX_PREFIX_IDS} ids`);
  const flat = new BigInt64Array(prefixes.length * width).fill(-1n);
  prefixes.forEach((row, r) => {
    check(Array.isArray(row), "prefixes: expected an array of rows");
    row.forEach((o, k) => {
      check(Number.isSafeInteger(o) && o >= -1 && o < nOptions,
        "a prefix names an option the layout does not have");
      flat[r * width + k] = BigInt(o);
    });
  });
  return { flat, rows: prefixes.length, width };
}

// A grid's code (entry.h's CPCORE_GRID_*) and the coordinates of its cells (2, or 3 on the
// cube grid).
function gridOf(name, constants) {
  const known = typeof name === "string" && /^[a-z]+$/.test(name) &&
    Object.hasOwn(constants, `CPCORE_GRID_${name.toUpperCase()}`);
  check(known, `${name}: not a grid (square, triangle, hex or cube)`);
  return { code: constants[`CPCORE_GRID_${name.toUpperCase()}`], dim: name === "cube" ? 3 : 2 };
}

// Cells (arrays of dim whole numbers within ``most`` of 0) as a flat BigInt64Array.
function cellsOf(cells, dim, what, most) {
  check(Array.isArray(cells), `${what}: expected an array of cells`);
  check(cells.length <= MAX_GEOMETRY_CELLS, `${what}: more than ${MAX_GEOMETRY_CELLS} cells`);
  const flat = new BigInt64Array(cells.length * dim);
  cells.forEach((cell, i) => {
    check(Array.isArray(cell) && cell.length === dim, `${what}: a cell is ${dim} whole numbers`);
    cell.forEach((x, d) => {
      check(Number.isSafeInteger(x) && Math.abs(x) <= most,
        `${what}: a coordinate is not a whole number within 2**${Math.log2(most)} of 0`);
      flat[i * dim + d] = BigInt(x);
    });
  });
  return flat;
}

// A count the core returned as a Number, or a RangeError saying its refusal: ``said`` holds
// what each of entry.h's statuses (by name) says.
function statusOf(status, constants, said, fallback) {
  if (status >= 0n) return Number(status);
  const name = Object.keys(said).find((k) => BigInt(constants[k]) === BigInt(status));
  return fail(name ? said[name] : fallback);
}

// The length of a list of the cover (at most ``most``).
function listLength(list, name, most) {
  check(Array.isArray(list) || ArrayBuffer.isView(list), `${name}: expected an array`);
  check(list.length <= most, `${name}: more than ${most} entries`);
  return list.length;
}

// A list of whole numbers as a BigInt64Array (the core checks their ranges).
function whole(list, name) {
  const out = new BigInt64Array(list.length);
  for (let k = 0; k < list.length; ++k) {
    const v = list[k];
    check(Number.isSafeInteger(v) || typeof v === "bigint", `${name}: expected whole numbers`);
    check(BigInt(v) >= -(2n ** 62n) && BigInt(v) < 2n ** 62n, `${name}: out of range`);
    out[k] = BigInt(v);
  }
  return out;
}

// Lists of lists as runs: {start, flat}, BigInt64Arrays (at most ``most`` entries in all).
function flatRuns(lists, name, most) {
  const start = new BigInt64Array(lists.length + 1);
  let total = 0;
  lists.forEach((list, k) => {
    total += listLength(list, name, most);
    check(total <= most, `${name}: more than ${most} entries in all`);
    start[k + 1] = BigInt(total);
  });
  const flat = new BigInt64Array(total);
  lists.forEach((list, k) => flat.set(whole(list, name), Number(start[k])));
  return { start, flat };
}

// The constants whose names start with ``prefix``, by the rest of their names in lower case.
function named(constants, prefix) {
  return Object.fromEntries(Object.entries(constants)
    .filter(([name]) => name.startsWith(prefix))
    .map(([name, value]) => [name.slice(prefix.length).toLowerCase(), value]));
}

// The engine: the wasm instance, its memory and the bump allocator over it.
class Engine {
  constructor(instance) {
    const { structs, functions, constants } = describe(instance);
    this.exports = { ...instance.exports, ...entryPoints(instance, functions) };
    this.memory = instance.exports.memory;
    this.base = Number(instance.exports.__heap_base.value);
    this.top = Math.ceil(this.base / 8) * 8;
    this.structs = structs;
    this.constants = constants;
    // The questions and what a cover's layouts offer, as cpcore_choose_search takes them:
    // entry.h's CPCORE_ASK_* and CPCORE_OFFERS_*, by their names less the prefix, in lower
    // case (this.ask.tally, this.offers.one_word).
    this.ask = named(constants, "CPCORE_ASK_");
    this.offers = named(constants, "CPCORE_OFFERS_");
    for (const name of [...Object.keys(PLAY_REFUSED), ...Object.keys(CUT_REFUSED)])
      check(Object.hasOwn(constants, name), `engine.wasm does not define ${name}`);
  }

  // A geometry call's count, or a RangeError in words for its refusal.
  geometryStatus(status) {
    return statusOf(status, this.constants, GEOMETRY_REFUSED, "the core refused the cells");
  }

  // The status of a call that goes on counting with buffers too small.
  get smallBuffer() {
    return BigInt(this.constants.CPCORE_GEOMETRY_SMALL_BUFFER);
  }

  // Cells as cellsOf reads them, within the core's coordinates.
  cellsIn(cells, dim, what) {
    return cellsOf(cells, dim, what, this.constants.CPCORE_MAX_COORDINATE);
  }

  // The stream of words a geometry call writes (``call(buffers)``: its entry point on its
  // input, handed a cpcore_buffers), in the three calls entry.h describes: with no buffers,
  // with the scratch, then with out as large as the call said (at most ``most`` words, else
  // RangeError ``tooLarge``). ``status`` refuses a status; the words as Numbers.
  stream(call, status, { most = MAX_PLAY_WORDS, tooLarge = "the core's output is too large",
    bytes = false } = {}) {
    return this.scoped(() => {
      // A call: its status (a small buffer refused only with out as large as it asked),
      // and its needs.
      const called = (out, outWords, scratch, scratchWords) => {
        const buffers = this.struct("buffers", { out, out_capacity: outWords, scratch,
          n_scratch: scratchWords, need_out: 0, need_scratch: 0 });
        const got = call(buffers);
        const need = this.sizesAt(buffers, "buffers");
        return { status: out || got !== this.smallBuffer ? status(got) : 0,
          needOut: Number(need.need_out), needScratch: Number(need.need_scratch) };
      };
      const scratchWords = called(0, 0, 0, 0).needScratch;
      const scratch = this.alloc(scratchWords * 8);
      const { needOut } = called(0, 0, scratch, scratchWords);
      check(needOut <= most, tooLarge);
      const out = this.alloc(Math.max(needOut, 1) * 8);
      const n = called(out, needOut, scratch, scratchWords).status;
      return bytes ? this.view(Uint8Array, out, 8 * n).slice()
        : Array.from(this.view(BigInt64Array, out, n), Number);
    });
  }

  // The bytes the engine's memory holds, and those in use by covers and calls.
  get size() {
    return { memory: this.memory.buffer.byteLength, used: this.top - this.base };
  }

  // ``bytes`` of zeros aligned on 8, the memory grown when it has no room. Only the part
  // that was memory before is cleared: grown memory is zeros, and stays untouched (so not
  // committed by the system) until a search writes it, as a large table's arena.
  alloc(bytes) {
    const at = this.top;
    const end = at + Math.ceil(Math.max(bytes, 0) / 8) * 8;
    check(end <= 2 ** 32 - PAGE, "the engine's memory is full (4 GB)");
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      try {
        this.memory.grow(Math.ceil((end - have) / PAGE));
      } catch (e) {
        fail(`the engine's memory cannot grow to ${end} bytes`);
      }
    }
    if (at < have) new Uint8Array(this.memory.buffer, at, Math.min(end, have) - at).fill(0);
    this.top = end;
    return at;
  }

  // Give back everything allocated from ``mark`` on (marks are taken from ``top``).
  release(mark) {
    check(mark >= this.base && mark <= this.top, "not a mark of this engine");
    this.top = mark;
  }

  // A typed array copied into the engine's memory: its address.
  copy(data) {
    const at = this.alloc(data.byteLength);
    new Uint8Array(this.memory.buffer, at, data.byteLength).set(
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return at;
  }

  // A view of ``length`` items of ``Type`` at ``at`` (made anew: a grown memory has a new
  // buffer).
  view(Type, at, length) {
    return new Type(this.memory.buffer, at, length);
  }

  // One of entry.h's structs filled with ``values`` (names as in entry.h): its address.
  // Every field is given (a field entry.h gains is not left 0 unseen), unless ``rest`` says
  // that those not given are zeros (null pointers, no capacity).
  struct(name, values, { rest = false } = {}) {
    check(Object.hasOwn(this.structs, name), `${name}: not a struct of entry.h`);
    const { offsets, size, fields } = this.structs[name];
    for (const [field] of fields)
      check(rest || Object.hasOwn(values, field), `${name}.${field}: not given`);
    const at = this.alloc(size);
    const dv = new DataView(this.memory.buffer);
    for (const [field, value] of Object.entries(values)) {
      check(field in offsets, `${name}.${field}: no such field`);
      const [offset, type] = offsets[field];
      const big = BigInt(value);
      check(big >= RANGE[type][0] && big <= RANGE[type][1], `${name}.${field}: out of range`);
      if (type === "u64") dv.setBigUint64(at + offset, big, true);
      else if (type === "i64") dv.setBigInt64(at + offset, big, true);
      else if (type === "i32") dv.setInt32(at + offset, Number(big), true);
      else dv.setUint32(at + offset, Number(big), true);
    }
    return at;
  }

  // A memo table (memo.py's Memo) of ``slots`` rows of ``keyWords`` words, their values
  // in the rows (``inline``: the two-word state's) or apart, an arena of ``arenaSize``
  // counts (four a slot unless told: a tally's states keep a vector each).
  table(keyWords, slots, inline, arenaSize = 4 * slots) {
    const keys = this.alloc(slots * keyWords * 8);
    const values = inline ? keys + (keyWords - 1) * 8 : this.alloc(slots * 8);
    const arena = this.alloc(arenaSize * 8);
    const stats = this.alloc(STATS * 8);
    return { keys, values, arena, stats, slots, keyWords, arenaSize };
  }

  // Run ``body`` with memory given back after.
  scoped(body) {
    const mark = this.top;
    try {
      return body();
    } finally {
      this.release(mark);
    }
  }

  // The plan of a cover the page made, for the general search (the N-word state): the
  // core lays it out here as compile_cover and tally_layout do natively. The cover:
  // low[i], high[i] and cell[i] (a cell index, -1 for none) of each item; neighbours[c],
  // cell c's neighbours in its grid's order (-1 for a cell the cover lacks); options, each
  // a list of items, its tag (the piece) last; tally: the exact-one items to tally by.
  coverPlan(cover) {
    check(cover && typeof cover === "object", "the cover: expected an object");
    const { tally = [] } = cover;
    listLength(tally, "tally", MAX_TALLY_ITEMS + 1);
    const mark = this.top;
    try {
      const { input, n } = this.coverInput(cover);
      const nOptions = n.options;
      const x = this.exports;
      const work = this.alloc(Number(x.cpcore_cover_layout_work(input)) * 8);
      const sizes = this.alloc(this.structs.cover_sizes.size);
      x.cpcore_cover_layout_measure(input, work, sizes);
      const measured = this.sizesAt(sizes, "cover_sizes");
      this.refuse(measured.error);
      check(nOptions * measured.n_words * 8 <= 2 ** 31,
        "the cover is too large for the engine in the browser");
      const L = this.arraysFor("cover_layout", n, measured);
      x.cpcore_cover_layout_fill(input, work, sizes, this.struct("cover_layout", L.at));
      const filled = this.sizesAt(sizes, "cover_sizes");
      this.refuse(filled.error);
      // The searches read all but the items' bits and counters (for the tallies, below).
      const { bit_of_item: _bits, counter_of_item: _counters, ...arrays } =
        this.read("cover_layout", L);
      const layout = { ...arrays, n_branch: filled.n_branch, memo_ok: filled.memo_ok !== 0,
        region_limit: filled.region_limit };
      const items = this.copy(whole(tally, "tally"));
      const tallyInput = this.struct("tally_input", {
        cover: input, bit_of_item: L.at.bit_of_item, n_branch: filled.n_branch,
        anchor_start: L.at.anchor_start, anchor_opts: L.at.anchor_opts,
        n_anchored: filled.n_anchored, items, n_tally: tally.length });
      const tallyWork = this.alloc(Number(x.cpcore_tally_layout_work(tallyInput)) * 8);
      const tallySizes = this.alloc(this.structs.tally_sizes.size);
      x.cpcore_tally_layout_measure(tallyInput, tallyWork, tallySizes);
      const t = this.sizesAt(tallySizes, "tally_sizes");
      if (t.error === this.constants.CPCORE_LAYOUT_NOT_EXACT_ONE)
        fail(`tally item ${tally[t.bad_item]} is not an exact-one item`);
      this.refuse(t.error);
      const T = this.arraysFor("tally_layout", n, t);
      x.cpcore_tally_layout_fill(tallyInput, tallyWork, tallySizes,
        this.struct("tally_layout", T.at));
      this.refuse(this.sizesAt(tallySizes, "tally_sizes").error);
      const { covering_start: _start, covering: _covering, ...tallies } =
        this.read("tally_layout", T);
      tallies.n_tally = tally.length;
      const oneWord = this.oneWordLayouts(cover, input, n, tally, tallies);
      // The browser lays out no two-word layout and has no solids' search: it offers the
      // core's choice the rest of what a cover offers natively.
      const offers = { one_word: oneWord !== null, slack: oneWord !== null && oneWord.slack,
        tallies: tally.length > 0,
        one_word_tallies: oneWord !== null && oneWord.tallies !== null };
      const plan = {};
      for (const question of Object.keys(this.ask)) {
        const kernel = this.chooseSearch(question, offers);
        plan[question] = kernel === "tally_one_word"
          ? { kernel, layout: oneWord.tallyLayout, tallies: oneWord.tallies }
          : kernel === "count_one_word" ? { kernel, layout: oneWord.countLayout }
          : kernel === "tally_prefixes_n_words" ? { kernel, layout, tallies }
          : { kernel, layout };
      }
      return plan;
    } finally {
      this.release(mark);
    }
  }

  // A cover as coverPlan takes it copied into the engine's memory: its cpcore_cover_input
  // and its sizes n (items, options, tally items, cells).
  coverInput(cover) {
    const { low, high, cell, neighbours, options, tally = [] } = cover;
    const nItems = listLength(low, "low", MAX_COVER_ITEMS);
    for (const [list, name] of [[high, "high"], [cell, "cell"]])
      check(listLength(list, name, MAX_COVER_ITEMS) === nItems,
        "low, high and cell: one entry an item each");
    const nCells = listLength(neighbours, "neighbours", MAX_COVER_ITEMS);
    const nOptions = listLength(options, "options", MAX_COVER_OPTIONS);
    const cellNbs = flatRuns(neighbours, "neighbours", MAX_OPTION_ITEMS);
    const optItems = flatRuns(options, "options", MAX_OPTION_ITEMS);
    const n = { items: nItems, options: nOptions, tally: tally.length, cells: nCells };
    const input = this.struct("cover_input", {
      n_items: nItems, low: this.copy(whole(low, "low")), high: this.copy(whole(high, "high")),
      item_cell: this.copy(whole(cell, "cell")), n_cells: nCells,
      cell_nb_start: this.copy(cellNbs.start), cell_nbs: this.copy(cellNbs.flat),
      n_cell_nbs: cellNbs.flat.length, n_options: nOptions,
      opt_start: this.copy(optItems.start), opt_items: this.copy(optItems.flat),
      n_opt_items: optItems.flat.length });
    return { input, n };
  }

  // What the one-word layout reads of a cover coverPlan takes (with grid "square", xy and
  // kinds), copied into the engine's memory: its cpcore_one_word_input (flips as given), its
  // work, its sizes measured and n; null off the square grid.
  oneWordInput(cover, flips) {
    const { grid = null, xy = null, kinds = null, optionKinds = [] } = cover;
    if (grid !== "square" || xy === null || kinds === null) return null;
    const { input, n } = this.coverInput(cover);
    check(listLength(xy, "xy", MAX_COVER_ITEMS) === Number(n.cells),
      "xy: two coordinates a cell each");
    check(listLength(kinds, "kinds", MAX_COVER_ITEMS) === n.items, "kinds: one an item");
    const nKinds = listLength(optionKinds, "optionKinds", MAX_COVER_OPTIONS);
    check(nKinds === 0 || nKinds === n.options, "optionKinds: one an option, or none");
    const cells = flatRuns(xy, "xy", 2 * MAX_COVER_ITEMS);
    const most = BigInt(this.constants.CPCORE_MAX_COORDINATE);
    for (const v of cells.flat)
      check(v >= -most && v <= most, "xy: a coordinate is too large");
    const x = this.exports;
    const at = this.struct("one_word_input", { cover: input, cell_xy: this.copy(cells.flat),
      item_kind: this.copy(whole(kinds, "kinds")),
      option_kind: nKinds ? this.copy(whole(optionKinds, "optionKinds")) : 0, flips });
    const work = this.alloc(Number(x.cpcore_one_word_layout_work(at)) * 8);
    const sizes = this.alloc(this.structs.one_word_sizes.size);
    x.cpcore_one_word_layout_measure(at, work, sizes);
    const measured = this.sizesAt(sizes, "one_word_sizes");
    this.refuse(measured.error);
    return { at, work, sizes, measured, n };
  }

  // The one-word layout of a cover coverPlan takes, scanned from the corner ``flips`` names,
  // filled in the engine's memory: {struct: its cpcore_one_word, at: its arrays, words: its
  // sizes filled, nOptions, nPieces}, or null when it does not suit.
  oneWordAt(cover, flips) {
    const given = this.oneWordInput(cover, flips);
    if (given === null || !given.measured.suits) return null;
    const { at, work, sizes, measured, n } = given;
    const L = this.arraysFor("one_word_layout", n, measured);
    this.exports.cpcore_one_word_layout_fill(at, work, sizes,
      this.struct("one_word_layout", L.at));
    const w = this.sizesAt(sizes, "one_word_sizes");
    this.refuse(w.error);
    const struct = this.struct("one_word", {
      start: L.at.start, masks: L.at.masks, opts: L.at.opts, avail: L.at.avail,
      opt_cells: L.at.opt_cells, opt_piece: L.at.opt_piece, n_options: n.options,
      n_pieces: measured.n_pieces, all_pieces: w.all_pieces, optional: w.optional,
      covered: w.covered, inner: w.inner, first: w.first, last: w.last, slack: w.slack,
      fillable: L.at.fillable, n_fillable: L.shapes.fillable[0], region_limit: w.region_limit,
      isolated_dead: w.isolated_dead ? 1 : 0, slack_cells: L.at.slack_cells });
    return { struct, at: L.at, words: w, nOptions: n.options, nPieces: measured.n_pieces };
  }

  // The reach search's view (cpcore_reach_groups_of) of a one-word layout oneWordAt made, in
  // arrays of its own (or those of ``out``, a cpcore_reach_groups): its numbers and address.
  reachGroups(one, out = this.emptyGroups()) {
    this.exports.cpcore_reach_groups_of(one.struct, out);
    return { at: out, ...this.sizesAt(out, "reach_groups") };
  }

  // A cpcore_reach_groups with room for its arrays.
  emptyGroups() {
    return this.struct("reach_groups", { group_cells: this.alloc(3 * 8),
      group_unit: this.alloc(3 * 8), a_label: this.alloc(64 * 8), b_label: this.alloc(64 * 8) },
    { rest: true });
  }

  // A design's board for the core's design decision (cpcore_design, on the reach search)
  // of a cover coverPlan takes (with grid, xy and kinds: a design's sweep cover), its
  // required dates each a row of holes (slack options): a ReachDesign, kept in the engine's
  // memory until what was loaded before it is released; null when the reach search does not
  // suit the cover. The scan starts from the corner the core chooses (cpcore_reach_corner,
  // as reach.py's reach_layout asks it).
  reachDesign(cover, holes) {
    const flips = this.scoped(() => {
      const given = this.oneWordInput(cover, 0);
      if (given === null || !given.measured.suits) return -1;
      const { at, work, sizes, measured, n } = given;
      const L = this.arraysFor("one_word_layout", n, measured);
      return Number(this.exports.cpcore_reach_corner(at, work, sizes,
        this.struct("one_word_layout", L.at), this.emptyGroups()));
    });
    return flips < 0 ? null : new ReachDesign(this, cover, flips, holes);
  }

  // A working set's verdict from its count of each required date, as `cpmodels design`
  // makes it (cpcore_design_summary): {low: the date of the fewest (the first such), min,
  // max, total}.
  designSummary(counts) {
    check(Array.isArray(counts) && counts.length >= 1 &&
      counts.every((n) => Number.isSafeInteger(n) && n >= 0), "a set's counts: whole numbers");
    return this.scoped(() => {
      const out = this.alloc(4 * 8);
      const status = this.exports.cpcore_design_summary(
        this.copy(BigInt64Array.from(counts, BigInt)), counts.length, out);
      check(Number(status) === 0, "a set's counts are out of range");
      const [low, min, max, total] = Array.from(this.view(BigInt64Array, out, 4), Number);
      return { low, min, max, total };
    });
  }

  // The search the core chooses (cpcore_choose_search) for ``question`` (a key of
  // this.ask) on a cover whose layouts offer ``offers`` ({name: whether}, keys of
  // this.offers), named as its entry point: the choice Searches asks natively, made once, in
  // the core.
  chooseSearch(question, offers) {
    const x = this.exports;
    check(Object.hasOwn(this.ask, question), `${question}: not a question the core is asked`);
    let word = 0;
    for (const [name, offered] of Object.entries(offers)) {
      check(Object.hasOwn(this.offers, name), `${name}: not something a cover offers`);
      if (offered) word |= this.offers[name];
    }
    return this.cString(x.cpcore_search_name(x.cpcore_choose_search(this.ask[question], word)));
  }

  // The one-word layouts of a cover coverPlan laid out, as Searches makes them natively
  // (null when the layout does not suit or the cover lacks what it reads: grid "square",
  // xy (each cell's two coordinates), kinds (each item's ItemKind) and, if the cover has
  // them, optionKinds (each option's OptionKind)): {slack: whether it has slack items,
  // countLayout: the layout for plain counts, tallyLayout: with the region sizes of the
  // pieces alone, for tallies, tallies: the one-word tallies, null when a tally item is a
  // cell or may be left out}.
  oneWordLayouts(cover, input, n, tally, generalTallies) {
    const { grid = null, xy = null, kinds = null, optionKinds = [] } = cover;
    if (grid !== "square" || xy === null || kinds === null) return null;
    check(listLength(xy, "xy", MAX_COVER_ITEMS) === Number(n.cells),
      "xy: two coordinates a cell each");
    const cells = flatRuns(xy, "xy", 2 * MAX_COVER_ITEMS);
    const most = BigInt(this.constants.CPCORE_MAX_COORDINATE);
    cells.start.forEach((at, k) => check(at === 2n * BigInt(k), "xy: two coordinates a cell each"));
    for (const v of cells.flat)
      check(v >= -most && v <= most, "xy: a coordinate is too large");
    check(listLength(kinds, "kinds", MAX_COVER_ITEMS) === n.items, "kinds: one an item");
    const nKinds = listLength(optionKinds, "optionKinds", MAX_COVER_OPTIONS);
    check(nKinds === 0 || nKinds === n.options, "optionKinds: one an option, or none");
    const x = this.exports;
    const itemKind = this.copy(whole(kinds, "kinds"));
    const input1 = this.struct("one_word_input", { cover: input, cell_xy: this.copy(cells.flat),
      item_kind: itemKind, option_kind: nKinds ? this.copy(whole(optionKinds, "optionKinds")) : 0,
      flips: 0 });
    const work = this.alloc(Number(x.cpcore_one_word_layout_work(input1)) * 8);
    const sizes = this.alloc(this.structs.one_word_sizes.size);
    x.cpcore_one_word_layout_measure(input1, work, sizes);
    const measured = this.sizesAt(sizes, "one_word_sizes");
    this.refuse(measured.error);
    if (!measured.suits) return null;
    const L = this.arraysFor("one_word_layout", n, measured);
    x.cpcore_one_word_layout_fill(input1, work, sizes, this.struct("one_word_layout", L.at));
    const word = this.sizesAt(sizes, "one_word_sizes");  // (its words and limit by the fill)
    this.refuse(word.error);
    const wordNames = this.fieldsOf("one_word_sizes", "u64");
    let tallies = null;
    if (tally.length) {
      const bits = this.alloc(tally.length * 8);
      const status = Number(x.cpcore_one_word_tally_bits(itemKind, BigInt(n.items),
        this.copy(whole(tally, "tally")), BigInt(tally.length), BigInt(word.optional), bits));
      if (status < 0) this.refuse(-status);
      const bit = this.view(BigUint64Array, bits, tally.length).slice();
      if (status) {  // else a cell, or a piece that may be left out
        const { opt_tally, opt_index, length, stride, map_start, map_flat } = generalTallies;
        tallies = { n_tally: tally.length, bit, opt_tally, opt_index, length, stride,
          map_start, map_flat };
      }
    } else {
      const none = new BigInt64Array(n.options).fill(-1n);
      tallies = { n_tally: 0, bit: new BigUint64Array(1), opt_tally: none, opt_index: none,
        length: new BigInt64Array([1n]), stride: { data: new BigInt64Array(1), shape: [1, 1] },
        map_start: new BigInt64Array(2), map_flat: new BigInt64Array(1) };
    }
    const arrays = this.read("one_word_layout", L);
    const plainWord = (w) => (w <= 2n ** 53n ? Number(w) : String(w));
    const countLayout = { ...arrays, n_pieces: measured.n_pieces,
      ...Object.fromEntries(wordNames.map((name) => [name, plainWord(word[name])])),
      region_limit: word.region_limit, isolated_dead: word.isolated_dead !== 0 };
    // The region sizes of the pieces alone; a slack item's cell counts in the board's.
    const areas = [];
    let total = 0;
    arrays.areas.forEach((a, p) => {
      total += Number(a);
      if (a && !(word.slack >> BigInt(p) & 1n)) areas.push(a);
    });
    const fillable = this.alloc(total + 1);
    const limit = Number(x.cpcore_region_sizes(this.copy(BigInt64Array.from(areas)), 0,
      BigInt(areas.length), BigInt(total), fillable));
    const pieceSizes = this.view(Uint8Array, fillable, total + 1).slice();
    const tallyLayout = { ...countLayout, fillable: pieceSizes, region_limit: limit,
      isolated_dead: limit > 1 && !pieceSizes[1] };
    return { slack: word.slack !== 0n, countLayout, tallyLayout, tallies };
  }

  // A piece's distinct orientations on ``grid`` (geometry.orientations, in its order): the
  // identity or every rotation, then with flip the mirror images; each normalized, an
  // array of its cells in reading order.
  orientations(grid, cells, { rotate = true, flip = true } = {}) {
    const { code, dim } = gridOf(grid, this.constants);
    const flat = this.cellsIn(cells, dim, "the shape");
    const n = BigInt(flat.length / dim);
    return this.scoped(() => {
      const input = this.struct("shape_input", { grid: code, cells: this.copy(flat),
        n_cells: n, rotate: rotate ? 1 : 0, flip: flip ? 1 : 0 });
      // The stream: the orientations' number and size, then their cells.
      const [found, size, ...words] = this.stream(
        (buffers) => this.exports.cpcore_orientations(input, buffers),
        (status) => this.geometryStatus(status));
      return Array.from({ length: found }, (_, k) => Array.from({ length: size },
        (_, i) => words.slice((k * size + i) * dim, (k * size + i + 1) * dim)));
    });
  }

  // Every placement of the shapes (arrays of cells) on the board (an array of cells) of
  // ``grid``, in geometry.placements' order, up to ``limit``: {shape: its index, cells: the
  // indices in board of its cells, in reading order}.
  placements(grid, shapes, board, { limit = null } = {}) {
    const { code, dim } = gridOf(grid, this.constants);
    check(Array.isArray(shapes) && shapes.length <= MAX_GEOMETRY_CELLS,
      `shapes: expected an array of at most ${MAX_GEOMETRY_CELLS} shapes`);
    check(limit === null || (Number.isSafeInteger(limit) && limit >= 0),
      "limit: expected a whole number from 0");
    const flats = shapes.map((shape) => this.cellsIn(shape, dim, "a shape"));
    const start = new BigInt64Array(shapes.length + 1);
    flats.forEach((flat, s) => { start[s + 1] = start[s] + BigInt(flat.length / dim); });
    const nCells = Number(start[shapes.length]);
    check(nCells <= MAX_GEOMETRY_CELLS, `shapes: more than ${MAX_GEOMETRY_CELLS} cells`);
    const cells = new BigInt64Array(nCells * dim);
    flats.forEach((flat, s) => cells.set(flat, Number(start[s]) * dim));
    const boardFlat = this.cellsIn(board, dim, "the board");
    return this.scoped(() => {
      const input = this.struct("placements_input", { grid: code, shape_cells: this.copy(cells),
        shape_start: this.copy(start), n_shapes: shapes.length, n_shape_cells: nCells,
        board: this.copy(boardFlat), n_board: board.length,
        limit: limit === null ? 2n ** 64n - 1n : limit });
      // The stream: each placement's shape, then its board cells.
      const words = this.stream((buffers) => this.exports.cpcore_placements(input, buffers),
        (status) => this.geometryStatus(status), { most: Infinity });
      const found = [];
      for (let at = 0; at < words.length;) {
        const shape = words[at];
        const size = Number(start[shape + 1] - start[shape]);
        found.push({ shape, cells: words.slice(at + 1, at + 1 + size) });
        at += 1 + size;
      }
      return found;
    });
  }

  // A board's exact cover, as sweep.py's sweep_cover makes it (without groups, cover.py's
  // packing_cover): ``cells`` the board, ``pieces`` [{cells, rotate, flip, count, low}]
  // (rotate and flip true, count 1 and low count unless told; ``faceUp`` turns no piece
  // over), ``groups`` each an array of its labels' cells in order. Returns {items: {kind,
  // low, high, cell}: the cells in scan order (kind 0, cell: the index in ``cells``), the
  // pieces (1), the groups' slack items (2); options: {start, items} (CSR), optionKind (0 a
  // placement, 1 a label left open, 2 a piece left out: one for each piece whose
  // ``leftOut`` is true, after the others, in piece order), optionOwner (its piece or
  // group), fixed: the groups a sweep's tasks fix}.
  sweepCover({ grid, cells, pieces, groups = [], faceUp = false }) {
    const { code, dim } = gridOf(grid, this.constants);
    const board = this.cellsIn(cells, dim, "the board");
    check(Array.isArray(pieces) && pieces.length <= MAX_GEOMETRY_CELLS,
      `pieces: expected an array of at most ${MAX_GEOMETRY_CELLS} pieces`);
    check(Array.isArray(groups) && groups.length <= MAX_GEOMETRY_CELLS,
      `groups: expected an array of at most ${MAX_GEOMETRY_CELLS} groups`);
    const bounds = new BigInt64Array(2 * pieces.length);
    const shapes = [];
    const pieceStart = new BigInt64Array(pieces.length + 1);
    pieces.forEach((piece, p) => {
      check(piece !== null && typeof piece === "object", "pieces: a piece is an object");
      const { rotate = true, flip = true, count = 1 } = piece;
      const low = piece.low ?? count;
      check([low, count].every((n) => Number.isSafeInteger(n) && n >= 0 && n <= MAX_COPIES) &&
        low <= count, "pieces: a piece's copies must be whole numbers with 0 <= low <= count");
      shapes.push(...this.orientations(grid, piece.cells, { rotate, flip: flip && !faceUp }));
      pieceStart[p + 1] = BigInt(shapes.length);
      bounds[2 * p] = BigInt(low);
      bounds[2 * p + 1] = BigInt(count);
    });
    const runs = (list, what) => {
      const flats = list.map((one) => this.cellsIn(one, dim, what));
      const start = new BigInt64Array(list.length + 1);
      flats.forEach((flat, k) => { start[k + 1] = start[k] + BigInt(flat.length / dim); });
      check(start[list.length] <= BigInt(MAX_GEOMETRY_CELLS),
        `${what}: more than ${MAX_GEOMETRY_CELLS} cells in all`);
      const flat = new BigInt64Array(Number(start[list.length]) * dim);
      flats.forEach((one, k) => flat.set(one, Number(start[k]) * dim));
      return { flat, start };
    };
    const shaped = runs(shapes, "a shape");
    const grouped = runs(groups, "a group");
    return this.scoped(() => {
      const input = this.struct("sweep_input", {
        grid: code, board: this.copy(board), n_board: cells.length,
        shape_cells: this.copy(shaped.flat), shape_start: this.copy(shaped.start),
        n_shapes: shapes.length, n_shape_cells: shaped.flat.length / dim,
        piece_start: this.copy(pieceStart), piece_bounds: this.copy(bounds),
        n_pieces: pieces.length, group_cells: this.copy(grouped.flat),
        group_start: this.copy(grouped.start), n_groups: groups.length,
        n_labels: grouped.flat.length / dim, max_placements: MAX_PLACEMENTS,
        left_out: pieces.some((piece) => piece.leftOut)
          ? this.copy(Uint8Array.from(pieces, (piece) => (piece.leftOut ? 1 : 0))) : 0 });
      const status = (got) => {
        if (got === BigInt(this.constants.CPCORE_COVER_TOO_LARGE)) {
          const n = new Set(cells.map((cell) => cell.join(","))).size;
          fail(`the problem is too large: up to ${(shapes.length * n).toLocaleString("en")} ` +
            `placements (${shapes.length} piece orientations x ${n.toLocaleString("en")} ` +
            `cells); the limit is ${MAX_PLACEMENTS.toLocaleString("en")}. Use a smaller ` +
            "board or fewer distinct pieces");
        }
        return this.geometryStatus(got);
      };
      // The stream: the counts, the items (4 words each), the options (kind, owner, their
      // items' number and their items), the fixed groups.
      const words = this.stream((buffers) => this.exports.cpcore_sweep_cover(input, buffers),
        status, { most: Infinity });
      const [nItems, nOptions] = words;
      const column = (k) => Array.from({ length: nItems }, (_, i) => words[3 + 4 * i + k]);
      const options = { start: [0], items: [] };
      const optionKind = [], optionOwner = [];
      let at = 3 + 4 * nItems;
      for (let j = 0; j < nOptions; ++j) {
        const n = words[at + 2];
        optionKind.push(words[at]);
        optionOwner.push(words[at + 1]);
        options.items.push(...words.slice(at + 3, at + 3 + n));
        options.start.push(options.items.length);
        at += 3 + n;
      }
      return {
        items: { kind: column(0), low: column(1), high: column(2), cell: column(3) },
        options,
        optionKind,
        optionOwner,
        fixed: words.slice(at),
      };
    });
  }

  // A laser's sheets of a plane board's parts as cpmodels make writes them (its
  // sheet-N.svg; cpcore_cut_sheets): ``pieces`` [{name, cells, count}], ``sizes`` {cell,
  // kerf, clearance, width, height, border, gap, margin} in mm; with ``glyphs`` (the bytes
  // of a glyph table, make/glyphs.py's) the pieces' names and ``labels`` {label: cell} are
  // engraved as make engraves them (cpcore_engrave), else nothing is. Returns {sheets: [SVG
  // text, ...]}; {tooLarge: {part, width, height}} when part (its index: the copies of each
  // piece, then the frame, then the base) fits on no sheet; {noGlyph: the character} when
  // the table has none for a character of a label or name.
  cutSheets({ grid, cells, pieces, sizes, labels = {}, glyphs = null }) {
    check(grid !== "cube", CUT_REFUSED.CPCORE_CUT_NOT_PLANE);
    const { code } = gridOf(grid, this.constants);
    const board = this.cellsIn(cells, 2, "the board");
    check(Array.isArray(pieces) && pieces.length <= this.constants.CPCORE_MAX_CUT_PARTS,
      `pieces: expected an array of at most ${this.constants.CPCORE_MAX_CUT_PARTS} pieces`);
    const flats = pieces.map((piece) => {
      check(piece !== null && typeof piece === "object", "pieces: a piece is an object");
      return this.cellsIn(piece.cells, 2, "a piece");
    });
    const encoder = new TextEncoder();
    const names = pieces.map((piece) => encoder.encode(String(piece.name)));
    const start = new BigInt64Array(pieces.length + 1);
    const nameStart = new BigInt64Array(pieces.length + 1);
    const copies = new BigInt64Array(pieces.map((piece) => BigInt(piece.count ?? 1)));
    flats.forEach((flat, p) => {
      start[p + 1] = start[p] + BigInt(flat.length / 2);
      nameStart[p + 1] = nameStart[p] + BigInt(names[p].length);
    });
    const nCells = Number(start[pieces.length]);
    const pieceCells = new BigInt64Array(2 * nCells);
    flats.forEach((flat, p) => pieceCells.set(flat, 2 * Number(start[p])));
    const nameBytes = new Uint8Array(Number(nameStart[pieces.length]));
    names.forEach((name, p) => nameBytes.set(name, Number(nameStart[p])));
    const size = new Float64Array(CUT_SIZES.map((k) => {
      check(typeof sizes[k] === "number", `sizes.${k}: expected a number`);
      return sizes[k];
    }));
    let engraving = new BigInt64Array(pieces.length + 1);  // no polygon on any part
    if (glyphs !== null) {
      // Texts as their characters (code points), in runs.
      const characters = (texts) => {
        const points = texts.map((text) => Array.from(String(text), (c) => c.codePointAt(0)));
        const start = new BigInt64Array(points.length + 1);
        points.forEach((p, k) => { start[k + 1] = start[k] + BigInt(p.length); });
        return { start, text: new BigInt64Array(points.flat().map(BigInt)) };
      };
      const entries = Object.entries(labels);
      const labelCells = this.cellsIn(entries.map(([, cell]) => cell), 2, "a label's cell");
      const labelText = characters(entries.map(([text]) => text));
      const nameText = characters(pieces.map((piece) => piece.name));
      const table = new Uint8Array(glyphs);
      check(table.length % 8 === 0, "the glyph table is whole words");
      const words = this.scoped(() => {
        const input = this.struct("engrave_input", { grid: code,
          label_cells: this.copy(labelCells), label_start: this.copy(labelText.start),
          label_text: this.copy(labelText.text), n_labels: entries.length,
          n_label_chars: labelText.text.length, piece_cells: this.copy(pieceCells),
          piece_start: this.copy(start), name_start: this.copy(nameText.start),
          name_text: this.copy(nameText.text), n_pieces: pieces.length,
          n_piece_cells: nCells, n_name_chars: nameText.text.length,
          sizes: this.copy(size), glyphs: this.copy(table),
          n_glyph_words: table.length / 8 });
        return this.stream((buffers) => this.exports.cpcore_engrave(input, buffers),
          (got) => statusOf(got, this.constants, ENGRAVE_REFUSED, "the core refused the board"),
          { most: MAX_PLAY_WORDS, tooLarge: "the engraving is too large", bytes: true });
      });
      const first = new DataView(words.buffer).getBigInt64(0, true);
      if (first !== 0n) return { noGlyph: String.fromCodePoint(Number(first)) };
      engraving = new BigInt64Array(words.buffer, 8);
    }
    const bytes = this.scoped(() => {
      const input = this.struct("cut_input", { grid: code, board: this.copy(board),
        n_board: cells.length, piece_cells: this.copy(pieceCells),
        piece_start: this.copy(start), piece_copies: this.copy(copies),
        name_start: this.copy(nameStart), names: this.copy(nameBytes),
        n_pieces: pieces.length, n_piece_cells: nCells, n_name_bytes: nameBytes.length,
        sizes: this.copy(size), engraving: this.copy(engraving),
        n_engraving: engraving.length });
      return this.stream((buffers) => this.exports.cpcore_cut_sheets(input, buffers),
        (got) => statusOf(got, this.constants, CUT_REFUSED, "the core refused the board"),
        { most: MAX_PLAY_WORDS, tooLarge: "the cut sheets are too large", bytes: true });
    });
    const view = new DataView(bytes.buffer);
    const word = (k) => Number(view.getBigInt64(8 * k, true));
    if (word(0) === 0) {
      return { tooLarge: { part: word(1), width: view.getFloat64(16, true),
        height: view.getFloat64(24, true) } };
    }
    const decoder = new TextDecoder();
    const sheets = [];
    let at = 1;
    for (let k = 0; k < word(0); k++) {
      const n = word(at);
      sheets.push(decoder.decode(bytes.subarray(8 * (at + 1), 8 * (at + 1) + n)));
      at += 1 + Math.ceil(n / 8);
    }
    return { sheets };
  }

  // A plane board and its pieces as play mode draws them, in the JSON shape of the API's
  // api/layout/NAME (play.py's board_layout): ``cells`` the board, ``labels`` {label: cell},
  // ``pieces`` [{name, letter, colour, count, low, cells, rotate, flip}] (rotate and flip
  // true, count 1 and low count unless told). The geometry is the core's
  // (cpcore_play_layout, exact); pixels are rounded to hundredths as the server rounds them.
  playLayout({ spec = "", grid, cells, labels = {}, pieces }) {
    check(grid !== "cube", PLAY_REFUSED.CPCORE_LAYOUT_NOT_PLANE);
    const { code } = gridOf(grid, this.constants);
    const board = this.cellsIn(cells, 2, "the board");
    check(Array.isArray(pieces) && pieces.length <= MAX_GEOMETRY_CELLS,
      `pieces: expected an array of at most ${MAX_GEOMETRY_CELLS} pieces`);
    const flats = pieces.map((piece) => {
      check(piece !== null && typeof piece === "object", "pieces: a piece is an object");
      return this.cellsIn(piece.cells, 2, "a piece");
    });
    const start = new BigInt64Array(pieces.length + 1);
    const turns = new BigInt64Array(2 * pieces.length);
    flats.forEach((flat, p) => {
      start[p + 1] = start[p] + BigInt(flat.length / 2);
      turns[2 * p] = pieces[p].rotate === false ? 0n : 1n;
      turns[2 * p + 1] = pieces[p].flip === false ? 0n : 1n;
    });
    const nCells = Number(start[pieces.length]);
    check(nCells <= MAX_GEOMETRY_CELLS, `pieces: more than ${MAX_GEOMETRY_CELLS} cells`);
    const pieceCells = new BigInt64Array(2 * nCells);
    flats.forEach((flat, p) => pieceCells.set(flat, 2 * Number(start[p])));
    const words = this.scoped(() => {
      const input = this.struct("play_input", { grid: code, board: this.copy(board),
        n_board: cells.length, piece_cells: this.copy(pieceCells), piece_start: this.copy(start),
        piece_turns: this.copy(turns), n_pieces: pieces.length, n_piece_cells: nCells });
      return this.stream((buffers) => this.exports.cpcore_play_layout(input, buffers),
        (got) => statusOf(got, this.constants, PLAY_REFUSED, "the core refused the board"),
        { most: MAX_PLAY_WORDS, tooLarge: "the layout is too large for play mode" });
    });
    const [sx, sy] = PLAY_UNITS[grid];
    const round2 = (v) => Number(v.toFixed(2)) || 0;
    const px = (x, y) => [round2((x / SIXTHS) * sx), round2((y / SIXTHS) * sy)];
    let at = 0;
    const take = () => words[at++];
    const pair = () => { const first = take(); return [first, take()]; };
    const points = (n) => Array.from({ length: n }, () => px(...pair()));
    const cellsOfStream = (n) => Array.from({ length: n }, pair);
    const labelOf = new Map(Object.entries(labels).map(([label, cell]) => [String(cell), label]));
    const nBoard = take();
    const [x0, y0, x1, y1] = [take(), take(), take(), take()];
    const nPieces = take();
    const boardCells = Array.from({ length: nBoard }, () => {
      const [cell] = cellsOfStream(1);
      const centre = points(1)[0];
      const corners = points(take());
      return { cell, points: corners, centre, label: labelOf.get(String(cell)) ?? null };
    });
    const laid = Array.from({ length: nPieces }, (_, p) => {
      const { name = "", letter = "", colour = "", count = 1 } = pieces[p];
      const orientations = Array.from({ length: take() }, () => {
        const shape = cellsOfStream(take());
        const faceUp = take() === 1;
        const [rotate, flip] = [take(), take()].map((k) => (k < 0 ? null : k));
        const mark = points(1)[0];
        const loops = Array.from({ length: take() }, () => points(take()));
        const places = Array.from({ length: take() }, () => {
          const [dr, dc, dx, dy] = [take(), take(), take(), take()];
          return [dr, dc, ...px(dx, dy)];
        });
        return { cells: shape, loops, mark, face_up: faceUp, rotate, flip, places };
      });
      return { name, letter, colour, count, low: pieces[p].low ?? count, orientations };
    });
    return { spec, grid, origin: px(x0, y0),
      size: [round2(((x1 - x0) / SIXTHS) * sx), round2(((y1 - y0) / SIXTHS) * sy)],
      cells: boardCells, pieces: laid };
  }

  // Fail with the core's words for a layout's refusal ``error`` (0: none).
  refuse(error) {
    if (error) fail(this.cString(this.exports.cpcore_layout_error(BigInt(error))));
  }

  // The string of the core's at ``at`` (ends at its first 0).
  cString(at) {
    const bytes = new Uint8Array(this.memory.buffer, at);
    return new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
  }

  // The fields of the struct ``name`` at ``at``: int64 and int32 ones as Numbers, uint64
  // ones (words of bits) as BigInts.
  sizesAt(at, name) {
    const dv = new DataView(this.memory.buffer);
    return Object.fromEntries(this.structs[name].fields.map(([field, kind, offset]) => {
      const where = at + offset;
      const value = kind === "u64" ? dv.getBigUint64(where, true)
        : kind === "i64" ? Number(dv.getBigInt64(where, true))
          : kind === "i32" ? dv.getInt32(where, true) : dv.getUint32(where, true);
      return [field, value];
    }));
  }

  // The names of the fields of kind ``kind`` of the struct ``name``, in order.
  fieldsOf(name, kind) {
    return this.structs[name].fields.filter(([, k]) => k === kind).map(([field]) => field);
  }

  // The arrays the struct ``name`` points to: [field, type, its shape's extents].
  arrays(name) {
    return this.structs[name].fields.map(([field, kind, , pointee, shape]) => {
      check(kind === "p" && Object.hasOwn(ARRAY_TYPES, pointee) && shape.length,
        `${name}.${field}: entry.h gives no array type and shape`);
      return [field, ARRAY_TYPES[pointee], shape];
    });
  }

  // Room for each array the struct ``name`` points to, shaped as entry.h says in the sizes
  // measured and the cover's (n: items, options, tally items): their addresses and shapes.
  arraysFor(name, n, sizes) {
    const known = { ...sizes, n_items: n.items, n_options: n.options, n_tally: n.tally };
    const at = {};
    const shapes = {};
    for (const [field, type, extents] of this.arrays(name)) {
      const shape = extents.map((text) => extent(text, known));
      shapes[field] = shape;
      at[field] = this.alloc(shape.reduce((a, b) => a * b, 1) * TYPES[type].BYTES_PER_ELEMENT);
    }
    return { at, shapes };
  }

  // The arrays filled, copied out of the engine's memory ({data, shape} past one dimension).
  read(name, { at, shapes }) {
    return Object.fromEntries(this.arrays(name).map(([field, type]) => {
      const shape = shapes[field];
      const data = this.view(TYPES[type], at[field], shape.reduce((a, b) => a * b, 1)).slice();
      return [field, shape.length === 1 ? data : { data, shape }];
    }));
  }

  // A cover's plan (EngineSession.browser_plan) loaded: its layouts checked and copied in.
  // ``arena``: the counts the table of sub-board counts keeps (4 a slot unless told);
  // ``firstLive``: the slots a large one-word table probes first (cpcore_one_word_table's
  // first_live; 0: the core's), for a search known to fill millions of them.
  load(plan, { tableSlots = DEFAULT_TABLE_SLOTS, deadSlots = DEAD_SLOTS, arena = null,
               firstLive = 0 } = {}) {
    for (const slots of [tableSlots, deadSlots])
      check(Number.isSafeInteger(slots) && slots >= 16 && slots <= 2 ** 26 &&
        (slots & (slots - 1)) === 0, "table slots: a power of two from 16 to 2**26");
    check(arena === null || (Number.isSafeInteger(arena) && arena >= 16 && arena <= 2 ** 28),
      "arena: a whole number of counts from 16 to 2**28");
    check(Number.isSafeInteger(firstLive) && firstLive >= 0 && firstLive <= 2 ** 26,
      "first live slots: a whole number from 0 to 2**26");
    const mark = this.top;
    try {
      const sizes = { tableSlots, deadSlots, arena: arena ?? 4 * tableSlots, firstLive };
      return new Cover(this, plan, mark, sizes);
    } catch (e) {
      this.release(mark);
      throw e;
    }
  }
}

// The layouts a search reads, checked as the bindings check them and copied in.
function oneWordLayout(engine, L) {
  const nPieces = small(numberOf(L, "n_pieces"), "n_pieces", 64);
  check(nPieces >= 1, "the layout has 1 to 64 pieces");
  const start = arrayOf(L, "start", "uint64").data;
  const masks = arrayOf(L, "masks", "uint64").data;
  const opts = arrayOf(L, "opts", "int64").data;
  const optCells = arrayOf(L, "opt_cells", "uint64").data;
  const optPiece = arrayOf(L, "opt_piece", "uint64").data;
  const avail = arrayOf(L, "avail", "uint64").data;
  const fillable = arrayOf(L, "fillable", "bool").data;
  const slackCells = arrayOf(L, "slack_cells", "uint64").data;
  check(start.length >= 64 * nPieces + 1, "the layout's start is too short");
  check(opts.length >= masks.length && optPiece.length >= optCells.length &&
    avail.length >= 64 && fillable.length >= 1 && slackCells.length >= 64,
    "an array of the layout is too short");
  check(start[64 * nPieces] <= BigInt(masks.length), "the layout's runs end past its masks");
  for (let k = 0; k < 64 * nPieces; ++k)
    check(start[k] <= start[k + 1], "the layout's runs are out of order");
  for (const o of opts)
    check(o >= 0n && o < BigInt(optCells.length), "a run's option is out of range");
  const regionLimit = numberOf(L, "region_limit");
  check(regionLimit >= 0n && regionLimit <= BigInt(fillable.length),
    "the layout's region limit is past its region sizes");
  const struct = engine.struct("one_word", {
    start: engine.copy(start), masks: engine.copy(masks), opts: engine.copy(opts),
    avail: engine.copy(avail), opt_cells: engine.copy(optCells),
    opt_piece: engine.copy(optPiece), n_options: optCells.length, n_pieces: nPieces,
    all_pieces: numberOf(L, "all_pieces"), optional: numberOf(L, "optional"),
    covered: numberOf(L, "covered"), inner: numberOf(L, "inner"),
    first: numberOf(L, "first"), last: numberOf(L, "last"), slack: numberOf(L, "slack"),
    fillable: engine.copy(fillable), n_fillable: fillable.length, region_limit: regionLimit,
    isolated_dead: numberOf(L, "isolated_dead") ? 1 : 0,
    slack_cells: engine.copy(slackCells),
  });
  return { struct, nOptions: optCells.length, nPieces };
}

function oneTallies(engine, T, nOptions) {
  const nTally = small(numberOf(T, "n_tally"), "n_tally", MAX_TALLY_ITEMS);
  const length = arrayOf(T, "length", "int64").data;
  const stride = arrayOf(T, "stride", "int64", 2);
  const optTally = arrayOf(T, "opt_tally", "int64").data;
  const combos = 2 ** nTally;
  check(length.length >= combos, "the tallies' lengths are too short");
  check(stride.shape[0] >= combos && stride.shape[1] >= Math.max(nTally, 1),
    "the tallies' strides do not match their items");
  check(optTally.length >= nOptions && arrayOf(T, "opt_index", "int64").data.length >= nOptions,
    "the tallies have too few options");
  for (const t of optTally.subarray(0, nOptions))
    check(t >= -1n && t < BigInt(nTally), "an option's tally item is not one of the tallies'");
  const width = Number(length[combos - 1]);
  for (let m = 0; m < combos; ++m)
    check(length[m] >= 1n && length[m] <= BigInt(width), "the tallies' vectors are out of range");
  checkMaps(T, nTally, Math.max(nTally, 1));
  const struct = engine.struct("one_tallies", {
    n_tally: nTally, bit: engine.copy(arrayOf(T, "bit", "uint64").data),
    opt_tally: engine.copy(optTally), opt_index: engine.copy(arrayOf(T, "opt_index", "int64").data),
    length: engine.copy(length), stride: engine.copy(stride.data), stride_cols: stride.shape[1],
    map_start: engine.copy(arrayOf(T, "map_start", "int64").data),
    map_flat: engine.copy(arrayOf(T, "map_flat", "int64").data),
  });
  return { struct, width, nTally };
}

// The tallies' child-to-parent maps stay inside their arrays.
function checkMaps(T, nTally, cols) {
  const mapStart = arrayOf(T, "map_start", "int64").data;
  const mapFlat = arrayOf(T, "map_flat", "int64").data;
  check(mapStart.length >= 2 ** nTally * cols + 1, "the tallies' maps are too short");
  for (let k = 0; k + 1 < mapStart.length; ++k)
    check(mapStart[k] >= 0n && mapStart[k] <= mapStart[k + 1] &&
      mapStart[k + 1] <= BigInt(mapFlat.length), "the tallies' maps are out of range");
}

// What every packing search reads of a cover (Layout's and WordLayout's shared fields).
function packingCover(engine, L, nOptions) {
  const nBranch = small(numberOf(L, "n_branch"), "n_branch");
  const anchorStart = arrayOf(L, "anchor_start", "int64").data;
  const anchorOpts = arrayOf(L, "anchor_opts", "int64").data;
  const groupEnd = arrayOf(L, "group_end", "int64").data;
  const low = arrayOf(L, "counter_low", "int64").data;
  const high = arrayOf(L, "counter_high", "int64").data;
  const radix = arrayOf(L, "radix", "uint64").data;
  const optCounter = arrayOf(L, "opt_counter", "int64").data;
  const optNbStart = arrayOf(L, "opt_nb_start", "int64").data;
  const optNb = arrayOf(L, "opt_nb", "int64").data;
  const fillable = arrayOf(L, "fillable", "bool").data;
  check(anchorStart.length >= nBranch + 1 && optCounter.length >= nOptions &&
    groupEnd.length >= anchorOpts.length && high.length >= low.length &&
    radix.length >= low.length && optNbStart.length >= nOptions + 1,
    "an array of the layout is too short");
  check(anchorStart[nBranch] <= BigInt(anchorOpts.length), "anchor_start: out of range");
  for (const o of anchorOpts) check(o >= 0n && o < BigInt(nOptions), "anchor_opts: out of range");
  groupEnd.subarray(0, anchorOpts.length).forEach((end, k) =>
    check(end > BigInt(k) && end <= BigInt(anchorOpts.length), "group_end: out of range"));
  for (const c of optCounter)
    check(c >= -1n && c < BigInt(low.length), "opt_counter: out of range");
  for (const b of optNb) check(b >= 0n && b < BigInt(nBranch), "opt_nb: out of range");
  for (let o = 0; o < nOptions; ++o)
    check(optNbStart[o] >= 0n && optNbStart[o] <= optNbStart[o + 1] &&
      optNbStart[o + 1] <= BigInt(optNb.length), "opt_nb_start: out of range");
  const regionLimit = numberOf(L, "region_limit");
  check(regionLimit >= 0n && regionLimit <= BigInt(fillable.length),
    "region_limit: beyond the fillable sizes");
  const struct = engine.struct("packing_cover", {
    opt_counter: engine.copy(optCounter), anchor_start: engine.copy(anchorStart),
    anchor_opts: engine.copy(anchorOpts), group_end: engine.copy(groupEnd),
    counter_low: engine.copy(low), counter_high: engine.copy(high), radix: engine.copy(radix),
    n_counters: low.length, n_branch: nBranch, memo_ok: numberOf(L, "memo_ok") ? 1 : 0,
    opt_nb_start: engine.copy(optNbStart), opt_nb: engine.copy(optNb),
    fillable: engine.copy(fillable), region_limit: regionLimit,
  });
  return { struct, nBranch, nCounters: low.length };
}

// The two-word state's view (WordLayout).
function wordsLayout(engine, W) {
  const optA = arrayOf(W, "opt_a", "uint64").data;
  const nOptions = optA.length;
  const cover = packingCover(engine, W, nOptions);
  const nFlat = Number(arrayOf(W, "anchor_start", "int64").data[cover.nBranch]);
  const nWords = small(numberOf(W, "n_words"), "n_words", 2);
  check(nWords === 1 || nWords === 2, "n_words: the word kernel holds one or two words");
  check(cover.nBranch <= 64 * nWords, "n_branch: more bits than the words");
  const copied = {};
  for (const [name, type, least] of [["opt_b", "uint64", nOptions], ["k_a", "uint64", nFlat],
    ["k_b", "uint64", nFlat], ["k_tag_a", "uint64", nFlat], ["k_tag_b", "uint64", nFlat],
    ["k_counter", "int64", nFlat], ["nb_a", "uint64", cover.nBranch],
    ["nb_b", "uint64", cover.nBranch]]) {
    const data = arrayOf(W, name, type).data;
    check(data.length >= least, `${name}: too short`);
    copied[name] = engine.copy(data);
  }
  for (const c of arrayOf(W, "k_counter", "int64").data.subarray(0, nFlat))
    check(c >= -1n && c < BigInt(cover.nCounters), "k_counter: out of range");
  const words = engine.struct("two_words", {
    opt_a: engine.copy(optA), ...copied, branch_a: numberOf(W, "branch_a"),
    branch_b: numberOf(W, "branch_b"), memo_below: numberOf(W, "memo_below"),
    n_words: nWords,
  });
  // The state is two words; a table row holds the key words, the counter code and the value.
  return { ...cover, words, nOptions, stateWords: 2, keyWords: nWords + 2, inline: true };
}

// The N-word state's view (Layout).
function nWordsLayout(engine, L) {
  const mask = arrayOf(L, "opt_mask", "uint64", 2);
  const [nOptions, nWords] = mask.shape;
  const cover = packingCover(engine, L, nOptions);
  check(nWords >= 1 && cover.nBranch <= 64 * nWords,
    "opt_mask: fewer words than the branching items");
  const tagWord = arrayOf(L, "opt_tag_word", "int64").data;
  const tagBit = arrayOf(L, "opt_tag_bit", "uint64").data;
  const cellNb = arrayOf(L, "cell_nb", "int64", 2);
  check(tagWord.length >= nOptions && tagBit.length >= nOptions, "the tags are too short");
  for (const w of tagWord) check(w >= -1n && w < BigInt(nWords), "opt_tag_word: out of range");
  check(cellNb.shape[0] >= cover.nBranch, "cell_nb: fewer rows than the branching items");
  for (const b of cellNb.data) check(b >= -1n && b < BigInt(64 * nWords), "cell_nb: out of range");
  const words = engine.struct("n_words", {
    opt_mask: engine.copy(mask.data), n_words: nWords, tag_word: engine.copy(tagWord),
    tag_bit: engine.copy(tagBit), cell_nb: engine.copy(cellNb.data), degree: cellNb.shape[1],
  });
  return { ...cover, words, nOptions, nWords, stateWords: nWords, keyWords: nWords + 1,
    inline: false, nAnchored: Number(arrayOf(L, "anchor_start", "int64").data[cover.nBranch]),
    optMask: mask.data, optCounter: arrayOf(L, "opt_counter", "int64").data,
    counterHigh: arrayOf(L, "counter_high", "int64").data };
}

function packingTallies(engine, T, nOptions) {
  const nTally = small(numberOf(T, "n_tally"), "n_tally", MAX_TALLY_ITEMS);
  const cols = Math.max(nTally, 1);
  const combos = 2 ** nTally;
  const length = arrayOf(T, "length", "int64").data;
  const stride = arrayOf(T, "stride", "int64", 2);
  check(length.length >= combos, "length: too short");
  check(stride.shape[0] >= combos && stride.shape[1] === cols,
    "stride: not [2**n_tally, max(n_tally, 1)]");
  const copied = {};
  for (const [name, least] of [["bit", cols], ["last_anchor", cols], ["opt_tally", nOptions],
    ["opt_index", nOptions]]) {
    const data = arrayOf(T, name, "int64").data;
    check(data.length >= least, `${name}: too short`);
    copied[name] = engine.copy(data);
  }
  for (const t of arrayOf(T, "opt_tally", "int64").data.subarray(0, nOptions))
    check(t >= -1n && t < BigInt(nTally), "an option's tally item is not one of the tallies'");
  checkMaps(T, nTally, cols);
  const struct = engine.struct("tallies", {
    n_tally: nTally, ...copied, length: engine.copy(length), stride: engine.copy(stride.data),
    map_start: engine.copy(arrayOf(T, "map_start", "int64").data),
    map_flat: engine.copy(arrayOf(T, "map_flat", "int64").data),
  });
  return { struct, width: Number(length[combos - 1]), nTally };
}

// A packing search's working memory (the bindings' Buffers).
function searchBuffers(engine, view, accWidth) {
  const depth = view.nBranch + 1;
  const words = (n) => engine.alloc(n * 8);
  return engine.struct("search_buffers", {
    acc: words(depth * accWidth), acc_width: accWidth, stack_pos: words(depth),
    stack_k: words(depth), stack_code: words(depth), stack_mask: words(depth),
    chosen: words(depth), counters: words(view.nCounters + 1), filled: words(view.stateWords),
    scratch: words(2 * view.stateWords), fill_stack: words(depth),
  });
}

function packingTable(engine, view, table) {
  return engine.struct("table", {
    keys: table.keys, values: table.values, arena: table.arena, stats: table.stats,
    n_slots: table.slots, key_stride: view.keyWords, value_stride: view.inline ? view.keyWords : 1,
    n_arena: table.arenaSize,
  });
}

// What a packing search over rows of prefixes is given (entry.h's cpcore_prefix_call): the
// cover, its table (useTable: whether an existence search consults it), the rows ``p`` copied
// to ``at``, the working memory and the stop flag.
function prefixCall(engine, view, table, useTable, at, p, buffers, stop) {
  return engine.struct("prefix_call", {
    cover: view.struct, table, use_table: useTable ? 1 : 0, prefixes: at,
    n_prefixes: p.rows, width: p.width, buffers, stop,
  });
}

// One cover loaded: the layouts of its plan and its tables, the questions it answers.
class Cover {
  constructor(engine, plan, mark, { tableSlots, deadSlots, arena, firstLive }) {
    check(plan && typeof plan === "object", "the plan: expected an object");
    this.engine = engine;
    this.mark = mark;
    this.tableSlots = tableSlots;
    this.arena = arena;
    this.deadSlots = deadSlots;
    this.firstLive = firstLive;
    const { tally, exists, solutions } = plan;
    this.tallyKernel = tally ? tally.kernel : null;
    if (tally) this.tallyLayouts = this.loadTally(tally);
    this.existsKernel = exists ? exists.kernel : null;
    if (exists) {
      check(["exists_two_words", "exists_n_words"].includes(exists.kernel),
        `${exists.kernel}: not an existence search`);
      this.existsLayout = exists.kernel === "exists_two_words"
        ? wordsLayout(engine, exists.layout) : nWordsLayout(engine, exists.layout);
    }
    if (solutions) {
      check(solutions.kernel === "search_n_words", `${solutions.kernel}: not a solution stream`);
      this.solutionLayout = nWordsLayout(engine, solutions.layout);
    }
    this.tables = {};
  }

  loadTally({ kernel, layout, tallies }) {
    const engine = this.engine;
    if (kernel === "count_one_word" || kernel === "tally_one_word") {
      const L = oneWordLayout(engine, layout);
      const T = kernel === "tally_one_word" ? oneTallies(engine, tallies, L.nOptions) : null;
      return { L, T, nOptions: L.nOptions };
    }
    check(["tally_prefixes_two_words", "tally_prefixes_n_words"].includes(kernel),
      `${kernel}: not a counting search`);
    const L = kernel === "tally_prefixes_two_words"
      ? wordsLayout(engine, layout) : nWordsLayout(engine, layout);
    return { L, T: packingTallies(engine, tallies, L.nOptions), nOptions: L.nOptions };
  }

  // The table of sub-board counts (made on first use, kept) or of dead states.
  table(name, keyWords, slots, inline, arena = undefined) {
    if (!this.tables[name]) this.tables[name] = this.engine.table(keyWords, slots, inline, arena);
    return this.tables[name];
  }

  // Run ``body`` with memory for one call, given back after (the tables made stay).
  call(body) {
    const engine = this.engine;
    check(engine.top >= this.mark, "this cover was released");
    const mark = engine.top;
    try {
      return body(engine);
    } finally {
      engine.release(mark);
    }
  }

  // The completions of each row of prefixes (option ids forced first): BigInts.
  count(prefixes) {
    return this.tally(prefixes).rows.map((row) => row.reduce((sum, n) => sum + n, 0n));
  }

  // Each row of prefixes tallied: {rows: a BigInt64Array of counts per row (one count with
  // no tally items), masks: each row's uncovered tally items (null for the plain count)},
  // as the core writes them (EngineSession.tally decodes the same).
  tally(prefixes) {
    check(this.tallyKernel, "this cover's plan has no counting search");
    const { L, T, nOptions } = this.tallyLayouts;
    const p = prefixRows(prefixes, nOptions);
    // The tables are made before the call's memory is taken, so that they stay.
    const plain = this.tallyKernel === "count_one_word";
    const oneWord = plain || this.tallyKernel === "tally_one_word";
    const table = oneWord  // (its rows hold their values: no array of values apart)
      ? this.table("count", 3, this.tableSlots, true, this.arena)
      : this.table("count", L.keyWords, this.tableSlots, L.inline, this.arena);
    return this.call((engine) => {
      const at = engine.copy(p.flat);
      const width = plain ? 1 : T.width;
      const out = engine.alloc(Math.max(p.rows, 1) * width * 8);
      const outMask = engine.alloc(Math.max(p.rows, 1) * 8);
      const rows = BigInt(p.rows);
      const cols = BigInt(p.width);
      const stop = engine.alloc(8);  // (never set: a worker running a search is ended whole)
      const x = engine.exports;
      if (oneWord) {
        const t = engine.struct("one_word_table", { keys: table.keys, n_slots: table.slots,
          arena: table.arena, arena_size: table.arenaSize, stats: table.stats,
          first_live: this.firstLive });
        if (plain) x.cpcore_count_one_word(L.struct, at, rows, cols, t, 1, out, stop);
        else {
          const scratch = engine.alloc((L.nPieces + 1) * width * 8);
          const status = x.cpcore_tally_one_word(L.struct, T.struct, at, rows, cols, t, 1,
            out, BigInt(width), outMask, scratch, stop);
          check(Number(status) === 0, "a tally item is a piece that may be left out: the " +
            "one-word tally cannot split the counts by it");
        }
      } else {
        const entry = this.tallyKernel === "tally_prefixes_two_words"
          ? x.cpcore_tally_prefixes_two_words : x.cpcore_tally_prefixes_n_words;
        const call = prefixCall(engine, L, packingTable(engine, L, table), true, at, p,
          searchBuffers(engine, L, width), stop);
        entry(call, L.words, T.struct, out, BigInt(width), outMask);
      }
      const counts = engine.view(BigInt64Array, out, p.rows * width);
      const found = engine.view(BigInt64Array, outMask, p.rows);
      return {
        rows: Array.from({ length: p.rows }, (_, r) => counts.slice(r * width, (r + 1) * width)),
        masks: plain ? null : Array.from(found, Number),
      };
    });
  }

  // The search's next branching step below ``task`` (option ids forced first): the options
  // that can cover the first item the task leaves open, in the search's order (the core's
  // cpcore_split_n_words, as EngineSession.split asks it natively); none when nothing is
  // left open or nothing fits. The task's completions are the sum of those of the task with
  // each of them added.
  split(task = []) {
    check(this.solutionLayout, "this cover's plan has no solution stream");
    const L = this.solutionLayout;
    const p = prefixRows([task], L.nOptions);
    return this.call((engine) => {
      const at = engine.copy(p.flat);
      const filled = engine.alloc(L.nWords * 8);
      const counters = engine.alloc((L.nCounters + 1) * 8);
      const out = engine.alloc((L.nAnchored + 1) * 8);
      const n = Number(engine.exports.cpcore_split_n_words(L.struct, L.words, at,
        BigInt(p.width), filled, counters, out));
      return Array.from(engine.view(BigInt64Array, out, n), Number);
    });
  }

  // For each row of prefixes, whether some solution contains it (null: not searched, after
  // the first false with firstFailure). With remember, the dead states found are kept for
  // later calls.
  exists(prefixes, { firstFailure = false, remember = true } = {}) {
    check(this.existsKernel, "this cover's plan has no existence search");
    const L = this.existsLayout;
    const p = prefixRows(prefixes, L.nOptions);
    const kept = remember ? this.table("dead", L.keyWords, this.deadSlots, L.inline) : null;
    return this.call((engine) => {
      const table = kept || engine.table(L.keyWords, 16, L.inline);
      const at = engine.copy(p.flat);
      const out = engine.alloc(Math.max(p.rows, 1) * 8);
      engine.view(BigInt64Array, out, p.rows).fill(-1n);
      const stop = engine.alloc(8);
      const x = engine.exports;
      const entry = this.existsKernel === "exists_two_words"
        ? x.cpcore_exists_two_words : x.cpcore_exists_n_words;
      const call = prefixCall(engine, L, packingTable(engine, L, table), remember, at, p,
        searchBuffers(engine, L, 1), stop);
      entry(call, L.words, out, firstFailure ? 1 : 0);
      return Array.from(engine.view(BigInt64Array, out, p.rows),
        (x) => (x < 0n ? null : x === 1n));
    });
  }

  // A solution containing the forced options (option ids, the forced first), the first of
  // the fixed order EngineSession.solutions streams them in; null when there is none.
  firstSolution(forced = []) {
    return this.solutions(forced, { take: 1 }).solutions[0] ?? null;
  }

  // The solutions containing the forced options in the fixed order EngineSession.solutions
  // streams them in, from number ``skip`` (0-based) on, ``take`` of them at most; the search
  // stops there, or after ``most`` solutions in all. {solutions: option ids of each (the
  // forced first), found: the solutions gone through, exhausted: whether that was all}.
  solutions(forced = [], { skip = 0, take = 1, most = Infinity, batch = 256 } = {}) {
    check(this.solutionLayout, "this cover's plan has no solution stream");
    for (const [value, name] of [[skip, "skip"], [take, "take"], [batch, "batch"]])
      check(Number.isSafeInteger(value) && value >= 0, `${name}: expected a whole number`);
    check(batch >= 1 && batch <= 4096, "batch: from 1 to 4096");
    const L = this.solutionLayout;
    const ids = Array.from(prefixRows([forced], L.nOptions).flat, Number).filter((o) => o >= 0);
    const none = { solutions: [], found: 0, exhausted: true };
    const filled = new BigUint64Array(L.nWords);
    const counters = new BigInt64Array(L.nCounters + 1);
    for (const o of ids) {
      for (let w = 0; w < L.nWords; ++w) {
        const m = L.optMask[o * L.nWords + w];
        if (filled[w] & m) return none;
        filled[w] |= m;
      }
      const c = Number(L.optCounter[o]);
      if (c >= 0 && ++counters[c] > L.counterHigh[c]) return none;
    }
    const last = Math.min(skip + take, most);
    return this.call((engine) => {
      const depth = L.nBranch + 1;
      const state = engine.copy(new BigInt64Array([-1n, 0n]));
      const buffers = searchBuffers(engine, L, 1);
      const view = new DataView(engine.memory.buffer);
      const { offsets } = engine.structs.search_buffers;
      const field = (name) => view.getUint32(buffers + offsets[name][0], true);
      engine.view(BigUint64Array, field("filled"), L.nWords).set(filled);
      engine.view(BigInt64Array, field("counters"), L.nCounters + 1).set(counters);
      const out = engine.alloc(batch * depth * 8);
      const stop = engine.alloc(8);
      const found = [];
      let seen = 0;
      let done = false;
      while (seen < last && !done) {
        const step = Math.min(batch, last - seen);
        engine.exports.cpcore_search_n_words(L.struct, L.words, state, buffers, out,
          BigInt(depth), BigInt(step), stop);
        const [at, written] = Array.from(engine.view(BigInt64Array, state, 2), Number);
        done = at === -2;
        const rows = engine.view(BigInt64Array, out, written * depth);
        for (let r = 0; r < written; ++r, ++seen) {
          if (seen < skip) continue;
          const row = Array.from(rows.subarray(r * depth, (r + 1) * depth), Number);
          const end = row.indexOf(-1);
          found.push([...ids, ...row.slice(0, end < 0 ? row.length : end)]);
        }
        if (!written && !done) break;  // (a stream that neither writes nor ends: stopped)
      }
      return { solutions: found, found: seen, exhausted: done };
    });
  }

  // The nodes the counting searches took so far (the table's statistics).
  get nodes() {
    const table = this.tables.count;
    return table ? Number(this.engine.view(BigInt64Array, table.stats, STATS)[NODES]) : 0;
  }

  // Give back the memory of this cover and of everything loaded after it.
  release() {
    this.engine.release(this.mark);
  }
}

// A plan as EngineSession.browser_plan() writes it in JSON ({dtype, shape, base64} for
// each array) turned into the typed arrays Engine.load takes.
const REACH_SLOTS = 1 << 16;  // the reach search's states searched to the end (searches.py)
const SETTLED_SLOTS = 1 << 20;  // its settled states, kept for good (docs/design.md)

// A design's board for the core's design decision (Engine.reachDesign): the reach layout
// from the corner ``flips``, its tables, the required dates made by the core
// (cpcore_design_dates: their holes held, groups and combinations) and the learnt order,
// all in the engine's memory; the sets asked of it decided by cpcore_design
// (EngineSession.design natively).
class ReachDesign {
  constructor(engine, cover, flips, holes) {
    this.engine = engine;
    const x = engine.exports;
    const one = engine.oneWordAt(cover, flips);
    const g = engine.reachGroups(one);
    this.nGroups = Number(g.n_groups);
    this.nCells = Number(g.n_cells);
    this.nOptions = one.nOptions;
    this.nIndex = Number(g.n_index);
    const groupsAt = engine.sizesAt(g.at, "reach_groups");
    const ptr = (field) => Number(new DataView(engine.memory.buffer).getUint32(
      g.at + engine.structs.reach_groups.offsets[field][0], true));
    this.layout = engine.struct("reach_layout", {
      start: one.at.start, masks: one.at.masks, avail: one.at.avail,
      opt_cells: one.at.opt_cells, opt_unit: one.at.opt_piece, n_options: one.nOptions,
      n_units: one.nPieces, slack_units: one.words.slack, optional: one.words.optional,
      covered: one.words.covered, inner: one.words.inner, first: one.words.first,
      last: one.words.last, group_cells: ptr("group_cells"), group_unit: ptr("group_unit"),
      n_groups: groupsAt.n_groups, bit_group: groupsAt.bit_group, a_group: groupsAt.a_group,
      b_group: groupsAt.b_group, a_label: ptr("a_label"), b_label: ptr("b_label"),
      a_stride: groupsAt.a_stride, n_index: groupsAt.n_index, fill: 0, fill_cols: 0,
      limit: 0 });
    // the settled table's arena holds a byte a slot (its tags: a state not kept is found
    // absent without reading its rows), as the native design's does
    const table = (slots, arena) => {
      const t = engine.table(4, slots, true, arena);
      return engine.struct("one_word_table", { keys: t.keys, n_slots: slots, arena: t.arena,
        arena_size: t.arenaSize, stats: t.stats, first_live: 0 });
    };
    this.reached = table(REACH_SLOTS, 16);
    this.settled = table(SETTLED_SLOTS, SETTLED_SLOTS / 8);
    this.calls = engine.copy(new BigUint64Array([1n]));
    // The dates, as the core reads them.
    check(Array.isArray(holes) && holes.length >= 1, "a design has required dates");
    const n = holes.length;
    const cols = Math.max(1, ...holes.map((row) => row.length));
    const rows = new BigInt64Array(n * cols).fill(-1n);
    holes.forEach((row, d) => row.forEach((o, c) => {
      check(Number.isSafeInteger(o) && o >= 0 && o < this.nOptions, "a hole is no option");
      rows[d * cols + c] = BigInt(o);
    }));
    this.nDates = n;
    this.holeCols = cols;
    const words = (k) => engine.alloc(k * 8);
    this.holes = engine.copy(rows);
    this.held = words(n * cols);
    this.group = words(n);
    this.index = words(n);
    this.bit = words(n);
    const status = engine.scoped(() => x.cpcore_design_dates(engine.struct("dates_input", {
      layout: this.layout, left_open: groupsAt.last_group, n_dates: n, hole_cols: cols,
      holes: this.holes, held: this.held, group: this.group, index: this.index, bit: this.bit,
      work: words(Number(x.cpcore_design_dates_work_words(BigInt(n)))) })));
    check(Number(status) === 0, "a required date does not leave one hole in each label group");
    this.order = engine.copy(BigInt64Array.from({ length: n }, (_, d) => BigInt(d)));
    this.front = engine.alloc(n);
    this.late = words(n);
    this.work = words(Number(x.cpcore_design_work_words(BigInt(n), BigInt(cols))));
    this.need = words(this.nIndex);
    this.learnt = null;  // the learnt order last set (setLearnt)
  }

  // The learnt order: {order: every date once, the first tried first; front: the dates
  // searched alone; late: how often each failed first past the front}.
  get learntOrder() {
    const e = this.engine;
    const n = this.nDates;
    const front = [];
    const flags = e.view(Uint8Array, this.front, n);
    flags.forEach((f, d) => { if (f) front.push(d); });
    return { order: Array.from(e.view(BigInt64Array, this.order, n), Number), front,
      late: Array.from(e.view(BigInt64Array, this.late, n), Number) };
  }

  // The order another design board learnt (learntOrder), taken when it is not the one held.
  setLearnt(learnt) {
    const key = learnt.order.join(",") + "/" + learnt.front.join(",");
    if (this.learnt === key) return;
    const n = this.nDates;
    const { order, front, late = [] } = learnt;
    check(Array.isArray(order) && order.length === n &&
      new Set(order).size === n && order.every((d) => Number.isSafeInteger(d) && d >= 0 &&
        d < n), "the learnt order is not every date once");
    const e = this.engine;
    e.view(BigInt64Array, this.order, n).set(order.map(BigInt));
    const flags = e.view(Uint8Array, this.front, n);
    flags.fill(0);
    for (const d of front) {
      check(Number.isSafeInteger(d) && d >= 0 && d < n, "a date of the front is out of range");
      flags[d] = 1;
    }
    if (late.length === n) e.view(BigInt64Array, this.late, n).set(late.map((k) => BigInt(k)));
    this.learnt = key;
  }

  // Each set's first failing date in the order (its index in the dates), or null: sets[s]
  // the options it forces (its pieces left out), areas[s] its pieces' areas (a piece once
  // a copy). With learning, each failure moves its date to the front of the order.
  decide(sets, areas, { learning = false } = {}) {
    const e = this.engine;
    const x = e.exports;
    check(Array.isArray(sets) && Array.isArray(areas) && sets.length === areas.length,
      "the sets and their areas: one a set");
    if (!sets.length) return [];
    if (learning) this.learnt = null;
    return e.scoped(() => {
      const cols = Math.max(1, ...sets.map((row) => row.length));
      const forced = new BigInt64Array(sets.length * cols).fill(-1n);
      sets.forEach((row, s) => row.forEach((o, c) => {
        check(Number.isSafeInteger(o) && o >= 0 && o < this.nOptions,
          "a set forces an option the cover does not have");
        forced[s * cols + c] = BigInt(o);
      }));
      // Each shape of areas once: its rows of region sizes made by the core.
      const shapes = new Map();
      const shape = areas.map((list) => {
        const key = list.join(",");
        if (!shapes.has(key)) shapes.set(key, shapes.size);
        return shapes.get(key);
      });
      const fillCols = this.nCells + 1;
      const rowWords = (this.nGroups + 1) * fillCols;
      const fills = e.alloc(shapes.size * rowWords);
      const limits = new BigUint64Array(shapes.size);
      for (const [key, k] of shapes) {
        const list = key ? key.split(",").map((a) => BigInt(a)) : [];
        check(list.every((a) => a > 0n && a <= 64n), "a piece's area is out of range");
        limits[k] = x.cpcore_reach_fills(e.copy(BigInt64Array.from(list.length ? list : [0n])),
          BigInt(list.length), BigInt(this.nGroups), BigInt(this.nCells), fills + k * rowWords);
      }
      const failure = e.alloc(sets.length * 8);
      const stop = e.alloc(8);
      const got = x.cpcore_design(e.struct("design_input", {
        layout: this.layout, reached: this.reached, settled: this.settled, calls: this.calls,
        n_dates: this.nDates, hole_cols: this.holeCols, holes: this.holes, held: this.held,
        group: this.group, index: this.index, bit: this.bit, order: this.order,
        front: this.front, late: this.late, n_sets: sets.length, forced_cols: cols,
        forced: e.copy(forced), shape: e.copy(BigInt64Array.from(shape, BigInt)),
        n_shapes: shapes.size, fill_cols: fillCols, fills, limits: e.copy(limits),
        learning: learning ? 1 : 0, failure, decided: e.alloc(8), work: this.work,
        need: this.need, stop }));
      check(Number(got) === sets.length, "the design decision stopped");
      return Array.from(e.view(BigInt64Array, failure, sets.length),
        (d) => (Number(d) === this.nDates ? null : Number(d)));
    });
  }
}

export function decodePlan(json) {
  const decode = (value) => {
    if (value && typeof value === "object" && "base64" in value) {
      const Type = TYPES[value.dtype];
      check(Type, `${value.dtype}: not an array type of the engine`);
      let text;
      try {
        text = atob(value.base64);
      } catch (e) {
        fail("an array's base64 is not valid");
      }
      const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
      check(bytes.length % Type.BYTES_PER_ELEMENT === 0, "an array's bytes are cut short");
      const data = new Type(bytes.buffer);
      const shape = value.shape;
      check(Array.isArray(shape) && shape.length >= 1 && shape.every(Number.isSafeInteger) &&
        shape.reduce((a, b) => a * b, 1) === data.length, "an array's shape is not its length");
      return shape.length === 1 ? data : { data, shape };
    }
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v)]));
    return value;
  };
  return decode(json);
}

// A plan the page made (coverPlan's) in the JSON of EngineSession.browser_plan():
// decodePlan's inverse, each array as {dtype, shape, base64}.
export function encodePlan(plan) {
  const dtypes = new Map(Object.entries(TYPES).map(([name, Type]) => [Type, name]));
  const encode = (value) => {
    const typed = ArrayBuffer.isView(value) ? { data: value, shape: [value.length] }
      : value && typeof value === "object" && ArrayBuffer.isView(value.data) ? value : null;
    if (typed) {
      const bytes = new Uint8Array(typed.data.buffer, typed.data.byteOffset,
        typed.data.byteLength);
      let text = "";
      for (let k = 0; k < bytes.length; k += 0x8000)
        text += String.fromCharCode(...bytes.subarray(k, k + 0x8000));
      check(dtypes.has(typed.data.constructor), "an array of a type the engine does not read");
      return { dtype: dtypes.get(typed.data.constructor), shape: Array.from(typed.shape),
        base64: btoa(text) };
    }
    if (typeof value === "bigint") return Number(value);
    if (Array.isArray(value)) return value.map(encode);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]));
    return value;
  };
  return encode(plan);
}

// The engine instantiated from ``source``: a URL (or its string), a Response, the bytes of
// engine.wasm or a compiled WebAssembly.Module.
export async function loadEngine(source) {
  let module;
  if (source instanceof WebAssembly.Module) module = source;
  else if (source instanceof ArrayBuffer || ArrayBuffer.isView(source))
    module = await WebAssembly.compile(source);
  else {
    const response = source instanceof Response ? source : await fetch(source);
    if (!response.ok) fail(`engine.wasm: ${response.status} ${response.statusText}`);
    module = await WebAssembly.compile(await response.arrayBuffer());
  }
  const instance = await WebAssembly.instantiate(module, {});
  return new Engine(instance);
}
