"""A note's history as the page words it: who (you, a member, the assistant, an agent), when."""

from __future__ import annotations

from datetime import UTC, datetime

from app.live.history_model import (
    SOMEONE_SAVED,
    Revision,
    conflict_words,
    parse_revisions,
    when,
)

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def entry(n, kind, name=None, *, by_you=False, user="alice", action="edit", current=False):
    return {
        "revision": n,
        "savedAt": "2026-12-01T11:58:00Z",
        "bytes": 1,
        "sha256": "0" * 16,
        "source": {"kind": kind, "name": name},
        "user": user,
        "byYou": by_you,
        "action": action,
        "path": "a.md",
        "current": current,
    }


def test_each_source_is_named_as_the_user_would_say_it() -> None:
    rows = parse_revisions(
        {
            "revisions": [
                entry(5, "agent", "release-bot", current=True),
                entry(4, "assistant"),
                entry(3, "page", user="bob"),
                entry(2, "page", by_you=True, action="restore"),
                entry(1, "page", by_you=True, action="create"),
            ]
        }
    )
    assert [(r.revision, r.source, r.who, r.what, r.current) for r in rows] == [
        ("5", "agent", "the agent “release-bot”", "edited", True),
        ("4", "assistant", "the assistant", "edited", False),
        ("3", "page", "bob (another member)", "edited", False),
        ("2", "page", "you", "restored an earlier version", False),
        ("1", "page", "you", "created it", False),
    ]
    assert isinstance(rows[0], Revision)


def test_malformed_answers_give_no_rows_instead_of_failing() -> None:
    assert parse_revisions(None) == [] and parse_revisions({"revisions": "x"}) == []
    assert parse_revisions({"revisions": [{"revision": True}, 3, {"nope": 1}]}) == []


def test_when_is_relative_for_recent_changes_and_a_date_after_a_day() -> None:
    assert when("2026-12-01T11:59:30Z", NOW) == "11:59:30 UTC, just now"
    assert when("2026-12-01T11:58:00+00:00", NOW) == "11:58:00 UTC, 2 min ago"
    assert when("2026-12-01T09:00:00Z", NOW) == "09:00:00 UTC, 3 h ago"
    assert when("2026-11-20T08:05:00Z", NOW) == "2026-11-20 08:05 UTC"
    assert when("yesterday", NOW) == "yesterday"


def test_when_shows_the_clock_time_on_the_users_clock() -> None:
    """Ten saves within a minute read apart (issue 34: all said "just now", no time)."""
    assert when("2026-12-01T11:59:30Z", NOW, 300) == "06:59:30, just now"  # UTC−5
    assert when("2026-12-01T11:59:31Z", NOW, -60) == "12:59:31, just now"  # UTC+1
    assert when("2026-11-20T23:05:00Z", NOW, -120) == "2026-11-21 01:05"


def test_a_conflict_names_who_made_the_other_change():
    rows = parse_revisions(
        {
            "revisions": [
                entry(4, "page", by_you=True, current=True),
                entry(3, "page", user="bob"),
                entry(2, "assistant"),
                entry(1, "agent", "Claude Code"),
            ]
        }
    )
    mine = "Another window of yours saved this note while you were editing it here."
    assert conflict_words(rows, "4", gone=False) == mine
    assert conflict_words(rows, None, gone=False) == mine  # the newest when not named
    assert conflict_words(rows, "3", gone=False) == (
        "bob (another member) saved this note while you were editing it."
    )
    assert conflict_words(rows, "2", gone=False) == (
        "The assistant saved this note while you were editing it."
    )
    assert conflict_words(rows, "1", gone=True) == (
        "The agent “Claude Code” deleted this note while you were editing it."
    )
    assert conflict_words([], "9", gone=False) == SOMEONE_SAVED


def test_the_demo_seed_is_worded_as_the_demos_sample_note() -> None:
    """Issue 34: a seeded note said "another member created it"."""
    rows = parse_revisions(
        {
            "revisions": [
                entry(2, "page", by_you=True),
                entry(1, "page", "demo", user=None, action="create"),
            ]
        }
    )
    assert [(r.who, r.what) for r in rows] == [
        ("you", "edited"),
        ("the demo", "put it here as a sample note"),
    ]
    # A member's page save never reads as the demo, whatever the name says.
    assert parse_revisions({"revisions": [entry(1, "page", "demo", user="bob")]})[0].who == (
        "bob (another member)"
    )
