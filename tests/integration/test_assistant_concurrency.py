"""Concurrent sends on one conversation never leave a delivery row that mixes two pointers."""

from __future__ import annotations

import threading

from assistant_helpers import ambient, header_for, key_session, new_id, row, turn
from fastapi.testclient import TestClient

from ambient import pointer as codec

SENDS = 40


def _pointer(i: int) -> codec.Pointer:
    view = codec.VIEWS[i % len(codec.VIEWS)]
    return codec.Pointer(
        path=f"notes/n{i:02d}.md",
        view=view,
        frame_id=f"frame-{i}",
        bytes=1000 + i,
        sha256=codec.sha256_prefix(str(i).encode()),
        flushed=i % 2 == 0,
        captured_at=f"2026-11-29T20:46:{i:02d}.{i:03d}Z",
        selection=codec.Selection(i, i + 1) if view == "edit" else None,
    )


def test_forty_concurrent_turns_leave_one_pointer(app, alice_client):
    key = key_session(alice_client, "personal")
    cid = new_id()  # not created yet: the first turns also race to create it
    made = [_pointer(i) for i in range(SENDS)]
    pointers = {p.path: p for p in made}
    headers = [None if i % 5 == 4 else header_for(made[i]) for i in range(SENDS)]
    barrier = threading.Barrier(SENDS)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def send(i: int) -> None:
        try:
            client = TestClient(app, cookies=alice_client.cookies)
            barrier.wait(timeout=60)
            r = turn(client, cid, "hello", key=key, note=headers[i])
            statuses.append(r.status_code)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    done = threading.Event()
    snapshots: list[tuple] = []

    def watch() -> None:
        # Every committed state seen while the sends run must also be one pointer (or none).
        while not done.is_set():
            if row(app, cid) is not None:
                snapshots.append(ambient(app, cid))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(SENDS)]
    watcher = threading.Thread(target=watch)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    done.set()
    watcher.join(timeout=60)
    assert not errors, errors
    assert statuses == [200] * SENDS

    snapshots.append(ambient(app, cid))
    for path, view, meta in snapshots:
        if path is None:
            assert (view, meta) == (None, None)
        else:
            expected = pointers[path]
            assert (view, meta) == (expected.view, expected.to_meta())
    assert row(app, cid)["key_session_id"] == key
    conv = alice_client.get(f"/api/assistant/conversations/{cid}").json()
    assert len(conv["messages"]) == 2 * SENDS
