"""Autosave: debounce, saving again while edits arrive, offline retry, conflicts, flush."""

from __future__ import annotations

import asyncio

from app.api_model import OfflineError
from app.live.autosave_model import (
    CONFLICT,
    DELETED,
    ERROR,
    OFFLINE,
    PENDING,
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

    def show(self, mine: str, text: str) -> None:
        """A change made elsewhere lands on screen: not counted as an edit (editor.js)."""
        assert mine == self.text, "the saver decided on a stale read of the screen"
        self.text = text


class FakeServer:
    """Revisions, stored text, and switches for outages, slowness and other writers."""

    def __init__(self, text: str = "") -> None:
        self.text, self.revision, self.puts = text, 1, []
        self.resolves: list[bool] = []  # each PUT's third argument, in order
        self.carries: list[str | None] = []  # each PUT's fourth: the proposal it carries
        self.down = False
        self.hold: asyncio.Event | None = None
        self.hold_reads: asyncio.Event | None = None  # a read answers late (with what it read)
        self.apply_then_fail = False
        self.gets = 0

    async def put(
        self, text: str, revision: str | None, resolves: bool, carries: str | None = None
    ) -> PutResult:
        self.puts.append(text)
        self.resolves.append(resolves)
        self.carries.append(carries)
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
        self.gets += 1
        if self.down:
            raise OfflineError("offline")
        read = (None, None) if self.text is None else (self.text, str(self.revision))
        if self.hold_reads is not None:
            await self.hold_reads.wait()
        return read

    def someone_else_saves(self, text: str) -> None:
        self.text, self.revision = text, self.revision + 1


def make(
    text: str = "start", delay: float = 0.02
) -> tuple[FakeEditor, FakeServer, Autosaver, list[str]]:
    editor, server, states = FakeEditor(text), FakeServer(text), []
    saver = Autosaver(
        revision="1",
        base=text,
        read=editor.read,
        mark_saved=editor.mark_saved,
        put=server.put,
        latest=server.latest,
        on_state=lambda state, detail: states.append(state),
        show=editor.show,
        delay=delay,
        backoff=(0.01, 0.02),
    )
    editor.saver = saver
    return editor, server, saver, states


def run(coro):
    return run_virtual(coro)  # debounce and backoff on an injected clock: no real waiting


async def until(condition, timeout: float = 5.0) -> None:
    """Wait for `condition()` (a deadline, not a fixed sleep: timers run late on a busy box)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


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


def test_only_the_save_after_keep_mine_and_its_retries_say_they_resolve_a_conflict() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        editor.type(" one")
        assert await saver.flush() and server.resolves == [False]
        server.someone_else_saves("theirs")  # the other window, same line
        editor.type(" mine")
        assert not await saver.flush() and saver.state == CONFLICT
        server.down = True  # the Keep mine save is retried while offline: each try says so
        saver.keep_mine()
        await until(lambda: len(server.puts) >= 4)
        server.down = False
        assert await saver.flush() and server.text == "start one mine"
        assert server.resolves[1] is False and all(server.resolves[2:])
        assert len(server.resolves) >= 4
        editor.type(" later")
        assert await saver.flush() and server.resolves[-1] is False

    run(scenario())


def test_a_newer_copy_met_while_keeping_mine_ends_the_resolution() -> None:
    async def scenario():
        editor, server, saver, _ = make(text="a\nb")
        server.someone_else_saves("a\nb theirs")
        editor.type(" mine")
        assert not await saver.flush() and saver.state == CONFLICT
        server.someone_else_saves("a\nb theirs\nc")  # a third save lands before Keep mine's
        saver.keep_mine()
        assert not await saver.flush() and saver.state == CONFLICT  # that PUT lost: 409, clash
        assert saver.resolving is False and server.resolves[-1] is True
        saver.keep_mine()
        assert await saver.flush() and server.text == "a\nb mine"
        assert server.resolves[-1] is True and saver.resolving is False

    run(scenario())


def test_take_theirs_and_copy_use_accept() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.someone_else_saves("theirs")
        editor.type("!")
        await saver.flush()
        editor.text = saver.theirs[0]  # the page loads their text (not counted as an edit)
        saver.accept(saver.theirs[1], editor.changes, editor.text)
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
        await until(lambda: server.puts)  # the save of " v1" is on the wire, held by the server
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

        async def failing(text, revision, resolves, carries):
            calls.append(text)
            return (
                PutResult("error", message="Too large.")
                if len(calls) == 1
                else await server.put(text, revision, resolves)
            )

        saver._put = failing
        editor.type("x")
        assert not await saver.flush()
        assert saver.state == ERROR and saver.detail == "Too large."
        saver.retry()
        assert await saver.flush() and server.text == "startx"

    run(scenario())


# -- changes made elsewhere (SPEC §13): the stream's refresh and a lost race share one merge --


def test_our_own_save_coming_back_changes_nothing_and_reads_nothing() -> None:
    async def scenario():
        editor, server, saver, _ = make("a\n")
        editor.type("b\n")
        assert await saver.flush()
        assert await saver.refresh(str(server.revision)) is None
        assert server.gets == 0 and editor.text == "a\nb\n" and saver.state == SAVED

    run(scenario())


def test_a_clean_editor_takes_the_new_saved_copy_and_builds_on_it() -> None:
    async def scenario():
        editor, server, saver, _ = make("one\ntwo\n")
        server.someone_else_saves("one\n2\n")
        assert await saver.refresh(str(server.revision)) == "replace"
        assert editor.text == "one\n2\n" and saver.state == SAVED and not editor.notified
        editor.type("three\n")
        assert await saver.flush() and server.text == "one\n2\nthree\n"

    run(scenario())


def test_unsaved_keystrokes_merge_with_a_change_on_another_line_and_are_saved() -> None:
    async def scenario():
        editor, server, saver, _ = make("a\nb\nc\n", delay=10)
        editor.type("d\n")  # unsaved: the debounce is long
        server.someone_else_saves("A\nb\nc\n")
        assert await saver.refresh(str(server.revision)) == "merged"
        assert editor.text == "A\nb\nc\nd\n" and saver.state == PENDING
        assert await saver.flush() and server.text == "A\nb\nc\nd\n"

    run(scenario())


def test_a_same_line_change_is_a_conflict_that_changes_and_saves_nothing() -> None:
    async def scenario():
        editor, server, saver, _ = make("a\nb", delay=10)
        editor.type(" mine")
        server.someone_else_saves("a\nb theirs")
        puts = len(server.puts)
        assert await saver.refresh(str(server.revision)) == "conflict"
        assert saver.state == CONFLICT and saver.theirs == ("a\nb theirs", "2")
        assert editor.text == "a\nb mine" and len(server.puts) == puts
        saver.keep_mine()
        assert await saver.flush() and server.text == "a\nb mine"

    run(scenario())


def test_an_autosave_that_loses_the_race_merges_instead_of_stopping() -> None:
    async def scenario():
        editor, server, saver, states = make("a\nb\nc\n")
        server.someone_else_saves("A\nb\nc\n")  # unseen: no event arrived
        editor.type("z")  # "a\nb\nc\nz"
        assert await saver.flush()
        assert CONFLICT not in states
        assert server.text == editor.text == "A\nb\nc\nz"

    run(scenario())


def test_deleted_elsewhere_keeps_the_text_and_an_edit_saves_it_again() -> None:
    async def scenario():
        editor, server, saver, _ = make("keep me\n", delay=10)
        editor.type("!")
        server.text = None
        assert await saver.refresh("9") is None  # a `saved` event, then not found: wait
        assert saver.state == PENDING
        assert await saver.refresh(missing_is_gone=True) == DELETED  # a re-read says gone
        assert saver.state == DELETED and not saver.dirty and editor.text == "keep me\n!"
        assert await saver.flush()  # nothing to save: a workspace switch is not blocked
        editor.type("?")
        assert await saver.flush() and server.text == "keep me\n!?"

    run(scenario())


def test_refresh_waits_for_a_save_in_flight_and_then_knows_it_was_its_own() -> None:
    async def scenario():
        editor, server, saver, _ = make("x\n", delay=0.01)
        server.hold = asyncio.Event()
        editor.type("y")
        await until(lambda: server.puts)  # the PUT is on the wire
        refreshing = asyncio.ensure_future(saver.refresh("2"))  # the stream announces r2
        await asyncio.sleep(0.02)
        assert not refreshing.done()  # it waits for the save, however long that takes
        server.hold.set()
        assert await refreshing is None and server.gets == 0 and editor.text == "x\ny"

    run(scenario())


def test_a_copy_read_before_a_save_that_then_finished_does_not_undo_it() -> None:
    async def scenario():
        editor, server, saver, _ = make("a\nb\n", delay=0.01)
        server.hold_reads = asyncio.Event()
        refreshing = asyncio.ensure_future(saver.refresh("7"))  # an event: someone's save
        await until(lambda: server.gets)  # the copy is read (without our next line)
        editor.type("c\n")
        assert await saver.flush() and server.text == "a\nb\nc\n"  # saved meanwhile
        server.hold_reads.set()  # the older copy arrives after our save
        assert await refreshing is None
        assert editor.text == "a\nb\nc\n" and saver.state == SAVED and saver.revision == "2"

    run(scenario())


# -- an in-editor Apply: the save that carries it, and only it, names the proposal ------------


def apply_by_typing(editor: FakeEditor, text: str):
    """The card's `apply`: one synchronous change of the editor."""

    def apply() -> bool:
        editor.type(text)
        return True

    return apply


def test_a_carried_apply_saves_pending_keystrokes_first_as_the_users() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        editor.type(" mine")  # not saved yet
        recorded: list[list[str]] = []

        async def record() -> None:
            recorded.append(list(server.puts))  # what the server had when it was told

        assert await saver.carry("p1", apply_by_typing(editor, " +agent"), record)
        await until(lambda: saver.state == SAVED)
        assert server.puts == ["start mine", "start mine +agent"]
        assert server.carries == [None, "p1"]
        assert recorded == [["start mine"]]  # told before the carried save was sent
        editor.type(" later")
        assert await saver.flush()
        assert server.carries[-1] is None and server.text == "start mine +agent later"

    run(scenario())


def test_typing_right_after_an_apply_is_not_carried_with_it() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)

        async def record() -> None:
            editor.type(" typed while the server was told")

        assert await saver.carry("p1", apply_by_typing(editor, " +agent"), record)
        assert await saver.flush()
        carried = server.puts[server.carries.index("p1")]
        assert carried == "start +agent"
        assert server.puts[-1] == "start +agent typed while the server was told"
        assert server.carries[-1] is None

    run(scenario())


def test_an_apply_that_did_not_happen_carries_nothing() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        told: list[bool] = []

        async def record() -> None:
            told.append(True)

        assert not await saver.carry("p1", lambda: False, record)
        editor.type("x")
        assert await saver.flush()
        assert told == [] and server.carries == [None]

    run(scenario())


def test_an_offline_retry_sends_the_carried_text_not_later_typing() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        server.down = True

        async def record() -> None:
            pass

        assert await saver.carry("p1", apply_by_typing(editor, " +agent"), record)
        await until(lambda: saver.state == OFFLINE)
        editor.type(" typed offline")
        server.down = False
        assert await saver.flush()
        landed = [
            (text, carries)
            for text, carries in zip(server.puts, server.carries, strict=True)
            if carries == "p1"
        ]
        assert set(landed) == {("start +agent", "p1")}
        assert server.text == "start +agent typed offline" and server.carries[-1] is None

    run(scenario())
