"""Preview, Todo and Mindmap: drawn from the editor's text each time they are shown."""

from __future__ import annotations

from ambient.markdown import OutlineNode, outline, todos
from app.dom import h


def draw_preview(host, text: str) -> None:
    """markdown-it output only: raw HTML is escaped and unsafe URLs dropped before insertion."""
    from app.preview_model import render  # markdown-it loads on the first preview, not at boot

    host.innerHTML = f'<article class="preview">{render(text)}</article>'


def draw_todo(host, text: str, frame_id: str) -> None:
    """One real checkbox per `- [ ]` item; `data-line` is the 1-based line it toggles."""
    items = todos(text)
    if not items:
        host.replaceChildren(h("p", {"class": "empty", "text": "This note has no todo items. "
                                     "Add one in Edit as “- [ ] something”."}))
        return
    done = sum(1 for item in items if item.done)
    rows = []
    for number, item in enumerate(items):
        box_id = f"{frame_id}-todo-{number}"
        box = h("input", {"type": "checkbox", "id": box_id, "data-testid": "todo-checkbox",
                          "data-line": item.line, "checked": item.done})
        rows.append(h("li", {"class": "todo-item", "style": f"--indent: {item.indent}"}, box,
                      h("label", {"for": box_id, "text": item.text or "(empty item)"})))
    host.replaceChildren(h(
        "section", {"class": "todo", "aria-label": "Todo items"},
        h("p", {"class": "todo-count", "text": f"{done} of {len(items)} done"}),
        h("ul", {"class": "todo-list"}, *rows),
    ))


def draw_mindmap(host, text: str, title: str) -> None:
    """The heading/list outline as a tree of nested lists, drawn with connectors by CSS."""
    root = outline(text)
    caption = h("figcaption", {"class": "visually-hidden",
                               "text": f"Mind map of {title}: headings and list items as a tree"})
    top = h("li", {}, h("span", {"class": "node node-root", "text": title}), _branch(root))
    host.replaceChildren(h("figure", {"class": "mindmap"}, caption,
                           h("ul", {"class": "mindmap-tree"}, top)))


def _branch(node: OutlineNode):
    if not node.children:
        return None
    items = []
    for child in node.children:
        kind = "heading" if child.kind == "heading" else "item"
        label = child.title or "(untitled)"
        if child.done is not None:
            label = ("☑ " if child.done else "☐ ") + label
        items.append(h("li", {}, h("span", {"class": f"node node-{kind}", "text": label}),
                       _branch(child)))
    return h("ul", {}, *items)
