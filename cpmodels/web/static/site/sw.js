// The static site's service worker, written by `cpmodels site` from this template with the
// site's files and their version (a hash of their contents). Installing it keeps the pages,
// their scripts, the engine and the list of puzzles in this version's cache (SHELL: every
// file but a puzzle's own); a puzzle's files are kept as they are fetched, the ones the page
// fetched before this worker ran when the page says so ({keep: [addresses]}), and every
// file when the player asks ({keep: "all"}): so each puzzle opened once plays again with no
// network. A new version's worker keeps again what the version before it kept, then empties
// the caches of the versions before it.
const VERSION = "__VERSION__";
const FILES = __FILES__;
const SCOPE = self.registration.scope;
const PREFIX = `cpmodels-site ${SCOPE} `;
const CACHE = PREFIX + VERSION;
// A puzzle's own files, fetched when it is opened.
const PUZZLE_FILE = /^api\/(puzzle|layout|board\/start)\//;
// A file's address, each part of its path quoted as the pages quote a puzzle's name.
const address = (file) => new URL(file.split("/").map(encodeURIComponent).join("/"), SCOPE).href;
const ADDRESSES = new Set(FILES.map(address));
const SHELL = [new URL("./", SCOPE).href,
               ...FILES.filter((file) => !PUZZLE_FILE.test(file)).map(address)];

// The addresses among these that are files of the site, not yet in the cache, kept (each
// fetched once; one the network does not bring is left out): how many are kept in all.
async function keep(addresses) {
  const cache = await caches.open(CACHE);
  const wanted = [...new Set(addresses)].filter((url) => ADDRESSES.has(url));
  await Promise.all(wanted.map(async (url) => {
    if (await cache.match(url)) return;
    try {
      const response = await fetch(url);
      if (response.ok) await cache.put(url, response);
    } catch (err) { /* no network: kept when next asked */ }
  }));
  const kept = await Promise.all([...ADDRESSES].map((url) => cache.match(url)));
  return {kept: kept.filter(Boolean).length, files: ADDRESSES.size};
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(SHELL);
    // what an earlier version kept (its puzzles opened), kept again as this version has it
    const earlier = (await caches.keys()).filter((name) => name.startsWith(PREFIX) &&
                                                           name !== CACHE);
    const kept = await Promise.all(earlier.map(async (name) =>
      (await (await caches.open(name)).keys()).map((request) => request.url)));
    await keep(kept.flat());
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((name) => name.startsWith(PREFIX) && name !== CACHE)
      .map((name) => caches.delete(name)));
    await self.clients.claim();
  })());
});

// {keep: [addresses] or "all"}: those files kept (all of the site's), answered on the
// message's port with {kept, files}: how many of the site's files are kept, of how many.
self.addEventListener("message", (event) => {
  const asked = event.data && event.data.keep;
  if (asked === undefined) return;
  const done = keep(asked === "all" ? [...ADDRESSES] : Array.isArray(asked) ? asked : [])
    .then((said) => { if (event.ports[0]) event.ports[0].postMessage(said); });
  event.waitUntil(done);
});

// Same-origin GETs come from the cache first, else from the network (and are kept).
async function answer(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(answer(request));
});
