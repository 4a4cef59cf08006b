"""web/app/context.App, the one object per window: callbacks, saving everything pending, the
documents of the workspace still current, and the key-session cache over the page's API."""

from __future__ import annotations

import asyncio

from app.context import App

from ambient.store import AmbientStore


class FakeApi:
    def __init__(self, docs=None, fail: Exception | None = None) -> None:
        self.docs = docs or []
        self.fail = fail
        self.posts: list[str] = []

    async def documents(self, ws):
        await asyncio.sleep(0)
        if self.fail:
            raise self.fail
        return self.docs

    async def ok(self, method, url, data=None):
        self.posts.append(url)
        return Reply({"id": f"key-{len(self.posts)}", "expiresAt": "2999-01-01T00:00:00Z"})


class Reply:
    def __init__(self, body: dict) -> None:
        self.body = body
        self.headers: dict[str, str | None] = {"date": None}

    def json(self) -> dict:
        return self.body


class FakeFrame:
    def __init__(self, saved: bool, unsaved: bool = False, delay: float = 0.0) -> None:
        self.saved, self._unsaved, self.delay = saved, unsaved, delay

    def unsaved(self) -> bool:
        return self._unsaved

    async def flush(self) -> bool:
        await asyncio.sleep(self.delay)
        return self.saved


class FakeFrameset:
    def __init__(self, frames) -> None:
        self._frames = frames

    def frames(self):
        return self._frames


def make(api=None) -> App:
    return App(api=api or FakeApi(), store=AmbientStore(), window_role="main", params={})


def test_callbacks_run_after_each_change_and_unsubscribe():
    app = make()
    seen: list[object] = []
    off = app.on_workspace_change(seen.append)
    app.on_documents_change(lambda: seen.append("docs"))
    app.workspace_id = "team"
    app.workspace_changed()
    app.documents_changed()
    off()
    app.workspace_changed()
    assert seen == ["team", "docs"]


def test_say_goes_to_the_sink_and_unsay_only_when_one_is_set():
    app = make()
    app.unsay("nothing to clear")  # no sink yet: nothing happens, nothing raises
    said: list[str] = []
    app.set_status_sink(said.append)
    app.unsay_sink = lambda message: said.append(f"cleared {message}")
    app.say("Saved.")
    app.unsay("Saved.")
    assert said == ["Saved.", "cleared Saved."]


def test_flush_all_is_true_only_when_everything_saved_in_time():
    app = make()
    assert asyncio.run(app.flush_all()) is True  # nothing open
    app.frameset = FakeFrameset([FakeFrame(True), FakeFrame(True)])
    assert asyncio.run(app.flush_all()) is True
    app.frameset = FakeFrameset([FakeFrame(True), FakeFrame(False)])
    assert asyncio.run(app.flush_all()) is False
    app.frameset = FakeFrameset([FakeFrame(True, delay=5)])
    assert asyncio.run(app.flush_all(timeout=0.01)) is False


def test_has_unsaved_counts_frames_and_savers_of_closed_frames():
    app = make()
    assert app.has_unsaved() is False
    app.frameset = FakeFrameset([FakeFrame(True, unsaved=False)])
    assert app.has_unsaved() is False

    class Saver:
        dirty = True

    app.background_savers.add(Saver())
    assert app.has_unsaved() is True


def test_current_documents_says_what_it_does_and_drops_an_answer_for_another_workspace():
    said: list[str] = []
    app = make(FakeApi(docs=[{"path": "a.md"}]))
    assert asyncio.run(app.current_documents(said.append, "notes")) is None  # no workspace
    app.workspace_id = "team"
    assert asyncio.run(app.current_documents(said.append, "notes")) == ("team", [{"path": "a.md"}])
    assert said == ["Loading notes…"]

    async def switched_meanwhile():
        job = asyncio.ensure_future(app.current_documents(said.append, "notes"))
        await asyncio.sleep(0)
        app.workspace_id = "personal"
        return await job

    assert asyncio.run(switched_meanwhile()) is None


def test_a_failed_listing_is_said_in_words():
    said: list[str] = []
    app = make(FakeApi(fail=RuntimeError("offline")))
    app.workspace_id = "team"
    assert asyncio.run(app.current_documents(said.append, "notes")) is None
    assert said[0] == "Loading notes…" and said[1].startswith("Could not list the notes:")


def test_key_sessions_are_asked_once_per_workspace_through_the_api():
    api = FakeApi()
    app = make(api)

    async def twice():
        return await app.key_sessions.get("team"), await app.key_sessions.get("team")

    first, second = asyncio.run(twice())
    assert first == second == "key-1"
    assert api.posts == ["/api/workspaces/team/key-sessions"]


class LinkedFrame:
    """An Inbox frame as the context sees it: told when the listed notes change."""

    def __init__(self) -> None:
        self.told = 0

    def links_changed(self) -> None:
        self.told += 1


def test_a_new_listing_from_anyone_re_resolves_the_open_previews_once():
    """The note list, the quick switcher and a pop-out all list the notes. Whichever comes
    first, a Preview drawn before it is told (its links were checked against nothing), and
    the same listing again tells nobody."""
    app = make()
    preview, plain = LinkedFrame(), FakeFrame(saved=True)
    app.frameset = FakeFrameset([preview, plain])
    app.set_known_paths({"a.md", "b.md"})  # the quick switcher, before the note list
    assert app.known_paths == {"a.md", "b.md"} and preview.told == 1
    app.set_known_paths({"b.md", "a.md"})  # the note list's answer: the same notes
    assert preview.told == 1
    app.set_known_paths({"a.md"})  # a note went away
    assert app.known_paths == {"a.md"} and preview.told == 2


class HeldWorkspaces:
    """`api.workspaces()` whose answers the test hands out, in any order."""

    def __init__(self) -> None:
        self.waiting: list[asyncio.Future] = []

    async def workspaces(self):
        answer = asyncio.get_running_loop().create_future()
        self.waiting.append(answer)
        return await answer


def test_an_older_list_of_workspaces_never_undoes_a_newer_one():
    """The live stream's access check reads the workspaces, a rename reads them again, the
    rename's answer comes first: the check's older answer must not be kept over it."""

    async def run():
        api = HeldWorkspaces()
        app = make(api)
        app.workspace_id = "team"
        check = asyncio.ensure_future(app.read_workspaces())  # begun first
        rename = asyncio.ensure_future(app.keep_fresh_workspaces())  # begun later
        await asyncio.sleep(0)
        first, second = api.waiting
        second.set_result([{"id": "team", "name": "Renamed", "role": "reader"}])
        await rename
        first.set_result([{"id": "team", "name": "Team", "role": "editor"}])
        assert await check is None  # older than what is kept: not to be applied
        assert app.workspaces == [{"id": "team", "name": "Renamed", "role": "reader"}]
        assert app.role == "reader"

        # In order, each answer is newer than the last, and each is kept.
        later = asyncio.ensure_future(app.keep_fresh_workspaces())
        await asyncio.sleep(0)
        api.waiting[-1].set_result([{"id": "team", "name": "Team 2", "role": "owner"}])
        await later
        assert app.role == "owner"
        assert [ws["name"] for ws in app.workspaces] == ["Team 2"]

    asyncio.run(run())
