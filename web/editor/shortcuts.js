// Workspace shortcuts, filtered here so ordinary keystrokes never call into Python:
// Escape (unless something else, such as CodeMirror's search panel, took it) and Ctrl+O/P.

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
