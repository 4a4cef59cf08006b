"""Organising notes (SPEC §18) on both databases: a move rewrites the links to the note in the
other notes (each its own revision, each announced), `updateLinks: false` leaves them; the
trash lists the notes deleted in the last 30 days and restores one with its history."""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import quote

import pytest
from conftest import open_db
from sqlalchemy import select, update

from backend.db import utcnow
from backend.models import Membership, User
from backend.models.history import NoteEvent, NoteRevision
from backend.services import workspaces

DOCS = "/api/workspaces/{ws}/documents/{path}"
TRASH = "/api/workspaces/{ws}/trash"


def doc_url(path: str, suffix: str = "", ws: str = "personal") -> str:
    return DOCS.format(ws=ws, path=quote(path)) + suffix


def put(client, path: str, text: str, ws: str = "personal") -> int:
    r = client.put(doc_url(path, ws=ws), content=text.encode("utf-8"))
    assert r.status_code in (200, 201), r.text
    return r.json()["revision"]


def read(client, path: str, ws: str = "personal") -> str:
    r = client.get(doc_url(path, ws=ws))
    assert r.status_code == 200, r.text
    return r.text


def revisions(client, path: str, ws: str = "personal") -> list[dict]:
    r = client.get(doc_url(path, "/revisions", ws=ws))
    assert r.status_code == 200, r.text
    return r.json()["revisions"]


def move(client, path: str, to: str, ws: str = "personal", **extra):
    return client.post(doc_url(path, "/move", ws=ws), json={"to": to, **extra})


def events_after(app, seq: int, ws: str = "personal") -> list[tuple[str, dict]]:
    with open_db(app) as db:
        rows = db.execute(
            select(NoteEvent.kind, NoteEvent.data)
            .where(NoteEvent.workspace_id == ws, NoteEvent.seq > seq)
            .order_by(NoteEvent.seq)
        ).all()
    return [(kind, json.loads(data)) for kind, data in rows]


def last_seq(app, ws: str = "personal") -> int:
    with open_db(app) as db:
        seqs = db.scalars(select(NoteEvent.seq).where(NoteEvent.workspace_id == ws)).all()
    return max(seqs, default=0)


TRIP = "# Trip\n\nSee [[roadmap]], [[roadmap|the plan]] and [dates](roadmap.md#june).\n"
CODE = "Not a link: `[[roadmap]]`\n\n```\n[x](roadmap.md)\n```\n"


@pytest.fixture
def linked(alice_client):
    put(alice_client, "roadmap.md", "# Roadmap\n")
    put(alice_client, "trip.md", TRIP)
    put(alice_client, "journal/day.md", "Back to [the map](../roadmap.md).\r\n")
    put(alice_client, "code.md", CODE)
    put(alice_client, "other.md", "[[trip]] and roadmap as a word\n")
    return alice_client


def test_a_move_rewrites_the_links_to_it_each_a_revision_with_its_event(app, linked):
    before = {p: revisions(linked, p)[0]["revision"] for p in ("code.md", "other.md")}
    seq = last_seq(app)
    moved = move(linked, "roadmap.md", "plans/2027 road.md")
    assert moved.status_code == 200, moved.text
    assert moved.json()["linksUpdated"] == ["journal/day.md", "trip.md"]
    assert moved.json()["path"] == "plans/2027 road.md"
    assert read(linked, "trip.md") == (
        "# Trip\n\nSee [[2027 road]], [[2027 road|the plan]] and "
        "[dates](plans/2027%20road.md#june).\n"
    )
    assert read(linked, "journal/day.md") == "Back to [the map](../plans/2027%20road.md).\r\n"
    # Code and notes that do not link to it are untouched: same text, same revision.
    assert read(linked, "code.md") == CODE
    assert {p: revisions(linked, p)[0]["revision"] for p in before} == before
    newest, kept = revisions(linked, "trip.md")[:2]
    assert newest["action"] == "links" and newest["byYou"] and newest["source"]["kind"] == "page"
    assert kept["revision"] == newest["revision"] - 1
    r = linked.get(doc_url("trip.md", f"/revisions/{kept['revision']}"))
    assert r.text == TRIP  # the text before the rewrite is in the history
    events = events_after(app, seq)
    assert events[0] == (
        "moved",
        {"from": "roadmap.md", "to": "plans/2027 road.md", "revision": moved.json()["revision"]},
    )
    saved = {data["path"]: data for kind, data in events[1:] if kind == "saved"}
    assert set(saved) == {"trip.md", "journal/day.md"}
    assert saved["trip.md"]["revision"] == newest["revision"]
    assert saved["trip.md"]["source"] == {"kind": "page", "name": None}


def test_update_links_false_leaves_the_other_notes_as_they_are(app, linked):
    seq = last_seq(app)
    r = move(linked, "roadmap.md", "plans/road.md", updateLinks=False)
    assert r.status_code == 200, r.text
    assert r.json()["linksUpdated"] == []
    assert read(linked, "trip.md") == TRIP
    assert [kind for kind, _ in events_after(app, seq)] == ["moved"]


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_update_links_is_a_strict_boolean(linked, value):
    r = move(linked, "roadmap.md", "plans/road.md", updateLinks=value)
    assert r.status_code == 422, r.text
    assert read(linked, "roadmap.md") == "# Roadmap\n"  # nothing moved


def test_the_moved_notes_own_relative_links_still_lead_where_they_did(linked):
    put(linked, "projects/plan.md", "See [trip](../trip.md) and [[roadmap]].\n")
    r = move(linked, "projects/plan.md", "archive/2026/plan.md")
    assert r.status_code == 200, r.text
    assert "archive/2026/plan.md" in r.json()["linksUpdated"]
    assert read(linked, "archive/2026/plan.md") == "See [trip](../../trip.md) and [[roadmap]].\n"


def test_an_editor_moves_with_links_in_a_shared_workspace(alice_client, bob_client):
    put(alice_client, "a.md", "x", ws="team")
    put(alice_client, "b.md", "[[a]]", ws="team")
    r = move(bob_client, "a.md", "z.md", ws="team")
    assert r.status_code == 200, r.text
    assert read(alice_client, "b.md", ws="team") == "[[z]]"
    assert revisions(alice_client, "b.md", ws="team")[0]["user"] == "bob"


# -- the trash ---------------------------------------------------------------------------------


def trash(client, ws: str = "personal") -> list[dict]:
    r = client.get(TRASH.format(ws=ws))
    assert r.status_code == 200, r.text
    return r.json()["notes"]


def restore(client, ws: str = "personal", **body):
    return client.post(TRASH.format(ws=ws) + "/restore", json=body)


def test_the_trash_lists_deleted_notes_newest_first_and_restores_with_history(alice_client):
    put(alice_client, "a.md", "first\n")
    put(alice_client, "a.md", "first\nsecond 日本\n")
    put(alice_client, "b.md", "bee\n")
    assert trash(alice_client) == []
    assert alice_client.delete(doc_url("a.md")).status_code == 204
    assert alice_client.delete(doc_url("b.md")).status_code == 204
    listed = trash(alice_client)
    assert [(n["path"], n["bytes"]) for n in listed] == [
        ("b.md", 4),
        ("a.md", len("first\nsecond 日本\n".encode())),
    ]
    assert all(n["deletedAt"] and n["id"] for n in listed)
    r = restore(alice_client, path="a.md")
    assert r.status_code == 201, r.text
    assert r.headers["ETag"] == f'"{r.json()["revision"]}"'
    assert read(alice_client, "a.md") == "first\nsecond 日本\n"
    history = revisions(alice_client, "a.md")
    assert history[0]["action"] == "restore" and history[0]["current"]
    texts = [alice_client.get(doc_url("a.md", f"/revisions/{h['revision']}")).text for h in history]
    assert "first\n" in texts  # the history came back with it
    assert [n["path"] for n in trash(alice_client)] == ["b.md"]


def test_restore_refuses_a_taken_path_and_brings_it_back_elsewhere(app, alice_client):
    put(alice_client, "a.md", "old text\n")
    put(alice_client, "a.md", "old text, later\n")
    assert alice_client.delete(doc_url("a.md")).status_code == 204
    put(alice_client, "a.md", "a new note at the same path\n")  # must not hide the old one
    assert [n["path"] for n in trash(alice_client)] == ["a.md"]
    seq = last_seq(app)
    r = restore(alice_client, path="a.md")
    assert r.status_code == 409, r.text
    assert read(alice_client, "a.md") == "a new note at the same path\n"
    assert events_after(app, seq) == []
    r = restore(alice_client, path="a.md", to="restored/a.md")
    assert r.status_code == 201, r.text
    assert r.json()["path"] == "restored/a.md"
    assert read(alice_client, "restored/a.md") == "old text, later\n"
    assert read(alice_client, "a.md") == "a new note at the same path\n"
    history = revisions(alice_client, "restored/a.md")
    assert [h["path"] for h in history][-1] == "a.md" and len(history) == 3
    (kind, data), *_ = events_after(app, seq)
    assert kind == "saved" and data["path"] == "restored/a.md"
    assert trash(alice_client) == []


def test_several_notes_deleted_at_one_path_are_each_listed(alice_client):
    for text in ("one\n", "two\n"):
        put(alice_client, "n.md", text)
        assert alice_client.delete(doc_url("n.md")).status_code == 204
    newest, oldest = trash(alice_client)
    assert (newest["path"], oldest["path"]) == ("n.md", "n.md") and newest["id"] != oldest["id"]
    assert restore(alice_client, path="n.md", id=oldest["id"]).status_code == 201
    assert read(alice_client, "n.md") == "one\n"
    assert restore(alice_client, path="n.md", to="n2.md").status_code == 201
    assert read(alice_client, "n2.md") == "two\n"


def test_a_note_deleted_more_than_thirty_days_ago_is_out_of_the_trash(app, alice_client):
    put(alice_client, "old.md", "old\n")
    put(alice_client, "recent.md", "recent\n")
    for path in ("old.md", "recent.md"):
        assert alice_client.delete(doc_url(path)).status_code == 204
    with open_db(app) as db:  # the clock moved: old.md was deleted 30 days and a minute ago
        db.execute(
            update(NoteRevision)
            .where(NoteRevision.path == "old.md")
            .values(gone_at=utcnow() - timedelta(days=30, minutes=1))
        )
        db.execute(
            update(NoteRevision)
            .where(NoteRevision.path == "recent.md")
            .values(gone_at=utcnow() - timedelta(days=29, hours=23))
        )
        db.commit()
    assert [n["path"] for n in trash(alice_client)] == ["recent.md"]
    assert restore(alice_client, path="old.md").status_code == 404
    assert restore(alice_client, path="recent.md").status_code == 201


def test_nothing_in_the_trash_at_a_path_is_404(alice_client):
    assert restore(alice_client, path="never.md").status_code == 404
    assert restore(alice_client, path="../x.md").status_code == 400
    assert restore(alice_client, path=["x"]).status_code == 422


def test_members_list_the_trash_editors_restore(app, alice_client, bob_client, client):
    put(alice_client, "t.md", "team note\n", ws="team")
    assert alice_client.delete(doc_url("t.md", ws="team")).status_code == 204
    with open_db(app) as db:  # bob reads team
        bob = db.scalar(select(User.id).where(User.username == "bob"))
        db.execute(
            update(Membership)
            .where(Membership.user_id == bob, Membership.workspace_id == "team")
            .values(role=workspaces.READER)
        )
        db.commit()
    assert [n["path"] for n in trash(bob_client, ws="team")] == ["t.md"]
    r = restore(bob_client, ws="team", path="t.md")
    assert r.status_code == 403, r.text
    assert [n["path"] for n in trash(bob_client, ws="team")] == ["t.md"]
    # not a member of personal; signed out
    assert bob_client.get(TRASH.format(ws="personal")).status_code == 403
    assert restore(bob_client, ws="personal", path="t.md").status_code == 403
    assert client.get(TRASH.format(ws="team")).status_code == 401
    assert restore(client, ws="team", path="t.md").status_code == 401
    assert restore(alice_client, ws="team", path="t.md").status_code == 201


# -- moving a folder ---------------------------------------------------------------------------

FOLDERS = "/api/workspaces/{ws}/folders/move"


def move_folder(client, ws: str = "personal", **body):
    return client.post(FOLDERS.format(ws=ws), json=body)


def test_a_folder_move_moves_its_notes_and_the_links_follow_once(app, alice_client):
    put(alice_client, "p/plan.md", "See [notes](notes.md) and [[trip]].\n")
    put(alice_client, "p/notes.md", "Back to [[plan]] and [top](../top.md).\n")
    put(alice_client, "p/sub/deep.md", "[up](../plan.md)\n")
    put(alice_client, "top.md", "[[p/plan]] and [n](p/notes.md) and [p](pp/x.md)\n")
    put(alice_client, "trip.md", "no links\n")
    put(alice_client, "pp/x.md", "not in p/\n")
    inside = revisions(alice_client, "p/plan.md")[0]["revision"]
    seq = last_seq(app)
    r = move_folder(alice_client, **{"from": "p", "to": "archive/2026/p"})
    assert r.status_code == 200, r.text
    assert r.json()["moved"] == [
        {"from": "p/notes.md", "to": "archive/2026/p/notes.md"},
        {"from": "p/plan.md", "to": "archive/2026/p/plan.md"},
        {"from": "p/sub/deep.md", "to": "archive/2026/p/sub/deep.md"},
    ]
    assert r.json()["linksUpdated"] == ["archive/2026/p/notes.md", "top.md"]
    assert read(alice_client, "top.md") == (
        "[[archive/2026/p/plan]] and [n](archive/2026/p/notes.md) and [p](pp/x.md)\n"
    )
    assert read(alice_client, "archive/2026/p/notes.md") == (
        "Back to [[plan]] and [top](../../../top.md).\n"
    )
    # Links between notes that moved together still lead there: left as written.
    assert read(alice_client, "archive/2026/p/plan.md") == "See [notes](notes.md) and [[trip]].\n"
    assert revisions(alice_client, "archive/2026/p/plan.md")[0]["revision"] == inside + 1
    assert read(alice_client, "pp/x.md") == "not in p/\n"
    kinds = [kind for kind, _ in events_after(app, seq)]
    assert kinds == ["moved"] * 3 + ["saved"] * 2


def test_a_folder_move_onto_a_taken_path_moves_nothing(app, alice_client):
    put(alice_client, "a/one.md", "1")
    put(alice_client, "a/two.md", "2")
    put(alice_client, "b/two.md", "taken")
    seq = last_seq(app)
    r = move_folder(alice_client, **{"from": "a/", "to": "b"})
    assert r.status_code == 409, r.text
    assert read(alice_client, "a/one.md") == "1" and read(alice_client, "b/two.md") == "taken"
    assert events_after(app, seq) == []


def test_folder_move_errors_and_roles(app, alice_client, bob_client):
    put(alice_client, "a/one.md", "[[one]]")
    assert move_folder(alice_client, **{"from": "a", "to": "a/in"}).status_code == 400
    assert move_folder(alice_client, **{"from": "", "to": "x"}).status_code == 400
    assert move_folder(alice_client, **{"from": "nothing", "to": "x"}).status_code == 404
    assert move_folder(alice_client, **{"from": "a", "to": "../x"}).status_code == 400
    assert (
        move_folder(alice_client, **{"from": "a", "to": "x", "updateLinks": "no"}).status_code
        == 422
    )
    assert move_folder(alice_client, to="x").status_code == 422
    assert move_folder(bob_client, **{"from": "a", "to": "x"}).status_code == 403
    put(alice_client, "t/n.md", "n", ws="team")
    with open_db(app) as db:  # bob reads team
        bob = db.scalar(select(User.id).where(User.username == "bob"))
        db.execute(
            update(Membership)
            .where(Membership.user_id == bob, Membership.workspace_id == "team")
            .values(role=workspaces.READER)
        )
        db.commit()
    assert move_folder(bob_client, ws="team", **{"from": "t", "to": "u"}).status_code == 403
    assert read(alice_client, "t/n.md", ws="team") == "n"
    r = move_folder(alice_client, **{"from": "a", "to": "", "updateLinks": False})
    assert r.status_code == 200, r.text
    assert r.json() == {"moved": [{"from": "a/one.md", "to": "one.md"}], "linksUpdated": []}


def test_a_moved_note_keeps_its_pictures_and_reference_links(alice_client):
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    r = alice_client.post(
        "/api/workspaces/personal/attachments",
        files={"file": ("map.png", png, "image/png")},
        data={"path": "trips/map.png"},
    )
    assert r.status_code == 201, r.text
    put(alice_client, "roadmap.md", "# Roadmap\n")
    put(
        alice_client,
        "trips/japan.md",
        "![the map](map.png)\n\nSee [plan][p].\n\n[p]: ../roadmap.md\n",
    )
    r = move(alice_client, "trips/japan.md", "archive/2026/japan.md")
    assert r.status_code == 200, r.text
    assert read(alice_client, "archive/2026/japan.md") == (
        "![the map](../../trips/map.png)\n\nSee [plan][p].\n\n[p]: ../../roadmap.md\n"
    )
    # the picture is still served at the path the rewritten link names
    assert alice_client.get("/api/workspaces/personal/attachments/trips/map.png").content == png
