"""The Trash dialog's rows and restore requests (web/app/notes/trash_model.py, SPEC §18)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.notes.trash_model import (
    Trashed,
    free_path,
    parse_trash,
    restore_body,
    restore_url,
    size_text,
    trash_url,
)

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def test_the_answer_becomes_rows_in_its_order_and_bad_entries_are_skipped() -> None:
    answer = {
        "notes": [
            {"path": "b.md", "deletedAt": "2026-12-03T11:55:00Z", "bytes": 4, "id": "u2"},
            {"path": "日記/a.md", "deletedAt": "2026-11-20T08:00:00+00:00", "bytes": 2048},
            {"path": 3},
            "junk",
            {"path": "c.md", "bytes": True},
        ]
    }
    rows = parse_trash(answer, NOW)
    assert [r.path for r in rows] == ["b.md", "日記/a.md", "c.md"]
    assert rows[0] == Trashed("b.md", "u2", "deleted 5 min ago", "4 bytes")
    assert rows[1].deleted == "deleted 2026-11-20 08:00 UTC" and rows[1].size == "2.0 KB"
    assert rows[2].size == "" and rows[2].deleted == "deleted"
    assert parse_trash(None, NOW) == [] and parse_trash({"notes": "x"}, NOW) == []


def test_sizes_read_as_words() -> None:
    assert [size_text(n) for n in (1, 0, 1023, 1536, 3 << 20)] == [
        "1 byte",
        "0 bytes",
        "1023 bytes",
        "1.5 KB",
        "3.0 MB",
    ]


def test_a_restore_names_the_very_note_and_only_a_new_path() -> None:
    row = Trashed("a.md", "u1", "", "")
    assert restore_body(row) == {"path": "a.md", "id": "u1"}
    assert restore_body(row, "a.md") == {"path": "a.md", "id": "u1"}
    assert restore_body(row, "b/a.md") == {"path": "a.md", "id": "u1", "to": "b/a.md"}
    assert restore_body(Trashed("a.md", "", "", "")) == {"path": "a.md"}


def test_a_free_path_is_suggested_beside_a_taken_one() -> None:
    assert free_path("a/notes.md", {"a/notes.md"}) == "a/notes (restored).md"
    taken = {"notes.md", "notes (restored).md"}
    assert free_path("notes.md", taken) == "notes (restored 2).md"
    assert free_path("README", set()) == "README (restored)"


def test_urls_encode_the_workspace() -> None:
    assert trash_url("team") == "/api/workspaces/team/trash"
    assert restore_url("a b") == "/api/workspaces/a%20b/trash/restore"
