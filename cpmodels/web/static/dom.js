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

// On a static site, its service worker (sw.js) keeps the site's files for use offline.
export function registerOffline() {
  if (onStaticSite() && "serviceWorker" in navigator) {
    navigator.serviceWorker.register("sw.js").catch(() => {});
  }
}
