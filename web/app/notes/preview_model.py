"""Markdown → safe HTML for the Preview view: markdown-it-py with raw HTML off (pure)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from ambient.contract import ATTACHMENT_TYPES

# Only these schemes may appear in a link or image URL; relative URLs and #anchors pass.
SAFE_SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
# Browsers ignore these when reading a scheme, so "java\tscript:" still means javascript:.
_IGNORED = re.compile(r"[\x00-\x20\x7f-\x9f]+")


def is_safe_url(url: str) -> bool:
    """True for relative URLs and http(s)/mailto; false for javascript:, data:, vbscript:, …"""
    squeezed = _IGNORED.sub("", url).lower()
    match = _SCHEME.match(squeezed)
    return match is None or match.group(1) in SAFE_SCHEMES


_TASK = re.compile(r"^\[([ xX])\][ \t]+")


def _bracketed(state, silent: bool, opener: str, kind: str, tag: str, label_default) -> bool:
    """`{opener}target|label]]` on one line → one `kind` token (target and label in meta)."""
    start = state.pos
    if not state.src.startswith(opener, start):
        return False
    end = state.src.find("]]", start + len(opener))
    if end < 0:
        return False
    inner = state.src[start + len(opener) : end]
    target, _, label = inner.partition("|")
    if not target.strip() or any(c in inner for c in "[]\n"):
        return False
    if not silent:
        token = state.push(kind, tag, 0)
        token.meta = {"target": target.strip(), "label": label_default(target, label).strip()}
    state.pos = end + 2
    return True


def _wikilink(state, silent: bool) -> bool:
    """`[[target]]` or `[[target|label]]`: a link labelled with its target by default."""
    return _bracketed(state, silent, "[[", "wikilink", "a", lambda target, label: label or target)


def _embed(state, silent: bool) -> bool:
    """`![[name.png]]` (an Obsidian embed): an image, its label empty by default."""
    return _bracketed(state, silent, "![[", "embed", "img", lambda target, label: label)


def _host(url: str) -> str | None:
    """The host a remote URL names (`https://host/x.png`, `//host/x.png`), else None."""
    squeezed = _IGNORED.sub("", url)
    if not (squeezed.startswith("//") or _SCHEME.match(squeezed.lower())):
        return None
    try:
        return urlsplit(squeezed).hostname or ""
    except ValueError:
        return ""


def _is_image_name(path: str) -> bool:
    _, dot, ext = path.rpartition(".")
    return bool(dot) and ext.lower() in ATTACHMENT_TYPES and ext.lower() != "pdf"


def _picture(src: str, alt: str, embed: bool, env) -> str:
    """An image of the note: a workspace file through the attachments URL; a remote one as
    a placeholder naming its host (no request leaves for it: the page's CSP allows only its
    own images); a PDF as a link to it."""
    host = _host(src)
    if host is not None:
        shown = host or "another site"
        return (
            f'<span class="remote-image" data-testid="remote-image" data-host="{escapeHtml(shown)}"'
            f' role="img" aria-label="{escapeHtml(f"Image from {shown}, not loaded")}">'
            f"Image from {escapeHtml(shown)} (not loaded)"
            + (f": {escapeHtml(alt)}" if alt else "")
            + "</span>"
        )
    image = env.get("image")
    url, path, known = image(src, embed) if image is not None else (None, None, False)
    if url is None or path is None or not known:
        name = path or src
        return (
            f'<span class="missing-image" data-testid="missing-image" role="img"'
            f' aria-label="{escapeHtml(f"Missing image {name}")}">'
            f"Missing image: {escapeHtml(name)}</span>"
        )
    if not _is_image_name(path):
        return (
            f'<a href="{escapeHtml(url)}" target="_blank" rel="noopener" class="attachment"'
            f' data-testid="attachment-link">{escapeHtml(alt or path)}</a>'
        )
    return (
        f'<img src="{escapeHtml(url)}" alt="{escapeHtml(alt)}" data-path="{escapeHtml(path)}"'
        ' data-testid="preview-image" loading="lazy">'
    )


def _tasks(state) -> None:
    """A list item starting with `[ ]` or `[x]` gets a `task` token: a checkbox in Preview."""
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "list_item_open" or index + 2 >= len(tokens):
            continue
        inline = tokens[index + 2]
        if tokens[index + 1].type != "paragraph_open" or inline.type != "inline":
            continue
        match = _TASK.match(inline.content)
        first = inline.children[0] if inline.children else None
        if not match or first is None or first.type != "text":
            continue
        first.content = _TASK.sub("", first.content, count=1)
        box = Token("task", "input", 0)
        box.meta = {"done": match.group(1) != " ", "line": token.map[0] + 1}
        inline.children.insert(0, box)
        token.attrSet("class", "task")


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.enable("strikethrough")
    md.validateLink = is_safe_url  # instance override: markdown-it asks this for every URL
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("image", "embed", _embed)
    md.core.ruler.after("inline", "tasks", _tasks)

    def link_open(renderer, tokens, idx, options, env):
        token = tokens[idx]
        href = token.attrGet("href") or ""
        if _SCHEME.match(href.lower()):  # leave the app in a new tab, never in this one
            token.attrSet("target", "_blank")
            token.attrSet("rel", "noopener noreferrer")
        elif env.get("resolve") is not None:
            _mark(token, env["resolve"](href, False))
        return renderer.renderToken(tokens, idx, options, env)

    def wikilink(renderer, tokens, idx, options, env):
        meta = tokens[idx].meta
        link = Token("link_open", "a", 1)
        link.attrSet("href", "#")
        link.attrSet("class", "wikilink")
        link.attrSet("data-wikilink", meta["target"])
        if env.get("resolve") is not None:
            _mark(link, env["resolve"](meta["target"], True))
        return renderer.renderToken([link], 0, options, env) + escapeHtml(meta["label"]) + "</a>"

    def task(renderer, tokens, idx, options, env):
        meta = tokens[idx].meta
        checked = " checked" if meta["done"] else ""
        return (
            f'<input type="checkbox" data-testid="todo-checkbox" data-line="{meta["line"]}"'
            f' aria-label="Done"{checked}> '
        )

    def image(renderer, tokens, idx, options, env):
        token = tokens[idx]
        alt = renderer.renderInlineAsText(token.children or [], options, env)
        return _picture(token.attrGet("src") or "", alt, False, env)

    def embed(renderer, tokens, idx, options, env):
        meta = tokens[idx].meta
        target = meta["target"]
        if not _is_image_name(target) and not target.lower().endswith(".pdf"):
            # A note embedded (`![[plan]]`) is shown as the link to it.
            return wikilink(renderer, [_as_wikilink(meta)], 0, options, env)
        label = meta["label"]
        alt = "" if label.isdigit() or "x" in label and label.replace("x", "").isdigit() else label
        return _picture(target, alt or target.rsplit("/", 1)[-1], True, env)

    md.add_render_rule("image", image)
    md.add_render_rule("embed", embed)
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("wikilink", wikilink)
    md.add_render_rule("task", task)
    return md


def _as_wikilink(meta: dict) -> Token:
    token = Token("wikilink", "a", 0)
    token.meta = {"target": meta["target"], "label": meta["label"] or meta["target"]}
    return token


def _mark(token, found: tuple[str | None, bool] | None) -> None:
    """A note link gets the path it opens (`data-path`), or is marked missing."""
    if found is None:
        return
    path, exists = found
    if path is None:
        return
    token.attrSet("data-path", path)
    if not exists:
        token.attrSet("class", ((token.attrGet("class") or "") + " missing").strip())
        token.attrSet("data-missing", "true")
        token.attrSet("title", f"{path} does not exist")


_MD: MarkdownIt | None = None


def parser() -> MarkdownIt:
    """The one configured markdown-it (wikilinks, tasks, safe links), built on first use."""
    global _MD
    if _MD is None:
        _MD = _renderer()
    return _MD


def render(text: str, resolve=None, image=None) -> str:
    """HTML for the note; raw HTML in the note is shown as text, unsafe URLs are not linked.

    `resolve(href_or_name, is_wikilink)` → (path or None, exists): note links then carry
    `data-path`, and links to notes that do not exist are marked missing.
    `image(src, is_embed)` → (URL or None, workspace path or None, known): `![alt](src)` and
    `![[name.png]]` show the workspace's file from that URL (attach_model.image_resolver);
    without it, or for a file not known, a "missing image" placeholder. A remote image is
    never loaded: a placeholder names its host.
    """
    return parser().render(text, {"resolve": resolve, "image": image})


def resolve_link(note_path: str, href: str) -> str | None:
    """A relative link in a note (`../b.md`, `c.md#x`) → the workspace path it names, or None."""
    import posixpath
    from urllib.parse import unquote

    if not href or href.startswith(("#", "/", "?")) or _SCHEME.match(href.lower()):
        return None
    target = unquote(href.split("#", 1)[0].split("?", 1)[0])
    if not target.endswith(".md"):
        return None
    folder = posixpath.dirname(note_path)
    joined = posixpath.normpath(posixpath.join(folder, target))
    if joined.startswith(("..", "/")):
        return None
    return joined
