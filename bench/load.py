"""A bounded async load generator (fixed concurrency, a request count or a duration), and the
bounded misbehaving clients of the load-under-attack scenario."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import select
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from queue import Empty
from typing import Self
from urllib.parse import urlsplit

import httpx

from ambient.contract import KEY_SESSION_HEADER
from ambient.pointer import HEADER_NAME
from bench.servers import USER, WORKSPACE, new_conversation
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


async def _run(
    base_url: str,
    cookies: httpx.Cookies,
    *,
    concurrency: int,
    requests: int | None,
    seconds: float | None,
    message: str,
    key: str | None,
    header: str | None,
    turns_per_conversation: int,
    on_progress: Callable[[int], None] | None,
) -> LoadResult:
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

    async with httpx.AsyncClient(
        base_url=base_url, cookies=cookies, limits=limits, timeout=60
    ) as client:

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
                    r = await client.post(
                        "/api/assistant/turns",
                        headers=headers,
                        json={
                            "conversationId": conversation,
                            "workspaceId": WORKSPACE,
                            "message": message,
                        },
                    )
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


def run_load(
    base_url: str,
    cookies: httpx.Cookies,
    *,
    concurrency: int = 8,
    requests: int | None = None,
    seconds: float | None = None,
    message: str = "hello",
    key: str | None = None,
    header: str | None = None,
    turns_per_conversation: int = 20,
    on_progress: Callable[[int], None] | None = None,
) -> LoadResult:
    """Drive `POST /api/assistant/turns` over loopback; bounded by `requests` and/or `seconds`."""
    if requests is None and seconds is None:
        raise ValueError("give requests or seconds: the load is always bounded")
    return asyncio.run(
        _run(
            base_url,
            cookies,
            concurrency=concurrency,
            requests=requests,
            seconds=seconds,
            message=message,
            key=key,
            header=header,
            turns_per_conversation=turns_per_conversation,
            on_progress=on_progress,
        )
    )


# --- the misbehaving clients of the "under attack" scenario (issue 15) ----------------------

HEADER_ATTACK_BYTES = 64 * 1024 * 1024
BODY_ATTACK_BYTES = 200 * 1024 * 1024
WRONG_PASSWORDS = 1_000
_PIECE = 1024 * 1024
USER_UNDER_ATTACK = USER[0]


def _loopback(base_url: str) -> tuple[str, int]:
    """(host, port) of `base_url`; the attackers only ever target this machine.

    Called first in every attacker process, which also lowers its own priority: a real
    attacker is on another machine, so here it gets the CPU the server leaves, rather than
    taking a core of the two the server and the honest clients share.
    """
    os.nice(10)
    parts = urlsplit(base_url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1") or parts.port is None:
        raise ValueError("the attack scenario only targets a loopback server")
    return parts.hostname, parts.port


def _send_until_refused(host: str, port: int, head: bytes, total: int, piece: bytes) -> str:
    """Send `head` then up to `total` bytes of `piece`; the server's status, or how it ended."""
    with socket.create_connection((host, port), timeout=10) as sock:
        sent = 0
        try:
            sock.sendall(head)
            while sent < total:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    break
                sock.sendall(piece)
                sent += len(piece)
        except OSError:
            pass  # the server closed the connection: refused
        try:
            answer = sock.recv(64)
        except OSError:
            return "reset"
    return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "closed"


def _count(stats: dict[str, int], key: str) -> None:
    stats[key] = stats.get(key, 0) + 1


def _header_attacker(base_url: str, seconds: float, out: Queue) -> None:
    """Headers of 64 MiB, one connection after another, for `seconds`."""
    host, port = _loopback(base_url)
    stats: dict[str, int] = {}
    head = f"GET /api/health HTTP/1.1\r\nHost: {host}\r\nX-Pad: ".encode()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _count(stats, _send_until_refused(host, port, head, HEADER_ATTACK_BYTES, b"a" * _PIECE))
    out.put(("64 MiB headers", stats))


def _body_attacker(base_url: str, seconds: float, out: Queue) -> None:
    """200 MiB JSON bodies, declared or chunked, to sign-in and to a signed-out turn."""
    host, port = _loopback(base_url)
    stats: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        path = ("/api/session", "/api/assistant/turns")[n % 2]
        chunked = n % 4 >= 2
        framing = (
            "Transfer-Encoding: chunked" if chunked else f"Content-Length: {BODY_ATTACK_BYTES}"
        )
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"{framing}\r\n\r\n"
        ).encode()
        piece = b"x" * _PIECE
        if chunked:
            piece = b"%x\r\n%s\r\n" % (len(piece), piece)
        _count(stats, _send_until_refused(host, port, head, BODY_ATTACK_BYTES, piece))
        n += 1
    out.put(("200 MiB bodies", stats))


def _password_attacker(base_url: str, seconds: float, out: Queue) -> None:
    """1,000 wrong passwords for the benchmark's own user, spread evenly over `seconds`."""
    _loopback(base_url)
    stats: dict[str, int] = {}
    start = time.monotonic()
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for i in range(WRONG_PASSWORDS):
            pause = start + i * seconds / WRONG_PASSWORDS - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            r = client.post(
                "/api/session", json={"username": USER_UNDER_ATTACK, "password": f"wrong-{i}"}
            )
            _count(stats, str(r.status_code))
    out.put(("1,000 wrong passwords", stats))


class Attack:
    """The attackers in processes of their own (so they do not slow the honest clients'
    timing in this process), for a bounded time against a loopback server."""

    def __init__(self, base_url: str, seconds: float) -> None:
        _loopback(base_url)
        context = multiprocessing.get_context("fork")
        self.queue: Queue = context.Queue()
        self.processes = [
            context.Process(target=fn, args=(base_url, seconds, self.queue), daemon=True)
            for fn in (_header_attacker, _body_attacker, _password_attacker)
        ]

    def __enter__(self) -> Self:
        for process in self.processes:
            process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.join(timeout=120)
            if process.is_alive():
                process.terminate()

    def results(self) -> dict[str, dict[str, int]]:
        found = {}
        while len(found) < len(self.processes):
            try:
                name, stats = self.queue.get(timeout=30)
            except Empty:
                break
            found[name] = stats
        return found
