"""Shared fixtures: a fresh app and database per test, on SQLite and on a throwaway PostgreSQL.

Reuse these in integration tests:

- `db_url`: a fresh, empty database URL; parametrized over "sqlite" and "postgresql", so any
  test that uses it (directly or through `app_factory`/`app`/`*_client`) runs on both.
- `app_factory(**overrides)`: build a fresh app via `create_app(Settings(...))` on `db_url`.
- `app`: an app with the standard world (see `seed_world`): users alice and bob, workspaces
  `personal` (alice), `team` (alice, bob) and `bob-notes` (bob), no notes.
- `client`, `alice_client`, `bob_client`: TestClients on that same app, signed out / in.
- `db_session`: a SQLAlchemy Session on the app's database (`open_db(app)` for others).
- `pg_url`: like `db_url` but PostgreSQL only (for the multi-instance tests).

PostgreSQL: one cluster per test session (initdb + pg_ctl into a temp dir, unix socket only),
one database per test. `ANA_TEST_POSTGRES_URL` points the tests at an existing server instead
(its user must be allowed to CREATE DATABASE). Missing binaries fail loudly; nothing skips.

Redis (`redis_url`, emptied per test): one `redis-server` per session on a free loopback port,
started on first use, for the limits shared across processes.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import brotli
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from support.databases import PgServer, start_cluster, throwaway_redis

TEST_SECRET = "test-secret-not-the-default-0123456789"
PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}
WORLD = (
    ("personal", "Personal", ("alice",)),
    ("team", "Team", ("alice", "bob")),
    ("bob-notes", "Bob's notes", ("bob",)),
)
# The API operations that need no sign-in ("METHOD /path" as the OpenAPI names them): signing
# in and its providers (docs/oidc.md), first-run setup before any account exists and reading
# an invitation link (SPEC §17).
PUBLIC_ROUTES = frozenset(
    {
        "POST /api/session",
        "GET /api/health",
        "GET /api/session/providers",
        "GET /api/setup",
        "POST /api/setup",
        "GET /api/invitations/{secret}",  # an invitation link is read before signing in
    }
)
_db_counter = itertools.count(1)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole test session (started lazily, on first use)."""
    external = os.environ.get("ANA_TEST_POSTGRES_URL")
    server = PgServer(external) if external else start_cluster()
    try:
        yield server
    finally:
        server.stop()


def _fresh_pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    server: PgServer = request.getfixturevalue("pg_server")
    name = f"test_{os.getpid()}_{next(_db_counter)}"
    url = server.create_database(name)
    try:
        yield url
    finally:
        server.drop_database(name)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway Redis (Debian's redis-server) on a free loopback port, for the session,
    started on first use; nothing is saved to disk."""
    with throwaway_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The session's Redis, emptied for this test."""
    import redis

    with redis.Redis.from_url(redis_server) as client:
        client.flushall()
    return redis_server


# --- databases and apps --------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file in tmp_path, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{(tmp_path / 'ambient.db').as_posix()}"
    else:
        yield from _fresh_pg_url(request)


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh PostgreSQL database (for tests that only make sense there)."""
    yield from _fresh_pg_url(request)


@pytest.fixture(scope="session")
def fake_web_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The smallest web/ that backend.delivery.web.mount_web accepts: API tests need no build."""
    web = tmp_path_factory.mktemp("web")
    (web / "vendor" / "pyodide").mkdir(parents=True)
    (web / "vendor" / "pyodide" / "pyodide.mjs").write_text("// test stub\n")
    # A snapshot built from no inputs: backend.snapshot accepts it, so it is never stale here.
    (web / "vendor" / "snapshot").mkdir()
    (web / "vendor" / "snapshot" / "stub.snapshot").write_bytes(b"stub")
    manifest = {
        "file": "stub.snapshot",
        "sha256": hashlib.sha256(b"stub").hexdigest(),
        "inputs": {"runtime": {}, "python": {}},
        "mask": {"bytes": 4, "unmasked_sha256": hashlib.sha256(b"stub").hexdigest()},
    }
    (web / "vendor" / "snapshot" / "manifest.json").write_text(json.dumps(manifest))
    # Their compressed copies and table, as web/compress.mjs leaves them (delivery/assets.py).
    files = {}
    for name in ("pyodide/pyodide.mjs", "snapshot/stub.snapshot"):
        data = (web / "vendor" / name).read_bytes()
        bodies = {"br": brotli.compress(data), "gzip": gzip.compress(data)}
        for encoding, suffix in (("br", ".br"), ("gzip", ".gz")):
            (web / "vendor" / (name + suffix)).write_bytes(bodies[encoding])
        files[name] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "br": len(bodies["br"]),
            "gzip": len(bodies["gzip"]),
        }
    (web / "vendor" / "files.json").write_text(
        json.dumps(
            {
                "encodings": {"br": ".br", "gzip": ".gz"},
                "not_served": ["snapshot/manifest.json", "files.json", ".stamp"],
                "files": files,
            }
        )
    )
    (web / "static").mkdir()
    config = '{"interpreter": "/static/pyodide-snapshot.mjs"}\n'
    (web / "static" / "pyscript.json").write_text(config)
    (web / "static" / "pyodide-snapshot.mjs").write_text(
        'import "/vendor/pyodide/pyodide.mjs";\nconst BUNDLE = "/py/app.zip";\n'
    )
    (web / "index.html").write_text("<!doctype html><title>test</title>\n")
    (web / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    return web


def cheap_passwords() -> Any:
    """Argon2 with minimal cost: same code path, milliseconds instead of 150 ms per hash."""
    from backend.services.users import Passwords

    return Passwords(PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


def open_db(app: FastAPI) -> Session:
    """A new SQLAlchemy Session on `app`'s database (close it, or use it in a `with`)."""
    return app.state.sessionmaker()


@pytest.fixture
def app_factory(
    db_url: str, tmp_path: Path, fake_web_dir: Path
) -> Iterator[Callable[..., FastAPI]]:
    """`app_factory(**settings_overrides)` → a fresh app via create_app(Settings(...)).

    Defaults: the test's `db_url`, data_dir=tmp_path, a non-default secret, the stub web dir,
    TestClient's host allowed and a cheap password hasher. Every app's engine is disposed
    when the test ends.
    """
    from backend.app import create_app
    from backend.config import Settings

    apps: list[FastAPI] = []

    def make(**overrides: Any) -> FastAPI:
        values: dict[str, Any] = {
            "database_url": db_url,
            "data_dir": tmp_path / "data",
            "secret_key": TEST_SECRET,
            "web_dir": fake_web_dir,
            # TestClient's requests say "Host: testserver"; real servers need no such entry.
            "allowed_hosts": "testserver",
        }
        values.update(overrides)
        app = create_app(Settings(**values))
        app.state.passwords = cheap_passwords()
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.state.engine.dispose()


def seed_world(app: FastAPI) -> dict[str, int]:
    """Users alice and bob (passwords in PASSWORDS) and the three workspaces; returns user ids."""
    from backend.services import users, workspaces

    ids: dict[str, int] = {}
    with open_db(app) as db:
        for name, password in PASSWORDS.items():
            user = users.create_user(
                db,
                username=name,
                password=password,
                passwords=app.state.passwords,
                admin=name == "alice",
            )
            ids[name] = user.id
        for ws_id, ws_name, members in WORLD:
            workspaces.create_workspace(
                db, workspace_id=ws_id, name=ws_name, member_ids=[ids[m] for m in members]
            )
    app.state.test_user_ids = ids
    return ids


@pytest.fixture
def app(app_factory: Callable[..., FastAPI]) -> FastAPI:
    """A fresh app with the standard world (alice, bob, personal/team/bob-notes), no notes."""
    application = app_factory()
    seed_world(application)
    return application


def sign_in(client: TestClient, username: str, password: str | None = None) -> TestClient:
    """Sign `client` in (asserting success) and return it."""
    response = client.post(
        "/api/session", json={"username": username, "password": password or PASSWORDS[username]}
    )
    assert response.status_code == 200, response.text
    return client


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    """A signed-out TestClient on `app`."""
    return TestClient(app)


@pytest.fixture
def alice_client(app: FastAPI) -> TestClient:
    """A TestClient on `app` signed in as alice (member of personal and team)."""
    return sign_in(TestClient(app), "alice")


@pytest.fixture
def bob_client(app: FastAPI) -> TestClient:
    """A TestClient on `app` signed in as bob (member of team and bob-notes)."""
    return sign_in(TestClient(app), "bob")


@pytest.fixture
def db_session(app: FastAPI) -> Iterator[Session]:
    """A SQLAlchemy Session on `app`'s database."""
    with open_db(app) as db:
        yield db


@pytest.fixture
def audit() -> Iterator[list[logging.LogRecord]]:
    """The audit records written during the test (logger "ambient.audit")."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("ambient.audit")
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)
