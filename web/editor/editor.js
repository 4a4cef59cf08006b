// The editor module Python imports (pyscript.json's js_modules as `editor`). It holds what the
// page needs before any note is open: the key filters, the page's visibility and the first sign
// of a person. CodeMirror and the app's use of it (./view.js, some 185 KB of Brotli) are reached
// through the names below once `load()` has imported it: a sign-in page needs it only after
// signing in, so a first visit does not download it before Python is ready. The app awaits
// `load()` before it draws a workspace (app/chrome.py, app/frames/popout.py); web/build.mjs
// fails the build when view.js exports a name this module lacks.
export { onAppKeys, onFrameKeys } from "./shortcuts.js";

/** Whether the page is on screen (the heartbeat only runs while it is). */
export const pageVisible = () => document.visibilityState === "visible";

// CodeMirror's part, once load() has imported it. Each name below calls the function of the
// same name there (a call before load() throws): PyScript hands Python a copy of this module's
// exports, so the names must be functions from the start, not bindings filled in later.
const VIEW = new URL("./view.js", import.meta.url).href;
let view = null;
let loading = null;
const later = (name) => (...args) => view[name](...args);

export const create = later("create"), text = later("text"), changes = later("changes");
export const saved = later("saved"), selection = later("selection"), replace = later("replace");
export const digest = later("digest"), knownDigest = later("knownDigest");
export const focus = later("focus"), destroy = later("destroy");
export const gotoLine = later("gotoLine"), cursorLine = later("cursorLine");
export const onInlineKey = later("onInlineKey"), inlineTarget = later("inlineTarget");
export const inlineShow = later("inlineShow"), inlineRange = later("inlineRange");
export const inlineClose = later("inlineClose"), inlineApply = later("inlineApply");
export const onInlinePanelKeys = later("onInlinePanelKeys");
export const onTypingPause = later("onTypingPause"), armClose = later("armClose");
export const watchProposal = later("watchProposal"), applyProposal = later("applyProposal");
export const remote = later("remote"), swap = later("swap"), diffView = later("diffView");
export const setReadOnly = later("setReadOnly"), isReadOnly = later("isReadOnly");
export const onAttach = later("onAttach"), spotAtSelection = later("spotAtSelection");
export const finishAttach = later("finishAttach");

/** Import CodeMirror's part once; a failed import (offline) is tried again on the next call. */
export function load() {
  loading ??= import("./view.js").then(
    (module) => {
      view = module;
    },
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

// A signed-in window's page preloads CodeMirror (index.html): run it as soon as it is in, while
// Python starts. (Failed, it is imported again when the app awaits load().)
if (document.querySelector('link[rel="modulepreload"][href$="/editor/view.js"]')) {
  load().catch(() => {});
}

// The first sign of a person on a sign-in page (a key, a pointer, or input; `autofocus` fires
// focus events at load, which are no such sign): they will open a workspace next. From then
// on CodeMirror is fetched, at low priority and without running it, and Python imports the
// workspace's modules (web/static/main.py), so neither waits for the Sign in button.
const person = new Promise((resolve) => {
  for (const name of ["keydown", "pointerdown", "input"]) {
    document.addEventListener(name, () => resolve(), { once: true, capture: true });
  }
});

/** Settles at the person's first key, pointer or input in the page. */
export const whenPersonActs = () => person;

person.then(() => {
  if (loading) return; // a signed-in window: already imported
  const link = document.createElement("link");
  link.rel = "modulepreload";
  link.href = VIEW;
  link.fetchPriority = "low";
  document.head.append(link);
});
