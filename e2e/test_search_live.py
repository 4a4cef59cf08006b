"""Search as you type: every matching line of a note, the match marked, nothing injected."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from e2e.conftest import Server, put_note, wait_ready

FRAMES = "[data-testid=frame]"


def test_results_come_as_you_type_one_per_matching_line_with_the_match_marked(
    alice: Page, server: Server
) -> None:
    word = f"quokka{uuid.uuid4().hex[:6]}"
    path = f"search-live/{word}.md"
    payload = f'<img src=x onerror="window.__xss = 1"> {word} <b>bold</b>'
    put_note(
        alice, server, path, f"# {word.upper()} notes\nnothing here\nthe {word} sleeps\n{payload}\n"
    )
    alice.reload()
    wait_ready(alice)
    searches: list[str] = []
    alice.on("request", lambda r: searches.append(r.url) if "/search?" in r.url else None)
    box = alice.get_by_test_id("search-input")
    box.press_sequentially(word, delay=20)  # no Enter: results follow the typing
    results = alice.get_by_test_id("search-result")
    expect(results).to_have_count(3)
    assert len(searches) < len(word), searches  # debounced: not one request per keystroke
    assert results.evaluate_all("els => els.map(e => e.dataset.line)") == ["1", "3", "4"]
    assert {r for r in results.evaluate_all("els => els.map(e => e.dataset.path)")} == {path}
    marks = alice.locator(".search-results mark")
    expect(marks).to_have_count(3)
    assert marks.all_inner_texts() == [word.upper(), word, word]  # whatever the case
    # Markup in a note is shown as text, never inserted.
    fourth = results.nth(2)
    expect(fourth).to_contain_text("<img src=x")
    assert fourth.locator("img, b, script").count() == 0
    assert alice.evaluate("window.__xss") is None
    expect(alice.locator(".sidebar [role=status]").first).to_contain_text("3 lines in 1 note")
    results.nth(1).click()
    frame = alice.locator(f"{FRAMES}[data-path='{path}']")
    expect(frame.locator(".cm-activeLine")).to_have_text(f"the {word} sleeps")
    box.fill("")
    box.press_sequentially(f"{word}-absent", delay=10)
    expect(results).to_have_count(0)
    expect(alice.locator(".sidebar [role=status]").first).to_contain_text("No note")
