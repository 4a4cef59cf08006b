"""Moving a folder (SPEC §18): every note under it moves, then the links follow all at once.

Folders exist only through their notes, so a folder move is the moves of its notes. Every
destination is checked free first (409 and nothing moved otherwise); the notes then move one
by one (each its own `move` revision and `moved` event), and the links in the workspace are
rewritten once for all the moves together (services.link_updates), so a link between two
notes of the folder is left as written when it still leads where it did.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from backend.errors import BadRequest, Conflict, NotFound
from backend.services import documents
from backend.services.source import Source


def folder_path(raw: str) -> str:
    """A folder as typed (`a/b`, `a/b/`) → `a/b/`; "" is the top. BadPath for a bad one."""
    text = raw.strip("/")
    return documents.valid_path(text) + "/" if text else ""


def move_folder(
    db: Session,
    *,
    workspace_id: str,
    folder: str,
    to: str,
    source: Source,
    now: datetime | None = None,
) -> dict[str, str]:
    """Move every note under `folder` to `to` (both folder paths); answers old path → new
    path of the notes moved (one deleted meanwhile, or whose destination was taken
    meanwhile, is left out and stays where it is)."""
    folder, to = folder_path(folder), folder_path(to)
    if not folder:
        raise BadRequest("Name the folder to move; the top of the workspace cannot move.")
    if to == folder or to.startswith(folder):
        raise BadRequest("A folder cannot move into itself.")
    listed = [d.path for d in documents.list_documents(db, workspace_id=workspace_id)]
    db.rollback()
    targets = {
        p: documents.valid_path(to + p[len(folder) :]) for p in listed if p.startswith(folder)
    }
    if not targets:
        raise NotFound("There is no note in that folder.")
    if set(targets.values()) & set(listed):
        raise Conflict("A note already exists where the folder would go; nothing was moved.")
    moved: dict[str, str] = {}
    for old, new in sorted(targets.items()):
        try:
            doc = documents.move_document(
                db, workspace_id=workspace_id, path=old, to=new, source=source, now=now
            )
        except (NotFound, Conflict):
            continue  # deleted meanwhile, or a note created where it would go: it stays
        moved[old] = doc.path
    return moved
