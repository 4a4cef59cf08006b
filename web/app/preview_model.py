"""Markdown → safe HTML for the Preview view: markdown-it-py with raw HTML off (pure)."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

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


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.enable("strikethrough")
    md.validateLink = is_safe_url  # instance override: markdown-it asks this for every URL

    def link_open(renderer, tokens, idx, options, env):
        token = tokens[idx]
        href = token.attrGet("href") or ""
        if _SCHEME.match(href.lower()):  # leave the app in a new tab, never in this one
            token.attrSet("target", "_blank")
            token.attrSet("rel", "noopener noreferrer")
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


_MD: MarkdownIt | None = None


def render(text: str) -> str:
    """HTML for the note; raw HTML in the note is shown as text, unsafe URLs are not linked."""
    global _MD
    if _MD is None:
        _MD = _renderer()
    return _MD.render(text)


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
