"""The note list as a folder tree, built from the document listing (pure, no browser)."""

from __future__ import annotations

from dataclasses import dataclass, field


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


def build_tree(paths: list[str]) -> Folder:
    """Folders first, then notes, each sorted case-insensitively; `a/b/c.md` nests a → b."""
    root = Folder(path="", name="")
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
