"""The offline assistant's answers as a new user meets them in the page (issue #24's replays):
an honest "I can't" for what it does not do, task lists named in summaries, typos understood,
a task found by a paraphrase, and English sentences kept apart in a Japanese summary."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from backend.seed import WELCOME
from e2e.ambient_helpers import frames, open_note, put_note, reload_list, send
from e2e.conftest import Server


def _reply(page: Page, message: str) -> str:
    return send(page, message).reply


def test_compare_and_other_unknown_requests_say_plainly_what_they_cannot_do(alice: Page):
    open_note(alice, "welcome.md")
    compared = _reply(alice, "compare this note with todo.md")
    assert "can't compare" in compared and "language model" in compared
    # Both summaries may follow, but only said to be all it can do.
    assert "All I can do is show each note's summary" in compared
    for message in ("explain this note", "what did I write yesterday?", "merge this with todo.md"):
        reply = _reply(alice, message)
        assert "can't" in reply, (message, reply)
        assert not reply.startswith("Summary of"), (message, reply)


def test_a_task_list_summary_names_its_open_tasks_and_a_typo_is_understood(
    alice: Page, server: Server
):
    tasks = "# Errands\n\n- [ ] Renew the passport\n- [x] Pay the rent\n- [ ] Water the plants\n"
    put_note(alice, server.url, "personal", "errands.md", tasks)
    reload_list(alice)
    summary = _reply(alice, "summarise errands.md")
    assert "Renew the passport" in summary and "Water the plants" in summary, summary
    open_note(alice, "welcome.md")
    mistyped = _reply(alice, "sumarize ths")
    assert "welcome.md" in mistyped and "Summary" in mistyped


def test_a_paraphrase_finds_the_task_it_means(alice: Page, server: Server):
    todo = "# Todo\n\n- [ ] Back up the laptop\n- [ ] Buy milk\n"
    put_note(alice, server.url, "personal", "chores.md", todo)
    reload_list(alice)
    open_note(alice, "chores.md")
    reply = _reply(alice, "tick off the laptop backup")
    assert "Back up the laptop" in reply
    card = frames(alice, "assistant").first.get_by_test_id("proposal")
    expect(card).to_have_count(1)
    expect(card).to_contain_text("Back up the laptop")


def test_a_japanese_summary_keeps_english_sentences_apart(alice: Page, server: Server):
    note = "# メモ\n\nHello world. This is the second sentence.\n\n今日は晴れ。\n"
    put_note(alice, server.url, "personal", "mixed.md", note)
    reload_list(alice)
    open_note(alice, "mixed.md")
    reply = _reply(alice, "このノートを要約して")
    assert "world.This" not in reply


def test_summarise_this_keeps_the_first_bullet_and_a_space_before_english(
    alice: Page, server: Server
):
    """Issue 34, replayed on the demo's welcome note: its list's first, shortest item was
    dropped, and the Japanese item ran into the next English sentence ("」、The")."""
    put_note(alice, server.url, "personal", "welcome-again.md", WELCOME)
    reload_list(alice)
    open_note(alice, "welcome-again.md")
    for message in ("summarise this", "このノートを要約して"):
        reply = _reply(alice, message)
        assert '"Summarise this"' in reply, reply
        assert "「このノートを要約して」。 The assistant reads" in reply, reply
        assert "」、The" not in reply
