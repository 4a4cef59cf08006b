"""The document API (SPEC §6): list, get with ETag, conditional put, delete and move."""

from __future__ import annotations

import asyncio
from urllib.parse import quote

import pytest
from sqlalchemy import event

from backend.models import Document

WS = "/api/workspaces/personal/documents"


def url(path: str) -> str:
    return f"{WS}/{quote(path, safe='/')}"


def test_empty_workspace_lists_nothing(alice_client):
    response = alice_client.get(WS)
    assert response.status_code == 200 and response.json() == []


def test_create_get_list_round_trip(alice_client):
    text = "# 今日\n\n- [ ] お茶\n"
    created = alice_client.put(url("日記/メモ.md"), content=text.encode())
    assert created.status_code == 201
    size = len(text.encode("utf-8"))
    assert created.json() == {"path": "日記/メモ.md", "revision": 1, "bytes": size}
    assert created.headers["etag"] == '"1"'

    got = alice_client.get(url("日記/メモ.md"))
    assert got.status_code == 200
    assert got.text == text
    assert got.headers["content-type"] == "text/markdown; charset=utf-8"
    assert got.headers["etag"] == '"1"'

    [item] = alice_client.get(WS).json()
    assert set(item) == {"path", "bytes", "revision", "updatedAt"}
    assert (item["path"], item["bytes"], item["revision"]) == ("日記/メモ.md", size, 1)
    assert item["updatedAt"].endswith("Z")


def test_list_is_sorted_and_per_workspace(alice_client):
    for path in ("b.md", "a/z.md", "a.md"):
        alice_client.put(url(path), content="x")
    alice_client.put("/api/workspaces/team/documents/team.md", content="x")
    assert [d["path"] for d in alice_client.get(WS).json()] == ["a.md", "a/z.md", "b.md"]


def test_missing_note_is_404_json(alice_client):
    response = alice_client.get(url("nope.md"))
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert isinstance(response.json()["detail"], str)


def test_overwrite_without_conditions_bumps_revision(alice_client):
    assert alice_client.put(url("n.md"), content="one").json()["revision"] == 1
    second = alice_client.put(url("n.md"), content="two")
    assert second.status_code == 200
    assert second.json() == {"path": "n.md", "revision": 2, "bytes": 3}
    assert second.headers["etag"] == '"2"'
    assert alice_client.get(url("n.md")).text == "two"


def test_if_match_updates_that_revision(alice_client):
    alice_client.put(url("n.md"), content="one")
    response = alice_client.put(url("n.md"), content="two", headers={"If-Match": '"1"'})
    assert response.status_code == 200 and response.json()["revision"] == 2
    response = alice_client.put(url("n.md"), content="three", headers={"If-Match": "2"})
    assert response.status_code == 200 and response.json()["revision"] == 3


def test_stale_if_match_is_409_and_changes_nothing(alice_client, db_session):
    alice_client.put(url("n.md"), content="one")
    alice_client.put(url("n.md"), content="two")
    before = db_session.query(Document).one()
    before_state = (before.content, before.revision, before.bytes, before.updated_at)
    response = alice_client.put(url("n.md"), content="stale edit", headers={"If-Match": '"1"'})
    assert response.status_code == 409
    assert "stale edit" not in response.text
    db_session.expire_all()
    after = db_session.query(Document).one()
    assert (after.content, after.revision, after.bytes, after.updated_at) == before_state
    got = alice_client.get(url("n.md"))
    assert got.text == "two" and got.headers["etag"] == '"2"'


def test_if_match_on_missing_note_is_409(alice_client):
    response = alice_client.put(url("gone.md"), content="x", headers={"If-Match": '"1"'})
    assert response.status_code == 409
    assert alice_client.get(url("gone.md")).status_code == 404


@pytest.mark.parametrize("value", ['"abc"', 'W/"1"', "*", "", '"1", "2"', "1" * 40, "-1"])
def test_malformed_if_match_is_400(alice_client, value):
    alice_client.put(url("n.md"), content="one")
    response = alice_client.put(url("n.md"), content="two", headers={"If-Match": value})
    assert response.status_code == 400, value
    assert alice_client.get(url("n.md")).text == "one"


def test_if_none_match_star_only_creates(alice_client):
    first = alice_client.put(url("new.md"), content="first", headers={"If-None-Match": "*"})
    assert first.status_code == 201 and first.json()["revision"] == 1
    again = alice_client.put(url("new.md"), content="second", headers={"If-None-Match": "*"})
    assert again.status_code == 412
    assert alice_client.get(url("new.md")).text == "first"


def test_if_none_match_other_values_and_both_headers_are_400(alice_client):
    response = alice_client.put(url("n.md"), content="x", headers={"If-None-Match": '"1"'})
    assert response.status_code == 400
    response = alice_client.put(
        url("n.md"), content="x", headers={"If-None-Match": "*", "If-Match": '"1"'}
    )
    assert response.status_code == 400
    assert alice_client.get(url("n.md")).status_code == 404


def test_empty_note_is_allowed(alice_client):
    response = alice_client.put(url("empty.md"), content=b"")
    assert response.status_code == 201 and response.json()["bytes"] == 0
    assert alice_client.get(url("empty.md")).text == ""


def test_delete(alice_client):
    alice_client.put(url("d.md"), content="x")
    response = alice_client.delete(url("d.md"))
    assert response.status_code == 204 and response.content == b""
    assert alice_client.get(url("d.md")).status_code == 404
    assert alice_client.delete(url("d.md")).status_code == 404


def test_delete_with_if_match(alice_client):
    alice_client.put(url("d.md"), content="x")
    alice_client.put(url("d.md"), content="y")
    assert alice_client.delete(url("d.md"), headers={"If-Match": '"1"'}).status_code == 409
    assert alice_client.get(url("d.md")).text == "y"
    assert alice_client.delete(url("d.md"), headers={"If-Match": '"2"'}).status_code == 204


def test_move(alice_client):
    alice_client.put(url("old.md"), content="body")
    response = alice_client.post(url("old.md") + "/move", json={"to": "folder/新しい.md"})
    assert response.status_code == 200
    assert response.json() == {
        "path": "folder/新しい.md",
        "revision": 2,
        "bytes": 4,
        "linksUpdated": [],  # SPEC §18: no other note linked to it
    }
    assert alice_client.get(url("old.md")).status_code == 404
    assert alice_client.get(url("folder/新しい.md")).text == "body"
    assert [d["path"] for d in alice_client.get(WS).json()] == ["folder/新しい.md"]


def test_move_onto_existing_note_is_409_and_changes_nothing(alice_client):
    alice_client.put(url("a.md"), content="A")
    alice_client.put(url("b.md"), content="B")
    response = alice_client.post(url("a.md") + "/move", json={"to": "b.md"})
    assert response.status_code == 409
    assert alice_client.get(url("a.md")).text == "A"
    assert alice_client.get(url("b.md")).text == "B"


def test_move_errors(alice_client):
    alice_client.put(url("a.md"), content="A")
    assert alice_client.post(url("missing.md") + "/move", json={"to": "x.md"}).status_code == 404
    assert alice_client.post(url("a.md") + "/move", json={"to": "a.md"}).status_code == 400
    assert alice_client.post(url("a.md") + "/move", json={}).status_code == 422
    assert alice_client.post(url("a.md") + "/move", json={"to": 5}).status_code == 422
    stale = alice_client.post(
        url("a.md") + "/move", json={"to": "c.md"}, headers={"If-Match": '"9"'}
    )
    assert stale.status_code == 409
    assert alice_client.get(url("a.md")).text == "A"


def test_a_note_named_move_is_an_ordinary_note(alice_client):
    assert alice_client.put(url("x/move"), content="m").status_code == 201
    assert alice_client.get(url("x/move")).text == "m"
    assert alice_client.delete(url("x/move")).status_code == 204


def test_invalid_utf8_is_400(alice_client):
    for body in (b"\xff\xfe", b"ok \xc3", b"\xed\xa0\x80"):  # bad byte, truncated, surrogate
        response = alice_client.put(url("bad.md"), content=body)
        assert response.status_code == 400
        assert "UTF-8" in response.json()["detail"]
    assert alice_client.get(url("bad.md")).status_code == 404


def test_nul_in_text_is_400_on_every_database(alice_client):
    response = alice_client.put(url("nul.md"), content=b"a\x00b")
    assert response.status_code == 400
    assert alice_client.get(url("nul.md")).status_code == 404


def test_size_limit(alice_client):
    limit = 1_048_576
    ok = alice_client.put(url("big.md"), content=b"a" * limit)
    assert ok.status_code == 201 and ok.json()["bytes"] == limit
    response = alice_client.put(url("big.md"), content=b"a" * (limit + 1))
    assert response.status_code == 413
    assert "1,048,576" in response.json()["detail"]
    assert alice_client.get(url("big.md")).content == b"a" * limit


def test_size_limit_counts_bytes_not_characters(app_factory):
    from conftest import seed_world, sign_in
    from fastapi.testclient import TestClient

    app = app_factory(max_note_bytes=10)
    seed_world(app)
    client = sign_in(TestClient(app), "alice")
    assert client.put(url("j.md"), content="あいう".encode()).status_code == 201  # 9 bytes
    assert client.put(url("j.md"), content="あいうえ".encode()).status_code == 413  # 12 bytes


def test_size_limit_without_content_length(alice_client):
    """A chunked body has no Content-Length; the stream is still cut off at the limit."""

    def chunks():
        for _ in range(17):
            yield b"a" * 65536  # 17 × 64 KiB > 1 MiB

    response = alice_client.put(url("chunked.md"), content=chunks())
    assert response.status_code == 413
    assert alice_client.get(url("chunked.md")).status_code == 404


def test_declared_content_length_over_limit_is_413_before_reading(alice_client):
    response = alice_client.put(
        url("liar.md"), content=b"small", headers={"Content-Length": str(10**12)}
    )
    assert response.status_code == 413


def test_bogus_content_length_is_400(alice_client):
    response = alice_client.put(url("x.md"), content=b"x", headers={"Content-Length": "abc"})
    assert response.status_code == 400
    assert alice_client.get(url("x.md")).status_code == 404


def test_no_request_ends_its_transaction_on_the_event_loop(app, alice_client):
    """Read routes end their read in their own worker thread and the session then closes on the
    event loop without I/O; a request that fails mid-read rolls back in a worker thread. The
    connection always goes back, and never from a thread running the event loop (a rollback
    there would stall every other request)."""
    on_loop = []

    def checked_in(dbapi_connection: object, record: object) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        on_loop.append(True)

    pool = app.state.engine.pool
    event.listen(pool, "checkin", checked_in)
    base = "/api/workspaces/personal/documents/held.md"
    assert alice_client.put(base, content=b"one\n").status_code == 201
    assert alice_client.put(base, content=b"two\n", headers={"If-Match": '"1"'}).status_code == 200
    for path, status in [
        (base, 200),
        (f"{base}/revisions", 200),
        (f"{base}/revisions/1", 200),
        (f"{base}/revisions/9", 404),  # fails after its reads began
        ("/api/workspaces/personal/documents/missing.md", 404),
        ("/api/workspaces/personal/documents", 200),
    ]:
        assert alice_client.get(path).status_code == status
        assert pool.checkedout() == 0, path
    event.remove(pool, "checkin", checked_in)
    assert on_loop == []
    assert alice_client.get(f"{base}/revisions/1").text == "one\n"
