// CodeMirror 6 and everything the app does with it. Python reaches it through the facade
// ./editor.js (which binds these names once `load()` has imported this module) and never on
// a keystroke: the editor calls back only when a clean document first becomes dirty.
import { EditorState } from "@codemirror/state";
import { EditorView, tooltips } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { markdown, markdownLanguage } from "@codemirror/lang-markdown";
import { publishPause } from "./publish.js";
import { noteHighlighting } from "./highlight.js";
import { loaded } from "./marks.js"; // changes made by the app, not typed: not counted
import { proposalHistory } from "./edits.js";

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
        markdown({ base: markdownLanguage }), // GFM: "- [x]" is a task marker, not a link
        noteHighlighting, // headings bold, not underlined like links
        EditorView.lineWrapping,
        publishPause, // publishing to outside agents: one Python call per pause
        proposalHistory, // tells a proposal's card when Ctrl+Z undoes it (or redo redoes it)
        // tabindex: a Tab stop already (contenteditable), but axe counts only tabindex and
        // native controls as focusable, and a long note's scroller is a scrollable region
        // that must hold one (scrollable-region-focusable, serious).
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
        // The editor is laid out in isolation (CSS `contain` on .editor-host > .cm-editor):
        // tooltips (autocomplete, the inline panel) go in the host so none is clipped by it.
        tooltips({ parent: parent }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          digestWhenSettled(update.view);
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
  digestWhenSettled(view);
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

// Each document's digest, keyed by CodeMirror's immutable document (Text): an entry describes
// exactly the text it is keyed by, so a send that finds the current document here can never
// read a stale digest. Filled in idle time once typing settles, so a send does no hashing.
const digests = new WeakMap();
const SETTLE_MS = 300; // no hashing between keystrokes: a 1 MiB note takes a few ms
const IDLE_TIMEOUT_MS = 1000;

async function digestOf(doc) {
  const known = digests.get(doc);
  if (known) return known;
  const bytes = encoder.encode(doc.toString());
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += hash[i].toString(16).padStart(2, "0");
  const result = { bytes: bytes.length, sha256: hex };
  digests.set(doc, result);
  return result;
}

const pending = new WeakMap(); // view → its settle timer
function digestWhenSettled(view) {
  clearTimeout(pending.get(view));
  pending.set(
    view,
    setTimeout(() => {
      requestIdleCallback(() => digestOf(view.state.doc), { timeout: IDLE_TIMEOUT_MS });
    }, SETTLE_MS),
  );
}

/** Byte length and SHA-256 hex (first 16 digits) of the live document, computed without
 * crossing into Python (or read from the idle-time cache when this very document is in it). */
export const digest = (view) => digestOf(view.state.doc);

/** A send's read of the editor, synchronous: the live document's digest when already known
 * (else undefined: await `digest`), with the main selection. */
export function knownDigest(view) {
  const known = digests.get(view.state.doc);
  if (!known) return undefined;
  const { anchor, head } = view.state.selection.main;
  return { bytes: known.bytes, sha256: known.sha256, anchor, head };
}

export const focus = (view) => view.focus();

export const destroy = (view) => view.destroy();
// Named one by one: these are the functions ./editor.js binds (the build checks it).
export { gotoLine, cursorLine } from "./goto.js";
export {
  onInlineKey,
  inlineTarget,
  inlineShow,
  inlineRange,
  inlineClose,
  inlineApply,
  onInlinePanelKeys,
} from "./inline.js";
export { onTypingPause, armClose } from "./publish.js";
export { watchProposal, applyProposal } from "./edits.js";
export { remote, swap, diffView } from "./live.js";
export { setReadOnly, isReadOnly } from "./readonly.js";
export { onAttach, spotAtSelection, finishAttach } from "./attach.js";
