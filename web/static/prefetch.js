// Starts the sign-in check while Pyodide boots (about two seconds of otherwise idle network);
// the Python app takes each answer once, through its one fetch helper (web/app/api.py).

// An answer as the Python app takes it ({status, text}; null when the server was not
// reached). The other early scripts import it from here.
export const get = (url) =>
  fetch(url, { credentials: "same-origin", cache: "no-store" })
    .then(async (response) => ({ status: response.status, text: await response.text() }))
    .catch(() => null);

window.anaPrefetch = new Map([
  ["/api/session", get("/api/session")],
  ["/api/workspaces", get("/api/workspaces")],
]);

// Settings (issue 34, web/app/people/settings.py): the cached copy of the user's theme, editor
// font size and sidebar state shows before Python starts (no flash of the wrong theme), and a
// change made in another window of this browser (a pop-out's main window) shows here at once.
const PREFERENCES_KEY = "ana-preferences";
function applyPreferences(text) {
  let prefs;
  try {
    prefs = JSON.parse(text || "null");
  } catch {
    return;
  }
  if (!prefs || typeof prefs !== "object") return;
  const root = document.documentElement;
  if (["light", "dark", "system"].includes(prefs.theme)) root.dataset.theme = prefs.theme;
  if (Number.isInteger(prefs.fontSize) && prefs.fontSize >= 12 && prefs.fontSize <= 24) {
    root.style.setProperty("--editor-font-size", `${prefs.fontSize}px`);
  }
  if (typeof prefs.sidebarCollapsed === "boolean") {
    root.dataset.sidebar = prefs.sidebarCollapsed ? "collapsed" : "open";
  }
}
try {
  applyPreferences(localStorage.getItem(PREFERENCES_KEY));
} catch {
  // storage switched off: the app applies the account's copy once it has read it
}
window.addEventListener("storage", (event) => {
  if (event.key === PREFERENCES_KEY) applyPreferences(event.newValue);
});

// The boot screen: honest progress until the app draws itself, and a failure to boot says
// what failed and offers a reload. The interpreter loader (pyodide-snapshot.mjs) and
// app/boot.py move the steps on; anything that stops the page before its ready flag lands here.
const status = document.getElementById("boot-status");
if (status) status.textContent = "Downloading the app…";

function bootFailed(what) {
  const root = document.documentElement;
  if (root.dataset.ready === "true" || root.dataset.bootFailed === "true") return;
  root.dataset.bootFailed = "true";
  const box = document.createElement("div");
  box.className = "problem boot-failure";
  box.setAttribute("role", "alert");
  box.dataset.testid = "boot-error";
  const text = document.createElement("p");
  text.textContent = `The app could not start: ${what}`;
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.testid = "boot-reload";
  button.textContent = "Reload";
  button.addEventListener("click", () => location.reload());
  box.append(text, button);
  document.getElementById("app").replaceChildren(box);
}
window.anaBootFailed = bootFailed;
const reason = (value) => (value && value.message) || String(value);
window.addEventListener("error", (event) => bootFailed(reason(event.error || event.message)));
window.addEventListener("unhandledrejection", (event) => bootFailed(reason(event.reason)));
