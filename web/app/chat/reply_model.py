"""An assistant reply → safe HTML: Markdown as Preview reads it, note names as links (pure).

The settings are Preview's (`app.notes.preview_model`): CommonMark with raw HTML off (it shows as
text), tables and strikethrough, and only http(s)/mailto or relative URLs linked. Two chat
rules on top: a line break in a reply is a line break (models and the offline assistant
write lines, not paragraphs), and images are not loaded (a reply cannot make the page fetch
anything). Note paths and "(line N)" / "N 行目" references in the text become the chat's
note links (`chat_model.link_spans`); so does a Markdown link or a `code span` that names a
note. Relative links that name no note are shown as their text, never followed.
"""

from __future__ import annotations

from collections.abc import Collection

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from app.chat.chat_model import is_note, link_spans
from app.notes.preview_model import is_safe_url, resolve_link

NOTE_LINK_TESTID = "chat-note-link"
_EXTERNAL = ("http://", "https://", "mailto:")


def note_link_attrs(path: str, line: int | None = None) -> dict[str, str]:
    """The attributes of a chat link to a note (the page's click handler reads them)."""
    where = f"{path}, line {line}" if line else path
    attrs = {
        "class": "note-ref",
        "href": "#",
        "data-testid": NOTE_LINK_TESTID,
        "data-path": path,
        "title": f"Open {where}",
    }
    if line:
        attrs["data-line"] = str(line)
    return attrs


def _note_links(state) -> None:
    """Core rule: split text into note links, in reading order (a line follows its note)."""
    env = state.env
    known, current, read = env.get("known") or (), env.get("current"), env.get("read") or ()
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Token] = []
        dropped: list[bool] = []  # per open link: was it dropped (its close goes too)?
        inside = 0
        for token in block.children:
            if token.type == "link_open":
                keep, path = _link(token, known)
                dropped.append(not keep)
                inside += 1
                if path and (not read or path in read):
                    current = path
                if keep:
                    out.append(token)
            elif token.type == "link_close":
                inside -= 1
                if not (dropped.pop() if dropped else False):
                    out.append(token)
            elif inside:
                out.append(token)
            elif token.type == "text":
                for span in link_spans(token.content, known, current, read):
                    out.append(_span_token(span))
                    if span.path and (not read or span.path in read):
                        current = span.path
            elif token.type == "code_inline" and is_note(token.content, known):
                out.append(_note_token(token.content, None, code=True))
                if not read or token.content in read:
                    current = token.content
            else:
                out.append(token)
        block.children = out
    env["current"] = current


def _link(token: Token, known: Collection[str]) -> tuple[bool, str | None]:
    """Decide a Markdown link: a note link (kept, path), external (kept) or dropped."""
    href = str(token.attrGet("href") or "")
    if href.startswith(_EXTERNAL):
        token.attrSet("target", "_blank")
        token.attrSet("rel", "noopener noreferrer")
        return True, None
    path = resolve_link("", href)
    if path is None or not is_note(path, known):
        return False, None
    token.attrs = {}
    for name, value in note_link_attrs(path).items():
        token.attrSet(name, value)
    return True, path


def _span_token(span) -> Token:
    if span.path is None:
        token = Token("text", "", 0)
        token.content = span.text
        return token
    return _note_token(span.text, span.line, path=span.path)


def _note_token(
    text: str, line: int | None, *, path: str | None = None, code: bool = False
) -> Token:
    token = Token("note_ref", "a", 0)
    token.content = text
    token.meta = {"path": path or text, "line": line, "code": code}
    return token


def _render_note_ref(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    attrs = note_link_attrs(token.meta["path"], token.meta["line"])
    shown = escapeHtml(token.content)
    if token.meta["code"]:
        shown = f"<code>{shown}</code>"
    pairs = "".join(f' {name}="{escapeHtml(value)}"' for name, value in attrs.items())
    return f"<a{pairs}>{shown}</a>"


def _renderer() -> MarkdownIt:
    md = MarkdownIt(
        "commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True}
    )
    md.enable("table")
    md.enable("strikethrough")
    md.disable("image")
    md.validateLink = is_safe_url  # instance override, as in Preview
    md.core.ruler.after("text_join", "note_links", _note_links)
    md.add_render_rule("note_ref", _render_note_ref)
    return md


_MD: MarkdownIt | None = None


def render(
    text: str,
    known: Collection[str] = (),
    default_path: str | None = None,
    read: Collection[str] = (),
) -> str:
    """The reply as HTML: `known` are the workspace's notes (any valid path while the list is
    not loaded); `default_path` is the note a bare "line N" means (the turn's last read);
    `read` are the notes the turn's tools named, the only ones a line can belong to."""
    global _MD
    if _MD is None:
        _MD = _renderer()
    return _MD.render(text, {"known": known, "current": default_path, "read": read})
