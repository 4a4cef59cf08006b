"""`ambient-notes export` / `import` (SPEC §18) as real subprocesses, on both databases."""

from __future__ import annotations

import zipfile
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session
from test_cli_people import PASSWORD, cli, plain_error

from backend.db import build_engine
from backend.models import Document, User

VAULT = {
    "a.md": b"# A\r\nfront\r\n",
    "\u65e5\u8a18/\u4eca\u65e5.md": "\u4eca\u65e5\n".encode(),
    "folder/b.markdown": b"---\ntitle: b\n---\nbody",
    ".obsidian/app.json": b"{}",
}
NOTES = {k: v for k, v in VAULT.items() if not k.startswith(".")}


def _zip(entries: dict[str, bytes], path: Path) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def _notes(db_url: str, ws: str) -> dict[str, tuple[str, str | None, str | None]]:
    engine = build_engine(db_url)
    try:
        with Session(engine) as db:
            rows = db.execute(
                select(Document.path, Document.source_kind, Document.source_name, User.username)
                .join(User, User.id == Document.saved_by, isouter=True)
                .where(Document.workspace_id == ws)
            ).all()
            return {r.path: (r.source_kind, r.source_name, r.username) for r in rows}
    finally:
        engine.dispose()


def test_import_and_export_from_the_command_line(tmp_path: Path, db_url: str):
    where = ("--database-url", db_url)
    for name in ("own", "ed", "other"):
        r = cli("users", "add", name, "--password-stdin", *where, stdin=PASSWORD + "\n")
        assert r.returncode == 0, r.stderr
    assert cli("workspaces", "add", "Vault", "--owner", "own", *where).returncode == 0
    assert cli("workspaces", "add", "Copy", "--owner", "other", *where).returncode == 0

    source = _zip(VAULT, tmp_path / "My vault.zip")
    r = cli("import", "vault", str(source), *where)
    assert r.returncode == 0, r.stderr
    assert "Imported 3 files into vault" in r.stdout
    assert "ignored\t.obsidian/app.json" in r.stdout.splitlines()
    # Saved for the workspace's owner by default, with the zip's name as the source.
    assert _notes(db_url, "vault") == {p: ("import", "My vault.zip", "own") for p in NOTES}

    r = cli("import", "vault", str(source), "--on-conflict", "rename", *where)
    assert r.returncode == 0, r.stderr
    assert "renamed\ta.md\ta-1.md" in r.stdout.splitlines()

    out = tmp_path / "out.zip"
    r = cli("export", "vault", str(out), *where)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(out) as zf:
        exported = {i.filename: zf.read(i) for i in zf.infolist()}
    assert {p: exported[p] for p in NOTES} == NOTES
    assert len(exported) == 6
    r = cli("export", "vault", str(tmp_path / "folder.zip"), "--folder", "folder", *where)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(tmp_path / "folder.zip") as zf:
        assert zf.namelist() == ["folder/b-1.markdown", "folder/b.markdown"]

    # --as: an editor or owner of the workspace only.
    r = cli("import", "copy", str(out), "--as", "ed", *where)
    assert r.returncode == 1 and plain_error(r) == "ed is not an editor or owner of copy."
    r = cli("import", "copy", str(out), "--as", "nobody", *where)
    assert r.returncode == 1 and plain_error(r) == "There is no user nobody."
    r = cli("import", "copy", str(out), "--as", "other", *where)
    assert r.returncode == 0, r.stderr
    assert {v for v in _notes(db_url, "copy").values()} == {("import", "out.zip", "other")}


def test_command_line_refusals(tmp_path: Path, db_url: str):
    where = ("--database-url", db_url)
    assert cli("users", "add", "own", "--password-stdin", *where, stdin=PASSWORD + "\n")
    assert cli("workspaces", "add", "Vault", "--owner", "own", *where).returncode == 0
    bad = _zip({"ok.md": b"x", "../evil.md": b"y"}, tmp_path / "bad.zip")
    r = cli("import", "vault", str(bad), *where)
    assert r.returncode == 1
    assert "../evil.md" in plain_error(r) and "nothing was imported" in plain_error(r)
    assert _notes(db_url, "vault") == {}
    r = cli("import", "nope", str(bad), *where)
    assert r.returncode == 1 and plain_error(r) == "There is no workspace nope."
    r = cli("import", "vault", str(tmp_path / "missing.zip"), *where)
    assert r.returncode == 1 and "No such file" in plain_error(r)
    not_zip = tmp_path / "n.zip"
    not_zip.write_bytes(b"hello")
    r = cli("import", "vault", str(not_zip), *where)
    assert r.returncode == 1 and "not a readable zip" in plain_error(r)
    r = cli("import", "vault", str(bad), "--on-conflict", "merge", *where)
    assert r.returncode == 2 and "usage:" in r.stderr
    r = cli("export", "vault", str(tmp_path / "x.zip"), "--folder", "../x", *where)
    assert r.returncode == 1
