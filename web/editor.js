// The one JS module that owns CodeMirror 6. Python reaches it through a narrow API and never
// on a keystroke: the editor calls back only when a clean document first becomes dirty.
import { EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { markdown } from "@codemirror/lang-markdown";
import { publishPause } from "./editor/publish.js";
import { noteHighlighting } from "./editor/highlight.js";
import { loaded } from "./editor/marks.js"; // changes made by the app, not typed: not counted
import { proposalHistory } from "./editor/edits.js";

const encoder = new TextEncoder();

/** Mount an editor in `parent`. `onDirty()` fires once per clean→dirty transition. */
export function create(parent, text, label, onDirty) {
  let changes = 0;
  let notified = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        markdown(),
        noteHighlighting, // headings bold, not underlined like links
        EditorView.lineWrapping,
        publishPause, // publishing to outside agents: one Python call per pause
        proposalHistory, // tells a proposal's card when Ctrl+Z undoes it (or redo redoes it)
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          if (update.transactions.some((tr) => tr.annotation(loaded))) return;
          changes += 1;
          if (!notified) {
            notified = true;
            onDirty();
          }
        }),
      ],
    }),
  });
  view.ana = {
    changes: () => changes,
    // The caller saved the text it read at change count `seen`; re-arm the dirty callback,
    // and report whether more edits arrived meanwhile so the caller saves again.
    saved(seen) {
      notified = changes !== seen;
      return notified;
    },
  };
  return view;
}

export const text = (view) => view.state.doc.toString();
export const changes = (view) => view.ana.changes();
export const saved = (view, seen) => view.ana.saved(seen);

export function selection(view) {
  const { anchor, head } = view.state.selection.main;
  return { anchor, head };
}

/** Replace [from, to) with `insert`; one transaction, so undo and autosave see it. */
export function replace(view, from, to, insert) {
  view.dispatch({ changes: { from, to, insert } });
}

/** Byte length and SHA-256 hex of the live document, computed without crossing into Python. */
export async function digest(view) {
  const bytes = encoder.encode(view.state.doc.toString());
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += hash[i].toString(16).padStart(2, "0");
  return { bytes: bytes.length, sha256: hex };
}

export const focus = (view) => view.focus();

/** Ctrl+Alt+Arrow anywhere in the page → `callback(key)`; other keys never reach Python. */
export function onFrameKeys(callback) {
  document.addEventListener("keydown", (event) => {
    if (!event.ctrlKey || !event.altKey || event.shiftKey || event.metaKey) return;
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) return;
    event.preventDefault();
    callback(event.key);
  });
}
export const destroy = (view) => view.destroy();
export { keymap };
export * from "./editor/goto.js";
export * from "./editor/shortcuts.js";
export * from "./editor/inline.js";
export * from "./editor/publish.js";
export * from "./editor/edits.js";
export * from "./editor/live.js";
