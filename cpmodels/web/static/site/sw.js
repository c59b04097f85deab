// The static site's service worker, written by `cpmodels site` from this template with the
// site's files and their version (a hash of their contents): installing it keeps every file
// in this version's cache, so the puzzles play again with no network; a new version's
// worker empties the caches of the versions before it.
const VERSION = "__VERSION__";
const FILES = __FILES__;
const SCOPE = self.registration.scope;
const PREFIX = `cpmodels-site ${SCOPE} `;
const CACHE = PREFIX + VERSION;
// A file's address, each part of its path quoted as the pages quote a puzzle's name.
const address = (file) => new URL(file.split("/").map(encodeURIComponent).join("/"), SCOPE).href;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([new URL("./", SCOPE).href, ...FILES.map(address)]);
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
