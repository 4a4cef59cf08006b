"""The chat's send flow: key session, capture, one retry after a 404, forgetting keys on failure."""

from __future__ import annotations

import asyncio
import itertools

from app.api_model import ApiError, OfflineError
from app.chat.chat_model import (
    Chat,
    Span,
    ambient_off_key,
    conversation_key,
    link_spans,
    proposals_by_id,
    turn_path,
    turn_paths,
)

from ambient.contract import AMBIENT_OFF_HEADER, HEADER_NAME, KEY_SESSION_HEADER
from ambient.pointer import decode
from ambient.store import AmbientStore
from tests.unit.fakes import FakeRuntime


class Storage(dict):
    def get(self, key):
        return super().get(key)

    def set(self, key, value):
        self[key] = value

    def remove(self, key):
        self.pop(key, None)


class Keys:
    def __init__(self):
        self.handed = 0
        self.forgotten: list[str | None] = []

    async def get(self, workspace):
        self.handed += 1
        return f"key-{workspace}-{self.handed}"

    def forget(self, workspace=None):
        self.forgotten.append(workspace)


class Server:
    """Answers turns in order: a dict is a reply, an exception is raised."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls: list[tuple[dict, dict]] = []

    async def turn(self, headers, body):
        self.calls.append((dict(headers), dict(body)))
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def make(server, *, store=None, storage=None, keys=None, user="alice", workspace="personal"):
    ids = (f"c{n}" for n in itertools.count(1))
    chat = Chat(
        keys=keys or Keys(),
        turn=server.turn,
        store=store or AmbientStore(),
        storage=storage if storage is not None else Storage(),
        new_id=lambda: next(ids),
    )
    chat.switch(user, workspace)
    return chat


def test_a_turn_carries_the_key_session_the_pointer_and_the_conversation():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "notes/plan.md", text="hello"))
    store.activate("f1", "inbox")
    server = Server({"reply": "hi", "toolCalls": []})
    chat = make(server, store=store)
    sent = asyncio.run(chat.send("  what is in this note?  "))
    assert sent.reply == {"reply": "hi", "toolCalls": []} and not sent.error and sent.current
    headers, body = server.calls[0]
    assert headers[KEY_SESSION_HEADER] == "key-personal-1"
    assert decode(headers[HEADER_NAME]).path == "notes/plan.md"
    assert body == {
        "conversationId": "c1",
        "workspaceId": "personal",
        "message": "what is in this note?",
    }
    assert not chat.sending


def test_ambient_off_sends_no_pointer_and_is_remembered_per_conversation():
    store = AmbientStore()
    store.publish(FakeRuntime("f1", "a.md"))
    storage = Storage()
    server = Server({"reply": "ok"}, {"reply": "ok"})
    chat = make(server, store=store, storage=storage)
    assert chat.flip_ambient() is False
    assert storage[ambient_off_key("c1")] == "1"
    asyncio.run(chat.send("hello"))
    assert HEADER_NAME not in server.calls[0][0]
    assert server.calls[0][0][AMBIENT_OFF_HEADER] == "1"  # the server says "this note" is off
    chat.new_conversation()  # a new conversation starts with the chip on
    assert chat.ambient_enabled()
    asyncio.run(chat.send("hello"))
    assert HEADER_NAME in server.calls[1][0] and AMBIENT_OFF_HEADER not in server.calls[1][0]


def test_the_off_header_goes_only_while_the_toggle_is_off():
    server = Server({"reply": "ok"}, {"reply": "ok"}, {"reply": "ok"})
    chat = make(server)  # no note open: still no off header while the toggle is on
    asyncio.run(chat.send("one"))
    chat.flip_ambient()
    asyncio.run(chat.send("two"))
    chat.flip_ambient()
    asyncio.run(chat.send("three"))
    assert [AMBIENT_OFF_HEADER in headers for headers, _ in server.calls] == [False, True, False]


def test_a_404_starts_a_new_conversation_once_and_retries():
    storage = Storage()
    server = Server(ApiError(404, "No such conversation."), {"reply": "fresh"})
    chat = make(server, storage=storage)
    sent = asyncio.run(chat.send("hello"))
    assert sent.reply == {"reply": "fresh"} and sent.restarted and sent.conversation_id == "c2"
    assert [body["conversationId"] for _, body in server.calls] == ["c1", "c2"]
    assert storage[conversation_key("alice", "personal")] == "c2"
    assert chat.conversation_id == "c2"


def test_a_second_404_fails_in_words_and_forgets_the_key_session():
    keys = Keys()
    server = Server(ApiError(404, "No such conversation."), ApiError(404, "Still not."))
    chat = make(server, keys=keys)
    sent = asyncio.run(chat.send("hello"))
    assert sent.reply is None and sent.error == "Still not."
    assert keys.forgotten == ["personal"]
    assert len(server.calls) == 2


def test_other_failures_are_words_forget_the_key_and_free_the_chat():
    keys = Keys()
    server = Server(
        OfflineError("down"), ApiError(403, "Your key session is not valid."), {"reply": "back"}
    )
    chat = make(server, keys=keys)
    offline = asyncio.run(chat.send("one"))
    assert "can't be reached" in offline.error and not offline.restarted
    refused = asyncio.run(chat.send("two"))
    assert refused.error == "Your key session is not valid."
    assert keys.forgotten == ["personal", "personal"]
    assert asyncio.run(chat.send("three")).reply == {"reply": "back"}
    assert chat.conversation_id == "c1"  # only a 404 replaces the conversation


def test_nothing_is_sent_when_empty_without_workspace_or_while_sending():
    server = Server()
    chat = make(server, workspace=None)
    assert chat.conversation_id is None
    assert asyncio.run(chat.send("hello")) is None
    chat.switch("alice", "personal")
    assert asyncio.run(chat.send("   \n ")) is None
    chat.sending = True
    assert asyncio.run(chat.send("hello")) is None
    assert server.calls == []


def test_a_reply_for_a_conversation_left_meanwhile_is_not_current():
    chat = None

    async def turn(headers, body):
        chat.new_conversation()  # the user pressed New chat while the turn ran
        return {"reply": "late"}

    chat = Chat(
        keys=Keys(),
        turn=turn,
        store=AmbientStore(),
        storage=Storage(),
        new_id=iter(["c1", "c2"]).__next__,
    )
    chat.switch("alice", "personal")
    sent = asyncio.run(chat.send("hello"))
    assert sent.conversation_id == "c1" and sent.current is False


def test_conversations_are_remembered_per_user_and_workspace():
    storage = Storage()
    chat = make(Server(), storage=storage)
    assert chat.conversation_id == "c1"
    assert chat.switch("alice", "team") is False and chat.conversation_id == "c2"
    assert chat.switch("alice", "personal") is True and chat.conversation_id == "c1"
    assert chat.switch("bob", "personal") is False and chat.conversation_id == "c3"
    assert chat.switch("alice", None) is False and chat.conversation_id is None


KNOWN = {"todo.md", "projects/plan.md", "日記/今日のメモ.md"}


def test_paths_and_line_numbers_in_a_reply_become_links():
    reply = "Open tasks in todo.md (2):\n- [ ] milk (line 3)\n- [ ] call (line 7)"
    spans = link_spans(reply, KNOWN)
    assert "".join(s.text for s in spans) == reply  # nothing is lost or added
    links = [(s.text, s.path, s.line) for s in spans if s.path]
    assert links == [
        ("todo.md", "todo.md", None),
        ("(line 3)", "todo.md", 3),
        ("(line 7)", "todo.md", 7),
    ]


def test_a_line_reference_follows_the_last_path_named_before_it():
    reply = "- projects/plan.md (2 times, first on line 4: x)\n- todo.md (1 time, first on line 9"
    links = [(s.path, s.line) for s in link_spans(reply, KNOWN) if s.line]
    assert links == [("projects/plan.md", 4), ("todo.md", 9)]


def test_japanese_replies_link_paths_and_gyoume():
    reply = "- 日記/今日のメモ.md（2 回、最初は 5 行目：予算）"
    links = [(s.text, s.path, s.line) for s in link_spans(reply, KNOWN) if s.path]
    assert links == [
        ("日記/今日のメモ.md", "日記/今日のメモ.md", None),
        ("5 行目", "日記/今日のメモ.md", 5),
    ]


def test_unknown_paths_and_lines_without_a_note_stay_text():
    assert link_spans("See nothere.md, line 3.", KNOWN) == [Span("See nothere.md, line 3.")]
    assert link_spans("", KNOWN) == [Span("")]
    # With the note list not loaded yet, any valid path links; an invalid one does not.
    assert [s.path for s in link_spans("a/b.md and ../x.md", set()) if s.path] == ["a/b.md"]


def test_bare_line_numbers_use_the_note_the_tools_read():
    calls = [
        {"tool": "read_active_note", "arguments": {}, "result": {"ok": True, "path": "todo.md"}}
    ]
    assert turn_path(calls) == "todo.md"
    assert turn_path([{"tool": "x", "arguments": {"path": "a.md"}}]) == "a.md"
    assert turn_path([]) is None
    spans = link_spans("Nothing is selected: the cursor is on line 2.", KNOWN, turn_path(calls))
    assert [(s.path, s.line) for s in spans if s.path] == [("todo.md", 2)]


def test_a_line_belongs_to_a_note_the_tools_read_not_one_a_task_mentions():
    """Issue 34: "(line 8)" after a task in todo.md that mentions plan.md is todo.md's line."""
    calls = [{"tool": "read_active_note", "result": {"ok": True, "path": "todo.md"}}]
    reply = (
        "Open tasks in todo.md (2):\n- [ ] update projects/plan.md (line 8)\n- [x] done (line 9)"
    )
    spans = link_spans(reply, KNOWN, turn_path(calls), turn_paths(calls))
    assert [(s.path, s.line) for s in spans if s.line] == [("todo.md", 8), ("todo.md", 9)]
    assert ("projects/plan.md", None) in [(s.path, s.line) for s in spans if s.path]
    ja = "未完了のタスク：\n- [ ] projects/plan.md を更新する（8 行目）"
    spans = link_spans(ja, KNOWN, turn_path(calls), turn_paths(calls))
    assert [(s.path, s.line) for s in spans if s.line] == [("todo.md", 8)]


def test_search_results_keep_each_line_with_its_own_note():
    calls = [
        {
            "tool": "search_notes",
            "arguments": {"query": "x"},
            "result": {"results": [{"path": "projects/plan.md"}, {"path": "todo.md"}]},
        }
    ]
    assert turn_paths(calls) == {"projects/plan.md", "todo.md"}
    reply = "- projects/plan.md (2 times, first on line 4: x)\n- todo.md (1 time, first on line 9"
    spans = link_spans(reply, KNOWN, turn_path(calls), turn_paths(calls))
    assert [(s.path, s.line) for s in spans if s.line] == [("projects/plan.md", 4), ("todo.md", 9)]


def test_stop_cancels_the_turn_in_flight_and_keeps_the_key_session():
    keys = Keys()
    started, cancelled = asyncio.Event(), []

    async def turn(headers, body):
        started.set()
        try:
            await asyncio.sleep(60)  # a model thinking
        except asyncio.CancelledError:
            cancelled.append(body["message"])
            raise
        return {"reply": "late"}

    async def scenario():
        chat = Chat(
            keys=keys, turn=turn, store=AmbientStore(), storage=Storage(), new_id=lambda: "c1"
        )
        chat.switch("alice", "personal")
        running = asyncio.ensure_future(chat.send("think hard"))
        await started.wait()
        assert chat.sending
        chat.stop()
        sent = await running
        return chat, sent

    chat, sent = asyncio.run(scenario())
    assert sent.stopped and sent.reply is None and not sent.error and sent.current
    assert cancelled == ["think hard"]  # the request itself was cancelled
    assert keys.forgotten == [] and not chat.sending
    chat.stop()  # nothing in flight: nothing happens
    assert chat.can_send("again")


def test_stop_wins_over_an_abort_error_and_a_next_send_is_normal():
    async def scenario():
        chat = None

        async def turn(headers, body):
            if body["message"] == "one":
                chat.stop()  # the page aborted the fetch: it fails as offline
                raise OfflineError("aborted")
            return {"reply": "two back"}

        chat = Chat(
            keys=Keys(), turn=turn, store=AmbientStore(), storage=Storage(), new_id=lambda: "c1"
        )
        chat.switch("alice", "personal")
        return await chat.send("one"), await chat.send("two")

    first, second = asyncio.run(scenario())
    assert first.stopped and not first.error
    assert second.reply == {"reply": "two back"} and not second.stopped


def test_resuming_a_listed_conversation_sends_there_and_a_reload_keeps_it():
    storage = Storage()
    server = Server({"reply": "ok", "toolCalls": []})
    chat = make(server, storage=storage)
    assert chat.conversation_id == "c1"
    assert chat.resume("old-one")
    asyncio.run(chat.send("continue"))
    assert server.calls[0][1]["conversationId"] == "old-one"
    again = make(Server(), storage=storage)  # a reload: the same storage, a new Chat
    assert again.conversation_id == "old-one"
    assert not make(Server(), storage=Storage(), workspace=None).resume("x")  # signed out


def test_no_switching_while_a_reply_is_awaited():
    gate = asyncio.Event()

    async def turn(headers, body):
        await gate.wait()
        return {"reply": "late", "toolCalls": []}

    async def scenario():
        chat = Chat(
            keys=Keys(), turn=turn, store=AmbientStore(), storage=Storage(), new_id=lambda: "c1"
        )
        chat.switch("alice", "personal")
        sending = asyncio.ensure_future(chat.send("hello"))
        await asyncio.sleep(0)
        refused = chat.resume("other")
        gate.set()
        sent = await sending
        return refused, chat.conversation_id, sent

    refused, current, sent = asyncio.run(scenario())
    assert not refused and current == "c1" and sent.current


def test_deleting_the_open_conversation_starts_a_new_one_and_forgets_its_toggle():
    storage = Storage()
    chat = make(Server(), storage=storage)
    chat.flip_ambient()
    assert storage.get(ambient_off_key("c1")) == "1"
    assert not chat.deleted("someone-else")  # another conversation: nothing changes
    assert chat.conversation_id == "c1"
    assert chat.deleted("c1")
    assert chat.conversation_id == "c2" and chat.ambient_enabled()
    assert storage.get(ambient_off_key("c1")) is None
    assert storage.get(conversation_key("alice", "personal")) == "c2"


def test_a_resumed_conversations_proposals_are_found_by_id():
    applied = {"proposalId": "p1", "status": "applied", "appliedVia": "editor", "diff": "d"}
    pending = {"proposalId": "p2", "status": "pending"}
    data = {"messages": [], "proposals": [applied, {"status": "applied"}, 7, pending]}
    assert proposals_by_id(data) == {"p1": applied, "p2": pending}
    # An older server (no field) or a malformed answer: no outcome known, each card asks.
    for nothing in ({"messages": []}, {"proposals": "x"}, None, []):
        assert proposals_by_id(nothing) == {}
