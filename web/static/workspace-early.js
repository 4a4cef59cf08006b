// A returning, signed-in person sees the note list of the workspace the app will open, and
// the note that was open last as read-only text, while Python loads (issue 35). Plain DOM,
// no innerHTML: a note's text and a path are untrusted and only ever go in as text.
// The view goes when the Python app draws itself (app/shell.py replaces everything in #app)
// and, failing that, as soon as the ready flag is raised: the two never show together.
import { get } from "./prefetch.js";

const root = document.documentElement;
const app = document.getElementById("app");
const cache = window.anaPrefetch;
// Taken now: the Python app takes each answer out of the map once it starts.
const session = cache && cache.get("/api/session");
const workspaces = cache && cache.get("/api/workspaces");

const STARTING = "Starting the editor and the assistant…";
// The most the runtime waits for the early view (a slow or unanswered request for the note).
const RUNTIME_WAIT_MS = 3000;

// The runtime's downloads and start wait until the note is on screen (or there is none to
// show): a signed-in main window gets index.html's runtime preloads inert, in a <template>
// (backend/delivery/web.py), so the few small requests of the early view are not queued
// behind 7 MB of runtime on a slow link. The interpreter loader (pyodide-snapshot.mjs)
// awaits window.anaRuntimeGate before it fetches anything.
let openGate;
window.anaRuntimeGate = new Promise((resolve) => {
  openGate = () => {
    // The preloads start as they go in, and the editor's module script runs.
    for (const held of document.querySelectorAll("template.runtime-preloads")) {
      held.replaceWith(document.importNode(held.content, true));
    }
    resolve();
  };
});
setTimeout(openGate, RUNTIME_WAIT_MS);

// Python's quote(…, safe=""): encodeURIComponent leaves !'()* as they are, quote does not.
const quote = (text) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
// The URLs of app/api_model.py (workspace_url, doc_url), so Python can take the same answer.
const workspaceUrl = (ws) => `/api/workspaces/${quote(ws)}`;
const docUrl = (ws, path) => `${workspaceUrl(ws)}/documents/${path.split("/").map(quote).join("/")}`;

function json(answer) {
  if (!answer || answer.status !== 200) return null;
  try {
    return JSON.parse(answer.text);
  } catch {
    return null;
  }
}

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage switched off: nothing is remembered
  }
}

// The note the saved layout of app/frames/frames_model.py had in front: the active frame if
// it shows a note, else the first frame that does.
function lastNote(user, ws) {
  let layout;
  try {
    layout = JSON.parse(stored(`ana:frames:${user}:${ws}`) || "null");
  } catch {
    return "";
  }
  const frames = layout && Array.isArray(layout.frames) ? layout.frames : [];
  const notes = frames.filter((f) => f && f.kind === "inbox" && typeof f.path === "string" && f.path);
  const active = Number.isInteger(layout && layout.active) ? frames[layout.active] : null;
  if (notes.includes(active)) return active.path;
  return notes.length ? notes[0].path : "";
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children); // strings become text nodes
  return node;
}

class EarlyView {
  constructor(ws, wsName) {
    this.ws = ws;
    this.list = el("ul", { class: "early-note-list", "data-testid": "early-note-list" });
    this.status = el("p", { class: "list-status", role: "status" }, "Loading notes…");
    this.note = el("section", { class: "early-note-pane", "aria-label": "Note" });
    this.shown = ""; // the path whose text is asked for or on screen
    this.el = el(
      "div",
      { class: "early-view" },
      el(
        "header",
        { class: "topbar" },
        el("h1", { class: "brand" }, "Ambient Notes"),
        el("p", { class: "early-workspace" }, `Workspace: ${wsName}`),
      ),
      el(
        "main",
        { class: "layout early-layout" },
        el(
          "nav",
          { class: "sidebar", "aria-labelledby": "early-notes-title" },
          el("div", { class: "sidebar-head" }, el("h2", { id: "early-notes-title" }, "Notes")),
          this.status,
          this.list,
        ),
        this.note,
      ),
    );
    this.list.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-path]");
      if (!button) return;
      this.show(button.dataset.path);
      this.note.scrollIntoView({ block: "nearest" }); // a phone shows the note above the list
    });
  }

  get alive() {
    return this.el.isConnected && root.dataset.ready !== "true";
  }

  drawList(paths) {
    this.status.textContent = paths.length ? "" : "No notes yet.";
    const item = (path) =>
      el(
        "li",
        {},
        el("button", { type: "button", class: "early-open", "data-testid": "early-note-open", "data-path": path }, path),
      );
    this.list.replaceChildren(...paths.map(item));
    this.mark();
  }

  mark() {
    for (const button of this.list.querySelectorAll("button[data-path]")) {
      if (button.dataset.path === this.shown) button.setAttribute("aria-current", "page");
      else button.removeAttribute("aria-current");
    }
  }

  // The note's text, read-only, with a line saying the editor is on its way.
  // `asked`: the note's answer already on its way, if any.
  async show(path, asked = null) {
    this.shown = path;
    this.mark();
    const text = el("pre", { class: "early-text" }, "Loading…");
    this.note.replaceChildren(
      el(
        "article",
        { class: "early-note", "data-testid": "early-note", "aria-labelledby": "early-note-title" },
        el("h2", { id: "early-note-title" }, path),
        el("p", { class: "hint", role: "status" }, STARTING),
        text,
      ),
    );
    const answer = await (asked || get(docUrl(this.ws, path)));
    if (this.shown !== path || !this.alive) return;
    // A new element rather than new text in the old one: a browser times an element's
    // largest paint at its first paint ("Loading…"), so the note would never count as the
    // page's largest paint however large it is.
    const read = answer && answer.status === 200 ? answer.text : "This note could not be read yet.";
    text.replaceWith(el("pre", { class: "early-text" }, read));
  }
}

// Where the last visit's early view was ({user, ws}): the next one asks for that note and
// list at once, beside the session check, instead of one round trip after it. They are used
// only if the session and the workspaces then say the same user and workspace; otherwise
// they are dropped and asked for again (an answer is only ever the signed-in user's anyway).
const LAST_SEEN = "ana:early:last";

function guessed() {
  try {
    const last = JSON.parse(stored(LAST_SEEN) || "null");
    if (!last || typeof last.user !== "string" || typeof last.ws !== "string") return null;
    const path = lastNote(last.user, last.ws);
    const url = `${workspaceUrl(last.ws)}/documents`;
    return { ...last, path, documents: get(url), note: path ? get(docUrl(last.ws, path)) : null };
  } catch {
    return null;
  }
}

async function start() {
  if (!app || !session || !workspaces) return;
  // Pop-outs, invitation links and the signed-out page (its own early form) are Python's.
  if (document.getElementById("early-signin")) return;
  if (/(?:^|[?&])popout=/.test(location.search) || /(?:^|[#&])invite=/.test(location.hash)) return;
  const guess = guessed();
  const user = json(await session);
  if (!user || !user.username) return; // signed out: Python shows its sign-in form
  const list = json(await workspaces);
  if (!Array.isArray(list) || !list.length) return;
  const ids = list.map((ws) => ws.id);
  const last = stored(`ana:workspace:${user.username}`);
  const ws = ids.includes(last) ? last : ids[0]; // as Shell.enter picks it
  const url = `${workspaceUrl(ws)}/documents`;
  const right = guess && guess.user === user.username && guess.ws === ws;
  const documents = right ? guess.documents : get(url);
  try {
    localStorage.setItem(LAST_SEEN, JSON.stringify({ user: user.username, ws }));
  } catch {
    // storage switched off: the next visit asks after the session check, as here
  }
  // The Python app lists the same workspace at start: it takes this answer instead of asking
  // again (app/api.py `_prefetched`). Shell.enter drops it if it opens another workspace.
  if (window.anaPrefetch && root.dataset.ready !== "true") window.anaPrefetch.set(url, documents);

  const boot = app.querySelector(".boot-screen");
  if (root.dataset.ready === "true" || !boot || !boot.isConnected) return; // Python has drawn
  const view = new EarlyView(ws, list.find((w) => w.id === ws).name || ws);
  app.insertBefore(view.el, boot);
  new MutationObserver((changes, observer) => {
    if (root.dataset.ready === "true") {
      view.el.remove();
      observer.disconnect();
    }
  }).observe(root, { attributes: true, attributeFilter: ["data-ready"] });

  const path = lastNote(user.username, ws);
  const shown = path ? view.show(path, right && guess.path === path ? guess.note : null) : null;
  const docs = json(await documents);
  if (view.alive) {
    if (Array.isArray(docs)) view.drawList(docs.map((doc) => String(doc.path)).sort());
    else view.status.textContent = "The notes could not be listed yet.";
  }
  await shown;
}

// Whatever start() shows or skips, and if it fails, the runtime then goes ahead.
start().finally(() => openGate());
