"""Links between notes: resolving relative links and [[wikilinks]], and backlinks (pure)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from app.notes.preview_model import parser, resolve_link


def _with_md(name: str) -> str:
    return name if name.lower().endswith(".md") else name + ".md"


def resolve_relative(note_path: str, href: str, paths: Iterable[str]) -> tuple[str | None, bool]:
    """A Markdown link in `note_path` → (the path it opens, whether that note exists).

    The note's own folder comes first (`plan.md` in `projects/a.md` is `projects/plan.md`).
    A link written from the workspace root (`projects/plan.md` in `meetings/a.md`) still
    opens the note when only that one exists: users write both, and the root one is what
    the note list shows. (None, False) when it is not a link to a note at all.
    """
    target = resolve_link(note_path, href)
    if target is None:
        return None, False
    known = set(paths)
    if target in known:
        return target, True
    plain = href.split("#", 1)[0].split("?", 1)[0]
    if not plain.startswith(("./", "../")):
        from_root = resolve_link("", href)
        if from_root in known:
            return from_root, True
    return target, False


def resolve_wikilink(note_path: str, name: str, paths: Iterable[str]) -> tuple[str, bool]:
    """`[[name]]` → (path, exists), against the whole workspace.

    A name with a folder (`[[projects/plan]]`) is a path from the root. A bare name matches
    the note of that name anywhere, case-insensitively; several matches prefer the note's
    own folder, then the shortest path. A missing one is named as a root note.
    """
    wanted = _with_md(name.split("#", 1)[0].strip().strip("/"))
    return find_by_name(note_path, wanted, paths)


def find_by_name(note_path: str, wanted: str, paths: Iterable[str]) -> tuple[str, bool]:
    """Obsidian's rule for a name in `[[…]]` or `![[…]]`: (path, exists). The exact path;
    else, for a bare name, the file of that name in any folder (a name with a folder: that
    path), case-insensitively; several: the note's own folder first, then the shortest."""
    known = sorted(set(paths), key=lambda p: (p.count("/"), p))
    if wanted in known:
        return wanted, True
    folded = wanted.casefold()
    if "/" in wanted:
        matches = [p for p in known if p.casefold() == folded]
    else:
        matches = [p for p in known if posixpath.basename(p).casefold() == folded]
    if not matches:
        return wanted, False
    here = posixpath.dirname(note_path)
    near = [p for p in matches if posixpath.dirname(p) == here]
    return (near or matches)[0], True


def resolver(note_path: str, paths: Iterable[str]):
    """The `resolve(href_or_name, is_wikilink)` that `preview_model.render` takes."""
    known = frozenset(paths)

    def resolve(target: str, wikilink: bool) -> tuple[str | None, bool]:
        if wikilink:
            return resolve_wikilink(note_path, target, known)
        return resolve_relative(note_path, target, known)

    return resolve


def links_in(note_path: str, text: str, paths: Iterable[str]) -> set[str]:
    """The existing notes that `text` (the note at `note_path`) links to, either way."""
    known = frozenset(paths)
    found: set[str] = set()
    stack = list(parser().parse(text))
    while stack:
        token = stack.pop()
        if token.children:
            stack.extend(token.children)
        if token.type == "wikilink":
            path, exists = resolve_wikilink(note_path, token.meta["target"], known)
        elif token.type == "link_open":
            path, exists = resolve_relative(note_path, token.attrGet("href") or "", known)
        else:
            continue
        if exists and path != note_path:
            found.add(path)
    return found


def backlinks(target: str, notes: dict[str, str], paths: Iterable[str]) -> list[str]:
    """The notes among `notes` ({path: text}) that link to `target`, sorted."""
    known = frozenset(paths) | {target}
    return sorted(
        path
        for path, text in notes.items()
        if path != target and target in links_in(path, text, known)
    )


def search_words(target: str) -> str:
    """What to search for to find the notes that may link to `target`: its name."""
    return posixpath.basename(target).rsplit(".", 1)[0]
