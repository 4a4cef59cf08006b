"""After a move, the workspace's other notes follow it (SPEC §18): each note whose links the
move changes is saved again with them rewritten (backend.services.link_rewrite).

Each rewritten note is its own revision, action `links`, by the user who moved (never
coalesced with typing), and reaches open editors through its `saved` event (SPEC §13), where
the page merges it with unsaved keystrokes. The notes are read a few at a time (never the
whole workspace's text at once) and each is saved only at the revision that was read: a note
that changes meanwhile is read and rewritten again, and one that keeps changing is left as it
is (the move itself has already happened). Links to the workspace's files (pictures, PDFs)
count too: a moved note's `![](map.png)` is rewritten to keep reaching the file, which stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.errors import Conflict, TooLarge
from backend.models import Document
from backend.services import attachments, documents
from backend.services.link_rewrite import Paths, mentions, rewrite
from backend.services.source import Source

_BATCH = 50
_TRIES = 3


@dataclass(frozen=True)
class _Move:
    """What every note's rewrite needs: the moves both ways, the paths before and after."""

    workspace_id: str
    moves: dict[str, str]
    inverse: dict[str, str]
    before: Paths
    after: Paths
    source: Source
    max_bytes: int
    now: datetime | None


def update_links(
    db: Session,
    *,
    workspace_id: str,
    moves: dict[str, str],
    source: Source,
    max_bytes: int,
    now: datetime | None = None,
) -> list[str]:
    """Rewrite the links that `moves` (old path → new path, already moved) change, in every
    note of the workspace; answers the paths of the notes saved again, sorted."""
    listed = documents.list_documents(db, workspace_id=workspace_id)
    files = [a.path for a in attachments.list_attachments(db, workspace_id=workspace_id)]
    ids = [d.id for d in listed]
    inverse = {new: old for old, new in moves.items()}
    after = Paths((d.path for d in listed), files)
    move = _Move(
        workspace_id=workspace_id,
        moves=moves,
        inverse=inverse,
        before=Paths((inverse.get(p, p) for p in after.known), files),
        after=after,
        source=source.as_action("links"),
        max_bytes=max_bytes,
        now=now,
    )
    db.rollback()
    updated: list[str] = []
    for chunk in range(0, len(ids), _BATCH):
        rows = db.execute(
            select(Document.path, Document.revision, Document.content).where(
                Document.id.in_(ids[chunk : chunk + _BATCH])
            )
        ).all()
        db.rollback()
        for path, revision, text in rows:
            if path not in inverse and not any(
                mentions(text, old) or mentions(text, new) for old, new in moves.items()
            ):
                continue
            if _follow(db, move, path, revision, text):
                updated.append(path)
    return sorted(updated)


def _follow(db: Session, move: _Move, path: str, revision: int, text: str) -> bool:
    """Save the note at `path` (read at `revision` as `text`) with its links rewritten;
    whether it was."""
    for _ in range(_TRIES):
        fresh = rewrite(
            text,
            note_before=move.inverse.get(path, path),
            moves=move.moves,
            paths_before=move.before.known,
            before=move.before,
            after=move.after,
        )
        if fresh == text:
            return False
        try:
            documents.save_document(
                db,
                workspace_id=move.workspace_id,
                path=path,
                content=fresh,
                max_bytes=move.max_bytes,
                source=move.source,
                if_match=revision,
                now=move.now,
            )
            return True
        except TooLarge:
            return False  # the longer links would push it past the limit: left as it was
        except Conflict:
            doc = documents.find_document(db, workspace_id=move.workspace_id, path=path)
            if doc is None:
                db.rollback()
                return False
            revision, text = doc.revision, doc.content
            db.rollback()
    return False
