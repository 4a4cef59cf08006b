"""Preview, Todo and Mindmap: drawn from the editor's text each time they are shown."""

from __future__ import annotations

from js import document

from ambient.markdown import OutlineNode, outline, todos
from app.dom import h, spawn
from app.live.access_model import READONLY_WORDS


def draw_preview(
    host, text: str, note_path: str = "", paths=(), ws: str = "", redrawn=None
) -> None:
    """markdown-it output only: raw HTML is escaped and unsafe URLs dropped before insertion.

    Links to notes carry the path they open (`data-path`) or are marked missing; a
    backlinks list follows, filled in by `draw_backlinks` once it is known. Pictures of the
    workspace `ws` come from its attachments (listed again each time: redrawn when the
    pictures change what is drawn, then `redrawn(held)` is called so the caller can put back
    what it added to the article, `held` telling if the keyboard was in it).
    """
    from app.notes import attach
    from app.notes.attach_model import image_resolver
    from app.notes.links_model import (
        resolver,  # markdown-it loads on the first preview, not at boot
    )
    from app.notes.preview_model import render

    def html(attachments) -> str:
        image = image_resolver(ws, note_path, attachments) if ws else None
        return render(text, resolver(note_path, paths), image)

    article = h("article", {"class": "preview"})
    shown = attach.known(ws)
    first = html(shown)
    article.innerHTML = first
    host.replaceChildren(article)
    if ws:  # list the attachments again (another window may have added some): redraw if new

        async def again() -> None:
            listed = await attach.listed(ws)
            if not article.isConnected or listed == shown:
                return
            drawn = html(listed)
            if drawn != first:  # a note without pictures is left alone (a click may be on it)
                held = article.contains(document.activeElement)
                article.innerHTML = drawn
                if redrawn:
                    redrawn(held)

        spawn(again())
    host.append(
        h(
            "aside",
            {
                "class": "backlinks",
                "data-testid": "backlinks",
                "aria-label": "Notes that link here",
            },
            h("h3", {"text": "Linked from"}),
            h("p", {"class": "empty", "text": "Looking for notes that link here…"}),
        )
    )


def draw_backlinks(host, paths: list[str] | None, problem: str = "") -> None:
    """Fill the backlinks list of a drawn preview: one button per note that links here."""
    aside = host.querySelector(".backlinks")
    if not aside:
        return
    heading = h("h3", {"text": "Linked from"})
    if problem or not paths:
        words = problem or "No other note links here."
        aside.replaceChildren(heading, h("p", {"class": "empty", "text": words}))
        return
    items = [
        h(
            "li",
            {},
            h(
                "button",
                {
                    "type": "button",
                    "class": "link",
                    "data-testid": "backlink",
                    "data-path": path,
                    "text": path,
                },
            ),
        )
        for path in paths
    ]
    aside.replaceChildren(heading, h("ul", {}, *items))


def draw_todo(host, text: str, frame_id: str, *, readonly: bool = False) -> None:
    """One real checkbox per `- [ ]` item; `data-line` is the 1-based line it toggles
    (disabled for a reader)."""
    items = todos(text)
    if not items:
        host.replaceChildren(
            h(
                "p",
                {
                    "class": "empty",
                    "text": "This note has no todo items. Add one in Edit as “- [ ] something”.",
                },
            )
        )
        return
    done = sum(1 for item in items if item.done)
    rows = []
    for number, item in enumerate(items):
        box_id = f"{frame_id}-todo-{number}"
        box = h(
            "input",
            {
                "type": "checkbox",
                "id": box_id,
                "data-testid": "todo-checkbox",
                "data-line": item.line,
                "checked": item.done,
                "disabled": readonly,
            },
        )
        rows.append(
            h(
                "li",
                {"class": "todo-item", "style": f"--indent: {item.indent}"},
                box,
                h("label", {"for": box_id, "text": item.text or "(empty item)"}),
            )
        )
    host.replaceChildren(
        h(
            "section",
            {"class": "todo", "aria-label": "Todo items"},
            h("p", {"class": "todo-count", "text": f"{done} of {len(items)} done"}),
            h("ul", {"class": "todo-list"}, *rows),
        )
    )


def draw_mindmap(host, text: str, title: str) -> None:
    """The heading/list outline as a tree of nested lists, drawn with connectors by CSS."""
    root = outline(text)
    caption = h(
        "figcaption",
        {
            "class": "visually-hidden",
            "text": f"Mind map of {title}: headings and list items as a tree",
        },
    )
    top = h("li", {}, h("span", {"class": "node node-root", "text": title}), _branch(root))
    host.replaceChildren(
        h("figure", {"class": "mindmap"}, caption, h("ul", {"class": "mindmap-tree"}, top))
    )


def _branch(node: OutlineNode):
    if not node.children:
        return None
    items = []
    for child in node.children:
        kind = "heading" if child.kind == "heading" else "item"
        label = child.title or "(untitled)"
        if child.done is not None:
            label = ("☑ " if child.done else "☐ ") + label
        items.append(
            h("li", {}, h("span", {"class": f"node node-{kind}", "text": label}), _branch(child))
        )
    return h("ul", {}, *items)


def readonly_badge():
    """The badge a reader's note shows (SPEC §17: `note-readonly`), hidden for an editor."""
    return h(
        "p",
        {
            "class": "note-readonly",
            "data-testid": "note-readonly",
            "role": "note",
            "hidden": True,
            "text": READONLY_WORDS,
        },
    )


async def copy_text(text: str) -> bool:
    """Put `text` on the clipboard; False when the browser refuses (copy by hand then)."""
    from js import navigator

    try:
        await navigator.clipboard.writeText(text)
    except Exception:  # noqa: BLE001 - no clipboard access: the text is still in the editor
        return False
    return True
