"""The attachments service (SPEC §18) and its migration, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import func, inspect, select

from backend.db import build_engine
from backend.errors import BadPath, Conflict, NotFound, TooLarge, UnsupportedType
from backend.migrations import alembic_config, upgrade_to_head
from backend.models.attachments import AttachmentBlob
from backend.services import attachments as att

PNG = b"\x89PNG\r\n\x1a\n" + b"one picture"
OTHER = b"\x89PNG\r\n\x1a\n" + b"another picture"
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def put(db, path, data=PNG, ws="personal", **kw):
    info = att.put_attachment(db, workspace_id=ws, path=path, data=data, user_id=None, **kw)
    db.commit()
    return info


def blobs(db, ws="personal"):
    return db.scalar(
        select(func.count()).select_from(AttachmentBlob).where(AttachmentBlob.workspace_id == ws)
    )


def test_constants_and_types():
    assert att.MAX_ATTACHMENT_BYTES == 20 * 1024 * 1024
    assert set(att.ATTACHMENT_TYPES) == {"png", "jpg", "jpeg", "gif", "webp", "svg", "pdf"}
    assert att.content_type_for("a/b.PNG") == "image/png"
    assert att.content_type_for("x.jpeg") == "image/jpeg"
    assert att.content_type_for("x.svg") == "image/svg+xml"
    assert att.content_type_for("doc.pdf") == "application/pdf"
    assert att.content_type_for("x.md") is None
    assert att.content_type_for("png") is None
    assert att.content_type_for("a.png/readme") is None


def test_put_read_list_and_dedupe(db_session):
    info = put(db_session, "attachments/cat.png")
    assert info.public() == {
        "path": "attachments/cat.png",
        "bytes": len(PNG),
        "sha256": __import__("hashlib").sha256(PNG).hexdigest(),
        "contentType": "image/png",
    }
    # The same bytes at the same path: unchanged, nothing new.
    assert put(db_session, "attachments/cat.png") == info
    # The same bytes at another path: a second name, one stored copy.
    put(db_session, "elsewhere/cat-copy.png")
    assert blobs(db_session) == 1
    got, data = att.read_attachment(db_session, workspace_id="personal", path="attachments/cat.png")
    assert got == info and data == PNG
    paths = [a.path for a in att.list_attachments(db_session, workspace_id="personal")]
    assert paths == ["attachments/cat.png", "elsewhere/cat-copy.png"]
    inside = att.list_attachments(db_session, workspace_id="personal", folder="elsewhere")
    assert [a.path for a in inside] == ["elsewhere/cat-copy.png"]
    # Another workspace sees none of them, and keeps its own copy.
    assert att.list_attachments(db_session, workspace_id="team") == []
    assert att.find_attachment(db_session, workspace_id="team", path="attachments/cat.png") is None
    put(db_session, "attachments/cat.png", ws="team")
    assert blobs(db_session, "team") == 1


def test_a_different_file_at_the_path(db_session):
    put(db_session, "pics/image.png")
    renamed = put(db_session, "pics/image.png", OTHER)
    assert renamed.path == "pics/image-1.png"
    assert put(db_session, "pics/image.png", b"third" * 3).path == "pics/image-2.png"
    assert put(db_session, "pics/image.png", OTHER).path == "pics/image-1.png"  # same bytes
    with pytest.raises(Conflict):
        att.put_attachment(
            db_session,
            workspace_id="personal",
            path="pics/image.png",
            data=OTHER,
            user_id=None,
            on_taken="error",
        )
    db_session.rollback()
    replaced = put(db_session, "pics/image.png", b"new bytes", on_taken="replace")
    assert replaced.path == "pics/image.png" and replaced.bytes == len(b"new bytes")
    _, data = att.read_attachment(db_session, workspace_id="personal", path="pics/image.png")
    assert data == b"new bytes"
    # PNG's bytes went with the replace (no other path held them); OTHER is still at -1.
    assert blobs(db_session) == 3


def test_a_note_at_the_path_is_never_overwritten(db_session):
    note(db_session, "odd.png", "a note named like a picture\n")
    assert put(db_session, "odd.png").path == "odd-1.png"
    with pytest.raises(Conflict):
        att.put_attachment(
            db_session,
            workspace_id="personal",
            path="odd.png",
            data=OTHER,
            user_id=None,
            on_taken="replace",
        )
    db_session.rollback()


def test_refusals(db_session):
    with pytest.raises(UnsupportedType):
        put(db_session, "notes.md", b"# hi")
    with pytest.raises(UnsupportedType):
        put(db_session, "page.html", b"<script>")
    with pytest.raises(BadPath):
        put(db_session, "../up.png")
    with pytest.raises(BadPath):
        put(db_session, "/abs.png")
    with pytest.raises(TooLarge):
        put(db_session, "big.png", b"x" * (att.MAX_ATTACHMENT_BYTES + 1))
    db_session.rollback()
    assert att.list_attachments(db_session, workspace_id="personal") == []
    assert blobs(db_session) == 0


def test_nothing_is_kept_until_the_caller_commits(db_session):
    att.put_attachment(db_session, workspace_id="personal", path="a.png", data=PNG, user_id=None)
    db_session.rollback()
    assert att.find_attachment(db_session, workspace_id="personal", path="a.png") is None
    assert blobs(db_session) == 0


def test_delete_keeps_bytes_another_path_holds(db_session):
    put(db_session, "a.png")
    put(db_session, "b.png")
    att.delete_attachment(db_session, workspace_id="personal", path="a.png")
    db_session.commit()
    assert blobs(db_session) == 1
    assert att.read_attachment(db_session, workspace_id="personal", path="b.png")[1] == PNG
    att.delete_attachment(db_session, workspace_id="personal", path="b.png")
    db_session.commit()
    assert blobs(db_session) == 0
    with pytest.raises(NotFound):
        att.delete_attachment(db_session, workspace_id="personal", path="b.png")
    with pytest.raises(NotFound):
        att.read_attachment(db_session, workspace_id="personal", path="b.png")


def note(db, path, text, ws="personal"):
    from backend.models import Document, path_key

    row = db.scalar(select(Document).where(Document.workspace_id == ws, Document.path == path))
    if row is None:
        db.add(
            Document(
                workspace_id=ws,
                path=path,
                path_sha256=path_key(path),
                content=text,
                bytes=len(text.encode()),
                revision=1,
            )
        )
    else:
        row.content = text
    db.commit()


def paths(db, ws="personal"):
    return [a.path for a in att.list_attachments(db, workspace_id=ws)]


def test_unreferenced_attachments_go_after_30_days(db_session):
    put(db_session, "attachments/used.png")
    put(db_session, "attachments/my photo.png", OTHER)
    put(db_session, "attachments/embedded.png", b"embedded")
    put(db_session, "attachments/orphan.png", b"orphan")
    note(
        db_session,
        "trip.md",
        "![used](attachments/used.png)\n![p](attachments/my%20photo.png)\n![[embedded.png]]\n",
    )
    assert att.purge_unreferenced(db_session, now=T0) == 0
    # 29 days later the orphan is still kept.
    assert att.purge_unreferenced(db_session, now=T0 + timedelta(days=29)) == 0
    assert "attachments/orphan.png" in paths(db_session)
    # A note dropping a reference starts that file's 30 days only now.
    note(db_session, "trip.md", "![used](attachments/used.png)\n![[embedded.png]]\n")
    att.purge_unreferenced(db_session, now=T0 + timedelta(days=29))
    assert att.purge_unreferenced(db_session, now=T0 + timedelta(days=30)) == 1
    assert paths(db_session) == [
        "attachments/embedded.png",
        "attachments/my photo.png",
        "attachments/used.png",
    ]
    assert blobs(db_session) == 3
    # Referred to again in time: the mark is cleared and the file stays.
    note(db_session, "again.md", "[photo](attachments/my%20photo.png)\n")
    att.purge_unreferenced(db_session, now=T0 + timedelta(days=58))
    assert att.purge_unreferenced(db_session, now=T0 + timedelta(days=100)) == 0
    assert len(paths(db_session)) == 3
    # Another workspace's note refers to nothing here.
    note(db_session, "x.md", "attachments/orphan2.png", ws="team")
    put(db_session, "orphan2.png", b"o2")
    att.purge_unreferenced(db_session, now=T0 + timedelta(days=100))
    att.purge_unreferenced(db_session, now=T0 + timedelta(days=131))
    assert "orphan2.png" not in paths(db_session)


def test_migration_upgrades_and_downgrades(db_url):
    engine = build_engine(db_url)
    try:
        upgrade_to_head(engine)
        tables = set(inspect(engine).get_table_names())
        assert {"attachments", "attachment_blobs"} <= tables
        command.downgrade(alembic_config(engine), "0011_oauth")
        tables = set(inspect(engine).get_table_names())
        assert not {"attachments", "attachment_blobs"} & tables
        assert {"documents", "oauth_clients"} <= tables
        upgrade_to_head(engine)
        columns = {c["name"]: c for c in inspect(engine).get_columns("attachment_blobs")}
        kind = type(columns["data"]["type"]).__name__.upper()
        assert kind in ({"BLOB"} if engine.dialect.name == "sqlite" else {"BYTEA"}), kind
    finally:
        engine.dispose()
