"""The page's key-session cache: reuse until 30 s before expiry, one per workspace."""

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from web.app.keys import KeySessions


class Server:
    def __init__(self, clock):
        self.clock = clock
        self.calls: list[str] = []

    async def post(self, url: str) -> tuple[dict, str | None]:
        self.calls.append(url)
        expires = self.clock() + timedelta(minutes=5)
        expires_at = expires.isoformat().replace("+00:00", "Z")
        answer = {"id": f"k{len(self.calls)}", "expiresAt": expires_at}
        return answer, format_datetime(self.clock(), usegmt=True)


def test_reuses_until_close_to_expiry_then_opens_a_new_one():
    now = [datetime(2026, 11, 29, 12, 0, tzinfo=UTC)]
    server = Server(lambda: now[0])
    keys = KeySessions(server.post, clock=lambda: now[0])
    assert asyncio.run(keys.get("personal")) == "k1"
    now[0] += timedelta(minutes=4)
    assert asyncio.run(keys.get("personal")) == "k1"
    now[0] += timedelta(seconds=40)  # within the 30 s margin of expiry
    assert asyncio.run(keys.get("personal")) == "k2"
    assert server.calls == ["/api/workspaces/personal/key-sessions"] * 2


def test_one_session_per_workspace_and_forget():
    def clock():
        return datetime(2026, 11, 29, tzinfo=UTC)

    server = Server(clock)
    keys = KeySessions(server.post, clock=clock)
    assert asyncio.run(keys.get("personal")) != asyncio.run(keys.get("team"))
    keys.forget("team")
    asyncio.run(keys.get("team"))
    keys.forget()
    asyncio.run(keys.get("personal"))
    assert len(server.calls) == 4


def test_a_browser_clock_hours_behind_still_renews_on_time():
    server_now = [datetime(2026, 11, 29, 12, 0, tzinfo=UTC)]
    browser_now = [server_now[0] - timedelta(hours=3)]  # the user's clock is wrong
    server = Server(lambda: server_now[0])
    keys = KeySessions(server.post, clock=lambda: browser_now[0])
    assert asyncio.run(keys.get("personal")) == "k1"
    for clock in (server_now, browser_now):
        clock[0] += timedelta(minutes=4, seconds=40)  # 20 s before the server's expiry
    assert asyncio.run(keys.get("personal")) == "k2"
