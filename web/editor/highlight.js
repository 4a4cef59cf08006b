// The editor's colours: CodeMirror's default style, except that headings are bold and not
// underlined (underlined text in this app is a link). Each colour is a CSS variable with
// CodeMirror's light colour as its fallback, so web/static/app.css's dark theme (the device's,
// or the one chosen in Settings) recolours the text, gutters, cursor and selection too.
import { HighlightStyle, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";

const themed = (color) => (color ? `var(--syntax-${color.slice(1)}, ${color})` : color);

const noteStyle = HighlightStyle.define(
  defaultHighlightStyle.specs.map((spec) => {
    const own = { ...spec, color: themed(spec.color) };
    if (!spec.color) delete own.color;
    return spec.textDecoration === "underline" && spec.fontWeight === "bold"
      ? { ...own, textDecoration: "none" } // the heading rule
      : own;
  }),
);

const v = (name, light) => `var(--cm-${name}, ${light})`;
const colours = EditorView.theme({
  ".cm-gutters": {
    backgroundColor: v("gutter-bg", "#f5f5f5"),
    color: v("gutter-ink", "#6c6c6c"),
    borderColor: v("gutter-line", "#ddd"),
  },
  ".cm-activeLineGutter": { backgroundColor: v("active-gutter", "#e2f2ff") },
  ".cm-activeLine": { backgroundColor: v("active-line", "#cceeff44") },
  ".cm-content": { caretColor: v("caret", "black") },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: v("caret", "black") },
  ".cm-selectionBackground": { background: v("selection", "#d9d9d9") },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground": {
    background: v("selection-focused", "#d7d4f0"),
  },
  ".cm-tooltip, .cm-panels": { backgroundColor: "var(--panel)", color: "var(--ink)" },
});

export const noteHighlighting = [syntaxHighlighting(noteStyle), colours];
