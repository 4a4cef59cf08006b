"""Export and import (SPEC §18) on both databases: byte-for-byte notes, who may do what, every
hostile zip refused whole, the conflict choices, history and live events, a round trip."""

from __future__ import annotations

import io
import os
import random
import zipfile
from urllib.parse import quote

import pytest
from conftest import open_db, seed_world, sign_in
from fastapi.testclient import TestClient
from live_helpers import Live
from test_events import stream

from backend.services import users, workspaces

NOTES = {
    "a.md": b"# A\n\nplain\n",
    "crlf.md": b"line one\r\nline two\r\n",
    "front.md": b"---\r\ntitle: Front\r\ntags: [x, y]\r\n---\n\nbody\n",
    "bom.md": b"\xef\xbb\xbfwith a BOM\n",
    "no-newline.md": b"no newline at the end",
    "\u65e5\u672c\u8a9e/\u30e1\u30e2.md": "\u65e5\u672c\u8a9e\u306e\u30e1\u30e2\n".encode(),
    "deep/er/still/n.markdown": b"deep\n",
    "empty.md": b"",
}


def doc_url(ws: str, path: str) -> str:
    return f"/api/workspaces/{ws}/documents/{quote(path)}"


def make_zip(entries: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def post_zip(client: TestClient, ws: str, data: bytes, *, name="vault.zip", on_conflict=None):
    form = {"onConflict": on_conflict} if on_conflict else None
    return client.post(
        f"/api/workspaces/{ws}/import",
        files={"file": (name, data, "application/zip")},
        data=form,
    )


def entries_of(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def paths(client: TestClient, ws: str) -> list[str]:
    r = client.get(f"/api/workspaces/{ws}/documents")
    assert r.status_code == 200, r.text
    return [d["path"] for d in r.json()]


def raw(client: TestClient, ws: str, path: str) -> bytes:
    r = client.get(doc_url(ws, path))
    assert r.status_code == 200, r.text
    return r.content


@pytest.fixture
def carol(app) -> TestClient:
    """A reader of `team`."""
    with open_db(app) as db:
        user = users.create_user(
            db, username="carol", password="carol-password-1", passwords=app.state.passwords
        )
        workspaces.add_member(db, workspace_id="team", user_id=user.id, role=workspaces.READER)
        db.commit()
    return sign_in(TestClient(app), "carol", "carol-password-1")


# --- export ----------------------------------------------------------------------------------


def test_export_gives_every_note_at_its_path_byte_for_byte(alice_client):
    for path, data in NOTES.items():
        assert alice_client.put(doc_url("personal", path), content=data).status_code == 201
    r = alice_client.get("/api/workspaces/personal/export")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/zip"
    assert r.headers["content-disposition"] == 'attachment; filename="personal.zip"'
    assert entries_of(r.content) == NOTES
    with zipfile.ZipFile(io.BytesIO(r.content)) as zf:
        assert zf.testzip() is None
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_DEFLATED}


def test_export_of_a_folder_and_of_an_empty_workspace(alice_client):
    for path in ("keep/a.md", "keep/sub/b.md", "keeper.md", "other/c.md"):
        alice_client.put(doc_url("personal", path), content=path.encode())
    r = alice_client.get("/api/workspaces/personal/export", params={"folder": "keep"})
    assert r.status_code == 200
    assert entries_of(r.content) == {"keep/a.md": b"keep/a.md", "keep/sub/b.md": b"keep/sub/b.md"}
    assert r.headers["content-disposition"] == 'attachment; filename="personal-keep.zip"'
    r = alice_client.get("/api/workspaces/personal/export", params={"folder": "keep/"})
    assert len(entries_of(r.content)) == 2
    r = alice_client.get("/api/workspaces/personal/export", params={"folder": "../x"})
    assert r.status_code == 400
    r = alice_client.get("/api/workspaces/team/export")
    assert r.status_code == 200 and entries_of(r.content) == {}


def test_a_non_ascii_folder_name_is_sent_as_rfc_5987(alice_client):
    alice_client.put(doc_url("personal", "\u65e5\u8a18/a.md"), content=b"x")
    r = alice_client.get("/api/workspaces/personal/export", params={"folder": "\u65e5\u8a18"})
    assert r.headers["content-disposition"] == (
        "attachment; filename=\"personal-__.zip\"; filename*=UTF-8''personal-%E6%97%A5%E8%A8%98.zip"
    )


def test_readers_export_but_cannot_import_and_strangers_do_neither(
    app, alice_client, bob_client, carol, client
):
    alice_client.put(doc_url("team", "t.md"), content=b"team note")
    r = carol.get("/api/workspaces/team/export")
    assert r.status_code == 200 and entries_of(r.content) == {"t.md": b"team note"}
    r = post_zip(carol, "team", make_zip({"new.md": b"x"}))
    assert r.status_code == 403
    assert paths(alice_client, "team") == ["t.md"]
    assert bob_client.get("/api/workspaces/personal/export").status_code == 403
    assert post_zip(bob_client, "personal", make_zip({"new.md": b"x"})).status_code == 403
    assert client.get("/api/workspaces/team/export").status_code == 401
    assert post_zip(client, "team", make_zip({"new.md": b"x"})).status_code == 401
    assert paths(alice_client, "personal") == []
    # An editor imports.
    r = post_zip(bob_client, "team", make_zip({"new.md": b"x"}))
    assert r.status_code == 200, r.text
    assert paths(alice_client, "team") == ["new.md", "t.md"]


# --- import ----------------------------------------------------------------------------------


def test_import_makes_notes_byte_for_byte_and_ignores_what_is_not_a_note(alice_client):
    entries = {
        **NOTES,
        ".obsidian/app.json": b"{}",
        ".trash/old.md": b"old",
        "__MACOSX/._a.md": b"\x00\x05",
        ".DS_Store": b"\x00",
        "folder/.hidden.md": b"hidden",
        "notes.txt": b"text",
        "canvas.canvas": b"{}",
    }
    r = post_zip(alice_client, "personal", make_zip(entries))
    assert r.status_code == 200, r.text
    report = r.json()
    assert sorted(report["imported"]) == sorted(NOTES)
    assert sorted(report["ignored"]) == sorted(set(entries) - set(NOTES))
    assert report["skipped"] == report["replaced"] == report["renamed"] == []
    assert sorted(paths(alice_client, "personal")) == sorted(NOTES)
    for path, data in NOTES.items():
        assert raw(alice_client, "personal", path) == data


def test_folder_entries_and_stored_entries_are_fine(alice_client):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("dir/"), b"")
        zf.writestr("dir/a.md", b"stored", compress_type=zipfile.ZIP_STORED)
    r = post_zip(alice_client, "personal", buf.getvalue())
    assert r.status_code == 200, r.text
    assert r.json()["imported"] == ["dir/a.md"]


def test_nfd_names_are_stored_in_nfc(alice_client):
    r = post_zip(alice_client, "personal", make_zip({"cafe\u0301.md": b"x"}))
    assert r.json()["imported"] == ["caf\u00e9.md"]
    assert raw(alice_client, "personal", "caf\u00e9.md") == b"x"


def _lying(entries: dict[str, bytes], change) -> bytes:
    """A zip whose central directory says what `change(info)` makes it say."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        for info in zf.infolist():
            if info.filename != "first.md":
                change(info)
    return buf.getvalue()


def _symlink(info: zipfile.ZipInfo) -> None:
    info.external_attr = (0o120777 << 16) | info.external_attr & 0xFFFF


def _encrypted(info: zipfile.ZipInfo) -> None:
    info.flag_bits |= 0x1


def _huge(info: zipfile.ZipInfo) -> None:
    info.file_size = 600 * 1024 * 1024


def _smaller(info: zipfile.ZipInfo) -> None:
    info.file_size -= 3


def _larger(info: zipfile.ZipInfo) -> None:
    info.file_size += 3


BIG_TEXT = os.urandom(800_000).hex()[: 1024 * 1024 + 1].encode()  # over 1 MiB, ratio ~2
HOSTILE = {
    "absolute": ({"/etc/evil.md": b"x"}, None, 400, "has an absolute path"),
    "drive": ({"C:/evil.md": b"x"}, None, 400, "has an absolute path"),
    "backslash": ({"a\\..\\evil.md": b"x"}, None, 400, "uses '\\'"),
    "dotdot": ({"a/../../evil.md": b"x"}, None, 400, "'..'"),
    "leading-dotdot": ({"../evil.md": b"x"}, None, 400, "'..'"),
    "symlink": ({"link.md": b"/etc/passwd"}, _symlink, 400, "is a link"),
    "encrypted": ({"secret.md": b"x" * 50}, _encrypted, 400, "is encrypted"),
    "control": ({"bad\x07name.md": b"x"}, None, 400, "path rules"),
    "bidi": ({"evil\u202egnp.md": b"x"}, None, 400, "path rules"),
    "long-segment": ({"a" * 300 + ".md": b"x"}, None, 400, "path rules"),
    "note-too-big": ({"big.md": BIG_TEXT}, None, 413, "a note may have at most"),
    "ratio-bomb": ({"bomb.md": b"\0" * (8 * 1024 * 1024)}, None, 413, "compressed more than"),
    "total": ({"huge.bin": b"y" * 1000}, _huge, 413, "512 MiB"),
    "not-utf8": ({"latin.md": "caf\u00e9".encode("latin-1")}, None, 400, "not UTF-8"),
    "nul": ({"nul.md": b"a\0b"}, None, 400, "NUL"),
    "twice": ({"dup.md": b"1", "dup.md ": b"2"}, None, None, None),
    "header-smaller": ({"lie.md": b"hello world"}, _smaller, 400, "damaged"),
    "header-larger": ({"lie.md": b"hello world"}, _larger, 400, None),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_zip_fails_whole_naming_the_entry(alice_client, case):
    entries, change, status, words = HOSTILE[case]
    if case == "twice":  # two entries of one name: zipfile warns, the import refuses
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("first.md", b"fine")
            zf.writestr("dup.md", b"1")
            with pytest.warns(UserWarning):
                zf.writestr("dup.md", b"2")
        data, status, words, bad = buf.getvalue(), 400, "twice", "dup.md"
    else:
        entries = {"first.md": b"a fine note first", **entries}
        data = _lying(entries, change) if change else make_zip(entries)
        bad = next(name for name in entries if name != "first.md")
    r = post_zip(alice_client, "personal", data)
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert "nothing was imported" in detail
    if words:
        assert words in detail
    if not any(ord(c) < 32 or 0x202A <= ord(c) <= 0x202E for c in bad):
        assert bad[:50] in detail
    assert paths(alice_client, "personal") == []


def test_more_than_20000_entries_fail_whole(alice_client):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for n in range(20_001):
            zf.writestr(f"n{n}.md", b"")
    r = post_zip(alice_client, "personal", buf.getvalue())
    assert r.status_code == 413, r.text
    assert '"n20000.md"' in r.json()["detail"]
    assert paths(alice_client, "personal") == []


@pytest.mark.parametrize(
    "data",
    [b"", b"not a zip at all", make_zip({"a.md": b"x" * 1000})[:-30]],
    # Named, not printed: the cut zip carries the time it was made, and every test worker
    # must collect the same test ids.
    ids=["empty", "text", "cut-zip"],
)
def test_a_file_that_is_no_zip_is_400(alice_client, data):
    r = post_zip(alice_client, "personal", data)
    assert r.status_code == 400, r.text
    assert paths(alice_client, "personal") == []


def test_a_corrupt_entry_fails_whole(alice_client):
    data = bytearray(make_zip({"first.md": b"fine", "bad.md": b"some text " * 100}))
    at = data.index(b"bad.md") + len(b"bad.md") + 5  # inside its compressed data
    data[at] ^= 0xFF
    r = post_zip(alice_client, "personal", bytes(data))
    assert r.status_code == 400, r.text
    assert "bad.md" in r.json()["detail"]
    assert paths(alice_client, "personal") == []


def test_the_form_must_be_right(alice_client):
    url = "/api/workspaces/personal/import"
    assert alice_client.post(url, content=b"PK").status_code == 400
    r = alice_client.post(url, data={"onConflict": "skip"}, files={"other": ("x", b"y")})
    assert r.status_code == 400 and "'file'" in r.json()["detail"]
    r = post_zip(alice_client, "personal", make_zip({"a.md": b"x"}), on_conflict="merge")
    assert r.status_code == 400 and "onConflict" in r.json()["detail"]
    assert paths(alice_client, "personal") == []


@pytest.mark.parametrize("on_conflict", [None, "skip", "rename", "replace"])
def test_on_conflict(alice_client, on_conflict):
    for path in ("same.md", "dir/same.md", "dir/same-1.md"):
        alice_client.put(doc_url("personal", path), content=b"mine")
    zip_data = make_zip({"same.md": b"theirs", "dir/same.md": b"theirs 2", "new.md": b"new"})
    r = post_zip(alice_client, "personal", zip_data, on_conflict=on_conflict)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["imported"] == ["new.md"]
    if on_conflict in (None, "skip"):
        assert report["skipped"] == ["same.md", "dir/same.md"]
        assert raw(alice_client, "personal", "same.md") == b"mine"
    elif on_conflict == "rename":
        assert report["renamed"] == [
            {"from": "same.md", "to": "same-1.md"},
            {"from": "dir/same.md", "to": "dir/same-2.md"},
        ]
        assert raw(alice_client, "personal", "same.md") == b"mine"
        assert raw(alice_client, "personal", "same-1.md") == b"theirs"
        assert raw(alice_client, "personal", "dir/same-2.md") == b"theirs 2"
    else:
        assert report["replaced"] == ["same.md", "dir/same.md"]
        assert raw(alice_client, "personal", "same.md") == b"theirs"
        history = alice_client.get(doc_url("personal", "same.md") + "/revisions").json()
        texts = [
            alice_client.get(doc_url("personal", "same.md") + f"/revisions/{e['revision']}")
            for e in history["revisions"]
        ]
        assert [t.content for t in texts] == [b"theirs", b"mine"]  # the replaced text is kept
    # Every conflict is in exactly one list.
    assert len(report["skipped"]) + len(report["renamed"]) + len(report["replaced"]) == 2


def test_each_imported_note_is_one_revision_with_the_import_source(alice_client):
    r = post_zip(alice_client, "personal", make_zip({"h.md": b"x"}), name="My vault.zip")
    assert r.status_code == 200
    history = alice_client.get(doc_url("personal", "h.md") + "/revisions").json()["revisions"]
    assert len(history) == 1
    [entry] = history
    assert entry["source"] == {"kind": "import", "name": "My vault.zip"}
    assert (entry["action"], entry["byYou"], entry["user"]) == ("create", True, "alice")
    r = post_zip(
        alice_client,
        "personal",
        make_zip({"h.md": b"y"}),
        name="dir/../再.zip",
        on_conflict="replace",
    )
    history = alice_client.get(doc_url("personal", "h.md") + "/revisions").json()["revisions"]
    assert [e["source"] for e in history] == [
        {"kind": "import", "name": "再.zip"},
        {"kind": "import", "name": "My vault.zip"},
    ]


@pytest.fixture
def live(app_factory):
    app = app_factory(events_keepalive_seconds=0.5)
    seed_world(app)
    server = Live(app)
    yield server
    server.stop()


def test_imported_notes_reach_an_open_event_stream(live):
    alice, bob = live.client("alice"), live.client("bob")
    s = stream(live, bob)
    try:
        alice.put("/api/workspaces/team/documents/old.md", content=b"old")
        assert s.next_event().json()["revision"] == 1
        files = {"file": ("v.zip", make_zip({"old.md": b"new", "n/x.md": b"x"}), "application/zip")}
        r = alice.post("/api/workspaces/team/import", files=files, data={"onConflict": "replace"})
        assert r.status_code == 200, r.text
        seen = {}
        for _ in range(2):
            e = s.next_event()
            assert e.event == "saved"
            seen[e.json()["path"]] = e.json()
        assert seen["old.md"]["revision"] == 2 and seen["n/x.md"]["revision"] == 1
        assert {e["source"]["kind"] for e in seen.values()} == {"import"}
        assert seen["n/x.md"]["source"]["name"] == "v.zip"
    finally:
        s.close()


def vault(n_notes: int = 300, seed: int = 7) -> dict[str, bytes]:
    """A generated vault: nested folders, Japanese names, CRLF, front matter."""
    rng = random.Random(seed)
    folders = ["", "projects", "projects/2026", "日記", "日記/十二月", "a/b/c/d"]
    out: dict[str, bytes] = {}
    for n in range(n_notes):
        folder = rng.choice(folders)
        name = rng.choice(["note", "メモ", "ideas", "会議"]) + f" {n}.md"
        path = f"{folder}/{name}" if folder else name
        newline = rng.choice(["\n", "\r\n"])
        lines = [
            f"# {name}",
            "",
            f"Link to [[note {max(0, n - 1)}]].",
            "本文 " * rng.randint(0, 30),
        ]
        if n % 3 == 0:
            lines = ["---", f"title: {name}", "tags: [a, b]", "---", *lines]
        out[path] = newline.join(lines).encode() + (newline.encode() if n % 5 else b"")
    return out


def test_an_export_imported_into_an_empty_workspace_gives_the_same_paths_and_bytes(
    alice_client,
):
    source = vault()
    r = post_zip(alice_client, "personal", make_zip(source))
    assert r.status_code == 200, r.text
    assert len(r.json()["imported"]) == 300
    exported = alice_client.get("/api/workspaces/personal/export").content
    assert entries_of(exported) == source
    r = post_zip(alice_client, "team", exported, name="personal.zip")
    assert r.status_code == 200, r.text
    again = alice_client.get("/api/workspaces/team/export").content
    assert entries_of(again) == source


# --- attachments ---------------------------------------------------------------------------


def images(n: int = 20, seed: int = 3) -> dict[str, bytes]:
    """`n` pictures (PNG-like bytes; nothing checks more than the name) and an SVG and a PDF."""
    rng = random.Random(seed)
    out = {
        f"attachments/{'写真' if k % 2 else 'img'} {k}.png": b"\x89PNG\r\n\x1a\n"
        + rng.randbytes(rng.randint(100, 5000))
        for k in range(n - 2)
    }
    out["diagrams/flow.svg"] = b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>\n'
    out["papers/paper.PDF"] = b"%PDF-1.4\n" + rng.randbytes(2000)
    return out


def attachment(client: TestClient, ws: str, path: str) -> bytes:
    r = client.get(f"/api/workspaces/{ws}/attachments/{quote(path)}")
    assert r.status_code == 200, r.text
    return r.content


def attachment_paths(client: TestClient, ws: str) -> list[str]:
    r = client.get(f"/api/workspaces/{ws}/attachments")
    assert r.status_code == 200, r.text
    return [a["path"] for a in r.json()["attachments"]]


def test_images_and_pdfs_come_in_as_attachments_and_go_out_stored(alice_client):
    files = images(6)
    r = post_zip(
        alice_client, "personal", make_zip({"n.md": b"![](attachments/img 0.png)", **files})
    )
    assert r.status_code == 200, r.text
    assert sorted(r.json()["imported"]) == sorted(["n.md", *files])
    assert sorted(attachment_paths(alice_client, "personal")) == sorted(files)
    for path, data in files.items():
        assert attachment(alice_client, "personal", path) == data
    r = alice_client.get("/api/workspaces/personal/export")
    assert entries_of(r.content) == {"n.md": b"![](attachments/img 0.png)", **files}
    with zipfile.ZipFile(io.BytesIO(r.content)) as zf:
        kinds = {i.filename: i.compress_type for i in zf.infolist()}
    assert kinds["attachments/img 0.png"] == zipfile.ZIP_STORED
    assert kinds["papers/paper.PDF"] == zipfile.ZIP_STORED
    assert kinds["diagrams/flow.svg"] == zipfile.ZIP_DEFLATED
    assert kinds["n.md"] == zipfile.ZIP_DEFLATED
    r = alice_client.get("/api/workspaces/personal/export", params={"folder": "diagrams"})
    assert list(entries_of(r.content)) == ["diagrams/flow.svg"]


def test_an_attachment_over_its_limit_fails_whole(alice_client):
    big = b"\x89PNG" + os.urandom(20 * 1024 * 1024 - 3)
    data = make_zip({"first.md": b"x", "big.png": big}, method=zipfile.ZIP_STORED)
    r = post_zip(alice_client, "personal", data)
    assert r.status_code == 413, r.text
    assert '"big.png"' in r.json()["detail"] and "an attachment may have" in r.json()["detail"]
    assert paths(alice_client, "personal") == []
    assert attachment_paths(alice_client, "personal") == []


@pytest.mark.parametrize("on_conflict", ["skip", "rename", "replace"])
def test_attachments_on_conflict(alice_client, on_conflict):
    mine, theirs = b"\x89PNG mine", b"\x89PNG theirs"
    r = alice_client.post(
        "/api/workspaces/personal/attachments",
        files={"file": ("a.png", mine, "image/png")},
        data={"path": "pics/a.png"},
    )
    assert r.status_code == 201, r.text
    alice_client.post(
        "/api/workspaces/personal/attachments",
        files={"file": ("same.png", b"\x89PNG same", "image/png")},
        data={"path": "pics/same.png"},
    )
    zip_data = make_zip({"pics/a.png": theirs, "pics/same.png": b"\x89PNG same"})
    report = post_zip(alice_client, "personal", zip_data, on_conflict=on_conflict).json()
    if on_conflict == "skip":
        assert report["skipped"] == ["pics/a.png", "pics/same.png"]
        assert attachment(alice_client, "personal", "pics/a.png") == mine
    elif on_conflict == "rename":
        assert report["renamed"] == [{"from": "pics/a.png", "to": "pics/a-1.png"}]
        assert report["skipped"] == ["pics/same.png"]  # the same bytes are there already
        assert attachment(alice_client, "personal", "pics/a-1.png") == theirs
        assert attachment(alice_client, "personal", "pics/a.png") == mine
    else:
        assert report["replaced"] == ["pics/a.png"] and report["skipped"] == ["pics/same.png"]
        assert attachment(alice_client, "personal", "pics/a.png") == theirs


def test_a_vault_with_pictures_round_trips_byte_for_byte(alice_client):
    source = {**vault(), **images(20)}
    r = post_zip(alice_client, "personal", make_zip(source))
    assert r.status_code == 200, r.text
    assert len(r.json()["imported"]) == 320
    exported = alice_client.get("/api/workspaces/personal/export").content
    assert entries_of(exported) == source
    assert post_zip(alice_client, "team", exported).status_code == 200
    assert entries_of(alice_client.get("/api/workspaces/team/export").content) == source


def test_an_upload_over_the_cap_is_413_before_it_is_read(alice_client):
    from backend.services.transfer import MAX_UPLOAD_BYTES

    r = alice_client.post(
        "/api/workspaces/personal/import",
        content=iter([b"--x\r\n"]),
        headers={
            "Content-Type": "multipart/form-data; boundary=x",
            "Content-Length": str(MAX_UPLOAD_BYTES + 1),
        },
    )
    assert r.status_code == 413, r.text
    assert f"{MAX_UPLOAD_BYTES:,}" in r.json()["detail"]
    assert paths(alice_client, "personal") == []


# --- links after an import --------------------------------------------------------------------


def test_an_imported_vaults_links_lead_to_its_notes_and_its_embed_is_served(alice_client):
    """A vault's `[[wikilinks]]`, `![[embed.png]]` and relative links still lead somewhere
    after the import: resolved by the page's own resolvers (backlinks: links_model; pictures:
    attach_model) and by the server's link rewriter (link_rewrite.Paths), which agree."""
    from app.notes.attach_model import attachment_url, resolve_embed, resolve_image
    from app.notes.links_model import backlinks, links_in

    from backend.services.link_rewrite import Paths

    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    vault = {
        "index.md": b"# Index\r\nsee [[other]], [[Leaf|the leaf]] and [x](sub/other.md)\r\n"
        b"![[embed.png]] ![map](media/embed.png)\r\n",
        "sub/other.md": b"up: [back](../index.md), [[index#Index]]\n",
        "sub/deeper/leaf.md": b"a leaf, no links\n",
        "media/embed.png": png,
        ".obsidian/app.json": b"{}",
    }
    r = post_zip(alice_client, "personal", make_zip(vault))
    assert r.status_code == 200, r.text
    assert r.json()["ignored"] == [".obsidian/app.json"]

    notes = {p: raw(alice_client, "personal", p).decode() for p in paths(alice_client, "personal")}
    files = attachment_paths(alice_client, "personal")
    assert sorted(notes) == ["index.md", "sub/deeper/leaf.md", "sub/other.md"]
    assert files == ["media/embed.png"]

    # What the page's backlinks see: every link leads to a note that is there.
    assert links_in("index.md", notes["index.md"], notes) == {"sub/other.md", "sub/deeper/leaf.md"}
    assert links_in("sub/other.md", notes["sub/other.md"], notes) == {"index.md"}
    assert backlinks("sub/other.md", notes, notes) == ["index.md"]
    assert backlinks("sub/deeper/leaf.md", notes, notes) == ["index.md"]
    assert backlinks("index.md", notes, notes) == ["sub/other.md"]

    # The server's resolver (the one renames rewrite links with) agrees.
    known = Paths(notes, files)
    assert known.wikilink("index.md", "other") == ("sub/other.md", True)
    assert known.wikilink("index.md", "Leaf") == ("sub/deeper/leaf.md", True)
    assert known.relative("index.md", "sub/other.md") == ("sub/other.md", True)
    assert known.relative("sub/other.md", "../index.md") == ("index.md", True)
    assert known.relative("index.md", "media/embed.png") == ("media/embed.png", True)

    # The embed and the picture resolve to the attachment, which is served with its bytes.
    assert resolve_embed("index.md", "embed.png", files) == ("media/embed.png", True)
    assert resolve_image("index.md", "media/embed.png", files) == ("media/embed.png", True)
    r = alice_client.get(attachment_url("personal", "media/embed.png"))
    assert r.status_code == 200, r.text
    assert r.content == png
    assert r.headers["content-type"] == "image/png"
