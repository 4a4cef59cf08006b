// Starts the sign-in check while Pyodide boots (about two seconds of otherwise idle network);
// the Python app takes each answer once, through its one fetch helper (web/app/api.py).
const get = (url) =>
  fetch(url, { credentials: "same-origin", cache: "no-store" })
    .then(async (response) => ({ status: response.status, text: await response.text() }))
    .catch(() => null);

window.anaPrefetch = new Map([
  ["/api/session", get("/api/session")],
  ["/api/workspaces", get("/api/workspaces")],
]);
