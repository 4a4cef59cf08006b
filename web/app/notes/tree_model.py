"""The note list as a folder tree, built from the document listing (pure, no browser)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.notes.roving_model import position, step


@dataclass
class Note:
    """A note row: its full path and the name shown for it."""

    path: str
    name: str


@dataclass
class Folder:
    """A folder: its path prefix (empty for the root), name, sub-folders and notes."""

    path: str
    name: str
    folders: list[Folder] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def folder(self, name: str) -> Folder:
        for child in self.folders:
            if child.name == name:
                return child
        child = Folder(path=f"{self.path}{name}/", name=name)
        self.folders.append(child)
        return child


def build_tree(paths: list[str], folders: Iterable[str] = ()) -> Folder:
    """Folders first, then notes, each sorted case-insensitively; `a/b/c.md` nests a → b.

    `folders` ("a/b/") are drawn even with no note in them: a folder made with New folder
    lives in the page until a note is saved or moved into it (the server knows notes only).
    """
    root = Folder(path="", name="")
    for folder in folders:
        node = root
        for part in folder.strip("/").split("/"):
            node = node.folder(part)
    for path in paths:
        *folders, name = path.split("/")
        node = root
        for part in folders:
            node = node.folder(part)
        node.notes.append(Note(path=path, name=name))
    _sort(root)
    return root


def _sort(folder: Folder) -> None:
    folder.folders.sort(key=lambda f: f.name.casefold())
    folder.notes.sort(key=lambda n: n.name.casefold())
    for child in folder.folders:
        _sort(child)


def clean_new_path(raw: str, folder: str = "") -> str:
    """What the user typed for a new or renamed note → a workspace path ending in `.md`.

    Leading/trailing slashes and blanks go; `.md` is added when there is no extension.
    Raises ValueError with a sentence the page can show.
    """
    text = raw.strip().strip("/").strip()
    if not text:
        raise ValueError("Type a name for the note.")
    parts = [part.strip() for part in text.split("/")]
    if any(part in ("", ".", "..") for part in parts) or "\\" in text or "\x00" in text:
        raise ValueError("Use a name like ideas.md or projects/plan.md (no empty, . or .. parts).")
    if "." not in parts[-1]:
        parts[-1] += ".md"
    return folder + "/".join(parts)


def clean_folder(raw: str, parent: str = "") -> str:
    """What the user typed for a new folder → its path ending in "/" (under `parent`).

    Raises ValueError with a sentence the page can show.
    """
    text = raw.strip().strip("/").strip()
    if not text:
        raise ValueError("Type a name for the folder.")
    parts = [part.strip() for part in text.split("/")]
    if any(part in ("", ".", "..") for part in parts) or "\\" in text or "\x00" in text:
        raise ValueError("Use a name like projects or projects/2027 (no empty, . or .. parts).")
    return parent + "/".join(parts) + "/"


def moved_into(path: str, folder: str) -> str:
    """The path a note gets when dropped on `folder` ("" is the top): same name, new folder."""
    return folder + posixpath.basename(path)


def folder_moved_into(folder: str, target: str) -> str | None:
    """Where folder `folder` ("a/b/") goes when dropped in `target` ("" is the top): the same
    name under it; None when that changes nothing or would put it inside itself."""
    new = target + posixpath.basename(folder.rstrip("/")) + "/"
    if new == folder or target.startswith(folder):
        return None
    return new


def drop_folder(kind: str, key: str) -> str:
    """The folder a drop on a row means: the folder itself, or the folder holding the note."""
    if kind == "folder":
        return key
    head = posixpath.dirname(key)
    return head + "/" if head else ""


def copy_path(path: str, attempt: int = 1) -> str:
    """A sibling path for "Save as copy": notes.md → notes (conflict copy).md, then (… 2)."""
    head, slash, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    suffix = " (conflict copy)" if attempt == 1 else f" (conflict copy {attempt})"
    return f"{head}{slash}{stem}{suffix}{'.' + ext if ext else ''}"


def name_span(path: str) -> tuple[int, int]:
    """Where the note's own name sits in `path`: after the folder, before the extension.

    Rename selects this span so typing replaces only the name (`a/plan.md` → (2, 6)).
    """
    start = path.rfind("/") + 1
    dot = path.rfind(".")
    end = dot if dot > start else len(path)
    return start, end


def folder_span(path: str) -> tuple[int, int]:
    """Where the folder part sits in `path` ("Move to…" selects it): (0, 0) at the top."""
    return 0, path.rfind("/") + 1


# -- keyboard navigation (the WAI-ARIA tree pattern) ------------------------------------------


@dataclass(frozen=True)
class Item:
    """A row of the drawn tree: a folder (`key` ends in "/") or a note (`key` is its path)."""

    key: str
    kind: str  # "folder" or "note"
    parent: str  # the key of the folder holding it, "" at the top
    name: str
    expanded: bool = False  # folders only


@dataclass(frozen=True)
class Move:
    """What a key does: the row to focus next (None: stay) and an action on it (or "")."""

    focus: str | None = None
    action: str = ""  # open, open-frame, toggle, expand, collapse, rename, move, delete, actions


def visible_items(root: Folder, collapsed: set[str]) -> list[Item]:
    """The rows a user can reach, top to bottom: folders first, then notes, as drawn."""
    items: list[Item] = []

    def walk(folder: Folder) -> None:
        for child in folder.folders:
            expanded = child.path not in collapsed
            items.append(Item(child.path, "folder", folder.path, child.name, expanded))
            if expanded:
                walk(child)
        for note in folder.notes:
            items.append(Item(note.path, "note", folder.path, note.name))

    walk(root)
    return items


def tree_key(
    items: list[Item], current: str, key: str, *, shift: bool = False, ctrl: bool = False
) -> Move | None:
    """The tree's answer to `key` pressed on the row `current`; None for keys it leaves alone.

    ↓ ↑ Home End move as in any roving list (app.notes.roving_model); → opens a closed folder,
    then enters it; ← closes an open folder, else goes to the folder above; Enter (or Space)
    opens a note (Shift or Ctrl: in a new frame) or folds a folder; F2 renames, Shift+F2
    moves (the rename form with the folder part selected), Delete deletes;
    the context-menu key or Shift+F10 reaches the row's buttons; a letter jumps to the next
    row whose name starts with it.
    """
    if not items:
        return None
    keys = [item.key for item in items]
    target = step(keys, current, key)
    if target is not None:
        return Move(target)
    index = position(keys, current)
    item = items[index]
    if key == "ArrowRight":
        if item.kind != "folder":
            return Move()
        if not item.expanded:
            return Move(item.key, "expand")
        child = next((i for i in items[index + 1 :] if i.parent == item.key), None)
        return Move(child.key if child else item.key)
    if key == "ArrowLeft":
        if item.kind == "folder" and item.expanded:
            return Move(item.key, "collapse")
        return Move(item.parent or item.key)
    if key in ("Enter", " "):
        if item.kind == "folder":
            return Move(item.key, "toggle")
        return Move(item.key, "open-frame" if (shift or ctrl) else "open")
    if item.kind == "note" and key == "F2":
        return Move(item.key, "move" if shift else "rename")
    if item.kind == "note" and key == "Delete":
        return Move(item.key, "delete")
    if item.kind == "note" and (key == "ContextMenu" or (key == "F10" and shift)):
        return Move(item.key, "actions")
    if len(key) == 1 and key.strip() and not ctrl:
        return Move(_type_ahead(items, index, key))
    return None


def _type_ahead(items: list[Item], index: int, letter: str) -> str:
    folded = letter.casefold()
    order = items[index + 1 :] + items[: index + 1]
    found = next((i for i in order if i.name.casefold().startswith(folded)), items[index])
    return found.key
