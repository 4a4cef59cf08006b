// The editor's colours: CodeMirror's default style, except that headings are bold and not
// underlined (underlined text in this app is a link).
import { HighlightStyle, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";

const noteStyle = HighlightStyle.define(
  defaultHighlightStyle.specs.map((spec) =>
    spec.textDecoration === "underline" && spec.fontWeight === "bold"
      ? { ...spec, textDecoration: "none" } // the heading rule
      : spec,
  ),
);

export const noteHighlighting = syntaxHighlighting(noteStyle);
