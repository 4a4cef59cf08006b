"""The agent's HTTP client under the MCP SDK in tests, with the SDK's own timeouts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

# What the SDK's own client factory sets: 30 s, reads 300 s (a response stream may stay open).
# httpx's bare 5 s default once failed a tool call on a loaded CI machine, well under the
# session's own 20 s read deadline that the tests mean to rely on.
SDK_TIMEOUT = httpx2.Timeout(30.0, read=300.0)

Hook = Callable[[httpx2.Response], Awaitable[None]]


def agent_http(headers: dict[str, str], on_response: Hook | None = None) -> httpx2.AsyncClient:
    """An AsyncClient for `streamable_http_client(..., http_client=...)`."""
    hooks = {"response": [on_response]} if on_response else {}
    return httpx2.AsyncClient(headers=headers, timeout=SDK_TIMEOUT, event_hooks=hooks)


@asynccontextmanager
async def mcp_session(base: str, http: httpx2.AsyncClient) -> AsyncIterator[ClientSession]:
    """An initialised SDK session with the server at `base` (its /mcp), over `http`."""
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(http)
        read, write = (
            await stack.enter_async_context(streamable_http_client(base + "/mcp", http_client=http))
        )[:2]
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=20)
        )
        await session.initialize()
        yield session


async def oauth_session_calls(
    base: str, auth: httpx2.Auth, calls: list[tuple[str, dict]], statuses: list[int]
) -> list[Any]:
    """`calls` in one MCP session at `base`/mcp under the SDK's OAuth `auth`: each a tool's
    (is_error, structured content), or for the name `__list__` the tool names; every HTTP
    status the client met goes to `statuses`."""

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    http = httpx2.AsyncClient(auth=auth, timeout=SDK_TIMEOUT, event_hooks={"response": [record]})
    results: list[Any] = []
    async with mcp_session(base, http) as s:
        for name, arguments in calls:
            if name == "__list__":
                results.append({t.name for t in (await s.list_tools()).tools})
            else:
                result = await s.call_tool(name, arguments)
                results.append((result.is_error, result.structured_content))
    return results


class Memory:
    """The SDK's OAuth TokenStorage, in memory (one per client)."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info
