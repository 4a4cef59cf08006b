"""Throwaway databases for tests and benchmarks: a PostgreSQL cluster from Debian's binaries
and a Redis server, each on this machine only, started on demand and removed afterwards."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from support.servers import free_port


class SetupError(RuntimeError):
    """A database the tests need could not be started: what is missing, never a skip."""


def _pg_bindir() -> Path:
    """Where initdb and pg_ctl live; fail (never skip) when PostgreSQL is not installed."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if candidates:
        return Path(candidates[0]).parent
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise SetupError(
        "PostgreSQL server binaries (initdb, pg_ctl) were not found. Install Debian's "
        "`postgresql` package (./dev setup does it), or set ANA_TEST_POSTGRES_URL to a "
        "server whose user may CREATE DATABASE."
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


def start_cluster() -> PgServer:
    """A fresh PostgreSQL cluster from Debian's binaries on a private socket; stop() removes it."""
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
            raise SetupError(
                f"PostgreSQL test cluster: {' '.join(args[:2])} failed:\n"
                f"{result.stdout}\n{result.stderr}\n{server_log}"
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


@contextmanager
def throwaway_redis(work: Path) -> Iterator[str]:
    """A Redis (Debian's redis-server) on a free loopback port, its files in `work`, nothing
    saved to disk; yields its URL and stops it afterwards."""
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        raise SetupError(
            "redis-server was not found. Install Debian's `redis-server` package "
            "(./dev setup does it)."
        )
    port = free_port()
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
                raise SetupError(f"redis-server did not start:\n{(work / 'redis.log').read_text()}")
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
