"""Key sessions: one per workspace, reused until close to expiry, then a new one is opened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

MARGIN = timedelta(seconds=30)  # never hand out a session that expires mid-turn


class KeySessions:
    """Caches `POST /api/workspaces/{ws}/key-sessions` answers per workspace.

    `post(url)` is the page's JSON POST (async, returns the decoded object), passed in so the
    cache logic runs under CPython in tests too.
    """

    def __init__(self, post, clock=lambda: datetime.now(UTC)) -> None:
        self._post = post
        self._clock = clock
        self._cache: dict[str, tuple[str, datetime]] = {}

    async def get(self, workspace_id: str) -> str:
        cached = self._cache.get(workspace_id)
        if cached and cached[1] - MARGIN > self._clock():
            return cached[0]
        answer = await self._post(f"/api/workspaces/{workspace_id}/key-sessions")
        expires = datetime.fromisoformat(str(answer["expiresAt"]))  # 3.11+ reads a trailing Z
        if expires.tzinfo is None:
            expires = expires.replace(tzinfo=UTC)
        self._cache[workspace_id] = (str(answer["id"]), expires)
        return self._cache[workspace_id][0]

    def forget(self, workspace_id: str | None = None) -> None:
        """Drop one workspace's session (the server refused it) or all of them (sign-out)."""
        if workspace_id is None:
            self._cache.clear()
        else:
            self._cache.pop(workspace_id, None)
