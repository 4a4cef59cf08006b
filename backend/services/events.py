"""The event backlog of live notes (SPEC §13): rows written in the change's own transaction.

`record` inserts a `saved`/`moved`/`deleted` row and notes its id on the session; the app's
hub (backend.events_hub) delivers it only after the transaction commits: on PostgreSQL by a
NOTIFY issued in the same transaction (PostgreSQL delivers it at commit, to every process),
on SQLite by the session's after-commit hook in this process. No note text is ever stored.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.orm import Session

from backend.models import Workspace
from backend.models.history import NoteEvent

CHANNEL = "ana_events"  # the PostgreSQL NOTIFY channel
PENDING_KEY = "ana_event_ids"  # Session.info key: ids recorded in the open transaction
ENDED_KEY = "ana_ended_sessions"  # Session.info key: sign-ins ended in the open transaction
# Session.info key: (kind, value) wake-ups for the hub at commit: "m" a member's access to a
# workspace changed ("{user_id}:{workspace_id}", or "{user_id}:*" for every workspace), "w" a
# workspace was deleted.
ACCESS_KEY = "ana_access_changes"
EVERY_WORKSPACE = "*"
PRUNE_EVERY = 256
BACKLOG = 10_000  # events kept for Last-Event-ID, per workspace


def record(
    db: Session, *, workspace_id: str, kind: str, data: dict[str, Any], now: datetime
) -> int:
    """Insert one event in the open transaction; it is published when that commits.

    Its number in the workspace comes from the workspace row's counter, whose row lock this
    transaction holds until it ends: a concurrent writer of the same workspace waits, so the
    numbers follow commit order (a replay after `Last-Event-ID` can skip nothing). Returns
    the row's internal id."""
    seq = db.execute(
        update(Workspace)
        .where(Workspace.id == workspace_id)
        .values(event_seq=Workspace.event_seq + 1)
        .returning(Workspace.event_seq)
    ).scalar_one()
    event_id = db.execute(
        insert(NoteEvent)
        .values(
            workspace_id=workspace_id,
            seq=seq,
            kind=kind,
            data=json.dumps(data, ensure_ascii=False, separators=(",", ":")),
            created_at=now,
        )
        .returning(NoteEvent.id)
    ).scalar_one()
    db.info.setdefault(PENDING_KEY, []).append(event_id)
    if db.get_bind().dialect.name == "postgresql":
        db.execute(select(func.pg_notify(CHANNEL, f"e{event_id}")))
    if seq % PRUNE_EVERY == 0:  # keep the backlog bounded without a background job
        db.execute(
            delete(NoteEvent).where(
                NoteEvent.workspace_id == workspace_id, NoteEvent.seq <= seq - BACKLOG
            )
        )
    return int(event_id)


def record_many(
    db: Session, *, workspace_id: str, kind: str, items: list[dict[str, Any]], now: datetime
) -> list[int]:
    """`record` for many events of one workspace in three statements (an import's notes,
    SPEC §18): the counter moves once by their number, the rows go in one INSERT, and on
    PostgreSQL one SELECT notifies each id. Same numbering, lock and backlog rule."""
    if not items:
        return []
    last = db.execute(
        update(Workspace)
        .where(Workspace.id == workspace_id)
        .values(event_seq=Workspace.event_seq + len(items))
        .returning(Workspace.event_seq)
    ).scalar_one()
    first = last - len(items) + 1
    rows = [
        {
            "workspace_id": workspace_id,
            "seq": first + n,
            "kind": kind,
            "data": json.dumps(data, ensure_ascii=False, separators=(",", ":")),
            "created_at": now,
        }
        for n, data in enumerate(items)
    ]
    ids = [
        int(i)
        for i in db.scalars(
            insert(NoteEvent).returning(NoteEvent.id, sort_by_parameter_order=True), rows
        )
    ]
    db.info.setdefault(PENDING_KEY, []).extend(ids)
    if db.get_bind().dialect.name == "postgresql":
        db.execute(
            text("SELECT pg_notify(:channel, 'e' || x) FROM unnest(CAST(:ids AS bigint[])) AS x"),
            {"channel": CHANNEL, "ids": ids},
        )
    if (first - 1) // PRUNE_EVERY != last // PRUNE_EVERY:
        db.execute(
            delete(NoteEvent).where(
                NoteEvent.workspace_id == workspace_id, NoteEvent.seq <= last - BACKLOG
            )
        )
    return ids


def session_ended(db: Session, *, user_session_id: str) -> None:
    """A sign-in ends with the open transaction: its event streams close at the commit."""
    db.info.setdefault(ENDED_KEY, []).append(user_session_id)
    if db.get_bind().dialect.name == "postgresql":
        db.execute(select(func.pg_notify(CHANNEL, f"s{user_session_id}")))


def access_changed(db: Session, *, user_id: int, workspace_id: str = EVERY_WORKSPACE) -> None:
    """A member's role in the workspace changed or ended (or, with EVERY_WORKSPACE, the user
    was disabled): at the commit, their event streams of it end (SPEC §17). The page
    reconnects and learns its new role, or that it is no longer a member."""
    _notify(db, "m", f"{user_id}:{workspace_id}")


def workspace_deleted(db: Session, *, workspace_id: str) -> None:
    """At the commit every stream of the workspace gets `event: reset` and ends."""
    _notify(db, "w", workspace_id)


def _notify(db: Session, kind: str, value: str) -> None:
    db.info.setdefault(ACCESS_KEY, []).append((kind, value))
    if db.get_bind().dialect.name == "postgresql":
        db.execute(select(func.pg_notify(CHANNEL, f"{kind}{value}")))


def fetch(db: Session, *, ids: list[int]) -> list[NoteEvent]:
    """The events with these internal ids, in commit order within each workspace."""
    if not ids:
        return []
    return list(db.scalars(select(NoteEvent).where(NoteEvent.id.in_(ids)).order_by(NoteEvent.id)))


def since(db: Session, *, workspace_id: str, after: int, limit: int) -> list[NoteEvent] | None:
    """The workspace's events after number `after`, or None when some of them are no longer
    kept (or `after` is no number this workspace gave)."""
    bounds = db.execute(
        select(func.min(NoteEvent.seq), func.max(NoteEvent.seq)).where(
            NoteEvent.workspace_id == workspace_id
        )
    ).one()
    oldest: int | None = bounds[0]
    newest: int | None = bounds[1]
    if oldest is None or newest is None:
        return [] if after == 0 else None
    if after >= newest:
        return [] if after == newest else None  # an id from the future: another database
    if after < oldest - 1:
        return None
    rows = list(
        db.scalars(
            select(NoteEvent)
            .where(NoteEvent.workspace_id == workspace_id, NoteEvent.seq > after)
            .order_by(NoteEvent.seq)
            .limit(limit + 1)
        )
    )
    return None if len(rows) > limit else rows
