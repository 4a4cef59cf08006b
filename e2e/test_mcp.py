"""SPEC §10 end to end: the page publishes its active note; an MCP SDK client reads it.

The agent side is the official SDK's ClientSession over its Streamable HTTP client, run in a
worker thread (the Playwright sync API owns the test thread's event loop). The server is a
real serve.py of this module's own, so switching sharing on cannot touch other tests.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from playwright.sync_api import Browser, Page, expect

from e2e.ambient_helpers import editor_text, inbox, open_note
from e2e.conftest import Server, new_context, sign_in, wait_ready
from e2e.late_answers import Held
from tests.mcp_client import agent_http

POLL_SECONDS = 10


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("mcp") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture
def alice(browser: Browser, mcp_server: Server) -> Iterator[Page]:
    context = new_context(browser)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=mcp_server.url)
    page = sign_in(context.new_page(), mcp_server)
    yield page
    # Leave sharing off for the next test, whatever this one did.
    page.request.put(f"{mcp_server.url}/api/active-note/sharing", data={"enabled": False})
    context.close()


async def _session(stack: AsyncExitStack, base: str, token: str, record=None) -> ClientSession:
    """An initialized SDK ClientSession over the SDK's Streamable HTTP client."""
    http = await stack.enter_async_context(agent_http({"Authorization": f"Bearer {token}"}, record))
    streams = await stack.enter_async_context(
        streamable_http_client(f"{base}/mcp", http_client=http)
    )
    session = await stack.enter_async_context(
        ClientSession(streams[0], streams[1], read_timeout_seconds=20)
    )
    await session.initialize()
    return session


def mcp_call(base: str, token: str, tool: str, **arguments: Any) -> dict:
    """One tool call through the SDK client; its structured result."""

    async def run() -> dict:
        async with AsyncExitStack() as stack:
            session = await _session(stack, base, token)
            result = await session.call_tool(tool, arguments)
            return result.structured_content

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, run).result(timeout=60)


def mcp_status(base: str, token: str) -> int:
    """The HTTP status /mcp answers the SDK client's first request with (when it fails)."""
    statuses: list[int] = []

    async def run() -> None:
        async def record(response: httpx2.Response) -> None:
            statuses.append(response.status_code)

        async with AsyncExitStack() as stack:
            await _session(stack, base, token, record)

    with ThreadPoolExecutor(1) as pool, pytest.raises(BaseExceptionGroup) as caught:
        pool.submit(anyio.run, run).result(timeout=60)
    assert caught.group_contains(MCPError)
    return statuses[0]


def poll(read, until, what: str):
    """`read()` again until `until(value)`, for at most POLL_SECONDS: the page publishes
    asynchronously."""
    deadline = time.monotonic() + POLL_SECONDS
    while True:
        value = read()
        if until(value):
            return value
        assert time.monotonic() < deadline, f"the agent never saw {what}: {value}"
        time.sleep(0.1)


def active(base: str, token: str, until, what: str) -> dict:
    """Poll get_active_note until `until(result)`."""
    return poll(lambda: mcp_call(base, token, "get_active_note"), until, what)


def api_token(page: Page, server: Server) -> str:
    r = page.request.post(f"{server.url}/api/tokens", data={"name": "e2e", "expiresInDays": 1})
    assert r.status == 201, r.text()
    return r.json()["token"]


def open_panel(page: Page):
    page.get_by_test_id("sharing-open").click()
    panel = page.get_by_test_id("sharing-panel")
    expect(panel).to_be_visible()
    return panel


def set_sharing(page: Page, on: bool) -> None:
    panel = open_panel(page)
    switch = panel.get_by_test_id("active-note-sharing")
    expect(switch).to_have_attribute("aria-checked", "false" if on else "true")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true" if on else "false")
    expect(switch).to_be_checked(checked=on)
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()


def publications(server: Server) -> list[dict]:
    """What the server stored for the windows (pointer metadata only)."""
    with server.db() as db:
        rows = db.execute(
            "SELECT window_id, pointer_path, pointer_view, pointer_meta "
            "FROM active_note_publications"
        ).fetchall()
    return [{"window": r[0], "path": r[1], "view": r[2], **json.loads(r[3])} for r in rows]


def sha16(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_sharing_on_the_agent_follows_clicks_typing_and_views(alice: Page, mcp_server: Server):
    base = mcp_server.url
    token = api_token(alice, mcp_server)
    assert mcp_call(base, token, "get_active_note")["reason"] == "sharing_off"
    panel = open_panel(alice)
    label = panel.locator('label[for="active-note-sharing"]')
    for words in ("path", "view", "selection", "size", "never its text"):
        expect(label).to_contain_text(words)
    alice.keyboard.press("Escape")
    set_sharing(alice, True)
    got = active(base, token, lambda r: r.get("reason") == "no_active_note", "no note")
    assert "content" not in got

    frame = open_note(alice, "welcome.md")
    got = active(base, token, lambda r: r.get("path") == "welcome.md", "welcome.md")
    assert (got["workspaceId"], got["view"], got["stale"]) == ("personal", "edit", False)
    assert got["content"] == editor_text(frame)

    # Type, pause: the published digest follows the live text (no save needed for that).
    frame.locator(".cm-content").click()
    alice.keyboard.press("Control+End")
    alice.keyboard.type(" typed for the agent", delay=20)
    live = editor_text(frame)
    shown = poll(
        lambda: publications(mcp_server),
        lambda ps: any(p["sha256"] == sha16(live) for p in ps),
        "the typed text's digest",
    )
    published = next(p for p in shown if p["sha256"] == sha16(live))
    assert published["bytes"] == len(live.encode())
    end = len(live)
    assert published["selection"] == {"anchor": end, "head": end}
    got = active(base, token, lambda r: r.get("content") == live and not r["stale"], "the save")
    assert got["text"].endswith(live)

    # Another view: the pointer names it, without a selection.
    frame.locator('[data-testid="view-button"][data-view="preview"]').click()
    got = active(base, token, lambda r: r.get("view") == "preview", "the preview view")
    assert got["selection"] is None and got["path"] == "welcome.md"
    # Never the text: the stored publication is pointer metadata only.
    assert all("typed for the agent" not in json.dumps(p) for p in publications(mcp_server))


def test_a_popped_out_note_is_seen_and_closing_it_falls_back(alice: Page, mcp_server: Server):
    base = mcp_server.url
    token = api_token(alice, mcp_server)
    set_sharing(alice, True)
    open_note(alice, "welcome.md")
    second = open_note(alice, "todo.md", new_frame=True)
    active(base, token, lambda r: r.get("path") == "todo.md", "todo.md in the main window")

    with alice.expect_popup() as info:
        second.get_by_test_id("frame-popout").click()
    popup = info.value
    wait_ready(popup)
    popped = inbox(popup, "todo.md")
    expect(popped.locator(".cm-content")).to_be_visible()
    popped.locator(".cm-content").click()
    got = active(
        base,
        token,
        lambda r: (
            r.get("path") == "todo.md" and len({p["window"] for p in publications(mcp_server)}) == 2
        ),
        "the popped-out todo.md",
    )
    assert got["workspaceId"] == "personal"
    windows = {p["path"]: p["window"] for p in publications(mcp_server)}
    assert set(windows) == {"welcome.md", "todo.md"}  # main names welcome.md now

    popup.close()  # the window goes away: its pagehide sends null with fetch keepalive
    active(base, token, lambda r: r.get("path") == "welcome.md", "the fallback to welcome.md")
    assert [p["path"] for p in publications(mcp_server)] == ["welcome.md"]


def test_switching_sharing_off_hides_the_note_at_once(alice: Page, mcp_server: Server):
    base = mcp_server.url
    token = api_token(alice, mcp_server)
    set_sharing(alice, True)
    open_note(alice, "welcome.md")
    active(base, token, lambda r: r.get("path") == "welcome.md", "welcome.md")
    set_sharing(alice, False)
    got = mcp_call(base, token, "get_active_note")
    assert got["reason"] == "sharing_off" and "content" not in got
    assert publications(mcp_server) == []
    puts: list[str] = []
    alice.on(
        "request",
        lambda r: puts.append(r.url) if "/api/active-note" in r.url and r.method == "PUT" else None,
    )
    frame = open_note(alice, "todo.md", new_frame=True)
    frame.locator(".cm-content").click()
    # The autosave waits longer after the last keystroke than the publisher's typing pause,
    # so once the typed text is saved a publish would already have been asked for.
    with alice.expect_response(
        lambda r: (
            "/documents/" in r.url
            and r.request.method == "PUT"
            and "still private" in (r.request.post_data or "")
        ),
        timeout=POLL_SECONDS * 1000,
    ) as saved:
        alice.keyboard.type("still private", delay=10)
    assert saved.value.ok
    assert puts == [] and publications(mcp_server) == []


def test_the_token_panel_creates_copies_lists_and_revokes(alice: Page, mcp_server: Server):
    base = mcp_server.url
    panel = open_panel(alice)
    panel.get_by_test_id("token-name").fill("Claude Code")
    panel.get_by_test_id("token-expiry").select_option("7")
    panel.get_by_test_id("token-create").click()
    expect(panel.get_by_test_id("token-created")).to_be_visible()  # shown once, here only
    value = panel.get_by_test_id("token-value")
    expect(value).to_be_visible()
    token = value.input_value()
    assert token.startswith("ana_pat_")
    panel.get_by_test_id("token-copy").click()
    expect(panel.get_by_test_id("sharing-status")).to_have_text("Token copied to the clipboard.")
    assert alice.evaluate("navigator.clipboard.readText()") == token

    row = panel.get_by_test_id("token-list").locator(
        '[data-testid="token-row"]', has_text="Claude Code"
    )
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("token-last-used")).to_have_text("never")
    assert mcp_call(base, token, "list_documents", workspaceId="personal")["ok"] is True

    # Closing the panel forgets the shown token; reopening lists the use.
    alice.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    panel = open_panel(alice)
    expect(panel.get_by_test_id("token-value")).to_have_count(0)
    expect(panel.get_by_test_id("token-created")).to_be_hidden()
    expect(row.get_by_test_id("token-last-used")).not_to_have_text("never")
    assert token not in panel.inner_text()

    row.get_by_test_id("token-revoke").click()
    expect(row).to_have_count(0)
    assert mcp_status(base, token) == 401
    panel.get_by_test_id("sharing-close").click()
    expect(panel).to_be_hidden()


def test_a_late_sharing_answer_does_not_turn_sharing_off_again(
    browser: Browser, mcp_server: Server
) -> None:
    """The window asks whether sharing is on as the workspace opens; when that answer (off)
    comes back after the user switched sharing on, it is older than the switch: the window
    keeps publishing."""
    base = mcp_server.url
    context = new_context(browser)
    page = context.new_page()
    held = Held(page, lambda url: url.endswith("/api/active-note/sharing"))
    try:
        sign_in(page, mcp_server)
        held.wait()
        held.stop()
        token = api_token(page, mcp_server)
        set_sharing(page, True)

        (stale,) = held.deliver_all()
        assert stale.json()["enabled"] is False  # read before the switch
        open_note(page, "welcome.md")
        active(base, token, lambda r: r.get("path") == "welcome.md", "welcome.md")
    finally:
        page.request.put(f"{base}/api/active-note/sharing", data={"enabled": False})
        context.close()


def test_a_token_list_read_before_a_new_token_does_not_hide_it(alice: Page, mcp_server: Server):
    """The panel reads the tokens as it opens; a token made before that answer comes back
    reads them again, and the older list must not be drawn over the newer one."""
    held = Held(alice, lambda url: url.endswith("/api/tokens"))
    panel = open_panel(alice)
    held.wait()
    held.stop()
    panel.get_by_test_id("token-name").fill("Made early")
    panel.get_by_test_id("token-create").click()
    row = panel.get_by_test_id("token-list").locator(
        '[data-testid="token-row"]', has_text="Made early"
    )
    expect(row).to_have_count(1)

    (stale,) = held.deliver_all()
    assert "Made early" not in stale.text()  # read before the token was made
    expect(row).to_have_count(1)
    row.get_by_test_id("token-revoke").click()
    expect(row).to_have_count(0)
