// Apply an assistant's edit proposal in the live editor: one transaction, one undo step.
import { invertedEffects, isolateHistory } from "@codemirror/commands";
import { StateEffect, Transaction } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

// A proposal's transaction carries `applied(id)`; the history inverts it to `undone(id)` when
// the user undoes that step, and back when they redo it, so the card can say so.
const applied = StateEffect.define();
const undone = StateEffect.define();
const watchers = new Map(); // proposal id → callback(undone: boolean)

export const proposalHistory = [
  invertedEffects.of((tr) => {
    const out = [];
    for (const effect of tr.effects) {
      if (effect.is(applied)) out.push(undone.of(effect.value));
      else if (effect.is(undone)) out.push(applied.of(effect.value));
    }
    return out;
  }),
  EditorView.updateListener.of((update) => {
    for (const tr of update.transactions) {
      if (!tr.isUserEvent("undo") && !tr.isUserEvent("redo")) continue;
      for (const effect of tr.effects) {
        const watcher = watchers.get(effect.value);
        if (watcher && (effect.is(applied) || effect.is(undone))) watcher(effect.is(undone));
      }
    }
  }),
];

/** `callback(undone)` whenever the user undoes (true) or redoes (false) proposal `id`'s
 * step; null stops watching. */
export function watchProposal(id, callback) {
  if (callback) watchers.set(id, callback);
  else watchers.delete(id);
}

/** Dispatch `changes` ([[from, to, insert], ...] as JSON, CodeMirror positions computed by
 * ambient/edits.py on the text Python just read) as ONE transaction, isolated in the history
 * so a single undo reverts exactly it; autosave sees it like typing. Refused (false) when the
 * document's length is no longer `length`, i.e. it changed after that read. `id`, when
 * given, names the proposal for `watchProposal`. */
export function applyProposal(view, changes, length, id) {
  if (view.state.doc.length !== length) return false;
  const specs = JSON.parse(changes).map(([from, to, insert]) => ({ from, to, insert }));
  view.dispatch({
    changes: specs,
    effects: id ? [applied.of(id)] : [],
    annotations: [Transaction.userEvent.of("input.assistant"), isolateHistory.of("full")],
    scrollIntoView: true,
  });
  return true;
}
