"""The agent's HTTP client under the MCP SDK in tests, with the SDK's own timeouts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx2
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
