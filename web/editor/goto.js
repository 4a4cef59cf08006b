// "Go to line": put the cursor at the start of a line, scroll it to the middle, focus.
import { EditorSelection } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

/** Move to 1-based `line` (clamped to the document) and focus the editor. */
export function gotoLine(view, line) {
  const doc = view.state.doc;
  const number = Math.min(Math.max(1, Math.trunc(Number(line)) || 1), doc.lines);
  const pos = doc.line(number).from;
  view.dispatch({
    selection: EditorSelection.cursor(pos),
    effects: EditorView.scrollIntoView(pos, { y: "center" }),
  });
  view.focus();
  return number;
}

/** The 1-based line the cursor is on (kept in a frame's history and restored on reload). */
export const cursorLine = (view) => view.state.doc.lineAt(view.state.selection.main.head).number;
