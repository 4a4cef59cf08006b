"""A reader's autosave (SPEC §17): nothing is ever sent, and changes typed before the role
turned reader stay unsaved on screen (never dropped) until the role allows saving again."""

from __future__ import annotations

import asyncio

from app.live.autosave_model import OFFLINE, PENDING, SAVED, UNSAVABLE

from tests.unit.test_web_autosave_model import make, run, until

WORDS = "Your role here is now reader"


def test_a_reader_never_saves_and_a_pending_change_stays_dirty() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        editor.type("x")  # typed while an editor, not saved yet
        assert saver.state == PENDING
        saver.set_writable(False, WORDS)
        assert saver.state == UNSAVABLE and saver.detail == WORDS and saver.dirty
        await asyncio.sleep(20)  # long past the debounce
        assert server.puts == [] and editor.text == "startx"
        assert not await saver.flush()  # a flush says it is not saved, and sends nothing
        assert server.puts == [] and saver.state == UNSAVABLE

    run(scenario())


def test_an_app_made_change_of_a_reader_is_not_sent() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        saver.set_writable(False, WORDS)
        assert saver.state == SAVED and not saver.dirty  # nothing pending: nothing to say
        editor.type("y")
        await asyncio.sleep(1)
        assert server.puts == [] and saver.state == UNSAVABLE

    run(scenario())


def test_promoted_again_the_kept_change_is_saved() -> None:
    async def scenario():
        editor, server, saver, _ = make(delay=10)
        editor.type("x")
        saver.set_writable(False, WORDS)
        saver.set_writable(True)
        assert await asyncio.wait_for(saver.flush(), 1)
        assert server.text == "startx" and saver.state == SAVED

    run(scenario())


def test_demoted_while_offline_the_retries_stop_and_the_text_stays() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.down = True
        editor.type("a")
        await until(lambda: saver.state == OFFLINE)
        tries = len(server.puts)
        saver.set_writable(False, WORDS)
        await until(lambda: saver.state == UNSAVABLE)
        server.down = False
        await asyncio.sleep(1)
        assert len(server.puts) == tries and editor.text == "starta" and saver.dirty

    run(scenario())


def test_a_change_saved_elsewhere_still_reaches_a_reader() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        saver.set_writable(False, WORDS)
        server.someone_else_saves("start and more")
        assert await saver.refresh() is not None
        assert editor.text == "start and more" and saver.state == SAVED and server.puts == []

    run(scenario())


def test_a_save_refused_after_the_demotion_keeps_the_text() -> None:
    async def scenario():
        editor, server, saver, _ = make()
        server.hold = asyncio.Event()
        editor.type("z")
        await until(lambda: bool(server.puts))  # the PUT is in flight
        saver.set_writable(False, WORDS)
        server.hold.set()
        await until(lambda: saver.state in (SAVED, UNSAVABLE))
        # The PUT sent before the role changed landed; nothing else is sent.
        assert server.puts == ["startz"]

    run(scenario())
