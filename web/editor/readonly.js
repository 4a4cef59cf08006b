// A reader's editor (SPEC §17): read-only through a compartment, so a role change flips it live
// without recreating the editor, keeping the text, the cursor, the scroll and the undo history.
// Changes the app makes (a save made elsewhere landing on screen) still apply: the read-only
// facet stops only the user's input.
import { Compartment, EditorState, StateEffect } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

const compartments = new WeakMap(); // view → its read-only compartment, added on first use

const settings = (readOnly) => [
  EditorState.readOnly.of(readOnly),
  EditorView.editable.of(!readOnly),
];

/** Make `view` read-only (true) or editable (false) in place. */
export function setReadOnly(view, readOnly) {
  const known = compartments.get(view);
  if (known) {
    view.dispatch({ effects: known.reconfigure(settings(Boolean(readOnly))) });
    return;
  }
  const compartment = new Compartment();
  compartments.set(view, compartment);
  view.dispatch({
    effects: StateEffect.appendConfig.of(compartment.of(settings(Boolean(readOnly)))),
  });
}

/** Whether `view` refuses the user's input now. */
export const isReadOnly = (view) => view.state.readOnly;
