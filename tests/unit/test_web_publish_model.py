"""The publishing rules of a window (web/app/agents/publish_model.py), under CPython."""

from __future__ import annotations

import json

from app.agents.publish_model import (
    CHANGE,
    FOCUS,
    HEARTBEAT,
    HEARTBEAT_SECONDS,
    PAUSE,
    Publisher,
    pointer_wire,
)

from ambient.pointer import decode, encode, from_columns

SNAP = {"bytes": 6, "sha256": "5891b5b522d5df08", "selection": {"anchor": 1, "head": 3}}


def wire(path="plan.md", view="edit", snapshot=SNAP, at="2026-11-30T12:00:00.000Z", **kw):
    return pointer_wire(
        frame_id="f1",
        path=path,
        view=view,
        snapshot=snapshot,
        flushed=kw.get("flushed", True),
        captured_at=at,
    )


def on() -> Publisher:
    p = Publisher("win-1")
    p.switch(True)
    return p


def test_the_pointer_is_the_codecs_own_object():
    w = wire()
    assert w == {
        "v": 1,
        "path": "plan.md",
        "view": "edit",
        "frameId": "f1",
        "selection": {"anchor": 1, "head": 3},
        "bytes": 6,
        "sha256": "5891b5b522d5df08",
        "flushed": True,
        "capturedAt": "2026-11-30T12:00:00.000Z",
    }
    assert from_columns(w["path"], w["view"], json.dumps(w)).to_wire() == w
    assert "selection" not in wire(view="preview")


def test_a_pointer_the_codec_refuses_is_none():
    assert wire(path="../x.md") is None
    assert wire(snapshot={"bytes": 1, "sha256": "XYZ", "selection": None}) is None
    assert wire(snapshot={}) is None
    assert wire(path="a/" * 1000 + "b.md") is None  # over 2,048 bytes once encoded
    long_ok = wire(path="a/" * 500 + "b.md")
    assert long_ok is not None and decode(encode_wire(long_ok)) is not None


def encode_wire(w):
    return encode(from_columns(w["path"], w["view"], json.dumps(w)))


def test_nothing_is_published_while_sharing_is_off():
    p = Publisher("win-1")
    for reason in (CHANGE, PAUSE, FOCUS, HEARTBEAT):
        assert p.decide(reason, workspace_id="personal", wire=wire(), now=0) is None
    assert p.close_body("personal") is None


def test_changes_publish_once_and_the_same_measurement_again_costs_nothing():
    p = on()
    body = p.decide(CHANGE, workspace_id="personal", wire=wire(), now=0)
    assert body == {"windowId": "win-1", "workspaceId": "personal", "pointer": wire()}
    p.sent(body, 0)
    later = wire(at="2026-11-30T12:00:05.000Z")  # measured again, nothing changed
    assert p.decide(PAUSE, workspace_id="personal", wire=later, now=5) is None
    assert p.decide(CHANGE, workspace_id="personal", wire=later, now=5) is None
    typed = wire(snapshot={**SNAP, "bytes": 7, "sha256": "0123456789abcdef"})
    assert p.decide(PAUSE, workspace_id="personal", wire=typed, now=6)["pointer"] == typed
    moved = wire(snapshot={**SNAP, "selection": {"anchor": 4, "head": 4}})
    assert p.decide(PAUSE, workspace_id="personal", wire=moved, now=6)["pointer"] == moved
    assert p.decide(CHANGE, workspace_id="personal", wire=wire(view="todo"), now=6)
    assert p.decide(CHANGE, workspace_id="team", wire=wire(), now=6)["workspaceId"] == "team"


def test_focus_always_publishes_a_fresh_capture():
    p = on()
    p.sent(p.decide(CHANGE, workspace_id="personal", wire=wire(), now=0), 0)
    fresh = wire(at="2026-11-30T12:01:00.000Z")
    assert p.decide(FOCUS, workspace_id="personal", wire=fresh, now=60)["pointer"] == fresh


def test_no_note_publishes_null_only_after_something_was_published():
    p = on()
    assert p.decide(CHANGE, workspace_id="personal", wire=None, now=0) is None
    p.sent(p.decide(CHANGE, workspace_id="personal", wire=wire(), now=0), 0)
    body = p.decide(CHANGE, workspace_id="personal", wire=None, now=1)
    assert body["pointer"] is None
    p.sent(body, 1)
    assert p.decide(CHANGE, workspace_id="personal", wire=None, now=2) is None
    assert p.decide(CHANGE, workspace_id=None, wire=wire(), now=2) is None  # signed out


def test_the_heartbeat_repeats_the_last_pointer_unchanged_while_visible():
    p = on()
    assert p.decide(HEARTBEAT, workspace_id="personal", wire=None, now=500) is None
    body = p.decide(CHANGE, workspace_id="personal", wire=wire(), now=0)
    p.sent(body, 0)
    assert (
        p.decide(HEARTBEAT, workspace_id="personal", wire=None, now=HEARTBEAT_SECONDS - 1) is None
    )
    due = p.decide(HEARTBEAT, workspace_id="personal", wire=None, now=HEARTBEAT_SECONDS)
    assert due is body  # the same capture time: the server only refreshes it
    assert p.decide(HEARTBEAT, workspace_id="personal", wire=None, now=1000, visible=False) is None
    assert HEARTBEAT_SECONDS < 120
    p.sent(p.decide(CHANGE, workspace_id="personal", wire=None, now=1000), 1000)
    assert p.decide(HEARTBEAT, workspace_id="personal", wire=None, now=5000) is None


def test_switching_and_a_409_start_from_nothing():
    p = on()
    p.sent(p.decide(CHANGE, workspace_id="personal", wire=wire(), now=0), 0)
    p.refused()
    assert not p.enabled and p.decide(FOCUS, workspace_id="personal", wire=wire(), now=1) is None
    p.switch(True)
    assert p.decide(CHANGE, workspace_id="personal", wire=wire(), now=2) is not None
    assert p.close_body("personal") == {
        "windowId": "win-1",
        "workspaceId": "personal",
        "pointer": None,
    }
    assert p.close_body(None) is None


def test_events_waiting_behind_a_publication_fold_into_the_strongest():
    from app.agents.publish_model import CHANGE, FOCUS, HEARTBEAT, PAUSE, Pending

    pending = Pending()
    assert pending.take() is None
    for reason in (HEARTBEAT, CHANGE, HEARTBEAT):
        pending.add(reason)
    assert pending.take() == CHANGE  # a heartbeat never downgrades a waiting change
    assert pending.take() is None  # taken: nothing waits any more
    for reason in (PAUSE, FOCUS, CHANGE):
        pending.add(reason)
    assert pending.take() == FOCUS
    pending.add(CHANGE)
    pending.add(PAUSE)  # equal rank: the later one waits
    assert pending.take() == PAUSE
