// What every page's scripts share of the document: an element by its id, and SVG elements.
export const SVG_NS = "http://www.w3.org/2000/svg";

export const $ = (id) => document.getElementById(id);

// A new SVG element with these attributes, appended to parent when one is given.
export function svgEl(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  if (parent) parent.append(el);
  return el;
}

// Whether the page is one of a static site (`cpmodels site` marks its pages), where no
// cpmodels server answers.
export function onStaticSite() {
  return document.querySelector('meta[name="cpmodels-site"]') !== null;
}

// On a static site, its service worker (sw.js) keeps the site's files for use offline: once
// it runs, the files this page fetched before it (the puzzle opened) are kept too. Resolves
// with what it said ({kept, files}), or null where there is none.
export async function registerOffline() {
  if (!onStaticSite() || !("serviceWorker" in navigator)) return null;
  try {
    await navigator.serviceWorker.register("sw.js");
    return await keepOffline();
  } catch (err) {
    return null;
  }
}

// The service worker asked to keep the files this page fetched (every file of the site,
// with all): resolves with {kept, files}, how many of the site's files it keeps.
export async function keepOffline(all = false) {
  const registration = await navigator.serviceWorker.ready;
  const fetched = performance.getEntriesByType("resource").map((entry) => entry.name);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = ({data}) => resolve(data);
    registration.active.postMessage({keep: all ? "all" : fetched}, [channel.port2]);
  });
}

// The play page's offer, on a static site whose browser keeps files: the service worker
// registered (after the first answer, so that the first visit loads only what it plays),
// and a button that keeps every puzzle offline.
export async function offerOffline() {
  const box = $("offline");
  const said = await registerOffline();
  if (!box || said === null) return;
  const say = ({kept, files}) => {
    $("offline-said").textContent = kept >= files
      ? "Every puzzle plays offline in this browser."
      : "The puzzles opened here play offline in this browser.";
    $("keep-all").hidden = kept >= files;
  };
  say(said);
  $("keep-all").onclick = async () => {
    $("keep-all").disabled = true;
    $("offline-said").textContent = "Keeping every puzzle ...";
    const all = await keepOffline(true);
    $("keep-all").disabled = false;
    say(all);
    if (all.kept < all.files) {
      $("offline-said").textContent = "Some files could not be fetched (is the network " +
        "on?); the puzzles opened here play offline. Try again when online.";
    }
  };
  box.hidden = false;
}
