// Pasting or dropping files into the editor (SPEC §18). The editor only notices them: Python
// (web/app/notes/attach.py) uploads each and hands back the Markdown, which goes in at the
// spot of the paste or drop as ONE transaction, isolated in the history, so a single Ctrl+Z
// removes it. The spot is kept mapped through any edit made while the upload runs.
import { isolateHistory } from "@codemirror/commands";
import { StateEffect, Transaction } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

const spotsOf = new WeakMap(); // view → Map(id → {from, to})
let lastId = 0;

/** Watch `view` for pasted or dropped files that `accepts(name, type)` takes; then call
 * `callback(files, id)` (files: an Array of File) and keep the spot for `finishAttach`. */
export function onAttach(view, accepts, callback) {
  const spots = new Map();
  spotsOf.set(view, spots);
  const take = (event, transfer, from, to) => {
    const files = Array.from(transfer?.files ?? []).filter((f) => accepts(f.name, f.type));
    if (!files.length || view.state.readOnly) return false;
    event.preventDefault();
    lastId += 1;
    spots.set(lastId, { from, to });
    callback(files, lastId);
    return true;
  };
  view.dispatch({
    effects: StateEffect.appendConfig.of([
      EditorView.domEventHandlers({
        paste(event, v) {
          const { from, to } = v.state.selection.main;
          return take(event, event.clipboardData, from, to);
        },
        drop(event, v) {
          const at = v.posAtCoords({ x: event.clientX, y: event.clientY });
          const pos = at ?? v.state.selection.main.head;
          return take(event, event.dataTransfer, pos, pos);
        },
      }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        for (const spot of spots.values()) {
          spot.from = update.changes.mapPos(spot.from, -1);
          spot.to = Math.max(spot.from, update.changes.mapPos(spot.to, 1));
        }
      }),
    ]),
  });
}

/** A spot at the selection for files chosen with the frame's "Picture or PDF…" button, kept
 * like a paste's (0 when the editor takes none: read-only or not watched). */
export function spotAtSelection(view) {
  const spots = spotsOf.get(view);
  if (!spots || view.state.readOnly) return 0;
  const { from, to } = view.state.selection.main;
  lastId += 1;
  spots.set(lastId, { from, to });
  return lastId;
}

/** Put `text` where paste/drop `id` happened (nothing when `text` is empty: the upload
 * failed). One transaction, its own undo step; the cursor ends after it. False when the
 * editor is read-only by now. */
export function finishAttach(view, id, text) {
  const spots = spotsOf.get(view);
  const spot = spots?.get(id);
  spots?.delete(id);
  if (!spot || !text) return false;
  if (view.state.readOnly) return false;
  view.dispatch({
    changes: { from: spot.from, to: spot.to, insert: text },
    selection: { anchor: spot.from + text.length },
    annotations: [Transaction.userEvent.of("input.paste"), isolateHistory.of("full")],
    scrollIntoView: true,
  });
  return true;
}
