"""Real servers for the benchmarks: serve.py (support.servers.Server) on SQLite or PostgreSQL.

PostgreSQL comes from the throwaway cluster the tests use too (support/databases.py).
A `Client` signs in once and sets up notes, key sessions and pointers.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx

from ambient.contract import KEY_SESSION_HEADER
from ambient.pointer import HEADER_NAME, Pointer, Selection, encode, now_iso
from support.servers import Server

WORKSPACE = "personal"
USER = ("alice", "alice")


@contextlib.contextmanager
def app_server(database_url: str | None = None) -> Iterator[Server]:
    """A demo serve.py on a free port (SQLite in a temp dir, or `database_url`)."""
    tmp = Path(tempfile.mkdtemp(prefix="ana-bench-"))
    previous = os.environ.get("ANA_DATABASE_URL")
    if database_url:
        os.environ["ANA_DATABASE_URL"] = database_url  # Server.start passes the environment on
    os.environ.setdefault("ANA_LOG_LEVEL", "WARNING")  # one JSON line per turn would be noise
    try:
        server = Server(tmp / "data").start()
    finally:
        if database_url:
            if previous is None:
                os.environ.pop("ANA_DATABASE_URL", None)
            else:
                os.environ["ANA_DATABASE_URL"] = previous
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def postgres_url() -> Iterator[str]:
    """A fresh database on a throwaway PostgreSQL cluster (the test setup's helper)."""
    from support.databases import start_cluster

    cluster = start_cluster()
    try:
        yield cluster.create_database(f"bench_{os.getpid()}")
    finally:
        cluster.stop()


def rss_kib(pid: int) -> int:
    """Resident set size of a process, in KiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def note_text(size: int, seed: str = "") -> str:
    """Markdown of exactly `size` UTF-8 bytes (ASCII, so also `size` characters)."""
    line = f"- [ ] item {seed} lorem ipsum dolor sit amet, consectetur adipiscing elit\n"
    head = f"# Bench note {seed} {size}\n\n"
    body = head + line * (size // len(line) + 1)
    return body[:size]


def pointer_header(path: str, text: str, *, frame_id: str = "bench-frame") -> str:
    """A valid X-Ambient-Note value for `text` shown in edit view (what the page would send)."""
    data = text.encode("utf-8")
    value = encode(
        Pointer(
            path=path,
            view="edit",
            frame_id=frame_id,
            bytes=len(data),
            sha256=hashlib.sha256(data).hexdigest()[:16],
            flushed=True,
            captured_at=now_iso(),
            selection=Selection(0, 0),
        )
    )
    assert value is not None
    return value


class Client:
    """A signed-in synchronous client for setup steps (not for timing the load)."""

    def __init__(self, base_url: str, user: tuple[str, str] = USER) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=60)
        r = self.http.post("/api/session", json={"username": user[0], "password": user[1]})
        r.raise_for_status()

    @property
    def cookies(self) -> httpx.Cookies:
        return self.http.cookies

    def key_session(self, ws: str = WORKSPACE) -> str:
        r = self.http.post(f"/api/workspaces/{ws}/key-sessions")
        r.raise_for_status()
        return r.json()["id"]

    def put_note(self, path: str, text: str, ws: str = WORKSPACE) -> None:
        r = self.http.put(
            f"/api/workspaces/{ws}/documents/{path}",
            content=text.encode("utf-8"),
            headers={"Content-Type": "text/markdown; charset=utf-8"},
        )
        r.raise_for_status()

    def turn(
        self,
        conversation: str,
        message: str,
        *,
        key: str | None,
        header: str | None,
        ws: str = WORKSPACE,
    ) -> dict:
        headers = {}
        if key:
            headers[KEY_SESSION_HEADER] = key
        if header:
            headers[HEADER_NAME] = header
        r = self.http.post(
            "/api/assistant/turns",
            headers=headers,
            json={"conversationId": conversation, "workspaceId": ws, "message": message},
        )
        r.raise_for_status()
        return r.json()

    def tool(self, conversation: str, name: str, arguments: dict) -> dict:
        r = self.http.post(
            f"/api/assistant/conversations/{conversation}/tools/{name}", json=arguments
        )
        r.raise_for_status()
        return r.json()

    def close(self) -> None:
        self.http.close()


def new_conversation() -> str:
    return str(uuid.uuid4())
