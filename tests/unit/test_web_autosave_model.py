"""Autosave: debounce, saving again while edits arrive, offline retry, conflicts, flush."""

from __future__ import annotations

import asyncio

from app.api_model import OfflineError
from app.autosave_model import (
    CONFLICT,
    ERROR,
    OFFLINE,
    SAVED,
    Autosaver,
    PutResult,
)

from tests.unit.fakes import run_virtual


class FakeEditor:
    """The editor side: a change counter and the once-per-dirty callback rule of editor.js."""

    def __init__(self, text: str = "") -> None:
        self.text, self.changes, self.notified = text, 0, False
        self.saver: Autosaver | None = None

    def type(self, more: str) -> None:
        self.text += more
        self.changes += 1
        if not self.notified:
            self.notified = True
            self.saver.changed()

    def read(self) -> tuple[int, str]:
        return self.changes, self.text

    def mark_saved(self, seen: int) -> bool:
        self.notified = self.changes != seen
        return self.notified


class FakeServer:
    """Revisions, stored text, and switches for outages, slowness and other writers."""

    def __init__(self, text: str = "") -> None:
        self.text, self.revision, self.puts = text, 1, []
        self.down = False
        self.hold: asyncio.Event | None = None
        self.apply_then_fail = False

    async def put(self, text: str, revision: str | None) -> PutResult:
        self.puts.append(text)
        if self.hold is not None:
            await self.hold.wait()
        if self.down:
            raise OfflineError("offline — retrying")
        if revision is not None and revision != str(self.revision):
            return PutResult("conflict")
        self.text, self.revision = text, self.revision + 1
        if self.apply_then_fail:  # the write landed, but the answer never arrived
            self.apply_then_fail = False
            raise OfflineError("offline — retrying")
        return PutResult("ok", str(self.revision))

    async def latest(self) -> tuple[str | None, str | None]:
        if self.down:
            raise OfflineError("offline")
        return self.text, str(self.revision)

    def someone_else_saves(self, text: str) -> None:
        self.text, self.revision = text, self.revision + 1


def make(text: str = "start", delay: float = 0.02) -> tuple[FakeEditor, FakeServer, Autosaver,
                                                               list[str]]:
    editor, server, states = FakeEditor(text), FakeServer(text), []
    saver = Autosaver(revision="1", read=editor.read, mark_saved=editor.mark_saved,
                      put=server.put, latest=server.latest,
                      on_state=lambda state, detail: states.append(state),
                      delay=delay, backoff=(0.01, 0.02))
    editor.saver = saver
    return editor, server, saver, states


def run(coro):
    return run_virtual(coro)  # debounce and backoff on an injected clock: no real waiting


def test_debounced_save_sends_the_whole_burst_once() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        for ch in "abc":
            editor.type(ch)
        assert saver.state == "pending" and server.puts == []
        await asyncio.sleep(0.1)
        assert server.puts == ["startabc"] and saver.state == SAVED and not editor.notified
    run(scenario())


def test_edits_during_a_save_are_saved_next() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.hold = asyncio.Event()
        editor.type("1")
        await asyncio.sleep(0.05)  # the PUT of "start1" is in flight
        editor.type("2")
        server.hold.set()
        assert await saver.flush()
        assert server.text == "start12" and saver.revision == str(server.revision)
    run(scenario())


def test_flush_saves_now_without_waiting_for_the_debounce() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        editor.type("x")
        assert await asyncio.wait_for(saver.flush(), 1)
        assert server.text == "startx"
    run(scenario())


def test_offline_keeps_retrying_until_the_server_is_back() -> None:
    async def scenario():
        editor, server, saver, states = make()
        server.down = True
        editor.type("a")
        await asyncio.sleep(0.1)
        assert saver.state == OFFLINE and OFFLINE in states
        editor.type("b")  # typing on while offline is kept in the editor
        server.down = False
        assert await asyncio.wait_for(saver.flush(), 1)
        assert server.text == "startab"
    run(scenario())


def test_a_write_that_landed_before_the_outage_is_not_a_conflict() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.apply_then_fail = True
        editor.type("z")
        assert await asyncio.wait_for(saver.flush(), 1)
        assert saver.state == SAVED and server.text == "startz"
    run(scenario())


def test_conflict_stops_and_keep_mine_overwrites_the_latest() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.someone_else_saves("theirs")
        editor.type(" mine")
        assert not await saver.flush()
        assert saver.state == CONFLICT and saver.theirs == ("theirs", "2")
        assert editor.text == "start mine"  # nothing lost
        saver.keep_mine()
        assert await saver.flush()
        assert server.text == "start mine"
    run(scenario())


def test_take_theirs_and_copy_use_accept() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.someone_else_saves("theirs")
        editor.type("!")
        await saver.flush()
        editor.text = saver.theirs[0]  # the page loads their text (not counted as an edit)
        saver.accept(saver.theirs[1], editor.changes)
        assert saver.state == SAVED and not editor.notified
        editor.type("+")
        assert await saver.flush() and server.text == "theirs+"
    run(scenario())


def test_detached_saver_finishes_the_last_text() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        editor.type("last words")
        finished = []
        saver.detach(editor.changes, editor.text, lambda state, detail: finished.append(state))
        editor.text = "the editor is gone"
        await asyncio.sleep(0.05)
        assert server.text == "startlast words" and finished[-1] == SAVED
    run(scenario())


def test_closing_during_a_save_still_sends_the_newest_text() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=0.01)
        server.hold = asyncio.Event()
        editor.type(" v1")
        await asyncio.sleep(0.03)  # the save of " v1" is on the wire, held by the server
        assert server.puts == ["start v1"]
        editor.type(" v2")  # typed while that save is in flight
        finished = []
        saver.detach(editor.changes, editor.text, lambda state, detail: finished.append(state))
        server.hold.set()
        await asyncio.sleep(0.1)
        assert server.text == "start v1 v2" and finished[-1] == SAVED

    run(scenario())


def test_errors_stop_without_losing_text_and_retry_resumes() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        calls = []

        async def failing(text, revision):
            calls.append(text)
            return PutResult("error", message="Too large.") if len(calls) == 1 else \
                await server.put(text, revision)

        saver._put = failing
        editor.type("x")
        assert not await saver.flush()
        assert saver.state == ERROR and saver.detail == "Too large."
        saver.retry()
        assert await saver.flush() and server.text == "startx"
    run(scenario())
