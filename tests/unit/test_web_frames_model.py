"""A frame's Back/Forward history and the saved layout restored after a reload."""

from __future__ import annotations

import pytest
from app.frames.frames_model import HISTORY_LIMIT, History, decode, encode, storage_key


def test_back_and_forward_like_a_browser() -> None:
    history = History()
    assert history.go(-1) is None and not history.can_go(-1)
    for path in ("a.md", "b.md", "c.md"):
        history.visit(path)
    history.visit("c.md")  # showing the same note again is not a new step
    assert history.go(-1) == "b.md"
    assert history.go(-1) == "a.md"
    assert history.go(-1) is None and history.current == "a.md"
    assert history.go(1) == "b.md"
    history.visit("d.md")  # a new note ends the forward part
    assert history.paths == ["a.md", "b.md", "d.md"] and not history.can_go(1)


def test_history_follows_renames_and_deletes_and_is_bounded() -> None:
    history = History(["a.md", "b.md", "a.md", "c.md"], index=2)
    history.rename("a.md", "z.md")
    assert history.paths == ["z.md", "b.md", "z.md", "c.md"]
    history.drop("z.md")
    assert history.paths == ["b.md", "c.md"] and history.current == "b.md"
    long = History()
    for number in range(HISTORY_LIMIT + 10):
        long.visit(f"{number}.md")
    assert len(long.paths) == HISTORY_LIMIT and long.current == f"{HISTORY_LIMIT + 9}.md"


def test_layout_round_trip() -> None:
    frames = [
        {"kind": "assistant"},
        {
            "kind": "inbox",
            "path": "日記/今日.md",
            "view": "preview",
            "history": ["todo.md", "日記/今日.md"],
            "index": 1,
        },
        {"kind": "files"},
    ]
    assert decode(encode(frames, 1)) == (frames, 1)
    assert storage_key("alice", "team") != storage_key("alice", "personal")


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "{",
        "[]",
        '{"frames": 3}',
        '{"frames": [1, "x"]}',
        '{"frames": [{"kind": "evil"}]}',
    ],
)
def test_unreadable_layouts_are_empty(raw) -> None:
    assert decode(raw) == ([], None)


def test_bad_fields_are_mended() -> None:
    frames, active = decode(
        '{"frames": [{"kind": "inbox", "path": 3, "view": "x", '
        '"history": [1, "a.md", ""], "index": "2"}], "active": 7}'
    )
    assert frames == [
        {"kind": "inbox", "path": "", "view": "edit", "history": ["a.md"], "index": -1}
    ]
    assert active is None
