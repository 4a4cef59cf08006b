"""The import dialog's pure part (SPEC §18): URLs, the file check, the report's words."""

from __future__ import annotations

import io
import zipfile

from app.transfer.transfer_model import (
    MAX_ZIP_BYTES,
    FolderZip,
    Report,
    export_url,
    failure,
    file_problem,
    folder_name,
    folder_paths,
    folder_problem,
    folder_zip_size,
    import_url,
    packing,
    parse_report,
    progress,
    sections,
    summary,
)


def test_urls():
    assert export_url("personal") == "/api/workspaces/personal/export"
    assert export_url("a b", "日記/x") == (
        "/api/workspaces/a%20b/export?folder=%E6%97%A5%E8%A8%98%2Fx"
    )
    assert import_url("team") == "/api/workspaces/team/import"


def test_file_problem():
    assert file_problem("vault.zip", 10) is None
    assert file_problem("VAULT.ZIP", 10) is None
    assert "Choose a .zip file or a folder first" in (file_problem("", 0) or "")
    assert ".zip" in (file_problem("notes.tar.gz", 10) or "")
    assert "512 MiB" in (file_problem("big.zip", MAX_ZIP_BYTES + 1) or "")


def test_progress_is_a_share():
    assert progress(0, 0) == 0.0
    assert progress(50, 200) == 0.25
    assert progress(300, 200) == 1.0


def test_parse_report_keeps_only_what_is_well_formed():
    report = parse_report(
        {
            "imported": ["a.md", 3, None],
            "renamed": [{"from": "b.md", "to": "b-1.md"}, {"from": 1}, "x"],
            "replaced": "not a list",
            "skipped": ["c.md"],
            "ignored": [".obsidian/app.json"],
        }
    )
    assert report == Report(
        imported=["a.md"],
        renamed=[("b.md", "b-1.md")],
        replaced=[],
        skipped=["c.md"],
        ignored=[".obsidian/app.json"],
    )
    assert parse_report(None) == Report()
    assert parse_report([1]) == Report()


def test_summary_and_sections():
    report = Report(imported=["a.md"], renamed=[("b.md", "b-1.md")], ignored=["x.txt", "y"])
    assert summary(report) == ("Imported 1 file; renamed 1, replaced 0, skipped 0, ignored 2.")
    assert summary(Report(imported=["a", "b"])).startswith("Imported 2 files;")
    assert [(key, lines) for key, _, lines in sections(report)] == [
        ("imported", ["a.md"]),
        ("renamed", ["b.md → b-1.md"]),
        ("ignored", ["x.txt", "y"]),
    ]


def test_failure_words():
    body = (
        '{"detail": "The entry \\"../x.md\\" has a \'..\' or \'.\' segment; nothing was imported."}'
    )
    assert failure(400, body).startswith('The entry "../x.md"')
    assert "did not reach" in failure(0, "")
    assert "nothing was imported" in failure(502, "<html>")
    assert failure(413, "") == failure(413, "not json")


def test_the_history_names_an_import_and_its_zip():
    from app.live.history_model import who

    source = {"kind": "import", "name": "vault.zip"}
    assert who({"source": source, "byYou": True}) == "you, importing “vault.zip”"
    assert who({"source": source, "user": "bob"}) == "bob, importing “vault.zip”"
    assert who({"source": {"kind": "import"}}) == "a member, importing a zip"


# -- a folder chosen in the page (docs/import-export.md) --------------------------------------


def test_folder_paths_drop_the_vault_name_and_keep_everything_else():
    chosen = [
        "My Vault/notes/a.md",
        "My Vault/.obsidian/app.json",
        "My Vault/top.md",
        "My Vault/\u65e5\u8a18/\u30e1\u30e2.md",
        "My Vault/pics/a b.png",
    ]
    assert folder_paths(chosen) == [
        "notes/a.md",
        ".obsidian/app.json",  # the server ignores it and says so; nothing is skipped here
        "top.md",
        "\u65e5\u8a18/\u30e1\u30e2.md",
        "pics/a b.png",
    ]
    assert folder_name(chosen) == "My Vault"
    assert folder_paths(["loose.md"]) == ["loose.md"]
    assert folder_name(["loose.md"]) == "folder"
    assert folder_name([]) == "folder"


def test_the_folder_zip_holds_every_file_byte_for_byte_at_its_size():
    files = {
        "notes/a.md": b"---\r\ntitle: A\r\n---\r\nbody\r\n",
        ".obsidian/app.json": b"{}",
        "\u65e5\u8a18/\u30e1\u30e2.md": "\u672c\u6587\n".encode(),
        "pics/p.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40,
        "empty.md": b"",
    }
    maker = FolderZip()
    pieces = [maker.add(path, data) for path, data in files.items()]
    pieces.append(maker.finish())
    data = b"".join(pieces)
    assert all(pieces[:-1])  # each file's bytes come out as it is added
    assert len(data) == folder_zip_size(list(files), [len(v) for v in files.values()])
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None
        assert {i.filename: zf.read(i) for i in zf.infolist()} == files
        # Stored: a ratio of 1, which the server's zip-bomb check never refuses.
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}


def test_folder_problem_refuses_an_empty_or_too_large_folder_in_words():
    assert folder_problem(["a.md"], [10]) is None
    assert "no files" in (folder_problem([], []) or "")
    too_big = folder_problem(["a.png", "b.png"], [MAX_ZIP_BYTES // 2, MAX_ZIP_BYTES // 2])
    assert too_big is not None
    assert "512 MiB" in too_big and "2 files" in too_big
    # Right at the limit, the zip's own bytes count.
    overhead = folder_zip_size(["a.md"], [0])
    assert folder_problem(["a.md"], [MAX_ZIP_BYTES - overhead]) is None
    assert folder_problem(["a.md"], [MAX_ZIP_BYTES - overhead + 1]) is not None


def test_packing_words():
    assert packing(3, 1200) == "Reading the folder: 3 of 1,200 files…"
