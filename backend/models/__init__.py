"""SQLAlchemy 2.0 typed models: the schema mirror of the Alembic migrations (tested to agree)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from backend.db import UTCDateTime, utcnow


def path_key(path: str) -> str:
    """The value stored in `Document.path_sha256` for `path`."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def new_uid() -> str:
    """A note's identity (`Document.uid`): random, so never reused after a delete."""
    return uuid.uuid4().hex


NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime()}


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # SPEC §17: an administrator manages accounts; a disabled account cannot sign in.
    admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class UserSession(Base):
    """A sign-in. `id` is the SHA-256 hex of the cookie token; the token itself is never stored."""

    __tablename__ = "user_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    # For the account's list of sign-ins (SPEC §17); last_seen_at moves at most once a minute.
    last_seen_at: Mapped[datetime | None]
    user_agent: Mapped[str | None] = mapped_column(String(200))


class Workspace(Base):
    """`id` is the slug (`personal`, `team`, ...) and the turn's `workspaceId`."""

    __tablename__ = "workspaces"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    # The workspace's last event number (note_events.seq): its row lock orders the events.
    event_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Membership(Base):
    __tablename__ = "workspace_members"

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    role: Mapped[str] = mapped_column(String(16), default="editor", server_default="owner")


class Document(Base):
    """A note. `revision` starts at 1 and grows by one per write; `bytes` is its UTF-8 length.

    Uniqueness is on `path_sha256` (SHA-256 hex of the path, see `path_key`) rather than on
    `path` itself: PostgreSQL cannot index a text value over ~2,700 bytes, and a valid path
    may be 4,096.
    """

    __tablename__ = "documents"
    __table_args__ = (
        UniqueConstraint("workspace_id", "path_sha256", name="uq_documents_workspace_path"),
        Index("ix_documents_uid", "uid", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text)
    path_sha256: Mapped[str] = mapped_column(String(64))
    content: Mapped[str] = mapped_column(Text)
    bytes: Mapped[int] = mapped_column(Integer)
    revision: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Identity and authorship of the current revision (migration 0006, SPEC §14/§15): `uid`
    # is never reused, so a note deleted and recreated, or moved onto a path, is another note.
    uid: Mapped[str] = mapped_column(String(32), nullable=True, default=new_uid)
    saved_by: Mapped[int | None] = mapped_column(Integer)
    source_kind: Mapped[str] = mapped_column(String(16), default="page")
    source_name: Mapped[str | None] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(16), default="edit")
    # When the run of page saves that the current revision coalesces began (SPEC §15).
    run_started_at: Mapped[datetime | None]


class KeySession(Base):
    """Lets the agent read a workspace on the user's behalf until `expires_at`.

    `user_session_id` is the sign-in it was opened under (a `UserSession.id`); signing out
    deletes the key sessions that carry it (migration 0002 explains why it is no foreign key).
    """

    __tablename__ = "key_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    user_session_id: Mapped[str | None] = mapped_column(String(64), index=True)


class Conversation(Base):
    """An assistant conversation; `id` is the client-made UUID."""

    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Message(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    tool_calls: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AgentDeliveryCredential(Base):
    """Short-lived turn authorisation for one conversation (SPEC §4); pointer metadata, no text."""

    __tablename__ = "agent_delivery_credentials"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), unique=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    key_session_id: Mapped[str | None] = mapped_column(
        ForeignKey("key_sessions.id", ondelete="SET NULL")
    )
    expires_at: Mapped[datetime]
    ambient_path: Mapped[str | None] = mapped_column(Text)
    ambient_view: Mapped[str | None] = mapped_column(String(16))
    ambient_meta: Mapped[str | None] = mapped_column(Text)


# Tables of later features live in their own modules; importing them here registers them on
# `Base.metadata`, which the migration test compares against the migrations.
from backend.models import (  # noqa: F401
    attachments,
    history,
    identities,
    oauth,
    outside_agents,
    people,
    preferences,
    proposals,
)
