"""SPEC §2 resolution rules on the pure store, one rule per test."""

from ambient.store import AmbientStore
from tests.unit.fakes import FakeRuntime


def store_with(*frames: FakeRuntime) -> AmbientStore:
    store = AmbientStore()
    for frame in frames:
        store.publish(frame)
        store.activate(frame.frame_id, "inbox")  # opening a frame activates it
    return store


def test_no_runtime_means_no_ambient_note():
    assert AmbientStore().resolve() is None


def test_one_runtime_resolves_without_any_activation():
    store = AmbientStore()
    a = FakeRuntime("f1", "a.md")
    store.publish(a)
    assert store.resolve() is a


def test_most_recently_activated_inbox_wins_in_either_order():
    a, b = FakeRuntime("f1", "a.md"), FakeRuntime("f2", "b.md")
    store = store_with(a, b)
    assert store.resolve() is b
    store.activate("f1", "inbox")
    assert store.resolve() is a
    store.activate("f2", "inbox")
    assert store.resolve() is b


def test_assistant_and_files_frames_keep_the_choice():
    a, b = FakeRuntime("f1", "a.md"), FakeRuntime("f2", "b.md")
    store = store_with(a, b)
    store.activate("f1", "inbox")
    store.activate("f9", "assistant")
    store.activate("f8", "files")
    assert store.resolve() is a


def test_closing_the_active_frame_falls_back_to_the_one_before():
    a, b, c = FakeRuntime("f1", "a.md"), FakeRuntime("f2", "b.md"), FakeRuntime("f3", "c.md")
    store = store_with(a, b, c)
    store.activate("f1", "inbox")
    store.forget("f1")
    assert store.resolve() is c
    store.forget("f3")
    assert store.resolve() is b
    store.forget("f2")
    assert store.resolve() is None


def test_an_inbox_frame_without_a_note_is_not_a_runtime_but_holds_the_choice():
    a, b = FakeRuntime("f1", "a.md"), FakeRuntime("f2", "b.md")
    store = store_with(a, b)
    store.activate("empty", "inbox")  # activated, never published
    assert store.resolve() is b


def test_switching_note_or_view_replaces_the_runtime():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md", "edit"))
    store.publish(FakeRuntime("f1", "b.md", "preview"))
    resolved = store.resolve()
    assert (resolved.path, resolved.view) == ("b.md", "preview")
    assert len(store.runtimes()) == 1


def test_workspace_boundary_clears_everything_and_bumps_the_epoch():
    store = store_with(FakeRuntime("f1", "a.md"))
    before = store.epoch
    store.boundary()
    assert store.resolve() is None and store.runtimes() == []
    assert store.epoch == before + 1


def test_listeners_hear_every_change_and_can_leave():
    store = AmbientStore()
    heard: list[str] = []
    unsubscribe = store.subscribe(lambda: heard.append("x"))
    store.publish(FakeRuntime("f1", "a.md"))
    store.activate("f1", "inbox")
    store.withdraw("f1")
    assert len(heard) == 3
    unsubscribe()
    store.boundary()
    assert len(heard) == 3


def test_publishing_copies_no_text():
    runtime = FakeRuntime("f1", "a.md", text="secret body")
    store = AmbientStore()
    store.publish(runtime)
    assert runtime.reads == 0  # nothing read until a capture asks
