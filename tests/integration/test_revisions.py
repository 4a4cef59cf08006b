"""SPEC §15 note history on both databases: what is kept, by whom, reading, restoring, limits."""

from __future__ import annotations

import hashlib
import random
from datetime import timedelta
from urllib.parse import quote

import pytest
from sqlalchemy import func, select

from ambient.contract import CONFLICT_RESOLUTION_HEADER, KEEP_MINE
from backend.db import utcnow
from backend.models.history import NoteRevision
from backend.services import documents
from backend.services.source import Source

BASE = "/api/workspaces/{ws}/documents/{path}"


def url(path: str, suffix: str = "", ws: str = "personal") -> str:
    return BASE.format(ws=ws, path=quote(path)) + suffix


def put(client, path, text, ws="personal", if_match=None):
    headers = {"If-Match": f'"{if_match}"'} if if_match is not None else {}
    r = client.put(url(path, ws=ws), content=text.encode("utf-8"), headers=headers)
    assert r.status_code in (200, 201), r.text
    return r.json()["revision"]


def history(client, path, ws="personal") -> list[dict]:
    r = client.get(url(path, "/revisions", ws=ws))
    assert r.status_code == 200, r.text
    return r.json()["revisions"]


def text_at(client, path, n, ws="personal") -> str:
    r = client.get(url(path, f"/revisions/{n}", ws=ws))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/markdown")
    return r.text


def service_save(db, path, text, source, ws="personal", now=None):
    doc, _ = documents.save_document(
        db, workspace_id=ws, path=path, content=text, max_bytes=2 << 20, source=source, now=now
    )
    return doc


def test_page_typing_coalesces_and_keeps_the_text_before_it(alice_client):
    put(alice_client, "n.md", "first\n")  # revision 1: created
    for i in range(5):  # autosaves while typing: one revision
        put(alice_client, "n.md", f"first\ntyping {i}\n")
    items = history(alice_client, "n.md")
    assert [i["revision"] for i in items] == [6, 1]
    current, created = items
    assert current["current"] is True and created["current"] is False
    assert current["source"] == {"kind": "page", "name": None}
    assert current["user"] == "alice" and current["byYou"] is True and current["action"] == "edit"
    assert created["action"] == "create"
    assert set(current) >= {"revision", "savedAt", "bytes", "sha256", "source"}
    assert current["bytes"] == len("first\ntyping 4\n") and len(current["sha256"]) == 16
    assert text_at(alice_client, "n.md", 1) == "first\n"
    assert text_at(alice_client, "n.md", 6) == "first\ntyping 4\n"
    assert alice_client.get(url("n.md", "/revisions/3")).status_code == 404  # typing step


def test_page_saves_coalesce_only_within_five_minutes_of_the_run(app, db_session):
    alice = app.state.test_user_ids["alice"]
    start = utcnow() - timedelta(hours=1)
    service_save(db_session, "t.md", "a", Source.page(alice), now=start)
    service_save(db_session, "t.md", "ab", Source.page(alice), now=start + timedelta(minutes=1))
    service_save(db_session, "t.md", "abc", Source.page(alice), now=start + timedelta(minutes=2))
    service_save(db_session, "t.md", "abcd", Source.page(alice), now=start + timedelta(minutes=8))
    kept = db_session.scalars(select(NoteRevision.revision).order_by(NoteRevision.revision))
    # 1 (create) kept; 2 and 3 one run, so 2's text went; 3 kept when the run was 6 minutes old.
    assert list(kept) == [1, 3]


def test_every_other_kind_of_change_is_its_own_revision(app, alice_client, bob_client, db_session):
    put(alice_client, "s.md", "one\n", ws="team")
    put(bob_client, "s.md", "one\ntwo\n", ws="team")  # another member
    put(bob_client, "s.md", "one\ntwo\nthree\n", ws="team")  # bob typing on: coalesces
    alice = app.state.test_user_ids["alice"]
    service_save(db_session, "s.md", "agent\n", Source.agent(alice, name="my-bot"), ws="team")
    put(alice_client, "s.md", "alice again\n", ws="team")
    items = history(alice_client, "s.md", ws="team")
    assert [i["revision"] for i in items] == [5, 4, 3, 1]
    assert [(i["source"]["kind"], i["source"]["name"], i["user"]) for i in items] == [
        ("page", None, "alice"),
        ("agent", "my-bot", "alice"),
        ("page", None, "bob"),
        ("page", None, "alice"),
    ]
    assert [i["byYou"] for i in items] == [True, True, False, True]
    assert text_at(alice_client, "s.md", 3, ws="team") == "one\ntwo\nthree\n"
    assert [i["byYou"] for i in history(bob_client, "s.md", ws="team")][2] is True


def test_restore_is_conditional_and_its_own_revision(alice_client):
    put(alice_client, "r.md", "old text\n")
    rev = put(alice_client, "r.md", "new text\n")  # coalesced with the create? no: create kept
    assert [i["revision"] for i in history(alice_client, "r.md")] == [rev, 1]
    stale = alice_client.post(url("r.md", "/revisions/1/restore"), headers={"If-Match": '"1"'})
    assert stale.status_code == 409
    assert alice_client.get(url("r.md")).text == "new text\n"
    assert [i["revision"] for i in history(alice_client, "r.md")] == [rev, 1]
    r = alice_client.post(url("r.md", "/revisions/1/restore"), headers={"If-Match": f'"{rev}"'})
    assert r.status_code == 200, r.text
    assert r.json() == {"path": "r.md", "revision": rev + 1, "bytes": len("old text\n")}
    assert r.headers["ETag"] == f'"{rev + 1}"'
    assert alice_client.get(url("r.md")).text == "old text\n"
    items = history(alice_client, "r.md")
    assert [(i["revision"], i["action"]) for i in items] == [
        (rev + 1, "restore"),
        (rev, "edit"),
        (1, "create"),
    ]
    # Typing right after a restore does not swallow it.
    put(alice_client, "r.md", "old text\nmore\n")
    assert text_at(alice_client, "r.md", rev + 1) == "old text\n"
    assert alice_client.post(url("r.md", "/revisions/99/restore")).status_code == 404


def test_a_rename_keeps_the_history_and_a_delete_keeps_it_until_restored(alice_client):
    put(alice_client, "a.md", "v1\n")
    put(alice_client, "a.md", "v2\n")
    r = alice_client.post(url("a.md", "/move"), json={"to": "b.md"})
    assert r.status_code == 200
    items = history(alice_client, "b.md")
    assert [(i["revision"], i["action"], i["path"]) for i in items] == [
        (3, "move", "b.md"),
        (2, "edit", "a.md"),
        (1, "create", "a.md"),
    ]
    assert text_at(alice_client, "b.md", 1) == "v1\n"
    assert alice_client.delete(url("b.md")).status_code == 204
    items = history(alice_client, "b.md")  # the deleted note's history, at its last path
    assert [i["revision"] for i in items] == [3, 2, 1] and not any(i["current"] for i in items)
    assert text_at(alice_client, "b.md", 3) == "v2\n"
    restored = alice_client.post(url("b.md", "/revisions/1/restore"))
    assert restored.status_code == 200, restored.text
    assert restored.json()["revision"] == 4
    assert alice_client.get(url("b.md")).text == "v1\n"
    assert [i["revision"] for i in history(alice_client, "b.md")] == [4, 3, 2, 1]


def test_deleted_history_is_forgotten_after_thirty_days(app, db_session):
    from backend.services import revisions

    alice = app.state.test_user_ids["alice"]
    service_save(db_session, "d.md", "x", Source.page(alice))
    documents.delete_document(
        db_session, workspace_id="personal", path="d.md", source=Source.page(alice)
    )
    revisions.purge_deleted(db_session, now=utcnow() + timedelta(days=29))
    assert db_session.scalar(select(func.count()).select_from(NoteRevision)) == 1
    revisions.purge_deleted(db_session, now=utcnow() + timedelta(days=31))
    assert db_session.scalar(select(func.count()).select_from(NoteRevision)) == 0


def _deleted_then_recreated(app, db):
    """`g.md` saved three times (three kept rows) and deleted, then a new note at `g.md` saved
    twice: (the deleted note's uid, the new note's uid)."""
    agent = Source.agent(app.state.test_user_ids["alice"], name="bot")  # never coalesces
    old = service_save(db, "g.md", "v1", agent).uid
    for text in ("v2", "v3"):
        service_save(db, "g.md", text, agent)
    documents.delete_document(db, workspace_id="personal", path="g.md", source=agent)
    new = service_save(db, "g.md", "again 1", agent).uid
    service_save(db, "g.md", "again 2", agent)
    assert new != old
    return old, new


def _rows_of(db, uid) -> int:
    db.rollback()  # a fresh read: the purge ran in another session
    return db.scalar(
        select(func.count()).select_from(NoteRevision).where(NoteRevision.document_uid == uid)
    )


def test_start_up_forgets_deleted_history_after_thirty_days_only(
    app, app_factory, db_session, monkeypatch
):
    import backend.app

    old, new = _deleted_then_recreated(app, db_session)
    assert (_rows_of(db_session, old), _rows_of(db_session, new)) == (3, 1)
    deleted_at = utcnow()
    monkeypatch.setattr(backend.app, "utcnow", lambda: deleted_at + timedelta(days=29))
    app_factory()  # a restart on the same database, 29 days on: all kept
    assert (_rows_of(db_session, old), _rows_of(db_session, new)) == (3, 1)
    monkeypatch.setattr(backend.app, "utcnow", lambda: deleted_at + timedelta(days=31))
    app_factory()  # 31 days on: the deleted note's history is gone, the new note's is not
    assert (_rows_of(db_session, old), _rows_of(db_session, new)) == (0, 1)


def test_a_running_server_forgets_deleted_history_periodically(app, db_session, monkeypatch):
    import time

    from fastapi.testclient import TestClient

    import backend.app

    old, new = _deleted_then_recreated(app, db_session)
    later = utcnow() + timedelta(days=31)
    monkeypatch.setattr(backend.app, "utcnow", lambda: later)
    monkeypatch.setattr(backend.app, "HISTORY_PURGE_SECONDS", 0.05)
    with TestClient(app):  # the lifespan: its purge task runs
        deadline = time.monotonic() + 10
        while _rows_of(db_session, old):
            assert time.monotonic() < deadline, "the running server never purged"
            time.sleep(0.05)
    assert _rows_of(db_session, new) == 1


def test_retention_keeps_the_last_hundred_and_the_last_thirty_days(app, db_session):
    alice = app.state.test_user_ids["alice"]
    old = utcnow() - timedelta(days=90)
    agent = Source.agent(alice, name="bot")  # never coalesces
    for i in range(110):
        service_save(db_session, "old.md", f"v{i}", agent, now=old + timedelta(minutes=i))
        service_save(db_session, "new.md", f"v{i}", agent, now=utcnow())
    service_save(db_session, "old.md", "today", agent, now=utcnow())  # prunes by today's date

    def kept(path):
        rows = db_session.scalars(
            select(NoteRevision.revision)
            .where(NoteRevision.path == path)
            .order_by(NoteRevision.revision)
        )
        return list(rows)

    assert kept("old.md") == list(range(11, 111))  # the newest 100 of 110 replaced texts
    assert kept("new.md") == list(range(1, 110))  # all of the last 30 days


def test_a_mebibyte_note_saved_a_hundred_times_costs_a_few_mebibytes(db_session):
    """The storage bound, on the history store itself (a 1 MiB save spends ~1 s in the search
    index, which is not what this measures): 100 replaced 1 MiB texts, each one small edit."""
    from backend.services import revisions

    rng = random.Random(7)
    words = [
        "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(4000)
    ]
    text = "\n".join(" ".join(rng.choices(words, k=12)) for _ in range(13_000))[: 1 << 20]
    now = utcnow()
    texts = {}
    for n in range(1, 101):
        at = rng.randrange(len(text) - 100)
        text = (text[:at] + f" edit {n} " + text[at:])[: 1 << 20]
        texts[n] = text
        head = revisions.Head(
            id=0,
            uid="f" * 32,
            workspace_id="personal",
            path="big.md",
            revision=n,
            bytes=len(text),
            updated_at=now,
            saved_by=None,
            source_kind="agent",
            source_name="bot",
            action="edit",
            run_started_at=None,
        )
        revisions.keep(db_session, head=head, text=text)
        db_session.commit()
    stored = db_session.scalar(select(func.sum(func.length(NoteRevision.body))))
    assert stored < 4 << 20, f"{stored:,} bytes for 100 revisions of a 1 MiB note"
    for n in (1, 2, 50, 51, 99, 100):
        row = revisions.row_at(db_session, uid="f" * 32, revision=n)
        assert revisions.text_of(db_session, row) == texts[n]
    # The same texts from the database alone, as a process that never saw these keyframes.
    revisions.keyframes(db_session).clear()
    for n in (100, 51, 50, 2, 1):
        assert revisions.text_at(db_session, uid="f" * 32, revision=n) == texts[n]
    assert revisions.text_at(db_session, uid="f" * 32, revision=101) is None


def test_listing_is_the_documented_model_and_follows_writes_from_anywhere(
    app, alice_client, bob_client, db_session
):
    """The list is served from per-process caches; what a client reads must still be the
    RevisionList of the OpenAPI document and follow every write, made by any process."""
    from backend.api.routes.documents import RevisionList

    alice, bob = app.state.test_user_ids["alice"], app.state.test_user_ids["bob"]
    listed = app.openapi()["paths"]["/api/workspaces/{ws}/documents/{path}/revisions"]["get"]
    ref = listed["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/RevisionList")
    rev = put(alice_client, "c.md", "one\n", ws="team")
    rev = put(bob_client, "c.md", "two\n", ws="team", if_match=rev)
    r = alice_client.get(url("c.md", "/revisions", ws="team"))
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert RevisionList.model_validate(body).model_dump(mode="json", by_alias=True) == body
    assert [(i["revision"], i["user"], i["byYou"]) for i in body["revisions"]] == [
        (2, "bob", False),
        (1, "alice", True),
    ]
    # Bob reads the same (cached) kept rows: only byYou differs.
    assert [i["byYou"] for i in history(bob_client, "c.md", ws="team")] == [True, False]
    # Writes behind the API's back (another process, say): the next listing has them.
    agent, old = Source.agent(alice, name="bot"), utcnow() - timedelta(days=90)
    for i in range(105):  # 90 days ago: the oldest kept rows are pruned past 100
        service_save(
            db_session, "c.md", f"v{i}\n", agent, ws="team", now=old + timedelta(minutes=i)
        )
    service_save(db_session, "c.md", "today\n", agent, ws="team")  # prunes by today's date
    items = history(alice_client, "c.md", ws="team")
    # The current text, the newest 100 kept, and 1 and 2 (made today, kept 30 days).
    assert [i["revision"] for i in items] == [108, *range(107, 7, -1), 2, 1]
    assert items[0]["current"] and items[0]["source"] == {"kind": "agent", "name": "bot"}
    assert items[0]["sha256"] == hashlib.sha256(b"today\n").hexdigest()[:16]
    assert not any(i["current"] for i in items[1:])
    assert text_at(alice_client, "c.md", 8, ws="team") == "v5\n"  # revision 3 was v0
    # A deleted note: its kept history, no current entry, through the same caches.
    service_save(db_session, "c.md", "last\n", Source.page(bob), ws="team")
    assert alice_client.delete(url("c.md", ws="team")).status_code == 204
    gone = history(alice_client, "c.md", ws="team")
    assert gone[0]["revision"] == 109 and not gone[0]["current"]
    assert text_at(alice_client, "c.md", 109, ws="team") == "last\n"
    assert text_at(alice_client, "c.md", 108, ws="team") == "today\n"


def test_members_only(alice_client, bob_client, client):
    put(alice_client, "p.md", "private\n")
    for path in ("/revisions", "/revisions/1"):
        assert bob_client.get(url("p.md", path)).status_code == 403
        assert client.get(url("p.md", path)).status_code == 401
    assert bob_client.post(url("p.md", "/revisions/1/restore")).status_code == 403
    assert client.post(url("p.md", "/revisions/1/restore")).status_code == 401


def test_notes_named_like_the_history_routes_still_work(alice_client):
    put(alice_client, "revisions", "top-level note\n")
    assert alice_client.get(url("revisions")).text == "top-level note\n"
    put(alice_client, "log/revisions", "not a history\n")
    put(alice_client, "log/revisions/3", "nor this\n")
    # No note "log": the names are notes.
    assert alice_client.get(url("log/revisions")).text == "not a history\n"
    assert alice_client.get(url("log/revisions/3")).text == "nor this\n"
    assert alice_client.delete(url("log/revisions/3")).status_code == 204
    # A note "log" exists too: its history wins on GET, PUT/DELETE still reach the note.
    put(alice_client, "log", "the log\n")
    assert history(alice_client, "log")[0]["revision"] == 1
    assert put(alice_client, "log/revisions", "still writable\n") == 2
    assert alice_client.get(url("nope", "/revisions")).status_code == 404


@pytest.mark.parametrize("bad", ["/revisions/x", "/revisions/-1"])
def test_a_revision_that_is_no_number_is_no_revision(alice_client, bad):
    put(alice_client, "q.md", "q\n")
    assert alice_client.get(url("q.md", bad)).status_code == 404


def test_a_revision_number_beyond_any_revision_is_404(alice_client):
    put(alice_client, "big-n.md", "q\n")
    huge = "/revisions/99999999999999999999"
    assert alice_client.get(url("big-n.md", huge)).status_code == 404
    assert alice_client.post(url("big-n.md", huge + "/restore")).status_code == 404


def test_the_current_hash_is_the_committed_texts_never_a_rolled_back_ones(app, alice_client):
    """A write's text hash is reused by the next listing once it commits; a write rolled back
    leaves none behind, even when its session commits later and another text has taken that
    revision number meanwhile."""
    from tests.conftest import open_db

    alice = app.state.test_user_ids["alice"]
    rev = put(alice_client, "h.md", "one\n", ws="team")
    with open_db(app) as lost:
        head = documents.head_of(lost, workspace_id="team", path="h.md")
        lost.rollback()
        assert head is not None and head.revision == rev
        saved = documents.replace_text(
            lost,
            head=head,
            old_text="one\n",
            content="lost\n",
            size=5,
            source=Source.agent(alice, name="bot"),
            now=utcnow(),
        )
        assert saved is not None and saved.revision == rev + 1
        lost.rollback()
        assert put(alice_client, "h.md", "kept\n", ws="team", if_match=rev) == rev + 1
        service_save(lost, "other.md", "x\n", Source.page(alice), ws="team")  # commits
    items = history(alice_client, "h.md", ws="team")
    assert items[0]["revision"] == rev + 1
    assert items[0]["sha256"] == hashlib.sha256(b"kept\n").hexdigest()[:16]
    assert items[1]["sha256"] == hashlib.sha256(b"one\n").hexdigest()[:16]


def test_keep_mine_keeps_the_text_it_overwrites_as_its_own_revision(alice_client):
    """Two windows of alice's, a same-line conflict, Keep mine: both texts stay in the history,
    though each save alone would coalesce (same user, page edits, within five minutes)."""
    put(alice_client, "k.md", "start\n")  # revision 1: created
    put(alice_client, "k.md", "JR pass 3 days\n")  # A, the main window
    b = put(alice_client, "k.md", "JR pass 7 days\n")  # B, the pop-out: coalesces into A's run
    r = alice_client.put(
        url("k.md"),
        content=b"JR pass 5 days\n",  # C, the main window's Keep mine
        headers={"If-Match": f'"{b}"', CONFLICT_RESOLUTION_HEADER: KEEP_MINE},
    )
    assert r.status_code == 200, r.text
    c = r.json()["revision"]
    items = history(alice_client, "k.md")
    assert [i["revision"] for i in items] == [c, b, 1]
    assert text_at(alice_client, "k.md", b) == "JR pass 7 days\n"
    assert text_at(alice_client, "k.md", c) == "JR pass 5 days\n"
    assert alice_client.get(url("k.md")).text == "JR pass 5 days\n"
    # Without the header the same kind of save coalesces as before: C's text is replaced.
    put(alice_client, "k.md", "JR pass 5 days!\n", if_match=c)
    assert [i["revision"] for i in history(alice_client, "k.md")] == [c + 1, b, 1]


def test_a_conflict_resolution_other_than_keep_mine_is_422_and_saves_nothing(alice_client):
    rev = put(alice_client, "k.md", "start\n")
    r = alice_client.put(
        url("k.md"),
        content=b"other\n",
        headers={"If-Match": f'"{rev}"', CONFLICT_RESOLUTION_HEADER: "keep-theirs"},
    )
    assert r.status_code == 422, r.text
    assert CONFLICT_RESOLUTION_HEADER in r.json()["detail"] and KEEP_MINE in r.json()["detail"]
    assert alice_client.get(url("k.md")).text == "start\n"
    assert [i["revision"] for i in history(alice_client, "k.md")] == [rev]


def test_the_conflict_resolution_header_is_in_the_openapi(client):
    put_op = client.get("/api/openapi.json").json()["paths"][BASE]["put"]
    header = next(p for p in put_op["parameters"] if p["name"] == CONFLICT_RESOLUTION_HEADER)
    assert header["in"] == "header" and header["schema"]["enum"] == [KEEP_MINE]
    assert "422" in put_op["responses"]
