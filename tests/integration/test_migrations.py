"""The Alembic migrations are the schema; the ORM models must mirror them exactly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from backend.db import build_engine
from backend.migrations import alembic_config, upgrade_to_head
from backend.models import (
    AgentDeliveryCredential,
    Base,
    Conversation,
    KeySession,
    User,
    Workspace,
)

TABLES = {
    "users",
    "user_sessions",
    "workspaces",
    "workspace_members",
    "documents",
    "key_sessions",
    "conversations",
    "messages",
    "agent_delivery_credentials",
    "edit_proposals",
    "personal_access_tokens",
    "active_note_sharing",
    "active_note_publications",
    "note_revisions",
    "note_events",
    "invitations",
    "instance_settings",
    "user_identities",
    "oauth_clients",  # OAuth 2.1 for /mcp (0011_oauth)
    "oauth_grants",
    "oauth_codes",
    "oauth_access_tokens",
    "oauth_refresh_tokens",
    "attachments",  # pictures and PDFs in notes (0011_attachments)
    "attachment_blobs",
    "user_preferences",  # theme, font size, sidebar (0012_preferences)
}


# Search's index (migration 0005) is no ORM model, so the comparison leaves out exactly that:
# on SQLite the FTS5 table and its shadow tables (PRAGMA table_list types "virtual" and
# "shadow"), on PostgreSQL the trigram GIN index on documents.content.
SEARCH_INDEX_PG = "ix_documents_content_trgm"


def _search_objects(conn) -> set[str]:
    if conn.dialect.name != "sqlite":
        return {SEARCH_INDEX_PG}
    rows = conn.execute(text("PRAGMA table_list")).all()
    return {row.name for row in rows if row.type in ("virtual", "shadow")}


def test_migrations_match_models(db_url):
    engine = build_engine(db_url)
    try:
        upgrade_to_head(engine)
        with engine.connect() as conn:
            skipped = _search_objects(conn)
            assert skipped, "migration 0005 should have made the search index"

            def include(obj, name, type_, reflected, compare_to):
                return not (reflected and compare_to is None and name in skipped)

            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "include_object": include}
            )
            assert compare_metadata(context, Base.metadata) == []
            assert TABLES <= set(inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_models_alone_differ_from_an_empty_database(db_url):
    """The comparison above can fail: against an empty database it reports every table."""
    engine = build_engine(db_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, Base.metadata)
            added = {d[1].name for d in diff if d[0] == "add_table"}
            assert added == TABLES
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_records_head(db_url):
    engine = build_engine(db_url)
    try:
        upgrade_to_head(engine)
        upgrade_to_head(engine)  # a second start does nothing
        with engine.connect() as conn:
            head = ScriptDirectory.from_config(alembic_config()).get_current_head()
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head
    finally:
        engine.dispose()


def test_delivery_columns_are_nullable(db_url):
    engine = build_engine(db_url)
    try:
        upgrade_to_head(engine)
        columns = {c["name"]: c for c in inspect(engine).get_columns("agent_delivery_credentials")}
        for name in ("ambient_path", "ambient_view", "ambient_meta", "key_session_id"):
            assert columns[name]["nullable"] is True, name
        for name in ("conversation_id", "user_id", "workspace_id", "expires_at"):
            assert columns[name]["nullable"] is False, name
    finally:
        engine.dispose()


def test_datetimes_round_trip_as_aware_utc(app, db_session):
    user = db_session.query(User).filter_by(username="alice").one()
    tokyo = datetime(2030, 1, 2, 9, 0, tzinfo=UTC) + timedelta(hours=0)
    db_session.add(
        KeySession(
            id="k1",
            user_id=user.id,
            workspace_id="personal",
            created_at=tokyo,
            expires_at=tokyo + timedelta(minutes=5),
        )
    )
    db_session.commit()
    db_session.expire_all()
    key = db_session.get(KeySession, "k1")
    assert key.expires_at == datetime(2030, 1, 2, 9, 5, tzinfo=UTC)
    assert key.expires_at.utcoffset() == timedelta(0)


def test_foreign_keys_are_enforced_and_cascade(app, db_session):
    """ON DELETE CASCADE / SET NULL work on both databases (SQLite needs foreign_keys=ON)."""
    alice = db_session.query(User).filter_by(username="alice").one()
    now = datetime.now(UTC)
    db_session.add(Conversation(id="c" * 36, user_id=alice.id, workspace_id="personal"))
    db_session.add(KeySession(id="key", user_id=alice.id, workspace_id="personal", expires_at=now))
    db_session.flush()
    db_session.add(
        AgentDeliveryCredential(
            conversation_id="c" * 36,
            user_id=alice.id,
            workspace_id="personal",
            key_session_id="key",
            expires_at=now,
        )
    )
    db_session.commit()
    db_session.delete(db_session.get(KeySession, "key"))
    db_session.commit()
    db_session.expire_all()
    row = db_session.query(AgentDeliveryCredential).one()
    assert row.key_session_id is None
    db_session.delete(db_session.get(Conversation, "c" * 36))
    db_session.commit()
    assert db_session.query(AgentDeliveryCredential).count() == 0
    assert db_session.get(Workspace, "personal") is not None
