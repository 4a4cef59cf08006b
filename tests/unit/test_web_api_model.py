"""Document URLs, error wording and the pop-out window's query."""

from __future__ import annotations

from app.api_model import (
    ApiError,
    OfflineError,
    describe,
    doc_url,
    human_size,
    parse_etag,
    parse_query,
    popout_request,
    popout_url,
    short_time,
)


def test_doc_url_encodes_each_segment() -> None:
    assert doc_url("team", "日記/a b.md") == (
        "/api/workspaces/team/documents/%E6%97%A5%E8%A8%98/a%20b.md"
    )
    assert doc_url("team", "a#b?.md", "move").endswith("/documents/a%23b%3F.md/move")


def test_errors_become_sentences() -> None:
    assert describe(ApiError.from_response(409, '{"detail": "Stale."}')) == "Stale."
    assert describe(ApiError.from_response(413, "not json")).startswith("The note is too large")
    assert "can't be reached" in describe(OfflineError())
    assert describe(KeyError("x")) == "Something went wrong (KeyError). Please try again."


def test_etag_parsing() -> None:
    assert parse_etag('"12"') == "12"
    assert parse_etag('W/"7"') == "7"
    assert parse_etag(None) is None


def test_popout_round_trip() -> None:
    url = popout_url("inbox", "f-1", "team", "日記/メモ.md", "todo", extra={"c": "x y"})
    request = popout_request(parse_query(url[1:]))
    assert request == {
        "kind": "inbox",
        "frame": "f-1",
        "ws": "team",
        "path": "日記/メモ.md",
        "view": "todo",
    }
    assert parse_query(url[1:])["c"] == "x y"


def test_main_window_and_bad_queries_are_not_popouts() -> None:
    assert popout_request(parse_query("")) is None
    assert popout_request(parse_query("?popout=evil")) is None
    assert popout_request(parse_query("?popout=inbox&view=bogus"))["view"] == "edit"


def test_formatting() -> None:
    assert human_size(10) == "10 B" and human_size(2048) == "2.0 KiB"
    assert human_size(3 * 1024 * 1024) == "3.0 MiB"
    assert short_time("2024-05-01T12:34:56.789Z") == "2024-05-01 12:34"
