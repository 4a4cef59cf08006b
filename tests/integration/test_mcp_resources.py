"""MCP resources (SPEC §19): the notes a token reaches as note://{workspaceId}/{path}.

Driven by the official SDK client against a real server, on both databases: paging (at most
100 a page, a cursor, every note once), reach by workspace and by folder, percent-encoded
paths (spaces, Japanese) read back, and refused URIs that never answer a note's text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PaginatedRequestParams
from test_mcp import Live
from test_mcp_write import token

from backend.services import documents
from backend.services.source import Source
from tests.mcp_client import agent_http

SECRET = "the secret text of a note"


@pytest.fixture
def live(app: FastAPI) -> Iterator[Live]:
    server = Live(app).start()
    try:
        yield server
    finally:
        server.stop()


def seed(live: Live, workspace_id: str, paths: list[str], text: str = "note") -> None:
    """Notes written by the documents service itself (faster than one request each)."""
    with live.app.state.sessionmaker() as db:
        for path in paths:
            documents.save_document(
                db,
                workspace_id=workspace_id,
                path=path,
                content=f"{text} {path}",
                max_bytes=live.app.state.settings.max_note_bytes,
                source=Source.page(None),
            )


def paging(cursor: str | None) -> PaginatedRequestParams | None:
    return None if cursor is None else PaginatedRequestParams(cursor=cursor)


async def _with_session(live: Live, t: str, steps: list[tuple[str, Any]]) -> list[Any]:
    http = agent_http({"Authorization": f"Bearer {t}"})
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(http)
        read, write = (
            await stack.enter_async_context(
                streamable_http_client(f"{live.base}/mcp", http_client=http)
            )
        )[:2]
        s = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=20))
        init = await s.initialize()
        out: list[Any] = [init]
        for kind, value in steps:
            try:
                if kind == "list":
                    out.append(await s.list_resources(params=paging(value)))
                elif kind == "all":
                    pages, cursor = [], None
                    while True:
                        page = await s.list_resources(params=paging(cursor))
                        pages.append(page)
                        cursor = page.next_cursor
                        if cursor is None:
                            break
                    out.append(pages)
                else:
                    out.append(await s.read_resource(value))
            except MCPError as exc:
                out.append(exc)
        return out


def session(live: Live, t: str, *steps: tuple[str, Any]) -> list[Any]:
    return anyio.run(_with_session, live, t, list(steps))


def uris(pages: list[Any]) -> list[str]:
    return [str(r.uri) for page in pages for r in page.resources]


def test_250_notes_are_listed_in_three_pages_each_once_in_a_stable_order(live):
    paths = [f"n/{i:03d}.md" for i in range(250)]
    seed(live, "personal", paths)
    seed(live, "team", ["team.md"])
    init, pages = session(live, token(live), ("all", None))
    assert init.capabilities.resources is not None
    assert [len(p.resources) for p in pages] == [100, 100, 51]
    listed = uris(pages)
    expected = [f"note://personal/n/{i:03d}.md" for i in range(250)] + ["note://team/team.md"]
    assert listed == expected  # by workspace, then path: every note once
    first = pages[0].resources[0]
    assert (first.name, first.mime_type, first.size) == (
        "n/000.md",
        "text/markdown",
        len("note n/000.md"),
    )
    # The same cursor answers the same next page.
    _, again = session(live, token(live), ("list", pages[0].next_cursor))
    assert uris([again]) == uris([pages[1]])


def test_a_note_is_read_by_its_uri_with_encoded_segments(live):
    live.note("alice", "personal", "plan.md", "# Plan\n")
    seed(live, "personal", ["日本語/計画 案.md"], text="メモ")
    _, pages = session(live, token(live), ("all", None))
    listed = uris(pages)
    encoded = "note://personal/%E6%97%A5%E6%9C%AC%E8%AA%9E/%E8%A8%88%E7%94%BB%20%E6%A1%88.md"
    assert listed == [encoded, "note://personal/plan.md"] or listed == [
        "note://personal/plan.md",
        encoded,
    ]
    _, plain, japanese = session(
        live, token(live), ("read", "note://personal/plan.md"), ("read", encoded)
    )
    (content,) = plain.contents
    assert (content.text, content.mime_type, str(content.uri)) == (
        "# Plan\n",
        "text/markdown",
        "note://personal/plan.md",
    )
    assert japanese.contents[0].text == "メモ 日本語/計画 案.md"


def test_a_token_lists_and_reads_only_what_it_reaches(live):
    seed(live, "personal", ["projects/a.md", "projects/deep/b.md", "diary.md"], text=SECRET)
    seed(live, "team", ["team.md"], text=SECRET)
    seed(live, "bob-notes", ["bob.md"], text=SECRET)

    alice_all = uris(session(live, token(live), ("all", None))[1])
    assert "note://team/team.md" in alice_all and "note://personal/diary.md" in alice_all
    assert not any(u.startswith("note://bob-notes/") for u in alice_all)  # not a member

    folder = token(live, workspaceId="personal", folder="projects")
    _, pages, inside, outside, other_ws, bobs = session(
        live,
        folder,
        ("all", None),
        ("read", "note://personal/projects/deep/b.md"),
        ("read", "note://personal/diary.md"),
        ("read", "note://team/team.md"),
        ("read", "note://bob-notes/bob.md"),
    )
    assert uris(pages) == ["note://personal/projects/a.md", "note://personal/projects/deep/b.md"]
    assert inside.contents[0].text.startswith(SECRET)
    for refused in (outside, other_ws, bobs):
        assert isinstance(refused, MCPError)
        assert SECRET not in str(refused) and SECRET not in str(refused.error)
    # Outside the reach reads exactly like a note that does not exist.
    _, missing = session(live, folder, ("read", "note://personal/projects/none.md"))
    assert isinstance(missing, MCPError) and str(missing) == str(outside)


@pytest.mark.parametrize(
    "uri",
    [
        "note://personal",
        "note://personal/",
        "note:///plan.md",
        "file:///etc/passwd",
        "note://personal/a//b.md",
        "note://personal/%2E%2E/plan.md",
        "note://personal/a%2Fb.md",
        "note://personal/%FF.md",
        "note://personal/../plan.md",
    ],
)
def test_a_bad_uri_is_an_mcp_error_never_a_note(live, uri):
    seed(live, "personal", ["plan.md"], text=SECRET)
    _, refused = session(live, token(live), ("read", uri))
    assert isinstance(refused, MCPError), uri
    assert SECRET not in str(refused)


def test_a_bad_cursor_is_an_mcp_error(live):
    _, refused = session(live, token(live), ("list", "not-a-cursor"))
    assert isinstance(refused, MCPError) and "cursor" in str(refused)
