// One worker of the play page's pool (answers.js): the engine instantiated once from the
// compiled module the page sends, each puzzle's plan loaded once (by its key), and the
// page's questions about positions answered. A question is a message
//   {id, op, key, plan, args, delay}
// plan: the plan's JSON text (read only the first time its key is met); op and args:
//   "position" {prefix, ids}: the completions of prefix + ids and, when there are none,
//        whether each of ids taken back (and all of them) leaves a way out;
//   "count" {prefix}: the completions of prefix;
//   "solutions" {forced, skip, take}: the solutions from number skip on (engine.js).
// The answer is {id, answer} or {id, error}; with delay (ms) it is held back that long.
// The first message is {module} (a compiled engine.wasm); {ready: true} says it loaded.
import {decodePlan, loadEngine} from "./engine.js";

const MAX_COVERS = 4;  // plans kept loaded; a fifth drops them all (memory is a bump heap)

class Answerer {
  constructor(post) {
    this.post = post;
    this.engine = null;
    this.covers = new Map();
    this.queue = Promise.resolve();
  }

  receive(message) {
    // one message at a time, in order: the engine loads before the first question
    this.queue = this.queue.then(() => this.handle(message));
  }

  async handle(message) {
    if (message.module) {
      try {
        this.engine = await loadEngine(message.module);
        this.post({ready: true});
      } catch (err) {
        this.post({ready: false, error: String(err.message || err)});
      }
      return;
    }
    const {id, delay} = message;
    let reply;
    try {
      reply = {id, answer: this.answer(message)};
    } catch (err) {
      reply = {id, error: String(err.message || err)};
    }
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    this.post(reply);
  }

  cover(key, plan) {
    if (!this.engine) throw new Error("the engine did not load");
    let cover = this.covers.get(key);
    if (!cover) {
      if (this.covers.size >= MAX_COVERS) {
        this.covers.values().next().value.release();  // (and every cover loaded after it)
        this.covers.clear();
      }
      cover = this.engine.load(decodePlan(JSON.parse(plan).engine));
      this.covers.set(key, cover);
    }
    return cover;
  }

  answer({op, key, plan, args}) {
    const cover = this.cover(key, plan);
    if (op === "count") return {count: String(cover.count([args.prefix])[0])};
    if (op === "position") {
      const {prefix, ids} = args;
      const count = cover.count([[...prefix, ...ids]])[0];
      if (count > 0n || !ids.length) return {count: String(count), wayOut: []};
      const fewer = ids.map((_, k) => [...prefix, ...ids.slice(0, k), ...ids.slice(k + 1)]);
      return {count: "0", wayOut: cover.exists([...fewer, prefix], {remember: false})};
    }
    if (op === "solutions") {
      const {forced, skip, take} = args;
      return cover.solutions(forced, {skip, take});
    }
    throw new Error(`${op}: not a question the engine answers`);
  }
}

const answerer = new Answerer((message) => self.postMessage(message));
self.onmessage = (event) => answerer.receive(event.data);
