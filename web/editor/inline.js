// The inline command's editor side: its shortcut, the range it works on (followed through
// edits while a request is out, and highlighted), the panel shown at that range as a
// CodeMirror tooltip, and the one-transaction replace. Python is called only on a shortcut.
import { isolateHistory } from "@codemirror/commands";
import { StateEffect, StateField, Transaction } from "@codemirror/state";
import { Decoration, EditorView, showTooltip } from "@codemirror/view";

const setInline = StateEffect.define(); // {from, to, head, create} or null
const mark = Decoration.mark({ class: "cm-inline-range" });

const inlineField = StateField.define({
  create: () => null,
  update(value, tr) {
    if (value && tr.docChanged) {
      // Text typed at either edge stays outside the range; text deleted shrinks it.
      const from = tr.changes.mapPos(value.from, 1);
      const to = Math.max(from, tr.changes.mapPos(value.to, -1));
      value = { ...value, from, to, head: tr.changes.mapPos(value.head, -1) };
    }
    for (const effect of tr.effects) if (effect.is(setInline)) value = effect.value;
    return value;
  },
  provide: (field) => [
    // The same `create` keeps the same panel while its position follows edits.
    showTooltip.compute([field], (state) => {
      const value = state.field(field);
      return value ? { pos: value.head, above: false, create: value.create } : null;
    }),
    EditorView.decorations.compute([field], (state) => {
      const value = state.field(field);
      return value && value.from < value.to
        ? Decoration.set([mark.range(value.from, value.to)])
        : Decoration.none;
    }),
  ],
});

function ensureField(view) {
  if (view.state.field(inlineField, false) === undefined) {
    view.dispatch({ effects: StateEffect.appendConfig.of(inlineField) });
  }
}

/** Ctrl+K (Cmd+K) inside the editor under `host` → `callback()`; returns a remover. */
export function onInlineKey(host, callback) {
  const listener = (event) => {
    const mod = event.ctrlKey || event.metaKey;
    if (!mod || event.altKey || event.shiftKey || event.key.toLowerCase() !== "k") return;
    if (event.defaultPrevented || !event.target.closest?.(".cm-content")) return;
    event.preventDefault(); // not the browser's search-bar shortcut
    callback();
  };
  host.addEventListener("keydown", listener);
  return () => host.removeEventListener("keydown", listener);
}

/** What a request is about: the selection, or the cursor's line when nothing is selected;
 * `before`/`after` are all the text around it (Python cuts them with ambient.inline_context).
 * Positions are CodeMirror's, in UTF-16 code units; the texts cross as strings. */
export function inlineTarget(view) {
  const { state } = view;
  let { from, to } = state.selection.main;
  if (from === to) {
    const line = state.doc.lineAt(from);
    ({ from, to } = line);
  }
  return {
    start: from,
    end: to,
    text: state.sliceDoc(from, to),
    before: state.sliceDoc(0, from),
    after: state.sliceDoc(to),
  };
}

/** Where the panel goes: under the whole range (or over it when there is no room below),
 * never on the lines it is about. A range taller than the editor falls back to `head`. */
function rangeCoords(view, head) {
  const value = view.state.field(inlineField, false);
  const at = view.coordsAtPos(head);
  if (!value) return at;
  const first = view.coordsAtPos(value.from, 1) || at;
  const last = view.coordsAtPos(value.to, -1) || at;
  if (!first || !last) return at;
  const box = view.scrollDOM.getBoundingClientRect();
  const top = Math.min(first.top, last.top), bottom = Math.max(first.bottom, last.bottom);
  if (top <= box.top + 40 && bottom >= box.bottom - 40) return at; // no room either side
  return { left: first.left, right: first.right, top, bottom };
}

/** Show `dom` as a panel below (or above) the range and highlight [from, to) until
 * `inlineClose`. */
export function inlineShow(view, from, to, dom) {
  ensureField(view);
  const head = view.state.selection.main.head;
  const create = (tooltipView) => ({
    dom,
    offset: { x: 0, y: 4 },
    getCoords: () => rangeCoords(tooltipView, tooltipView.state.field(inlineField)?.head ?? head),
  });
  view.dispatch({
    effects: [setInline.of({ from, to, head, create }), EditorView.scrollIntoView(head)],
  });
}

/** The range as it stands now (moved by edits made meanwhile), or null. */
export function inlineRange(view) {
  const value = view.state.field(inlineField, false);
  return value ? { from: value.from, to: value.to } : null;
}

export function inlineClose(view) {
  if (view.state.field(inlineField, false)) view.dispatch({ effects: setInline.of(null) });
}

/** Replace the range with `insert` only if it still holds `expected`: one transaction,
 * isolated in the history so that a single undo reverts exactly it. True if replaced. */
export function inlineApply(view, expected, insert) {
  const range = inlineRange(view);
  if (!range || view.state.sliceDoc(range.from, range.to) !== expected) return false;
  view.dispatch({
    changes: { from: range.from, to: range.to, insert },
    selection: { anchor: range.from, head: range.from + insert.length }, // ready for another
    effects: setInline.of(null),
    // Never joined with the typing before or after it: one undo step, exactly this change.
    annotations: [Transaction.userEvent.of("input.inline"), isolateHistory.of("full")],
    scrollIntoView: true,
  });
  return true;
}

/** Enter and Escape on `el` → `callback("enter" | "escape")`; other keys stay in JS. Enter
 * on a button is the button's own, and Enter that confirms an IME composition is ignored. */
export function onInlinePanelKeys(el, callback) {
  const listener = (event) => {
    if (event.isComposing || event.keyCode === 229) return;
    if (event.key === "Escape") {
      event.preventDefault(); // the window's Escape handler (close prompts) leaves it alone
      event.stopPropagation();
      callback("escape");
    } else if (event.key === "Enter" && !event.shiftKey && event.target.tagName !== "BUTTON") {
      event.preventDefault();
      event.stopPropagation();
      callback("enter");
    }
  };
  el.addEventListener("keydown", listener);
  return () => el.removeEventListener("keydown", listener);
}
