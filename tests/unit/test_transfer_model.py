"""The import dialog's pure part (SPEC §18): URLs, the file check, the report's words."""

from __future__ import annotations

from app.transfer.transfer_model import (
    MAX_ZIP_BYTES,
    Report,
    export_url,
    failure,
    file_problem,
    import_url,
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
    assert "Choose a .zip file first" in (file_problem("", 0) or "")
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
