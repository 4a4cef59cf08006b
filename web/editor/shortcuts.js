// The page's shortcuts, filtered here so ordinary keystrokes never call into Python: Escape
// (unless something else, such as CodeMirror's search panel, took it), Ctrl+O/P and
// Ctrl+Alt+Arrow. They need no CodeMirror, so they work before web/editor/view.js is loaded.

/** `callback("escape")` or `callback("quick-open")` for those keys anywhere in the page. */
export function onAppKeys(callback) {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      if (!event.defaultPrevented && !event.isComposing) callback("escape");
      return;
    }
    const mod = event.ctrlKey || event.metaKey;
    if (!mod || event.altKey || event.shiftKey) return;
    const key = event.key.toLowerCase();
    if (key !== "o" && key !== "p") return;
    event.preventDefault(); // not the browser's Open file / Print
    callback("quick-open");
  });
}

/** Ctrl+Alt+Arrow anywhere in the page → `callback(key)`; other keys never reach Python. */
export function onFrameKeys(callback) {
  document.addEventListener("keydown", (event) => {
    if (!event.ctrlKey || !event.altKey || event.shiftKey || event.metaKey) return;
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) return;
    event.preventDefault();
    callback(event.key);
  });
}
