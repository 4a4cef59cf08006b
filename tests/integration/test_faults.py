"""Faults: delivery rows survive a restart and expired ones are purged; a slow store during a
send gives `flushed: false` and the caveat, never a hang.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from conftest import seed_world, sign_in
from fastapi.testclient import TestClient
from reliability_helpers import (
    CAVEAT,
    ambient,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    row,
    set_row,
    tool,
)

from ambient.capture import capture
from ambient.store import AmbientStore
from backend.assistant import deliveries
from backend.db import utcnow

TEXT = "# Restart\n\nThe row must outlive the process.\n"


def test_delivery_rows_survive_a_restart_and_expired_ones_are_purged(app_factory):
    first = app_factory()
    seed_world(first)
    alice = sign_in(TestClient(first), "alice")
    put_note(alice, "personal", "restart.md", TEXT)
    key = key_session(alice, "personal")
    live, stale = new_id(), new_id()
    ok_turn(alice, live, "hello", key=key, note=header_for(pointer(TEXT, "restart.md")))
    ok_turn(alice, stale, "hello", key=key, note=header_for(pointer(TEXT, "restart.md")))
    set_row(first, stale, expires_at=utcnow() - timedelta(seconds=1))
    before = row(first, live)
    cookie = dict(alice.cookies)
    first.state.engine.dispose()  # the process goes away

    second = app_factory()  # a new process on the same database (migrations are a no-op)
    assert row(second, live) == before
    assert ambient(second, live)[0] == "restart.md"
    again = TestClient(second, cookies=cookie)  # the session cookie outlives it too
    result = tool(again, live, "read_active_note")
    assert result["ok"] is True and result["content"] == TEXT and result["stale"] is False

    # The row that expired is purged when the app starts, and so grants nothing ...
    assert row(second, stale) is None
    assert tool(again, stale, "read_active_note")["ok"] is False
    # ... while the next turn (of any conversation) leaves the live row alone.
    ok_turn(again, new_id(), "hello", key=key)
    assert row(second, live) == before


def test_an_expired_row_is_also_purged_by_the_next_turn(app, alice_client):
    key = key_session(alice_client, "personal")
    stale, live = new_id(), new_id()
    ok_turn(alice_client, stale, "hello", key=key)
    ok_turn(alice_client, live, "hello", key=key)
    set_row(app, stale, expires_at=utcnow() - timedelta(seconds=1))
    assert tool(alice_client, stale, "read_active_note")["reason"] == "expired"
    ok_turn(alice_client, new_id(), "hello", key=key)
    assert row(app, stale) is None and row(app, live) is not None


def test_purge_expired_deletes_exactly_the_expired_rows(app, alice_client):
    key = key_session(alice_client, "personal")
    cids = [new_id() for _ in range(5)]
    for cid in cids:
        ok_turn(alice_client, cid, "hello", key=key)
    now = datetime.now(UTC)
    expiries = [
        now - timedelta(hours=1),
        now - timedelta(seconds=1),
        now,
        now + timedelta(seconds=1),
        now + timedelta(minutes=14),
    ]
    for cid, expires_at in zip(cids, expiries, strict=True):
        set_row(app, cid, expires_at=expires_at)
    with app.state.sessionmaker() as db:
        assert deliveries.purge_expired(db, now=now) == 3  # expires_at <= now
    assert [row(app, cid) is not None for cid in cids] == [False, False, False, True, True]


# --- a slow document store during a send ------------------------------------------------------


@dataclass
class SlowSaveFrame:
    """An Inbox frame whose pending save to the document store takes `delay` seconds."""

    frame_id: str
    path: str
    text: str
    delay: float
    save: object
    view: str = "edit"
    saved: bool = False

    async def snapshot(self) -> dict:
        data = self.text.encode("utf-8")
        return {
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()[:16],
            "selection": None,
        }

    async def flush(self) -> None:
        await asyncio.sleep(self.delay)
        self.save(self.text)
        self.saved = True


def test_slow_store_gives_flushed_false_and_the_caveat_never_a_hang(app, alice_client):
    saved_text = "# Draft\n\nfirst paragraph\n"
    put_note(alice_client, "personal", "draft.md", saved_text)
    on_screen = saved_text + "typed just before sending\n"

    def save(text: str) -> None:
        put_note(alice_client, "personal", "draft.md", text)

    async def send_while_saving() -> tuple:
        # A save far slower than the flush limit: capture must return while it still runs.
        frame = SlowSaveFrame("f1", "draft.md", on_screen, delay=3.0, save=save)
        store = AmbientStore()
        store.publish(frame)
        store.activate("f1", "inbox")
        captured = await capture(store, flush_limit=0.1)
        still_saving = not frame.saved
        deadline = time.monotonic() + 30  # the overrunning save was left running, not cancelled
        while not frame.saved and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return captured, still_saving, frame.saved

    captured, still_saving, saved_later = asyncio.run(send_while_saving())
    assert captured.outcome == "sent" and captured.pointer.flushed is False
    # Bounded by the flush limit, not by the slow store: the save was still running.
    assert still_saving and saved_later  # the keystrokes reach the store afterwards

    # The turn goes out with that pointer while the store still holds the older copy.
    key = key_session(alice_client, "personal")
    cid = new_id()
    put_note(alice_client, "personal", "draft.md", saved_text)  # the store is behind again
    body = ok_turn(alice_client, cid, "summarise this", key=key, note=captured.header)
    result = body["toolCalls"][0]["result"]
    assert body["toolCalls"][0]["tool"] == "read_active_note"
    assert result["ok"] is True and result["stale"] is True and result["caveat"] == CAVEAT
    assert result["text"].endswith(CAVEAT)
    assert result["content"] == saved_text  # the saved copy, never presented as current
    assert CAVEAT in body["reply"]  # the offline agent relays the sentence verbatim
    assert ambient(app, cid)[2]["flushed"] is False


def test_flushed_false_alone_raises_the_caveat_even_when_the_hash_matches(app, alice_client):
    """The store caught up by the time the tool reads, but the page could not know: caveat."""
    put_note(alice_client, "personal", "same.md", TEXT)
    key = key_session(alice_client, "personal")
    cid = new_id()
    body = ok_turn(
        alice_client,
        cid,
        "what does this note say?",
        key=key,
        note=header_for(pointer(TEXT, "same.md", flushed=False)),
    )
    result = body["toolCalls"][0]["result"]
    assert result["content"] == TEXT and result["stale"] is True
    assert CAVEAT in body["reply"]
    fresh = ok_turn(
        alice_client,
        cid,
        "what does this note say?",
        key=key,
        note=header_for(pointer(TEXT, "same.md", flushed=True)),
    )
    assert fresh["toolCalls"][0]["result"]["stale"] is False and CAVEAT not in fresh["reply"]
