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

import glob
import gzip
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import brotli
import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from tests.serve_helpers import free_port

TEST_SECRET = "test-secret-not-the-default-0123456789"
PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}
WORLD = (
    ("personal", "Personal", ("alice",)),
    ("team", "Team", ("alice", "bob")),
    ("bob-notes", "Bob's notes", ("bob",)),
)
_db_counter = itertools.count(1)


# --- PostgreSQL ----------------------------------------------------------------------------


def _pg_bindir() -> Path:
    """Where initdb and pg_ctl live; fail (never skip) when PostgreSQL is not installed."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if candidates:
        return Path(candidates[0]).parent
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    pytest.fail(
        "PostgreSQL server binaries (initdb, pg_ctl) were not found. Install Debian's "
        "`postgresql` package (./dev setup does it), or set ANA_TEST_POSTGRES_URL to a "
        "server whose user may CREATE DATABASE.",
        pytrace=False,
    )


class PgServer:
    """A PostgreSQL server the tests may create databases on."""

    def __init__(self, admin_url: str, stop: Callable[[], None] | None = None) -> None:
        self.admin_url = make_url(admin_url)
        self.stop = stop or (lambda: None)

    def _admin(self) -> Any:
        import psycopg

        url = self.admin_url
        params: dict[str, Any] = {
            "dbname": url.database or "postgres",
            "user": url.username,
            "password": url.password,
            "host": url.host or url.query.get("host"),
            "port": url.port or url.query.get("port"),
        }
        return psycopg.connect(
            **{k: v for k, v in params.items() if v is not None}, autocommit=True
        )

    def create_database(self, name: str) -> str:
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0")
        return self.admin_url.set(database=name).render_as_string(hide_password=False)

    def drop_database(self, name: str) -> None:
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _start_cluster() -> PgServer:
    bindir = _pg_bindir()
    root = Path(tempfile.mkdtemp(prefix="ana-pg-"))
    data, log = root / "data", root / "server.log"
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        shutil.chown(root, user="postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def run(*args: str) -> None:
        result = subprocess.run([*as_postgres, *args], check=False, capture_output=True, text=True)
        if result.returncode != 0:
            server_log = log.read_text() if log.exists() else ""
            pytest.fail(
                f"PostgreSQL test cluster: {' '.join(args[:2])} failed:\n"
                f"{result.stdout}\n{result.stderr}\n{server_log}",
                pytrace=False,
            )

    run(
        str(bindir / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
    )
    options = (
        f"-k {root} -p {port} -c listen_addresses='' -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    run(
        str(bindir / "pg_ctl"),
        "-D",
        str(data),
        "-o",
        options,
        "-l",
        str(log),
        "-w",
        "-t",
        "60",
        "start",
    )

    def stop() -> None:
        subprocess.run(
            [*as_postgres, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)

    return PgServer(f"postgresql+psycopg://postgres@/postgres?host={root}&port={port}", stop)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole test session (started lazily, on first use)."""
    external = os.environ.get("ANA_TEST_POSTGRES_URL")
    server = PgServer(external) if external else _start_cluster()
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
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "redis-server was not found. Install Debian's `redis-server` package "
            "(./dev setup does it).",
            pytrace=False,
        )
    port = free_port()
    work = tmp_path_factory.mktemp("redis")
    with (work / "redis.log").open("wb") as log:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(work),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)
    deadline = time.monotonic() + 30
    while True:
        try:
            client.ping()
            break
        except redis.RedisError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"redis-server did not start:\n{(work / 'redis.log').read_text()}")
            time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()


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
    (web / "static" / "pyscript.json").write_text('{"files": {"/py/app.zip": "./*"}}\n')
    (web / "static" / "pyodide-snapshot.mjs").write_text('import "/vendor/pyodide/pyodide.mjs";\n')
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
                db, username=name, password=password, passwords=app.state.passwords
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
