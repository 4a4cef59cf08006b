// Annotations shared by the editor's modules.
import { Annotation } from "@codemirror/state";

/** A document change made by the app, not typed by the user (a change saved elsewhere, take
 * theirs, a restore): it neither marks the note dirty nor counts as an edit to save. */
export const loaded = Annotation.define();
