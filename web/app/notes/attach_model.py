"""Attachments in the page (SPEC §18), the pure part: which files a paste or drop uploads,
where they go, the Markdown put in the note, and how Preview finds a note's pictures.

Decisions (docs/attachments.md): a file pasted or dropped into `trips/japan.md` is kept
beside the note, at `trips/attachments/<file name>`, and the note gets a link relative to
itself, `![name](attachments/<file name>)` (a PDF gets a plain link, `[name](…)`); so a
note and its pictures move together when their folder does, and the link reads the same
in any Markdown tool.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from urllib.parse import quote, unquote

from ambient.contract import ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES
from app.notes.links_model import find_by_name

FOLDER = "attachments"
# A clipboard image has a type but often a bare name ("image.png" at best).
_EXTENSION_FOR_TYPE = {"image/jpeg": "jpg", "image/svg+xml": "svg"} | {
    v: k for k, v in ATTACHMENT_TYPES.items() if k not in ("jpeg",)
}
# Characters written percent-encoded in a link's destination: they would end it, or be
# read as a fragment or query, or as an escape.
_ENCODED = set(" ()<>[]%#?\\\t\n\r")


def extension(name: str) -> str:
    _, dot, ext = name.rpartition(".")
    return ext.lower() if dot and "/" not in ext else ""


def file_name(name: str, content_type: str) -> str | None:
    """The name a pasted or dropped file is kept under, or None when attachments do not take
    it (only png jpg jpeg gif webp svg pdf). A name without a known extension gets the one
    of its type (`image` + image/png → `image.png`); a nameless file is `pasted.<ext>`."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if extension(name) in ATTACHMENT_TYPES:
        return name
    ext = _EXTENSION_FOR_TYPE.get(content_type.lower())
    if ext is None:
        return None
    return f"{name or 'pasted'}.{ext}"


def too_large(size: int) -> bool:
    return size > MAX_ATTACHMENT_BYTES


def upload_path(note_path: str, name: str) -> str:
    """Where a file pasted into `note_path` is kept: the `attachments` folder beside it."""
    folder = posixpath.dirname(note_path)
    return posixpath.join(folder, FOLDER, name) if folder else f"{FOLDER}/{name}"


def relative_to(note_path: str, path: str) -> str:
    """`path` (a workspace path) as a link from the note at `note_path`."""
    return posixpath.relpath(path, posixpath.dirname(note_path) or ".")


def link_target(text: str) -> str:
    """A link destination: characters that would break it percent-encoded; the rest (letters
    of any script included) kept as typed, so the note stays readable."""
    return "".join(quote(c, safe="") if c in _ENCODED else c for c in text)


def _alt(name: str) -> str:
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return "".join(c for c in stem if c not in "[]\\\n\r") or "file"


def markdown_for(note_path: str, path: str) -> str:
    """What the note gets for the file kept at `path`: `![name](relative path)`, or a plain
    link for a PDF."""
    name = posixpath.basename(path)
    bang = "" if extension(name) == "pdf" else "!"
    return f"{bang}[{_alt(name)}]({link_target(relative_to(note_path, path))})"


def attachment_url(ws: str, path: str) -> str:
    """The attachment's GET URL, every segment percent-encoded."""
    return f"/api/workspaces/{quote(ws, safe='')}/attachments/{quote(path, safe='/')}"


def resolve_image(
    note_path: str, src: str, attachments: Iterable[str] | None
) -> tuple[str | None, bool]:
    """`![alt](src)` in `note_path` → (the workspace path, whether it is a known attachment).

    Relative to the note first; a path written from the workspace root still finds the file
    when only that one exists. (None, False) for what is no workspace path (`../` above the
    root, a fragment only). With `attachments` None (not listed yet) the path is trusted.
    """
    plain = unquote(src.split("#", 1)[0].split("?", 1)[0]).strip()
    if not plain or plain.startswith("/"):
        return None, False
    here = posixpath.normpath(posixpath.join(posixpath.dirname(note_path), plain))
    if here.startswith(("..", "/")) or here == ".":
        here = ""
    if attachments is None:
        return (here or None), bool(here)
    known = set(attachments)
    if here in known:
        return here, True
    if not plain.startswith(("./", "../")):
        from_root = posixpath.normpath(plain)
        if from_root in known:
            return from_root, True
    return (here or None), False


def resolve_embed(
    note_path: str, name: str, attachments: Iterable[str] | None
) -> tuple[str | None, bool]:
    """`![[name.png]]` → (path, known), like Obsidian: the exact path, else the one file of
    that name in any folder (several: the note's own folder first, then the shortest path).
    """
    wanted = name.split("#", 1)[0].split("|", 1)[0].strip().strip("/")
    if not wanted:
        return None, False
    if attachments is None:
        return wanted, True
    return find_by_name(note_path, wanted, attachments)


def image_resolver(ws: str, note_path: str, attachments: Iterable[str] | None):
    """The `image(src, embed)` that `preview_model.render` takes: (URL or None, path, known)."""
    listed = None if attachments is None else frozenset(attachments)

    def image(src: str, embed: bool) -> tuple[str | None, str | None, bool]:
        resolve = resolve_embed if embed else resolve_image
        path, known = resolve(note_path, src, listed)
        if path is None:
            return None, None, False
        return attachment_url(ws, path), path, known

    return image
