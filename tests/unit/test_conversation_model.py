"""The conversation list's pure parts: parsing, labels, suggestions and a link's line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.chat.conversation_model import (
    SUGGESTIONS,
    Listed,
    ListMove,
    ago,
    count_label,
    delete_url,
    line_of,
    list_key,
    list_url,
    parse_listing,
    shown_title,
    without,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_urls_quote_what_they_carry():
    assert list_url("team") == "/api/assistant/conversations?workspaceId=team"
    assert list_url("a b&c") == "/api/assistant/conversations?workspaceId=a%20b%26c"
    assert delete_url("1234-ab") == "/api/assistant/conversations/1234-ab"
    assert delete_url("../x") == "/api/assistant/conversations/..%2Fx"


def test_the_listing_is_parsed_and_malformed_entries_are_left_out():
    data = {
        "conversations": [
            {
                "conversationId": "a",
                "title": "hello",
                "updatedAt": "2026-12-01T11:59:30Z",
                "messageCount": 4,
            },
            {"title": "no id"},
            "junk",
            {"conversationId": "b", "title": None, "messageCount": "x"},
        ]
    }
    assert parse_listing(data) == [
        Listed("a", "hello", "2026-12-01T11:59:30Z", 4),
        Listed("b", "", "", 0),
    ]
    assert parse_listing(None) == [] and parse_listing({"conversations": 3}) == []


def test_titles_sit_on_one_line_and_are_never_empty():
    assert shown_title(Listed("a", "first line\n\nsecond  line", "", 1)) == "first line second line"
    assert shown_title(Listed("a", "  ", "", 1)) == "(no message)"
    assert count_label(1) == "1 message" and count_label(4) == "4 messages"


def test_ago_says_how_long_in_a_few_characters():
    def at(delta: timedelta) -> str:
        return (NOW - delta).isoformat().replace("+00:00", "Z")

    assert ago(at(timedelta(seconds=20)), NOW) == "just now"
    assert ago(at(timedelta(minutes=5, seconds=3)), NOW) == "5 min ago"
    assert ago(at(timedelta(hours=3)), NOW) == "3 h ago"
    assert ago(at(timedelta(days=2)), NOW) == "2 d ago"
    assert ago(at(timedelta(days=30)), NOW) == "2026-11-01"
    assert ago("2026-12-01T11:00:00", NOW) == "1 h ago"  # no zone: UTC, as the server stores
    assert ago("yesterday", NOW) == ""


def test_without_drops_one_conversation():
    items = [Listed("a", "x", "", 1), Listed("b", "y", "", 2)]
    assert without(items, "a") == [Listed("b", "y", "", 2)]
    assert without(items, "zzz") == items


def test_suggestions_are_requests_the_offline_assistant_does():
    labels = [s.label for s in SUGGESTIONS]
    assert {"summarise this", "add a todo: …", "このノートを要約して"} <= set(labels)
    todo = next(s for s in SUGGESTIONS if s.label.startswith("add a todo"))
    assert not todo.send and todo.text == "add a todo: "  # the user finishes it
    assert all(s.send for s in SUGGESTIONS if s is not todo)


def test_a_links_line_is_read_only_when_it_is_one():
    assert line_of("5") == 5
    assert line_of(None) is None  # a link to a whole note carries no line
    assert line_of("null") is None and line_of("") is None and line_of("0") is None


IDS = ["c1", "c2", "c3"]


def test_arrows_home_and_end_move_and_stop_at_the_ends():
    assert list_key(IDS, "c1", "ArrowDown") == ListMove("c2")
    assert list_key(IDS, "c3", "ArrowDown") == ListMove("c3")
    assert list_key(IDS, "c2", "ArrowUp") == ListMove("c1")
    assert list_key(IDS, "c1", "ArrowUp") == ListMove("c1")
    assert list_key(IDS, "c2", "Home") == ListMove("c1")
    assert list_key(IDS, "c1", "End") == ListMove("c3")
    assert list_key(IDS, "gone", "ArrowDown") == ListMove("c2")  # an unknown row is the first


def test_delete_asks_and_right_reaches_the_delete_button_other_keys_are_left_alone():
    assert list_key(IDS, "c2", "Delete") == ListMove("c2", "delete")
    assert list_key(IDS, "c2", "ArrowRight") == ListMove("c2", "actions")
    for key in ("Enter", " ", "Tab", "a", "ArrowLeft", "Escape"):
        assert list_key(IDS, "c2", key) is None, key
    assert list_key([], "c1", "ArrowDown") is None
