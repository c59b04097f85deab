// A drawn board in a link (#board=...): its JSON text as base64url (RFC 4648, no padding),
// written by the editor and read by the editor and the play page.
export function base64url(text) {
  return btoa(unescape(encodeURIComponent(text))).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

export function unbase64url(text) {
  return decodeURIComponent(escape(atob(text.replace(/-/g, "+").replace(/_/g, "/"))));
}
