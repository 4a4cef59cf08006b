"""Concurrent saves: a stale revision never wins and no save is lost (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from collections import Counter

from fastapi.testclient import TestClient

from backend.api.deps import SESSION_COOKIE
from backend.errors import Conflict
from backend.services import documents
from backend.services.source import Source

URL = "/api/workspaces/team/documents/shared.md"


def _run_together(n: int, work) -> list:
    """Run work(i) in n threads released at the same moment; return the results in order."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def _clients(app, signed_in: TestClient, n: int) -> list[TestClient]:
    token = signed_in.cookies[SESSION_COOKIE]
    return [TestClient(app, cookies={SESSION_COOKIE: token}) for _ in range(n)]


def test_concurrent_if_match_saves_exactly_one_wins(app, alice_client):
    alice_client.put(URL, content="base")
    n = 6
    clients = _clients(app, alice_client, n)
    results = _run_together(
        n, lambda i: clients[i].put(URL, content=f"edit {i}", headers={"If-Match": '"1"'})
    )
    statuses = Counter(r.status_code for r in results)
    assert statuses == {200: 1, 409: n - 1}, [r.text for r in results]
    winner = next(i for i, r in enumerate(results) if r.status_code == 200)
    got = alice_client.get(URL)
    assert got.text == f"edit {winner}"
    assert got.headers["etag"] == '"2"'


def test_concurrent_unconditional_saves_are_all_counted(app, alice_client, bob_client):
    alice_client.put(URL, content="base")
    n = 6
    clients = _clients(app, alice_client, 3) + _clients(app, bob_client, 3)
    results = _run_together(n, lambda i: clients[i].put(URL, content=f"edit {i}"))
    assert [r.status_code for r in results] == [200] * n, [r.text for r in results]
    revisions = sorted(r.json()["revision"] for r in results)
    assert revisions == list(range(2, 2 + n))  # each save got its own revision
    final = alice_client.get(URL)
    assert final.headers["etag"] == f'"{1 + n}"'
    last = next(r for r in results if r.json()["revision"] == 1 + n)
    assert final.text == f"edit {results.index(last)}"


def test_concurrent_creates_of_a_new_note(app, alice_client):
    n = 6
    clients = _clients(app, alice_client, n)
    results = _run_together(n, lambda i: clients[i].put(URL, content=f"v{i}"))
    statuses = Counter(r.status_code for r in results)
    assert statuses == {201: 1, 200: n - 1}, [r.text for r in results]
    assert alice_client.get(URL).headers["etag"] == f'"{n}"'


def test_concurrent_create_only_exactly_one_wins(app, alice_client):
    n = 6
    clients = _clients(app, alice_client, n)
    results = _run_together(
        n, lambda i: clients[i].put(URL, content=f"v{i}", headers={"If-None-Match": "*"})
    )
    statuses = Counter(r.status_code for r in results)
    assert statuses == {201: 1, 412: n - 1}, [r.text for r in results]


def test_service_level_race_with_separate_sessions(app):
    """The same guarantee straight through the service, one DB session per thread."""
    with app.state.sessionmaker() as db:
        documents.save_document(
            db,
            workspace_id="team",
            path="s.md",
            content="0",
            max_bytes=100,
            source=Source.page(None),
        )
    n = 8

    def save(i: int):
        with app.state.sessionmaker() as db:
            return documents.save_document(
                db,
                workspace_id="team",
                path="s.md",
                content=str(i),
                max_bytes=100,
                if_match=1,
                source=Source.page(None),
            )

    results = _run_together(n, save)
    wins = [r for r in results if isinstance(r, tuple)]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(wins) == 1 and len(conflicts) == n - 1, results
    with app.state.sessionmaker() as db:
        doc = documents.get_document(db, workspace_id="team", path="s.md")
        assert doc.revision == 2 and doc.content == wins[0][0].content
