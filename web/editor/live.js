// Live notes and history (SPEC §13, §15): changes saved elsewhere land in the editor, and a
// read-only coloured diff (CodeMirror's own @codemirror/merge) shows two texts side by side.
import { isolateHistory } from "@codemirror/commands";
import { unifiedMergeView } from "@codemirror/merge";
import { EditorState, Transaction } from "@codemirror/state";
import { EditorView, lineNumbers } from "@codemirror/view";
import { loaded } from "./marks.js";

const specs = (changes) => JSON.parse(changes).map(([from, to, insert]) => ({ from, to, insert }));

/** A change saved elsewhere ([[from, to, insert], ...] as JSON, relative to the document now):
 * one transaction kept out of the undo history (the user's Ctrl+Z never reverts it; their own
 * steps are mapped through it) and not counted as an edit. The selection maps through the
 * changes, so the cursor stays on its line when that line is still there. */
export function remote(view, changes) {
  view.dispatch({
    changes: specs(changes),
    annotations: [loaded.of(true), Transaction.addToHistory.of(false), Transaction.remote.of(true)],
  });
}

/** The app puts a saved text on screen on the user's behalf (take theirs, restore): one undo
 * step of its own that is not counted as an edit; undoing it is an edit, and is saved. */
export function swap(view, changes) {
  view.dispatch({
    changes: specs(changes),
    annotations: [loaded.of(true), isolateHistory.of("full"), Transaction.userEvent.of("input.restore")],
    scrollIntoView: true,
  });
}

// The merge view marks folded unchanged lines with "⦚", which no font here has (an empty
// box): "…" instead, which nearly every font has.
const foldGlyph = EditorView.theme({
  ".cm-collapsedLines": { "&:before": { content: '"…"' }, "&:after": { content: '"…"' } },
});

/** A read-only diff in `parent`: `original` struck out in red, `changed` in green, with the
 * changed words inside a line highlighted. Returns the view (destroy it with `destroy`).
 * `numbers` (optional, JSON list of strings): the label of each line of `changed` in the
 * gutter (a proposal's hunks show the note's own line numbers); else 1, 2, 3… */
export function diffView(parent, original, changed, label, numbers) {
  const labels = numbers ? JSON.parse(numbers) : null;
  const gutter = labels
    ? lineNumbers({ formatNumber: (n) => (n <= labels.length ? labels[n - 1] : "") })
    : lineNumbers();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: changed,
      extensions: [
        gutter,
        foldGlyph,
        EditorView.lineWrapping,
        EditorView.editable.of(false),
        EditorState.readOnly.of(true),
        EditorView.contentAttributes.of({ "aria-label": label }),
        unifiedMergeView({
          original,
          highlightChanges: true,
          gutter: true,
          mergeControls: false,
          syntaxHighlightDeletions: false,
          collapseUnchanged: { margin: 2, minSize: 4 },
        }),
      ],
    }),
  });
  // A diff taller than its box scrolls: its scroller is a Tab stop so a keyboard user can
  // scroll it (axe: scrollable-region-focusable; read-only content is no focus target).
  view.scrollDOM.tabIndex = 0;
  return view;
}
