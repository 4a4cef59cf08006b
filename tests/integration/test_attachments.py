"""Attachments over HTTP (SPEC §18): upload, read, list, delete, limits and roles, on both
databases; the streamed 413 against a real server."""

from __future__ import annotations

import hashlib
import socket
from datetime import timedelta

import pytest
from conftest import open_db
from fastapi.testclient import TestClient
from test_limits_server import _read_response, _status, start

from backend.app import purge_at_start
from backend.db import utcnow
from backend.services import attachments as att

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32 + b"a small picture"
OTHER = b"\x89PNG\r\n\x1a\n" + b"another picture"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
URL = "/api/workspaces/{ws}/attachments"


def upload(client, name, data=PNG, ws="personal", path=None, content_type="image/png"):
    form = {"path": path} if path is not None else None
    return client.post(URL.format(ws=ws), files={"file": (name, data, content_type)}, data=form)


def listed(client, ws="personal", **params):
    r = client.get(URL.format(ws=ws), params=params)
    assert r.status_code == 200, r.text
    return [a["path"] for a in r.json()["attachments"]]


def test_upload_then_read_with_type_nosniff_and_etag(alice_client):
    r = upload(alice_client, "cat.png")
    assert r.status_code == 201, r.text
    assert r.json() == {
        "path": "attachments/cat.png",
        "bytes": len(PNG),
        "sha256": hashlib.sha256(PNG).hexdigest(),
        "contentType": "image/png",
    }
    got = alice_client.get(URL.format(ws="personal") + "/attachments/cat.png")
    assert got.status_code == 200
    assert got.content == PNG
    assert got.headers["content-type"] == "image/png"
    assert got.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" not in got.headers
    etag = got.headers["etag"]
    assert etag == f'"{hashlib.sha256(PNG).hexdigest()}"'
    again = alice_client.get(
        URL.format(ws="personal") + "/attachments/cat.png", headers={"If-None-Match": etag}
    )
    assert again.status_code == 304 and again.content == b""
    assert listed(alice_client) == ["attachments/cat.png"]
    listing = alice_client.get(URL.format(ws="personal")).json()["attachments"]
    assert listing[0]["contentType"] == "image/png" and listing[0]["bytes"] == len(PNG)


def test_same_content_same_name_and_a_free_name_for_another_file(alice_client):
    first = upload(alice_client, "image.png").json()
    assert upload(alice_client, "image.png").json() == first  # same bytes: unchanged
    second = upload(alice_client, "image.png", OTHER)
    assert second.status_code == 201 and second.json()["path"] == "attachments/image-1.png"
    third = upload(alice_client, "whatever.png", OTHER, path="trips/japan/map.png")
    assert third.json()["path"] == "trips/japan/map.png"
    assert listed(alice_client) == [
        "attachments/image-1.png",
        "attachments/image.png",
        "trips/japan/map.png",
    ]
    assert listed(alice_client, folder="trips") == ["trips/japan/map.png"]
    b = alice_client.get(URL.format(ws="personal") + "/attachments/image-1.png")
    assert b.content == OTHER
    # A browser may send a folder in the file name: only its last part is kept.
    r = upload(alice_client, "C:\\Users\\me\\Pictures\\日本.png", b"jp")
    assert r.json()["path"] == "attachments/日本.png"
    assert alice_client.get(URL.format(ws="personal") + "/attachments/日本.png").content == b"jp"


def test_svg_is_sandboxed_and_pdf_typed(alice_client):
    assert upload(alice_client, "draw.svg", SVG, content_type="image/svg+xml").status_code == 201
    got = alice_client.get(URL.format(ws="personal") + "/attachments/draw.svg")
    assert got.headers["content-type"] == "image/svg+xml"
    assert got.headers["content-security-policy"] == "sandbox"
    assert got.headers["x-content-type-options"] == "nosniff"
    pdf = b"%PDF-1.4\n%%EOF\n"
    # The declared part type does not matter: the extension decides how it is served.
    assert upload(alice_client, "Paper.PDF", pdf, content_type="text/html").status_code == 201
    got = alice_client.get(URL.format(ws="personal") + "/attachments/Paper.PDF")
    assert got.headers["content-type"] == "application/pdf" and got.content == pdf


@pytest.mark.parametrize("name", ["page.html", "notes.md", "script.js", "noextension"])
def test_other_types_get_415_and_nothing_is_kept(alice_client, name):
    r = upload(alice_client, name, b"<html><script>alert(1)</script>", content_type="image/png")
    assert r.status_code == 415, r.text
    assert ".png" in r.json()["detail"]
    assert listed(alice_client) == []


def test_bad_requests(alice_client):
    for path in ("../up.png", "/abs.png", "a//b.png"):
        assert upload(alice_client, "x.png", path=path).status_code == 400, path
    no_file = alice_client.post(URL.format(ws="personal"), data={"path": "a.png"})
    assert no_file.status_code == 400
    not_a_form = alice_client.post(
        URL.format(ws="personal"), content=PNG, headers={"Content-Type": "image/png"}
    )
    assert not_a_form.status_code == 400
    torn = alice_client.post(
        URL.format(ws="personal"),
        content=b"--other\r\nContent-Disposition: form-data; name=file\r\n\r\nsecret words",
        headers={"Content-Type": "multipart/form-data; boundary=expected"},
    )
    assert torn.status_code == 400 and "secret" not in torn.text
    assert listed(alice_client) == []
    assert alice_client.get(URL.format(ws="personal") + "/nothing/here.png").status_code == 404


def test_over_20_mib_is_413_and_nothing_is_kept(alice_client):
    limit = att.MAX_ATTACHMENT_BYTES
    at = upload(alice_client, "at-limit.png", b"\x00" * limit)
    assert at.status_code == 201 and at.json()["bytes"] == limit
    over = upload(alice_client, "over.png", b"\x00" * (limit + 1))
    assert over.status_code == 413
    assert "20,971,520" in over.json()["detail"]
    declared = alice_client.post(
        URL.format(ws="personal"),
        content=b"",
        headers={
            "Content-Type": "multipart/form-data; boundary=x",
            "Content-Length": str(limit * 2),
        },
    )
    assert declared.status_code == 413
    assert listed(alice_client) == ["attachments/at-limit.png"]


def test_delete(alice_client):
    upload(alice_client, "a.png")
    upload(alice_client, "b.png")  # the same bytes at a second path
    assert alice_client.delete(URL.format(ws="personal") + "/attachments/a.png").status_code == 204
    assert alice_client.get(URL.format(ws="personal") + "/attachments/a.png").status_code == 404
    assert alice_client.get(URL.format(ws="personal") + "/attachments/b.png").content == PNG
    assert alice_client.delete(URL.format(ws="personal") + "/attachments/a.png").status_code == 404
    assert listed(alice_client) == ["attachments/b.png"]


def test_readers_read_editors_write_strangers_nothing(app, alice_client, bob_client):
    assert upload(alice_client, "team.png", ws="team").status_code == 201
    # bob edits team: uploads and deletes.
    assert upload(bob_client, "bob.png", OTHER, ws="team").status_code == 201
    assert bob_client.delete(URL.format(ws="team") + "/attachments/bob.png").status_code == 204
    # As a reader, bob reads but cannot write.
    r = alice_client.patch("/api/workspaces/team/members/bob", json={"role": "reader"})
    assert r.status_code == 200, r.text
    assert listed(bob_client, ws="team") == ["attachments/team.png"]
    assert bob_client.get(URL.format(ws="team") + "/attachments/team.png").content == PNG
    refused = upload(bob_client, "mine.png", OTHER, ws="team")
    assert refused.status_code == 403
    assert bob_client.delete(URL.format(ws="team") + "/attachments/team.png").status_code == 403
    assert listed(alice_client, ws="team") == ["attachments/team.png"]
    # Not a member: 403 like every workspace route, and nothing of it is shown.
    assert upload(bob_client, "x.png", ws="personal").status_code == 403
    assert bob_client.get(URL.format(ws="personal")).status_code == 403
    upload(alice_client, "private.png")
    assert bob_client.get(URL.format(ws="personal") + "/attachments/private.png").status_code == 403
    assert (
        bob_client.delete(URL.format(ws="personal") + "/attachments/private.png").status_code == 403
    )
    # Signed out: 401.
    anon = TestClient(app)
    assert upload(anon, "x.png", ws="personal").status_code == 401
    assert anon.get(URL.format(ws="personal")).status_code == 401
    assert anon.get(URL.format(ws="personal") + "/attachments/private.png").status_code == 401
    assert listed(alice_client) == ["attachments/private.png"]


def test_an_attachment_no_note_refers_to_is_purged_after_30_days(app, alice_client):
    upload(alice_client, "kept.png")
    upload(alice_client, "orphan.png", OTHER)
    r = alice_client.put(
        "/api/workspaces/personal/documents/trip.md",
        content=b"# Trip\n\n![kept](attachments/kept.png)\n",
        headers={"Content-Type": "text/markdown; charset=utf-8"},
    )
    assert r.status_code in (200, 201), r.text
    now = utcnow()
    with open_db(app) as db:
        att.purge_unreferenced(db, now=now)
        att.purge_unreferenced(db, now=now + timedelta(days=29, hours=23))
    assert listed(alice_client) == ["attachments/kept.png", "attachments/orphan.png"]
    with open_db(app) as db:
        assert att.purge_unreferenced(db, now=now + timedelta(days=30)) == 1
    assert listed(alice_client) == ["attachments/kept.png"]
    assert (
        alice_client.get(URL.format(ws="personal") + "/attachments/orphan.png").status_code == 404
    )
    # The server's own job (run at start and hourly) does the same.
    upload(alice_client, "later.png", b"later")
    purge_at_start(app.state.sessionmaker)
    with open_db(app) as db:
        assert att.purge_unreferenced(db, now=utcnow() + timedelta(days=31)) == 1
    assert listed(alice_client) == ["attachments/kept.png"]


def test_the_limit_is_enforced_while_the_file_streams(tmp_path):
    """Against a real server: a 40 MiB upload without Content-Length is answered 413 once
    20 MiB of file have arrived, long before the rest is sent, and nothing is kept."""
    live = start(tmp_path / "data")
    try:
        with live.signed_in() as client:
            cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
            boundary = "attachment-boundary"
            head = (
                "POST /api/workspaces/personal/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Cookie: {cookie}\r\nTransfer-Encoding: chunked\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n"
            )
            part = (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                'filename="huge.png"\r\nContent-Type: image/png\r\n\r\n'
            ).encode()
            piece = b"\x00" * 65536
            total, sent = 40 * 1024 * 1024, 0
            with socket.create_connection(("127.0.0.1", live.port)) as sock:
                sock.sendall(head.encode() + b"%x\r\n%s\r\n" % (len(part), part))
                import select

                while sent < total:
                    readable, _, _ = select.select([sock], [], [], 0.01)
                    if readable:
                        break
                    try:
                        sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                    except OSError:
                        break
                    sent += len(piece)
                raw = _read_response(sock)
            assert _status(raw) == 413, raw[:300]
            assert b"20,971,520" in raw
            assert sent < total
            listing = client.get("/api/workspaces/personal/attachments").json()
            assert listing == {"attachments": []}
    finally:
        live.stop()
