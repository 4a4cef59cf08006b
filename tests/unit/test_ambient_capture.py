"""SPEC §3 per-turn capture, driven under CPython with fake frames."""

import asyncio
import base64
import hashlib
import json

from ambient.capture import capture
from ambient.pointer import decode
from ambient.store import AmbientStore
from tests.unit.fakes import FakeRuntime, run_virtual


def run(coro):
    return run_virtual(coro)  # sleeps and timeouts on an injected clock: no real waiting


def wire(header: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))


def test_capture_reads_the_live_text_at_send_time():
    frame = FakeRuntime("f1", "notes/a.md", text="first")
    store = AmbientStore()
    store.publish(frame)
    frame.text = "first, then more typing"  # typed after publishing, before the send
    result = run(capture(store))
    assert result.outcome == "sent"
    data = frame.text.encode()
    assert result.pointer.bytes == len(data)
    assert result.pointer.sha256 == hashlib.sha256(data).hexdigest()[:16]
    assert result.pointer.flushed is True and frame.flushes == 1
    assert decode(result.header) == result.pointer


def test_selection_only_in_edit_view():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", "edit", "hello", {"anchor": 1, "head": 4}))
    assert wire(run(capture(store)).header)["selection"] == {"anchor": 1, "head": 4}
    store.publish(FakeRuntime("f1", "a.md", "preview", "hello", {"anchor": 1, "head": 4}))
    assert "selection" not in wire(run(capture(store)).header)


def test_slow_flush_is_bounded_and_reported_unflushed():
    store = AmbientStore()
    slow = FakeRuntime("f1", "a.md", text="x", flush_delay=1.0)
    store.publish(slow)

    async def bounded():
        result = await capture(store, flush_limit=0.2)
        return result, slow.flushes  # read as capture returns: the 1 s flush has not ended

    result, flushes_done = run(bounded())
    assert flushes_done == 0  # capture did not wait for the flush: the bound held
    assert result.outcome == "sent" and result.pointer.flushed is False


def test_a_failed_flush_is_reported_unflushed():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", text="x"))
    store.publish(FakeRuntime("f2", "b.md", text="y", flush_ok=False))  # the server refused
    store.activate("f1", "inbox")
    result = run(capture(store))
    assert result.pointer.path == "a.md" and result.pointer.flushed is False


def test_flush_covers_every_frame_of_the_workspace():
    a, b = FakeRuntime("f1", "a.md"), FakeRuntime("f2", "b.md")
    store = AmbientStore()
    store.publish(a)
    store.publish(b)
    store.activate("f1", "inbox")
    result = run(capture(store))
    assert result.pointer.path == "a.md" and a.flushes == b.flushes == 1


def test_clean_frames_need_no_flush():
    a, b = FakeRuntime("f1", "a.md", dirty=False), FakeRuntime("f2", "b.md", flush_delay=0.05)
    store = AmbientStore()
    store.publish(a)
    store.publish(b)
    store.activate("f1", "inbox")
    result = run(capture(store))
    assert result.pointer.flushed is True and (a.flushes, b.flushes) == (0, 1)


def test_saves_still_finishing_for_closed_frames_are_part_of_the_preparation():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", text="x", dirty=False))
    closed = FakeRuntime("gone", "b.md", flush_delay=0.5)  # a closed frame's saver, still busy
    result = run(capture(store, also_flush=[closed], flush_limit=0.1))
    assert result.pointer.path == "a.md" and result.pointer.flushed is False


def test_disabled_sends_nothing_and_reads_nothing():
    frame = FakeRuntime("f1", "a.md", text="x")
    store = AmbientStore()
    store.publish(frame)
    result = run(capture(store, enabled=False))
    assert (result.header, result.outcome, frame.reads, frame.flushes) == (None, "disabled", 0, 0)


def test_no_inbox_means_no_header():
    assert run(capture(AmbientStore())).outcome == "no-note"


def test_workspace_switch_in_flight_discards_the_capture():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", text="x", flush_delay=0.1))

    async def scenario():
        task = asyncio.create_task(capture(store, flush_limit=1.0))
        await asyncio.sleep(0.02)
        store.boundary()
        return await task

    assert run(scenario()).outcome == "discarded"


def test_another_note_resolving_in_flight_discards_the_capture():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", text="x", flush_delay=0.1))

    async def scenario():
        task = asyncio.create_task(capture(store, flush_limit=1.0))
        await asyncio.sleep(0.02)
        store.publish(FakeRuntime("f1", "other.md", text="y"))  # opened another note
        return await task

    result = run(scenario())
    assert (result.outcome, result.header) == ("discarded", None)


def test_a_frame_closed_mid_capture_discards_instead_of_failing():
    class Closing(FakeRuntime):
        async def snapshot(self):
            raise RuntimeError("the frame no longer shows a note")

    store = AmbientStore()
    store.publish(Closing("f1", "a.md", text="x"))
    assert run(capture(store)).outcome == "discarded"


def test_a_boundary_before_the_capture_started_is_seen_through_since_epoch():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", text="x"))
    began = store.epoch
    store.boundary()  # e.g. during the key-session request that precedes the capture
    store.publish(FakeRuntime("f2", "other-workspace.md", text="y"))
    result = run(capture(store, since_epoch=began))
    assert (result.outcome, result.header) == ("discarded", None)


def test_a_header_that_would_pass_2048_bytes_is_omitted_whole():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "/".join(["長い名前のフォルダ" * 3] * 20) + ".md", text="x"))
    result = run(capture(store))
    assert (result.outcome, result.header) == ("too-large", None)


def test_japanese_path_travels_as_raw_utf8():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "日記/今日のメモ.md", text="こんにちは"))
    header = run(capture(store)).header
    raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    assert "日記/今日のメモ.md".encode() in raw and b"\\u" not in raw
