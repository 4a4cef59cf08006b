"""The live-notes stream's events as the page reads them, and its reconnect schedule."""

from __future__ import annotations

import pytest
from app.live.live_model import LiveEvent, parse_event, retry_after


def test_each_event_kind_is_read() -> None:
    source = '"source": {"kind": "agent", "name": "bot"}'
    assert parse_event(
        "saved",
        '{"path": "a.md", "revision": 7, "bytes": 3, "sha256": "' + "0" * 16 + '", ' + source + "}",
    ) == LiveEvent("saved", "a.md", "", "7")
    assert parse_event("moved", '{"from": "a.md", "to": "b/c.md", "revision": 8}') == LiveEvent(
        "moved", "a.md", "b/c.md", "8"
    )
    assert parse_event("deleted", '{"path": "ノート.md"}') == LiveEvent("deleted", "ノート.md")
    assert parse_event("reset", "") == LiveEvent("reset")


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("hello", '{"path": "a.md"}'),
        ("saved", "not json"),
        ("saved", "[1]"),
        ("saved", '{"revision": 1}'),
        ("saved", '{"path": ""}'),
        ("moved", '{"from": "a.md"}'),
        ("saved", '{"path": "a.md", "revision": true}'),
        ("deleted", '{"path": 3}'),
    ],
)
def test_anything_else_is_ignored_not_raised(kind, data) -> None:
    assert parse_event(kind, data) is None


def test_reconnects_quickly_then_every_fifteen_seconds() -> None:
    assert [retry_after(n) for n in (0, 1, 2, 3, 4, 50)] == [1, 2, 4, 8, 15, 15]
