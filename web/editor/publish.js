// Publishing the active note to outside agents (SPEC §10): the typing pause and the close.
// Both live in JS so that no Python runs per keystroke: Python is called once per pause.
import { EditorView } from "@codemirror/view";

let pauseMs = 500;
let onPause = null;
let timer = null;

/** In every editor: a change of text or selection (re)starts the pause timer. */
export const publishPause = EditorView.updateListener.of((update) => {
  if (!onPause || !(update.docChanged || update.selectionSet)) return;
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = null;
    if (onPause) onPause();
  }, pauseMs);
});

/** `callback()` once text or selection has stopped changing for `ms`; null switches it off. */
export function onTypingPause(callback, ms) {
  onPause = callback || null;
  if (ms) pauseMs = ms;
  if (!onPause) clearTimeout(timer);
}

let closeUrl = null;
let closeBody = null;

/** Send `body` (JSON text) with PUT to `url` when the window goes away; null disarms.
 * fetch with keepalive (not sendBeacon, which can only POST) outlives the page, and carries
 * the session cookie like any same-origin request. */
export function armClose(url, body) {
  if (closeUrl === null) {
    window.addEventListener("pagehide", () => {
      if (!closeBody) return;
      fetch(closeUrl, {
        method: "PUT",
        keepalive: true,
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: closeBody,
      });
    });
  }
  closeUrl = url;
  closeBody = body || null;
}
