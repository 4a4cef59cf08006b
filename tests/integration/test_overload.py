"""More requests than database connections and worker threads: every one is answered.

A workspace route checks the sign-in in a worker thread, then runs in another. The check's
read once kept its pooled connection open across that wait, so with every worker waiting for
a connection and every connection waiting for a worker, requests hung for the pool's whole
timeout and failed with a 500 (a 200-user benchmark on one process: 4 saves in 2 minutes).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import anyio.to_thread
from conftest import sign_in
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backend.db import build_engine
from backend.errors import BUSY

SAVES = 8


def _narrow(app: FastAPI, db_url: str, *, timeout: float) -> None:
    """One pooled connection (waited for `timeout` s) for the app's requests."""
    narrow = build_engine(db_url, pool_size=1, max_overflow=0, pool_timeout=timeout)
    app.state.sessionmaker.configure(bind=narrow)


def _one_worker(client: TestClient) -> None:
    def limit() -> None:
        anyio.to_thread.current_default_thread_limiter().total_tokens = 1

    assert client.portal is not None
    client.portal.call(limit)


def test_saves_beyond_the_pool_and_the_workers_all_succeed(app: FastAPI, db_url: str) -> None:
    _narrow(app, db_url, timeout=10)
    with TestClient(app) as client:
        sign_in(client, "alice")
        _one_worker(client)

        def save(n: int) -> int:
            r = client.put(
                f"/api/workspaces/personal/documents/load/{n}.md",
                content=f"# note {n}\n",
                headers={"Content-Type": "text/markdown"},
            )
            return r.status_code

        with ThreadPoolExecutor(SAVES) as pool:
            statuses = list(pool.map(save, range(SAVES)))
        assert statuses == [201] * SAVES, statuses
        listed = client.get("/api/workspaces/personal/documents").json()
        assert {d["path"] for d in listed} >= {f"load/{n}.md" for n in range(SAVES)}


def test_a_connection_that_never_comes_is_a_503_with_retry_after(app: FastAPI, db_url: str) -> None:
    _narrow(app, db_url, timeout=0.5)
    with TestClient(app) as client:
        sign_in(client, "alice")
        held = app.state.sessionmaker()
        held.connection()  # the pool's one connection, taken and kept
        try:
            r = client.get("/api/workspaces/personal/documents")
        finally:
            held.close()
        assert r.status_code == 503
        assert r.json() == {"detail": BUSY}
        assert r.headers["retry-after"] == "2"
        assert client.get("/api/workspaces/personal/documents").status_code == 200
