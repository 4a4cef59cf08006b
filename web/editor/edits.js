// Apply an assistant's edit proposal in the live editor: one transaction, one undo step.
import { isolateHistory } from "@codemirror/commands";
import { Transaction } from "@codemirror/state";

/** Dispatch `changes` ([[from, to, insert], ...] as JSON, CodeMirror positions computed by
 * ambient/edits.py on the text Python just read) as ONE transaction, isolated in the history
 * so a single undo reverts exactly it; autosave sees it like typing. Refused (false) when the
 * document's length is no longer `length`, i.e. it changed after that read. */
export function applyProposal(view, changes, length) {
  if (view.state.doc.length !== length) return false;
  const specs = JSON.parse(changes).map(([from, to, insert]) => ({ from, to, insert }));
  view.dispatch({
    changes: specs,
    annotations: [Transaction.userEvent.of("input.assistant"), isolateHistory.of("full")],
    scrollIntoView: true,
  });
  return true;
}
