// A board's YAML file where no server is (the static site): written as the server's
// api/board/yaml writes it (board.to_yaml: PyYAML's safe_dump, keys in the board's order,
// block style, 100 columns) and read as its api/board/open reads one (spec.loading's
// parse_yaml: PyYAML's safe loader with no aliases, nesting of at most 20 levels, no
// duplicate or non-plain keys, numbers bounded), refused in its sentences. The YAML
// library (yaml.js, vendored) parses and prints; what a plain scalar is (text, a number,
// true or false, null) is PyYAML's, from its resolvers below.
import {problemSentence, pyRepr as textRepr} from "./drawn.js";
import {isAlias, isMap, isScalar, isSeq, parseDocument, stringify} from "./yaml.js";
import {sentence} from "./words.js";

// PyYAML's implicit resolvers (yaml.resolver.Resolver), in its order: a plain scalar is the
// first kind whose pattern matches it, else text (tests/test_site.py holds these to
// PyYAML's own patterns).
export const RESOLVERS = [
  ["bool", "^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"],
  ["float", "^(?:[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9][0-9_]*" +
            "(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|" +
            "[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$"],
  ["int", "^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|" +
          "[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"],
  ["merge", "^(?:<<)$"],
  ["null", "^(?:~|null|Null|NULL|)$"],
  ["timestamp", "^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]" +
                "-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \\t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9]" +
                "(?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"],
  ["value", "^(?:=)$"],
  ["yaml", "^(?:!|&|\\*)$"],
].map(([kind, pattern]) => [kind, new RegExp(pattern)]);
const TAG = "tag:yaml.org,2002:";

// The loader's bounds (spec/loading.py).
export const MAX_DEPTH = 20;
export const MAX_INT = 2n ** 63n - 1n;
export const MAX_NUMBER_CHARS = 64;
// Characters YAML does not allow (PyYAML's Reader.NON_PRINTABLE).
const NON_PRINTABLE = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const grouped = (n) => n.toLocaleString("en-US");

// A capital first letter and a full stop (wording.sentence), whitespace made single.

// A value as Python's repr writes it (a duplicate key is named so).
function pyRepr(value) {
  if (value === null) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan";
    if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
    return Number.isInteger(value) && !Object.is(value, -0) && String(value).includes("e")
      ? BigInt(value).toString() : String(value);
  }
  return textRepr(String(value));
}

// A refusal of the YAML at a place in the text (its offset orders it among the others).
class Refusal extends Error {
  constructor(message, at = 0) { super(sentence(message)); this.at = at; this.reason = message; }
}
// A number no field can take: said with the field it is in (the loader's _BadNumber).
class BadNumber extends Refusal {}
const syntax = (problem, at) => new Refusal(`YAML syntax error: ${problem}`, at);

// The number a bounded integer's text is (PyYAML's construct_yaml_int, then the loader's
// bound), or a Refusal.
function integer(text, at) {
  const shown = text.length <= 24 ? text : `${text.slice(0, 20)}...`;
  if (text.length > MAX_NUMBER_CHARS) {
    throw new BadNumber(`the number ${shown} has ${grouped(text.length)} characters; integers ` +
                      `in a spec are at most ${grouped(MAX_INT)}`, at);
  }
  let value = text.replace(/_/g, "");
  let sign = 1n;
  if (value[0] === "-" || value[0] === "+") { sign = value[0] === "-" ? -1n : 1n; value = value.slice(1); }
  let n;
  try {
    if (value === "0") n = 0n;
    else if (value.startsWith("0b")) n = BigInt(value);
    else if (value.startsWith("0x")) n = BigInt(value);
    else if (value[0] === "0") n = BigInt(`0o${value.slice(1)}`);
    else if (value.includes(":")) n = value.split(":").reduce((t, d) => t * 60n + BigInt(d), 0n);
    else n = BigInt(value);
  } catch (e) {
    throw new Refusal(`the YAML holds a value that cannot be read: ${pyRepr(text)} is no ` +
                      "integer", at);
  }
  n *= sign;
  if ((n < 0n ? -n : n) > MAX_INT) {
    throw new BadNumber(`the number ${shown} is too large; integers in a spec are at most ` +
                      `${grouped(MAX_INT)}`, at);
  }
  return Number(n);
}

// The number a float's text is (PyYAML's construct_yaml_float, then the loader's bound).
function float(text, at) {
  const shown = text.length <= 24 ? text : `${text.slice(0, 20)}...`;
  if (text.length > MAX_NUMBER_CHARS) {
    throw new BadNumber(`the number ${shown} has ${grouped(text.length)} characters; too long ` +
                      "to be a number of a spec", at);
  }
  let value = text.replace(/_/g, "").toLowerCase();
  let sign = 1;
  if (value[0] === "-" || value[0] === "+") { sign = value[0] === "-" ? -1 : 1; value = value.slice(1); }
  let n;
  if (value === ".inf") n = Infinity;
  else if (value === ".nan") n = NaN;
  else if (value.includes(":")) n = value.split(":").reduce((t, d) => t * 60 + Number(d), 0);
  else n = Number(value);
  if (Number.isNaN(n) && value !== ".nan") {
    throw new Refusal(`the YAML holds a value that cannot be read: ${pyRepr(text)} is no ` +
                      "number", at);
  }
  if (!Number.isFinite(n)) throw new BadNumber(`${shown} is not a finite number`, at);
  return sign * n;
}

// A scalar's value by its tag (PyYAML's safe constructors).
function construct(tag, text, at) {
  switch (tag) {
    case `${TAG}str`: return text;
    case `${TAG}null`: return null;
    case `${TAG}bool`: return ["yes", "true", "on"].includes(text.toLowerCase());
    case `${TAG}int`: return integer(text, at);
    case `${TAG}float`: return float(text, at);
    case `${TAG}timestamp`: return new Date(Date.parse(text));  // text to no field
    default:
      throw syntax(`could not determine a constructor for the tag ${pyRepr(tag)}`, at);
  }
}

// A scalar node's tag: its own, else by PyYAML's resolvers when plain, else text.
function tagOf(node) {
  if (node.tag) return node.tag === "!" ? `${TAG}str` : node.tag;
  if (node.type !== "PLAIN") return `${TAG}str`;
  const found = RESOLVERS.find(([, pattern]) => pattern.test(node.source));
  return found ? `${TAG}${found[0]}` : `${TAG}str`;
}

// The first problem a composer meets in document order: an alias, or a node nested more
// than MAX_DEPTH levels deep (the root is level 1); null when there is none.
function composeProblem(root) {
  const todo = [[root, 1]];
  while (todo.length) {
    const [node, depth] = todo.pop();
    if (node === null || node === undefined) continue;
    const at = node.range ? node.range[0] : 0;
    if (isAlias(node)) return syntax("YAML aliases (*name) are not allowed in specs", at);
    if (depth > MAX_DEPTH) return syntax(`nesting deeper than ${MAX_DEPTH} levels`, at);
    const children = isMap(node) ? node.items.flatMap((p) => [p.key, p.value])
      : isSeq(node) ? node.items : [];
    for (let k = children.length - 1; k >= 0; k -= 1) todo.push([children[k], depth + 1]);
  }
  return null;
}

// The data a composed document holds, made as PyYAML's safe constructor makes it (level by
// level, each mapping's keys first), with the loader's checks: no duplicate key, no key
// that is a list or a mapping, numbers bounded. A Refusal at the first problem.
function constructDocument(root) {
  if (root === null || root === undefined) return null;
  const containers = [];
  const shallow = (node, path = null) => {
    if (node === null || node === undefined) return construct(`${TAG}null`, "", 0);
    if (isScalar(node)) {
      const tag = tagOf(node);
      const at = node.range ? node.range[0] : 0;
      try {
        return construct(tag, String(node.source ?? node.value ?? ""), at);
      } catch (err) {  // a number's problem is said with the field it is in (wording.place)
        if (path === null || !(err instanceof BadNumber)) throw err;
        throw Object.assign(err, {message: problemSentence({path, kind: "value",
                                                            reason: err.reason})});
      }
    }
    if (node.tag && ![`${TAG}map`, `${TAG}seq`].includes(node.tag)) {
      throw syntax(`could not determine a constructor for the tag ${pyRepr(node.tag)}`,
                   node.range[0]);
    }
    const made = isMap(node) ? new Map() : [];
    containers.push([node, made, path]);
    return made;
  };
  const top = shallow(root, []);
  const keyOf = (key) => (typeof key === "number" || typeof key === "boolean" ? Number(key) : key);
  for (let i = 0; i < containers.length; i += 1) {
    const [node, made, path] = containers[i];
    if (isSeq(node)) {
      node.items.forEach((item, k) => made.push(shallow(item, path && [...path, k])));
      continue;
    }
    const seen = new Set();
    for (const pair of node.items) {
      if (pair.key !== null && pair.key !== undefined && (isMap(pair.key) || isSeq(pair.key))) {
        throw syntax("a mapping key must be a plain value", pair.key.range[0]);
      }
      const key = shallow(pair.key);
      const at = pair.key && pair.key.range ? pair.key.range[0] : 0;
      if (seen.has(keyOf(key))) throw syntax(`duplicate key ${pyRepr(key)}`, at);
      seen.add(keyOf(key));
    }
    for (const pair of node.items) {
      // (a value is found by the text of its key, as the loader's _path_of finds it)
      const key = isScalar(pair.key) ? String(pair.key.source ?? pair.key.value) : null;
      made.set(shallow(pair.key), shallow(pair.value, path && key !== null ? [...path, key] : null));
    }
  }
  return plainData(top);
}

// Maps made objects (a key as JSON would carry it: text), recursively but without recursion.
function plainData(top) {
  const out = (value) => (value instanceof Map ? {} : Array.isArray(value) ? [] : value);
  const root = out(top);
  const todo = [[top, root]];
  while (todo.length) {
    const [from, to] = todo.pop();
    const entries = from instanceof Map ? [...from] : from.map((v, k) => [k, v]);
    for (const [key, value] of entries) {
      const made = out(value);
      to[Array.isArray(to) ? key : String(key)] = made;
      if (made !== value) todo.push([value, made]);
    }
  }
  return root;
}

// A YAML text's data as api/board/open reads it, before the board's own checks; an Error
// in the server's sentence when it does not read.
export function readYaml(text) {
  const bad = NON_PRINTABLE.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0);
    const shown = code < 0x100 ? `'\\x${code.toString(16).padStart(2, "0")}'`
      : code < 0x10000 ? `'\\u${code.toString(16).padStart(4, "0")}'` : pyRepr(bad[0]);
    throw new Refusal(`the text holds a character YAML does not allow: ${shown}`);
  }
  const doc = parseDocument(text, {schema: "failsafe", version: "1.1", prettyErrors: false,
                                   uniqueKeys: false, strict: false, logLevel: "error"});
  const problems = doc.errors.map((e) => (e.code === "MULTIPLE_DOCS"
    ? syntax("but found another document", e.pos[0])
    : syntax(e.message.split("\n")[0].replace(/\s*at line \d+, column \d+.*$/, ""), e.pos[0])));
  const composed = composeProblem(doc.contents);
  if (composed) problems.push(composed);
  if (problems.length) throw problems.reduce((a, b) => (b.at < a.at ? b : a));
  return constructDocument(doc.contents);
}

// --- written -------------------------------------------------------------------------------

// How PyYAML's SafeRepresenter writes each value that is not text, and the patterns by which
// text that would read back as another value is quoted.
const WRITTEN = [
  {tag: `${TAG}bool`, identify: (v) => typeof v === "boolean",
   stringify: ({value}) => (value ? "true" : "false")},
  {tag: `${TAG}int`, identify: (v) => Number.isInteger(v) && !Object.is(v, -0),
   stringify: ({value}) => pyRepr(value)},
  {tag: `${TAG}float`, identify: (v) => typeof v === "number",
   stringify: ({value}) => floatText(value)},
  {tag: `${TAG}null`, identify: (v) => v === null || v === undefined, stringify: () => "null"},
].map((t) => ({...t, default: true, resolve: (s) => s}));
const QUOTED = RESOLVERS.map(([kind, pattern]) => ({tag: `${TAG}${kind}`, default: true,
  test: pattern, resolve: (s) => s, identify: () => false}));

// A float as PyYAML writes it (repr, with a dot: 1.0, 1.0e+20, .inf, .nan).
function floatText(value) {
  if (Number.isNaN(value)) return ".nan";
  if (!Number.isFinite(value)) return value > 0 ? ".inf" : "-.inf";
  let text = String(value).replace(/e([-+])(\d)$/, "e$10$2");
  if (!/[.e]/.test(text)) text += ".0";
  else if (!text.includes(".")) text = text.replace("e", ".0e");
  return text;
}

// A board's fields as the YAML api/board/yaml writes for them: kind and name first, then
// its other fields in their order. ``name`` is the spec's name (the fields' own, or the
// editor's default).
export function boardYaml(fields, name) {
  const data = {kind: "calendar", name};
  for (const [key, value] of Object.entries(fields)) {
    if (key !== "kind" && key !== "name") data[key] = value;
  }
  return stringify(data, {schema: "failsafe", version: "1.1", customTags: [...WRITTEN, ...QUOTED],
                          indentSeq: false, lineWidth: 100, minContentWidth: 0,
                          singleQuote: true, defaultStringType: "PLAIN", defaultKeyType: "PLAIN",
                          doubleQuotedAsJSON: false, blockQuote: false});
}
