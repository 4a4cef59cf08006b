"""Engine and session factory: SQLite (WAL, foreign keys, busy timeout) or PostgreSQL."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.types import TypeDecorator

SQLITE_BUSY_TIMEOUT_MS = 10_000


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite stores it naive, in UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; use datetime.now(UTC)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def storable(text: object, *, max_length: int | None = None) -> bool:
    """Whether `text` can be stored and compared on every backend.

    PostgreSQL text cannot hold NUL, and neither driver can encode lone surrogates; such a
    value cannot match any stored row, so lookups treat it as "not found" instead of erroring.
    """
    if not isinstance(text, str) or "\x00" in text:
        return False
    if max_length is not None and len(text) > max_length:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utcnow() -> datetime:
    return datetime.now(UTC)


def build_engine(url: str, **pool: Any) -> Engine:
    """Create the engine for `url`; for SQLite, create the folder and set pragmas per connection.

    `pool`: the connection pool's options (`pool_size`, `max_overflow`, `pool_timeout`);
    SQLAlchemy's defaults (5, 10, 30 s) otherwise.
    """
    parsed = make_url(url)
    kwargs: dict[str, Any] = dict(pool)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            _private_file(Path(database))
        kwargs["connect_args"] = {
            "check_same_thread": False,
            "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
        }
    else:
        kwargs["pool_pre_ping"] = True
    # hide_parameters: a database error message never carries a bound value (a note's text).
    engine = create_engine(url, hide_parameters=True, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _private_file(path: Path) -> None:
    """Create the data folder (0700) and the SQLite file (0600) for this user only.

    SQLite gives its -wal and -shm files the main file's mode. A folder that already exists
    is left as the user made it; a database file is narrowed to 0600 when it is wider.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def build_sessionmaker(engine: Engine, info: dict[str, Any] | None = None) -> sessionmaker[Session]:
    """The app's sessions; `info` is copied into every Session.info (the app's caches)."""
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=False, info=info)


def dialect_insert(db: Session) -> Any:
    """The dialect's INSERT construct, which has ON CONFLICT (both databases we run on)."""
    dialect = db.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql.insert
    if dialect == "sqlite":
        return sqlite.insert
    raise RuntimeError(f"Unsupported database dialect: {dialect}")
