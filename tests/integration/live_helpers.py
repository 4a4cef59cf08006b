"""Event-stream helpers: the app on a real uvicorn server and an SSE reader with deadlines."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from dataclasses import dataclass

import httpx
from conftest import PASSWORDS

from support.servers import InThreadServer


class Live:
    """The app on a real uvicorn server (lifespan on), so streams are real streams."""

    def __init__(self, app) -> None:
        self.served = InThreadServer(app)
        self.port, self.url = self.served.port, self.served.url
        self.served.start()

    def client(self, username: str) -> httpx.Client:
        client = httpx.Client(base_url=self.url, timeout=30)
        r = client.post(
            "/api/session", json={"username": username, "password": PASSWORDS[username]}
        )
        assert r.status_code == 200, r.text
        return client

    def stop(self) -> None:
        self.served.stop()


@dataclass
class Event:
    event: str | None
    id: str | None
    data: str | None
    comment: str | None = None

    def json(self) -> dict:
        return json.loads(self.data or "null")


END = object()


class Stream:
    """`GET …/events` read by a thread into a queue; `next_event` waits with a deadline."""

    def __init__(self, base_url: str, ws: str, cookies, headers: dict | None = None) -> None:
        self.items: queue.Queue = queue.Queue()
        self.raw: list[str] = []
        self.client = httpx.Client(
            base_url=base_url, cookies=cookies, timeout=httpx.Timeout(30, read=60)
        )
        self._cm = self.client.stream("GET", f"/api/workspaces/{ws}/events", headers=headers or {})
        self.response = self._cm.__enter__()
        self.status = self.response.status_code
        self.thread = threading.Thread(target=self._read, daemon=True)
        if self.status == 200:
            self.thread.start()

    def _read(self) -> None:
        block: dict[str, str] = {}
        with contextlib.suppress(httpx.HTTPError):  # the stream ending is what tests look at
            for line in self.response.iter_lines():
                self.raw.append(line)
                if line == "":
                    if block:
                        self.items.put(
                            Event(
                                block.get("event"),
                                block.get("id"),
                                block.get("data"),
                                block.get(":"),
                            )
                        )
                    block = {}
                elif line.startswith(":"):
                    block[":"] = line[1:].strip()
                else:
                    key, _, value = line.partition(":")
                    block[key] = value.removeprefix(" ")
        self.items.put(END)

    def next(self, timeout: float = 10):
        return self.items.get(timeout=timeout)

    def next_event(self, timeout: float = 10) -> Event:
        """The next event with an `event:` field (comments skipped); fails at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            item = self.items.get(timeout=max(0.01, deadline - time.monotonic()))
            if item is END:
                raise AssertionError("the stream ended")
            if item.event is not None:
                return item

    def wait_end(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while self.items.get(timeout=max(0.01, deadline - time.monotonic())) is not END:
            pass

    def close(self) -> None:
        try:
            self._cm.__exit__(None, None, None)
        finally:
            self.client.close()
