"""A bounded async load generator: fixed concurrency, a request count or a duration."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from ambient.pointer import HEADER_NAME
from backend.api.routes.assistant import KEY_SESSION_HEADER
from bench.servers import WORKSPACE, new_conversation
from bench.stats import percentile


@dataclass
class LoadResult:
    """Latencies (s) of successful turns, completion times since start (s), errors, duration."""

    latencies: list[float] = field(default_factory=list)
    finished_at: list[float] = field(default_factory=list)
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    duration: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.duration if self.duration else 0.0

    def p(self, q: float) -> float | None:
        return percentile(self.latencies, q)


async def _run(base_url: str, cookies: httpx.Cookies, *, concurrency: int, requests: int | None,
               seconds: float | None, message: str, key: str | None, header: str | None,
               turns_per_conversation: int,
               on_progress: Callable[[int], None] | None) -> LoadResult:
    result = LoadResult()
    headers = {}
    if key:
        headers[KEY_SESSION_HEADER] = key
    if header:
        headers[HEADER_NAME] = header
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    issued = 0
    start = time.perf_counter()
    deadline = start + seconds if seconds else None

    def take() -> bool:
        nonlocal issued
        if requests is not None and issued >= requests:
            return False
        if deadline is not None and time.perf_counter() >= deadline:
            return False
        issued += 1
        return True

    async with httpx.AsyncClient(base_url=base_url, cookies=cookies, limits=limits,
                                 timeout=60) as client:
        async def worker() -> None:
            conversation, used = new_conversation(), 0
            while take():
                # A fresh conversation every few turns, as users start new chats: the turn
                # reads the conversation's history, which must not grow for the whole run.
                if used >= turns_per_conversation:
                    conversation, used = new_conversation(), 0
                used += 1
                t0 = time.perf_counter()
                try:
                    r = await client.post("/api/assistant/turns", headers=headers, json={
                        "conversationId": conversation, "workspaceId": WORKSPACE,
                        "message": message})
                    ok = r.status_code == 200
                    kind = str(r.status_code)
                except httpx.HTTPError as exc:
                    ok, kind = False, type(exc).__name__
                t1 = time.perf_counter()
                if ok:
                    result.latencies.append(t1 - t0)
                    result.finished_at.append(t1 - start)
                    if on_progress:
                        on_progress(len(result.latencies))
                else:
                    result.errors += 1
                    result.error_kinds[kind] = result.error_kinds.get(kind, 0) + 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    result.duration = time.perf_counter() - start
    return result


def run_load(base_url: str, cookies: httpx.Cookies, *, concurrency: int = 8,
             requests: int | None = None, seconds: float | None = None,
             message: str = "hello", key: str | None = None, header: str | None = None,
             turns_per_conversation: int = 20,
             on_progress: Callable[[int], None] | None = None) -> LoadResult:
    """Drive `POST /api/assistant/turns` over loopback; bounded by `requests` and/or `seconds`."""
    if requests is None and seconds is None:
        raise ValueError("give requests or seconds: the load is always bounded")
    return asyncio.run(_run(
        base_url, cookies, concurrency=concurrency, requests=requests, seconds=seconds,
        message=message, key=key, header=header,
        turns_per_conversation=turns_per_conversation, on_progress=on_progress))
