"""Key sessions: one per workspace, reused until close to expiry, then a new one is opened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

MARGIN = timedelta(seconds=30)  # never hand out a session that expires mid-turn


class KeySessions:
    """Caches `POST /api/workspaces/{ws}/key-sessions` answers per workspace.

    `post(url)` is the page's JSON POST (async): it returns the decoded object and the
    response's `Date` header (or None); passed in so the cache runs under CPython in tests.
    The lifetime is measured on the server's clock (expiresAt - Date) and counted down on
    ours, so a browser clock that is off does not keep sending a session that has expired.
    """

    def __init__(self, post, clock=lambda: datetime.now(UTC)) -> None:
        self._post = post
        self._clock = clock
        self._cache: dict[str, tuple[str, datetime]] = {}

    async def get(self, workspace_id: str) -> str:
        cached = self._cache.get(workspace_id)
        if cached and cached[1] - MARGIN > self._clock():
            return cached[0]
        answer, server_date = await self._post(f"/api/workspaces/{workspace_id}/key-sessions")
        expires = _aware(datetime.fromisoformat(str(answer["expiresAt"])))  # reads a trailing Z
        try:
            server_now = _aware(parsedate_to_datetime(server_date)) if server_date else None
        except (TypeError, ValueError):
            server_now = None
        if server_now is not None:
            expires = self._clock() + (expires - server_now)
        self._cache[workspace_id] = (str(answer["id"]), expires)
        return self._cache[workspace_id][0]

    def forget(self, workspace_id: str | None = None) -> None:
        """Drop one workspace's session (the server refused it) or all of them (sign-out)."""
        if workspace_id is None:
            self._cache.clear()
        else:
            self._cache.pop(workspace_id, None)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
